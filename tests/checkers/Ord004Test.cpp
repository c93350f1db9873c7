//===- Ord004Test.cpp - ORD-004 on hand-built models ----------------------===//
//
// ORD-004: a bad model that must produce exactly this finding (line,
// severity, witness where meaningful) and nothing else, and a good model
// that produces none.
//
//===----------------------------------------------------------------------===//
#include "CheckerTestUtil.h"

using namespace pkb;
using namespace pkb::cktest;

namespace {

TEST(Checkers, Ord004PlainSpin) {
  Variant V;
  V.WaitOrder = MemOrder::Plain;
  V.FenceAfterWait = true;
  auto F = runAll(allreduce(V).module());
  EXPECT_EQ(keys(F), (std::set<Key>{{22, "ORD-004"}})) << dump(F);
}

} // namespace
