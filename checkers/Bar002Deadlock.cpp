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
#include "Host.h"

#include <algorithm>
#include <functional>
#include <map>
#include <optional>
#include <set>

namespace pkb::chk {
namespace {

/// Most assignments of a sender's non-rank coordinates that noMatch() and
/// arrivals() expand into a quantifier-free formula; beyond it noMatch()
/// uses a universal quantifier and arrivals() gives up. 128 holds one
/// signalling thread per peer (W <= 8) in each block of a 16-block grid,
/// the shape of a per-block flag barrier: at 64 such senders fell back to
/// quantified queries (sig001_02_rawptr.cu: BAR-002 2.33M -> 0.55M solver
/// units; no other bundled file changed, docs/performance.md, seventh
/// session).
constexpr size_t kMaxSenderRows = 128;

/// The assignments of a sender's coordinates (Analysis::enumerate) of one
/// kernel, memoized: every wait that a signal may end enumerates the same
/// sender instances for the same world size and launch, and so does every
/// counter check that sums its arrivals.
class RowCache {
public:
  /// The rows of Analysis::enumerate(F, Xs, W, L, Cap, Complete), computed
  /// on the first request and then answered from the memo. Enumerations
  /// cut short by the solver (unknown) are not kept: a later request runs
  /// them again, as it did without the memo.
  /// The rows do not carry \p F's approximation flag (enumerate()), so
  /// the memo is keyed by the term alone.
  ///
  /// First, once per term and launch, the rows of every configured world
  /// size together (Analysis::enumerateAcross()): when they are complete
  /// they are the answer for each W. A superset of one W's rows serves
  /// every caller: a row that no agent of that W runs makes its term false
  /// (noMatch() conjoins its negation, arrivals() adds 0 for it), and the
  /// one enumeration replaces one per W.
  std::vector<std::vector<int64_t>> rows(Analysis &A, const Encoded &F,
                                         const std::vector<z3::expr> &Xs,
                                         unsigned W, const LaunchDims &L,
                                         size_t Cap, bool &Complete) {
    if (!L.Guard && A.O.WorldSizes.size() > 1) {
      const Entry *E = find(F, Xs, Across, L, Cap);
      if (!E) {
        bool AllComplete = false;
        auto Rows = A.enumerateAcross(F, Xs, L, Cap, AllComplete);
        E = &store({F.Term, Xs, Across, &L, Cap, std::move(Rows), AllComplete});
      }
      if (E->Complete) {
        Complete = true;
        return E->Rows;
      }
    }
    if (const Entry *E = find(F, Xs, W, L, Cap)) {
      Complete = E->Complete;
      return E->Rows;
    }
    auto Rows = A.enumerate(F, Xs, W, L, Cap, Complete);
    // Complete, or stopped at the cap: the same answer every time.
    if (Complete || Rows.size() >= Cap)
      store({F.Term, Xs, W, &L, Cap, Rows, Complete});
    return Rows;
  }

private:
  struct Entry {
    z3::expr F;
    std::vector<z3::expr> Xs;
    unsigned W;
    const LaunchDims *L;
    size_t Cap;
    std::vector<std::vector<int64_t>> Rows;
    bool Complete;
  };
  static bool sameTerms(const std::vector<z3::expr> &X,
                        const std::vector<z3::expr> &Y) {
    if (X.size() != Y.size())
      return false;
    for (size_t I = 0; I < X.size(); ++I)
      if (!z3::eq(X[I], Y[I]))
        return false;
    return true;
  }
  /// The W of an entry of enumerateAcross() (no world size is 0).
  static constexpr unsigned Across = 0;
  /// The memo entry for these arguments, or null.
  const Entry *find(const Encoded &F, const std::vector<z3::expr> &Xs,
                    unsigned W, const LaunchDims &L, size_t Cap) const {
    auto It = Memo.find(F.Term.hash());
    if (It != Memo.end())
      for (const Entry &E : It->second)
        if (E.W == W && E.L == &L && E.Cap == Cap && z3::eq(E.F, F.Term) &&
            sameTerms(E.Xs, Xs))
          return &E;
    return nullptr;
  }
  /// Adds \p E to the memo; the reference is valid until the next store.
  const Entry &store(Entry E) {
    std::vector<Entry> &Bucket = Memo[E.F.hash()];
    Bucket.push_back(std::move(E));
    return Bucket.back();
  }
  std::map<unsigned, std::vector<Entry>> Memo;
};

class Bar002 : public KernelChecker {
public:
  PKB_CHECK_INFO("BAR-002", "cross-rank-deadlock",
                 "A cross-rank wait has no matching signal for some world "
                 "size (rank-divergent barrier): deadlock.",
                 "bar-002", ExplainsDeadlock)
  PKB_CHECK_NEEDS(HasWait)

