//===- Bar005Test.cpp - BAR-005 on hand-built models ----------------------===//
//
// BAR-005: a bad model that must produce exactly this finding (line,
// severity, witness where meaningful) and nothing else, and a good model
// that produces none.
//
//===----------------------------------------------------------------------===//
#include "CheckerTestUtil.h"

using namespace pkb;
using namespace pkb::cktest;

namespace {

KB spinBarrier() {
  KB K("grid_spin");
  K.param("counter", ParamRole::LocalBuffer, 4);
  K.when(eq(tid(), c(0)));
  Event &A = K.mem(EventKind::Atomic, 10, addr("counter", nullptr, c(0)), 4,
                   MemOrder::Release, Scope::GPU, c(1));
  A.AtomicOp = "add";
  K.spin(11, addr("counter", nullptr, c(0)), v("gdim.x"), MemOrder::Acquire,
         Scope::GPU);
  K.end();
  K.sync(12);
  return K;
}

TEST(Checkers, Bar005UnboundedSpinBarrier) {
  KB K = spinBarrier();
  LaunchSite L;
  L.Kernel = K.K.Name;
  L.GridX = (v("host:n") + c(255)) / c(256);
  L.BlockX = c(256);
  K.K.Launches.push_back(L);
  auto F = runAll(K.module());
  EXPECT_EQ(keys(F), (std::set<Key>{{11, "BAR-005"}})) << dump(F);
  EXPECT_EQ(find(F, "BAR-005")->Sev, Severity::Error);
  KB G = spinBarrier();
  L.Cooperative = true;
  G.K.Launches.push_back(L);
  auto FG = runAll(G.module());
  EXPECT_TRUE(FG.empty()) << dump(FG);
  KB B = spinBarrier();
  B.launch(100, 256);
  auto FB = runAll(B.module());
  EXPECT_TRUE(FB.empty()) << dump(FB);
}

TEST(Checkers, Bar005GridSyncWithoutCooperativeLaunch) {
  KB K("gridsync");
  K.launch(8, 256, false);
  K.sync(10, BarrierKind::Grid);
  auto F = runAll(K.module());
  EXPECT_EQ(keys(F), (std::set<Key>{{10, "BAR-005"}})) << dump(F);
  KB G("gridsync_ok");
  G.launch(8, 256, true);
  G.sync(10, BarrierKind::Grid);
  EXPECT_TRUE(runAll(G.module()).empty());
}

} // namespace
