//===- EngineClassify.cpp - Event classification --------------------------===//
//
// Part of the checker engine (Engine.h); see docs/checkers.md ("Method").
//
//===----------------------------------------------------------------------===//
#include "Engine.h"

#include "pkb/Enrich.h"

#include <algorithm>

namespace pkb::chk {

//===----------------------------------------------------------------------===//
// Classification helpers.
//===----------------------------------------------------------------------===//

bool isMemEvent(const Event &E) { return accessesMemory(E.Kind); }

bool isWriteEvent(const Event &E) { return writesMemory(E.Kind); }

bool isReadEvent(const Event &E) {
  return E.Kind == EventKind::Load || E.Kind == EventKind::Atomic ||
         E.Kind == EventKind::SpinWait || E.Kind == EventKind::BulkCopy;
}

bool alignedToWidth(const Event &E) {
  if (!E.Width || !E.Addr.Index)
    return false;
  if (!E.Addr.ByteOffset)
    return true;
  std::optional<int64_t> C = constOf(E.Addr.ByteOffset);
  return C && *C % int64_t(E.Width) == 0;
}

bool isRmwEvent(const Event &E) {
  return E.Kind == EventKind::Atomic || E.Kind == EventKind::Reduction;
}

bool isReleaseOrder(MemOrder O) {
  return O == MemOrder::Release || O == MemOrder::AcqRel ||
         O == MemOrder::SeqCst;
}

bool isAcquireOrder(MemOrder O) {
  return O == MemOrder::Acquire || O == MemOrder::AcqRel ||
         O == MemOrder::SeqCst;
}

bool isStrongOrder(MemOrder O) { return O != MemOrder::Plain; }

Scope effectiveScope(const Event &E) {
  if (E.Scp != Scope::None)
    return E.Scp;
  if (E.Order == MemOrder::Volatile)
    return Scope::System;
  if (isRmwEvent(E))
    return Scope::GPU; // atomicAdd & co: device scope.
  return Scope::None;
}

bool isNarrowScope(Scope S) {
  return S == Scope::CTA || S == Scope::Cluster || S == Scope::GPU;
}

bool anyVar(const ExprRef &E,
            const std::function<bool(const std::string &)> &Pred,
            bool OpaqueCounts) {
  if (!E)
    return false;
  if (E->Op == ExprOp::Var && Pred(E->Name))
    return true;
  if (E->Op == ExprOp::Opaque && OpaqueCounts)
    return true;
  for (const ExprRef &Op : E->Ops)
    if (anyVar(Op, Pred, OpaqueCounts))
      return true;
  return false;
}

bool startsWith(const std::string &S, const char *P) {
  return S.rfind(P, 0) == 0;
}

bool isThreadVarying(const ExprRef &E) {
  return anyVar(
      E,
      [](const std::string &N) {
        return startsWith(N, "tid.") || N == "lane" || startsWith(N, "loop:") ||
               startsWith(N, "local:") || startsWith(N, "global:") ||
               N == "polled" || startsWith(N, "iter:");
      },
      /*OpaqueCounts=*/true);
}

std::optional<int64_t> constOf(const ExprRef &E) {
  if (E && E->Op == ExprOp::Const)
    return E->Value;
  return std::nullopt;
}

void splitConj(const ExprRef &E, std::vector<ExprRef> &Out) {
  if (!E)
    return;
  if (E->Op == ExprOp::LAnd && E->Ops.size() == 2) {
    splitConj(E->Ops[0], Out);
    splitConj(E->Ops[1], Out);
    return;
  }
  Out.push_back(E);
}

//===----------------------------------------------------------------------===//
// Analysis: classification.
//===----------------------------------------------------------------------===//

/// \p K itself when enrich() has run on it, else an enriched copy kept in
/// \p Own (hand-built models that skipped the pass).
static const KernelModel &enriched(const KernelModel &K,
                                   std::unique_ptr<KernelModel> &Own) {
  if (K.Facts.Done)
    return K;
  Own = std::make_unique<KernelModel>(K);
  enrichKernel(*Own);
  return *Own;
}

/// True if the sorted list \p V holds \p S.
static bool sortedHas(const std::vector<std::string> &V, const std::string &S) {
  return std::binary_search(V.begin(), V.end(), S);
}

/// Analysis::isFlagAccess() of event \p E of the enriched kernel \p K.
static bool flagAccessIn(const KernelModel &K, const Event &E) {
  return isMemEvent(E) && sortedHas(K.Facts.FlagBases, E.Addr.Base) &&
         !K.isSharedAccess(E);
}

/// Analysis::isData() of event \p E of the enriched kernel \p K.
static bool dataIn(const KernelModel &K, const Event &E) {
  return isMemEvent(E) && E.Kind != EventKind::SpinWait &&
         E.Addr.Space != AddrSpace::Local && !E.Addr.Base.empty() &&
         !flagAccessIn(K, E);
}

/// Analysis::isPeerVisible() of event \p E of the enriched kernel \p K.
static bool peerVisibleIn(const KernelModel &K, const Event &E) {
  if (!dataIn(K, E) || K.isSharedAccess(E))
    return false;
  return E.Addr.Peer || E.Addr.Space == AddrSpace::Peer ||
         sortedHas(K.Facts.SymBases, E.Addr.Base);
}

Analysis::Analysis(const ModuleModel &M, const KernelModel &Kernel,
                   const CheckOptions &O)
    : M(M), K(enriched(Kernel, OwnK)), O(O) {
  // docs/checkers.md, "Solver strategy and limits".
  KernelBudget = queryLimit() * KernelBudgetQueries;
  const KernelFacts &F = K.Facts;
  FlagBases.insert(F.FlagBases.begin(), F.FlagBases.end());
  SymBases.insert(F.SymBases.begin(), F.SymBases.end());
  CrossRankFlags.insert(F.CrossRankFlags.begin(), F.CrossRankFlags.end());
  SoftGridBarriers.insert(F.SoftGridBarriers.begin(), F.SoftGridBarriers.end());
  Signals = F.Signals;
  Waits = F.Waits;
  for (const RmwPair &P : F.RmwPairs)
    RmwStores[P.Store] = P.Load;
  for (size_t I = 0; I < K.Events.size(); ++I)
    for (unsigned L : K.Events[I].Loops) {
      if (!LoopFirst.count(L))
        LoopFirst[L] = I;
      LoopLast[L] = I;
    }
}

const Param *Analysis::paramOf(const std::string &Base) const {
  return K.paramOf(Base);
}

bool Analysis::isShared(size_t I) const { return K.isSharedAccess(ev(I)); }

bool Analysis::isFlagAccess(size_t I) const { return flagAccessIn(K, ev(I)); }

bool Analysis::isSignal(size_t I) const {
  return std::binary_search(Signals.begin(), Signals.end(), I);
}

bool Analysis::isData(size_t I) const { return dataIn(K, ev(I)); }

bool Analysis::isPeerVisible(size_t I) const { return peerVisibleIn(K, ev(I)); }

bool Analysis::isCrossRankFlag(const std::string &Base) const {
  return CrossRankFlags.count(Base) != 0;
}

bool Analysis::isSoftGridBarrier(size_t I) const {
  return SoftGridBarriers.count(I) != 0;
}

bool Analysis::isBlockBarrier(size_t I) const {
  const Event &E = ev(I);
  return E.Kind == EventKind::Barrier &&
         (E.Barrier == BarrierKind::Block || E.Barrier == BarrierKind::Grid ||
          E.Barrier == BarrierKind::Cluster || E.Barrier == BarrierKind::Named);
}

bool Analysis::isGridBarrier(size_t I) const {
  return ev(I).Kind == EventKind::Barrier && ev(I).Barrier == BarrierKind::Grid;
}

} // namespace pkb::chk

