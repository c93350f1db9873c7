//===- StatsRooflineTest.cpp - Statistics, roofline, busbw ----------------===//
#include "pkb/rt/Bench.h"
#include "pkb/rt/Problem.h"
#include "pkb/rt/Roofline.h"
#include "pkb/rt/Stats.h"
#include "pkb/rt/Verdict.h"

#include <gtest/gtest.h>

#include <stdexcept>
#include <vector>

using namespace pkb::rt;

TEST(Stats, PercentilesLinearInterpolation) {
  std::vector<double> V = {5, 1, 4, 2, 3}; // sorted 1..5
  Summary S = summarize(V);
  EXPECT_EQ(S.N, 5u);
  EXPECT_EQ(S.Median, 3.0);
  EXPECT_DOUBLE_EQ(S.P10, 1.4); // position 0.4
  EXPECT_DOUBLE_EQ(S.P90, 4.6); // position 3.6
  EXPECT_EQ(S.Min, 1.0);
  EXPECT_EQ(S.Max, 5.0);
  EXPECT_EQ(S.Mean, 3.0);
}

TEST(Stats, EvenCountAndEdges) {
  std::vector<double> V = {10, 20, 30, 40};
  EXPECT_EQ(summarize(V).Median, 25.0);
  EXPECT_EQ(percentileSorted(V, 0.0), 10.0);
  EXPECT_EQ(percentileSorted(V, 1.0), 40.0);
  EXPECT_EQ(summarize(std::vector<double>{}).N, 0u);
  auto J = toJson(summarize(V), 1000.0, "_us");
  EXPECT_EQ(J["median_us"], 25000.0);
}

TEST(Roofline, BindingTermAndFraction) {
  RooflineTerms T{400e6, 800e6, 1e6};
  MachineRates M{400e9, 4000e9, 50e12};
  RooflineResult R = roofline(T, M, 2e-3);
  EXPECT_DOUBLE_EQ(R.NvlinkSeconds, 1e-3);
  EXPECT_DOUBLE_EQ(R.HbmSeconds, 0.2e-3);
  EXPECT_DOUBLE_EQ(R.FlopSeconds, 2e-8);
  EXPECT_EQ(R.Binding, "nvlink");
  EXPECT_DOUBLE_EQ(R.FloorSeconds, 1e-3);
  EXPECT_DOUBLE_EQ(R.AchievedFraction, 0.5);
}

TEST(Roofline, UnknownRatesAreSkipped) {
  RooflineResult R = roofline({1e9, 1e9, 0}, {0, 1e12, 0}, 0);
  EXPECT_EQ(R.Binding, "hbm");
  EXPECT_DOUBLE_EQ(R.FloorSeconds, 1e-3);
  EXPECT_EQ(R.AchievedFraction, 0.0);
  EXPECT_EQ(roofline({}, {}, 1).Binding, "none");
}

TEST(Roofline, RatesJsonRoundTrip) {
  MachineRates M{1, 2, 3};
  MachineRates B = machineRatesFromJson(toJson(M));
  EXPECT_EQ(B.NvlinkBytesPerSec, 1);
  EXPECT_EQ(B.HbmBytesPerSec, 2);
  EXPECT_EQ(B.FlopsPerSec, 3);
}

TEST(Problems, AllreduceSpec) {
  const Problem *P = findProblem("allreduce");
  ASSERT_NE(P, nullptr);
  EXPECT_EQ(findProblem("1"), P);
  EXPECT_EQ(findProblem("nope"), nullptr);
  EXPECT_EQ(P->id(), 1);
  auto In = P->inputs(2, 0, 1024);
  ASSERT_EQ(In.size(), 1u);
  EXPECT_EQ(In[0].Dtype, PKB_DTYPE_BF16);
  EXPECT_EQ(In[0].bytes(), 2048u);
  // n = 2, S = 2 MiB: NVLink 2(n-1)/n S = S, HBM 2S, FLOPs (n-1)/n N.
  RooflineTerms T = P->roofline(2, 1 << 20);
  EXPECT_EQ(T.NvlinkBytesPerRank, 2.0 * (1 << 20));
  EXPECT_EQ(T.HbmBytesPerRank, 4.0 * (1 << 20));
  EXPECT_EQ(T.FlopsPerRank, 0.5 * (1 << 20));
  EXPECT_EQ(P->roofline(4, 1 << 20).NvlinkBytesPerRank, 3.0 * (1 << 20));
  auto Bad = P->checkSize(2, 1000);
  ASSERT_FALSE(Bad);
  EXPECT_EQ(Bad.error().Message,
            "size must be a multiple of 8 x world size (16-byte shards)");
  EXPECT_TRUE(P->checkSize(2, 1024));
  pkb_tensor V = makeTensor(In[0], nullptr);
  EXPECT_EQ(V.ndim, 1);
  EXPECT_EQ(V.shape[0], 1024);
  EXPECT_EQ(V.shape[3], 1);
  EXPECT_NE(mixSeed(1, 2), mixSeed(2, 1));
}

TEST(Bench, NcclTestsBusBwFactors) {
  EXPECT_DOUBLE_EQ(busBwFactor("all_reduce", 8), 1.75);
  EXPECT_DOUBLE_EQ(busBwFactor("all_reduce", 2), 1.0);
  EXPECT_DOUBLE_EQ(busBwFactor("all_gather", 4), 0.75);
  EXPECT_DOUBLE_EQ(busBwFactor("reduce_scatter", 2), 0.5);
  EXPECT_DOUBLE_EQ(busBwFactor("alltoall", 8), 0.875);
  EXPECT_DOUBLE_EQ(busBwFactor("broadcast", 8), 1.0);
  EXPECT_THROW(busBwFactor("gather", 2), std::invalid_argument);
}

TEST(Verdicts, NamesSeverityFatal) {
  EXPECT_EQ(verdictName(Verdict::UnwrittenOutput), "unwritten-output");
  EXPECT_EQ(parseVerdict("deadlock"), Verdict::Deadlock);
  EXPECT_FALSE(parseVerdict("meh").has_value());
  EXPECT_EQ(worseVerdict(Verdict::WrongOutput, Verdict::Deadlock),
            Verdict::Deadlock);
  EXPECT_EQ(worseVerdict(Verdict::UnwrittenOutput, Verdict::WrongOutput),
            Verdict::UnwrittenOutput);
  EXPECT_TRUE(isFatalVerdict(Verdict::RuntimeError));
  EXPECT_FALSE(isFatalVerdict(Verdict::WrongOutput));
}
