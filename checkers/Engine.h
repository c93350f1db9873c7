//===- Engine.h - Shared analysis engine of the checkers --------*- C++ -*-===//
//
// Internal to pkb_checkers. The engine turns one KernelModel into Z3
// formulas over two (or more) symbolic agents (rank, block, thread), the
// two-agent reduction of GPUVerify extended with ranks (docs/checkers.md,
// "Method"):
//   * Expr -> z3::expr translation per agent ("tid.x#1", "rank#2", ...);
//   * execution conditions (guards, loop ranges, launch ranges);
//   * byte ranges of memory accesses and address conflicts;
//   * phases: barrier intervals for block / grid barriers and for cross-rank
//     signal/wait synchronization, with loop iterations;
//   * a query runner that tries every world size in ascending order and
//     every launch configuration, under a resource limit.
//
//===----------------------------------------------------------------------===//
#ifndef PKB_CHECKERS_ENGINE_H
#define PKB_CHECKERS_ENGINE_H

#include "pkb/Checker.h"

#include <z3++.h>

#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <tuple>
#include <type_traits>
#include <vector>

namespace pkb::chk {

//===----------------------------------------------------------------------===//
// Event and expression classification helpers.
//===----------------------------------------------------------------------===//

/// True for events that access memory (including the polled load of a
/// SpinWait).
bool isMemEvent(const Event &E);
/// True if the event may write memory (Store, Atomic, Reduction, BulkCopy).
bool isWriteEvent(const Event &E);
/// True if the event reads memory (Load, Atomic, SpinWait, BulkCopy).
bool isReadEvent(const Event &E);
/// True for read-modify-write events (Atomic, Reduction).
bool isRmwEvent(const Event &E);
/// True when the bytes \p E accesses start at a multiple of its width w by
/// construction: an element index (Analysis::range() scales it by w, the
/// access unit of an event with a width) and no byte offset other than a
/// constant multiple of w. Two such accesses of one width overlap
/// completely or not at all.
bool alignedToWidth(const Event &E);
/// True if \p O has release semantics (Release, AcqRel, SeqCst).
bool isReleaseOrder(MemOrder O);
/// True if \p O has acquire semantics (Acquire, AcqRel, SeqCst).
bool isAcquireOrder(MemOrder O);
/// True if an access with this order is "strong" in the PTX sense
/// (volatile, relaxed, acquire, release...; not plain/weak).
bool isStrongOrder(MemOrder O);
/// The effective scope of an access: volatile ld/st act at system scope
/// (PTX ISA, "Volatile Operations"); an explicit scope wins.
Scope effectiveScope(const Event &E);
/// CTA, cluster or GPU scope: narrower than another GPU (PTX ISA, "Scope").
bool isNarrowScope(Scope S);

/// True if the host expression \p E (LaunchSite::Arg::Host, HostCond,
/// HostOp::Bytes) names nothing but what Analysis::hostTerm() replaces:
/// rank, world size and the extents and element counts of In[0] and Out[0]
/// (constants aside; no opaque part). Null is true.
bool onlyHostNames(const ExprRef &E);

/// True if any Var of \p E satisfies \p Pred (Opaque nodes count when
/// \p OpaqueCounts).
bool anyVar(const ExprRef &E,
            const std::function<bool(const std::string &)> &Pred,
            bool OpaqueCounts = false);
/// True if \p E depends on values that differ between threads of one block:
/// tid.*, lane, loop variables, locals, polled values or opaque text.
bool isThreadVarying(const ExprRef &E);
/// Splits a guard conjunction (LAnd nodes) into conjuncts.
void splitConj(const ExprRef &E, std::vector<ExprRef> &Out);
/// The value of a constant expression, if \p E is one.
std::optional<int64_t> constOf(const ExprRef &E);
/// True if \p S begins with \p P.
bool startsWith(const std::string &S, const char *P);
/// True for the host names of call-counter bindings (LaunchDims::HostBind):
/// the counter "host:call_index" and the globals that only setup writes,
/// "host:fixed:*". (Not the tensor extents: PART-003 and PART-004 relate
/// those to the problem size in their own terms, Analysis::hostTerm().)
bool isCallName(const std::string &N);

//===----------------------------------------------------------------------===//
// Query outcomes.
//===----------------------------------------------------------------------===//

/// The result of one (family of) solver queries.
struct Outcome {
  enum Kind { Unsat, Sat, Unknown } K = Unsat;
  unsigned W = 0;             ///< World size of the satisfying assignment.
  bool Approx = false;        ///< Opaque/unknown values were involved.
  bool AssumedLaunch = false; ///< Launch dims came from the representative set.
  std::map<std::string, std::string> Witness;
  std::string Reason; ///< Solver's reason for unknown.
  /// The launch site whose binding the satisfying assignment used (null
  /// for the representative launches of a kernel without visible launch).
  const LaunchSite *Site = nullptr;
  /// Non-empty when the assignment needs values of parameters that no
  /// visible launch binds and the query is unsatisfiable with them all in
  /// [0, W):
  /// "param:Slot = 65528" (docs/checkers.md, "Unbound parameters").
  std::string Unbound;

