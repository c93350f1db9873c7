//===- Bar003PartialSignal.cpp - BAR-003 ----------------------------------===//
//
// A signal raised by some threads (blocks) on behalf of others that is not
// preceded by __syncthreads() (grid sync), or a wait by some threads
// (blocks) that is not followed by one, so other threads' accesses are not
// ordered by the release/acquire (PTX ISA, "Causality order": bar.sync
// orders the CTA's accesses; cumulativity of release).
//
//===----------------------------------------------------------------------===//
#include "Checks.h"
#include "Engine.h"

namespace pkb::chk {
namespace {

class Bar003 : public KernelChecker {
public:
  PKB_CHECK_INFO("BAR-003", "partial-signal-without-barrier",
                 "A single-thread (single-block) signal is not preceded, or "
                 "wait not followed, by __syncthreads() (grid sync).",
                 "bar-003", ExplainsOutputMismatch)
  PKB_CHECK_NEEDS(HasSignal | HasWait)

  /// Finds an access by another thread (block) of the same rank on the
  /// wrong side of sync event S with no barrier of the right kind between.
  bool check(Analysis &A, size_t S, bool Before, bool GridLevel,
             std::vector<Finding> &Out, std::vector<Diagnostic> &Diags) const {
    const Event &E = A.ev(S);
    for (size_t D = 0; D < A.size(); ++D) {
      if (!A.isPeerVisible(D) || (Before ? D >= S : D <= S))
        continue;
      size_t Lo = std::min(D, S), Hi = std::max(D, S);
      bool Separated = false;
      for (size_t X = Lo + 1; X < Hi; ++X)
        if (GridLevel ? A.isGridBarrier(X) || A.isSoftGridBarrier(X)
                      : A.isBlockBarrier(X))
          Separated = true;
      if (Separated)
        continue;
      Encoded Q = A.exec(S, 1) && A.exec(D, 2) && A.sameRank(1, 2);
      if (GridLevel)
        Q = Q && !A.sameBlock(1, 2) && !A.blockGuard(S, 2);
      else
        Q = Q && A.sameBlock(1, 2) && !A.sameThread(1, 2);
      if (Before && isWriteEvent(A.ev(D))) {
        // The data must be for the rank the signal notifies (or be this
        // rank's own buffer, which every peer may read).
        const ExprRef &P = A.ev(D).Addr.Peer;
        bool Own = !P || (P->Op == ExprOp::Var && P->Name == "rank");
        if (!Own)
          Q = Q && A.range(D, 2).Owner == A.range(S, 1).Owner;
      }
      Outcome R = A.solve(Q, A.agentWitness({1, 2}));
      if (R.unknown()) {
        emitUnknown(info().Id, A.K, E, "the barrier around a signal", R, Out,
                    Diags);
        return true;
      }
      if (!R.sat())
        continue;
      std::string Unit = GridLevel ? "block" : "thread";
      std::string Other = GridLevel ? R.Witness["b2"] : R.Witness["t2"];
      std::string Msg =
          Before ? describe(E) + " is raised by " + Unit + " " +
                       (GridLevel ? R.Witness["b1"] : R.Witness["t1"]) +
                       " for the " + Unit + "s, but " + Unit + " " + Other +
                       "'s access " + describe(A.ev(D)) + " at line " +
                       std::to_string(A.ev(D).Loc.Line) +
                       " is not ordered before it by a " +
                       (GridLevel ? "grid sync" : "__syncthreads()")
                 : describe(E) + " is awaited by " + Unit + " " +
                       (GridLevel ? R.Witness["b1"] : R.Witness["t1"]) +
                       " only, but " + Unit + " " + Other + "'s access " +
                       describe(A.ev(D)) + " at line " +
                       std::to_string(A.ev(D).Loc.Line) +
                       " is not ordered after it by a " +
                       (GridLevel ? "grid sync" : "__syncthreads()");
      Finding F = makeFinding(
          info().Id, A.K, E.Loc, Msg,
          GridLevel ? "grid.sync() between the other blocks' accesses and "
                      "the signal (after the wait)"
                    : "__syncthreads() before the signalling thread signals "
                      "(after the waiting thread's wait)");
      relate(F, Before ? "signal" : "wait", E);
      relate(F, isWriteEvent(A.ev(D)) ? "write" : "read", A.ev(D));
      applyOutcome(F, R);
      emit(Out, std::move(F));
      return true;
    }
    return false;
  }

  void checkKernel(Analysis &A, std::vector<Finding> &Out,
                   std::vector<Diagnostic> &Diags) const override {
    std::vector<std::pair<size_t, bool>> Sync;
    for (size_t S : A.Signals)
      Sync.push_back({S, true});
    for (size_t W : A.Waits)
      Sync.push_back({W, false});
    for (auto [S, Before] : Sync) {
      if (!A.isCrossRankFlag(A.ev(S).Addr.Base))
        continue;
      // Does every thread of the block execute it?
      Encoded Partial = A.exec(S, 1) && A.agentRange(2) && A.sameRank(1, 2) &&
                        A.sameBlock(1, 2) && !A.guardOf(S, 2);
      Outcome P = A.solve(Partial, {});
      if ((P.sat() || P.unknown()) &&
          check(A, S, Before, /*GridLevel=*/false, Out, Diags))
        continue;
      Encoded PartialGrid = A.exec(S, 1) && A.agentRange(2) &&
                            A.sameRank(1, 2) && !A.blockGuard(S, 2);
      Outcome PG = A.solve(PartialGrid, {});
      if (PG.sat() || PG.unknown())
        check(A, S, Before, /*GridLevel=*/true, Out, Diags);
    }
  }
};

} // namespace

std::unique_ptr<Checker> makeBar003() { return std::make_unique<Bar003>(); }

} // namespace pkb::chk
