//===- EngineEncodeTest.cpp - Expr to Z3 encoding -------------------------===//
//
// Unit tests of checkers/EngineEncode.cpp: per-agent variables, C division,
// execution conditions, byte ranges and address conflicts.
//
//===----------------------------------------------------------------------===//
#include "EngineTestUtil.h"

using namespace pkb;
using namespace pkb::chk;
using namespace pkb::dsl;
using namespace pkb::cktest;

namespace {

TEST(EngineEncode, AgentVariables) {
  KB K;
  Fixture F(K);
  EXPECT_EQ(F->var("tid.x", 1).decl().name().str(), "tid.x#1");
  EXPECT_EQ(F->var("world_size", 2).decl().name().str(), "world_size");
  EXPECT_FALSE(z3::eq(F->var("tid.x", 1), F->var("tid.x", 2)));
  EXPECT_EQ(F->agentVars(1).size(), 1u);
}

TEST(EngineEncode, TruncatingDivision) {
  KB K;
  Fixture F(K);
  // C division truncates towards zero: -7 / 2 == -3, -7 % 2 == -1.
  z3::expr Q = F->toInt(c(-7) / c(2), 0).simplify();
  z3::expr R = F->toInt(c(-7) % c(2), 0).simplify();
  EXPECT_EQ(Q.get_numeral_int64(), -3);
  EXPECT_EQ(R.get_numeral_int64(), -1);
  EXPECT_FALSE(F->Approx);
}

TEST(EngineEncode, OpaqueIsApproximate) {
  KB K;
  Fixture F(K);
  F->toInt(Expr::opaque("table[t]"), 1);
  EXPECT_TRUE(F->Approx);
}

TEST(EngineEncode, ExecAndConflict) {
  KB K;
  K.stdParams().launch(4, 256);
  K.when(eq(tid(), c(0)));
  K.store(11, addr("out", nullptr, bid()));
  K.end();
  Fixture F(K);
  Analysis &A = *F;
  // Two executing agents of one rank write the same element only from
  // blocks with the same x index.
  z3::expr Both = A.exec(0, 1) && A.exec(0, 2) && A.sameRank(1, 2) &&
                  A.conflict(0, 1, 0, 2);
  EXPECT_EQ(check(A, Both && A.var("bid.x", 1) != A.var("bid.x", 2)),
            z3::unsat);
  EXPECT_EQ(check(A, Both), z3::sat);
  // Thread 1 does not execute the store.
  EXPECT_EQ(check(A, A.exec(0, 1) && A.var("tid.x", 1) == 1), z3::unsat);
  Analysis::Range R = A.range(0, 1);
  EXPECT_EQ(check(A, A.exec(0, 1) && R.Hi - R.Lo != 4), z3::unsat);
}

} // namespace
