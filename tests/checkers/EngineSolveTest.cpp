//===- EngineSolveTest.cpp - Query solving, cache, budget -----------------===//
//
// Unit tests of checkers/EngineSolve.cpp: smallest failing world size and
// its witness, the query cache, the per-kernel budget and enumeration.
//
//===----------------------------------------------------------------------===//
#include "EngineTestUtil.h"

using namespace pkb;
using namespace pkb::chk;
using namespace pkb::dsl;
using namespace pkb::cktest;

namespace {

TEST(EngineSolve, SmallestWorldSizeAndWitness) {
  KB K;
  K.launch(4, 256);
  Fixture F(K);
  Analysis &A = *F;
  z3::expr Q = A.agentRange(1) && A.rank(1) == 4;
  Outcome R = A.solve(Q, A.agentWitness({1}));
  ASSERT_TRUE(R.sat());
  EXPECT_EQ(R.W, 5u);
  EXPECT_EQ(R.Witness.at("r1"), "4");
  EXPECT_EQ(R.Witness.at("W"), "5");
  EXPECT_FALSE(R.Approx);
  Outcome U = A.solve(A.agentRange(1) && A.rank(1) == 9, {});
  EXPECT_EQ(U.K, Outcome::Unsat);
}

// Outcome::Approx is the flag of the formula and of the witness terms, and
// nothing else: an approximate query asked before does not mark the next.
TEST(EngineSolve, ApproximationComesFromTheQueryAlone) {
  KB K;
  K.launch(4, 256);
  Fixture F(K);
  Analysis &A = *F;
  Encoded Opaque = A.toInt(Expr::opaque("f(t)"), 1);
  Outcome R1 = A.solve(A.agentRange(1) && Opaque == A.rank(1), {});
  ASSERT_TRUE(R1.sat());
  EXPECT_TRUE(R1.Approx);
  Outcome R2 = A.solve(A.agentRange(1) && A.rank(1) == 1, {});
  ASSERT_TRUE(R2.sat());
  EXPECT_FALSE(R2.Approx);
  WitnessSpec Wit = A.agentWitness({1});
  Wit.push_back({"v", Opaque});
  Outcome R3 = A.solve(A.agentRange(1) && A.rank(1) == 1, Wit);
  EXPECT_TRUE(R3.Approx);
  // An unsatisfiable approximate query keeps its flag too (callers that
  // treat "approximate" as "may" rely on it).
  Outcome R4 = A.solve(A.agentRange(1) && Opaque == 1 && A.rank(1) == 9, {});
  EXPECT_FALSE(R4.sat());
  EXPECT_TRUE(R4.Approx);
}

TEST(EngineSolve, RepeatedQueriesHitTheCache) {
  KB K;
  K.launch(4, 256);
  Fixture F(K);
  Analysis &A = *F;
  z3::expr Q = A.agentRange(1) && A.rank(1) == 9;
  A.solve(Q, {});
  unsigned Queries = A.Queries, Spent = unsigned(A.Spent);
  EXPECT_EQ(A.CacheHits, 0u);
  A.solve(Q, {});
  EXPECT_GT(A.CacheHits, 0u);
  EXPECT_EQ(unsigned(A.Spent), Spent);
  EXPECT_GE(A.Queries, Queries);
}

TEST(EngineSolve, ExhaustedBudgetIsUnknown) {
  KB K;
  K.launch(4, 256);
  Fixture F(K);
  Analysis &A = *F;
  A.KernelBudget = 0;
  Outcome R = A.solve(A.agentRange(1) && A.rank(1) == 1, {});
  EXPECT_TRUE(R.unknown());
  EXPECT_TRUE(A.BudgetHit);
}

TEST(EngineSolve, QueryOnlyWeakerWithWIsDecidedOnceAtTheLargest) {
  KB K;
  K.launch(4, 256);
  Fixture F(K);
  Analysis &A = *F;
  // rank < W only relaxes as W grows: one query at W = 8 decides all.
  Outcome U = A.solve(A.agentRange(1) && A.rank(1) == 9, {});
  EXPECT_EQ(U.K, Outcome::Unsat);
  EXPECT_EQ(A.MonotoneDecided, 1u);
  EXPECT_EQ(A.Queries, 1u);
  // Satisfiable there: still the smallest W.
  Outcome S = A.solve(A.agentRange(1) && A.rank(1) == 6, A.agentWitness({1}));
  ASSERT_TRUE(S.sat());
  EXPECT_EQ(S.W, 7u);
  EXPECT_EQ(A.MonotoneDecided, 1u);
}

TEST(EngineSolve, GuardedLaunchIsSolvedPerWorldSize) {
  // The launch runs only where world_size == 4: the query (weaker for
  // larger W on its own) is false at W = 8 but holds at W = 4.
  KB K;
  K.launch(4, 256);
  K.K.Launches.back().Guard = eq(W(), c(4));
  Fixture F(K);
  Analysis &A = *F;
  Outcome R = A.solve(A.agentRange(1) && A.rank(1) == 3, A.agentWitness({1}));
  ASSERT_TRUE(R.sat());
  EXPECT_EQ(R.W, 4u);
  EXPECT_EQ(A.MonotoneDecided, 0u);
}

TEST(EngineSolve, QueryWithWInAnEqualityIsSolvedPerWorldSize) {
  KB K;
  K.launch(4, 256);
  Fixture F(K);
  Analysis &A = *F;
  // rank == W - 1 is not weaker for larger W: every W is asked.
  z3::expr W = A.var("world_size", 0);
  Outcome U =
      A.solve(A.agentRange(1) && A.rank(1) == W - 1 && A.rank(1) == 20, {});
  EXPECT_EQ(U.K, Outcome::Unsat);
  EXPECT_EQ(A.MonotoneDecided, 0u);
  EXPECT_EQ(A.Queries, 7u);
  // A chunk ceil(n / W) is not either.
  z3::expr N = A.var("param:n", 0);
  A.solve(A.agentRange(1) && A.rank(1) * ((N + W - 1) / W) == -1, {});
  EXPECT_EQ(A.MonotoneDecided, 0u);
}

TEST(EngineSolve, RankTimesChunkIsDecidedWithoutPerCaseQueries) {
  KB K;
  K.launch(4, 256);
  Fixture F(K);
  Analysis &A = *F;
  // Two ranks' chunks [r * C, r * C + C) never overlap: non-linear in r
  // and C, linear once r * C is an if-then-else chain over r in [0, W).
  z3::expr W = A.var("world_size", 0);
  z3::expr C = (A.var("param:n", 0) + W - 1) / W;
  z3::expr J1 = A.var("j", 1), J2 = A.var("j", 2);
  z3::expr Q = A.agentRange(1) && A.agentRange(2) && !A.sameRank(1, 2) &&
               J1 >= 0 && J1 < C && J2 >= 0 && J2 < C &&
               A.rank(1) * C + J1 == A.rank(2) * C + J2;
  Outcome R = A.solve(Q, {});
  EXPECT_EQ(R.K, Outcome::Unsat);
  // At most two solver calls per world size (the chain query, and the
  // cheap attempt only if the chain left it open), never one per rank pair
  // (4 + 9 + ... + 64 = 203).
  EXPECT_LE(A.Queries, 14u);
  // One element too many per chunk: the neighbours overlap, at W = 2.
  z3::expr Q2 = A.agentRange(1) && A.agentRange(2) && !A.sameRank(1, 2) &&
                J1 >= 0 && J1 <= C && J2 >= 0 && J2 <= C &&
                A.var("param:n", 0) > 0 &&
                A.rank(1) * C + J1 == A.rank(2) * C + J2;
  Outcome S = A.solve(Q2, A.agentWitness({1, 2}));
  ASSERT_TRUE(S.sat());
  EXPECT_EQ(S.W, 2u);
  EXPECT_NE(S.Witness.at("r1"), S.Witness.at("r2"));
}

// Rows of H + 2 values per routing slot k of token t, but the row index
// forgets k (part002_03_pkb.py): two slots of one token write one row. The
// query is non-linear in three sizes that no launch binds; with them all
// set to 2 it is linear and satisfiable, so the probe answers it with the
// SMT core before any full-limit attempt.
TEST(EngineSolve, ProductOfUnboundSizesIsProbedWithSmallValues) {
  KB K;
  K.launch(4, 256);
  Fixture F(K);
  Analysis &A = *F;
  // C semantics (truncating / and %), as the kernel model encodes them.
  auto V = [](const char *N) { return Expr::var(N); };
  auto Bin = [](ExprOp Op, ExprRef X, ExprRef Y) {
    return Expr::binary(Op, std::move(X), std::move(Y));
  };
  ExprRef Len = Bin(ExprOp::Add, V("param:H"), Expr::constant(2));
  ExprRef E = V("local:e@30");
  ExprRef Tok = Bin(ExprOp::Div, Bin(ExprOp::Div, E, Len), V("param:K"));
  ExprRef Row =
      Bin(ExprOp::Add,
          Bin(ExprOp::Mul,
              Bin(ExprOp::Add, Bin(ExprOp::Mul, V("rank"), V("param:T")), Tok),
              Len),
          Bin(ExprOp::Rem, E, Len));
  ExprRef Total =
      Bin(ExprOp::Mul, Bin(ExprOp::Mul, V("param:T"), V("param:K")), Len);
  z3::expr E1 = A.toInt(E, 1).Term, E2 = A.toInt(E, 2).Term;
  z3::expr Q = A.agentRange(1) && A.agentRange(2) && A.sameRank(1, 2) &&
               E1 >= 0 && E2 >= 0 && E1 < A.toInt(Total, 1).Term &&
               E2 < A.toInt(Total, 2).Term && E1 != E2 &&
               A.toInt(Row, 1).Term == A.toInt(Row, 2).Term;
  Outcome R = A.solve(Q, A.agentWitness({1, 2}));
  ASSERT_TRUE(R.sat());
  EXPECT_EQ(R.W, 2u);
  // Far less than one full query limit: no full-limit attempt ran.
  EXPECT_LT(A.Spent, A.queryLimit() / 4);
}

TEST(EngineSolve, SharedContextGivesEachCheckerItsOwnBudget) {
  KB K;
  K.launch(4, 256);
  ModuleModel M = K.module();
  CheckOptions O;
  O.Contexts = makeCheckContexts();
  std::optional<Analysis> L1, L2;
  Analysis &A = checkContext(M, M.Kernels[0], O, L1);
  EXPECT_FALSE(L1.has_value());
  A.solve(A.agentRange(1) && A.rank(1) == 9, {});
  A.Spent = A.KernelBudget;
  Analysis &B = checkContext(M, M.Kernels[0], O, L2);
  EXPECT_EQ(&A, &B); // one analysis per kernel
  EXPECT_EQ(B.Spent, 0u);
  EXPECT_FALSE(B.BudgetHit);
  // The cache survives: the same query costs nothing now.
  B.solve(B.agentRange(1) && B.rank(1) == 9, {});
  EXPECT_EQ(B.Spent, 0u);
  EXPECT_GT(B.CacheHits, 0u);
  // Without shared contexts each caller gets a fresh analysis.
  CheckOptions O2;
  std::optional<Analysis> L3;
  Analysis &C = checkContext(M, M.Kernels[0], O2, L3);
  EXPECT_TRUE(L3.has_value());
  EXPECT_NE(&C, &A);
}

TEST(EngineSolve, QueryCutByTheBudgetIsNotCachedForTheNextChecker) {
  KB K;
  K.launch(4, 256);
  ModuleModel M = K.module();
  CheckOptions O;
  O.Contexts = makeCheckContexts();
  std::optional<Analysis> L1, L2;
  Analysis &A = checkContext(M, M.Kernels[0], O, L1);
  // Leave one unit: the query is clipped and left undecided.
  A.Spent = A.KernelBudget - 1;
  z3::expr Q = A.agentRange(1) && A.agentRange(2) &&
               A.rank(1) * A.var("param:n", 0) == A.rank(2) + 12345;
  Outcome R = A.solve(Q, {}, {8});
  EXPECT_TRUE(R.unknown());
  EXPECT_TRUE(A.BudgetHit);
  Analysis &B = checkContext(M, M.Kernels[0], O, L2);
  Outcome R2 = B.solve(Q, {}, {8});
  EXPECT_FALSE(R2.unknown());
  EXPECT_EQ(B.CacheHits, 0u);
}

TEST(EngineSolve, UndecidedQueriesDegradeTheLimitOfTheWholeFile) {
  KB K;
  K.launch(4, 256);
  ModuleModel M = K.module();
  M.Kernels.push_back(M.Kernels[0]);
  M.Kernels[1].Name = "other";
  CheckOptions O;
  O.SolverTimeoutMs = 1; // 2500 units: factoring below is out of reach
  O.Contexts = makeCheckContexts();
  std::optional<Analysis> L1, L2, L3;
  Analysis &A = checkContext(M, M.Kernels[0], O, L1);
  const uint64_t Full = A.queryLimit();
  auto Hard = [&](Analysis &An, int64_t Odd) {
    z3::expr X = An.var("param:a", 0), Y = An.var("param:b", 0);
    return An.agentRange(1) && X > 1 && Y > 1 &&
           X * Y == An.Z.int_val(int64_t(1000003) * 999983 + 2 * Odd);
  };
  for (int64_t I = 0; I < int64_t(Analysis::DegradeAfter); ++I) {
    EXPECT_EQ(A.queryLimit(), Full);
    EXPECT_TRUE(A.solve(Hard(A, I), {}, {2}).unknown());
  }
  EXPECT_EQ(*A.LimitHits, Analysis::DegradeAfter);
  EXPECT_EQ(A.queryLimit(), Full / Analysis::DegradeFactor);
  // Another kernel of the same file shares the count; its unknowns say so.
  Analysis &B = checkContext(M, M.Kernels[1], O, L2);
  EXPECT_NE(&A, &B);
  EXPECT_EQ(B.queryLimit(), Full / Analysis::DegradeFactor);
  Outcome R = B.solve(Hard(B, 7), {}, {2});
  EXPECT_TRUE(R.unknown());
  EXPECT_NE(R.Reason.find("an earlier query of this file"), std::string::npos)
      << R.Reason;
  // A decided query is still decided, and another file starts afresh.
  EXPECT_TRUE(B.solve(B.agentRange(1) && B.rank(1) == 9, {}, {2}).K ==
              Outcome::Unsat);
  CheckOptions O2 = O;
  O2.Contexts = makeCheckContexts();
  Analysis &C = checkContext(M, M.Kernels[0], O2, L3);
  EXPECT_EQ(C.queryLimit(), Full);
}

TEST(EngineSolve, ChunkIndexTimesChunkBecomesALinearChain) {
  KB K;
  K.launch(4, 256);
  Fixture F(K);
  Analysis &A = *F;
  // The chunk of a ring step at W = 4: ((r - s - 1 + 8) % 4) * n, with r
  // in [0, 4) and s in [0, 3).
  z3::expr R = A.rank(1), S = A.var("loop:1", 1), N = A.var("param:n", 0);
  z3::expr P = z3::mod(R - S - 1 + 8, A.Z.int_val(4)) * N;
  std::vector<Analysis::SplitVar> Split = {{R, 0, 4}, {S, 0, 3}};
  z3::expr G = iteProducts(P, Split);
  ASSERT_TRUE(hasOp(P, Z3_OP_MUL));
  EXPECT_FALSE(hasOp(G, Z3_OP_MUL));
  // One leaf per value of the factor (4), not per (r, s) pair (12).
  unsigned Ites = 0;
  for (z3::expr E = G; E.is_app() && E.decl().decl_kind() == Z3_OP_ITE;
       E = E.arg(2))
    ++Ites;
  EXPECT_EQ(Ites, 3u);
  // The same value for every r and s in range.
  for (int Rv = 0; Rv < 4; ++Rv)
    for (int Sv = 0; Sv < 3; ++Sv) {
      z3::expr_vector From(A.Z), To(A.Z);
      From.push_back(R);
      From.push_back(S);
      To.push_back(A.Z.int_val(Rv));
      To.push_back(A.Z.int_val(Sv));
      z3::expr Diff =
          z3::expr(G).substitute(From, To) != z3::expr(P).substitute(From, To);
      EXPECT_EQ(check(A, Diff), z3::unsat) << Rv << " " << Sv;
    }
  // A factor that mentions another variable stays a product.
  z3::expr Q = (R + N) * N;
  EXPECT_TRUE(z3::eq(iteProducts(Q, Split), Q));
  // With a FactorValueCache: the same chain, the factor's values computed
  // once per split-variable ranges and then read back.
  FactorValueCache Values;
  EXPECT_TRUE(z3::eq(iteProducts(P, Split, &Values), G));
  z3::expr P2 = P + 1;
  EXPECT_TRUE(z3::eq(iteProducts(P2, Split, &Values), iteProducts(P2, Split)));
  size_t Entries = 0;
  for (const auto &[Id, Bucket] : Values.ByFactor)
    Entries += Bucket.size();
  EXPECT_EQ(Entries, 1u);
  ASSERT_TRUE(
      Values.ByFactor.count(z3::mod(R - S - 1 + 8, A.Z.int_val(4)).id()));
  const FactorValueCache::Entry &E =
      Values.ByFactor.at(z3::mod(R - S - 1 + 8, A.Z.int_val(4)).id()).front();
  ASSERT_TRUE(E.Values);
  EXPECT_EQ(*E.Values, (std::set<int64_t>{0, 1, 2, 3}));
  // Other ranges are another entry (s in [0, 2) leaves the same 4 values
  // here, but they are not assumed).
  std::vector<Analysis::SplitVar> Narrow = {{R, 0, 4}, {S, 0, 2}};
  const unsigned Factor = E.Factor.id(); // E moves when the bucket grows
  iteProducts(P, Narrow, &Values);
  EXPECT_EQ(Values.ByFactor.at(Factor).size(), 2u);
}

TEST(EngineSolve, LoopBoundedByWMinusOneHasASmallRange) {
  KB K;
  K.launch(4, 256);
  unsigned L = K.beginLoop(c(0), W() - c(1), c(1), "s");
  K.endLoop();
  Fixture F(K);
  Analysis &A = *F;
  EXPECT_EQ(A.valueAtW(W() * c(2) - c(1), 5), std::optional<int64_t>(9));
  EXPECT_EQ(A.valueAtW(v("param:n") + c(1), 5), std::nullopt);
  std::string S = "loop:" + std::to_string(L) + "#1";
  using Rg = std::optional<std::pair<int64_t, int64_t>>;
  EXPECT_EQ(A.smallRange(S, 5, /*AnyBound=*/true), Rg({0, 4}));
  // The case split of step 4 keeps its bounds (W or a constant).
  EXPECT_EQ(A.smallRange(S, 5, /*AnyBound=*/false), std::nullopt);
  EXPECT_EQ(A.smallRange("rank#2", 5, false), Rg({0, 5}));
  // Every variable inside a product's factor is a chain variable.
  z3::expr Sv = A.var("loop:" + std::to_string(L), 1);
  z3::expr FC =
      z3::mod(A.rank(1) - Sv + 5, A.Z.int_val(5)) * A.var("param:n", 0) ==
      A.var("x", 1);
  std::vector<Analysis::SplitVar> Ch = A.chainVars(FC, 5);
  ASSERT_EQ(Ch.size(), 2u);
  std::set<std::string> Names;
  for (const Analysis::SplitVar &V : Ch)
    Names.insert(V.V.to_string());
  EXPECT_EQ(Names, (std::set<std::string>{"|" + S + "|", "|rank#1|"}));
}

TEST(EngineSolve, BoundedBlockIndexIsAChainVariableOnlyWhenAsked) {
  KB K;
  K.launch(4, 256);
  Fixture F(K);
  Analysis &A = *F;
  // A block's chunk `bid.x * per` with per = ceil(n / 4): the block index
  // has no name-based range, but the query bounds it to [0, 4).
  z3::expr B = A.var("bid.x", 1), N = A.var("param:n", 0);
  z3::expr FC = B >= 0 && B < 4 && B * ((N + 3) / 4) == A.var("x", 1);
  EXPECT_TRUE(A.chainVars(FC, 2).empty());
  std::vector<Analysis::SplitVar> Ch = A.chainVars(FC, 2, /*Bounded=*/true);
  ASSERT_EQ(Ch.size(), 1u);
  EXPECT_TRUE(z3::eq(Ch[0].V, B));
  EXPECT_EQ(Ch[0].Lo, 0);
  EXPECT_EQ(Ch[0].Hi, 4);
  // The chain leaves the query linear and keeps its value in range.
  EXPECT_TRUE(hasOp(FC, Z3_OP_MUL));
  EXPECT_FALSE(hasOp(iteProducts(FC, Ch), Z3_OP_MUL));
  EXPECT_EQ(check(A, FC != iteProducts(FC, Ch)), z3::unsat);
  // A bound under a disjunction, or a range of more than 16 values, is not
  // one.
  z3::expr Wide = B >= 0 && B < 17 && B * N == A.var("x", 1);
  EXPECT_TRUE(A.chainVars(Wide, 2, true).empty());
  z3::expr Or = (B < 4 || N == 0) && B >= 0 && B * N == A.var("x", 1);
  EXPECT_TRUE(A.chainVars(Or, 2, true).empty());
}

TEST(EngineSolve, RingScheduleChunksAreDecided) {
  KB K;
  K.launch(4, 256);
  unsigned L = K.beginLoop(c(0), W() - c(1), c(1), "s");
  K.endLoop();
  Fixture F(K);
  Analysis &A = *F;
  // Rank r sends chunk (r - s - 1 + 2W) % W of C = ceil(n / W) elements
  // in step s: at one step, two ranks never send the same chunk.
  z3::expr Wv = A.var("world_size", 0), N = A.var("param:n", 0);
  z3::expr C = (N + Wv - 1) / Wv;
  auto Step = [&](int Ag) { return A.var("loop:" + std::to_string(L), Ag); };
  auto Elem = [&](int Ag) {
    z3::expr J = A.var("j", Ag);
    return z3::mod(A.rank(Ag) - Step(Ag) - 1 + 2 * Wv, Wv) * C + J;
  };
  z3::expr Base = A.agentRange(1) && A.agentRange(2) && !A.sameRank(1, 2) &&
                  N > 0 && Elem(1) == Elem(2);
  for (int Ag = 1; Ag <= 2; ++Ag)
    Base = Base && Step(Ag) >= 0 && Step(Ag) < Wv - 1 && A.var("j", Ag) >= 0 &&
           A.var("j", Ag) < C;
  Outcome U = A.solve(Base && Step(1) == Step(2), {});
  EXPECT_EQ(U.K, Outcome::Unsat);
  // In different steps they do, from W = 3 on (W = 2 has one step).
  Outcome S = A.solve(Base, A.agentWitness({1, 2}));
  ASSERT_TRUE(S.sat());
  EXPECT_EQ(S.W, 3u);
}

} // namespace

