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
#include <fstream>
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
/// product in \p E.
void collectProductFactors(const z3::expr &E, std::set<unsigned> &Seen,
                           std::set<std::string> &Out) {
  if (!Seen.insert(E.id()).second)
    return;
  if (E.is_app()) {
    if (E.decl().decl_kind() == Z3_OP_MUL) {
      unsigned NonNum = 0;
      for (unsigned I = 0; I < E.num_args(); ++I)
        NonNum += !E.arg(I).is_numeral();
      if (NonNum >= 2)
        for (unsigned I = 0; I < E.num_args(); ++I)
          if (E.arg(I).is_const() && !E.arg(I).is_numeral())
            Out.insert(E.arg(I).decl().name().str());
    }
    for (unsigned I = 0; I < E.num_args(); ++I)
      collectProductFactors(E.arg(I), Seen, Out);
  } else if (E.is_quantifier())
    collectProductFactors(E.body(), Seen, Out);
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
Analysis::enumerate(const z3::expr &F, const std::vector<z3::expr> &Xs,
                    unsigned W, const LaunchDims &L, size_t Cap,
                    bool &Complete) {
  std::vector<std::vector<int64_t>> R;
  Complete = true;
  z3::solver S(Z);
  S.add(concretize(F, W, L));
  std::string Reason;
  while (true) {
    z3::check_result C = runLimited(S, queryLimit(), Reason);
    if (C == z3::unsat)
      return R;
    if (C == z3::unknown || R.size() >= Cap) {
      Complete = false;
      return R;
    }
    z3::model M = S.get_model();
    std::vector<int64_t> Row;
    z3::expr Block = Z.bool_val(false);
    for (const z3::expr &X : Xs) {
      int64_t V = 0;
      z3::expr E = M.eval(X, true);
      if (!E.is_numeral_i64(V)) {
        Complete = false;
        return R;
      }
      Row.push_back(V);
      Block = Block || X != Z.int_val(V);
    }
    R.push_back(Row);
    if (Xs.empty())
      return R;
    S.add(Block);
  }
}

uint64_t Analysis::queryLimit() const {
  return uint64_t(O.SolverTimeoutMs) * 2500;
}

z3::check_result Analysis::runLimited(z3::solver &S, uint64_t Limit,
                                      std::string &Reason) {
  uint64_t Left = KernelBudget > Spent ? KernelBudget - Spent : 0;
  if (Left == 0) {
    Reason = "solver budget of the kernel exhausted";
    BudgetHit = true;
    return z3::unknown;
  }
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
  if (C == z3::unknown && Reason.empty())
    Reason = Spent >= KernelBudget ? "solver budget of the kernel exhausted"
                                   : "resource limit";
  return C;
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
  z3::check_result C = z3::unknown;
  {
    z3::solver S(Z);
    S.add(FC);
    C = runLimited(S, Budget / 16, Reason);
    if (C == z3::sat)
      Model = S.get_model();
  }
  if (C == z3::unknown && !BudgetHit) {
    // Case split on the (few) rank values: the products rank * chunk
    // become linear.
    std::set<unsigned> Seen;
    std::set<std::string> Names;
    collectProductFactors(FC, Seen, Names);
    // Split variables: ranks in [0, W) and variables of small loops
    // (constant start, bound W or a small constant).
    std::vector<std::pair<z3::expr, std::pair<int64_t, int64_t>>> Split;
    size_t Cases = 1;
    for (const std::string &N : Names) {
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
                   (Lp->Bound->Name == "world_size" ||
                    var(Lp->Bound->Name, 0).to_string() == "world_size"))
            B = W;
          auto St = constOf(Lp->Step);
          if (Init && Lp->Ascending && St && *St == 1 && B >= *Init &&
              B - *Init <= 16)
            Rg = {*Init, B};
        }
      }
      if (!Rg || Rg->second <= Rg->first)
        continue;
      size_t Width = size_t(Rg->second - Rg->first);
      if (Cases * Width > 256)
        continue;
      Cases *= Width;
      Split.push_back({Vars.at(N), *Rg});
    }
    static const bool Trace = std::getenv("PKB_CHECKERS_TRACE") != nullptr;
    if (Trace)
      std::fprintf(stderr, "(split %zu over %zu vars) ", Cases, Split.size());
    if (!Split.empty()) {
      bool AllUnsat = true;
      uint64_t Each = std::max<uint64_t>(Budget * 2 / Cases, 20000);
      for (size_t Case = 0; Case < Cases && !Model; ++Case) {
        z3::solver S2(Z);
        size_t X = Case;
        z3::expr_vector From(Z), To(Z);
        for (const auto &[V, Rg] : Split) {
          size_t Wd = size_t(Rg.second - Rg.first);
          From.push_back(V);
          To.push_back(Z.int_val(Rg.first + int64_t(X % Wd)));
          X /= Wd;
        }
        S2.add(z3::expr(FC).substitute(From, To).simplify());
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
      z3::solver S3(Z);
      S3.add(FC);
      C = runLimited(S3, Budget, Reason);
      if (C == z3::sat)
        Model = S3.get_model();
    }
  }
  if (C == z3::unknown && Reason.empty())
    Reason = "resource limit";
  // Answers cut short by the kernel budget are not cached: a later pass
  // may still decide them when given a fresh budget.
  if (!(C == z3::unknown && BudgetHit))
    Bucket.push_back({FC, C, Model, Reason});
  return C;
}

