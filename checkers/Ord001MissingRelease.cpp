//===- Ord001MissingRelease.cpp - ORD-001 ---------------------------------===//
//
// Peer-visible writes followed by a signal with no system-scope release
// between them (PTX ISA, "Memory Consistency Model": release patterns).
//
//===----------------------------------------------------------------------===//
#include "Checks.h"
#include "Engine.h"

#include <optional>
#include <utility>

namespace pkb::chk {
namespace {

class Ord001 : public KernelChecker {
public:
  PKB_CHECK_INFO("ORD-001", "missing-release-before-signal",
                 "Peer-visible writes are followed by a signal that is not a "
                 "system-scope release and no fence orders them first.",
                 "ord-001", ExplainsOutputMismatch)
  PKB_CHECK_NEEDS(HasSignal)

  void checkKernel(Analysis &A, std::vector<Finding> &Out,
                   std::vector<Diagnostic> &Diags) const override {
    for (size_t S : A.Signals) {
      const Event &Sig = A.ev(S);
      if (!A.isCrossRankFlag(Sig.Addr.Base))
        continue;
      Scope Sc = effectiveScope(Sig);
      if (Sc != Scope::System && Sc != Scope::None)
        continue; // too narrow a scope: ORD-003
      if (isReleaseOrder(Sig.Order))
        continue;
      // The nearest earlier peer-visible write with no fence in between
      // whose execution is proven exactly; if every such write needs
      // approximations (opaque values, unknown locals), the nearest one.
      std::optional<std::pair<size_t, Outcome>> Best;
      std::vector<size_t> Writes; // the candidates, nearest first
      for (size_t W = S; W-- > 0;) {
        if (!A.isPeerVisible(W) || !isWriteEvent(A.ev(W)))
          continue;
        bool Fenced = false;
        for (size_t F = W + 1; F < S; ++F)
          if (A.ev(F).Kind == EventKind::Fence &&
              A.ev(F).Order != MemOrder::Acquire)
            Fenced = true;
        if (Fenced)
          break;
        Writes.push_back(W);
        auto Build = [&] {
          return A.exec(W, 1) && A.exec(S, 2) && A.sameRank(1, 2) &&
                 A.sameBlock(1, 2);
        };
        WitnessSpec Wit = A.agentWitness({1, 2});
        Outcome R = A.refine(A.solve(Build(), Wit), Build, Wit);
        if (R.unknown()) {
          if (!Best)
            emitUnknown(info().Id, A.K, Sig, "the release before this signal",
                        R, Out, Diags);
          break;
        }
        if (!R.sat())
          continue;
        bool Exact = !R.Approx && R.Unbound.empty();
        if (!Best || Exact)
          Best.emplace(W, std::move(R));
        if (Exact)
          break;
      }
      if (!Best)
        continue;
      if (Best->second.Approx || !Best->second.Unbound.empty())
        if (auto X = everyCase(A, S, Writes))
          Best = std::move(X);
      Finding Fd = makeFinding(
          info().Id, A.K, Sig.Loc,
          "signal " + describe(Sig) +
              " is not a system-scope release and no fence orders the "
              "earlier write to peer-visible memory before it; a peer that "
              "sees the flag may read stale data",
          "use st.release.sys / atomic with memory_order_release at "
          "system scope, or __threadfence_system() right before the "
          "signal");
      relate(Fd, "write", A.ev(Best->first));
      relate(Fd, "signal", Sig);
      applyOutcome(Fd, Best->second);
      emit(Out, std::move(Fd));
    }
  }

private:
  /// A case split over the conditions of the candidate writes \p Writes
  /// (nearest first) that read locals without an exact value
  /// (Analysis::unknownConditions(): a vector path taken only for aligned
  /// pointers, a scalar one otherwise): one query in which the signal \p S
  /// runs (agent 2) and, for each case, an agent (1 for the first case, then
  /// 3, 4, ...) runs a write under that case in the signalling block, all
  /// of them one thread (Analysis::oneThread()). Whichever way the
  /// conditions go for that thread, it writes before the signal. The write
  /// of the first case (the nearest that works) and the outcome; nullopt
  /// when no write shows it or there is no condition to split.
  static std::optional<std::pair<size_t, Outcome>>
  everyCase(Analysis &A, size_t S, const std::vector<size_t> &Writes) {
    std::vector<ExprRef> Es;
    for (size_t W : Writes) {
      std::vector<ExprRef> X = A.eventExprs(W);
      Es.insert(Es.end(), X.begin(), X.end());
    }
    std::optional<std::vector<std::string>> Conds =
        A.unknownConditions(Es, /*Max=*/2);
    if (!Conds || Conds->empty())
      return std::nullopt;
    const std::vector<std::map<std::string, bool>> Cases = caseSplit(*Conds);
    WitnessSpec Wit = A.agentWitness({1, 2});
    for (size_t First : Writes) {
      auto Build = [&] {
        Encoded F = A.exec(S, 2);
        for (size_t K = 0; K < Cases.size(); ++K) {
          const int Ag = K == 0 ? 1 : int(K) + 2;
          ExactValues X(A, Cases[K]);
          Encoded Runs = A.exec(First, Ag);
          if (K > 0) {
            Runs = Encoded(A.Z.bool_val(false));
            for (size_t W : Writes)
              Runs = Runs || A.exec(W, Ag);
            Runs = Runs && A.oneThread(1, Ag, Writes);
          }
          F = F && Runs && A.sameRank(2, Ag) && A.sameBlock(2, Ag);
        }
        return F;
      };
      if (std::optional<Outcome> O = A.solveExact(Build, Wit))
        return std::make_pair(First, std::move(*O));
    }
    return std::nullopt;
  }
};

} // namespace

std::unique_ptr<Checker> makeOrd001() { return std::make_unique<Ord001>(); }

} // namespace pkb::chk
