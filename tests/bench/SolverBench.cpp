//===- SolverBench.cpp - Cost of starting a Z3 query ----------------------===//
//
// What one solver query costs before any real solving: a fresh solver, one
// small formula, one check, for each way the engine can create the solver
// (checkers/EngineSolve.cpp, Analysis::decide):
//   default_<f>  z3::solver(ctx): Z3's default solver, which runs its tactic
//                portfolio (logic probes, preprocessing) on the first check;
//   simple_<f>   z3::solver(ctx, simple()): the SMT core alone, the engine's
//                first attempt since 2026-11-28;
//   tactic_<f>   the engine's unsatisfiability filter (simplify,
//                purify-arith, solve-eqs, smt) as a solver;
// with <f> a satisfiable linear formula and an unsatisfiable non-linear one,
// the shapes of the engine's easy queries. docs/performance.md records the
// numbers and the command. Not a test: nothing here asserts a time.
//
//===----------------------------------------------------------------------===//
#include <benchmark/benchmark.h>
#include <z3++.h>

namespace {

/// x + y > 3, x < 2, y < 2, x >= 0 (satisfiable, linear) or x * y == 7 with
/// x, y > 1 (unsatisfiable, non-linear).
z3::expr formula(z3::context &Z, bool NonLinear) {
  z3::expr X = Z.int_const("x"), Y = Z.int_const("y");
  if (NonLinear)
    return X * Y == 7 && X > 1 && Y > 1;
  return X + Y > 3 && X < 2 && Y < 2 && X >= 0;
}

enum class Kind { Default, Simple, Tactic };

z3::solver makeSolver(z3::context &Z, Kind K) {
  switch (K) {
  case Kind::Default:
    return z3::solver(Z);
  case Kind::Simple:
    return z3::solver(Z, z3::solver::simple());
  case Kind::Tactic:
    break;
  }
  return (z3::tactic(Z, "simplify") & z3::tactic(Z, "purify-arith") &
          z3::tactic(Z, "solve-eqs") & z3::tactic(Z, "smt"))
      .mk_solver();
}

void query(benchmark::State &St, Kind K, bool NonLinear) {
  z3::context Z;
  z3::expr F = formula(Z, NonLinear);
  for (auto _ : St) {
    z3::solver S = makeSolver(Z, K);
    S.add(F);
    benchmark::DoNotOptimize(S.check());
  }
}

} // namespace

BENCHMARK_CAPTURE(query, default_linear, Kind::Default, false)
    ->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(query, default_nonlinear, Kind::Default, true)
    ->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(query, simple_linear, Kind::Simple, false)
    ->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(query, simple_nonlinear, Kind::Simple, true)
    ->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(query, tactic_linear, Kind::Tactic, false)
    ->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(query, tactic_nonlinear, Kind::Tactic, true)
    ->Unit(benchmark::kMillisecond);

BENCHMARK_MAIN();
