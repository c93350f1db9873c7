//===- Bar002Deadlock.cpp - BAR-002 ---------------------------------------===//
//
// Cross-rank deadlock: for some W, a wait instance whose slot no signal
// instance of any rank writes with a value that ends the wait (signal/wait
// matching, PARCOACH-style: rank-dependent control flow that skips a
// signal shows up as an unmatched wait).
//
//===----------------------------------------------------------------------===//
#include "Checks.h"
#include "Engine.h"

#include <optional>

namespace pkb::chk {
namespace {

class Bar002 : public KernelChecker {
public:
  PKB_CHECK_INFO("BAR-002", "cross-rank-deadlock",
                 "A cross-rank wait has no matching signal for some world "
                 "size (rank-divergent barrier): deadlock.",
                 "bar-002", ExplainsDeadlock)

  /// "No instance of signal S (agent Sa) ends wait Wt of agent 1": the
  /// sender's thread, loop and other coordinates are enumerated (at most
  /// 64 assignments) and its rank expanded over [0, W), giving a
  /// quantifier-free conjunction; with more assignments a universal
  /// quantifier is used instead. Per-block sync fixes the sender's block
  /// to the waiter's.
  z3::expr noMatch(Analysis &A, size_t S, int Sa, size_t Wt,
                   const z3::expr &Exit, bool PerBlock, unsigned Wn,
                   const LaunchDims &L) const {
    const Event &Sig = A.ev(S);
    const Event &W = A.ev(Wt);
    z3::expr M = A.exec(S, Sa) && A.conflict(S, Sa, Wt, 1);
    bool Counter =
        isRmwEvent(Sig) && Sig.Rmw != RmwOp::Exch && Sig.Rmw != RmwOp::Cas;
    bool SimpleExit =
        W.ExitCond && W.ExitCond->mentions("polled") &&
        !anyVar(
            W.ExitCond,
            [](const std::string &N) { return N.rfind("local:", 0) == 0; },
            /*OpaqueCounts=*/true);
    if (!Counter && Sig.Value && SimpleExit) {
      z3::expr_vector From(A.Z), To(A.Z);
      From.push_back(A.var("polled", 1));
      To.push_back(A.toInt(Sig.Value, Sa));
      M = M && z3::expr(Exit).substitute(From, To);
    }
    std::vector<z3::expr> All = A.agentVars(Sa);
    std::vector<z3::expr> Xs;
    z3::expr RankS = A.rank(Sa);
    std::set<std::string> Fixed = {RankS.to_string()};
    if (PerBlock)
      for (const char *D : {"bid.x", "bid.y", "bid.z"})
        Fixed.insert(A.var(D, Sa).to_string());
    for (const z3::expr &X : All)
      if (!Fixed.count(X.to_string()))
        Xs.push_back(X);
    bool Complete = false;
    auto Rows = A.enumerate(A.exec(S, Sa), Xs, Wn, L, 64, Complete);
    if (!Complete) {
      z3::expr_vector BV(A.Z);
      for (const z3::expr &V : All)
        BV.push_back(V);
      return BV.empty() ? !M : z3::forall(BV, !M);
    }
    z3::expr R = A.Z.bool_val(true);
    for (unsigned Rs = 0; Rs < Wn; ++Rs)
      for (const auto &Row : Rows) {
        z3::expr_vector From(A.Z), To(A.Z);
        From.push_back(RankS);
        To.push_back(A.Z.int_val(Rs));
        for (size_t I = 0; I < Xs.size(); ++I) {
          From.push_back(Xs[I]);
          To.push_back(A.Z.int_val(Row[I]));
        }
        if (PerBlock)
          for (const char *D : {"bid.x", "bid.y", "bid.z"}) {
            From.push_back(A.var(D, Sa));
            To.push_back(A.var(D, 1));
          }
        R = R && !z3::expr(M).substitute(From, To);
      }
    return R;
  }

  /// True for a wait that exits once the polled counter reaches its Value
  /// (`polled >= V`, `polled > V`).
  static bool isThresholdWait(const Event &W) {
    return W.Value && (W.Cmp == CmpOp::Ge || W.Cmp == CmpOp::Gt) &&
           !W.Value->hasOpaque() && W.ExitCond;
  }

