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

TEST(Checkers, Race001DeviceVariableCallCounter) {
  // A device-side call counter: every thread reads g_calls (line 10), thread
  // 0 advances it (line 12) with no __syncthreads() before the store.
  auto Counter = [](bool Sync, MemOrder StoreOrder) {
    KB K("barrier");
    K.stdParams().launch(1, 8);
    K.K.DeviceVars.push_back("g_calls");
    K.load(10, addr("g_calls", nullptr, c(0), AddrSpace::Global));
    if (Sync)
      K.sync(11);
    K.when(eq(tid(), c(0)));
    K.store(12, addr("g_calls", nullptr, c(0), AddrSpace::Global)).Order =
        StoreOrder;
    K.end();
    return K.module();
  };
  auto F = runAll(Counter(false, MemOrder::Plain));
  EXPECT_EQ(keys(F), (std::set<Key>{{12, "RACE-001"}})) << dump(F);
  const Finding *X = find(F, "RACE-001");
  ASSERT_TRUE(X);
  EXPECT_EQ(X->Sev, Severity::Error);
  EXPECT_NE(X->Message.find("__device__ variable 'g_calls'"), std::string::npos)
      << X->Message;
  // With the block barrier between the reads and the store: no race.
  auto FG = runAll(Counter(true, MemOrder::Plain));
  EXPECT_TRUE(FG.empty()) << dump(FG);
  // A volatile store is a protocol of its own (not this check's).
  auto FV = runAll(Counter(false, MemOrder::Volatile));
  EXPECT_TRUE(keys(FV).count({12, "RACE-001"}) == 0) << dump(FV);
  // The same accesses of a variable not listed in DeviceVars (any other
  // global base): not checked.
  ModuleModel M = Counter(false, MemOrder::Plain);
  M.Kernels[0].DeviceVars.clear();
  auto FN = runAll(M);
  EXPECT_TRUE(keys(FN).count({12, "RACE-001"}) == 0) << dump(FN);
}

} // namespace
