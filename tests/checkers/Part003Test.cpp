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

/// A candidate's vector all-reduce output loop: `for (i = gtid; i < n8; i
/// += stride) ((uint4 *)out)[i] = ...` (16-byte stores into a bf16 output),
/// launched from pkb_candidate_run as `k<<<4, 256>>>(Out[0].data, Arg)`
/// under the host condition \p Cond.
ModuleModel vectorOutput(ExprRef Arg, ExprRef Cond) {
  KB K("vec_out");
  K.param("out", ParamRole::LocalBuffer, 2);
  K.param("n8", ParamRole::Scalar);
  K.launch(4, 256);
  LaunchSite &L = K.K.Launches.back();
  L.Args = {{"out", nullptr, "Out[0].data"}, {"n8", Expr::opaque("n8"), "n8"}};
  L.Args[0].OutTensor = 0;
  L.Args[1].Host = std::move(Arg);
  L.HostCond = std::move(Cond);
  L.HostCondKnown = true;
  L.HostCallers = {"pkb_candidate_run"};
  unsigned I = K.beginLoop(gtid(), v("param:n8"), stride(), "i");
  K.store(56, addr("out", nullptr, K.lv(I)), 16);
  K.endLoop();
  return K.module();
}

CheckOptions allreduceSizes() {
  CheckOptions O;
  O.Problem =
      ProblemSizes{"allreduce", false, false,
                   false,       2,     {int64_t(1) << 11, int64_t(1) << 16}};
  return O;
}

TEST(Checkers, Part003OutputExtentFromTheProblem) {
  // The host passes n / 8 - 1 vectors for an output of n bf16 elements:
  // its last 8 elements (16 bytes) are written by no rank.
  ExprRef N = v("host:In[0].shape[0]");
  auto F = runOne(vectorOutput(N / c(8) - c(1), nullptr), "PART-003",
                  allreduceSizes());
  EXPECT_EQ(keys(F), (std::set<Key>{{56, "PART-003"}})) << dump(F);
  const Finding *X = find(F, "PART-003");
  ASSERT_TRUE(X);
  EXPECT_EQ(X->Sev, Severity::Error);
  int64_t Size = std::stoll(X->Witness.at("size"));
  EXPECT_TRUE(Size == 2048 || Size == 65536) << Size;
  EXPECT_EQ(X->Witness.at("n"), std::to_string(Size / 8 - 1));
  EXPECT_GE(std::stoll(X->Witness.at("j")), Size - 8);
  // n / 8 vectors cover it (the sizes are multiples of 8).
  EXPECT_TRUE(
      runOne(vectorOutput(N / c(8), nullptr), "PART-003", allreduceSizes())
          .empty());
  // Without a problem the extent is unknown: nothing to say.
  EXPECT_TRUE(
      runOne(vectorOutput(N / c(8) - c(1), nullptr), "PART-003").empty());
  // A host condition that no default size meets leaves no launch.
  EXPECT_TRUE(runOne(vectorOutput(N / c(8) - c(1), lt(N, c(1000))), "PART-003",
                     allreduceSizes())
                  .empty());
}

} // namespace