  /// Number of arrivals on the slot polled by wait \p Wt (agent 1) from
  /// counter signal \p S, as an integer term over agent 1's variables, for
  /// world size \p Wn and launch \p L. The sender's non-rank coordinates
  /// are enumerated (at most 64 assignments) and its rank expanded over
  /// [0, W); std::nullopt if that is not possible.
  std::optional<z3::expr> arrivals(Analysis &A, size_t S, int Sa, size_t Wt,
                                   bool PerBlock, unsigned Wn,
                                   const LaunchDims &L) const {
    const Event &Sig = A.ev(S);
    if (!Sig.Value || Sig.Value->Op != ExprOp::Const || Sig.Value->Value <= 0)
      return std::nullopt;
    z3::expr M = A.exec(S, Sa) && A.conflict(S, Sa, Wt, 1);
    std::vector<z3::expr> All = A.agentVars(Sa), Xs;
    z3::expr RankS = A.rank(Sa);
    std::set<std::string> Fixed = {RankS.to_string()};
    if (PerBlock)
      for (const char *D : {"bid.x", "bid.y", "bid.z"})
        Fixed.insert(A.var(D, Sa).to_string());
    for (const z3::expr &X : All)
      if (!Fixed.count(X.to_string()))
        Xs.push_back(X);
    bool Complete = false;
    auto Rows = A.enumerate(A.exec(S, Sa), Xs, Wn, L, 64, Complete);
    if (!Complete)
      return std::nullopt;
    z3::expr Sum = A.Z.int_val(0);
    for (unsigned Rs = 0; Rs < Wn; ++Rs)
      for (const auto &Row : Rows) {
        z3::expr_vector From(A.Z), To(A.Z);
        From.push_back(RankS);
        To.push_back(A.Z.int_val(Rs));
        for (size_t I = 0; I < Xs.size(); ++I) {
          From.push_back(Xs[I]);
          To.push_back(A.Z.int_val(Row[I]));
        }
        if (PerBlock)
          for (const char *D : {"bid.x", "bid.y", "bid.z"}) {
            From.push_back(A.var(D, Sa));
            To.push_back(A.var(D, 1));
          }
        Sum = Sum + z3::ite(z3::expr(M).substitute(From, To),
                            A.Z.int_val(Sig.Value->Value), A.Z.int_val(0));
      }
    return Sum;
  }

  /// Counter barriers: for two consecutive threshold waits on one slot by
  /// the same agent, the threshold may grow by more than the arrivals that
  /// the counter signals between them deliver. The counter then falls behind
  /// by a fixed amount per barrier and a later barrier never completes.
  void checkCounters(Analysis &A, std::vector<Finding> &Out) const {
    for (size_t I = 0; I < A.Waits.size(); ++I) {
      size_t Wa = A.Waits[I];
      const Event &EA = A.ev(Wa);
      if (!A.isCrossRankFlag(EA.Addr.Base) || !isThresholdWait(EA) ||
          !EA.Loops.empty())
        continue;
      // The next wait on the same base.
      std::optional<size_t> Next;
      for (size_t J = I + 1; J < A.Waits.size() && !Next; ++J)
        if (A.ev(A.Waits[J]).Addr.Base == EA.Addr.Base)
          Next = A.Waits[J];
      if (!Next)
        continue;
      size_t Wb = *Next;
      const Event &EB = A.ev(Wb);
      if (!isThresholdWait(EB) || EB.Cmp != EA.Cmp || !EB.Loops.empty())
        continue;
      // Every signal on the base must be a counter increment outside loops.
      std::vector<size_t> Between;
      bool AllCounters = true;
      for (size_t S : A.Signals) {
        const Event &E = A.ev(S);
        if (E.Addr.Base != EA.Addr.Base)
          continue;
        AllCounters = AllCounters && isRmwEvent(E) && E.Rmw == RmwOp::Add &&
                      E.Loops.empty();
        if (S > Wa && S < Wb)
          Between.push_back(S);
      }
      if (!AllCounters || Between.empty())
        continue;
      bool PerBlock = A.perBlockSync();
      Outcome R;
      bool Found = false;
      std::vector<unsigned> Ws = A.O.WorldSizes;
      std::sort(Ws.begin(), Ws.end());
      for (unsigned Wn : Ws) {
        for (const LaunchDims &L : A.launches()) {
          A.Approx = false;
          z3::expr Q =
              A.exec(Wa, 1) && A.exec(Wb, 1) && A.conflict(Wa, 1, Wb, 1);
          z3::expr Sum = A.Z.int_val(0);
          int Agent = 10;
          bool Ok = true;
          for (size_t S : Between) {
            auto N = arrivals(A, S, Agent++, Wb, PerBlock, Wn, L);
            if (!N) {
              Ok = false;
              break;
            }
            Sum = Sum + *N;
          }
          if (!Ok)
            return;
          z3::expr Growth = A.toInt(EB.Value, 1) - A.toInt(EA.Value, 1);
          Q = Q && Growth > Sum;
          WitnessSpec Wit = A.agentWitness({1});
          Wit.push_back({"growth", Growth});
          Wit.push_back({"arrivals", Sum});
          R = A.solve(Q, Wit, {Wn}, &L);
          if (R.sat()) {
            Found = true;
            break;
          }
        }
        if (Found)
          break;
      }
      if (!Found)
        continue;
      Finding F = makeFinding(
          info().Id, A.K, EB.Loc,
          "for W = " + R.Witness["W"] + ", the counter polled by rank " +
              R.Witness["r1"] + " (block " + R.Witness["b1"] +
              ") must grow by " + R.Witness["growth"] +
              " between two barriers but only " + R.Witness["arrivals"] +
              " arrivals reach it: the counter falls behind and a later "
              "barrier never completes (deadlock)",
          "make the number of arrivals per barrier equal the threshold "
          "increment (include the own arrival, or wait for (W - 1) per "
          "instance)");
      relate(F, "wait", EA);
      relate(F, "wait", EB);
      for (size_t S : Between)
        relate(F, "signal", A.ev(S));
      applyOutcome(F, R);
      emit(Out, std::move(F));
    }
  }