unsigned pkb::modelFeatures(const ModuleModel &M) {
  using namespace chk;
  unsigned F = M.HostOps.empty() ? 0u : unsigned(HasHostOps);
  for (const KernelModel &Kernel : M.Kernels) {
    std::unique_ptr<KernelModel> Own;
    const KernelModel &K = enriched(Kernel, Own);
    if (!K.Facts.Signals.empty())
      F |= HasSignal;
    if (!K.Facts.Waits.empty())
      F |= HasWait;
    for (const Event &E : K.Events) {
      if (E.Kind == EventKind::Barrier)
        F |= HasBarrier;
      if (!isMemEvent(E))
        continue;
      bool Shared = K.isSharedAccess(E);
      const Param *P = K.paramOf(E.Addr.Base);
      if (E.Addr.Peer)
        F |= HasPeerAccess;
      if (Shared || K.isDeviceVarAccess(E))
        F |= HasSharedAccess;
      if (E.Addr.Space == AddrSpace::Multicast ||
          (P && P->Role == ParamRole::Multicast))
        F |= HasMulticast;
      if (!isWriteEvent(E))
        continue;
      if (peerVisibleIn(K, E))
        F |= HasPeerWrite;
      if (dataIn(K, E) && !Shared &&
          !sortedHas(K.Facts.SymBases, E.Addr.Base) && !E.Addr.Peer)
        F |= HasLocalWrite;
    }
  }
  return F;
}
