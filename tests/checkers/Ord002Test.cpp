//===- Ord002Test.cpp - ORD-002 on hand-built models ----------------------===//
//
// ORD-002: a bad model that must produce exactly this finding (line,
// severity, witness where meaningful) and nothing else, and a good model
// that produces none.
//
//===----------------------------------------------------------------------===//
#include "CheckerTestUtil.h"

using namespace pkb;
using namespace pkb::cktest;

namespace {

TEST(Checkers, Ord002MissingAcquire) {
  Variant V;
  V.WaitOrder = MemOrder::Volatile;
  auto F = runAll(allreduce(V).module());
  EXPECT_EQ(keys(F), (std::set<Key>{{31, "ORD-002"}})) << dump(F);
  const Finding *X = find(F, "ORD-002");
  ASSERT_TRUE(X);
  EXPECT_EQ(X->Sev, Severity::Error);
  EXPECT_EQ(X->Related[0].Role, "wait");
  EXPECT_EQ(X->Related[0].Loc.Line, 22u);
}

TEST(Checkers, Ord002FenceAfterVolatileWaitIsFine) {
  Variant V;
  V.WaitOrder = MemOrder::Volatile;
  V.FenceAfterWait = true;
  auto F = runAll(allreduce(V).module());
  EXPECT_TRUE(F.empty()) << dump(F);
}

} // namespace
