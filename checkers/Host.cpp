//===- Host.cpp - Helpers over Python host operations ---------------------===//

#include "Host.h"

namespace pkb::chk {

bool unconditional(const ModuleModel &M, const HostOp &Op) {
  unsigned MinCol = ~0u;
  for (const HostOp &H : M.HostOps)
    if (H.Loc.Col)
      MinCol = std::min(MinCol, H.Loc.Col);
  return MinCol == ~0u || Op.Loc.Col <= MinCol;
}

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

bool barrierBetween(const ModuleModel &M, size_t From, size_t To) {
  for (size_t I = From + 1; I < To && I < M.HostOps.size(); ++I) {
    const HostOp &H = M.HostOps[I];
    if ((H.Kind == HostOp::Barrier || H.Kind == HostOp::Collective) &&
        unconditional(M, H))
      return true;
  }
  return false;
}

std::vector<const KernelModel *> calledKernels(const ModuleModel &M,
                                               const HostOp &Op) {
  std::string Name = Op.Callee;
  size_t Dot = Name.rfind('.');
  if (Dot != std::string::npos)
    Name = Name.substr(Dot + 1);
  std::vector<const KernelModel *> R;
  for (const KernelModel &K : M.Kernels)
    if (!Name.empty() && K.Name.find(Name) != std::string::npos)
      R.push_back(&K);
  if (R.empty())
    for (const KernelModel &K : M.Kernels)
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
  Analysis A(M, K, O);
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
  Analysis A(M, K, O);
  for (size_t I = A.size(); I-- > 0;) {
    if (A.isSignal(I) && A.isCrossRankFlag(A.ev(I).Addr.Base))
      return false;
    if (peerRead(A, I))
      return true;
  }
  return false;
}

} // namespace pkb::chk
