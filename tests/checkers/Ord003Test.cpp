//===- Ord003Test.cpp - ORD-003 on hand-built models ----------------------===//
//
// ORD-003: a bad model that must produce exactly this finding (line,
// severity, witness where meaningful) and nothing else, and a good model
// that produces none.
//
//===----------------------------------------------------------------------===//
#include "CheckerTestUtil.h"

using namespace pkb;
using namespace pkb::cktest;

namespace {

TEST(Checkers, Ord003GpuScopeRelease) {
  Variant V;
  V.SigScope = Scope::GPU;
  auto F = runAll(allreduce(V).module());
  EXPECT_EQ(keys(F), (std::set<Key>{{21, "ORD-003"}})) << dump(F);
}

TEST(Checkers, Ord003ThreadfenceBeforeVolatileSignal) {
  Variant V;
  V.SigOrder = MemOrder::Volatile;
  KB K = allreduce(V);
  Event Fe;
  Fe.Kind = EventKind::Fence;
  Fe.Order = MemOrder::SeqCst;
  Fe.Scp = Scope::GPU;
  Fe.Loc = {"test.cu", 19, 1};
  for (size_t I = 0; I < K.K.Events.size(); ++I)
    if (K.K.Events[I].Loc.Line == 20) {
      K.K.Events.insert(K.K.Events.begin() + I, Fe);
      break;
    }
  auto F = runAll(K.module());
  EXPECT_EQ(keys(F), (std::set<Key>{{19, "ORD-003"}})) << dump(F);
}

} // namespace
