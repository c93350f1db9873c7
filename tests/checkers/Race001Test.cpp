//===- Race001Test.cpp - RACE-001 on hand-built models --------------------===//
//
// RACE-001: a bad model that must produce exactly this finding (line,
// severity, witness where meaningful) and nothing else, and a good model
// that produces none.
//
//===----------------------------------------------------------------------===//
#include "CheckerTestUtil.h"

using namespace pkb;
using namespace pkb::cktest;

namespace {

TEST(Checkers, Race001SharedMemoryRace) {
  KB K("stencil");
  K.stdParams().launch(4, 256);
  K.K.SharedVars.push_back({"tile", 4});
  K.store(10, addr("tile", nullptr, tid(), AddrSpace::Shared));
  K.load(12, addr("tile", nullptr, tid() + c(1), AddrSpace::Shared));
  auto F = runAll(K.module());
  EXPECT_EQ(keys(F), (std::set<Key>{{12, "RACE-001"}})) << dump(F);
  const Finding *X = find(F, "RACE-001");
  ASSERT_TRUE(X);
  EXPECT_EQ(X->Witness.at("b1"), X->Witness.at("b2"));
  KB G("stencil_ok");
  G.stdParams().launch(4, 256);
  G.K.SharedVars.push_back({"tile", 4});
  G.store(10, addr("tile", nullptr, tid(), AddrSpace::Shared));
  G.sync(11);
  G.load(12, addr("tile", nullptr, tid() + c(1), AddrSpace::Shared));
  auto FG = runAll(G.module());
  EXPECT_TRUE(FG.empty()) << dump(FG);
}

TEST(Checkers, Race001LoopCarried) {
  // for (...) { tile[t] = ..; sync; read tile[t+1]; }  (no sync at the end)
  KB K("tiles");
  K.stdParams().launch(4, 256);
  K.K.SharedVars.push_back({"tile", 4});
  K.beginLoop(c(0), v("param:n"), c(1), "k");
  K.store(41, addr("tile", nullptr, tid(), AddrSpace::Shared));
  K.sync(42);
  K.load(43, addr("tile", nullptr, (tid() + c(1)) % c(256), AddrSpace::Shared));
  K.endLoop();
  auto F = runAll(K.module());
  EXPECT_EQ(keys(F), (std::set<Key>{{41, "RACE-001"}})) << dump(F);
  KB G = K;
  G.K.Events.push_back(G.K.Events[1]);
  G.K.Events.back().Loc.Line = 44;
  auto FG = runAll(G.module());
  EXPECT_TRUE(FG.empty()) << dump(FG);
}

} // namespace
