//===- EngineFindingsTest.cpp - Finding builder ---------------------------===//
//
// Unit tests of checkers/EngineFindings.cpp: descriptions, de-duplication,
// severity from outcomes, and the report of an undecided query.
//
//===----------------------------------------------------------------------===//
#include "EngineTestUtil.h"

using namespace pkb;
using namespace pkb::chk;
using namespace pkb::dsl;
using namespace pkb::cktest;

namespace {

TEST(EngineFindings, DescribeAndEmit) {
  KB K;
  Event &E = K.store(11, addr("bufs", rank(), tid()));
  EXPECT_EQ(describe(E), "store bufs[rank][tid.x]");
  std::vector<Finding> Out;
  Finding F = makeFinding("RACE-002", K.K, E.Loc, "m", "f");
  relate(F, "write", E);
  EXPECT_EQ(F.Sev, Severity::Error);
  ASSERT_EQ(F.Related.size(), 1u);
  emit(Out, F);
  emit(Out, F);
  EXPECT_EQ(Out.size(), 1u);
  F.Loc.Line = 12;
  EXPECT_FALSE(reported(Out, "RACE-002", K.K.Name, F.Loc));
  emit(Out, F);
  EXPECT_EQ(Out.size(), 2u);
  EXPECT_TRUE(reported(Out, "RACE-002", K.K.Name, F.Loc));
  EXPECT_FALSE(reported(Out, "PART-002", K.K.Name, F.Loc));
  EXPECT_FALSE(reported(Out, "RACE-002", "other", F.Loc));
  SourceLoc Elsewhere = F.Loc;
  Elsewhere.File = "other.cu";
  EXPECT_FALSE(reported(Out, "RACE-002", K.K.Name, Elsewhere));
}

TEST(EngineFindings, ApplyOutcome) {
  KB K;
  Finding F = makeFinding("PART-002", K.K, K.K.Loc, "m", "f");
  Outcome R;
  R.K = Outcome::Sat;
  R.Witness["W"] = "2";
  applyOutcome(F, R);
  EXPECT_EQ(F.Sev, Severity::Error);
  EXPECT_EQ(F.Witness.at("W"), "2");
  R.Approx = true;
  applyOutcome(F, R);
  EXPECT_EQ(F.Sev, Severity::Warning);
}

TEST(EngineFindings, EmitUnknown) {
  KB K;
  Event &E = K.load(31, addr("bufs", rank(), tid()));
  Outcome R;
  R.K = Outcome::Unknown;
  R.Reason = "budget";
  std::vector<Finding> Out;
  std::vector<Diagnostic> Diags;
  emitUnknown("PART-001", K.K, E, "the peer index", R, Out, Diags);
  ASSERT_EQ(Out.size(), 1u);
  EXPECT_EQ(Out[0].Sev, Severity::Warning);
  ASSERT_EQ(Diags.size(), 1u);
  EXPECT_EQ(Diags[0].Code, "solver-unknown");
  EXPECT_NE(Diags[0].Message.find("(budget)"), std::string::npos);
}

} // namespace
