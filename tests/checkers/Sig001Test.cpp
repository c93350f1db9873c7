//===- Sig001Test.cpp - SIG-001 on hand-built models ----------------------===//
//
// SIG-001: a bad model that must produce exactly this finding (line,
// severity, witness where meaningful) and nothing else, and a good model
// that produces none.
//
//===----------------------------------------------------------------------===//
#include "CheckerTestUtil.h"

using namespace pkb;
using namespace pkb::cktest;

namespace {

TEST(Checkers, Sig001Collision) {
  // Slot = block only: all senders share it.
  KB K = oneBarrier(4, bid(), bid());
  auto F = runAll(K.module());
  EXPECT_EQ(keys(F), (std::set<Key>{{21, "SIG-001"}})) << dump(F);
  const Finding *X = find(F, "SIG-001");
  ASSERT_TRUE(X);
  EXPECT_EQ(X->Witness.at("W"), "2");
  EXPECT_NE(X->Witness.at("r1"), X->Witness.at("r2"));
}

TEST(Checkers, Sig001UnknownAddressSaysNothingAboutAlignmentOrThePad) {
  auto Misaligned = [](const std::vector<Finding> &F) {
    for (const Finding &X : F)
      if (X.CheckId == "SIG-001" &&
          (X.Message.find("not a multiple") != std::string::npos ||
           X.Message.find("outside the") != std::string::npos))
        return true;
    return false;
  };
  // A signal whose element index the model does not know (an atomic_ref on
  // an unresolved reference): no misalignment or out-of-pad finding from a
  // made-up offset.
  ModuleModel M = oneBarrier(4, nullptr, bid() * c(8) + tid()).module();
  auto F = runAll(M);
  EXPECT_FALSE(Misaligned(F)) << dump(F);
  // A known index two bytes off a word is still reported.
  ModuleModel M2 =
      oneBarrier(4, bid() * c(8) + rank(), bid() * c(8) + tid()).module();
  for (Event &E : M2.Kernels[0].Events)
    if (E.Loc.Line == 21)
      E.Addr.ByteOffset = c(2);
  auto F2 = runAll(M2);
  EXPECT_TRUE(Misaligned(F2)) << dump(F2);
}

TEST(Checkers, Sig001OutOfPad) {
  // 16 blocks, slot = 2048 + block * 8 + rank words: past the 2048-byte
  // torch pad of a Python input.
  KB K = oneBarrier(4, c(500) + bid() * c(8) + rank(),
                    c(500) + bid() * c(8) + tid());
  K.K.Launches.clear();
  K.launch(16, 256);
  auto F = runAll(K.module("test.py"));
  EXPECT_EQ(keys(F), (std::set<Key>{{21, "SIG-001"}})) << dump(F);
  auto FG = runAll(K.module("test.cu"));
  EXPECT_TRUE(FG.empty()) << dump(FG);
}

/// oneBarrier with the slot offset a kernel parameter: signal slot
/// `slot + rank`, waits on `slot + tid`.
KB slotParamBarrier() {
  KB K = oneBarrier(4, v("param:slot") + rank(), v("param:slot") + tid());
  K.param("slot", ParamRole::Scalar);
  K.K.Launches.clear();
  return K;
}

/// Adds a launch of 1 x 8 threads with slot = \p Slot at line \p Line.
void launchWithSlot(KB &K, int64_t Slot, unsigned Line) {
  LaunchSite L;
  L.Kernel = K.K.Name;
  L.GridX = c(1);
  L.BlockX = c(8);
  L.Args = {{"slot", c(Slot)}};
  L.Loc = {"test.cu", Line, 3};
  K.K.Launches.push_back(L);
}

TEST(Checkers, Sig001UnboundSlotIsAWarningNamingTheParameter) {
  // No visible launch: the slot leaves the pad only for large `slot`.
  KB K = slotParamBarrier();
  K.launch(1, 8);
  auto F = runAll(K.module());
  const Finding *X = find(F, "SIG-001");
  ASSERT_TRUE(X) << dump(F);
  EXPECT_EQ(X->Sev, Severity::Warning);
  EXPECT_NE(X->Message.find("holds if param:slot = "), std::string::npos)
      << X->Message;
  EXPECT_EQ(X->Witness.count("unbound"), 1u);
}

TEST(Checkers, Sig001BoundSlotsFromLaunches) {
  // Launches binding 0 and 8: every slot is inside the pad.
  KB Good = slotParamBarrier();
  launchWithSlot(Good, 0, 70);
  launchWithSlot(Good, 8, 71);
  auto FG = runAll(Good.module());
  EXPECT_EQ(find(FG, "SIG-001"), nullptr) << dump(FG);
  // A third launch binds 16380 words: rank 4's slot is byte 65536.
  KB Bad = slotParamBarrier();
  launchWithSlot(Bad, 0, 70);
  launchWithSlot(Bad, 16380, 72);
  auto FB = runAll(Bad.module());
  const Finding *X = find(FB, "SIG-001");
  ASSERT_TRUE(X) << dump(FB);
  EXPECT_EQ(X->Sev, Severity::Error);
  bool Named = false;
  for (const RelatedEvent &R : X->Related)
    Named |= R.Role == "launch" && R.Loc.Line == 72;
  EXPECT_TRUE(Named) << dump(FB);
}

TEST(Checkers, Sig001RankGuardOfTheLaunch) {
  // Thread p stores into pads[p][0], a slot that ignores the sender's
  // rank: two ranks collide, unless the launch runs only on rank 0.
  auto Kernel = [](ExprRef Guard) {
    KB K("publish");
    K.stdParams().launch(1, 8);
    K.K.Launches.back().Guard = std::move(Guard);
    K.when(lt(tid(), W()));
    K.mem(EventKind::Store, 70, addr("pads", tid(), c(0)), 4, MemOrder::Release,
          Scope::System, v("param:epoch"));
    K.end();
    return K;
  };
  auto F = runAll(Kernel(nullptr).module());
  EXPECT_EQ(keys(F), (std::set<Key>{{70, "SIG-001"}})) << dump(F);
  auto FG = runAll(Kernel(eq(rank(), c(0))).module());
  EXPECT_TRUE(FG.empty()) << dump(FG);
  // `rank != 0` leaves ranks 1 and 2 as senders from W = 3 on.
  auto FN = runAll(Kernel(lnot(eq(rank(), c(0)))).module());
  EXPECT_EQ(keys(FN), (std::set<Key>{{70, "SIG-001"}})) << dump(FN);
  const Finding *X = find(FN, "SIG-001");
  ASSERT_TRUE(X);
  EXPECT_EQ(X->Witness.at("W"), "3");
}

} // namespace
