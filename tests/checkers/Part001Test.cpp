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

TEST(Checkers, Part001IndicesInRangeByShapeAndTheirNearMisses) {
  // The rank, a loop variable over [0, W) and a non-negative sum modulo W
  // are in range by their shape (no solver query); each near miss below is
  // still decided by the solver and reported.
  KB K("shapes");
  K.stdParams().launch(4, 256);
  unsigned P = K.beginLoop(c(0), W(), c(1), "p");
  K.load(10, addr("bufs", K.lv(P), tid()));
  K.load(11, addr("bufs", (rank() + K.lv(P)) % W(), tid()));
  K.endLoop();
  unsigned Q = K.beginLoop(c(-1), W(), c(1), "q");
  K.load(12, addr("bufs", K.lv(Q), tid())); // starts at -1
  K.endLoop();
  unsigned S = K.beginLoop(c(0), W() + c(1), c(1), "s");
  K.load(13, addr("bufs", K.lv(S), tid())); // reaches W
  K.endLoop();
  K.load(14, addr("bufs", (rank() - c(1)) % W(), tid())); // -1 on rank 0
  K.load(15, addr("bufs", rank(), tid()));
  K.load(16, addr("bufs", K.lv(P), tid())); // p outside its loop
  auto F = runAll(K.module());
  std::set<Key> Got;
  for (const Finding &X : F)
    if (X.CheckId == "PART-001")
      Got.insert({X.Loc.Line, X.CheckId});
  EXPECT_EQ(Got, (std::set<Key>{{12, "PART-001"},
                                {13, "PART-001"},
                                {14, "PART-001"},
                                {16, "PART-001"}}))
      << dump(F);
}

} // namespace
