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
  Encoded Q = F->toInt(c(-7) / c(2), 0).simplify();
  Encoded R = F->toInt(c(-7) % c(2), 0).simplify();
  EXPECT_EQ(Q.Term.get_numeral_int64(), -3);
  EXPECT_EQ(R.Term.get_numeral_int64(), -1);
  EXPECT_FALSE(Q.Approx);
  EXPECT_FALSE(R.Approx);
}

TEST(EngineEncode, OpaqueIsApproximate) {
  KB K;
  Fixture F(K);
  EXPECT_TRUE(F->toInt(Expr::opaque("table[t]"), 1).Approx);
  EXPECT_TRUE(F->toInt(v("local:x@3") + c(1), 1).Approx);
  EXPECT_TRUE(F->toBool(lt(tid(), Expr::opaque("n()")), 1).Approx);
  EXPECT_FALSE(F->toInt(tid() + rank() * v("param:n"), 1).Approx);
}

// The flag travels with the term: operators combine it, and a later exact
// translation is exact whatever was translated before (no state to reset).
TEST(EngineEncode, FlagTravelsWithTheTerm) {
  KB K;
  K.stdParams().launch(4, 256);
  K.when(lt(tid(), Expr::opaque("limit()")));
  K.store(11, addr("out", nullptr, tid()));
  K.end();
  K.store(12, addr("out", nullptr, tid()));
  Fixture F(K);
  Analysis &A = *F;
  Encoded Approx = A.exec(0, 1);
  EXPECT_TRUE(Approx.Approx);
  Encoded Exact = A.exec(1, 1);
  EXPECT_FALSE(Exact.Approx);
  EXPECT_TRUE((Exact && Approx).Approx);
  EXPECT_TRUE((Exact || !Approx).Approx);
  EXPECT_FALSE((Exact && A.sameRank(1, 2)).Approx);
  EXPECT_TRUE(Exact.orApprox(true).Approx);
  EXPECT_FALSE(A.conflict(1, 1, 1, 2).Approx);
  // An index the model does not know makes the byte range approximate.
  K.store(13, addr("out", nullptr, nullptr));
  Fixture G(K);
  EXPECT_TRUE(G->range(2, 1).Lo.Approx);
  EXPECT_FALSE(G->range(2, 1).Owner.Approx);
  EXPECT_TRUE(G->conflict(2, 1, 1, 2).Approx);
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
  Encoded Both = A.exec(0, 1) && A.exec(0, 2) && A.sameRank(1, 2) &&
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