  /// The launch-argument key of base \p Base of kernel \p K at launch
  /// \p L: the argument text of the parameter the base belongs to, plus
  /// the field path ("Ctx->signal_pads", "ctx->view|.signal_pads"); empty
  /// when the launch does not pass it as a `k<<<...>>>(args)` argument.
  static std::string argKey(const KernelModel &K, const LaunchSite &L,
                            const std::string &Base) {
    const Param *P = K.paramOf(Base);
    if (!P)
      return {};
    std::string Root = P->Name.substr(0, P->Name.find('.'));
    for (const LaunchSite::Arg &A : L.Args)
      if (A.Param == Root && !A.Text.empty())
        return A.Text + "|" + Base.substr(Root.size());
    return {};
  }

  /// True when another kernel of the unit, launched from a host function
  /// that also launches this kernel (one host call sequence), writes the
  /// memory that wait \p Wt polls: a launch of each passes the same
  /// argument text for the two bases (docs/checkers.md, BAR-002, "Waits
  /// signalled by another kernel"). Such a wait is not decided here. A
  /// launch in the opposite arm of an `if` whose condition is the same on
  /// every rank (exclusiveOnEveryRank(): `if (Vec) k<8><<<>>> else
  /// k<1><<<>>>`) does not count: no rank runs it in a call that runs this
  /// kernel.
  static bool signalledElsewhere(const Analysis &A, size_t Wt) {
    const std::string &Base = A.ev(Wt).Addr.Base;
    for (const LaunchSite &L : A.K.Launches) {
      std::string Key = argKey(A.K, L, Base);
      if (Key.empty())
        continue;
      for (const KernelModel &K2 : A.M.Kernels) {
        if (&K2 == &A.K || K2.Name == A.K.Name)
          continue;
        for (const LaunchSite &L2 : K2.Launches) {
          bool SameHost = std::any_of(
              L2.HostCallers.begin(), L2.HostCallers.end(),
              [&](const std::string &H) {
                return std::find(L.HostCallers.begin(), L.HostCallers.end(),
                                 H) != L.HostCallers.end();
              });
          const HostOp *Op = hostOpOf(A.M, A.K.Name, L);
          const HostOp *Op2 = hostOpOf(A.M, K2.Name, L2);
          if (!SameHost || (Op && Op2 && exclusiveOnEveryRank(*Op, *Op2)))
            continue;
          for (const Event &E : K2.Events)
            if (writesMemory(E.Kind) && argKey(K2, L2, E.Addr.Base) == Key)
              return true;
        }
      }
    }
    return false;
  }

  /// The signals that can end wait \p Wt (writes of its flag base, plus
  /// consuming compare-and-swap/exchange operations, which also write the
  /// flag: the reset half of a CAS handshake) into \p Sigs. False when the
  /// wait is not checked here: no signal in this kernel (signalled by
  /// another kernel or the host), a kernel of the same host call sequence
  /// that writes the polled memory, or a signal of another width than the
  /// poll (ORD-005, mixed-size flag accesses: one root cause).
  static bool signalsOf(const Analysis &A, size_t Wt,
                        std::vector<size_t> &Sigs) {
    const Event &W = A.ev(Wt);
    if (signalledElsewhere(A, Wt))
      return false;
    for (size_t S = 0; S < A.size(); ++S) {
      const Event &E = A.ev(S);
      bool Consume = E.Kind == EventKind::Atomic &&
                     (E.Rmw == RmwOp::Cas || E.Rmw == RmwOp::Exch);
      if ((A.isSignal(S) || Consume) && E.Addr.Base == W.Addr.Base)
        Sigs.push_back(S);
    }
    for (size_t S : Sigs)
      if (A.ev(S).Width && W.Width && A.ev(S).Width != W.Width)
        return false;
    return !Sigs.empty();
  }

