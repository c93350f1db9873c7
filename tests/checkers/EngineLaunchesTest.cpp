//===- EngineLaunchesTest.cpp - Launch configurations ---------------------===//
//
// Unit tests of checkers/EngineLaunches.cpp: constant launch sites, the
// representative set, concretization of W and the launch dimensions, and
// launch-site specialization (parameter bindings per distinct launch).
//
//===----------------------------------------------------------------------===//
#include "EngineTestUtil.h"

using namespace pkb;
using namespace pkb::chk;
using namespace pkb::dsl;
using namespace pkb::cktest;

namespace {

TEST(EngineLaunches, ConstantSite) {
  KB K;
  K.launch(8, 128);
  Fixture F(K);
  const auto &Ls = F->launches();
  ASSERT_EQ(Ls.size(), 1u);
  EXPECT_TRUE(Ls[0].FromSite);
  EXPECT_EQ(Ls[0].G[0], 8);
  EXPECT_EQ(Ls[0].B[0], 128);
}

TEST(EngineLaunches, RepresentativeSetWithoutConstantSite) {
  KB K;
  LaunchSite L;
  L.Kernel = K.K.Name;
  L.GridX = v("param:n");
  L.BlockX = v("param:m");
  K.K.Launches.push_back(L);
  Fixture F(K);
  const auto &Ls = F->launches();
  ASSERT_EQ(Ls.size(), 2u);
  EXPECT_FALSE(Ls[0].FromSite);
  EXPECT_EQ(Ls[0].B[0], 256);
  EXPECT_EQ(Ls[0].G[0], 4);
  EXPECT_EQ(Ls[1].B[0], 128);
  EXPECT_EQ(Ls[1].G[0], 3);
}

TEST(EngineLaunches, UnsizedSiteKeepsTheDimensionsThatFold) {
  // `<<<Blocks, 512>>>`: the block size folds, the grid does not. Both
  // representative launches keep the 512 threads (threads 256..511 run
  // the second warp group of a warp-specialized kernel); only the grid
  // is representative. A block of more than 1024 threads is not kept.
  auto Launches = [](ExprRef Block) {
    KB K;
    LaunchSite L;
    L.Kernel = K.K.Name;
    L.GridX = v("param:n");
    L.BlockX = Block;
    K.K.Launches.push_back(L);
    Fixture F(K);
    return F->launches();
  };
  auto Ls = Launches(c(512));
  ASSERT_EQ(Ls.size(), 2u);
  EXPECT_EQ(Ls[0].B[0], 512);
  EXPECT_EQ(Ls[0].G[0], 4);
  EXPECT_EQ(Ls[1].B[0], 512);
  EXPECT_EQ(Ls[1].G[0], 3);
  auto Big = Launches(c(2048));
  ASSERT_EQ(Big.size(), 2u);
  EXPECT_EQ(Big[0].B[0], 256);
  EXPECT_EQ(Big[1].B[0], 128);
}

TEST(EngineLaunches, Concretize) {
  KB K;
  Fixture F(K);
  Analysis &A = *F;
  LaunchDims L;
  z3::expr X = A.var("world_size", 0) * A.var("bdim.x", 0);
  EXPECT_EQ(check(A, A.concretize(X == 3 * 256, 3, L)), z3::sat);
  EXPECT_EQ(check(A, A.concretize(X == 4 * 256, 3, L)), z3::unsat);
}

/// Number of `x == k` atoms in \p E with x the variable \p X.
unsigned equalitiesOf(const z3::expr &E, const z3::expr &X) {
  if (!E.is_app())
    return 0;
  unsigned N = 0;
  if (E.decl().decl_kind() == Z3_OP_EQ && E.num_args() == 2 &&
      (z3::eq(E.arg(0), X) || z3::eq(E.arg(1), X)))
    ++N;
  for (unsigned I = 0; I < E.num_args(); ++I)
    N += equalitiesOf(E.arg(I), X);
  return N;
}

TEST(EngineLaunches, PruneByBoundsKeepsTheCasesInRange) {
  KB K;
  Fixture F(K);
  Analysis &A = *F;
  z3::expr R = A.rank(1), T = A.var("tid.x", 1), M = A.var("param:m", 0);
  // `1 << rank` as the encoder writes a variable shift: 62 cases.
  z3::expr Shl = A.Z.int_val(0);
  for (int64_t K2 = 61; K2 >= 0; --K2)
    Shl = z3::ite(R == A.Z.int_val(K2), A.Z.int_val(int64_t(1) << K2), Shl);
  z3::expr G = R >= 0 && !(R >= 4) && T < 8 && 2 <= T && M == Shl + T;
  z3::expr P = pruneByBounds(G);
  EXPECT_EQ(equalitiesOf(G, R), 62u);
  EXPECT_LE(equalitiesOf(P, R), 4u);
  // The same models: G and P agree on every assignment, also outside the
  // bounds (there both are false), so P may stand under a negation.
  EXPECT_EQ(check(A, G != P), z3::unsat);
  EXPECT_EQ(check(A, P && M == 8 + 3), z3::sat);
  EXPECT_EQ(check(A, P && M == 16 + 3), z3::unsat);
}

TEST(EngineLaunches, TopLevelBoundsReadsEveryComparisonForm) {
  KB K;
  Fixture F(K);
  Analysis &A = *F;
  z3::expr X = A.var("param:x", 0), Y = A.var("param:y", 0),
           Z = A.var("param:z", 0);
  auto Bs = topLevelBounds(X >= 2 && !(X >= 8) && 3 <= Y && Y < 5 && Z == 7 &&
                           (X < 3 || Y < 4));
  using P = std::pair<int64_t, int64_t>;
  EXPECT_EQ(Bs.at(X.id()), P(2, 7));
  EXPECT_EQ(Bs.at(Y.id()), P(3, 4));
  EXPECT_EQ(Bs.at(Z.id()), P(7, 7));
}

TEST(EngineLaunches, PruneByBoundsOnlyUsesTopLevelConjuncts) {
  KB K;
  Fixture F(K);
  Analysis &A = *F;
  z3::expr X = A.var("param:x", 0), Y = A.var("param:y", 0);
  // A bound under a disjunction bounds nothing: the formula stays as it is.
  z3::expr D = (X < 4 || Y == 1) && z3::ite(X == 9, Y == 2, Y == 3);
  EXPECT_TRUE(z3::eq(pruneByBounds(D), D));
  // Contradictory bounds: false.
  EXPECT_TRUE(pruneByBounds(X > 5 && X <= 5 && Y == 1).is_false());
  // The bound facts themselves are kept: x == 9 is in [9, 9].
  z3::expr E = X == 9 && Y == z3::ite(X == 9, A.Z.int_val(1), A.Z.int_val(2));
  EXPECT_EQ(check(A, pruneByBounds(E) != E), z3::unsat);
  EXPECT_EQ(check(A, pruneByBounds(E) && Y == 2), z3::unsat);
}

TEST(EngineLaunches, ValueRangeOverTheAgentsOfALaunch) {
  KB K;
  K.launch(8, 128);
  Fixture F(K);
  Analysis &A = *F;
  LaunchDims L = F->launches().at(0);
  L.Bind["param:slot"] = 5;
  using P = std::pair<int64_t, int64_t>;
  auto Rg = [&](const ExprRef &E, unsigned W) { return A.valueRange(E, W, L); };
  EXPECT_EQ(Rg((c(1024) + bid() * c(8)) + tid(), 4), P(1024, 1024 + 56 + 127));
  EXPECT_EQ(Rg(rank() * c(2) - c(1), 4), P(-1, 5));
  EXPECT_EQ(Rg(gtid() % c(32), 8), P(0, 31));
  EXPECT_EQ(Rg(v("param:slot") + W(), 8), P(13, 13));
  // Unbound parameters, loop variables and other operators: unknown.
  EXPECT_EQ(Rg(v("param:n") + tid(), 4), std::nullopt);
  EXPECT_EQ(Rg(tid() / c(2), 4), std::nullopt);
  EXPECT_EQ(Rg(c(int64_t(1) << 41), 4), std::nullopt);
}

TEST(EngineLaunches, PruneByBoundsExpandsBitTermsOfOneBoundedVariable) {
  KB K;
  Fixture F(K);
  Analysis &A = *F;
  z3::expr R = A.rank(1), Q = A.rank(2), M = A.var("param:m", 0);
  auto Xor = [&](const z3::expr &X, const z3::expr &Y) {
    return z3::bv2int(z3::int2bv(64, X) ^ z3::int2bv(64, Y), true);
  };
  // The butterfly partner `rank ^ 1` as the encoder writes it.
  z3::expr G = R >= 0 && R < 8 && M == Xor(R, A.Z.int_val(1));
  z3::expr P = pruneByBounds(G);
  EXPECT_TRUE(hasOp(G, Z3_OP_INT2BV));
  EXPECT_FALSE(hasOp(P, Z3_OP_INT2BV));
  EXPECT_EQ(check(A, G != P), z3::unsat);
  EXPECT_EQ(check(A, P && R == 2 && M == 3), z3::sat);
  EXPECT_EQ(check(A, P && R == 2 && M == 1), z3::unsat);
  // Two variables, or one without small bounds: left to the solver.
  z3::expr H = R >= 0 && R < 8 && Q >= 0 && Q < 8 && M == Xor(R, Q);
  EXPECT_TRUE(hasOp(pruneByBounds(H), Z3_OP_INT2BV));
  z3::expr U = R >= 0 && R < 100 && M == Xor(R, A.Z.int_val(1));
  EXPECT_TRUE(hasOp(pruneByBounds(U), Z3_OP_INT2BV));
}

TEST(EngineLaunches, SimplifyByBoundsDecidesComparisonsThroughDefinitions) {
  KB K;
  Fixture F(K);
  Analysis &A = *F;
  z3::expr B = A.var("bid.x", 1), T = A.var("tid.x", 1),
           It = A.var("iter:0", 1), I = A.var("loop:0", 1),
           Y = A.var("param:y", 0);
  // The sign case of C division as the encoder writes it: I >= 0 holds
  // because I is defined as a sum of non-negative terms.
  z3::expr G = B >= 0 && B < 4 && T >= 0 && T < 256 && It >= 0 &&
               I == 256 * B + T + 1024 * It &&
               Y == z3::ite(I >= 0, I, -I) +
                        z3::ite(I < -5, A.Z.int_val(1), A.Z.int_val(0));
  z3::expr S = simplifyByBounds(G);
  EXPECT_TRUE(hasOp(G, Z3_OP_ITE));
  EXPECT_FALSE(hasOp(S, Z3_OP_ITE));
  // The same value on every assignment.
  EXPECT_EQ(check(A, G != S), z3::unsat);
  // pruneByBounds() decides equalities only: the ites stay.
  EXPECT_TRUE(hasOp(pruneByBounds(G), Z3_OP_ITE));
}

TEST(EngineLaunches, BoundQuotientsMakesQuotientsBoundedVariables) {
  KB K;
  Fixture F(K);
  Analysis &A = *F;
  z3::expr I = A.var("loop:0", 1), N = A.var("param:n", 0),
           P = A.var("param:p", 0), O = A.var("param:o", 0);
  // A loop over W = 8 chunks of n elements: I / n is the chunk, I % n the
  // offset in it.
  z3::expr G = I >= 0 && !(8 * N <= I) &&
               P == z3::ite(N == 0, A.Z.int_val(0), I / N) &&
               O == z3::mod(I, N);
  std::vector<Analysis::SplitVar> Qs;
  z3::expr Q = boundQuotients(G, Qs);
  ASSERT_EQ(Qs.size(), 1u);
  EXPECT_EQ(Qs[0].Lo, 0);
  EXPECT_EQ(Qs[0].Hi, 8);
  EXPECT_FALSE(hasOp(Q, Z3_OP_IDIV));
  EXPECT_FALSE(hasOp(Q, Z3_OP_MOD));
  // With the chain over the quotient the query is linear.
  EXPECT_FALSE(hasOp(iteProducts(Q, Qs), Z3_OP_MUL));
  // The same satisfiability, also where G is unsatisfiable.
  for (const z3::expr &X : {P == 7 && O == 3, P == 8, O < 0 || O >= N}) {
    EXPECT_EQ(check(A, G && X), check(A, Q && X));
  }
  EXPECT_EQ(check(A, Q && P == 8), z3::unsat);
  // Without a bound x < c * y on the dividend nothing changes.
  std::vector<Analysis::SplitVar> None;
  z3::expr H = I >= 0 && P == I / N;
  EXPECT_TRUE(z3::eq(boundQuotients(H, None), simplifyByBounds(H)));
  EXPECT_TRUE(None.empty());
}

TEST(EngineLaunches, RelaxMinBoundsLeavesOutNonlinearMinimumArguments) {
  KB K;
  Fixture F(K);
  Analysis &A = *F;
  z3::expr J = A.var("loop:1", 1), N = A.var("param:n", 0),
           S = A.var("loop:0", 1), R = A.var("rank", 1);
  z3::expr Zero = A.Z.int_val(0);
  // A ring step's chunk: C = ceil(n / 8), chunk index c, and the clamp of
  // the last chunk `j < max(0, min(C, n - c * C))` (chunk_len of
  // c20_ring_allreduce_ptx.cu), written as the encoder writes min and max.
  z3::expr C = (N + 7) / 8, Cx = z3::mod(R - S - 1 + 16, A.Z.int_val(8));
  z3::expr X = N - Cx * C;
  z3::expr Min = z3::ite(C <= X, C, X);
  z3::expr Bound = z3::ite(Zero >= Min, Zero, Min);
  z3::expr G =
      J >= 0 && !(Bound <= J) && S >= 0 && S < 7 && R >= 0 && R < 8 && N >= 0;
  z3::expr Weak = relaxMinBounds(G);
  EXPECT_TRUE(hasOp(G, Z3_OP_MOD));
  // The non-linear argument n - c * C is gone; `j < C` stays.
  EXPECT_FALSE(hasOp(Weak, Z3_OP_MOD));
  EXPECT_EQ(check(A, Weak && !(J < C)), z3::unsat);
  // A weakening: every model of G is one of Weak, not the other way round.
  EXPECT_EQ(check(A, G && !Weak), z3::unsat);
  EXPECT_EQ(check(A, Weak && !G), z3::sat);
  // The same through a negated comparison and with the arguments swapped
  // (`not (j >= min(X, C))` with min written as ite(X < C, X, C)).
  z3::expr Min2 = z3::ite(X < C, X, C);
  EXPECT_FALSE(hasOp(relaxMinBounds(J >= 0 && !(J >= Min2)), Z3_OP_MOD));
  // A maximum is not weakened by leaving an argument out (max(a, b) >= a),
  // and a minimum of two linear or two non-linear arguments stays: the
  // same AST.
  z3::expr Max = z3::ite(C >= X, C, X);
  z3::expr H = J >= 0 && !(Max <= J) && !(z3::ite(J <= N, J, N) <= S);
  EXPECT_TRUE(z3::eq(relaxMinBounds(H), H));
  z3::expr Both = z3::ite(X <= Cx * N, X, Cx * N);
  z3::expr H2 = J < Both;
  EXPECT_TRUE(z3::eq(relaxMinBounds(H2), H2));
}

/// A launch of \p K with grid \p Grid (null: not constant), 64 threads
/// and the arguments slot = \p Slot, r = \p R.
LaunchSite siteOf(const KB &K, ExprRef Grid, ExprRef Slot, ExprRef R,
                  unsigned Line) {
  LaunchSite L;
  L.Kernel = K.K.Name;
  L.GridX = Grid ? Grid : v("param:n");
  L.BlockX = c(64);
  L.Args = {{"slot", Slot}, {"r", R}};
  L.Loc = {"test.cu", Line, 3};
  return L;
}

TEST(EngineLaunches, BindsConstantArgumentsPerDistinctLaunch) {
  KB K;
  K.param("slot", ParamRole::Scalar).param("r", ParamRole::Rank);
  K.K.Launches.push_back(siteOf(K, c(1), c(0), c(0), 50));
  K.K.Launches.push_back(siteOf(K, c(1), c(8), c(1), 51));
  // Same dimensions and binding as line 50 (the rank is no binding).
  K.K.Launches.push_back(siteOf(K, c(1), c(0), c(1), 52));
  K.K.Launches.push_back(siteOf(K, c(1), Expr::opaque("s"), c(0), 53));
  Fixture F(K);
  const auto &Ls = F->launches();
  ASSERT_EQ(Ls.size(), 3u);
  EXPECT_EQ(Ls[0].Bind, (std::map<std::string, int64_t>{{"param:slot", 0}}));
  EXPECT_EQ(Ls[0].Site->Loc.Line, 50u);
  EXPECT_EQ(Ls[1].Bind, (std::map<std::string, int64_t>{{"param:slot", 8}}));
  EXPECT_TRUE(Ls[2].Bind.empty()); // opaque argument: unbound
  EXPECT_EQ(Ls[2].Site->Loc.Line, 53u);
  // The binding replaces the parameter in concretized formulas.
  Analysis &A = *F;
  z3::expr X = A.var("param:slot", 0);
  EXPECT_EQ(check(A, A.concretize(X == 8, 2, Ls[0])), z3::unsat);
  EXPECT_EQ(check(A, A.concretize(X == 8, 2, Ls[1])), z3::sat);
  EXPECT_EQ(check(A, A.concretize(X == 8, 2, Ls[2])), z3::sat);
}

TEST(EngineLaunches, UnsizedSiteKeepsItsBindingOnRepresentativeDims) {
  KB K;
  K.param("slot", ParamRole::Scalar).param("r", ParamRole::Rank);
  K.K.Launches.push_back(siteOf(K, nullptr, c(16), c(0), 60));
  Fixture F(K);
  const auto &Ls = F->launches();
  ASSERT_EQ(Ls.size(), 2u);
  for (const LaunchDims &L : Ls) {
    EXPECT_FALSE(L.FromSite);
    EXPECT_EQ(L.Bind.at("param:slot"), 16);
    ASSERT_TRUE(L.Site);
    EXPECT_EQ(L.Site->Loc.Line, 60u);
  }
}

} // namespace