  bool sat() const { return K == Sat; }
  bool unknown() const { return K == Unknown; }
};

/// A concrete launch configuration.
struct LaunchDims {
  int64_t B[3] = {256, 1, 1};
  int64_t G[3] = {4, 1, 1};
  bool FromSite = false;
  /// Parameter values this launch binds: "param:Name" -> the constant
  /// argument of the launch (docs/checkers.md, "Launch-site
  /// specialization"). Unbound parameters stay symbolic.
  std::map<std::string, int64_t> Bind;
  /// Parameters that the launch sets from the host's call counter or from
  /// globals that only setup writes: "param:Name" -> an expression over
  /// "host:call_index", "host:fixed:NAME" and constants (`C.slot =
  /// ctx->call_index & 1`; LaunchSite::Arg::Host), substituted with the
  /// counter a variable in [0, MaxCallIndex] and each fixed global one
  /// variable for every call (docs/checkers.md, "Launch-site
  /// specialization").
  std::map<std::string, ExprRef> HostBind;
  /// What the launching function guarantees about the launch's arguments
  /// (LaunchSite::ParamCond), conjoined with every query of this launch.
  ExprRef ParamCond;
  /// The first launch site with these dimensions and bindings (null for
  /// the representative set).
  const LaunchSite *Site = nullptr;
  /// The host condition of the launch over rank and world size
  /// (LaunchSite::Guard); every agent's rank satisfies it. Null: none.
  ExprRef Guard;
};

//===----------------------------------------------------------------------===//
// Encoded terms.
//===----------------------------------------------------------------------===//

/// A Z3 term translated from the kernel model, with its approximation flag:
/// Approx is set when the translation involved opaque or unknown values
/// (opaque expressions, locals the front end could not express, missing
/// indices or loops; docs/checkers.md, "Unknown values"). The flag travels
/// with the term: every operator below combines the flags of its operands,
/// and Analysis::solve() folds the flag of its formula and witness terms
/// into Outcome::Approx. A plain z3::expr converts implicitly into an exact
/// Encoded; the other way is only explicit (.Term), so a flag is never lost
/// without it showing in the code.
struct Encoded {
  /// An exact term (a coordinate, a constant, a formula without model
  /// expressions) or a term with the given flag.
  Encoded(z3::expr T, bool Approx = false) // NOLINT: implicit on purpose
      : Term(std::move(T)), Approx(Approx) {}
  z3::expr Term;
  bool Approx = false;

  /// The term with \p From replaced by \p To, keeping this flag; a caller
  /// whose replacements are themselves approximate adds their flags with
  /// orApprox().
  Encoded substitute(const z3::expr_vector &From,
                     const z3::expr_vector &To) const {
    return {z3::expr(Term).substitute(From, To), Approx};
  }
  /// The simplified term, same flag.
  Encoded simplify() const { return {Term.simplify(), Approx}; }
  /// The same term, approximate also when \p B: for a term built from
  /// values (enumerated rows, expanded loop bounds) whose translation was
  /// approximate although the value terms themselves are not in it.
  Encoded orApprox(bool B) const { return {Term, Approx || B}; }
};

// Operators over encoded terms: the result is approximate when an operand
// is. Mixed with z3::expr (exact) through the implicit conversion, and with
// int constants.
#define PKB_ENCODED_BINOP(OP)                                                  \
  inline Encoded operator OP(const Encoded &X, const Encoded &Y) {             \
    return {X.Term OP Y.Term, X.Approx || Y.Approx};                           \
  }                                                                            \
  template <class T, std::enable_if_t<std::is_integral_v<T>, int> = 0>         \
  Encoded operator OP(const Encoded &X, T Y) {                                 \
    return {X.Term OP Y, X.Approx};                                            \
  }                                                                            \
  template <class T, std::enable_if_t<std::is_integral_v<T>, int> = 0>         \
  Encoded operator OP(T X, const Encoded &Y) {                                 \
    return {X OP Y.Term, Y.Approx};                                            \
  }
PKB_ENCODED_BINOP(&&)
PKB_ENCODED_BINOP(||)
PKB_ENCODED_BINOP(==)
PKB_ENCODED_BINOP(!=)
PKB_ENCODED_BINOP(<)
PKB_ENCODED_BINOP(<=)
PKB_ENCODED_BINOP(>)
PKB_ENCODED_BINOP(>=)
PKB_ENCODED_BINOP(+)
PKB_ENCODED_BINOP(-)
PKB_ENCODED_BINOP(*)
PKB_ENCODED_BINOP(/)
#undef PKB_ENCODED_BINOP
/// Negation of a formula.
inline Encoded operator!(const Encoded &X) { return {!X.Term, X.Approx}; }
/// Negation of an integer term.
inline Encoded operator-(const Encoded &X) { return {-X.Term, X.Approx}; }
/// Euclidean remainder (z3::mod).
inline Encoded mod(const Encoded &X, const Encoded &Y) {
  return {z3::mod(X.Term, Y.Term), X.Approx || Y.Approx};
}
/// If-then-else.
inline Encoded ite(const Encoded &C, const Encoded &T, const Encoded &E) {
  return {z3::ite(C.Term, T.Term, E.Term), C.Approx || T.Approx || E.Approx};
}
/// Universal quantification of \p Body over \p Vars.
inline Encoded forall(const z3::expr_vector &Vars, const Encoded &Body) {
  return {z3::forall(Vars, Body.Term), Body.Approx};
}

/// Witness entries to read back from a model: display name -> term. The
/// flags of the terms count like the formula's (Analysis::solve()).
using WitnessSpec = std::vector<std::pair<std::string, Encoded>>;

/// The values that product factors over split variables take (the leaves
/// of iteProducts()' if-then-else chains), memoized per z3::context: a ring
/// schedule's chunk index `(rank - s - 1 + 2 * W) % W` takes the same values
/// in every query of one world size, and computing them substitutes and
/// simplifies the factor once per combination of its variables' values.
struct FactorValueCache {
  struct Entry {
    z3::expr Factor; ///< Kept alive, so that its AST id stays its own.
    /// (AST id, Lo, Hi) of each split variable of the factor, in order.
    std::vector<std::tuple<unsigned, int64_t, int64_t>> Vars;
    /// nullopt: some combination does not simplify to a numeral.
    std::optional<std::set<int64_t>> Values;
  };
  /// Entries by the factor's AST id.
  std::map<unsigned, std::vector<Entry>> ByFactor;
};

//===----------------------------------------------------------------------===//
// The per-kernel analysis.
//===----------------------------------------------------------------------===//

/// Everything a checker needs about one kernel. Constructing it classifies
/// events (cheap); solver work happens on demand.
class ExactValues;

class Analysis {
  friend class ExactValues;
  /// A copy of the kernel, enriched, when the caller passed a kernel that
  /// enrich() has not seen (declared first: K may refer to it).
  std::unique_ptr<KernelModel> OwnK;

public:
  /// Classifies \p K from its enrichment facts (pkb/Enrich.h); a kernel
  /// without them is enriched on a private copy first.
  Analysis(const ModuleModel &M, const KernelModel &K, const CheckOptions &O);

