//===- Race003Test.cpp - RACE-003 on hand-built models --------------------===//
//
// RACE-003: a bad model that must produce exactly this finding (line,
// severity, witness where meaningful) and nothing else, and a good model
// that produces none.
//
//===----------------------------------------------------------------------===//
#include "CheckerTestUtil.h"

using namespace pkb;
using namespace pkb::cktest;

namespace {

TEST(Checkers, Race003PlainPeerRmw) {
  KB K("push_add");
  K.stdParams().launch(4, 256);
  unsigned P = K.beginLoop(c(0), W(), c(1), "p");
  unsigned J = K.beginLoop(gtid(), v("param:n"), stride());
  K.load(37, addr("in", nullptr, K.lv(J)));
  K.load(37, addr("bufs", K.lv(P), K.lv(J)));
  K.store(37, addr("bufs", K.lv(P), K.lv(J))).RmwStore = true;
  K.endLoop();
  K.endLoop();
  K.barrier(40, v("param:epoch"));
  auto F = runAll(K.module());
  EXPECT_EQ(keys(F), (std::set<Key>{{37, "RACE-003"}})) << dump(F);
  // The same load and store, not one read-modify-write expression: the
  // store races the other ranks' loads (RACE-002), no RACE-003.
  KB K2("push_copy");
  K2.stdParams().launch(4, 256);
  unsigned P2 = K2.beginLoop(c(0), W(), c(1), "p");
  unsigned J2 = K2.beginLoop(gtid(), v("param:n"), stride());
  K2.load(37, addr("bufs", K2.lv(P2), K2.lv(J2)));
  K2.store(38, addr("bufs", K2.lv(P2), K2.lv(J2)));
  K2.endLoop();
  K2.endLoop();
  K2.barrier(40, v("param:epoch"));
  auto F2 = runAll(K2.module());
  EXPECT_FALSE(find(F2, "RACE-003")) << dump(F2);
}

} // namespace
