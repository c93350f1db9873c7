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

TEST(Checkers, Part001WorldSizeGuardOfTheLaunch) {
  // Threads t < 4 index the peer table (a RANKS = 4 instantiation). Its
  // launch runs only where world_size == 4 (`switch (ranks_per_node)`):
  // t < W on every launch. Without the guard, W = 2 has t = 2 out of range.
  auto Kernel = [](ExprRef Guard) {
    KB K("ranks4");
    K.stdParams().launch(4, 256);
    K.K.Launches.back().Guard = std::move(Guard);
    K.when(lt(tid(), c(4)));
    K.mem(EventKind::Store, 40, addr("pads", tid(), bid() * c(8) + rank()), 4,
          MemOrder::Release, Scope::System, v("param:epoch"));
    K.end();
    return K;
  };
  auto FG = runAll(Kernel(eq(W(), c(4))).module());
  EXPECT_TRUE(FG.empty()) << dump(FG);
  auto F = runAll(Kernel(nullptr).module());
  EXPECT_EQ(keys(F), (std::set<Key>{{40, "PART-001"}})) << dump(F);
  // A guard that admits W = 2 and W = 4 keeps the finding (at W = 2).
  auto F2 = runAll(
      Kernel(Expr::binary(ExprOp::LOr, eq(W(), c(2)), eq(W(), c(4)))).module());
  EXPECT_EQ(keys(F2), (std::set<Key>{{40, "PART-001"}})) << dump(F2);
  const Finding *X = find(F2, "PART-001");
  ASSERT_TRUE(X);
  EXPECT_EQ(X->Witness.at("W"), "2");
}

} // namespace
