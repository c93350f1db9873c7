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

TEST(Checkers, Race003DeviceScopeAtomicsOfTwoGpus) {
  // Every rank adds into rank 0's histogram bin tid with an atomic of scope
  // S: device scope is atomic only on one GPU, so two ranks' adds race.
  auto Histogram = [](Scope S, bool OwnBins) {
    KB K("histogram");
    K.stdParams().launch(1, 256);
    ExprRef Bin = OwnBins ? rank() * c(256) + tid() : tid();
    Event &E = K.mem(EventKind::Atomic, 32, addr("bufs", c(0), Bin), 4,
                     MemOrder::Relaxed, S, c(1));
    E.AtomicOp = "add";
    K.barrier(40, v("param:epoch"));
    return K;
  };
  auto F = runAll(Histogram(Scope::GPU, false).module());
  EXPECT_EQ(keys(F), (std::set<Key>{{32, "RACE-003"}})) << dump(F);
  const Finding *X = find(F, "RACE-003");
  ASSERT_TRUE(X);
  EXPECT_NE(X->Witness.at("r1"), X->Witness.at("r2"));
  EXPECT_EQ(X->Message.rfind("device-scope atomic bufs", 0), 0u) << X->Message;
  // System scope: atomic across GPUs.
  auto FS = runAll(Histogram(Scope::System, false).module());
  EXPECT_FALSE(find(FS, "RACE-003")) << dump(FS);
  // Device scope, but each rank updates its own bins: one GPU per element.
  auto FO = runAll(Histogram(Scope::GPU, true).module());
  EXPECT_FALSE(find(FO, "RACE-003")) << dump(FO);
}

} // namespace
