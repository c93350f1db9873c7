//===- LauncherTest.cpp - Launcher, hub and watchdog with fake workers ----===//
//
// Fake workers (`pkbcheck-rt worker` in mode "fake") use no CUDA: they run
// the real bootstrap, allgather, watchdog arming and result protocol, and
// misbehave on request (sleep forever, crash, exit non-zero, report a fatal
// CUDA error, report a wrong output) at one (rank, size).
//
//===----------------------------------------------------------------------===//
#include "pkb/rt/Session.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <unistd.h>

using namespace pkb::rt;
namespace fs = std::filesystem;

namespace {
class FakeRun : public ::testing::Test {
protected:
  void SetUp() override {
    Results = fs::temp_directory_path() /
              ("pkb-rt-fake-" + std::to_string(::getpid()) + "-" +
               ::testing::UnitTest::GetInstance()->current_test_info()->name() +
               ".jsonl");
    fs::remove(Results);
    O.Results = Results;
    O.Exe = std::string(PKB_BINARY_DIR) + "/bin/pkbcheck-rt";
    O.ProblemName = "fake";
    O.Kernels = {std::string(PKB_SOURCE_DIR) +
                 "/runtime/testdata/allreduce_oneshot.cu"};
    O.Gpus = 2;
    // Fake workers use no GPU: pin the placement to two "GPUs" so that the
    // test means the same on a CPU machine and on a one-GPU machine.
    O.VisibleGpus = 2;
    O.Sizes = {1, 2, 3};
    O.DeadlineSec = 0.5;
    O.Out = nullptr;
  }
  void TearDown() override { fs::remove(Results); }
  RunSummary run(nlohmann::json Fake) {
    O.Fake = std::move(Fake);
    return runCandidates(O);
  }
  static std::string verdict(const RunSummary &S, int64_t Size) {
    for (const auto &R : S.Records)
      if (R["size"] == Size)
        return R["verdict"];
    return "missing";
  }
  fs::path Results;
  RunOptions O;
};
} // namespace

TEST_F(FakeRun, AllPassSlowestRankMedian) {
  RunSummary S = run({{"action", "ok"}});
  ASSERT_EQ(S.Records.size(), 3u);
  EXPECT_EQ(S.Groups, 1);
  EXPECT_TRUE(S.AllPass);
  const auto &R = S.Records[0];
  EXPECT_EQ(R["verdict"], "pass");
  // Fake rank r reports candidate median 10+r, reference 2(10+r).
  EXPECT_EQ(R["timing"]["candidate"]["median_us"], 11.0);
  EXPECT_EQ(R["timing"]["candidate"]["slowest_rank"], 1);
  EXPECT_EQ(R["timing"]["reference"]["median_us"], 22.0);
  EXPECT_EQ(R["timing"]["speedup"], 2.0);
  EXPECT_EQ(R["ranks"].size(), 2u);
}

TEST_F(FakeRun, DeadlockIsKilledAndLaterSizesStillRun) {
  RunSummary S = run({{"action", "sleep"}, {"rank", 1}, {"size", 2}});
  ASSERT_EQ(S.Records.size(), 3u);
  EXPECT_EQ(verdict(S, 1), "pass");
  EXPECT_EQ(verdict(S, 2), "deadlock");
  EXPECT_EQ(verdict(S, 3), "pass");
  EXPECT_EQ(S.Groups, 2); // relaunched for size 3
  EXPECT_FALSE(S.AllPass);
  for (const auto &R : S.Records)
    if (R["size"] == 2) {
      EXPECT_EQ(R["launcher"]["rank"], 1);
      EXPECT_EQ(R["launcher"]["outcome"], "deadlock");
      EXPECT_NE(
          R["detail"].get<std::string>().find("rank 1 still running call"),
          std::string::npos);
    }
}

TEST_F(FakeRun, CrashIsRuntimeErrorNamingTheSignal) {
  RunSummary S = run({{"action", "crash"}, {"rank", 0}, {"size", 1}});
  EXPECT_EQ(verdict(S, 1), "runtime-error");
  EXPECT_EQ(verdict(S, 2), "pass");
  EXPECT_EQ(verdict(S, 3), "pass");
  for (const auto &R : S.Records)
    if (R["size"] == 1) {
      EXPECT_NE(R["detail"].get<std::string>().find("SIGSEGV"),
                std::string::npos);
    }
}