  /// Instance of signal \p S by agent \p Sa may end wait \p Wt of agent 1:
  /// it executes, writes the polled bytes and (for a plain store whose
  /// value is known and a wait whose exit condition is over the polled
  /// value alone) stores a value that satisfies \p Exit. An
  /// over-approximation of "ends the wait". Approximate when the signal's
  /// instance or its compared value is.
  static Encoded matches(Analysis &A, size_t S, int Sa, size_t Wt,
                         const Encoded &Exit) {
    const Event &Sig = A.ev(S);
    const Event &W = A.ev(Wt);
    Encoded M = A.exec(S, Sa) && A.conflict(S, Sa, Wt, 1);
    bool Counter =
        isRmwEvent(Sig) && Sig.Rmw != RmwOp::Exch && Sig.Rmw != RmwOp::Cas;
    bool SimpleExit =
        W.ExitCond && W.ExitCond->mentions("polled") &&
        !anyVar(
            W.ExitCond,
            [](const std::string &N) {
              return startsWith(N, "local:") || startsWith(N, "global:");
            },
            /*OpaqueCounts=*/true);
    if (!Counter && Sig.Value && SimpleExit) {
      z3::expr_vector From(A.Z), To(A.Z);
      From.push_back(A.var("polled", 1));
      Encoded V = A.toInt(Sig.Value, Sa);
      To.push_back(V.Term);
      M = M && Exit.substitute(From, To).orApprox(V.Approx);
    }
    return M;
  }

  /// "No instance of signal S (agent Sa) ends wait Wt of agent 1": the
  /// sender's thread, loop and other coordinates are enumerated (at most
  /// kMaxSenderRows assignments) and its rank expanded over [0, W), giving a
  /// quantifier-free conjunction; with more assignments a universal
  /// quantifier is used instead. Per-block sync fixes the sender's block
  /// to the waiter's. Approximate when matches() is (also when no
  /// assignment is enumerated).
  Encoded noMatch(Analysis &A, RowCache &Rc, size_t S, int Sa, size_t Wt,
                  const Encoded &Exit, bool PerBlock, unsigned Wn,
                  const LaunchDims &L) const {
    Encoded M = matches(A, S, Sa, Wt, Exit);
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
    auto Rows = Rc.rows(A, A.exec(S, Sa), Xs, Wn, L, kMaxSenderRows, Complete);
    if (!Complete) {
      z3::expr_vector BV(A.Z);
      for (const z3::expr &V : All)
        BV.push_back(V);
      return BV.empty() ? !M : forall(BV, !M);
    }
    // Specialized for this W and launch once, not once per sender.
    M.Term = A.specialize(M.Term, Wn, L);
    Encoded R = Encoded(A.Z.bool_val(true)).orApprox(M.Approx);
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
        R = R && !M.substitute(From, To);
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
  /// are enumerated (at most kMaxSenderRows assignments) and its rank
  /// expanded over [0, W); std::nullopt if that is not possible.
  /// Approximate when the signal's instance is (also when no assignment is
  /// enumerated).
  std::optional<Encoded> arrivals(Analysis &A, RowCache &Rc, size_t S, int Sa,
                                  size_t Wt, bool PerBlock, unsigned Wn,
                                  const LaunchDims &L) const {
    const Event &Sig = A.ev(S);
    if (!Sig.Value || Sig.Value->Op != ExprOp::Const || Sig.Value->Value <= 0)
      return std::nullopt;
    Encoded M = A.exec(S, Sa) && A.conflict(S, Sa, Wt, 1);
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
    auto Rows = Rc.rows(A, A.exec(S, Sa), Xs, Wn, L, kMaxSenderRows, Complete);
    if (!Complete)
      return std::nullopt;
    M.Term = A.specialize(M.Term, Wn, L);
    Encoded Sum = Encoded(A.Z.int_val(0)).orApprox(M.Approx);
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
        Sum = Sum + ite(M.substitute(From, To), A.Z.int_val(Sig.Value->Value),
                        A.Z.int_val(0));
      }
    return Sum;
  }

  /// Outcome of growthExceeds().
  enum class Excess { Found, None, Uncountable };

