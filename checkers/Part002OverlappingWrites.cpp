//===- Part002OverlappingWrites.cpp - PART-002 ----------------------------===//
//
// Overlapping partitions: two distinct agents write the same element of
// symmetric memory in one phase (a write-write race).
//
//===----------------------------------------------------------------------===//
#include "Checks.h"
#include "Races.h"

namespace pkb::chk {
namespace {

class Part002 : public KernelChecker {
public:
  PKB_CHECK_INFO("PART-002", "overlapping-partitions",
                 "Distinct agents write the same element of symmetric memory "
                 "in one phase.",
                 "part-002", ExplainsOutputMismatch)
  PKB_CHECK_NEEDS(HasPeerWrite)

  void checkKernel(Analysis &A, std::vector<Finding> &Out,
                   std::vector<Diagnostic> &Diags) const override {
    std::vector<size_t> Ws;
    for (size_t I = 0; I < A.size(); ++I)
      if (A.isPeerVisible(I) && isWriteEvent(A.ev(I)) && !isRmwEvent(A.ev(I)) &&
          !A.isRmwStore(I))
        Ws.push_back(I);
    for (size_t X = 0; X < Ws.size(); ++X)
      for (size_t Y = X; Y < Ws.size(); ++Y) {
        size_t I = Ws[X], J = Ws[Y];
        if (A.ev(I).Addr.Base != A.ev(J).Addr.Base)
          continue;
        Encoded Q =
            A.exec(I, 1) && A.exec(J, 2) &&
            !(A.sameRank(1, 2) && A.sameBlock(1, 2) && A.sameThread(1, 2)) &&
            A.conflict(I, 1, J, 2) && A.samePhase(I, 1, J, 2);
        WitnessSpec Wit = A.agentWitness({1, 2});
        Wit.push_back({"idx", A.range(I, 1).Lo});
        Wit.push_back({"owner", A.range(I, 1).Owner});
        Outcome R = A.solve(Q, Wit);
        if (R.unknown()) {
          emitUnknown(info().Id, A.K, A.ev(J), "overlapping writes", R, Out,
                      Diags);
          continue;
        }
        if (!R.sat())
          continue;
        Finding F = makeFinding(
            info().Id, A.K, A.ev(J).Loc,
            "rank " + R.Witness["r1"] + " (block " + R.Witness["b1"] +
                ", thread " + R.Witness["t1"] + ") and rank " +
                R.Witness["r2"] + " (block " + R.Witness["b2"] + ", thread " +
                R.Witness["t2"] + ") both write byte " + R.Witness["idx"] +
                " of rank " + R.Witness["owner"] + "'s " + A.ev(I).Addr.Base +
                " in one phase",
            "make the partitions disjoint (clamp the last shard, include the "
            "routing slot in the destination index)");
        relate(F, "write", A.ev(I));
        if (I != J)
          relate(F, "write", A.ev(J));
        applyOutcome(F, R);
        emit(Out, std::move(F));
      }
  }
};

} // namespace

std::unique_ptr<Checker> makePart002() { return std::make_unique<Part002>(); }

} // namespace pkb::chk