  const ModuleModel &M;
  const KernelModel &K;
  const CheckOptions &O;
  z3::context Z;

  const Event &ev(size_t I) const { return K.Events[I]; }
  size_t size() const { return K.Events.size(); }

  // --- classification (indices into K.Events), from K.Facts -------------
  /// Bases used as synchronization flags: polled by a SpinWait or carrying
  /// a SignalPad/SignalPadTable role.
  std::set<std::string> FlagBases;
  /// Bases of symmetric memory: accessed through a peer pointer anywhere, or
  /// carrying a PeerTable role.
  std::set<std::string> SymBases;
  std::vector<size_t> Signals; ///< Writes to flag bases (not shared memory).
  std::vector<size_t> Waits;   ///< SpinWait events.
  /// Flag bases that other ranks write or read.
  std::set<std::string> CrossRankFlags;
  /// Spin waits that are software grid barriers.
  std::set<size_t> SoftGridBarriers;
  /// Store index -> load index of each plain read-modify-write.
  std::map<size_t, size_t> RmwStores;

  bool isShared(size_t I) const;
  bool isFlagAccess(size_t I) const;
  bool isSignal(size_t I) const;
  bool isWait(size_t I) const { return ev(I).Kind == EventKind::SpinWait; }
  /// A memory event on a non-flag, non-local location.
  bool isData(size_t I) const;
  /// A data event on symmetric memory (peer pointer or symmetric base).
  bool isPeerVisible(size_t I) const;
  /// A flag base that other ranks write or read (peer pointers, pad roles).
  bool isCrossRankFlag(const std::string &Base) const;
  /// The parameter named \p Base, or the parameter it is a field of.
  const Param *paramOf(const std::string &Base) const;
  bool isBlockBarrier(size_t I) const;
  bool isGridBarrier(size_t I) const;
  /// A spin-wait on a flag of this GPU that other blocks signal: a software
  /// grid barrier (it orders the blocks' accesses like a grid sync).
  bool isSoftGridBarrier(size_t I) const;
  /// Store \p S is the write half of a plain read-modify-write (`a[i] +=
  /// v`), paired with an earlier load by the front end and enrich().
  bool isRmwStore(size_t S) const { return RmwStores.count(S) != 0; }
  /// Load \p L and store \p S are the two halves of one plain RMW.
  bool isRmwPair(size_t L, size_t S) const {
    auto It = RmwStores.find(S);
    return It != RmwStores.end() && It->second == L;
  }

  // --- encoding ----------------------------------------------------------
  /// Variable \p Name as seen by agent \p A (agent 0 = shared names only).
  z3::expr var(const std::string &Name, int A);
  /// Whether model variable \p Name is the coordinate \p Coord ("rank" or
  /// "world_size"), also through a parameter with that role.
  bool isCoordVar(const std::string &Name, const char *Coord) {
    return Name == Coord || var(Name, 0).to_string() == Coord;
  }
  /// The integer term of \p E for agent \p A, approximate when \p E
  /// involves opaque or unknown values.
  Encoded toInt(const ExprRef &E, int A);
  /// The formula of \p E (non-zero) for agent \p A, flagged like toInt().
  Encoded toBool(const ExprRef &E, int A);
  /// Ranges of agent \p A: tid < bdim, bid < gdim, 0 <= rank < W, lane.
  z3::expr agentRange(int A);
  /// The host expression \p E of a candidate's pkb_candidate_run
  /// (LaunchSite::Arg::Host, HostOp::Bytes) for problem \p PS at size \p
  /// Size (a term), on the rank \p Rank, at world size \p W: the tensor
  /// extents and element counts of `In[0]` and `Out[0]` become the
  /// problem's (1-D tensors: n or W * n elements). Exact unless \p E
  /// holds other names (they stay free and make it approximate).
  Encoded hostTerm(const ExprRef &E, const ProblemSizes &PS,
                   const z3::expr &Size, const z3::expr &Rank, unsigned W);
  /// The condition form of hostTerm() (LaunchSite::HostCond).
  Encoded hostCond(const ExprRef &E, const ProblemSizes &PS,
                   const z3::expr &Size, const z3::expr &Rank, unsigned W);
  /// \p Size is one of the problem's sizes \p PS.Sizes.
  z3::expr problemSize(const ProblemSizes &PS, const z3::expr &Size);
  z3::expr rank(int A) { return var("rank", A); }
  z3::expr sameRank(int A, int B) { return rank(A) == rank(B); }
  z3::expr sameBlock(int A, int B);
  z3::expr sameThread(int A, int B);
  /// Agent \p A executes event \p I: guard, enclosing loop ranges, ranges.
  Encoded exec(size_t I, int A);
  /// Only the guard conjuncts of \p I that do not vary between threads of
  /// one block (the block-level participation of a sync event).
  Encoded blockGuard(size_t I, int A);
  /// Constraints of loop \p Id for agent \p A (with iteration counter).
  Encoded loopCons(unsigned Id, int A);
  /// The defining part of loopCons: iteration counter >= 0 and the loop
  /// variable as Init + iter * Step (no bound).
  Encoded loopDef(unsigned Id, int A);
  /// The bound part of loopCons (loop variable below Bound).
  Encoded loopBound(unsigned Id, int A);
  /// The guard conjunction of event \p I alone (no ranges, no loops).
  Encoded guardOf(size_t I, int A);
  /// Iteration counter of loop \p Id for agent \p A.
  z3::expr iterVar(unsigned Id, int A) {
    return var("iter:" + std::to_string(Id), A);
  }

