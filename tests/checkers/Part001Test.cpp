//===- Part001Test.cpp - PART-001 on hand-built models --------------------===//
//
// PART-001: a bad model that must produce exactly this finding (line,
// severity, witness where meaningful) and nothing else, and a good model
// that produces none.
//
//===----------------------------------------------------------------------===//
#include "CheckerTestUtil.h"

using namespace pkb;
using namespace pkb::cktest;

namespace {

TEST(Checkers, Part001PeerIndexOutOfRange) {
  KB K("shift");
  K.stdParams().launch(4, 256);
  unsigned I = K.beginLoop(gtid(), v("param:n"), stride());
  K.load(31, addr("bufs", rank() + c(1), K.lv(I)));
  K.store(32, addr("out", nullptr, K.lv(I)));
  K.endLoop();
  auto F = runAll(K.module());
  EXPECT_EQ(keys(F), (std::set<Key>{{31, "PART-001"}})) << dump(F);
  const Finding *X = find(F, "PART-001");
  ASSERT_TRUE(X);
  EXPECT_EQ(X->Witness.at("W"), "2");
  EXPECT_EQ(X->Witness.at("r1"), "1");
  EXPECT_EQ(X->Witness.at("peer"), "2");
  KB G("shift_ok");
  G.stdParams().launch(4, 256);
  unsigned J = G.beginLoop(gtid(), v("param:n"), stride());
  G.load(31, addr("bufs", (rank() + c(1)) % W(), G.lv(J)));
  G.store(32, addr("out", nullptr, G.lv(J)));
  G.endLoop();
  auto FG = runAll(G.module());
  EXPECT_TRUE(FG.empty()) << dump(FG);
}

} // namespace
