//===- Race001SharedRace.cpp - RACE-001 -----------------------------------===//
//
// Intra-block shared-memory data race between barriers (GPUVerify's
// barrier-interval race check: two distinct threads of one block, one
// access writing, no __syncthreads() between them). Plain accesses of a
// `__device__` variable (KernelModel::DeviceVars) race the same way: every
// thread of the block shares it (a device-side call counter read by all
// threads and advanced by one).
//
//===----------------------------------------------------------------------===//
#include "Checks.h"
#include "Races.h"

namespace pkb::chk {
namespace {

/// True if event \p I of \p A is a plain (not atomic, not volatile, not a
/// spin) access of a `__device__` variable. Strong accesses of one are a
/// protocol of their own (a grid-barrier counter), not this check's.
bool plainDeviceVar(const Analysis &A, size_t I) {
  const Event &E = A.ev(I);
  return A.K.isDeviceVarAccess(E) && E.Order == MemOrder::Plain &&
         !isRmwEvent(E) && E.Kind != EventKind::SpinWait;
}

class Race001 : public KernelChecker {
public:
  PKB_CHECK_INFO("RACE-001", "shared-memory-race",
                 "Two threads of one block access the same shared-memory "
                 "location between barriers and at least one writes.",
                 "race-001", ExplainsOutputMismatch)
  PKB_CHECK_NEEDS(HasSharedAccess)

  void checkKernel(Analysis &A, std::vector<Finding> &Out,
                   std::vector<Diagnostic> &Diags) const override {
    std::vector<size_t> Sh;
    for (size_t I = 0; I < A.size(); ++I)
      if (isMemEvent(A.ev(I)) && (A.isShared(I) || plainDeviceVar(A, I)))
        Sh.push_back(I);
    for (size_t X = 0; X < Sh.size(); ++X)
      for (size_t Y = X; Y < Sh.size(); ++Y) {
        size_t I = Sh[X], J = Sh[Y];
        const Event &E1 = A.ev(I), &E2 = A.ev(J);
        if (!isWriteEvent(E1) && !isWriteEvent(E2))
          continue;
        if (isRmwEvent(E1) && isRmwEvent(E2))
          continue;
        if (E1.Addr.Base != E2.Addr.Base)
          continue;
        Encoded Q = A.exec(I, 1) && A.exec(J, 2) && A.sameRank(1, 2) &&
                    A.sameBlock(1, 2) && !A.sameThread(1, 2) &&
                    A.conflict(I, 1, J, 2) && A.samePhase(I, 1, J, 2);
        WitnessSpec Wit = A.agentWitness({1, 2});
        Wit.push_back({"idx", A.range(I, 1).Lo});
        addIterWitness(A, I, J, Wit);
        Outcome R = A.solve(Q, Wit);
        if (R.unknown()) {
          emitUnknown(info().Id, A.K, E2, "a shared-memory race", R, Out,
                      Diags);
          continue;
        }
        if (!R.sat())
          continue;
        size_t L = laterEvent(A, I, J, R.Witness);
        size_t Other = L == I ? J : I;
        Finding F = makeFinding(
            info().Id, A.K, A.ev(L).Loc,
            describe(A.ev(L)) + " races with " + describe(A.ev(Other)) +
                " (threads " + R.Witness["t1"] + " and " + R.Witness["t2"] +
                " of one block, byte " + R.Witness["idx"] +
                (A.isShared(I)
                     ? std::string()
                     : " of the __device__ variable '" + E1.Addr.Base + "'") +
                ") with no __syncthreads() between them",
            "add __syncthreads() between the write and the other threads' "
            "accesses (also at the end of loop iterations)");
        relate(F, isWriteEvent(A.ev(I)) ? "write" : "read", A.ev(I));
        relate(F, isWriteEvent(A.ev(J)) ? "write" : "read", A.ev(J));
        applyOutcome(F, R);
        for (auto It = F.Witness.begin(); It != F.Witness.end();)
          It = It->first.rfind("iter", 0) == 0 ? F.Witness.erase(It)
                                               : std::next(It);
        emit(Out, std::move(F));
      }
  }
};

} // namespace

std::unique_ptr<Checker> makeRace001() { return std::make_unique<Race001>(); }

} // namespace pkb::chk