  /// Byte range of a memory event: owner rank, [Lo, Hi).
  struct Range {
    Encoded Owner, Lo, Hi;
  };
  Range range(size_t I, int A);
  /// The bytes [Lo, Hi) that event \p I may access over every agent of
  /// world size \p W and launch \p L: range()'s offsets (element index
  /// times unitOf(), plus the byte offset) as intervals (valueRange());
  /// nullopt where an offset has no known interval or no element index.
  std::optional<std::pair<int64_t, int64_t>> byteRange(size_t I, unsigned W,
                                                       const LaunchDims &L);
  /// Access unit of an event's Index (bytes per element).
  unsigned unitOf(size_t I) const;
  /// Both events touch overlapping bytes of the same object of the same
  /// owner (shared memory: same rank and block).
  Encoded conflict(size_t I, int A, size_t J, int B);

  // --- phases -------------------------------------------------------------
  /// Separation predicate for a set of events lying between an earlier and
  /// a later access: (events, earlier agent, later agent) -> "ordered".
  using SepFn = std::function<z3::expr(const std::vector<size_t> &, int, int)>;
  /// The two dynamic instances (I by agent A, J by agent B) lie in the same
  /// synchronization interval with respect to the events accepted by
  /// \p IsBoundary, using \p Sep to decide whether a set separates them.
  z3::expr interval(size_t I, int A, size_t J, int B,
                    const std::function<bool(size_t)> &IsBoundary,
                    const SepFn &Sep);
  /// Same phase for any two agents: same block -> block barriers; same rank
  /// -> grid barriers; different ranks -> cross-rank synchronization.
  z3::expr samePhase(size_t I, int A, size_t J, int B);
  /// Cross-rank phase only (agents on different ranks).
  z3::expr sameCrossPhase(size_t I, int A, size_t J, int B);
  /// Cross-rank separation by the sync events in \p Between.
  z3::expr crossSep(const std::vector<size_t> &Between, int Early, int Late);
  /// True if signal/wait matching only ever pairs equal blocks.
  bool perBlockSync();

