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

bool barrierBetween(const ModuleModel &M, size_t From, size_t To) {
  for (size_t I = From + 1; I < To && I < M.HostOps.size(); ++I) {
    const HostOp &H = M.HostOps[I];
    if ((H.Kind == HostOp::Barrier || H.Kind == HostOp::Collective) &&
        unconditional(H))
      return true;
  }
  return false;
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
