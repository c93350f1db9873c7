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

/// What the model knows about the values that store event I of agents 1
/// and 2 (who write the same byte of one rank under Q) store.
enum class Values { Differ, Same, Unknown };

/// Compares the values of store I at agents 1 and 2 under Q. Differ: its
/// value is an expression without opaque parts that differs for some
/// assignment (R becomes that assignment); Same: it cannot differ; Unknown:
/// the front end could not express it (a local computed from loads,
/// `sums.packed`) or the solver gave up.
Values compareValues(Analysis &A, size_t I, const Encoded &Q,
                     const WitnessSpec &Wit, Outcome &R) {
  const ExprRef &V = A.ev(I).Value;
  if (!V || V->hasOpaque())
    return Values::Unknown;
  Outcome D = A.solve(Q && A.toInt(V, 1) != A.toInt(V, 2), Wit);
  if (D.unknown())
    return Values::Unknown;
  if (!D.sat())
    return Values::Same;
  if (D.Approx)
    return Values::Unknown;
  R = std::move(D);
  return Values::Differ;
}

/// The message tail of a same-store duplicate whose values the model cannot
/// tell apart: both writers run store I on one rank.
std::string sameValueNote(const Event &E) {
  std::string What = E.Value ? "`" + E.Value->str() + "`" : "the stored value";
  return "; both run this store on one rank, which loses an update only if "
         "they store different values, and the model cannot compare " +
         What + " between them";
}

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
        // A pair's finding sits at the line of J, and emit() keeps the first
        // finding per line: once J's line is reported, its other pairs add
        // nothing (1_allreduce_twoshot.cu: 151 -> 34 solver calls).
        if (reported(Out, info().Id, A.K.Name, A.ev(J).Loc))
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
        // One store instruction run twice on one rank (overlapping chunks of
        // one rank's blocks) is a lost update only if the two runs can store
        // different values; where the model cannot compare them, say so.
        // Only a witness that would be an Error needs the extra queries.
        std::string SameValue;
        if (I == J && !R.Approx && R.Unbound.empty() &&
            R.Witness["r1"] == R.Witness["r2"]) {
          // An undecided cross-rank query keeps the same-rank witness and
          // its severity.
          Outcome Other = A.solve(Q && !A.sameRank(1, 2), Wit);
          if (Other.sat()) {
            R = std::move(Other);
          } else if (!Other.unknown()) {
            Values V = compareValues(A, I, Q, Wit, R);
            if (V == Values::Same)
              continue; // Both store the same value: nothing is lost.
            if (V == Values::Unknown)
              SameValue = sameValueNote(A.ev(I));
          }
        }
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
        if (!SameValue.empty()) {
          F.Sev = Severity::Warning;
          F.Message += SameValue;
          F.Witness["same_store"] = "1";
        }
        emit(Out, std::move(F));
      }
  }
};

} // namespace

std::unique_ptr<Checker> makePart002() { return std::make_unique<Part002>(); }

} // namespace pkb::chk
