//===- Host.cpp - Helpers over Python host operations ---------------------===//

#include "Host.h"

#include <algorithm>

namespace pkb::chk {

bool unconditional(const HostOp &Op) { return Op.Depth == 0; }

bool isSymmWrite(const ModuleModel &M, const HostOp &Op) {
  if (Op.Kind != HostOp::SymmWrite)
    return false;
  bool AnyAlloc = false;
  for (const HostOp &H : M.HostOps)
    if (H.Kind == HostOp::SymmAlloc && !H.Target.empty()) {
      AnyAlloc = true;
      if (H.Target == Op.Target)
        return true;
    }
  return !AnyAlloc;
}

bool exclusive(const HostOp &A, const HostOp &B) {
  for (const std::string &G : A.Guards)
    for (const std::string &H : B.Guards)
      if (G == "!(" + H + ")" || H == "!(" + G + ")")
        return true;
  return false;
}

bool runsWhenGuarded(const HostOp &Op) { return Op.Depth == Op.Guards.size(); }

OpSync syncOf(const ModuleModel &M, const HostOp &Op) {
  OpSync S;
  if (Op.Kind == HostOp::Barrier || Op.Kind == HostOp::Collective) {
    S.Signals = S.Waits = true;
    return S;
  }
  if (Op.Kind != HostOp::KernelCall)
    return S;
  for (const KernelModel *K : calledKernels(M, Op)) {
    const KernelFacts &F = K->Facts;
    auto Cross = [&](size_t I) {
      return I < K->Events.size() &&
             std::binary_search(F.CrossRankFlags.begin(),
                                F.CrossRankFlags.end(), K->Events[I].Addr.Base);
    };
    for (size_t I : F.Signals)
      S.Signals = S.Signals || Cross(I);
    for (size_t I : F.Waits)
      S.Waits = S.Waits || Cross(I);
  }
  return S;
}

bool barrierBetween(const ModuleModel &M, size_t From, size_t To) {
  const auto &Ops = M.HostOps;
  if (From >= Ops.size())
    return false;
  const HostOp *Dst = To < Ops.size() ? &Ops[To] : nullptr;
  bool Signal = false, Wait = false;
  for (size_t I = From + 1; I < To && I < Ops.size(); ++I) {
    const HostOp &H = Ops[I];
    if (!runsWhenGuarded(H))
      continue;
    OpSync S = syncOf(M, H);
    Signal = Signal || (S.Signals && !exclusive(H, Ops[From]));
    Wait = Wait || (S.Waits && (!Dst || !exclusive(H, *Dst)));
  }
  return Signal && Wait;
}

std::vector<const KernelModel *> calledKernels(const ModuleModel &M,
                                               const HostOp &Op) {
  std::vector<const KernelModel *> R;
  for (const KernelModel &K : M.Kernels)
    if (Op.Kernels.empty() || std::find(Op.Kernels.begin(), Op.Kernels.end(),
                                        K.Name) != Op.Kernels.end())
      R.push_back(&K);
  return R;
}

static bool peerRead(const Analysis &A, size_t I) {
  const Event &E = A.ev(I);
  return A.isPeerVisible(I) && isReadEvent(E) && E.Addr.Peer &&
         !(E.Addr.Peer->Op == ExprOp::Var && E.Addr.Peer->Name == "rank");
}

bool readsPeersBeforeSync(const ModuleModel &M, const KernelModel &K,
                          const CheckOptions &O) {
  std::optional<Analysis> Local;
  Analysis &A = classifiedContext(M, K, O, Local);
  for (size_t I = 0; I < A.size(); ++I) {
    if (A.isWait(I) && A.isCrossRankFlag(A.ev(I).Addr.Base))
      return false;
    if (peerRead(A, I))
      return true;
  }
  return false;
}

bool readsPeersAfterLastSync(const ModuleModel &M, const KernelModel &K,
                             const CheckOptions &O) {
  std::optional<Analysis> Local;
  Analysis &A = classifiedContext(M, K, O, Local);
  for (size_t I = A.size(); I-- > 0;) {
    if (A.isSignal(I) && A.isCrossRankFlag(A.ev(I).Addr.Base))
      return false;
    if (peerRead(A, I))
      return true;
  }
  return false;
}

} // namespace pkb::chk

namespace pkb::chk {

/// Parameter index of base \p Base in \p K, SIZE_MAX if none.
static size_t paramIndex(const KernelModel &K, const std::string &Base) {
  const Param *P = K.paramOf(Base);
  if (!P)
    return SIZE_MAX;
  return size_t(P - K.Params.data());
}

static void addUnique(std::vector<size_t> &V, size_t X) {
  if (std::find(V.begin(), V.end(), X) == V.end())
    V.push_back(X);
}

std::vector<size_t> exposedPeerReadParams(const ModuleModel &M,
                                          const KernelModel &K,
                                          const CheckOptions &O) {
  std::optional<Analysis> Local;
  Analysis &A = classifiedContext(M, K, O, Local);
  std::vector<size_t> R;
  for (size_t I = A.size(); I-- > 0;) {
    if (A.isSignal(I) && A.isCrossRankFlag(A.ev(I).Addr.Base))
      break;
    if (peerRead(A, I) && !A.isFlagAccess(I))
      addUnique(R, paramIndex(K, A.ev(I).Addr.Base));
  }
  return R;
}

std::vector<size_t> unguardedOwnWriteParams(const ModuleModel &M,
                                            const KernelModel &K,
                                            const CheckOptions &O) {
  std::optional<Analysis> Local;
  Analysis &A = classifiedContext(M, K, O, Local);
  std::vector<size_t> R;
  for (size_t I = 0; I < A.size(); ++I) {
    if (A.isWait(I) && A.isCrossRankFlag(A.ev(I).Addr.Base))
      break;
    const Event &E = A.ev(I);
    bool Own = !E.Addr.Peer ||
               (E.Addr.Peer->Op == ExprOp::Var && E.Addr.Peer->Name == "rank");
    if (A.isPeerVisible(I) && isWriteEvent(E) && Own && !A.isFlagAccess(I) &&
        !A.isShared(I))
      addUnique(R, paramIndex(K, E.Addr.Base));
  }
  return R;
}

} // namespace pkb::chk