  // --- solving -------------------------------------------------------------
  /// Launch configurations to try: from launch sites when constant,
  /// otherwise the documented representative set.
  const std::vector<LaunchDims> &launches();
  /// The range [Lo, Hi] of model expression \p E over every agent of
  /// world size \p W and launch \p L: thread and block indices within the
  /// launch, 0 <= rank < W, the lane, W, the launch dimensions and the
  /// parameters \p L binds, combined with +, -, * and `%` by a positive
  /// constant (interval arithmetic); nullopt for any other variable or
  /// operator and for values beyond 2^40. A superset of the values E takes.
  std::optional<std::pair<int64_t, int64_t>>
  valueRange(const ExprRef &E, unsigned W, const LaunchDims &L);
  /// \p E for the next call of the kernel: each parameter that some launch
  /// binds to the call counter (LaunchDims::HostBind) becomes its value in
  /// call k+1 (the variable "param:Name@next", which concretize() replaces
  /// by the binding with the counter plus one, or by the parameter itself
  /// for a launch without that binding), and each other call-counter
  /// parameter (role Epoch) is one larger.
  Encoded nextCall(const Encoded &E);
  /// True if launch \p L sets parameter variable \p Var ("param:Name")
  /// from the call counter in a way the model does not express
  /// (LaunchSite::Arg::CallDependent): nextCall()'s "@next" variable of it
  /// stays free, and a finding that needs a value of it is a Warning
  /// (unboundCondition()).
  static bool callDependent(const LaunchDims &L, const std::string &Var);
  /// True if the kernel has launch sites and every configuration of
  /// launches() binds the parameter variable \p Var ("param:Epoch") to a
  /// constant or to a host value that does not involve the call counter (a
  /// global that only setup writes): its value is the same in every call.
  bool boundInEveryLaunch(const std::string &Var);
  /// Solves \p F for each world size (ascending) and launch configuration;
  /// returns the first satisfying assignment. Outcome::Approx is the flag
  /// of \p F and of the witness terms of \p Wit.
  Outcome solve(const Encoded &F, const WitnessSpec &Wit,
                const std::vector<unsigned> &OnlyW = {},
                const LaunchDims *OnlyLaunch = nullptr);
  /// An approximate satisfying outcome \p R of the query that \p Build
  /// encodes, confirmed where the model knows more: when the query reads
  /// locals with exact values (KernelModel::LocalDefs), \p Build runs again
  /// with those values in place of the locals' unknowns and the query is
  /// solved once more under 1/8 of a query's limit; an exact satisfying
  /// answer replaces \p R (the finding is then proven for its witness).
  /// Anything else returns \p R unchanged: refining never drops a finding
  /// and never decides one from an undecided query.
  Outcome refine(Outcome R, const std::function<Encoded()> &Build,
                 const WitnessSpec &Wit);
  /// The query that \p Build encodes, with locals translated by their
  /// exact values and under the case \p Case of a case split
  /// (unknownConditions(); \p Build may also open ExactValues scopes of its
  /// own, one per case), solved under 1/8 of a query's limit like
  /// refine(); the outcome when it is satisfiable exactly (no
  /// approximation, no unbound parameter), else nullopt. Also nullopt,
  /// unsolved, when the translation read no local with an exact value and
  /// decided no select by a case (nothing would change).
  std::optional<Outcome> solveExact(const std::function<Encoded()> &Build,
                                    const WitnessSpec &Wit,
                                    std::map<std::string, bool> Case = {});
  /// The expressions that decide whether and where event \p I runs: its
  /// guards, its address and its enclosing loops' start, bound and step.
  std::vector<ExprRef> eventExprs(size_t I) const;
  /// Agents \p A and \p B are one thread in one iteration of the loops
  /// around every event of \p Events (same rank, block and thread, equal
  /// iteration counters): a case split over a local without an exact value
  /// joins one agent per case this way, so the cases are that thread's.
  z3::expr oneThread(int A, int B, const std::vector<size_t> &Events);
  /// The distinct conditions of the selects in \p Es, and in the exact
  /// values of the locals they read (KernelModel::LocalDefs), that read a
  /// local without an exact value and no other variable that a query
  /// could fix (a pointer's alignment, `(Or & 15) ? 0 : n / 8`), at most
  /// \p Max; nullopt when there are more. A finding that holds exactly in
  /// every case of CaseSplit over them holds whatever the locals' values.
  std::optional<std::vector<std::string>>
  unknownConditions(const std::vector<ExprRef> &Es, size_t Max) const;
  /// Distinct assignments of \p Xs satisfying \p F for world size \p W
  /// and launch \p L, at most \p Cap; \p Complete is false if there were
  /// more (or the solver gave up). The rows do not carry \p F's flag: a
  /// caller that builds terms from them adds it (Encoded::orApprox()).
  std::vector<std::vector<int64_t>> enumerate(const Encoded &F,
                                              const std::vector<z3::expr> &Xs,
                                              unsigned W, const LaunchDims &L,
                                              size_t Cap, bool &Complete);
  /// \p F with W and the launch dimensions replaced by constants.
  z3::expr concretize(const z3::expr &F, unsigned W, const LaunchDims &L);
  /// \p F for launch \p L and any configured world size: the launch
  /// dimensions and bound parameters replaced by constants, W left a
  /// variable restricted to the configured sizes (false when none is
  /// configured). Not for launches with a host guard (concretize() adds the
  /// guard per W).
  z3::expr concretizeAcross(const z3::expr &F, const LaunchDims &L);
  /// Distinct assignments of \p Xs satisfying \p F for launch \p L and some
  /// configured world size (concretizeAcross()), at most \p Cap: their union
  /// over the world sizes, a superset of enumerate()'s rows for each W.
  /// \p Complete as for enumerate().
  std::vector<std::vector<int64_t>>
  enumerateAcross(const Encoded &F, const std::vector<z3::expr> &Xs,
                  const LaunchDims &L, size_t Cap, bool &Complete);
  /// The term \p F for world size \p W and launch \p L: W, the launch
  /// dimensions and bound parameters replaced by their values, simplified
  /// and pruned by its own bounds (pruneByBounds()); an equivalent term
  /// for that W and launch, usable under negation. Unlike concretize(), no
  /// equalities and no launch guard are added: for a part of a query that
  /// is substituted many times before the query is concretized.
  z3::expr specialize(const z3::expr &F, unsigned W, const LaunchDims &L);
  /// Standard witness entries for agents \p Agents.
  WitnessSpec agentWitness(std::initializer_list<int> Agents);

  /// Every variable created for agent \p A (suffix "#A"), for quantifiers.
  std::vector<z3::expr> agentVars(int A) const;

  /// Starts the work of a new checker on this (possibly shared) analysis:
  /// clears the statistics and the solver budget account, so each checker
  /// spends its own KernelBudget whatever ran before it. The query cache
  /// stays: it holds only answers decided under a full per-query limit.
  /// (The approximation flag needs no reset: it travels with each Encoded
  /// term.)
  void beginCheck();
  /// Solver calls made so far.
  unsigned Queries = 0;
  /// Queries answered from the cache.
  unsigned CacheHits = 0;
  /// solve() calls decided for every world size by one query at the
  /// largest (the query only weakens as W grows).
  unsigned MonotoneDecided = 0;
  /// Resource units (Z3 rlimit) spent on this kernel by this analysis.
  uint64_t Spent = 0;
  /// Total resource units this analysis may spend (docs/checkers.md,
  /// "Solver strategy and limits"); past it every query is unknown.
  uint64_t KernelBudget;
  /// Set once a query was cut short by KernelBudget.
  bool BudgetHit = false;
  /// A new instance of fullSolver()'s tactic for QF_LIA (\p Lia) or QF_NIA
  /// goals.
  z3::tactic buildFullTactic(bool Lia);

  /// A fresh general-purpose solver for the full-limit attempts on \p F
  /// (which the caller adds): for quantifier-free integer goals, Z3's
  /// QF_NIA strategy (qfnia_tactic.cpp: preamble, then bit-blasting,
  /// SMT core, nlsat, SMT core) with its two wall-clock cut-offs
  /// (`try_for` 2 s and 3 s) replaced by conflict limits, so that an answer
  /// depends on the formula and the resource limit only, never on the
  /// machine's load. Linear goals (QF_LIA) take the preamble of Z3's
  /// QF_LIA strategy and the SMT core, leaving out its model finders,
  /// which all run under try_for(). Other goals (quantifiers,
  /// uninterpreted functions) get Z3's default solver.
  z3::solver fullSolver(const z3::expr &F);
  /// Resource units of one query: --solver-timeout times 2500 per ms, or
  /// 1/DegradeFactor of that once DegradeAfter queries of the file ended
  /// unknown within their own limits (*LimitHits; docs/checkers.md,
  /// "Budget per file").
  uint64_t queryLimit() const;
  /// Queries of the file that decide() left unknown within their own
  /// limits (not cut by a kernel budget): the counter of the file's
  /// CheckContexts, or OwnLimitHits for an analysis made without them.
  unsigned *LimitHits = &OwnLimitHits;
  unsigned OwnLimitHits = 0;
  /// After this many such unknowns in one file, every later query of the
  /// file gets 1/DegradeFactor of the limit: a file whose formulas are
  /// beyond the solver then ends "not fully checked" in bounded time
  /// instead of spending the full limit on each of its hard queries.
  static constexpr unsigned DegradeAfter = 1;
  static constexpr uint64_t DegradeFactor = 16;
  /// KernelBudget in units of queryLimit(): one checker may spend at most
  /// this many full query limits on one kernel.
  static constexpr uint64_t KernelBudgetQueries = 40;

