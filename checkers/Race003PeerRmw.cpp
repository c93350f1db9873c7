//===- Race003PeerRmw.cpp - RACE-003 --------------------------------------===//
//
// A non-atomic read-modify-write (load, then store of the same element) on
// peer memory that another agent also writes in the same phase: updates are
// lost (CUDA C++ Programming Guide, "Atomic Functions").
//
//===----------------------------------------------------------------------===//
#include "Checks.h"
#include "Races.h"

namespace pkb::chk {
namespace {

/// "device-scope" / "block-scope" / "cluster-scope", for messages.
std::string scopeWord(Scope S) {
  return S == Scope::CTA       ? "block-scope"
         : S == Scope::Cluster ? "cluster-scope"
                               : "device-scope";
}

class Race003 : public KernelChecker {
public:
  PKB_CHECK_INFO("RACE-003", "non-atomic-peer-rmw",
                 "Several agents apply a plain read-modify-write to the same "
                 "peer-memory element in one phase.",
                 "race-003", ExplainsOutputMismatch)
  PKB_CHECK_NEEDS(HasPeerWrite)

  void checkKernel(Analysis &A, std::vector<Finding> &Out,
                   std::vector<Diagnostic> &Diags) const override {
    for (size_t S = 0; S < A.size(); ++S) {
      if (!A.isPeerVisible(S))
        continue;
      // A device- or block-scope atomic is atomic only among the threads of
      // its scope (PTX ISA, "Scope"; morally strong pairs need each scope to
      // include the other thread): atomics of two GPUs on one element race
      // like plain read-modify-writes. Signals on cross-rank flags are
      // ORD-003's.
      bool NarrowAtomic =
          isRmwEvent(A.ev(S)) && isNarrowScope(effectiveScope(A.ev(S))) &&
          !(A.isSignal(S) && A.isCrossRankFlag(A.ev(S).Addr.Base));
      if (!A.isRmwStore(S) && !NarrowAtomic)
        continue;
      Encoded Q =
          A.exec(S, 1) && A.exec(S, 2) &&
          !(A.sameRank(1, 2) && A.sameBlock(1, 2) && A.sameThread(1, 2)) &&
          A.conflict(S, 1, S, 2) && A.samePhase(S, 1, S, 2);
      if (NarrowAtomic)
        Q = Q && !A.sameRank(1, 2);
      WitnessSpec Wit = A.agentWitness({1, 2});
      Wit.push_back({"idx", A.range(S, 1).Lo});
      Wit.push_back({"owner", A.range(S, 1).Owner});
      Outcome R = A.solve(Q, Wit);
      if (R.unknown()) {
        emitUnknown(info().Id, A.K, A.ev(S), "a peer read-modify-write race", R,
                    Out, Diags);
        continue;
      }
      if (!R.sat())
        continue;
      // describe() starts with the event kind ("atomic ...").
      std::string Kind = NarrowAtomic
                             ? scopeWord(effectiveScope(A.ev(S))) + " "
                             : std::string("plain read-modify-write of ");
      Finding F = makeFinding(
          info().Id, A.K, A.ev(S).Loc,
          Kind + describe(A.ev(S)) + " by rank " + R.Witness["r1"] +
              " and rank " + R.Witness["r2"] + " on the same element (byte " +
              R.Witness["idx"] + " of rank " + R.Witness["owner"] +
              ") in one phase loses updates",
          "use atomicAdd_system (or red.add.sys) for the update, or let "
          "each rank reduce its own chunk (pull)");
      relate(F, "write", A.ev(S));
      applyOutcome(F, R);
      emit(Out, std::move(F));
    }
  }
};

} // namespace

std::unique_ptr<Checker> makeRace003() { return std::make_unique<Race003>(); }

} // namespace pkb::chk
