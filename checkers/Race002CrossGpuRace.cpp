//===- Race002CrossGpuRace.cpp - RACE-002 ---------------------------------===//
//
// Cross-GPU read/write race inside one phase: agents on different ranks
// touch the same symmetric-memory bytes, one reading and one writing, with
// no cross-rank synchronization between them.
//
//===----------------------------------------------------------------------===//
#include "Checks.h"
#include "Races.h"

namespace pkb::chk {
namespace {

class Race002 : public KernelChecker {
public:
  PKB_CHECK_INFO("RACE-002", "cross-gpu-race",
                 "A rank writes symmetric memory that another rank reads in "
                 "the same phase.",
                 "race-002", ExplainsOutputMismatch)
  PKB_CHECK_NEEDS(HasPeerWrite)

  void checkKernel(Analysis &A, std::vector<Finding> &Out,
                   std::vector<Diagnostic> &Diags) const override {
    std::vector<size_t> Ev;
    for (size_t I = 0; I < A.size(); ++I)
      if (A.isPeerVisible(I))
        Ev.push_back(I);
    for (size_t W : Ev) {
      if (!isWriteEvent(A.ev(W)))
        continue;
      for (size_t R : Ev) {
        if (!isReadEvent(A.ev(R)) || A.ev(R).Addr.Base != A.ev(W).Addr.Base)
          continue;
        if (isRmwEvent(A.ev(W)) && isRmwEvent(A.ev(R)))
          continue;
        if (R == W)
          continue;
        if (A.isRmwPair(R, W))
          continue; // the RMW itself: RACE-003
        Encoded Q = A.exec(W, 1) && A.exec(R, 2) && !A.sameRank(1, 2) &&
                    A.conflict(W, 1, R, 2) && A.sameCrossPhase(W, 1, R, 2);
        WitnessSpec Wit = A.agentWitness({1, 2});
        Wit.push_back({"idx", A.range(W, 1).Lo});
        Wit.push_back({"owner", A.range(W, 1).Owner});
        addIterWitness(A, W, R, Wit);
        Outcome Res = A.solve(Q, Wit);
        if (Res.unknown()) {
          emitUnknown(info().Id, A.K, A.ev(W), "a cross-GPU race", Res, Out,
                      Diags);
          continue;
        }
        if (!Res.sat())
          continue;
        size_t L = laterEvent(A, W, R, Res.Witness);
        Finding F = makeFinding(
            info().Id, A.K, A.ev(L).Loc,
            "rank " + Res.Witness["r1"] + " writes byte " + Res.Witness["idx"] +
                " of rank " + Res.Witness["owner"] + "'s " + A.ev(W).Addr.Base +
                " while rank " + Res.Witness["r2"] +
                " reads it in the same phase (W = " + Res.Witness["W"] + ")",
            "separate the write and the peers' reads with a cross-rank "
            "barrier, or write into a second (double) buffer");
        relate(F, "write", A.ev(W));
        relate(F, "read", A.ev(R));
        applyOutcome(F, Res);
        for (auto It = F.Witness.begin(); It != F.Witness.end();)
          It = It->first.rfind("iter", 0) == 0 ? F.Witness.erase(It)
                                               : std::next(It);
        emit(Out, std::move(F));
        break;
      }
    }
  }
};

} // namespace

std::unique_ptr<Checker> makeRace002() { return std::make_unique<Race002>(); }

} // namespace pkb::chk