  /// Solves "the threshold grows by more than the arrivals" for each world
  /// size (ascending) and launch: \p Base gives the condition under which
  /// the waits execute, \p Growth the threshold growth (both over agent
  /// 1), and the arrivals at wait \p Wt of the counter signals \p Sigs are
  /// summed (arrivals()). Launches for which \p Skip holds are not tried;
  /// with \p Exact an approximate satisfying assignment does not count.
  /// Found fills \p R; Uncountable when some arrivals cannot be counted.
  Excess growthExceeds(Analysis &A, RowCache &Rc, size_t Wt,
                       const std::vector<size_t> &Sigs,
                       const std::function<Encoded()> &Base,
                       const std::function<Encoded()> &Growth,
                       const std::function<bool(const LaunchDims &)> &Skip,
                       Outcome &R, bool Exact = false) const {
    bool PerBlock = A.perBlockSync();
    std::vector<unsigned> Ws = A.O.WorldSizes;
    std::sort(Ws.begin(), Ws.end());
    for (unsigned Wn : Ws)
      for (const LaunchDims &L : A.launches()) {
        if (Skip(L))
          continue;
        Encoded Q = Base();
        Encoded Sum = A.Z.int_val(0);
        int Agent = 10;
        for (size_t S : Sigs) {
          auto N = arrivals(A, Rc, S, Agent++, Wt, PerBlock, Wn, L);
          if (!N)
            return Excess::Uncountable;
          Sum = Sum + *N;
        }
        Encoded G = Growth();
        WitnessSpec Wit = A.agentWitness({1});
        Wit.push_back({"growth", G});
        Wit.push_back({"arrivals", Sum});
        R = A.solve(Q && G > Sum, Wit, {Wn}, &L);
        if (R.sat() && !(Exact && R.Approx))
          return Excess::Found;
      }
    return Excess::None;
  }

