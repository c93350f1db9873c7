//===- Ord005Test.cpp - ORD-005 on hand-built models ----------------------===//
//
// ORD-005: a bad model that must produce exactly this finding (line,
// severity, witness where meaningful) and nothing else, and a good model
// that produces none.
//
//===----------------------------------------------------------------------===//
#include "CheckerTestUtil.h"

using namespace pkb;
using namespace pkb::cktest;

namespace {

TEST(Checkers, Ord005MixedSize) {
  // 16-bit signal into a 32-bit flag polled with a 32-bit load.
  KB K = oneBarrier(2, (bid() * c(8) + rank()) * c(2), bid() * c(8) + tid());
  auto F = runAll(K.module());
  EXPECT_EQ(keys(F), (std::set<Key>{{22, "ORD-005"}, {42, "ORD-005"}}))
      << dump(F);
  KB G = oneBarrier(4, bid() * c(8) + rank(), bid() * c(8) + tid());
  auto FG = runAll(G.module());
  EXPECT_TRUE(FG.empty()) << dump(FG);
}

} // namespace
