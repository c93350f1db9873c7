//===- Ord001Test.cpp - ORD-001 on hand-built models ----------------------===//
//
// ORD-001: a bad model that must produce exactly this finding (line,
// severity, witness where meaningful) and nothing else, and a good model
// that produces none.
//
//===----------------------------------------------------------------------===//
#include "CheckerTestUtil.h"

#include <algorithm>

using namespace pkb;
using namespace pkb::cktest;

namespace {

/// Inserts \p E into \p K right before the first event at line \p Line.
void insertBefore(KB &K, unsigned Line, const Event &E) {
  auto &Ev = K.K.Events;
  auto It = std::find_if(Ev.begin(), Ev.end(),
                         [Line](const Event &X) { return X.Loc.Line == Line; });
  Ev.insert(It, E);
}

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
  insertBefore(K, 21, Fe);
  auto F = runAll(K.module());
  EXPECT_TRUE(F.empty()) << dump(F);
}

/// The staging store of allreduce() (line 11) with a volatile signal.
const Event &stagingStore(const KB &K) {
  for (const Event &E : K.K.Events)
    if (E.Loc.Line == 11)
      return E;
  return K.K.Events.front();
}

// The nearest write before the signal executes only under an opaque
// condition (a Warning on its own); an earlier write whose execution is
// exact proves the bug, so the finding is an Error naming that write.
TEST(Checkers, Ord001PrefersAnExactlyExecutedWrite) {
  KB K = allreduce({.SigOrder = MemOrder::Volatile});
  Event Tail = stagingStore(K); // a copy, outside the loop, at line 15
  Tail.Loc.Line = 15;
  Tail.Loops.clear();
  Tail.Addr.Index = c(0);
  Tail.Guard = {Expr::opaque("tail_is_aligned(p)")};
  insertBefore(K, 21, Tail);
  auto F = runAll(K.module());
  std::erase_if(F, [](const Finding &X) { return X.CheckId != "ORD-001"; });
  EXPECT_EQ(keys(F), (std::set<Key>{{21, "ORD-001"}})) << dump(F);
  const Finding *X = find(F, "ORD-001");
  ASSERT_TRUE(X);
  EXPECT_EQ(X->Sev, Severity::Error);
  ASSERT_FALSE(X->Related.empty());
  EXPECT_EQ(X->Related[0].Loc.Line, 11u);
}

// Only the opaque-guarded write precedes the signal: still reported, as a
// Warning at that write.
TEST(Checkers, Ord001OnlyApproximateWriteIsAWarning) {
  KB K = allreduce({.SigOrder = MemOrder::Volatile});
  for (Event &E : K.K.Events)
    if (E.Loc.Line == 11)
      E.Guard.push_back(Expr::opaque("tail_is_aligned(p)"));
  auto F = runAll(K.module());
  const Finding *X = find(F, "ORD-001");
  ASSERT_TRUE(X) << dump(F);
  EXPECT_EQ(X->Sev, Severity::Warning);
  EXPECT_EQ(X->Related[0].Loc.Line, 11u);
}

// The write runs over a block's range [Lo, Hi) from locals assigned more
// than once (a helper's by-reference outputs): unknowns for the checkers,
// but their exact values (LocalDefs) confirm that the write executes, so
// the finding is an Error. Values under which it never executes keep the
// approximate finding a Warning: refining never drops one.
TEST(Checkers, Ord001WriteOverExactlyKnownLocalsIsAnError) {
  for (bool Empty : {false, true}) {
    KB K = allreduce({.SigOrder = MemOrder::Volatile});
    K.K.LocalDefs["local:Lo@5:6"] = bid() * c(4);
    K.K.LocalDefs["local:Hi@5:7"] =
        Empty ? v("local:Lo@5:6") : v("local:Lo@5:6") + c(4);
    for (Event &E : K.K.Events)
      if (E.Loc.Line == 11)
        E.Guard.push_back(lt(v("local:Lo@5:6"), v("local:Hi@5:7")));
    auto F = runAll(K.module());
    const Finding *X = find(F, "ORD-001");
    ASSERT_TRUE(X) << dump(F);
    EXPECT_EQ(X->Sev, Empty ? Severity::Warning : Severity::Error) << Empty;
    EXPECT_EQ(X->Related[0].Loc.Line, 11u);
  }
}

// Pointers' alignment, an unknown: the staging write (line 11) runs on the
// vector path (`(Or & 15) ? 0 : 1`), a tail copy (line 15) on the scalar
// one. Whichever way the condition goes for the thread, one of them runs
// before the volatile signal: an Error (a case split). Without the tail,
// the misaligned case writes nothing: a Warning.
TEST(Checkers, Ord001WriteOnEitherPathOfAnUnknownConditionIsAnError) {
  for (bool Tail : {true, false}) {
    KB K = allreduce({.SigOrder = MemOrder::Volatile});
    ExprRef Misaligned = Expr::binary(ExprOp::And, v("local:Or@5"), c(15));
    auto Path = [&](bool Vector) {
      return ne(Expr::select(Misaligned, c(Vector ? 0 : 1), c(Vector ? 1 : 0)),
                c(0));
    };
    Event Scalar = stagingStore(K);
    for (Event &E : K.K.Events)
      if (E.Loc.Line == 11)
        E.Guard.push_back(Path(true));
    if (Tail) {
      Scalar.Loc.Line = 15;
      Scalar.Guard.push_back(Path(false));
      insertBefore(K, 21, Scalar);
    }
    auto F = runAll(K.module());
    const Finding *X = find(F, "ORD-001");
    ASSERT_TRUE(X) << dump(F);
    EXPECT_EQ(X->Sev, Tail ? Severity::Error : Severity::Warning) << Tail;
  }
}

} // namespace
