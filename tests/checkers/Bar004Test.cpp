//===- Bar004Test.cpp - BAR-004 on hand-built models ----------------------===//
//
// BAR-004: a bad model that must produce exactly this finding (line,
// severity, witness where meaningful) and nothing else, and a good model
// that produces none.
//
//===----------------------------------------------------------------------===//
#include "CheckerTestUtil.h"

using namespace pkb;
using namespace pkb::cktest;

namespace {

TEST(Checkers, Bar004MissingExitBarrier) {
  Variant V;
  V.Barrier2 = false;
  auto F = runAll(allreduce(V).module());
  EXPECT_EQ(keys(F), (std::set<Key>{{11, "BAR-004"}})) << dump(F);
  const Finding *X = find(F, "BAR-004");
  ASSERT_TRUE(X);
  EXPECT_NE(X->Witness.at("r1"), X->Witness.at("r2"));
}

TEST(Checkers, Bar004HostCopyWithoutBarrierAfterKernel) {
  ModuleModel M = hostModule(true);
  M.HostOps.pop_back(); // no barrier after the kernel
  auto F = runAll(M);
  EXPECT_EQ(keys(F), (std::set<Key>{{50, "BAR-004"}})) << dump(F);
}

} // namespace
