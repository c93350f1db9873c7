//===- EngineClassify.cpp - Event classification --------------------------===//
//
// Part of the checker engine (Engine.h); see docs/checkers.md ("Method").
//
//===----------------------------------------------------------------------===//
#include "Engine.h"

namespace pkb::chk {

//===----------------------------------------------------------------------===//
// Classification helpers.
//===----------------------------------------------------------------------===//

bool isMemEvent(const Event &E) {
  switch (E.Kind) {
  case EventKind::Load:
  case EventKind::Store:
  case EventKind::Atomic:
  case EventKind::Reduction:
  case EventKind::SpinWait:
  case EventKind::BulkCopy:
    return true;
  default:
    return false;
  }
}

bool isWriteEvent(const Event &E) {
  return E.Kind == EventKind::Store || E.Kind == EventKind::Atomic ||
         E.Kind == EventKind::Reduction || E.Kind == EventKind::BulkCopy;
}

bool isReadEvent(const Event &E) {
  return E.Kind == EventKind::Load || E.Kind == EventKind::Atomic ||
         E.Kind == EventKind::SpinWait || E.Kind == EventKind::BulkCopy;
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
               startsWith(N, "local:") || N == "polled" ||
               startsWith(N, "iter:");
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

Analysis::Analysis(const ModuleModel &M, const KernelModel &K,
                   const CheckOptions &O)
    : M(M), K(K), O(O) {
  // docs/checkers.md, "Solver strategy and limits".
  KernelBudget = queryLimit() * KernelBudgetQueries;
  for (const Event &E : K.Events)
    if (E.Kind == EventKind::SpinWait && !E.Addr.Base.empty())
      FlagBases.insert(E.Addr.Base);
  for (const Param &P : K.Params)
    if (P.Role == ParamRole::SignalPad || P.Role == ParamRole::SignalPadTable)
      FlagBases.insert(P.Name);
  for (const Event &E : K.Events)
    if (isMemEvent(E) && !E.Addr.Base.empty() &&
        (E.Addr.Peer || E.Addr.Space == AddrSpace::Peer))
      if (!FlagBases.count(E.Addr.Base))
        SymBases.insert(E.Addr.Base);
  for (const Param &P : K.Params)
    if (P.Role == ParamRole::PeerTable && !FlagBases.count(P.Name))
      SymBases.insert(P.Name);
  for (size_t I = 0; I < K.Events.size(); ++I) {
    if (isSignal(I))
      Signals.push_back(I);
    if (isWait(I))
      Waits.push_back(I);
    for (unsigned L : K.Events[I].Loops) {
      if (!LoopFirst.count(L))
        LoopFirst[L] = I;
      LoopLast[L] = I;
    }
  }
}

const Param *Analysis::paramOf(const std::string &Base) const {
  if (const Param *P = K.findParam(Base))
    return P;
  size_t Dot = Base.find('.');
  if (Dot != std::string::npos)
    return K.findParam(Base.substr(0, Dot));
  return nullptr;
}

bool Analysis::isShared(size_t I) const {
  const Event &E = ev(I);
  if (E.Addr.Space == AddrSpace::Shared)
    return true;
  for (const auto &SV : K.SharedVars)
    if (SV.first == E.Addr.Base)
      return true;
  return false;
}

bool Analysis::isFlagAccess(size_t I) const {
  const Event &E = ev(I);
  return isMemEvent(E) && FlagBases.count(E.Addr.Base) && !isShared(I);
}

bool Analysis::isSignal(size_t I) const {
  const Event &E = ev(I);
  // A compare-and-swap/exchange with acquire-only order consumes a flag
  // (the waiting side of a CAS handshake); it does not signal.
  if (E.Kind == EventKind::Atomic &&
      (E.AtomicOp == "cas" || E.AtomicOp == "exch") &&
      E.Order == MemOrder::Acquire)
    return false;
  return isWriteEvent(E) && E.Kind != EventKind::BulkCopy && isFlagAccess(I);
}

bool Analysis::isData(size_t I) const {
  const Event &E = ev(I);
  return isMemEvent(E) && E.Kind != EventKind::SpinWait &&
         E.Addr.Space != AddrSpace::Local && !E.Addr.Base.empty() &&
         !isFlagAccess(I);
}

bool Analysis::isPeerVisible(size_t I) const {
  const Event &E = ev(I);
  if (!isData(I) || isShared(I))
    return false;
  return E.Addr.Peer || E.Addr.Space == AddrSpace::Peer ||
         SymBases.count(E.Addr.Base);
}

bool Analysis::isCrossRankFlag(const std::string &Base) const {
  bool LocalWrite = false;
  for (const Event &E : K.Events) {
    if (!isMemEvent(E) || E.Addr.Base != Base)
      continue;
    if (E.Addr.Peer || E.Addr.Space == AddrSpace::Peer ||
        E.Addr.Space == AddrSpace::Multicast)
      return true;
    if (isWriteEvent(E))
      LocalWrite = true;
  }
  if (const Param *P = paramOf(Base)) {
    if (P->Role == ParamRole::SignalPadTable ||
        P->Role == ParamRole::PeerTable || P->Role == ParamRole::Multicast)
      return true;
    // This rank's own pad: peers signal it, unless the kernel itself
    // updates it locally (then it is a counter of this GPU's blocks).
    if (P->Role == ParamRole::SignalPad)
      return !LocalWrite;
  }
  return false;
}

bool Analysis::isSoftGridBarrier(size_t I) const {
  const Event &E = ev(I);
  if (E.Kind != EventKind::SpinWait || isCrossRankFlag(E.Addr.Base))
    return false;
  for (size_t S : Signals)
    if (ev(S).Addr.Base == E.Addr.Base)
      return true;
  return false;
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
