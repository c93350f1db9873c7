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

bool exclusiveOnEveryRank(const HostOp &A, const HostOp &B) {
  for (size_t I = 0; I < A.Guards.size(); ++I)
    for (size_t J = 0; J < B.Guards.size(); ++J) {
      const std::string &G = A.Guards[I], &H = B.Guards[J];
      bool Opposite = G == "!(" + H + ")" || H == "!(" + G + ")";
      if (Opposite && I < A.UniformGuards.size() && A.UniformGuards[I] &&
          J < B.UniformGuards.size() && B.UniformGuards[J])
        return true;
    }
  return false;
}

const HostOp *hostOpOf(const ModuleModel &M, const std::string &Kernel,
                       const LaunchSite &L) {
  for (const HostOp &Op : M.HostOps)
    if (Op.Kind == HostOp::KernelCall && Op.Loc.Line == L.Loc.Line &&
        Op.Loc.Col == L.Loc.Col &&
        std::find(Op.Kernels.begin(), Op.Kernels.end(), Kernel) !=
            Op.Kernels.end())
      return &Op;
  return nullptr;
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

std::string argBuffer(const HostOp &Op, const KernelModel &K, size_t P) {
  if (P >= K.Params.size())
    return "?";
  const std::string &Name = K.Params[P].Name;
  const std::string Root = Name.substr(0, Name.find('.'));
  const std::string Field = Name.substr(Root.size());
  // Launch arguments initialize the top-level parameters in order; fields
  // of a struct parameter ("V.peers") follow their root in Params.
  size_t Arg = 0;
  for (const Param &Q : K.Params) {
    if (Q.Name == Root)
      break;
    Arg += Q.Name.find('.') == std::string::npos;
  }
  if (Arg >= Op.ArgBuffers.size() || Op.ArgBuffers[Arg].empty())
    return "?";
  if (Field == ".signal_pads")
    return "signal_pad";
  return Field.empty() || Field == ".peers" ? Op.ArgBuffers[Arg] : "?";
}

Finding hostFinding(const std::string &Id, Severity Sev, const HostOp &At,
                    const HostOp &Of) {
  Finding F;
  F.CheckId = Id;
  F.Sev = Sev;
  F.Kernel = Of.Callee;
  F.Loc = At.Loc;
  return F;
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

/// True if event \p I of \p A goes through the pointer of its own rank
/// (or through no peer pointer at all).
static bool ownAccess(const Analysis &A, size_t I) {
  const Event &E = A.ev(I);
  return !E.Addr.Peer ||
         (E.Addr.Peer->Op == ExprOp::Var && E.Addr.Peer->Name == "rank");
}

static bool peerRead(const Analysis &A, size_t I) {
  return A.isPeerVisible(I) && isReadEvent(A.ev(I)) && !ownAccess(A, I);
}

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

/// True if event \p I of \p A touches symmetric data: peer-visible memory
/// that is neither a flag nor shared memory.
static bool symmData(const Analysis &A, size_t I) {
  return A.isPeerVisible(I) && !A.isFlagAccess(I) && !A.isShared(I);
}

/// The part of a kernel that no cross-rank synchronization of its own
/// orders against other kernels.
enum class Window {
  BeforeFirstWait, ///< from the entry up to the first cross-rank wait
  AfterLastSignal, ///< from the last cross-rank signal to the end
};

/// Parameter indices (paramIndex()) of the bases of the events of \p K in
/// window \p Wn that satisfy \p Pred.
template <typename PredT>
static std::vector<size_t> paramsIn(const ModuleModel &M, const KernelModel &K,
                                    const CheckOptions &O, Window Wn,
                                    PredT Pred) {
  std::optional<Analysis> Local;
  Analysis &A = classifiedContext(M, K, O, Local);
  std::vector<size_t> R;
  const bool Fwd = Wn == Window::BeforeFirstWait;
  for (size_t N = 0; N < A.size(); ++N) {
    size_t I = Fwd ? N : A.size() - 1 - N;
    bool Sync = Fwd ? A.isWait(I) : A.isSignal(I);
    if (Sync && A.isCrossRankFlag(A.ev(I).Addr.Base))
      break;
    if (Pred(A, I))
      addUnique(R, paramIndex(K, A.ev(I).Addr.Base));
  }
  return R;
}

std::vector<size_t> exposedPeerReadParams(const ModuleModel &M,
                                          const KernelModel &K,
                                          const CheckOptions &O) {
  return paramsIn(M, K, O, Window::AfterLastSignal,
                  [](const Analysis &A, size_t I) {
                    return peerRead(A, I) && !A.isFlagAccess(I);
                  });
}

std::vector<size_t> exposedPeerWriteParams(const ModuleModel &M,
                                           const KernelModel &K,
                                           const CheckOptions &O) {
  return paramsIn(
      M, K, O, Window::AfterLastSignal, [](const Analysis &A, size_t I) {
        return isWriteEvent(A.ev(I)) && symmData(A, I) && !ownAccess(A, I);
      });
}

std::vector<size_t> unguardedSymmReadParams(const ModuleModel &M,
                                            const KernelModel &K,
                                            const CheckOptions &O) {
  return paramsIn(
      M, K, O, Window::BeforeFirstWait, [](const Analysis &A, size_t I) {
        return isReadEvent(A.ev(I)) && !isRmwEvent(A.ev(I)) && symmData(A, I);
      });
}

std::vector<size_t> unguardedOwnWriteParams(const ModuleModel &M,
                                            const KernelModel &K,
                                            const CheckOptions &O) {
  return paramsIn(
      M, K, O, Window::BeforeFirstWait, [](const Analysis &A, size_t I) {
        return isWriteEvent(A.ev(I)) && ownAccess(A, I) && symmData(A, I);
      });
}

bool readsPeersBeforeSync(const ModuleModel &M, const KernelModel &K,
                          const CheckOptions &O) {
  return !paramsIn(M, K, O, Window::BeforeFirstWait, peerRead).empty();
}

bool readsPeersAfterLastSync(const ModuleModel &M, const KernelModel &K,
                             const CheckOptions &O) {
  return !paramsIn(M, K, O, Window::AfterLastSignal, peerRead).empty();
}

} // namespace pkb::chk
