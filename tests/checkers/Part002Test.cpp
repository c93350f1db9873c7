//===- Part002Test.cpp - PART-002 on hand-built models --------------------===//
//
// PART-002: a bad model that must produce exactly this finding (line,
// severity, witness where meaningful) and nothing else, and a good model
// that produces none.
//
//===----------------------------------------------------------------------===//
#include "CheckerTestUtil.h"

using namespace pkb;
using namespace pkb::cktest;

namespace {

/// Sharded push all-gather: rank r pushes its shard [start, start + len)
/// into every peer's bufs. Clamp = true uses start = min(r*C, n-C) with
/// C = ceil(n/W) (overlapping shards).
KB shardPush(bool Overlap) {
  KB K("shard_push");
  K.stdParams().launch(4, 256);
  ExprRef N = v("param:n");
  ExprRef C = (N + W() - c(1)) / W();
  ExprRef Start = Overlap ? min_(rank() * C, N - C) : rank() * C;
  ExprRef Len = Overlap ? C : min_(C, N - rank() * C);
  unsigned P = K.beginLoop(c(0), W(), c(1), "p");
  unsigned J = K.beginLoop(gtid(), Len, stride(), "j");
  K.load(38, addr("in", nullptr, Start + K.lv(J)));
  K.store(39, addr("bufs", K.lv(P), Start + K.lv(J)));
  K.endLoop();
  K.endLoop();
  K.barrier(40, v("param:epoch"));
  return K;
}

TEST(Checkers, Part002OverlappingShards) {
  auto F = runAll(shardPush(true).module());
  EXPECT_EQ(keys(F), (std::set<Key>{{39, "PART-002"}})) << dump(F);
  const Finding *X = find(F, "PART-002");
  ASSERT_TRUE(X);
  EXPECT_NE(X->Witness.at("r1"), X->Witness.at("r2"));
  auto FG = runAll(shardPush(false).module());
  EXPECT_TRUE(FG.empty()) << dump(FG);
}

} // namespace
