//===- EngineSolveTest.cpp - Query solving, cache, budget -----------------===//
//
// Unit tests of checkers/EngineSolve.cpp: smallest failing world size and
// its witness, the query cache, and the per-kernel budget.
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