TEST_F(FakeRun, NonzeroExitIsRuntimeError) {
  RunSummary S = run({{"action", "exit"}, {"rank", 1}, {"size", 3}});
  EXPECT_EQ(verdict(S, 1), "pass");
  EXPECT_EQ(verdict(S, 2), "pass");
  EXPECT_EQ(verdict(S, 3), "runtime-error");
  for (const auto &R : S.Records)
    if (R["size"] == 3) {
      EXPECT_NE(R["detail"].get<std::string>().find("exited with status 7"),
                std::string::npos);
    }
}

TEST_F(FakeRun, FatalResultKeepsTheWorkersCudaError) {
  RunSummary S = run({{"action", "fatal"}, {"rank", 0}, {"size", 2}});
  EXPECT_EQ(verdict(S, 2), "runtime-error");
  EXPECT_EQ(verdict(S, 3), "pass");
  for (const auto &R : S.Records)
    if (R["size"] == 2) {
      EXPECT_NE(R["detail"].get<std::string>().find("cudaErrorIllegalAddress"),
                std::string::npos);
    }
}

TEST_F(FakeRun, WrongOutputIsNotFatal) {
  RunSummary S = run({{"action", "wrong"}, {"rank", 1}, {"size", 2}});
  EXPECT_EQ(S.Groups, 1);
  EXPECT_EQ(verdict(S, 2), "wrong-output");
  EXPECT_EQ(verdict(S, 3), "pass");
  for (const auto &R : S.Records)
    if (R["size"] == 2) {
      EXPECT_FALSE(R.contains("timing"));
    }
}

TEST_F(FakeRun, ResumeSkipsDoneCases) {
  RunSummary First = run({{"action", "sleep"}, {"rank", 0}, {"size", 3}});
  EXPECT_EQ(First.Records.size(), 3u);
  RunSummary Second = run({{"action", "ok"}});
  EXPECT_EQ(Second.Records.size(), 0u);
  EXPECT_EQ(Second.SkippedDone, 3);
  EXPECT_EQ(Second.Groups, 0);
  O.Sizes = {1, 2, 3, 4};
  RunSummary Third = run({{"action", "ok"}});
  ASSERT_EQ(Third.Records.size(), 1u);
  EXPECT_EQ(Third.Records[0]["size"], 4);
  O.Force = true;
  EXPECT_EQ(run({{"action", "ok"}}).Records.size(), 4u);
}

TEST(MergeCase, MissingRankAndForcedVerdict) {
  CaseInfo I;
  I.Problem = "allreduce";
  I.KernelHash = "h";
  I.Size = 8;
  I.WorldSize = 2;
  std::map<int, nlohmann::json> R = {
      {0, {{"verdict", "pass"}, {"detail", ""}}}};
  auto M = mergeCase(I, R);
  EXPECT_EQ(M["verdict"], "internal-error");
  EXPECT_EQ(M["detail"], "rank 1 sent no result");
  EXPECT_EQ(M["key"], "allreduce|h|8|2|eager");
  auto D = mergeCase(I, R, Verdict::Deadlock, "stuck");
  EXPECT_EQ(D["verdict"], "deadlock");
  EXPECT_EQ(D["detail"], "stuck");
}

TEST(MergeCase, WorstRankWinsAndRoofline) {
  CaseInfo I;
  I.Problem = "p";
  I.WorldSize = 2;
  I.Terms = RooflineTerms{1e6, 0, 0};
  I.Rates = MachineRates{1e11, 0, 0}; // floor 10 us
  auto T = [](double C) {
    return nlohmann::json{{"candidate", {{"median_us", C}}},
                          {"reference", {{"median_us", 2 * C}}}};
  };
  std::map<int, nlohmann::json> R = {
      {0, {{"verdict", "pass"}, {"timing", T(20)}}},
      {1, {{"verdict", "pass"}, {"timing", T(40)}}}};
  auto M = mergeCase(I, R);
  EXPECT_EQ(M["verdict"], "pass");
  EXPECT_EQ(M["timing"]["candidate"]["median_us"], 40.0);
  EXPECT_EQ(M["roofline"]["candidate"]["binding"], "nvlink");
  EXPECT_DOUBLE_EQ(M["roofline"]["candidate"]["floor_us"].get<double>(), 10.0);
  EXPECT_DOUBLE_EQ(
      M["roofline"]["candidate"]["achieved_fraction"].get<double>(), 0.25);
  R[1]["verdict"] = "unwritten-output";
  R[1]["detail"] = "3 unwritten";
  R[0]["verdict"] = "wrong-output";
  auto W = mergeCase(I, R);
  EXPECT_EQ(W["verdict"], "unwritten-output");
  EXPECT_EQ(W["detail"], "rank 1: 3 unwritten");
  EXPECT_FALSE(W.contains("timing"));
}
