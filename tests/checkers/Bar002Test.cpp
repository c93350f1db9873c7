//===- Bar002Test.cpp - BAR-002 on hand-built models ----------------------===//
//
// BAR-002: a bad model that must produce exactly this finding (line,
// severity, witness where meaningful) and nothing else, and a good model
// that produces none.
//
//===----------------------------------------------------------------------===//
#include "CheckerTestUtil.h"

using namespace pkb;
using namespace pkb::cktest;

namespace {

TEST(Checkers, Bar002UnmatchedWait) {
  // Pairwise exchange with rank ^ 1: the last rank of an odd W has no
  // partner, skips its signal, but still waits.
  KB K("pairs");
  K.stdParams().launch(4, 256);
  ExprRef Partner = xor_(rank(), c(1));
  K.when(eq(tid(), c(0)));
  K.when(lt(Partner, W()));
  K.mem(EventKind::Store, 21, addr("pads", Partner, bid()), 4,
        MemOrder::Release, Scope::System, v("param:epoch"));
  K.end();
  K.spin(22, addr("pads", rank(), bid()), v("param:epoch"));
  K.end();
  K.sync(23);
  auto F = runAll(K.module());
  EXPECT_EQ(keys(F), (std::set<Key>{{22, "BAR-002"}})) << dump(F);
  const Finding *X = find(F, "BAR-002");
  ASSERT_TRUE(X);
  EXPECT_EQ(X->Witness.at("W"), "3");
  EXPECT_EQ(X->Witness.at("r1"), "2");
  EXPECT_EQ(X->Sev, Severity::Error);
  // With the wait guarded as well, every wait is matched.
  KB G("pairs_ok");
  G.stdParams().launch(4, 256);
  G.when(eq(tid(), c(0)));
  G.when(lt(Partner, W()));
  G.mem(EventKind::Store, 21, addr("pads", Partner, bid()), 4,
        MemOrder::Release, Scope::System, v("param:epoch"));
  G.spin(22, addr("pads", rank(), bid()), v("param:epoch"));
  G.end();
  G.end();
  G.sync(23);
  auto FG = runAll(G.module());
  EXPECT_TRUE(FG.empty()) << dump(FG);
}

} // namespace
