//===- Sig001Test.cpp - SIG-001 on hand-built models ----------------------===//
//
// SIG-001: a bad model that must produce exactly this finding (line,
// severity, witness where meaningful) and nothing else, and a good model
// that produces none.
//
//===----------------------------------------------------------------------===//
#include "CheckerTestUtil.h"

using namespace pkb;
using namespace pkb::cktest;

namespace {

TEST(Checkers, Sig001Collision) {
  // Slot = block only: all senders share it.
  KB K = oneBarrier(4, bid(), bid());
  auto F = runAll(K.module());
  EXPECT_EQ(keys(F), (std::set<Key>{{21, "SIG-001"}})) << dump(F);
  const Finding *X = find(F, "SIG-001");
  ASSERT_TRUE(X);
  EXPECT_EQ(X->Witness.at("W"), "2");
  EXPECT_NE(X->Witness.at("r1"), X->Witness.at("r2"));
}

TEST(Checkers, Sig001OutOfPad) {
  // 16 blocks, slot = 2048 + block * 8 + rank words: past the 2048-byte
  // torch pad of a Python input.
  KB K = oneBarrier(4, c(500) + bid() * c(8) + rank(),
                    c(500) + bid() * c(8) + tid());
  K.K.Launches.clear();
  K.launch(16, 256);
  auto F = runAll(K.module("test.py"));
  EXPECT_EQ(keys(F), (std::set<Key>{{21, "SIG-001"}})) << dump(F);
  auto FG = runAll(K.module("test.cu"));
  EXPECT_TRUE(FG.empty()) << dump(FG);
}

} // namespace