  void checkKernel(Analysis &A, std::vector<Finding> &Out,
                   std::vector<Diagnostic> &Diags) const override {
    checkCounters(A, Out);
    for (size_t Wt : A.Waits) {
      const Event &W = A.ev(Wt);
      if (!A.isCrossRankFlag(W.Addr.Base))
        continue;
      // Signals, plus consuming compare-and-swap/exchange operations, which
      // also write the flag (the reset half of a CAS handshake).
      std::vector<size_t> Sigs;
      for (size_t S = 0; S < A.size(); ++S) {
        const Event &E = A.ev(S);
        bool Consume = E.Kind == EventKind::Atomic &&
                       (E.Rmw == RmwOp::Cas || E.Rmw == RmwOp::Exch);
        if ((A.isSignal(S) || Consume) && E.Addr.Base == W.Addr.Base)
          Sigs.push_back(S);
      }
      if (Sigs.empty())
        continue; // signalled elsewhere (another kernel, the host)
      // Signals of another width than the poll do not synchronize with it
      // at all: that is ORD-005 (mixed-size flag accesses), one root cause.
      bool MixedWidth = false;
      for (size_t S : Sigs)
        MixedWidth = MixedWidth ||
                     (A.ev(S).Width && W.Width && A.ev(S).Width != W.Width);
      if (MixedWidth)
        continue;
      A.Approx = false;
      bool PerBlock = A.perBlockSync();
      Outcome R;
      std::vector<unsigned> Ws = A.O.WorldSizes;
      std::sort(Ws.begin(), Ws.end());
      bool Found = false, Unknown = false;
      for (unsigned Wn : Ws) {
        for (const LaunchDims &L : A.launches()) {
          A.Approx = false;
          z3::expr Q = A.exec(Wt, 1);
          z3::expr Exit =
              W.ExitCond ? A.toBool(W.ExitCond, 1) : A.Z.bool_val(true);
          int Agent = 10;
          for (size_t S : Sigs)
            Q = Q && noMatch(A, S, Agent++, Wt, Exit, PerBlock, Wn, L);
          Analysis::Range Rg = A.range(Wt, 1);
          WitnessSpec Wit = A.agentWitness({1});
          Wit.push_back({"slot", Rg.Lo});
          R = A.solve(Q, Wit, {Wn}, &L);
          if (R.sat()) {
            Found = true;
            break;
          }
          Unknown = Unknown || R.unknown();
        }
        if (Found)
          break;
      }
      if (!Found && Unknown) {
        emitUnknown(info().Id, A.K, W, "signal/wait matching", R, Out, Diags);
        continue;
      }
      if (!Found)
        continue;
      bool RankDep = false;
      for (size_t S : Sigs)
        for (const ExprRef &G : A.ev(S).Guard)
          RankDep = RankDep || G->mentions("rank");
      Finding F = makeFinding(
          info().Id, A.K, W.Loc,
          "for W = " + R.Witness["W"] + ", rank " + R.Witness["r1"] +
              " (block " + R.Witness["b1"] + ", thread " + R.Witness["t1"] +
              ") waits on byte " + R.Witness["slot"] + " of " + W.Addr.Base +
              " but no signal of any rank writes it with a value that ends "
              "the wait: deadlock" +
              (RankDep ? " (the signals sit under rank-dependent branches)"
                       : ""),
          "make every rank signal and wait unconditionally, with matching "
          "slots for every world size");
      relate(F, "wait", W);
      for (size_t S : Sigs)
        relate(F, "signal", A.ev(S));
      applyOutcome(F, R);
      emit(Out, std::move(F));
    }
  }
};

} // namespace

std::unique_ptr<Checker> makeBar002() { return std::make_unique<Bar002>(); }

} // namespace pkb::chk
