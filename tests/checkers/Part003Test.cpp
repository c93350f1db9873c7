//===- Part003Test.cpp - PART-003 on hand-built models --------------------===//
//
// PART-003: a bad model that must produce exactly this finding (line,
// severity, witness where meaningful) and nothing else, and a good model
// that produces none.
//
//===----------------------------------------------------------------------===//
#include "CheckerTestUtil.h"

using namespace pkb;
using namespace pkb::cktest;

namespace {

KB gatherOut(ExprRef C) {
  KB K("gather_out");
  K.stdParams().launch(4, 256);
  unsigned Q = K.beginLoop(c(0), W(), c(1), "q");
  unsigned J =
      K.beginLoop(gtid(), min_(C, v("param:n") - K.lv(Q) * C), stride(), "j");
  K.load(33, addr("bufs", K.lv(Q), K.lv(Q) * C + K.lv(J)));
  K.store(34, addr("out", nullptr, K.lv(Q) * C + K.lv(J)));
  K.endLoop();
  K.endLoop();
  return K;
}

TEST(Checkers, Part003RemainderNotWritten) {
  ExprRef N = v("param:n");
  auto F = runAll(gatherOut(N / W()).module());
  EXPECT_EQ(keys(F), (std::set<Key>{{34, "PART-003"}})) << dump(F);
  const Finding *X = find(F, "PART-003");
  ASSERT_TRUE(X);
  EXPECT_EQ(X->Witness.at("W"), "2");
  auto FG = runAll(gatherOut((N + W() - c(1)) / W()).module());
  EXPECT_TRUE(FG.empty()) << dump(FG);
}

/// Block partition: the kernel is launched with 3 blocks; block b strides
/// over [b * per, Hi) with threads t, t + bdim, ...
KB blockRanges(ExprRef Per, ExprRef Hi) {
  KB K("block_ranges");
  K.stdParams().launch(3, 256);
  ExprRef Lo = bid() * Per;
  unsigned I = K.beginLoop(Lo + tid(), Hi, v("bdim.x"), "i");
  K.store(44, addr("out", nullptr, K.lv(I)));
  K.endLoop();
  return K;
}

TEST(Checkers, Part003FloorBlockPartition) {
  // per = n / gridDim.x: the last n % 3 elements belong to no block.
  ExprRef N = v("param:n"), G = v("gdim.x");
  ExprRef Per = N / G;
  auto F = runAll(blockRanges(Per, bid() * Per + Per).module());
  EXPECT_EQ(keys(F), (std::set<Key>{{44, "PART-003"}})) << dump(F);
  const Finding *X = find(F, "PART-003");
  ASSERT_TRUE(X);
  EXPECT_EQ(X->Sev, Severity::Error);
  // per = ceil(n / gridDim.x), hi clamped to n: the ranges tile [0, n).
  ExprRef Ceil = (N + G - c(1)) / G;
  auto FG = runAll(blockRanges(Ceil, min_(bid() * Ceil + Ceil, N)).module());
  EXPECT_TRUE(FG.empty()) << dump(FG);
}

} // namespace
