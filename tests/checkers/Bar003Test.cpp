//===- Bar003Test.cpp - BAR-003 on hand-built models ----------------------===//
//
// BAR-003: a bad model that must produce exactly this finding (line,
// severity, witness where meaningful) and nothing else, and a good model
// that produces none.
//
//===----------------------------------------------------------------------===//
#include "CheckerTestUtil.h"

using namespace pkb;
using namespace pkb::cktest;

namespace {

TEST(Checkers, Bar003SignalWithoutSyncthreads) {
  Variant V;
  V.Sync1 = false;
  auto F = runAll(allreduce(V).module());
  EXPECT_EQ(keys(F), (std::set<Key>{{21, "BAR-003"}})) << dump(F);
}

} // namespace