std::string Analysis::unboundCondition(const z3::expr &F, const z3::expr &FC,
                                       const LaunchDims &L, unsigned W,
                                       const z3::model &Mo) {
  // Scalar parameters of the satisfying formula that the launch leaves
  // unbound (counts, epochs, ranks and pointers excluded: their values are
  // fixed by the roles, the call counter or the layout).
  std::set<unsigned> Seen;
  std::set<std::string> Names;
  collectConsts(FC, Seen, Names);
  z3::expr Small = Z.bool_val(true);
  std::string Cond;
  for (const std::string &N : Names) {
    if (!startsWith(N, "param:") || L.Bind.count(N))
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
    z3::solver S(Z);
    S.add(Q);
    std::string Why;
    return runLimited(S, queryLimit() / 16, Why) == z3::sat;
  };
  if (!Cond.empty() && Cheap(FC && Small))
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
  return Cond;
}

Outcome Analysis::solve(const z3::expr &F, const WitnessSpec &Wit,
                        const std::vector<unsigned> &OnlyW,
                        const LaunchDims *OnlyLaunch) {
  Outcome R;
  R.Approx = Approx;
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
  for (unsigned W : Ws) {
    for (const LaunchDims &L : Ls) {
      if (Trace)
        std::fprintf(stderr, "  [solve %s W=%u] ", K.Name.c_str(), W);
      auto T1 = std::chrono::steady_clock::now();
      unsigned Hits = CacheHits;
      z3::expr FC = concretize(F, W, L) && Params;
      std::optional<z3::model> Mo;
      std::string Why;
      z3::check_result C = decide(FC, W, Mo, Why);
      if (Trace)
        std::fprintf(
            stderr, "%s %.3fs%s\n",
            C == z3::sat     ? "sat"
            : C == z3::unsat ? "unsat"
                             : "unknown",
            std::chrono::duration<double>(std::chrono::steady_clock::now() - T1)
                .count(),
            CacheHits != Hits ? " (cached)" : "");
      if (C == z3::sat && Mo) {
        R.K = Outcome::Sat;
        R.W = W;
        R.AssumedLaunch = !L.FromSite;
        for (const auto &[Name, T] : Wit) {
          z3::expr V = Mo->eval(T, true);
          int64_t X = 0;
          R.Witness[Name] =
              V.is_numeral_i64(X) ? std::to_string(X) : V.to_string();
        }
        R.Witness["W"] = std::to_string(W);
        R.Witness["bdim"] = std::to_string(L.B[0]);
        R.Witness["gdim"] = std::to_string(L.G[0]);
        R.Site = L.Site;
        R.Unbound = unboundCondition(F && Params, FC, L, W, *Mo);
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

} // namespace pkb::chk
