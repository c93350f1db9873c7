//===- Host001Test.cpp - HOST-001 on hand-built models --------------------===//
//
// HOST-001: a bad model that must produce exactly this finding (line,
// severity, witness where meaningful) and nothing else, and a good model
// that produces none.
//
//===----------------------------------------------------------------------===//
#include "CheckerTestUtil.h"

using namespace pkb;
using namespace pkb::cktest;

namespace {

TEST(Checkers, Host001LaunchWithoutBarrier) {
  auto F = runAll(hostModule(false));
  EXPECT_EQ(keys(F), (std::set<Key>{{52, "HOST-001"}})) << dump(F);
  auto FG = runAll(hostModule(true));
  EXPECT_TRUE(FG.empty()) << dump(FG);
  // A barrier inside an `if` (nesting depth 1) does not count.
  ModuleModel M = hostModule(true);
  M.HostOps[1].Depth = 1;
  auto FC = runAll(M);
  EXPECT_EQ(keys(FC), (std::set<Key>{{52, "HOST-001"}})) << dump(FC);
}

} // namespace
