//===- Part001PeerIndexRange.cpp - PART-001 -------------------------------===//
//
// A peer index that is not provably in [0, W): the peer table has W entries
// (docs/candidate-abi.md), anything else reads past it.
//
//===----------------------------------------------------------------------===//
#include "Checks.h"
#include "Engine.h"

namespace pkb::chk {
namespace {

class Part001 : public KernelChecker {
public:
  PKB_CHECK_INFO("PART-001", "peer-index-out-of-range",
                 "A peer index is not provably within [0, world_size).",
                 "part-001",
                 ExplainsDeadlock | ExplainsOutputMismatch |
                     ExplainsUnwrittenOutput | ExplainsRuntimeError)
  PKB_CHECK_NEEDS(HasPeerAccess)

  void checkKernel(Analysis &A, std::vector<Finding> &Out,
                   std::vector<Diagnostic> &Diags) const override {
    for (size_t I = 0; I < A.size(); ++I) {
      const Event &E = A.ev(I);
      if (!isMemEvent(E) || !E.Addr.Peer)
        continue;
      Encoded P = A.toInt(E.Addr.Peer, 1);
      Encoded Q = A.exec(I, 1) && (P < 0 || P >= A.var("world_size", 0));
      WitnessSpec Wit = A.agentWitness({1});
      Wit.push_back({"peer", P});
      Outcome R = A.solve(Q, Wit);
      if (R.unknown()) {
        emitUnknown(info().Id, A.K, E, "the peer index range", R, Out, Diags);
        continue;
      }
      if (!R.sat())
        continue;
      Finding F = makeFinding(
          info().Id, A.K, E.Addr.PeerLoc.isValid() ? E.Addr.PeerLoc : E.Loc,
          "peer index " + E.Addr.Peer->str() + " of " + describe(E) +
              " can be " + R.Witness["peer"] +
              ", outside [0, W) for W = " + std::to_string(R.W),
          "reduce the peer index modulo world_size (non-negative: "
          "(rank + W - 1) % W) or guard it with 0 <= p < world_size");
      relate(F, isWriteEvent(E) ? "write" : "read", E);
      applyOutcome(F, R);
      emit(Out, std::move(F));
    }
  }
};

} // namespace

std::unique_ptr<Checker> makePart001() { return std::make_unique<Part001>(); }

} // namespace pkb::chk
