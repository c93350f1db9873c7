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

/// The loop of event \p E whose induction variable is \p N ("loop:3"), or
/// null: only loops that enclose E bound their variable there.
const Loop *enclosingLoop(const Analysis &A, const Event &E,
                          const std::string &N) {
  if (!startsWith(N, "loop:"))
    return nullptr;
  unsigned Id = unsigned(std::atoi(N.c_str() + 5));
  if (std::find(E.Loops.begin(), E.Loops.end(), Id) == E.Loops.end())
    return nullptr;
  return A.K.findLoop(Id);
}

/// \p X is provably non-negative wherever \p E executes: agent
/// coordinates, non-negative constants, variables of enclosing ascending
/// loops that start at a non-negative constant, and sums and products of
/// those.
bool nonNegative(Analysis &A, const Event &E, const ExprRef &X) {
  switch (X->Op) {
  case ExprOp::Const:
    return X->Value >= 0;
  case ExprOp::Var: {
    const std::string &N = X->Name;
    if (A.isCoordVar(N, "rank") || A.isCoordVar(N, "world_size") ||
        startsWith(N, "tid.") || startsWith(N, "bid.") ||
        startsWith(N, "bdim.") || startsWith(N, "gdim."))
      return true;
    const Loop *L = enclosingLoop(A, E, N);
    return L && L->Ascending && L->Init && L->Init->Op == ExprOp::Const &&
           L->Init->Value >= 0;
  }
  case ExprOp::Add:
  case ExprOp::Mul:
    return nonNegative(A, E, X->Ops[0]) && nonNegative(A, E, X->Ops[1]);
  default:
    return false;
  }
}

/// Peer index \p P of event \p E is in [0, W) by its shape alone, so the
/// solver query is unsatisfiable and is skipped (docs/performance.md):
/// the rank; the variable of an enclosing ascending loop from a
/// non-negative constant below world_size; `X % world_size` with X
/// non-negative.
bool inRangeByShape(Analysis &A, const Event &E, const ExprRef &P) {
  if (P->Op == ExprOp::Var) {
    if (A.isCoordVar(P->Name, "rank"))
      return true;
    const Loop *L = enclosingLoop(A, E, P->Name);
    return L && nonNegative(A, E, P) && L->Ascending && L->Bound &&
           L->Bound->Op == ExprOp::Var &&
           A.isCoordVar(L->Bound->Name, "world_size");
  }
  return P->Op == ExprOp::Rem && P->Ops[1]->Op == ExprOp::Var &&
         A.isCoordVar(P->Ops[1]->Name, "world_size") &&
         nonNegative(A, E, P->Ops[0]);
}

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
      if (!isMemEvent(E) || !E.Addr.Peer || inRangeByShape(A, E, E.Addr.Peer))
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
