//===- Ord005MixedSize.cpp - ORD-005 --------------------------------------===//
//
// Mixed-size or partially overlapping accesses to one signal word are not
// morally strong (PTX ISA, "Morally strong operations": both must overlap
// completely), so release/acquire through them does not synchronize.
//
//===----------------------------------------------------------------------===//
#include "Checks.h"
#include "Engine.h"

namespace pkb::chk {
namespace {

class Ord005 : public KernelChecker {
public:
  PKB_CHECK_INFO("ORD-005", "mixed-size-signal",
                 "A signal word is accessed with different sizes or partially "
                 "overlapping addresses, so the accesses are not morally "
                 "strong.",
                 "ord-005", ExplainsOutputMismatch)
  PKB_CHECK_NEEDS(HasWait)

  void checkKernel(Analysis &A, std::vector<Finding> &Out,
                   std::vector<Diagnostic> &Diags) const override {
    for (size_t W : A.Waits) {
      for (size_t X = 0; X < A.size(); ++X) {
        if (!A.isFlagAccess(X) || A.ev(X).Addr.Base != A.ev(W).Addr.Base)
          continue;
        // Two accesses of one width at multiples of it overlap completely
        // or not at all: the query below is unsatisfiable without solving
        // it (on 1_allreduce_twoshot.cu, every one of its 112 queries).
        if (X == W || (A.ev(W).Width == A.ev(X).Width &&
                       alignedToWidth(A.ev(W)) && alignedToWidth(A.ev(X))))
          continue;
        Analysis::Range R1 = A.range(W, 1), R2 = A.range(X, 2);
        Encoded Q = A.exec(W, 1) && A.exec(X, 2) && A.conflict(W, 1, X, 2) &&
                    (R1.Lo != R2.Lo || R1.Hi != R2.Hi);
        WitnessSpec Wit = A.agentWitness({1, 2});
        Wit.push_back({"byte1", R1.Lo});
        Wit.push_back({"byte2", R2.Lo});
        Outcome R = A.solve(Q, Wit);
        if (R.unknown()) {
          emitUnknown(info().Id, A.K, A.ev(W), "the access sizes on a flag", R,
                      Out, Diags);
          break;
        }
        if (!R.sat())
          continue;
        const Event &E = A.ev(W);
        Finding F = makeFinding(
            info().Id, A.K, E.Loc,
            "wait " + describe(E) + " (" + std::to_string(E.Width) +
                " bytes) and " + describe(A.ev(X)) + " (" +
                std::to_string(A.ev(X).Width) +
                " bytes) overlap only partially; they are not morally strong "
                "and do not synchronize",
            "access each flag word with one size at one address on both "
            "sides");
        relate(F, "wait", E);
        relate(F, isWriteEvent(A.ev(X)) ? "signal" : "read", A.ev(X));
        applyOutcome(F, R);
        emit(Out, std::move(F));
        break;
      }
    }
  }
};

} // namespace

std::unique_ptr<Checker> makeOrd005() { return std::make_unique<Ord005>(); }

} // namespace pkb::chk
