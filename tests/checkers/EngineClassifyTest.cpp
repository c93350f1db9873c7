//===- EngineClassifyTest.cpp - Event classification ----------------------===//
//
// Unit tests of checkers/EngineClassify.cpp: event and order predicates,
// expression helpers and Analysis's flag / symmetric bases, signals, waits.
//
//===----------------------------------------------------------------------===//
#include "EngineTestUtil.h"

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

} // namespace