  /// Counter barriers: for two consecutive threshold waits on one slot by
  /// the same agent, the threshold may grow by more than the arrivals that
  /// the counter signals between them deliver. The counter then falls behind
  /// by a fixed amount per barrier and a later barrier never completes.
  void checkCounters(Analysis &A, RowCache &Rc,
                     std::vector<Finding> &Out) const {
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
      Outcome R;
      Excess X = growthExceeds(
          A, Rc, Wb, Between,
          [&]() -> Encoded {
            return A.exec(Wa, 1) && A.exec(Wb, 1) && A.conflict(Wa, 1, Wb, 1);
          },
          [&]() -> Encoded {
            return A.toInt(EB.Value, 1) - A.toInt(EA.Value, 1);
          },
          [](const LaunchDims &) { return false; }, R);
      if (X == Excess::Uncountable)
        return;
      if (X != Excess::Found)
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

  /// Constant byte range [Lo, Hi) of event \p E when its index and byte
  /// offset are constants and its width is known.
  static std::optional<std::pair<int64_t, int64_t>> constBytes(const Event &E) {
    std::optional<int64_t> I = constOf(E.Addr.Index);
    std::optional<int64_t> B =
        E.Addr.ByteOffset ? constOf(E.Addr.ByteOffset) : int64_t(0);
    if (!I || !B || !E.Width)
      return std::nullopt;
    int64_t Lo = *I * E.Width + *B;
    return std::make_pair(Lo, Lo + int64_t(E.Width));
  }

  /// No other kernel of the module may write the slot that wait \p Wt
  /// polls: each of their writes goes to shared or symmetric data, to an
  /// output buffer (LocalBuffer role), or to constant bytes disjoint from
  /// the wait's constant bytes. Conservative: anything else may alias.
  static bool slotPrivate(const Analysis &A, size_t Wt) {
    std::optional<std::pair<int64_t, int64_t>> Mine = constBytes(A.ev(Wt));
    if (!Mine)
      return false;
    for (const KernelModel &K2 : A.M.Kernels) {
      if (K2.Name == A.K.Name)
        continue;
      if (!K2.Facts.Done)
        return false;
      for (const Event &E : K2.Events) {
        if (!isWriteEvent(E) || K2.isSharedAccess(E) ||
            E.Addr.Space == AddrSpace::Local)
          continue;
        const Param *P = K2.paramOf(E.Addr.Base);
        bool Data = std::binary_search(K2.Facts.SymBases.begin(),
                                       K2.Facts.SymBases.end(), E.Addr.Base) ||
                    (P && P->Role == ParamRole::LocalBuffer);
        if (Data)
          continue;
        std::optional<std::pair<int64_t, int64_t>> R = constBytes(E);
        if (!R || (R->first < Mine->second && Mine->first < R->second))
          return false;
      }
    }
    return true;
  }

  /// True if \p E is affine in the variable \p X: built from constants,
  /// variables, +, - and products with at most one factor mentioning X.
  /// Its growth when X grows by one is then the same for every X.
  static bool affineIn(const ExprRef &E, const std::string &X) {
    if (!E)
      return false;
    switch (E->Op) {
    case ExprOp::Const:
    case ExprOp::Var:
      return true;
    case ExprOp::Add:
    case ExprOp::Sub:
    case ExprOp::Neg:
      return std::all_of(E->Ops.begin(), E->Ops.end(),
                         [&](const ExprRef &O) { return affineIn(O, X); });
    case ExprOp::Mul:
      return affineIn(E->Ops[0], X) && affineIn(E->Ops[1], X) &&
             !(E->Ops[0]->mentions(X) && E->Ops[1]->mentions(X));
    default:
      return !E->mentions(X);
    }
  }

  /// The host sequence of the module (a candidate's `pkb_candidate_run`)
  /// launches kernel \p K exactly once per call, unconditionally.
  static bool launchedOncePerCall(const Analysis &A) {
    unsigned N = 0;
    for (const HostOp &Op : A.M.HostOps) {
      if (Op.Kind != HostOp::KernelCall ||
          std::find(Op.Kernels.begin(), Op.Kernels.end(), A.K.Name) ==
              Op.Kernels.end())
        continue;
      if (Op.Depth != 0 || Op.Kernels.size() != 1)
        return false;
      ++N;
    }
    return N == 1;
  }

  /// Counter barriers across calls: a threshold wait (`polled >= V`, the
  /// only one on its flag base, outside loops) whose target V grows with
  /// an epoch parameter, on a slot that only atomic adds of this kernel
  /// raise, in a kernel that the host launches once per call. From one
  /// call to the next the target grows by V[epoch := epoch + 1] - V (an
  /// epoch advances by at least one per call; a smaller growth for a
  /// larger step is impossible for the affine targets seen) while the
  /// counter grows by the arrivals of one call (all ranks' signals,
  /// counted as in arrivals()). If the target can grow by more, the
  /// counter falls behind by a fixed amount per call and the wait of a
  /// later call never completes (the `W * epoch` wait on `W - 1`
  /// arrivals). Calls are assumed to stay in step: the signalling ranks
  /// do not run unboundedly many calls ahead of the waiter.
  void checkCallCounters(Analysis &A, RowCache &Rc,
                         std::vector<Finding> &Out) const {
    if (!launchedOncePerCall(A))
      return;
    for (size_t Wt : A.Waits) {
      const Event &EW = A.ev(Wt);
      if (!A.isCrossRankFlag(EW.Addr.Base) || !isThresholdWait(EW) ||
          !EW.Loops.empty())
        continue;
      bool Alone = true;
      for (size_t W2 : A.Waits)
        Alone = Alone && (W2 == Wt || A.ev(W2).Addr.Base != EW.Addr.Base);
      const Param *Ep = nullptr;
      for (const Param &P : A.K.Params)
        if (P.Role == ParamRole::Epoch && EW.Value->mentions("param:" + P.Name))
          Ep = &P;
      if (!Alone || !Ep || !affineIn(EW.Value, "param:" + Ep->Name) ||
          !slotPrivate(A, Wt))
        continue;
      std::vector<size_t> Sigs;
      bool AllCounters = true;
      for (size_t S : A.Signals) {
        const Event &E = A.ev(S);
        if (E.Addr.Base != EW.Addr.Base)
          continue;
        AllCounters = AllCounters && isRmwEvent(E) && E.Rmw == RmwOp::Add &&
                      E.Loops.empty();
        Sigs.push_back(S);
      }
      if (!AllCounters || Sigs.empty())
        continue;
      std::string EpVar = "param:" + Ep->Name;
      Outcome R;
      Excess X = growthExceeds(
          A, Rc, Wt, Sigs, [&]() -> Encoded { return A.exec(Wt, 1); },
          [&]() -> Encoded {
            Encoded V = A.toInt(EW.Value, 1);
            z3::expr_vector From(A.Z), To(A.Z);
            From.push_back(A.var(EpVar, 0));
            To.push_back(A.var(EpVar, 0) + 1);
            return V.substitute(From, To) - V;
          },
          // A launch that binds the epoch to a constant: SIG-002's case.
          [&](const LaunchDims &L) { return L.Bind.count(EpVar) != 0; }, R,
          /*Exact=*/true);
      if (X == Excess::Uncountable)
        return;
      if (X != Excess::Found)
        continue;
      Finding F = makeFinding(
          info().Id, A.K, EW.Loc,
          "for W = " + R.Witness["W"] + ", rank " + R.Witness["r1"] +
              " (block " + R.Witness["b1"] + ") waits until the counter " +
              "reaches " + EW.Value->str() + ", a target that grows by " +
              R.Witness["growth"] + " per call (" + EpVar +
              " one larger), but only " + R.Witness["arrivals"] +
              " arrivals reach the counter per call: it falls behind and "
              "the wait never completes (deadlock)",
          "make the target grow by exactly the arrivals of one call (count "
          "the ranks that really add, e.g. (W - 1) * epoch when the waiter "
          "does not arrive)");
      relate(F, "wait", EW);
      for (size_t S : Sigs)
        relate(F, "signal", A.ev(S));
      applyOutcome(F, R);
      emit(Out, std::move(F));
    }
  }

  /// The loops enclosing event \p Outer also enclose event \p Inner, as
  /// its outermost loops: an instance of Inner and the instance of Outer in
  /// the same iterations of those loops share the loop variables
  /// ("loop:N" of one agent) in the encoding.
  static bool loopsEnclose(const Analysis &A, size_t Outer, size_t Inner) {
    const std::vector<unsigned> &O = A.ev(Outer).Loops;
    const std::vector<unsigned> &I = A.ev(Inner).Loops;
    return O.size() <= I.size() && std::equal(O.begin(), O.end(), I.begin());
  }

  /// How an instance of signal \p S is kept behind wait \p Wq on the
  /// sender's side: the same thread runs Wq first, or an unconditional block
  /// barrier lies between them, so that every thread of the block passes it
  /// only after every waiting thread of the block has left Wq. Barrier is
  /// the barrier's event index. Wq, and the barrier, must lie in loops that
  /// also enclose S (none, or the same iteration of a loop around both): the
  /// instance of Wq in S's iteration then precedes that instance of S (the
  /// ring's `for (s) { wait(s); ...; post(s); }`), and the encodings of the
  /// two share their loop variables. A Wq in a loop that S lies after (or in
  /// a loop S is not in) is not used: the instance that precedes S would be
  /// an existential over the loop variables, which the negation in
  /// checkCycles() cannot express.
  struct Behind {
    bool SameThread = false;
    std::optional<size_t> Barrier;
  };
  static Behind behind(const Analysis &A, size_t Wq, size_t S) {
    Behind B;
    if (Wq >= S || !loopsEnclose(A, Wq, S))
      return B;
    B.SameThread = true;
    for (size_t I = Wq + 1; I < S && !B.Barrier; ++I)
      if (A.isBlockBarrier(I) && A.ev(I).Guard.empty() && loopsEnclose(A, I, S))
        B.Barrier = I;
    return B;
  }

  /// Some thread of agent \p Ag's block executes wait \p Wq: the agent's
  /// own thread, or one of threads 0..7 of the block (x dimension). An
  /// under-approximation of "some thread of the block waits", kept
  /// quantifier-free and cheap: the waiting threads of a cross-rank barrier
  /// are the first W <= 8 threads.
  static Encoded someThreadWaits(Analysis &A, size_t Wq, int Ag) {
    Encoded Own = A.exec(Wq, Ag);
    Encoded Any = Own;
    for (int C = 0; C < 8; ++C) {
      z3::expr_vector From(A.Z), To(A.Z);
      From.push_back(A.var("tid.x", Ag));
      To.push_back(A.Z.int_val(C));
      From.push_back(A.var("tid.y", Ag));
      To.push_back(A.Z.int_val(0));
      From.push_back(A.var("tid.z", Ag));
      To.push_back(A.Z.int_val(0));
      Any = Any || Own.substitute(From, To);
    }
    return Any;
  }

  /// The call that checkCycles() proves a deadlock for: the first
  /// (host:call_index = 0, every signal pad still zero) when launch \p L
  /// binds parameters to the call counter (LaunchDims::HostBind), else any.
  static z3::expr firstCall(Analysis &A, const LaunchDims &L) {
    return L.HostBind.empty() ? A.Z.bool_val(true)
                              : A.var("host:call_index", 0) == 0;
  }

  /// Wait \p Wt may end on the value a zeroed flag holds before any
  /// signal (a compare-and-swap lock `polled == 0`, a reset wait), for
  /// world size \p Wn and launch \p L. A wait whose exit condition
  /// involves a parameter that L binds to the call counter is evaluated in
  /// the first call (firstCall(): `polled >= base + s` with base =
  /// call_index * (W - 1) opens at s = 0). A wait whose exit condition
  /// involves any other parameter (an epoch) is assumed to wait on the
  /// value the flag holds when the kernel starts: a flag that already
  /// satisfies it is a stale flag (SIG-002), not a deadlock. Unknown counts
  /// as "may".
  static bool opensOnZero(Analysis &A, size_t Wt, unsigned Wn,
                          const LaunchDims &L) {
    const Event &W = A.ev(Wt);
    if (!W.ExitCond)
      return true;
    if (anyVar(W.ExitCond, [&](const std::string &N) {
          return startsWith(N, "param:") && !L.HostBind.count(N);
        }))
      return false;
    z3::expr_vector From(A.Z), To(A.Z);
    From.push_back(A.var("polled", 1));
    To.push_back(A.Z.int_val(0));
    Encoded Q = A.exec(Wt, 1) && A.toBool(W.ExitCond, 1).substitute(From, To) &&
                Encoded(firstCall(A, L));
    Outcome R = A.solve(Q, {}, {Wn}, &L);
    return R.sat() || R.unknown() || R.Approx;
  }

  /// Wait-for cycles across ranks. For world size W and launch L, the
  /// greatest set E of cross-rank waits such that every signal instance
  /// that may end an instance of a wait in E (matches()) is kept behind an
  /// executed instance of a wait in E on its sender (behind()). No wait of
  /// E ever completes: the first to complete would need a signal sent
  /// after an earlier completion of a wait of E. So a reachable wait of E
  /// is a proven deadlock for this W (the wait-before-signal cycle, e.g.
  /// every rank waits for its peers' flags before publishing its own).
  /// Waits already reported as unmatched (\p Reported) are not repeated.
  void checkCycles(Analysis &A, const std::set<size_t> &Reported,
                   std::vector<Finding> &Out) const {
    std::map<size_t, std::vector<size_t>> SigsOf;
    for (size_t Wt : A.Waits) {
      std::vector<size_t> Sigs;
      if (A.isCrossRankFlag(A.ev(Wt).Addr.Base) && signalsOf(A, Wt, Sigs))
        SigsOf[Wt] = Sigs;
    }
    if (SigsOf.empty())
      return;
    std::vector<unsigned> Ws = A.O.WorldSizes;
    std::sort(Ws.begin(), Ws.end());
    for (unsigned Wn : Ws)
      for (const LaunchDims &L : A.launches()) {
        z3::expr First = firstCall(A, L);
        std::set<size_t> E;
        for (const auto &[Wt, Sigs] : SigsOf)
          if (!opensOnZero(A, Wt, Wn, L))
            E.insert(Wt);
        auto blocked = [&](size_t S) {
          Encoded B = A.Z.bool_val(false);
          for (size_t Wq : E) {
            Behind H = behind(A, Wq, S);
            if (H.Barrier)
              B = B || someThreadWaits(A, Wq, 2);
            else if (H.SameThread)
              B = B || A.exec(Wq, 2);
          }
          return B;
        };
        for (bool Changed = true; Changed && !E.empty();) {
          Changed = false;
          for (size_t Wt : std::set<size_t>(E)) {
            const Event &W = A.ev(Wt);
            Encoded Exit =
                W.ExitCond ? A.toBool(W.ExitCond, 1) : A.Z.bool_val(true);
            for (size_t S : SigsOf.at(Wt)) {
              Encoded Q = A.exec(Wt, 1) && matches(A, S, 2, Wt, Exit) &&
                          !blocked(S) && Encoded(First);
              Outcome R = A.solve(Q, {}, {Wn}, &L);
              if (R.sat() || R.unknown() || R.Approx) {
                E.erase(Wt);
                Changed = true;
                break;
              }
            }
          }
        }
        bool Any = false;
        for (size_t Wt : E) {
          if (Reported.count(Wt))
            continue;
          // A wait that itself sits behind a wait of E is never reached:
          // a consequence of the cycle, not its own finding.
          bool Downstream = false;
          for (size_t Wq : E) {
            Behind H = behind(A, Wq, Wt);
            Downstream = Downstream || H.SameThread || H.Barrier;
          }
          if (Downstream)
            continue;
          // The witness: an executed instance of the wait, a signal that
          // would end it, and the wait that keeps that signal back.
          const Event &W = A.ev(Wt);
          Encoded Exit =
              W.ExitCond ? A.toBool(W.ExitCond, 1) : A.Z.bool_val(true);
          for (size_t S : SigsOf.at(Wt)) {
            std::optional<size_t> By;
            Behind H;
            for (size_t Wq : E) {
              H = behind(A, Wq, S);
              if (H.SameThread || H.Barrier) {
                By = Wq;
                break;
              }
            }
            if (!By)
              continue;
            Encoded Q =
                A.exec(Wt, 1) && matches(A, S, 2, Wt, Exit) && Encoded(First);
            Outcome R = A.solve(Q, A.agentWitness({1, 2}), {Wn}, &L);
            if (!R.sat() || R.Approx)
              continue;
            const Event &Sig = A.ev(S);
            const Event &Q2 = A.ev(*By);
            std::string Barrier =
                H.Barrier ? "the block barrier at line " +
                                std::to_string(A.ev(*H.Barrier).Loc.Line) +
                                " lies between that wait and the signal"
                          : "";
            std::string Why =
                H.SameThread ? " (the sending thread runs that wait first" +
                                   (Barrier.empty() ? "" : "; " + Barrier) + ")"
                             : " (" + Barrier + ")";
            Finding F = makeFinding(
                info().Id, A.K, W.Loc,
                "for W = " + R.Witness["W"] + ", rank " + R.Witness["r1"] +
                    " (block " + R.Witness["b1"] + ", thread " +
                    R.Witness["t1"] + ") waits on " + W.Addr.Base +
                    " for the signal that rank " + R.Witness["r2"] +
                    " sends at line " + std::to_string(Sig.Loc.Line) +
                    ", but every rank sends that signal only after its own "
                    "wait at line " +
                    std::to_string(Q2.Loc.Line) + " has ended" + Why +
                    ": the ranks wait for each other in a cycle and none "
                    "proceeds (deadlock)",
                "publish the flag before waiting for the peers' flags "
                "(signal, then wait), so that no rank's signal depends on "
                "its own wait");
            relate(F, "wait", W);
            relate(F, "signal", Sig);
            if (*By != Wt)
              relate(F, "wait", Q2);
            if (H.Barrier)
              relate(F, "barrier", A.ev(*H.Barrier));
            applyOutcome(F, R);
            emit(Out, std::move(F));
            Any = true;
            break;
          }
        }
        if (Any)
          return;
      }
  }

  void checkKernel(Analysis &A, std::vector<Finding> &Out,
                   std::vector<Diagnostic> &Diags) const override {
    RowCache Rc;
    checkCounters(A, Rc, Out);
    checkCallCounters(A, Rc, Out);
    std::set<size_t> Reported;
    for (size_t Wt : A.Waits) {
      const Event &W = A.ev(Wt);
      if (!A.isCrossRankFlag(W.Addr.Base))
        continue;
      std::vector<size_t> Sigs;
      if (!signalsOf(A, Wt, Sigs))
        continue;
      bool PerBlock = A.perBlockSync();
      Outcome R;
      std::vector<unsigned> Ws = A.O.WorldSizes;
      std::sort(Ws.begin(), Ws.end());
      bool Found = false, Unknown = false;
      for (unsigned Wn : Ws) {
        for (const LaunchDims &L : A.launches()) {
          Encoded Q = A.exec(Wt, 1);
          Encoded Exit =
              W.ExitCond ? A.toBool(W.ExitCond, 1) : A.Z.bool_val(true);
          int Agent = 10;
          for (size_t S : Sigs)
            Q = Q && noMatch(A, Rc, S, Agent++, Wt, Exit, PerBlock, Wn, L);
          // The claim rests on the exit condition also where no signal
          // value is compared with it.
          Q = Q.orApprox(Exit.Approx);
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
      Reported.insert(Wt);
    }
    checkCycles(A, Reported, Out);
  }
};

} // namespace

std::unique_ptr<Checker> makeBar002() { return std::make_unique<Bar002>(); }

} // namespace pkb::chk
