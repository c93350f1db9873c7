//===- Ord001Test.cpp - ORD-001 on hand-built models ----------------------===//
//
// ORD-001: a bad model that must produce exactly this finding (line,
// severity, witness where meaningful) and nothing else, and a good model
// that produces none.
//
//===----------------------------------------------------------------------===//
#include "CheckerTestUtil.h"

using namespace pkb;
using namespace pkb::cktest;

namespace {

TEST(Checkers, Ord001MissingRelease) {
  Variant V;
  V.SigOrder = MemOrder::Volatile;
  auto F = runAll(allreduce(V).module());
  EXPECT_EQ(keys(F), (std::set<Key>{{21, "ORD-001"}})) << dump(F);
  const Finding *X = find(F, "ORD-001");
  ASSERT_TRUE(X);
  EXPECT_EQ(X->Sev, Severity::Error);
  // The write, the signal, and the launch site whose binding this is
  // (launch-site specialization).
  ASSERT_EQ(X->Related.size(), 3u);
  EXPECT_EQ(X->Related[0].Role, "write");
  EXPECT_EQ(X->Related[0].Loc.Line, 11u);
  EXPECT_EQ(X->Related[1].Role, "signal");
  EXPECT_EQ(X->Related[2].Role, "launch");
  EXPECT_EQ(X->Witness.at("W"), "2");
}

TEST(Checkers, Ord001FenceBeforeRelaxedSignalIsFine) {
  Variant V;
  V.SigOrder = MemOrder::Relaxed;
  KB K = allreduce(V);
  // Insert a system fence right before the signal.
  Event Fe;
  Fe.Kind = EventKind::Fence;
  Fe.Order = MemOrder::SeqCst;
  Fe.Scp = Scope::System;
  Fe.Loc = {"test.cu", 21, 1};
  for (size_t I = 0; I < K.K.Events.size(); ++I)
    if (K.K.Events[I].Loc.Line == 21) {
      K.K.Events.insert(K.K.Events.begin() + I, Fe);
      break;
    }
  auto F = runAll(K.module());
  EXPECT_TRUE(F.empty()) << dump(F);
}

} // namespace
