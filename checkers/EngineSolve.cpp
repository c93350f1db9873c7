//===- EngineSolve.cpp - Query solving, cache, budget ---------------------===//
//
// Part of the checker engine (Engine.h); see docs/checkers.md ("Method").
//
//===----------------------------------------------------------------------===//
#include "Engine.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <fstream>
#include <limits>
#include <sstream>

namespace pkb::chk {

//===----------------------------------------------------------------------===//
// Analysis: solving.
//===----------------------------------------------------------------------===//

WitnessSpec Analysis::agentWitness(std::initializer_list<int> Agents) {
  WitnessSpec W;
  W.push_back({"W", var("world_size", 0)});
  for (int A : Agents) {
    std::string S = std::to_string(A);
    W.push_back({"r" + S, rank(A)});
    W.push_back({"b" + S, var("bid.x", A)});
    W.push_back({"t" + S, var("tid.x", A)});
  }
  return W;
}
namespace {
/// Collects the names of the uninterpreted constants of \p E.
void collectConsts(const z3::expr &E, std::set<unsigned> &Seen,
                   std::set<std::string> &Out) {
  if (!Seen.insert(E.id()).second)
    return;
  if (E.is_const() && !E.is_numeral() && E.is_int()) {
    Out.insert(E.decl().name().str());
    return;
  }
  if (E.is_app())
    for (unsigned I = 0; I < E.num_args(); ++I)
      collectConsts(E.arg(I), Seen, Out);
  else if (E.is_quantifier())
    collectConsts(E.body(), Seen, Out);
}

/// Names of the integer constants that occur as factors of a non-linear
/// product in \p E; with \p Inside, also those anywhere inside a factor
/// (`C * ((rank - s + W) % W)`: C, rank and s).
void collectProductFactors(const z3::expr &E, std::set<unsigned> &Seen,
                           std::set<std::string> &Out, bool Inside = false) {
  if (!Seen.insert(E.id()).second)
    return;
  if (E.is_app()) {
    if (E.decl().decl_kind() == Z3_OP_MUL) {
      unsigned NonNum = 0;
      for (unsigned I = 0; I < E.num_args(); ++I)
        NonNum += !E.arg(I).is_numeral();
      std::set<unsigned> Seen2;
      for (unsigned I = 0; I < E.num_args() && NonNum >= 2; ++I) {
        if (Inside)
          collectConsts(E.arg(I), Seen2, Out);
        else if (E.arg(I).is_const() && !E.arg(I).is_numeral())
          Out.insert(E.arg(I).decl().name().str());
      }
    }
    for (unsigned I = 0; I < E.num_args(); ++I)
      collectProductFactors(E.arg(I), Seen, Out, Inside);
  } else if (E.is_quantifier())
    collectProductFactors(E.body(), Seen, Out, Inside);
}

/// Names of the `param:` constants of \p E that occur in a product of two
/// or more factors over parameters (`(H + 2) * (rank * T + t)`); a product
/// of one parameter with ranks or loop variables (`rank * N`) is left to the
/// case splits, and a division by a parameter (`i / N`, common and mostly
/// decided without help) to the solver.
void collectNonlinearParams(const z3::expr &E, std::set<unsigned> &Seen,
                            std::set<std::string> &Out) {
  if (!Seen.insert(E.id()).second || !E.is_app())
    return;
  auto ParamsOf = [](const z3::expr &A) {
    std::set<unsigned> Seen2;
    std::set<std::string> Names, Params;
    collectConsts(A, Seen2, Names);
    for (const std::string &N : Names)
      if (N.rfind("param:", 0) == 0)
        Params.insert(N);
    return Params;
  };
  if (E.decl().decl_kind() == Z3_OP_MUL) {
    std::set<std::string> Found;
    unsigned WithParams = 0;
    for (unsigned I = 0; I < E.num_args(); ++I) {
      std::set<std::string> P = ParamsOf(E.arg(I));
      WithParams += !P.empty();
      Found.insert(P.begin(), P.end());
    }
    if (WithParams >= 2)
      Out.insert(Found.begin(), Found.end());
  }
  for (unsigned I = 0; I < E.num_args(); ++I)
    collectNonlinearParams(E.arg(I), Seen, Out);
}

/// The "rlimit count" statistic of \p S (0 when absent).
uint64_t rlimitCount(z3::solver &S) {
  try {
    z3::stats St = S.statistics();
    for (unsigned I = 0; I < St.size(); ++I)
      if (St.key(I) == "rlimit count")
        return St.is_uint(I) ? St.uint_value(I)
                             : static_cast<uint64_t>(St.double_value(I));
  } catch (const z3::exception &) {
  }
  return 0;
}

/// The coefficient of the constant \p W in the integer term \p T when
/// \p T is linear in it (0 when \p W does not occur); nullopt when \p W
/// occurs non-linearly (products with a non-numeral, div, mod, ite
/// conditions, function arguments).
std::optional<int64_t> linearCoef(const z3::expr &T, const z3::expr &W,
                                  std::map<unsigned, bool> &Has) {
  auto Contains = [&](const z3::expr &E, auto &&Self) -> bool {
    auto It = Has.find(E.id());
    if (It != Has.end())
      return It->second;
    bool R = false;
    if (E.is_app())
      for (unsigned I = 0; I < E.num_args() && !R; ++I)
        R = Self(E.arg(I), Self);
    else if (E.is_quantifier())
      R = Self(E.body(), Self);
    if (E.is_const() && z3::eq(E, W))
      R = true;
    Has[E.id()] = R;
    return R;
  };
  if (!Contains(T, Contains))
    return 0;
  if (z3::eq(T, W))
    return 1;
  if (!T.is_app())
    return std::nullopt;
  switch (T.decl().decl_kind()) {
  case Z3_OP_ADD: {
    int64_t C = 0;
    for (unsigned I = 0; I < T.num_args(); ++I) {
      auto A = linearCoef(T.arg(I), W, Has);
      if (!A)
        return std::nullopt;
      C += *A;
    }
    return C;
  }
  case Z3_OP_SUB: {
    int64_t C = 0;
    for (unsigned I = 0; I < T.num_args(); ++I) {
      auto A = linearCoef(T.arg(I), W, Has);
      if (!A)
        return std::nullopt;
      C += I == 0 ? *A : -*A;
    }
    return C;
  }
  case Z3_OP_UMINUS: {
    auto A = linearCoef(T.arg(0), W, Has);
    return A ? std::optional<int64_t>(-*A) : std::nullopt;
  }
  case Z3_OP_MUL: {
    // One factor holds W, every other factor is a numeral.
    int64_t K = 1;
    std::optional<int64_t> C;
    for (unsigned I = 0; I < T.num_args(); ++I) {
      int64_t V = 0;
      if (T.arg(I).is_numeral_i64(V)) {
        K *= V;
        continue;
      }
      if (C)
        return std::nullopt;
      C = linearCoef(T.arg(I), W, Has);
      if (!C || *C == 0)
        return std::nullopt;
    }
    return C ? std::optional<int64_t>(K * *C) : std::nullopt;
  }
  default:
    return std::nullopt;
  }
}

/// True when every satisfying assignment of \p E (read at polarity
/// \p Positive) for world size W also satisfies it for every larger world
/// size: W occurs only in linear inequalities that larger values weaken
/// (`rank < W` asserted, `x >= W` denied). Then \p E unsatisfiable at the
/// largest world size is unsatisfiable at every smaller one.
bool growsWithW(const z3::expr &E, const z3::expr &W, bool Positive,
                std::map<unsigned, bool> &Has,
                std::map<std::pair<unsigned, bool>, bool> &Memo) {
  auto Key = std::make_pair(E.id(), Positive);
  if (auto It = Memo.find(Key); It != Memo.end())
    return It->second;
  bool R = false;
  if (linearCoef(E, W, Has) == std::optional<int64_t>(0)) {
    R = true; // W does not occur
  } else if (E.is_quantifier()) {
    R = growsWithW(E.body(), W, Positive, Has, Memo);
  } else if (E.is_app() && E.is_bool()) {
    switch (E.decl().decl_kind()) {
    case Z3_OP_AND:
    case Z3_OP_OR:
      R = true;
      for (unsigned I = 0; I < E.num_args() && R; ++I)
        R = growsWithW(E.arg(I), W, Positive, Has, Memo);
      break;
    case Z3_OP_NOT:
      R = growsWithW(E.arg(0), W, !Positive, Has, Memo);
      break;
    case Z3_OP_IMPLIES:
      R = growsWithW(E.arg(0), W, !Positive, Has, Memo) &&
          growsWithW(E.arg(1), W, Positive, Has, Memo);
      break;
    case Z3_OP_ITE:
      R = linearCoef(E.arg(0), W, Has) == std::optional<int64_t>(0) &&
          growsWithW(E.arg(1), W, Positive, Has, Memo) &&
          growsWithW(E.arg(2), W, Positive, Has, Memo);
      break;
    case Z3_OP_LE:
    case Z3_OP_LT:
    case Z3_OP_GE:
    case Z3_OP_GT: {
      // lhs <= rhs holds for more W when the coefficient of W in
      // rhs - lhs is positive.
      auto L = linearCoef(E.arg(0), W, Has);
      auto Rt = linearCoef(E.arg(1), W, Has);
      if (L && Rt) {
        int64_t C = *Rt - *L;
        Z3_decl_kind K = E.decl().decl_kind();
        if (K == Z3_OP_GE || K == Z3_OP_GT)
          C = -C;
        R = Positive ? C >= 0 : C <= 0;
      }
      break;
    }
    default:
      break;
    }
  }
  Memo[Key] = R;
  return R;
}

/// The split variables (indices into \p Split, as a bit mask) that \p E
/// depends on; nullopt when \p E also depends on another uninterpreted
/// constant or function, or holds a quantifier.
std::optional<uint64_t>
splitDeps(const z3::expr &E, const std::vector<Analysis::SplitVar> &Split,
          std::map<unsigned, std::optional<uint64_t>> &Memo) {
  if (auto It = Memo.find(E.id()); It != Memo.end())
    return It->second;
  std::optional<uint64_t> R = 0;
  if (E.is_numeral()) {
    R = 0;
  } else if (E.is_const()) {
    R = std::nullopt;
    for (size_t S = 0; S < Split.size() && S < 64; ++S)
      if (z3::eq(E, Split[S].V))
        R = uint64_t(1) << S;
  } else if (E.is_app() && E.decl().decl_kind() != Z3_OP_UNINTERPRETED) {
    for (unsigned I = 0; I < E.num_args() && R; ++I) {
      std::optional<uint64_t> A = splitDeps(E.arg(I), Split, Memo);
      R = A ? std::optional<uint64_t>(*R | *A) : std::nullopt;
    }
  } else {
    R = std::nullopt;
  }
  Memo.emplace(E.id(), R);
  return R;
}

/// Adds to \p Out the values of \p Factor for every combination of values
/// of the split variables \p Vars[At..] (the earlier ones already
/// substituted by \p From / \p To); false when one does not simplify to a
/// numeral.
bool factorValues(const z3::expr &Factor,
                  const std::vector<const Analysis::SplitVar *> &Vars,
                  size_t At, z3::expr_vector &From, z3::expr_vector &To,
                  std::set<int64_t> &Out) {
  if (At == Vars.size()) {
    int64_t V = 0;
    if (!z3::expr(Factor).substitute(From, To).simplify().is_numeral_i64(V))
      return false;
    Out.insert(V);
    return true;
  }
  const Analysis::SplitVar &SV = *Vars[At];
  for (int64_t X = SV.Lo; X < SV.Hi; ++X) {
    From.push_back(SV.V);
    To.push_back(Factor.ctx().int_val(X));
    bool Ok = factorValues(Factor, Vars, At + 1, From, To, Out);
    From.resize(From.size() - 1);
    To.resize(To.size() - 1);
    if (!Ok)
      return false;
  }
  return true;
}

/// Largest number of combinations of split-variable values enumerated for
/// one product factor.
constexpr uint64_t MaxFactorCombinations = 4096;
/// Largest number of distinct values of one product factor, the leaves of
/// its if-then-else chain.
constexpr size_t MaxChainLeaves = 64;

/// The if-then-else chain of \p Factor * \p Rest over the values that
/// \p Factor, a term over the split variables \p Vars only, takes while
/// they lie in their ranges: `ite(Factor == v0, v0 * Rest, ite(Factor ==
/// v1, ..., vn * Rest))`; nullopt when there are too many.
std::optional<z3::expr>
valueChain(const z3::expr &Factor, const z3::expr &Rest,
           const std::vector<const Analysis::SplitVar *> &Vars,
           FactorValueCache *Cache) {
  uint64_t Combinations = 1;
  for (const Analysis::SplitVar *SV : Vars) {
    Combinations *= uint64_t(SV->Hi - SV->Lo);
    if (Combinations > MaxFactorCombinations)
      return std::nullopt;
  }
  z3::context &C = Factor.ctx();
  auto Compute = [&]() -> std::optional<std::set<int64_t>> {
    z3::expr_vector From(C), To(C);
    std::set<int64_t> Values;
    if (!factorValues(Factor, Vars, 0, From, To, Values))
      return std::nullopt;
    return Values;
  };
  std::optional<std::set<int64_t>> Found;
  if (Cache) {
    std::vector<std::tuple<unsigned, int64_t, int64_t>> Key;
    for (const Analysis::SplitVar *SV : Vars)
      Key.emplace_back(SV->V.id(), SV->Lo, SV->Hi);
    std::vector<FactorValueCache::Entry> &Bucket = Cache->ByFactor[Factor.id()];
    auto It = std::find_if(Bucket.begin(), Bucket.end(),
                           [&](const auto &E) { return E.Vars == Key; });
    if (It == Bucket.end())
      It = Bucket.insert(Bucket.end(), {Factor, std::move(Key), Compute()});
    Found = It->Values;
  } else {
    Found = Compute();
  }
  if (!Found || Found->empty() || Found->size() > MaxChainLeaves)
    return std::nullopt;
  const std::set<int64_t> &Values = *Found;
  auto It = Values.rbegin();
  z3::expr Chain = C.int_val(*It) * Rest;
  for (++It; It != Values.rend(); ++It)
    Chain = z3::ite(Factor == C.int_val(*It), C.int_val(*It) * Rest, Chain);
  return Chain;
}

z3::expr iteProductsRec(const z3::expr &E,
                        const std::vector<Analysis::SplitVar> &Split,
                        std::map<unsigned, z3::expr> &Memo,
                        std::map<unsigned, std::optional<uint64_t>> &Deps,
                        FactorValueCache *Cache) {
  if (auto It = Memo.find(E.id()); It != Memo.end())
    return It->second;
  z3::expr R = E;
  if (E.is_app() && E.num_args() > 0) {
    z3::expr_vector Args(E.ctx());
    bool Changed = false;
    for (unsigned I = 0; I < E.num_args(); ++I) {
      z3::expr A = iteProductsRec(E.arg(I), Split, Memo, Deps, Cache);
      Changed |= !z3::eq(A, E.arg(I));
      Args.push_back(A);
    }
    // Candidate factors: a split variable itself first, then the terms
    // over split variables only (a chunk index `(rank - s - 1 + 2 * W) %
    // W`), in argument order; the first whose chain is small enough wins.
    std::vector<std::pair<unsigned, std::vector<const Analysis::SplitVar *>>>
        Cands;
    if (E.decl().decl_kind() == Z3_OP_MUL && Args.size() >= 2) {
      for (unsigned I = 0; I < Args.size() && Cands.empty(); ++I)
        for (const Analysis::SplitVar &SV : Split)
          if (z3::eq(Args[I], SV.V)) {
            Cands.push_back({I, {&SV}});
            break;
          }
      for (unsigned I = 0; I < Args.size(); ++I) {
        if (Args[I].is_numeral() || (!Cands.empty() && Cands[0].first == I))
          continue;
        std::optional<uint64_t> D = splitDeps(Args[I], Split, Deps);
        if (!D || *D == 0)
          continue;
        std::vector<const Analysis::SplitVar *> Over;
        for (size_t S = 0; S < Split.size() && S < 64; ++S)
          if (*D >> S & 1)
            Over.push_back(&Split[S]);
        Cands.push_back({I, std::move(Over)});
      }
    }
    std::optional<z3::expr> Chain;
    for (const auto &[At, Over] : Cands) {
      z3::expr Rest = E.ctx().int_val(1);
      bool First = true;
      for (unsigned I = 0; I < Args.size(); ++I)
        if (I != At) {
          Rest = First ? Args[I] : Rest * Args[I];
          First = false;
        }
      Chain = valueChain(Args[At], Rest, Over, Cache);
      if (Chain)
        break;
    }
    if (Chain)
      R = *Chain;
    else if (Changed)
      R = E.decl()(Args);
  }
  Memo.emplace(E.id(), R);
  return R;
}
} // namespace

z3::expr iteProducts(const z3::expr &E,
                     const std::vector<Analysis::SplitVar> &Split,
                     FactorValueCache *Values) {
  std::map<unsigned, z3::expr> Memo;
  std::map<unsigned, std::optional<uint64_t>> Deps;
  return iteProductsRec(E, Split, Memo, Deps, Values);
}

namespace {
z3::check_result runSolver(z3::solver &S, std::string &Reason) {
  try {
    return S.check();
  } catch (const z3::exception &E) {
    Reason = E.msg();
    return z3::unknown;
  }
}
} // namespace

std::vector<std::vector<int64_t>>
Analysis::enumerate(const Encoded &F, const std::vector<z3::expr> &Xs,
                    unsigned W, const LaunchDims &L, size_t Cap,
                    bool &Complete) {
  return enumerateConcrete(concretize(F.Term, W, L), Xs, Cap, Complete);
}

std::vector<std::vector<int64_t>>
Analysis::enumerateAcross(const Encoded &F, const std::vector<z3::expr> &Xs,
                          const LaunchDims &L, size_t Cap, bool &Complete) {
  return enumerateConcrete(concretizeAcross(F.Term, L), Xs, Cap, Complete);
}

std::vector<std::vector<int64_t>>
Analysis::enumerateConcrete(const z3::expr &FC, const std::vector<z3::expr> &Xs,
                            size_t Cap, bool &Complete) {
  // One enumeration with solver S into R: Done when every solution is in
  // R, Partial when capped (or a value is not a numeral), Undecided when a
  // check was left undecided.
  enum Result { Done, Partial, Undecided };
  auto Run = [&](z3::solver &S, std::vector<std::vector<int64_t>> &R) {
    S.add(FC);
    std::string Reason;
    while (true) {
      z3::check_result C = runLimited(S, queryLimit(), Reason);
      if (C == z3::unsat)
        return Done;
      if (C == z3::unknown)
        return Undecided;
      if (R.size() >= Cap)
        return Partial;
      z3::model M = S.get_model();
      std::vector<int64_t> Row;
      z3::expr Block = Z.bool_val(false);
      for (const z3::expr &X : Xs) {
        int64_t V = 0;
        z3::expr E = M.eval(X, true);
        if (!E.is_numeral_i64(V))
          return Partial;
        Row.push_back(V);
        Block = Block || X != Z.int_val(V);
      }
      R.push_back(Row);
      if (Xs.empty())
        return Done;
      S.add(Block);
    }
  };
  // The SMT core first (cheap to start, see cheapCheck()); where it leaves a
  // check undecided, the default solver enumerates again from scratch.
  std::vector<std::vector<int64_t>> R;
  z3::solver S0(Z, z3::solver::simple());
  Result Res = Run(S0, R);
  if (Res == Undecided && !BudgetHit) {
    R.clear();
    z3::solver S = fullSolver(FC);
    Res = Run(S, R);
  }
  Complete = Res == Done;
  return R;
}

z3::solver Analysis::fullSolver(const z3::expr &F) {
  z3::goal G(Z);
  G.add(F);
  const bool Lia = z3::probe(Z, "is-qflia")(G) != 0;
  if (!Lia && z3::probe(Z, "is-qfnia")(G) == 0)
    return z3::solver(Z); // quantifiers, uninterpreted functions
  // Built afresh for every query, on purpose: Z3's tactic objects keep
  // state between runs, and reusing one chain for all queries of a kernel
  // changed answers (PART-002 on part002_03_pkb.py, W = 4: sat with fresh
  // tactics, unknown at the same limit with reused ones). Building a chain
  // does no solving.
  return buildFullTactic(Lia).mk_solver();
}

z3::tactic Analysis::buildFullTactic(bool Lia) {
  auto T = [&](const char *Name) { return z3::tactic(Z, Name); };
  auto With = [&](const z3::tactic &Tc,
                  std::initializer_list<std::pair<const char *, unsigned>> U,
                  std::initializer_list<std::pair<const char *, bool>> B) {
    z3::params P(Z);
    for (const auto &[K, V] : U)
      P.set(K, V);
    for (const auto &[K, V] : B)
      P.set(K, V);
    return z3::with(Tc, P);
  };
  // The first three steps of both preambles.
  z3::tactic Prefix =
      T("simplify") & T("propagate-values") &
      With(T("ctx-simplify"), {{"max_depth", 30}, {"max_steps", 5000000}}, {});
  if (Lia) {
    // Linear goals: the preamble of Z3's QF_LIA strategy (qflia_tactic.cpp,
    // mk_preamble_tactic) and the SMT core; its model finders and bounded
    // searches all run under try_for() and are left out.
    z3::tactic LiaPreamble =
        Prefix &
        With(T("simplify"), {{"local_ctx_limit", 10000000}},
             {{"pull_cheap_ite", true},
              {"push_ite_arith", false},
              {"local_ctx", true},
              {"hoist_ite", true}}) &
        T("solve-eqs") & T("elim-uncnstr") &
        With(T("simplify"), {}, {{"arith_lhs", true}});
    return With(LiaPreamble & T("smt"), {}, {{"som", true}});
  }

  // Mirrors mk_qfnia_tactic() of Z3 4.8 (src/tactic/smtlogics/
  // qfnia_tactic.cpp) step by step; only the two try_for() are replaced.
  auto SkipIfFailed = [&](const z3::tactic &Tc) { return Tc | T("skip"); };
  z3::tactic Preamble = Prefix &
                        With(T("simplify"), {{"local_ctx_limit", 10000000}},
                             {{"pull_cheap_ite", true}, {"local_ctx", true}}) &
                        T("elim-uncnstr") & T("lia2card") & T("card2bv") &
                        SkipIfFailed(T("cofactor-term-ite"));
  z3::tactic BvSolver = With(
      T("simplify") & T("propagate-values") &
          With(T("simplify"), {{"local_ctx_limit", 10000000}},
               {{"local_ctx", true}}) &
          T("max-bv-sharing") &
          With(T("bit-blast"), {{"max_memory", 100}}, {}) &
          With(T("sat"), {{"max_memory", 100}, {"max_conflicts", 500}}, {}),
      {},
      {{"flat", false},
       {"hi_div0", true},
       {"elim_and", true},
       {"blast_distinct", true}});
  z3::tactic SatSolver = With(T("simplify"), {}, {{"hoist_mul", true}}) &
                         With(T("nla2bv"), {{"nla2bv_max_bv_size", 64}}, {}) &
                         SkipIfFailed(BvSolver) & T("fail-if-undecided");
  auto SmtSolver = [&](unsigned MaxConflicts) {
    z3::tactic S = With(T("simplify"), {}, {{"som", true}});
    return MaxConflicts
               ? S & With(T("smt"), {{"max_conflicts", MaxConflicts}}, {}) &
                     T("fail-if-undecided")
               : S & T("smt");
  };
  // The cut-offs: 2 s of the SMT core and 3 s of nlsat in Z3, here
  // conflict counts (a few tenths of a second each on the bundled files).
  constexpr unsigned SmtConflicts = 20000, NlsatConflicts = 20000;
  z3::tactic Nlsat =
      With(T("simplify"), {}, {{"som", true}}) &
      With(T("qfnra-nlsat"), {{"max_conflicts", NlsatConflicts}}, {}) &
      T("fail-if-undecided");
  z3::tactic Branch =
      SatSolver | SmtSolver(SmtConflicts) | Nlsat | SmtSolver(0);
  return Preamble & Branch;
}

z3::check_result Analysis::cheapCheck(const z3::expr &F, uint64_t Limit,
                                      std::optional<z3::model> *Model,
                                      std::string &Reason) {
  // The SMT core alone first: a default z3::solver runs Z3's tactic
  // portfolio before its first check, 5 to 8 ms even for a trivial query
  // (build/bin/pkb_bench_solver), which was most of the cost of the many
  // easy queries (docs/performance.md, "One SMT core first"). Only a
  // decided answer is taken; anything else goes on to the default solver.
  z3::solver S0(Z, z3::solver::simple());
  S0.add(F);
  std::string Why;
  z3::check_result C = runLimited(S0, Limit, Why);
  if (C == z3::sat && Model)
    *Model = S0.get_model();
  if (C != z3::unknown || BudgetHit)
    return C;
  z3::solver S = fullSolver(F);
  S.add(F);
  C = runLimited(S, Limit, Reason);
  if (C == z3::sat && Model)
    *Model = S.get_model();
  return C;
}

z3::check_result Analysis::smallParamProbe(const z3::expr &FC, uint64_t Limit,
                                           std::optional<z3::model> &Model) {
  std::set<unsigned> Seen;
  std::set<std::string> Names;
  collectNonlinearParams(FC, Seen, Names);
  if (Names.empty())
    return z3::unknown;
  for (int64_t V = 1; V <= 3 && !BudgetHit; ++V) {
    z3::expr_vector From(Z), To(Z);
    for (const std::string &N : Names) {
      From.push_back(Vars.at(N));
      To.push_back(Z.int_val(V));
    }
    // Substituted, so that the SMT core sees a linear query; the
    // equalities keep the values in the model (the finding's witness).
    z3::expr Q = z3::expr(FC).substitute(From, To);
    for (unsigned I = 0; I < From.size(); ++I)
      Q = Q && From[I] == To[I];
    z3::solver S(Z, z3::solver::simple());
    S.add(Q);
    std::string Why;
    if (runLimited(S, Limit, Why) == z3::sat) {
      Model = S.get_model();
      return z3::sat;
    }
  }
  return z3::unknown;
}

uint64_t Analysis::queryLimit() const {
  uint64_t L = uint64_t(O.SolverTimeoutMs) * 2500;
  if (*LimitHits >= DegradeAfter)
    L = std::max<uint64_t>(L / DegradeFactor, 1);
  return std::max<uint64_t>(L >> LimitShift, 1);
}

z3::check_result Analysis::runLimited(z3::solver &S, uint64_t Limit,
                                      std::string &Reason) {
  uint64_t Left = KernelBudget > Spent ? KernelBudget - Spent : 0;
  if (Left == 0) {
    Reason = "solver budget of the kernel exhausted";
    BudgetHit = true;
    return z3::unknown;
  }
  // A query clipped by what is left of the budget and left undecided is a
  // budget cut (never cached: another checker with budget left decides it).
  bool Clipped = Left < Limit;
  Limit = std::clamp<uint64_t>(std::min(Limit, Left), 1, 4000000000u);
  z3::params P(Z);
  P.set("rlimit", static_cast<unsigned>(Limit));
  S.set(P);
  ++Queries;
  uint64_t Before = rlimitCount(S);
  z3::check_result C = runSolver(S, Reason);
  // The resource counter is deterministic, unlike wall time: charging it
  // keeps the outcome of every query reproducible.
  uint64_t After = rlimitCount(S);
  Spent += After > Before ? std::min(After - Before, Limit) : Limit;
  if (C == z3::unknown && Clipped)
    BudgetHit = true;
  if (C == z3::unknown && Reason.empty())
    Reason = Spent >= KernelBudget ? "solver budget of the kernel exhausted"
                                   : "resource limit";
  return C;
}

std::optional<int64_t> Analysis::valueAtW(const ExprRef &E, unsigned W) {
  if (!E)
    return std::nullopt;
  switch (E->Op) {
  case ExprOp::Const:
    return E->Value;
  case ExprOp::Var:
    if (isCoordVar(E->Name, "world_size"))
      return int64_t(W);
    return std::nullopt;
  case ExprOp::Add:
  case ExprOp::Sub:
  case ExprOp::Mul: {
    auto X = valueAtW(E->Ops[0], W), Y = valueAtW(E->Ops[1], W);
    if (!X || !Y || std::abs(*X) > (1 << 20) || std::abs(*Y) > (1 << 20))
      return std::nullopt;
    return E->Op == ExprOp::Add   ? *X + *Y
           : E->Op == ExprOp::Sub ? *X - *Y
                                  : *X * *Y;
  }
  default:
    return std::nullopt;
  }
}

std::optional<std::pair<int64_t, int64_t>>
Analysis::smallRange(const std::string &N, unsigned W, bool AnyBound) {
  // Ranks in [0, W) and variables of small loops (constant start, step 1,
  // bound W or a small constant; with AnyBound, any bound that is constant
  // for a fixed W, such as W - 1).
  std::optional<std::pair<int64_t, int64_t>> Rg;
  if (N.rfind("rank#", 0) == 0)
    Rg = {0, int64_t(W)};
  else if (N.rfind("loop:", 0) == 0) {
    unsigned Id = unsigned(std::atoi(N.c_str() + 5));
    if (const Loop *Lp = K.findLoop(Id)) {
      auto Init = constOf(Lp->Init);
      int64_t B = -1;
      if (auto C2 = constOf(Lp->Bound))
        B = *C2;
      else if (Lp->Bound && Lp->Bound->Op == ExprOp::Var &&
               isCoordVar(Lp->Bound->Name, "world_size"))
        B = W;
      else if (auto C3 = AnyBound ? valueAtW(Lp->Bound, W) : std::nullopt)
        B = *C3;
      auto St = constOf(Lp->Step);
      if (Init && Lp->Ascending && St && *St == 1 && B >= *Init &&
          B - *Init <= 16)
        Rg = {*Init, B};
    }
  }
  if (!Rg || Rg->second <= Rg->first)
    return std::nullopt;
  return Rg;
}

std::vector<Analysis::SplitVar> Analysis::splitVars(const z3::expr &FC,
                                                    unsigned W) {
  // Product factors with a small known range, at most 256 cases together.
  std::set<unsigned> Seen;
  std::set<std::string> Names;
  collectProductFactors(FC, Seen, Names);
  std::vector<SplitVar> Split;
  size_t Cases = 1;
  for (const std::string &N : Names) {
    auto Rg = smallRange(N, W, /*AnyBound=*/false);
    if (!Rg)
      continue;
    size_t Width = size_t(Rg->second - Rg->first);
    if (Cases * Width > 256)
      continue;
    Cases *= Width;
    Split.push_back({Vars.at(N), Rg->first, Rg->second});
  }
  return Split;
}

std::vector<Analysis::SplitVar> Analysis::chainVars(const z3::expr &FC,
                                                    unsigned W, bool Bounded) {
  std::set<unsigned> Seen;
  std::set<std::string> Names;
  collectProductFactors(FC, Seen, Names, /*Inside=*/true);
  std::vector<SplitVar> Split;
  std::optional<std::map<unsigned, std::pair<int64_t, int64_t>>> Bounds;
  for (const std::string &N : Names) {
    auto It = Vars.find(N);
    if (It == Vars.end())
      continue;
    if (auto Rg = smallRange(N, W, /*AnyBound=*/true)) {
      Split.push_back({It->second, Rg->first, Rg->second});
      continue;
    }
    // With Bounded, any other variable whose range the query bounds at its
    // top level to at most 16 values: a block index of a constant grid
    // (`bid.x * per` with `0 <= bid.x < 4`), a thread index of a small block.
    if (!Bounded)
      continue;
    if (!Bounds)
      Bounds = topLevelBounds(FC);
    auto B = Bounds->find(It->second.id());
    if (B != Bounds->end() && B->second.first <= B->second.second &&
        B->second.first > std::numeric_limits<int64_t>::min() &&
        B->second.second - B->second.first < 16)
      Split.push_back({It->second, B->second.first, B->second.second + 1});
  }
  return Split;
}

z3::check_result Analysis::decide(const z3::expr &FC, unsigned W,
                                  std::optional<z3::model> &Model,
                                  std::string &Reason) {
  // Identical formulas are one AST in a context (hash-consing): the cache
  // answers queries repeated across event pairs and checker passes.
  auto &Bucket = Cache[FC.hash()];
  for (const CacheEntry &E : Bucket)
    if (z3::eq(E.F, FC)) {
      Model = E.Model;
      if (E.C == z3::unknown)
        Reason = E.Reason;
      ++CacheHits;
      return E.C;
    }
  uint64_t Budget = queryLimit();
  const bool Degraded = *LimitHits >= DegradeAfter;
  // Small values first for the sizes that no launch binds, where they make
  // the query non-linear: a bug usually shows with a few elements, and the
  // probe's linear queries take milliseconds where the non-linear one may
  // exhaust every limit below (docs/checkers.md, "Solver strategy and
  // limits").
  z3::check_result C = smallParamProbe(FC, Budget / 64, Model);
  // Products of a small-range variable (a rank, a short loop's variable),
  // or of a term over such variables only (a ring step's chunk index), with
  // another term: rewritten into if-then-else chains over the factor's
  // values, the query is linear and exact; Z3 explores the cases itself,
  // with conflict learning across them (docs/checkers.md, "Solver strategy
  // and limits").
  std::vector<SplitVar> Split = splitVars(FC, W);
  // An unsatisfiability filter for the chain query \p G: arithmetic
  // purification and equation solving before the SMT core decide the
  // chain queries of a ring schedule several times faster than the default
  // solver. Only its unsat answers are taken; anything else goes on to the
  // default solver, whose models (the witnesses of findings) stay as they
  // were. Its limit is 1/8 of a query's (it was 1/4): over the 864 chain
  // queries of the 179 bundled files it decided 841, 839 of them within
  // 1/8, and the default solver decided the two others; 5 queries of the
  // all-gather and all-to-all candidates ran the filter to 1/4 for no
  // answer before the default solver decided them in under 0.3M units.
  // Measured per query, 1/8 costs no kernel more units than 1/4 did; 1/16
  // and 1/32 save more in total but cost some kernels more
  // (docs/performance.md, "Huge pages for the workers, templates in the
  // PCH, a shorter unsat filter").
  auto Filter = [&](const z3::expr &G, uint64_t Limit) {
    // Simplified to false already (boundQuotients()): nothing to run, and
    // no resource count to charge.
    if (G.is_false())
      return true;
    z3::solver T = (z3::tactic(Z, "simplify") & z3::tactic(Z, "purify-arith") &
                    z3::tactic(Z, "solve-eqs") & z3::tactic(Z, "smt"))
                       .mk_solver();
    T.add(G);
    std::string Why;
    return runLimited(T, Limit, Why) == z3::unsat;
  };
  // The chains of ranks and short loops (Named), and the filter also over
  // the other variables that the query bounds to a few values (a block
  // index of a constant grid: `bid.x * per` with `0 <= bid.x < 4`), which
  // leaves more queries linear for it; the default solver keeps the named
  // chains, so its models do not change. A query that is non-linear only
  // in such bounded variables gets the filter after the cheap attempts,
  // which decide most of those (docs/checkers.md, step 2).
  // One traversal: the named chains are the bounded ones that smallRange()
  // gives a range, in the same order.
  std::vector<SplitVar> Bounded = chainVars(FC, W, /*Bounded=*/true), Named;
  for (const SplitVar &V : Bounded)
    if (smallRange(V.V.decl().name().str(), W, /*AnyBound=*/true))
      Named.push_back(V);
  // For the filter only, the query simplified by its bounds (the sign cases
  // of C division go), and quotients by a size that the query bounds (`i /
  // n` with `0 <= i < W * n`) as bounded variables with chains of their own
  // (boundQuotients(); the same satisfiability): the all-to-all's pair
  // queries over `I / N` are then linear (docs/performance.md, sixth
  // session).
  std::vector<SplitVar> Quots;
  std::optional<z3::expr> FQ;
  auto Simplified = [&]() -> const z3::expr & {
    if (!FQ)
      FQ = boundQuotients(FC, Quots);
    return *FQ;
  };
  // The filter's answer: first on the query weakened by leaving the
  // non-linear arguments of minima out of its upper bounds
  // (relaxMinBounds(): `j < min(C, n - c * C)` becomes `j < C`, the clamp
  // of a last chunk that the ring schedules' disjointness does not need),
  // at 1/32 of a query's limit; an unsat answer there is one for the query
  // too. Then on the query itself. On c20_ring_allreduce_ptx.cu the 101
  // filter queries took 3.65M units, weakened 1.51M, all decided by the
  // first step (docs/performance.md, seventh session).
  auto FilterDecides = [&]() {
    const z3::expr &G = Simplified();
    std::vector<SplitVar> All = Bounded;
    All.insert(All.end(), Quots.begin(), Quots.end());
    z3::expr Weak = relaxMinBounds(G);
    if (!z3::eq(Weak, G) &&
        Filter(iteProducts(Weak, All, &FactorValues), Budget / 32))
      return true;
    return !BudgetHit && Filter(iteProducts(G, All, &FactorValues), Budget / 8);
  };
  // Some variable of the filter's query has a chain.
  auto FilterChains = [&]() {
    Simplified();
    return !Bounded.empty() || !Quots.empty();
  };
  if (C == z3::unknown && !Named.empty()) {
    // Built before the filter's query even when the filter decides: the
    // order in which terms enter the context steers Z3's models (moving it
    // changed the witnesses of three bundled files).
    z3::expr G = iteProducts(FC, Named, &FactorValues);
    if (FilterDecides()) {
      C = z3::unsat;
    } else {
      z3::solver S = fullSolver(G);
      S.add(G);
      C = runLimited(S, Budget, Reason);
      if (C == z3::sat)
        Model = S.get_model();
    }
  }
  if (C == z3::unknown && !BudgetHit)
    C = cheapCheck(FC, Budget / 16, &Model, Reason);
  if (C == z3::unknown && !BudgetHit && Named.empty() && FilterChains() &&
      FilterDecides())
    C = z3::unsat;
  if (C == z3::unknown && !BudgetHit) {
    size_t Cases = 1;
    for (const SplitVar &V : Split)
      Cases *= size_t(V.Hi - V.Lo);
    static const bool Trace = std::getenv("PKB_CHECKERS_TRACE") != nullptr;
    if (Trace)
      std::fprintf(stderr, "(split %zu over %zu vars) ", Cases, Split.size());
    if (!Split.empty()) {
      // One linear query per case.
      bool AllUnsat = true;
      uint64_t Each = std::max<uint64_t>(Budget * 2 / Cases, 20000);
      for (size_t Case = 0; Case < Cases && !Model; ++Case) {
        size_t X = Case;
        z3::expr_vector From(Z), To(Z);
        for (const SplitVar &V : Split) {
          size_t Wd = size_t(V.Hi - V.Lo);
          From.push_back(V.V);
          To.push_back(Z.int_val(V.Lo + int64_t(X % Wd)));
          X /= Wd;
        }
        z3::expr CaseF = z3::expr(FC).substitute(From, To).simplify();
        z3::solver S2 = fullSolver(CaseF);
        S2.add(CaseF);
        for (unsigned I = 0; I < From.size(); ++I)
          S2.add(From[I] == To[I]);
        z3::check_result C2 = runLimited(S2, Each, Reason);
        if (C2 == z3::sat)
          Model = S2.get_model();
        else if (C2 == z3::unknown) {
          AllUnsat = false;
          if (BudgetHit)
            break;
        }
      }
      if (Model)
        C = z3::sat;
      else if (AllUnsat)
        C = z3::unsat;
    } else {
      z3::solver S3 = fullSolver(FC);
      S3.add(FC);
      C = runLimited(S3, Budget, Reason);
      if (C == z3::sat)
        Model = S3.get_model();
    }
  }
  if (C == z3::unknown && Reason.empty())
    Reason = "resource limit";
  // A query that every step left undecided within its own limit counts
  // toward the file's degraded limit (docs/checkers.md, "Budget per file").
  if (C == z3::unknown && !BudgetHit) {
    ++*LimitHits;
    if (Degraded && Reason == "resource limit")
      Reason += " (1/" + std::to_string(DegradeFactor) +
                " of --solver-timeout: an earlier query of this file ended "
                "unknown)";
  }
  // Answers cut short by the kernel budget are not cached: a later pass
  // may still decide them when given a fresh budget.
  if (!(C == z3::unknown && BudgetHit))
    Bucket.push_back({FC, C, Model, Reason});
  return C;
}

std::string Analysis::unboundCondition(const z3::expr &F, const z3::expr &FC,
                                       const z3::expr &Core,
                                       const LaunchDims &L, unsigned W,
                                       const z3::model &Mo) {
  // Scalar parameters of the satisfying formula that the launch leaves
  // unbound (counts, epochs, ranks and pointers excluded: their values are
  // fixed by the roles, the call counter or the layout).
  std::set<unsigned> Seen, CoreSeen;
  std::set<std::string> Names, CoreNames;
  collectConsts(FC, Seen, Names);
  collectConsts(Core, CoreSeen, CoreNames);
  z3::expr Small = Z.bool_val(true);
  std::string Cond, NextCond;
  for (const std::string &N : Names) {
    // The next call's value of a parameter that changes with the call
    // counter in a way the model does not express: the finding needs the
    // value the model picked, never an Error.
    if (N.size() > 5 && N.compare(N.size() - 5, 5, "@next") == 0 &&
        callDependent(L, N.substr(0, N.size() - 5))) {
      if (!CoreNames.count(N))
        continue;
      z3::expr Val = Mo.eval(Vars.at(N), true);
      int64_t X = 0;
      NextCond +=
          (NextCond.empty() ? "" : ", ") + N.substr(0, N.size() - 5) + " = " +
          (Val.is_numeral_i64(X) ? std::to_string(X) : Val.to_string()) +
          " in the next call";
      continue;
    }
    // Bound by the launch, or constrained by its host code's own checks
    // (LaunchDims::ParamCond: the host states the values it admits).
    if (!startsWith(N, "param:") || L.Bind.count(N) || L.HostBind.count(N) ||
        (L.ParamCond && L.ParamCond->mentions(N)))
      continue;
    const Param *P = K.findParam(N.substr(6));
    if (!P || (P->Role != ParamRole::Scalar && P->Role != ParamRole::Unknown))
      continue;
    z3::expr V = Vars.at(N);
    Small = Small && V >= 0 && V < Z.int_val(W);
    z3::expr Val = Mo.eval(V, true);
    int64_t X = 0;
    Cond += (Cond.empty() ? "" : ", ") + N + " = " +
            (Val.is_numeral_i64(X) ? std::to_string(X) : Val.to_string());
  }
  // The finding needs these values if it does not also hold with every
  // unbound parameter in [0, W), the range of an index or small offset that
  // a plausible launch passes (an unknown probe counts as "needs them": the
  // finding becomes a Warning, never a pass).
  // One cheap attempt (1/16 of a query limit, no case splits): probes run
  // for every satisfiable query, and an undecided probe only costs an Error
  // its severity.
  auto Cheap = [&](const z3::expr &Q) {
    std::string Why;
    return cheapCheck(Q, queryLimit() / 16, nullptr, Why) == z3::sat;
  };
  // The model at hand settles it when its own values are small already.
  if (!Cond.empty() &&
      (Mo.eval(FC && Small, true).is_true() || Cheap(FC && Small)))
    Cond.clear();
  if (L.Site == nullptr && !L.FromSite && L.G[0] > 1) {
    // No visible launch: the block count is unconstrained too. A finding
    // that needs more than one block holds only for some launches.
    LaunchDims One = L;
    One.G[0] = 1;
    if (!Cheap(concretize(F, W, One)))
      Cond += (Cond.empty() ? "" : ", ") + std::string("gridDim.x = ") +
              std::to_string(L.G[0]);
  }
  if (!NextCond.empty())
    Cond += (Cond.empty() ? "" : ", ") + NextCond;
  return Cond;
}

Outcome Analysis::solve(const Encoded &Fe, const WitnessSpec &Wit,
                        const std::vector<unsigned> &OnlyW,
                        const LaunchDims *OnlyLaunch) {
  const z3::expr &F = Fe.Term;
  Outcome R;
  R.Approx = Fe.Approx;
  for (const auto &[Name, T] : Wit)
    R.Approx = R.Approx || T.Approx;
  std::vector<unsigned> Ws = OnlyW.empty() ? O.WorldSizes : OnlyW;
  std::sort(Ws.begin(), Ws.end());
  Ws.erase(std::unique(Ws.begin(), Ws.end()), Ws.end());
  bool AnyUnknown = false;
  std::string Reason;
  z3::expr Params = Z.bool_val(true);
  for (const std::string &P : ParamVars)
    Params = Params && Vars.at(P) >= 0;
  std::vector<LaunchDims> Ls =
      OnlyLaunch ? std::vector<LaunchDims>{*OnlyLaunch} : launches();
  static const bool Trace = std::getenv("PKB_CHECKERS_TRACE") != nullptr;
  // World sizes together (docs/checkers.md, "Solver strategy and limits"):
  // when larger world sizes only weaken the query, one unsatisfiable answer
  // at the largest W decides every W; otherwise (or when that query is
  // satisfiable or undecided) every W is solved in ascending order, so the
  // reported W is the smallest one.
  // A launch guarded by the host (`if (world_size == 4)`, a `case` of a
  // switch on the rank count) adds its guard at concretization; such a
  // guard is not weaker for larger W, so those launches go per W.
  bool Guarded = std::any_of(Ls.begin(), Ls.end(),
                             [](const LaunchDims &L) { return bool(L.Guard); });
  if (Ws.size() > 1 && !Guarded) {
    std::map<unsigned, bool> Has;
    std::map<std::pair<unsigned, bool>, bool> Memo;
    z3::expr Wv = var("world_size", 0);
    if (growsWithW(F && Params, Wv, true, Has, Memo)) {
      bool AllUnsat = true;
      for (const LaunchDims &L : Ls) {
        std::optional<z3::model> Mo;
        std::string Why;
        if (decide(concretize(F, Ws.back(), L) && Params, Ws.back(), Mo, Why) !=
            z3::unsat) {
          AllUnsat = false;
          break;
        }
      }
      if (Trace)
        std::fprintf(stderr, "  [solve %s W<=%u monotone] %s\n", K.Name.c_str(),
                     Ws.back(), AllUnsat ? "unsat" : "not unsat");
      if (AllUnsat) {
        ++MonotoneDecided;
        R.K = Outcome::Unsat;
        return R;
      }
    }
  }
  for (unsigned W : Ws) {
    for (const LaunchDims &L : Ls) {
      if (Trace)
        std::fprintf(stderr, "  [solve %s W=%u] ", K.Name.c_str(), W);
      auto T1 = std::chrono::steady_clock::now();
      std::clock_t Cpu1 = std::clock();
      uint64_t Spent1 = Spent;
      unsigned Hits = CacheHits;
      z3::expr Core = concretize(F, W, L);
      z3::expr FC = Core && Params;
      std::optional<z3::model> Mo;
      std::string Why;
      z3::check_result C = decide(FC, W, Mo, Why);
      if (Trace)
        std::fprintf(
            stderr, "%s %.3fs (cpu %.3fs, %llu units)%s\n",
            C == z3::sat     ? "sat"
            : C == z3::unsat ? "unsat"
                             : "unknown",
            std::chrono::duration<double>(std::chrono::steady_clock::now() - T1)
                .count(),
            double(std::clock() - Cpu1) / CLOCKS_PER_SEC,
            static_cast<unsigned long long>(Spent - Spent1),
            CacheHits != Hits ? " (cached)" : "");
      if (C == z3::sat && Mo) {
        R.K = Outcome::Sat;
        R.W = W;
        R.AssumedLaunch = !L.FromSite;
        for (const auto &[Name, T] : Wit) {
          z3::expr V = Mo->eval(T.Term, true);
          int64_t X = 0;
          R.Witness[Name] =
              V.is_numeral_i64(X) ? std::to_string(X) : V.to_string();
        }
        R.Witness["W"] = std::to_string(W);
        R.Witness["bdim"] = std::to_string(L.B[0]);
        R.Witness["gdim"] = std::to_string(L.G[0]);
        R.Site = L.Site;
        R.Unbound = unboundCondition(F && Params, FC, Core, L, W, *Mo);
        return R;
      }
      if (C == z3::unknown) {
        if (const char *D = std::getenv("PKB_CHECKERS_DUMP_UNKNOWN")) {
          z3::solver SD(Z);
          SD.add(FC);
          std::ofstream(std::string(D) + "/q" + std::to_string(Queries) +
                        ".smt2")
              << SD.to_smt2();
        }
        AnyUnknown = true;
        if (Reason.empty())
          Reason = Why;
      }
    }
  }
  R.K = AnyUnknown ? Outcome::Unknown : Outcome::Unsat;
  R.Reason = Reason;
  return R;
}

Outcome Analysis::refine(Outcome R, const std::function<Encoded()> &Build,
                         const WitnessSpec &Wit) {
  if (!R.sat() || (!R.Approx && R.Unbound.empty()) || K.LocalDefs.empty())
    return R;
  if (std::optional<Outcome> X = solveExact(Build, Wit))
    return std::move(*X);
  return R;
}

std::optional<Outcome>
Analysis::solveExact(const std::function<Encoded()> &Build,
                     const WitnessSpec &Wit, std::map<std::string, bool> Case) {
  ReadDefinedLocal = SplitUsed = false;
  Encoded Q = [&] {
    ExactValues X(*this, std::move(Case));
    return Build();
  }();
  if ((!SplitUsed && !ReadDefinedLocal) || Q.Approx)
    return std::nullopt;
  // A cheaper attempt: the values are often non-linear (a block's range
  // `bid.x * per`), and an undecided refinement only keeps the Warning.
  // The unknowns of this attempt count like any other query's towards the
  // file's degradation (*LimitHits), so keep them out of it.
  unsigned Hits = *LimitHits;
  LimitShift = 3;
  Outcome X = solve(Q, Wit);
  LimitShift = 0;
  *LimitHits = Hits;
  if (X.sat() && !X.Approx && X.Unbound.empty())
    return X;
  return std::nullopt;
}

} // namespace pkb::chk