TEST(EngineSolve, SolverErrorIsANoteWithItsCode) {
  // Engine.cpp and BAR-004's device pass both report solver errors this way.
  KernelModel K;
  K.Name = "k";
  K.Loc.Line = 7;
  Diagnostic D = solverErrorNote("BAR-004", K, z3::exception("boom"));
  EXPECT_EQ(D.Code, "solver-unknown");
  EXPECT_EQ(D.Sev, Severity::Note);
  EXPECT_EQ(D.Loc.Line, 7u);
  EXPECT_EQ(D.Message, "BAR-004: solver error in kernel 'k': boom");
}

namespace {

/// The first value of every row of an enumeration.
std::set<int64_t> firstColumn(const std::vector<std::vector<int64_t>> &Rows) {
  std::set<int64_t> Got;
  for (const auto &R : Rows)
    Got.insert(R.at(0));
  return Got;
}

// Analysis::enumerate lists every solution when there are at most Cap,
// says "incomplete" when there are more, and returns one row for an empty
// variable list (satisfiability only).
TEST(EngineSolve, EnumerateIsCompleteOnlyBelowTheCap) {
  KB K;
  K.launch(4, 256);
  Fixture F(K);
  Analysis &A = *F;
  const LaunchDims &L = A.launches().front();
  z3::expr X = A.rank(1);
  Encoded Q = A.agentRange(1) && X < 3;
  bool Complete = false;
  EXPECT_EQ(firstColumn(A.enumerate(Q, {X}, 8, L, 5, Complete)),
            (std::set<int64_t>{0, 1, 2}));
  EXPECT_TRUE(Complete);
  auto Capped = A.enumerate(Q, {X}, 8, L, 2, Complete);
  EXPECT_FALSE(Complete);
  EXPECT_EQ(Capped.size(), 2u);
  auto One = A.enumerate(Q, {}, 8, L, 5, Complete);
  EXPECT_TRUE(Complete);
  EXPECT_EQ(One.size(), 1u);
  auto None = A.enumerate(Q && X > 5, {X}, 8, L, 5, Complete);
  EXPECT_TRUE(Complete);
  EXPECT_TRUE(None.empty());
}

// Analysis::enumerateAcross lists the union of the rows of every configured
// world size: a thread t < W of a signal runs for t in [0, 8) over W = 2..8,
// and a guard that holds at one W only keeps that W's rows.
TEST(EngineSolve, EnumerateAcrossIsTheUnionOverWorldSizes) {
  KB K;
  K.launch(4, 256);
  Fixture F(K);
  Analysis &A = *F;
  const LaunchDims &L = A.launches().front();
  z3::expr T = A.var("tid.x", 1), Wv = A.var("world_size", 0);
  Encoded Q = A.agentRange(1) && T < Wv;
  bool Complete = false;
  std::set<int64_t> Got =
      firstColumn(A.enumerateAcross(Q, {T}, L, 16, Complete));
  EXPECT_TRUE(Complete);
  EXPECT_EQ(Got, (std::set<int64_t>{0, 1, 2, 3, 4, 5, 6, 7}));
  // Each W's own rows are a subset.
  for (unsigned W = 2; W <= 8; ++W)
    for (int64_t T0 : firstColumn(A.enumerate(Q, {T}, W, L, 16, Complete)))
      EXPECT_TRUE(Got.count(T0)) << W;
  // Only W = 4 has T == W - 1 == 3 with T * T == 9.
  auto Four =
      A.enumerateAcross(Q && T == Wv - 1 && T * T == 9, {T}, L, 16, Complete);
  EXPECT_TRUE(Complete);
  ASSERT_EQ(Four.size(), 1u);
  EXPECT_EQ(Four[0].at(0), 3);
  auto Capped = A.enumerateAcross(Q, {T}, L, 4, Complete);
  EXPECT_FALSE(Complete);
}

// fullSolver() picks a strategy by the goal's logic and decides each kind:
// QF_LIA (preamble + SMT core), QF_NIA (bit-blasting, SMT core, nlsat with
// conflict limits instead of Z3's wall-clock try_for) and quantified goals
// (Z3's default solver); the same nonlinear query spends the same resource
// units in two fresh contexts.
TEST(EngineSolve, FullSolverDecidesEachLogicReproducibly) {
  auto Units = [] {
    KB K;
    K.launch(1, 32);
    Fixture F(K);
    Analysis &A = *F;
    z3::expr X = A.Z.int_const("x"), Y = A.Z.int_const("y");
    auto Check = [&](const z3::expr &Q) {
      z3::solver S = A.fullSolver(Q);
      z3::params P(A.Z);
      P.set("rlimit", 5000000u);
      S.set(P);
      S.add(Q);
      return S.check();
    };
    EXPECT_EQ(Check(X + 2 * Y == 7 && X > 0 && Y > 0), z3::sat);
    EXPECT_EQ(Check(2 * X + 4 * Y == 7), z3::unsat);
    EXPECT_EQ(Check(X * Y == 91 && X > 1 && Y > 1), z3::sat);
    EXPECT_EQ(Check(X * Y == 91 && X > 1 && Y > 1 && X < 7), z3::unsat);
    EXPECT_EQ(Check(z3::forall(Y, X <= Y * Y)), z3::sat);
    z3::solver S = A.fullSolver(X * Y == 91);
    S.add(X * Y * Y == 1001 && X > 1 && Y > 1);
    S.check();
    std::string Count;
    z3::stats St = S.statistics();
    for (unsigned I = 0; I < St.size(); ++I)
      if (St.key(I) == "rlimit count")
        Count = std::to_string(St.uint_value(I));
    return Count;
  };
  std::string First = Units();
  EXPECT_FALSE(First.empty());
  EXPECT_EQ(Units(), First);
}

} // namespace
