//===- EngineClassifyTest.cpp - Event classification ----------------------===//
//
// Unit tests of checkers/EngineClassify.cpp: event and order predicates,
// expression helpers and Analysis's flag / symmetric bases, signals, waits.
//
//===----------------------------------------------------------------------===//
#include "EngineTestUtil.h"

#include "pkb/Enrich.h"

using namespace pkb;
using namespace pkb::chk;
using namespace pkb::dsl;
using namespace pkb::cktest;

namespace {

TEST(EngineClassify, EventKindsAndOrders) {
  Event St, Ld, At;
  St.Kind = EventKind::Store;
  Ld.Kind = EventKind::Load;
  At.Kind = EventKind::Atomic;
  EXPECT_TRUE(isWriteEvent(St) && !isReadEvent(St) && !isRmwEvent(St));
  EXPECT_TRUE(isReadEvent(Ld) && !isWriteEvent(Ld));
  EXPECT_TRUE(isWriteEvent(At) && isReadEvent(At) && isRmwEvent(At));
  EXPECT_TRUE(isReleaseOrder(MemOrder::AcqRel) &&
              isAcquireOrder(MemOrder::AcqRel));
  EXPECT_FALSE(isAcquireOrder(MemOrder::Release));
  EXPECT_FALSE(isStrongOrder(MemOrder::Plain));
  EXPECT_TRUE(isStrongOrder(MemOrder::Relaxed));
  St.Order = MemOrder::Volatile;
  EXPECT_EQ(effectiveScope(St), Scope::System);
  St.Scp = Scope::CTA;
  EXPECT_EQ(effectiveScope(St), Scope::CTA);
}

TEST(EngineClassify, AlignedToWidth) {
  Event E;
  E.Kind = EventKind::Store;
  E.Width = 4;
  EXPECT_FALSE(alignedToWidth(E)); // no element index
  E.Addr.Index = bid() * c(8) + rank();
  EXPECT_TRUE(alignedToWidth(E));
  E.Addr.ByteOffset = c(8);
  EXPECT_TRUE(alignedToWidth(E));
  E.Addr.ByteOffset = c(2); // a 4-byte flag at byte 4k + 2
  EXPECT_FALSE(alignedToWidth(E));
  E.Addr.ByteOffset = tid();
  EXPECT_FALSE(alignedToWidth(E));
  E.Addr.ByteOffset = nullptr;
  E.Width = 0; // an access of unknown size
  EXPECT_FALSE(alignedToWidth(E));
}

TEST(EngineClassify, ExpressionHelpers) {
  EXPECT_TRUE(isThreadVarying(tid() + c(1)));
  EXPECT_FALSE(isThreadVarying(bid() * c(8) + rank()));
  EXPECT_EQ(constOf(c(7)), std::optional<int64_t>(7));
  EXPECT_EQ(constOf(tid()), std::nullopt);
  std::vector<ExprRef> Parts;
  splitConj(Expr::binary(ExprOp::LAnd, lt(tid(), W()), eq(bid(), c(0))), Parts);
  EXPECT_EQ(Parts.size(), 2u);
  EXPECT_TRUE(startsWith("param:n", "param:"));
  EXPECT_FALSE(startsWith("par", "param:"));
}

TEST(EngineClassify, FlagAndSymmetricBases) {
  KB K;
  K.stdParams().launch(4, 256);
  K.store(11, addr("bufs", rank(), tid()));
  K.mem(EventKind::Store, 21, addr("pads", tid(), rank()), 4, MemOrder::Release,
        Scope::System, c(1));
  K.spin(22, addr("pads", rank(), tid()), c(1));
  K.load(31, addr("out", nullptr, tid()));
  Fixture F(K);
  EXPECT_TRUE(F->FlagBases.count("pads"));
  EXPECT_TRUE(F->SymBases.count("bufs"));
  EXPECT_FALSE(F->SymBases.count("pads"));
  EXPECT_EQ(F->Signals, std::vector<size_t>{1});
  EXPECT_EQ(F->Waits, std::vector<size_t>{2});
  EXPECT_TRUE(F->isPeerVisible(0));
  EXPECT_FALSE(F->isData(1));
  EXPECT_TRUE(F->isData(3) && !F->isPeerVisible(3));
  EXPECT_TRUE(F->isCrossRankFlag("pads"));
}

/// The enrichment pass's launch shape (docs/model-schema.md): when every
/// visible launch has a one-dimensional block and grid, the y and z
/// coordinates are 0 and the dimensions 1 in the kernel's expressions, so
/// `cg::this_thread_block().thread_rank()` and `size()` read tid.x and
/// bdim.x; a kernel without such launches keeps the general expressions.
TEST(Enrich, OneDimensionalLaunchesFixTheYAndZCoordinates) {
  auto Rank = [](const char *I, const char *D) { // I.x + D.x*(I.y + D.y*I.z)
    std::string Ix = I, Dx = D;
    return v(Ix + ".x") +
           v(Dx + ".x") * (v(Ix + ".y") + v(Dx + ".y") * v(Ix + ".z"));
  };
  auto Build = [&](std::vector<LaunchSite> Ls) {
    KernelModel K;
    K.Name = "k";
    Loop L;
    L.Id = 0;
    L.InductionVar = "i";
    L.Init = Rank("tid", "bdim");
    L.Step = v("bdim.x") * v("bdim.y") * v("bdim.z");
    L.Bound = v("param:n");
    K.Loops.push_back(L);
    Event E;
    E.Kind = EventKind::Store;
    E.Addr.Base = "out";
    E.Addr.Index = Rank("bid", "gdim") + v("loop:0");
    E.Guard = {eq(v("tid.y"), c(0))};
    E.Loops = {0};
    K.Events.push_back(E);
    // A named barrier over every thread of the block (`bar.sync 1,
    // blockDim.x * blockDim.y`).
    Event B;
    B.Kind = EventKind::Barrier;
    B.BarrierId = c(1);
    B.BarrierThreads = v("bdim.x") * v("bdim.y");
    K.Events.push_back(B);
    K.Launches = std::move(Ls);
    enrichKernel(K);
    return K;
  };
  LaunchSite OneD;
  OneD.GridX = v("param:g"); // not constant: the grid's x is free
  OneD.GridY = OneD.GridZ = c(1);
  OneD.BlockX = c(256);
  OneD.BlockY = OneD.BlockZ = c(1);
  KernelModel K = Build({OneD, OneD});
  EXPECT_TRUE(K.Facts.Block1D && K.Facts.Grid1D);
  EXPECT_EQ(K.Loops[0].Init->str(), "tid.x");
  EXPECT_EQ(K.Loops[0].Step->str(), "bdim.x");
  EXPECT_EQ(K.Events[0].Addr.Index->str(), "bid.x + loop:0");
  EXPECT_EQ(K.Events[0].Guard[0]->str(), "1");
  EXPECT_EQ(K.Events[1].BarrierThreads->str(), "bdim.x");

  // A two-dimensional block at one launch keeps the block's y and z; the
  // grid is still one-dimensional.
  LaunchSite TwoD = OneD;
  TwoD.BlockY = c(2);
  K = Build({OneD, TwoD});
  EXPECT_TRUE(!K.Facts.Block1D && K.Facts.Grid1D);
  EXPECT_EQ(K.Loops[0].Init->str(), Rank("tid", "bdim")->str());
  EXPECT_EQ(K.Events[0].Addr.Index->str(), "bid.x + loop:0");

  // No visible launch: nothing is assumed.
  K = Build({});
  EXPECT_TRUE(!K.Facts.Block1D && !K.Facts.Grid1D);
  EXPECT_EQ(K.Events[0].Addr.Index->str(),
            (Rank("bid", "gdim") + v("loop:0"))->str());
}

} // namespace
