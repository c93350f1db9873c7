//===- EnginePhasesTest.cpp - Synchronization phases ----------------------===//
//
// Unit tests of checkers/EnginePhases.cpp: block barriers and cross-rank
// signal/wait pairs separate phases; per-block signal matching.
//
//===----------------------------------------------------------------------===//
#include "EngineTestUtil.h"

using namespace pkb;
using namespace pkb::chk;
using namespace pkb::dsl;
using namespace pkb::cktest;

namespace {

TEST(EnginePhases, BlockBarrierSeparatesThreadsOfOneBlock) {
  KB K;
  K.stdParams().launch(4, 256);
  K.store(11, addr("out", nullptr, tid()));
  K.sync(12);
  K.load(13, addr("out", nullptr, tid() + c(1)));
  Fixture F(K);
  Analysis &A = *F;
  z3::expr Agents = A.agentRange(1) && A.agentRange(2) && A.sameRank(1, 2);
  // The store (event 0) and the load (event 2) of one block are in
  // different phases; the store with itself is in the same one.
  EXPECT_EQ(check(A, Agents && A.sameBlock(1, 2) && A.samePhase(0, 1, 2, 2)),
            z3::unsat);
  EXPECT_EQ(check(A, Agents && A.sameBlock(1, 2) && A.samePhase(0, 1, 0, 2)),
            z3::sat);
  // Other blocks are not ordered by __syncthreads.
  EXPECT_EQ(check(A, Agents && !A.sameBlock(1, 2) && A.samePhase(0, 1, 2, 2)),
            z3::sat);
}

TEST(EnginePhases, SignalWaitSeparatesRanks) {
  KB K;
  K.stdParams().launch(4, 256);
  K.store(11, addr("bufs", rank(), tid()));
  K.barrier(20, v("param:epoch"));
  K.load(31, addr("bufs", v("p"), tid()));
  Fixture F(K);
  Analysis &A = *F;
  size_t St = 0, Ld = A.size() - 1;
  z3::expr Agents = A.agentRange(1) && A.agentRange(2) && !A.sameRank(1, 2);
  EXPECT_EQ(
      check(A, Agents && A.sameBlock(1, 2) && A.sameCrossPhase(St, 1, Ld, 2)),
      z3::unsat);
  EXPECT_TRUE(A.perBlockSync());
}

} // namespace
