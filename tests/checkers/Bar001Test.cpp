//===- Bar001Test.cpp - BAR-001 on hand-built models ----------------------===//
//
// BAR-001: a bad model that must produce exactly this finding (line,
// severity, witness where meaningful) and nothing else, and a good model
// that produces none.
//
//===----------------------------------------------------------------------===//
#include "CheckerTestUtil.h"

using namespace pkb;
using namespace pkb::cktest;

namespace {

TEST(Checkers, Bar001DivergentSyncthreads) {
  KB K("divergent");
  K.stdParams().launch(4, 256);
  K.param("tile", ParamRole::Unknown);
  K.K.SharedVars.push_back({"tile", 4});
  K.when(lt(gtid(), v("param:n")));
  K.store(10, addr("tile", nullptr, tid(), AddrSpace::Shared));
  K.sync(11);
  K.load(12, addr("tile", nullptr, c(255) - tid(), AddrSpace::Shared));
  K.end();
  auto F = runAll(K.module());
  EXPECT_EQ(keys(F), (std::set<Key>{{11, "BAR-001"}})) << dump(F);
  const Finding *X = find(F, "BAR-001");
  ASSERT_TRUE(X);
  EXPECT_EQ(X->Witness.at("b1"), X->Witness.at("b2"));
  // Uniform guard: fine.
  KB G("uniform");
  G.stdParams().launch(4, 256);
  G.K.SharedVars.push_back({"tile", 4});
  G.when(lt(c(0), v("param:n")));
  G.store(10, addr("tile", nullptr, tid(), AddrSpace::Shared));
  G.sync(11);
  G.load(12, addr("tile", nullptr, c(255) - tid(), AddrSpace::Shared));
  G.end();
  auto FG = runAll(G.module());
  EXPECT_TRUE(FG.empty()) << dump(FG);
}

/// Threads (blocks, for a grid barrier) selected by \p Exits return at line
/// 9; the barrier at line 11 of kind \p Kind (PTX text \p Text) follows,
/// guarded by \p Reach (the front end adds the negated return condition).
KB earlyReturn(ExprRef Exits, ExprRef Reach, BarrierKind Kind,
               const char *Text = "") {
  KB K("early_return");
  K.stdParams().launch(4, 256, /*Coop=*/Kind == BarrierKind::Grid);
  K.when(Exits);
  K.add(EventKind::Return, 9);
  K.end();
  K.when(Reach);
  K.sync(11, Kind).Text = Text;
  K.end();
  return K;
}

TEST(Checkers, Bar001EarlyReturn) {
  // Exited threads do not hold up __syncthreads() (PTX ISA `exit`).
  auto FG = runAll(
      earlyReturn(ge(tid(), c(128)), lt(tid(), c(128)), BarrierKind::Block)
          .module());
  EXPECT_TRUE(FG.empty()) << dump(FG);
  // Nor `bar.sync 1` without a thread count (all threads of the CTA).
  auto FN = runAll(earlyReturn(ge(tid(), c(128)), lt(tid(), c(128)),
                               BarrierKind::Named, "bar.sync 1;")
                       .module());
  EXPECT_TRUE(FN.empty()) << dump(FN);
  // A barrier with a thread count waits for that many arrivals.
  auto FC = runAll(earlyReturn(ge(tid(), c(128)), lt(tid(), c(128)),
                               BarrierKind::Named, "bar.sync 1, %0;")
                       .module());
  EXPECT_EQ(keys(FC), (std::set<Key>{{11, "BAR-001"}})) << dump(FC);
  // grid.sync() counts arrived blocks: a block that returned never arrives.
  auto FGr =
      runAll(earlyReturn(ge(bid(), c(2)), lt(bid(), c(2)), BarrierKind::Grid)
                 .module());
  EXPECT_EQ(keys(FGr), (std::set<Key>{{11, "BAR-001"}})) << dump(FGr);
}

TEST(Checkers, Bar001SkippedByLiveThreadAfterEarlyReturn) {
  // Threads >= 128 exit; threads 64..127 skip the barrier and stay alive:
  // still divergent (CUDA Guide, conditional __syncthreads()).
  auto F = runAll(
      earlyReturn(ge(tid(), c(128)), lt(tid(), c(64)), BarrierKind::Block)
          .module());
  EXPECT_EQ(keys(F), (std::set<Key>{{11, "BAR-001"}})) << dump(F);
  const Finding *X = find(F, "BAR-001");
  ASSERT_TRUE(X);
  int64_t T2 = std::stoll(X->Witness.at("t2"));
  EXPECT_GE(T2, 64);
  EXPECT_LT(T2, 128);
}

TEST(Checkers, Bar001NamedBarrierOfAWarpGroup) {
  // A 512-thread block: the producer half (threads < 256) syncs on named
  // barrier 1 for 256 threads, the consumers never reach it. Resolved
  // operands (Event::BarrierId / BarrierThreads, through a helper's
  // `bar.sync %0, %1`) make it a barrier of 256 threads: no finding. With
  // a thread count of blockDim.x it waits for every thread: divergent.
  auto Run = [](ExprRef Threads) {
    KB K("warp_groups");
    K.stdParams().launch(4, 512);
    K.when(lt(tid(), c(256)));
    Event &B = K.sync(11, BarrierKind::Named);
    B.Text = "bar.sync %0, %1;";
    B.BarrierId = c(1);
    B.BarrierThreads = Threads;
    K.end();
    return runAll(K.module());
  };
  auto FG = Run(c(256));
  EXPECT_TRUE(FG.empty()) << dump(FG);
  auto F = Run(v("bdim.x"));
  EXPECT_EQ(keys(F), (std::set<Key>{{11, "BAR-001"}})) << dump(F);
}

/// Warp 0 syncs on named barrier 1, the other threads arrive on barrier
/// \p ArriveId (PTX ISA "bar, barrier"), both with count operand %0.
KB namedSplit(const char *ArriveId) {
  KB K("named_split");
  K.stdParams().launch(4, 256);
  K.when(lt(tid(), c(32)));
  K.sync(11, BarrierKind::Named).Text = "barrier.cta.sync 1, %0;";
  K.end();
  K.when(ge(tid(), c(32)));
  K.sync(13, BarrierKind::Named).Text =
      std::string("barrier.cta.arrive ") + ArriveId + ", %0;";
  K.end();
  return K;
}

TEST(Checkers, Bar001NamedBarrierArriveSplit) {
  // Sync in warp 0 + arrive in the others on the same id and count: legal.
  auto FG = runAll(namedSplit("1").module());
  EXPECT_TRUE(FG.empty()) << dump(FG);
  // The arrive is on another barrier: barrier 1 and barrier 2 both diverge.
  auto F = runAll(namedSplit("2").module());
  EXPECT_EQ(keys(F), (std::set<Key>{{11, "BAR-001"}, {13, "BAR-001"}}))
      << dump(F);
}

} // namespace