  /// A variable to split a query on: its term and its range [Lo, Hi).
  struct SplitVar {
    z3::expr V;
    int64_t Lo, Hi;
  };

  /// The value of \p E for world size \p W when it is built from constants
  /// and the world size only (`W - 1`, `2 * W`); nullopt otherwise.
  std::optional<int64_t> valueAtW(const ExprRef &E, unsigned W);
  /// The range [Lo, Hi) of the variable named \p N ("rank#1", "loop:3#2")
  /// for world size \p W: ranks, and loop variables with a constant start,
  /// step 1 and a bound of W or a constant (with \p AnyBound, any bound
  /// that valueAtW() fixes, such as W - 1), at most 16 values; nullopt for
  /// other variables.
  std::optional<std::pair<int64_t, int64_t>>
  smallRange(const std::string &N, unsigned W, bool AnyBound);
  /// The variables of the concretized query \p FC (world size \p W) that
  /// occur inside a non-numeral factor of a non-linear product and have a
  /// small range (smallRange() with AnyBound; with \p Bounded also any
  /// variable that the top-level conjuncts of \p FC bound to at most 16
  /// values, topLevelBounds()): the variables of the if-then-else chains
  /// of iteProducts(), without a limit on their number.
  std::vector<SplitVar> chainVars(const z3::expr &FC, unsigned W,
                                  bool Bounded = false);

private:
  /// The variables that concretize() and specialize() replace for world
  /// size \p W and launch \p L, and their values, appended to \p From and
  /// \p To.
  void concreteValues(std::optional<unsigned> W, const LaunchDims &L,
                      z3::expr_vector &From, z3::expr_vector &To);
  /// The largest call counter (host:call_index) that the launches' call
  /// counter bindings are solved for: calls 0..7.
  static constexpr int MaxCallIndex = 7;
  /// \p F with the facts of launch \p L that every query of it includes:
  /// LaunchDims::ParamCond, and, when \p F mentions a parameter that the
  /// launch binds to the call counter (or a "@next" variable of
  /// nextCall()), those parameters replaced by their host values with the
  /// counter in [0, MaxCallIndex].
  z3::expr withLaunchFacts(const z3::expr &F, const LaunchDims &L);
  /// enumerate() of the concretized formula \p FC.
  std::vector<std::vector<int64_t>>
  enumerateConcrete(const z3::expr &FC, const std::vector<z3::expr> &Xs,
                    size_t Cap, bool &Complete);
  /// The variables of the concretized query \p FC (world size \p W) that
  /// occur as factors of non-linear products and have a small known range
  /// (ranks, variables of short constant loops), at most 256 cases in all.
  std::vector<SplitVar> splitVars(const z3::expr &FC, unsigned W);
  /// Decides the concretized formula \p FC (world size \p W) with the
  /// cache, a cheap first attempt, case splits on small-domain product
  /// factors and a full-limit attempt; fills \p Model when sat.
  z3::check_result decide(const z3::expr &FC, unsigned W,
                          std::optional<z3::model> &Model, std::string &Reason);
  /// A witness search for a non-linear query \p FC, run before the other
  /// attempts: the `param:` constants that occur in a product of two
  /// parameter terms (sizes that no launch binds) are set
  /// to 1, then 2, then 3, all alike, which leaves a linear query, each
  /// given to Z3's SMT core with \p Limit units. Returns sat (and fills
  /// \p Model, which includes those values) when one of them is
  /// satisfiable, unknown otherwise (also when no such constant occurs):
  /// an unsatisfiable probe proves nothing about other values.
  z3::check_result smallParamProbe(const z3::expr &FC, uint64_t Limit,
                                   std::optional<z3::model> &Model);
  /// Decides \p F with \p Limit units: Z3's SMT core first (cheap to
  /// start), the default solver only where the core leaves it undecided.
  /// Sets \p Model (unless null: building a model creates terms, which
  /// shifts later queries) on sat and \p Reason (the default solver's) on
  /// unknown.
  z3::check_result cheapCheck(const z3::expr &F, uint64_t Limit,
                              std::optional<z3::model> *Model,
                              std::string &Reason);
  /// Runs \p S under \p Limit resource units, capped by what is left of
  /// KernelBudget, and charges the units used.
  z3::check_result runLimited(z3::solver &S, uint64_t Limit,
                              std::string &Reason);
  /// The values of the unbound scalar parameters that the satisfying
  /// assignment \p Mo of \p FC (\p F concretized for world size \p W and
  /// launch \p L) needs, and "gridDim.x = G" when \p L is a representative
  /// launch and one block does not show the finding; as
  /// "param:Slot = 65528"; empty when \p FC also holds with every unbound
  /// parameter in [0, W), or when none occurs (docs/checkers.md, "Unbound
  /// parameters"). The next call's value of a callDependent() parameter
  /// that \p Core (FC without the parameters' sign constraints) mentions is
  /// always listed ("... = 0 in the next call").
  std::string unboundCondition(const z3::expr &F, const z3::expr &FC,
                               const z3::expr &Core, const LaunchDims &L,
                               unsigned W, const z3::model &Mo);
  struct CacheEntry {
    z3::expr F;
    z3::check_result C;
    std::optional<z3::model> Model;
    std::string Reason;
  };
  std::map<unsigned, std::vector<CacheEntry>> Cache;
  /// Factor values of iteProducts(), for every query of this kernel.
  FactorValueCache FactorValues;

