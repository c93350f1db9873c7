//===- Ord002MissingAcquire.cpp - ORD-002 ---------------------------------===//
//
// A wait on a peer-written flag followed by reads of peer-written data with
// no system-scope acquire (PTX ISA, "Memory Consistency Model": acquire
// patterns).
//
//===----------------------------------------------------------------------===//
#include "Checks.h"
#include "Engine.h"

namespace pkb::chk {
namespace {

class Ord002 : public KernelChecker {
public:
  PKB_CHECK_INFO("ORD-002", "missing-acquire-after-wait",
                 "Peer-written data is read after a wait whose load is not a "
                 "system-scope acquire and no fence follows it.",
                 "ord-002", ExplainsOutputMismatch)
  PKB_CHECK_NEEDS(HasWait)

  void checkKernel(Analysis &A, std::vector<Finding> &Out,
                   std::vector<Diagnostic> &Diags) const override {
    for (size_t Wt : A.Waits) {
      const Event &Wait = A.ev(Wt);
      if (!A.isCrossRankFlag(Wait.Addr.Base))
        continue;
      Scope Sc = effectiveScope(Wait);
      if (Sc != Scope::System && Sc != Scope::None)
        continue; // ORD-003
      if (isAcquireOrder(Wait.Order))
        continue;
      for (size_t R = Wt + 1; R < A.size(); ++R) {
        const Event &E = A.ev(R);
        if (E.Kind == EventKind::Fence && E.Order != MemOrder::Release)
          break; // an acquire fence (any scope; narrow ones are ORD-003)
        if (A.isWait(R) && isAcquireOrder(E.Order))
          break;
        if (!A.isPeerVisible(R) || !isReadEvent(E))
          continue;
        Encoded Q = A.exec(Wt, 1) && A.exec(R, 2) && A.sameRank(1, 2) &&
                    A.sameBlock(1, 2);
        Outcome Res = A.solve(Q, A.agentWitness({1, 2}));
        if (Res.unknown()) {
          emitUnknown(info().Id, A.K, E, "the acquire after a wait", Res, Out,
                      Diags);
          break;
        }
        if (!Res.sat())
          continue;
        Finding F = makeFinding(
            info().Id, A.K, E.Loc,
            "read " + describe(E) + " of peer-written data follows the wait " +
                describe(Wait) +
                " with no system-scope acquire; it may observe stale values",
            "poll with ld.acquire.sys (memory_order_acquire at system scope) "
            "or put __threadfence_system() right after the wait loop");
        relate(F, "wait", Wait);
        relate(F, "read", E);
        applyOutcome(F, Res);
        emit(Out, std::move(F));
        break;
      }
    }
  }
};

} // namespace

std::unique_ptr<Checker> makeOrd002() { return std::make_unique<Ord002>(); }

} // namespace pkb::chk
