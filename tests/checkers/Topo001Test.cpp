//===- Topo001Test.cpp - TOPO-001 on hand-built models --------------------===//
//
// TOPO-001: a bad model that must produce exactly this finding (line,
// severity, witness where meaningful) and nothing else, and a good model
// that produces none.
//
//===----------------------------------------------------------------------===//
#include "CheckerTestUtil.h"

using namespace pkb;
using namespace pkb::cktest;

namespace {

TEST(Checkers, Topo001MulticastOnTargetWithout) {
  KB K("mc");
  K.param("mc", ParamRole::Multicast, 4);
  K.launch(4, 256);
  unsigned I = K.beginLoop(gtid(), v("param:n"), stride());
  Event &E = K.store(22, addr("mc", nullptr, K.lv(I), AddrSpace::Multicast));
  E.Text = "multimem.st.relaxed.sys.global.f32";
  K.endLoop();
  // No target named: a note that the code needs NVLS, not an error.
  auto FN = runAll(K.module());
  ASSERT_TRUE(find(FN, "TOPO-001")) << dump(FN);
  EXPECT_EQ(find(FN, "TOPO-001")->Sev, Severity::Note);
  // A named target without NVLS: an error; with NVLS: a warning.
  CheckOptions Two, Nvs;
  auto TwoT = resolveTopology("h200x2-nvlink");
  auto NvsT = resolveTopology("h100x8-nvswitch");
  ASSERT_TRUE(TwoT);
  ASSERT_TRUE(NvsT);
  Two.Target = *TwoT;
  Nvs.Target = *NvsT;
  auto F = runAll(K.module(), Two);
  EXPECT_EQ(keys(F), (std::set<Key>{{22, "TOPO-001"}})) << dump(F);
  EXPECT_EQ(find(F, "TOPO-001")->Sev, Severity::Error);
  auto FW = runAll(K.module(), Nvs);
  ASSERT_TRUE(find(FW, "TOPO-001")) << dump(FW);
  EXPECT_EQ(find(FW, "TOPO-001")->Sev, Severity::Warning);
  // Guarded by a null check: fine.
  KB G("mc_ok");
  G.param("mc", ParamRole::Multicast, 4);
  G.launch(4, 256);
  G.when(ne(v("param:mc"), c(0)));
  unsigned J = G.beginLoop(gtid(), v("param:n"), stride());
  Event &E2 = G.store(22, addr("mc", nullptr, G.lv(J), AddrSpace::Multicast));
  E2.Text = "multimem.st.relaxed.sys.global.f32";
  G.endLoop();
  G.end();
  EXPECT_TRUE(runAll(G.module(), Two).empty());
}

} // namespace