  /// The translation of \p E for agent \p A; sets \p Approx when it
  /// involves opaque or unknown values (never clears it).
  z3::expr tr(const ExprRef &E, int A, bool &Approx);
  /// The formula of \p E, like tr().
  z3::expr trBool(const ExprRef &E, int A, bool &Approx);
  /// tr() translates a local with an exact value (KernelModel::LocalDefs)
  /// by that value instead of the agent's unknown (refine()).
  bool ExactLocals = false;
  /// A case of a case split over the conditions of unknownConditions():
  /// tr() translates a select whose condition is spelled like a key
  /// (Expr::str()) as its then (true) or else (false) operand.
  std::map<std::string, bool> CaseSplit;
  /// Addends of the events' byte offsets (Expr::str()) that range() leaves
  /// out: an offset common to every access of a buffer (PART-004).
  std::set<std::string> DroppedAddends;
  /// refine() solves under queryLimit() >> LimitShift.
  unsigned LimitShift = 0;
  /// True if a translation since the last reset decided a select by
  /// CaseSplit.
  bool SplitUsed = false;
  /// True if a translation since the last reset read a local with an exact
  /// value (refine() skips queries without one).
  bool ReadDefinedLocal = false;
  std::map<std::string, z3::expr> Vars;
  std::set<std::string> ParamVars;
  /// The parameters that nextCall() replaced by their "@next" variable.
  std::set<std::string> NextParams;
  std::vector<LaunchDims> Launches;
  bool LaunchesDone = false;
  std::optional<bool> PerBlock;
  std::map<unsigned, size_t> LoopFirst, LoopLast; // event index span
};

/// While alive, \p A translates locals by their exact values
/// (Analysis::ExactLocals) under the case \p Case of a case split
/// (Analysis::CaseSplit), and its ranges leave out the byte-offset addends
/// \p Dropped (Analysis::DroppedAddends); restores the previous state on
/// destruction (scopes nest: one query may join several cases).
class ExactValues {
  Analysis &A;
  bool OldExact;
  std::map<std::string, bool> OldCase;
  std::set<std::string> OldDropped;

public:
  explicit ExactValues(Analysis &A, std::map<std::string, bool> Case = {},
                       std::set<std::string> Dropped = {})
      : A(A), OldExact(A.ExactLocals), OldCase(std::move(A.CaseSplit)),
        OldDropped(std::move(A.DroppedAddends)) {
    A.ExactLocals = true;
    A.CaseSplit = std::move(Case);
    A.DroppedAddends = std::move(Dropped);
  }
  ~ExactValues() {
    A.ExactLocals = OldExact;
    A.CaseSplit = std::move(OldCase);
    A.DroppedAddends = std::move(OldDropped);
  }
  ExactValues(const ExactValues &) = delete;
  ExactValues &operator=(const ExactValues &) = delete;
};

/// The addends of \p E's top-level sum (`a + b + c`: a, b, c; \p E itself
/// when it is no sum), appended to \p Out.
void addends(const ExprRef &E, std::vector<ExprRef> &Out);

/// Every assignment of true and false to \p Conds (2^n cases; one empty
/// case for none).
std::vector<std::map<std::string, bool>>
caseSplit(const std::vector<std::string> &Conds);

/// \p E with every non-linear product `f * t` whose factor f is a split
/// variable of \p Split, or else a term over split variables only with at
/// most 256 combinations of their values (a chunk index `(rank - s - 1 +
/// 2 * W) % W`), replaced by the if-then-else chain over those values
/// (`ite(V == Lo, f(Lo) * t, ite(V == Lo + 1, ...))`, the last value as the
/// final else): the same value wherever every split variable lies in its
/// range, which the queries assert, and linear when t is. Quantifier
/// bodies are left as they are (docs/checkers.md, "Solver strategy and
/// limits").
/// With \p Values, the factors' values are looked up there first and
/// stored there (the result is the same AST either way).
z3::expr iteProducts(const z3::expr &E,
                     const std::vector<Analysis::SplitVar> &Split,
                     FactorValueCache *Values = nullptr);

/// \p F with every equality `x == k` of an integer variable x and a
/// constant k outside the bounds that the top-level conjuncts of \p F put
/// on x (`x >= 0`, `x < 8`, `not (x >= 8)`, `x == 3`) replaced by false,
/// then simplified: the same models, since every model of F keeps x in
/// those bounds. False when the bounds of some variable are empty; \p F
/// itself (the same AST) when nothing changed. It shortens the
/// if-then-else chains of variable shift amounts (`1 << rank` over 62
/// amounts, of which W are in range) that concretize() would otherwise
/// hand to the solver (docs/checkers.md, "Solver strategy and limits").
/// Integer subterms that go through bit-vectors (`rank ^ 1`) and have one
/// variable, bounded to at most 16 values, become the if-then-else chain of
/// their values over its range (the same values inside the bounds).
z3::expr pruneByBounds(const z3::expr &F);

/// pruneByBounds() that decides every comparison of a bounded variable
/// with a constant (`x >= 0` with x in [0, 8) is true), with bounds also
/// narrowed through top-level definitions `x == linear term` (a loop
/// variable `256 * bid.x + tid.x + 1024 * iter` is at least 0); the
/// comparisons that give the bounds stay. The same value on every
/// assignment (outside the bounds both are false). It removes the sign
/// cases of C division (`i / n` with i >= 0 and n >= 0). Used for the unsat
/// filter only: the default solver keeps its queries (and models).
z3::expr simplifyByBounds(const z3::expr &F);

/// simplifyByBounds() of \p F, then each quotient `div(x, y)` (and
/// remainder `mod(x, y)`) of a non-constant divisor replaced by a fresh
/// variable q (`x - q * y`) where the top-level conjuncts of \p F bound x to
/// [0, c * y) for a constant c of at most 16 (`i < 8 * n` for a loop over W
/// chunks of n): q is then x's quotient, bounded to [0, c), with `q * y <= x <
/// q * y + y` and `y >= 1` added (implied: x >= 0 and x < c * y need y > 0).
/// Satisfiable exactly when \p F is. Each q with its range [0, c) is appended
/// to \p Quotients. With the chains of iteProducts() over q, the products `q *
/// y` are linear.
z3::expr boundQuotients(const z3::expr &F,
                        std::vector<Analysis::SplitVar> &Quotients);

/// \p F with each top-level comparison `x < T` (`<=`, `>`, `>=`, read
/// through a negation) weakened where T holds a minimum with exactly one
/// non-linear argument (a product of two non-constant terms, a division by
/// one): min(a, b) <= a, so that argument is left out (`j < min(C, n - c *
/// C)` becomes `j < C`); max, if-then-else and sums are bounded argument by
/// argument. Every model of \p F is one of the result, so an unsatisfiable
/// result proves \p F unsatisfiable, and nothing else follows from it: for
/// the unsat filter only (docs/checkers.md, step 2). \p F itself (the same
/// AST) when nothing is weakened.
z3::expr relaxMinBounds(const z3::expr &F);

/// The bounds [Lo, Hi] (inclusive; the int64 extremes where a side is
/// unbounded, Lo > Hi when empty) that the top-level conjuncts of \p F put
/// on its integer variables, keyed by the variable's AST id: the facts
/// pruneByBounds() uses.
std::map<unsigned, std::pair<int64_t, int64_t>>
topLevelBounds(const z3::expr &F);

//===----------------------------------------------------------------------===//
// Finding helpers.
//===----------------------------------------------------------------------===//

/// Builds a finding. Severity follows the outcome (Error unless approximate).
Finding makeFinding(const std::string &Id, const KernelModel &K,
                    const SourceLoc &Loc, const std::string &Msg,
                    const std::string &Fix);
/// Adds a related event.
void relate(Finding &F, const std::string &Role, const Event &E);
/// True when \p Out holds a finding of check \p Id in kernel \p Kernel at
/// the line of \p Loc (its file and line): emit() would drop another.
bool reported(const std::vector<Finding> &Out, const std::string &Id,
              const std::string &Kernel, const SourceLoc &Loc);
/// Appends \p F unless a finding with the same ID, kernel and line exists.
void emit(std::vector<Finding> &Out, Finding F);
/// Reports an undecided query: a solver-unknown note and a Warning finding.
void emitUnknown(const std::string &Id, const KernelModel &K, const Event &E,
                 const std::string &What, const Outcome &R,
                 std::vector<Finding> &Out, std::vector<Diagnostic> &Diags);
/// Applies an outcome to a finding: severity and witness.
void applyOutcome(Finding &F, const Outcome &R);

/// The note of a solver error in kernel \p K while check \p CheckId ran
/// (code "solver-unknown", severity Note, at the kernel): the engine's one
/// way to turn a z3::exception into a diagnostic (never a pass, never a
/// finding).
Diagnostic solverErrorNote(const std::string &CheckId, const KernelModel &K,
                           const z3::exception &E);

/// The analysis of \p K for a checker that starts on it: the shared one of
/// O.Contexts (created on first use, then reset by beginCheck()), or, without
/// shared contexts, a fresh one constructed in \p Local.
Analysis &checkContext(const ModuleModel &M, const KernelModel &K,
                       const CheckOptions &O, std::optional<Analysis> &Local);

/// The analysis of \p K for a helper that only reads its classification
/// (no solver work) while some checker runs: the shared one of O.Contexts
/// as it is, without beginCheck(), so the running checker's budget account
/// and statistics are left alone; without shared contexts a fresh one in
/// \p Local.
Analysis &classifiedContext(const ModuleModel &M, const KernelModel &K,
                            const CheckOptions &O,
                            std::optional<Analysis> &Local);

/// A checker that runs per kernel.
class KernelChecker : public Checker {
public:
  bool isPerKernel() const override { return true; }
  void check(const ModuleModel &M, const CheckOptions &Opts,
             std::vector<Finding> &Out,
             std::vector<Diagnostic> &Diags) const override;
  virtual void checkKernel(Analysis &A, std::vector<Finding> &Out,
                           std::vector<Diagnostic> &Diags) const = 0;
};

/// Short description of an event for messages: "store peers[p][tid.x]",
/// with " + OFFSET bytes" when the address has a byte offset (a pointer
/// cast to a wider element) and the source text in parentheses.
std::string describe(const Event &E);

} // namespace pkb::chk

namespace pkb {
/// One chk::Analysis per kernel of one module, shared by the checkers
/// (pkb/Checker.h, CheckOptions::Contexts).
class CheckContexts {
public:
  /// The analysis of \p K, created on first use. \p M and \p O must be
  /// the same objects on every call (they are kept by reference).
  chk::Analysis &get(const ModuleModel &M, const KernelModel &K,
                     const CheckOptions &O);

private:
  std::map<const KernelModel *, std::unique_ptr<chk::Analysis>> ByKernel;
  /// Queries of the module that decide() left unknown within their own
  /// limits (Analysis::LimitHits).
  unsigned LimitHits = 0;
};
} // namespace pkb

#endif // PKB_CHECKERS_ENGINE_H
