//===- Race002Test.cpp - RACE-002 on hand-built models --------------------===//
//
// RACE-002: a bad model that must produce exactly this finding (line,
// severity, witness where meaningful) and nothing else, and a good model
// that produces none.
//
//===----------------------------------------------------------------------===//
#include "CheckerTestUtil.h"

using namespace pkb;
using namespace pkb::cktest;

namespace {

TEST(Checkers, Race002InPlaceAllReduce) {
  KB K("inplace");
  K.stdParams().launch(4, 256);
  unsigned I = K.beginLoop(gtid(), v("param:n"), stride());
  K.load(10, addr("in", nullptr, K.lv(I)));
  K.store(11, addr("bufs", rank(), K.lv(I)));
  K.endLoop();
  K.barrier(20, v("param:epoch") * c(2));
  unsigned J = K.beginLoop(gtid(), v("param:n"), stride());
  unsigned P = K.beginLoop(c(0), W(), c(1), "p");
  K.load(31, addr("bufs", K.lv(P), K.lv(J)));
  K.endLoop();
  K.store(34, addr("bufs", rank(), K.lv(J)));
  K.endLoop();
  K.barrier(40, v("param:epoch") * c(2) + c(1));
  auto F = runAll(K.module());
  EXPECT_EQ(keys(F), (std::set<Key>{{34, "RACE-002"}})) << dump(F);
  const Finding *X = find(F, "RACE-002");
  ASSERT_TRUE(X);
  EXPECT_NE(X->Witness.at("r1"), X->Witness.at("r2"));
  EXPECT_EQ(X->Sev, Severity::Error);
}

} // namespace
