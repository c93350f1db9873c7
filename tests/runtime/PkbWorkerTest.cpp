//===- PkbWorkerTest.cpp - The ParallelKernelBench Python worker protocol -===//
//
// runtime/python/pkb_worker.py in its self-test mode needs no torch and no
// GPU: it says hello, takes the configuration, arms a deadline, and then
// passes, reports a Python error, dies, or hangs on request. These tests run
// it under the real launcher, hub and watchdog through runPkbSolutions and
// check the records (docs/pkb.md).
//
//===----------------------------------------------------------------------===//
#include "pkb/rt/PkbRun.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <string>
#include <unistd.h>
#include <vector>

using namespace pkb::rt;
namespace fs = std::filesystem;
using nlohmann::json;

namespace {
bool havePython() { return std::system("python3 -c '' 2>/dev/null") == 0; }

class PkbWorker : public ::testing::Test {
protected:
  void SetUp() override {
    if (!havePython())
      GTEST_SKIP() << "no python3";
    Results = fs::temp_directory_path() /
              ("pkb-py-" + std::to_string(::getpid()) + "-" +
               ::testing::UnitTest::GetInstance()->current_test_info()->name() +
               ".jsonl");
    fs::remove(Results);
    O.Results = Results;
    O.Solutions = {std::string(PKB_SOURCE_DIR) +
                   "/kernels/pkb/solutions/1_allreduce_cuda.py"};
    O.DeadlineSec = 1;
    O.Shapes = {"64x32"};
  }
  void TearDown() override { fs::remove(Results); }
  std::vector<json> records() const {
    std::vector<json> R;
    std::ifstream In(Results);
    for (std::string L; std::getline(In, L);)
      R.push_back(json::parse(L));
    return R;
  }
  fs::path Results;
  PkbRunOptions O;
};
} // namespace

TEST(PkbNames, ProblemIdFromFileName) {
  EXPECT_EQ(pkbProblemId("dir/13_gemm_allreduce_cuda.py"), 13);
  EXPECT_EQ(pkbProblemId("1_allreduce.py"), 1);
  EXPECT_EQ(pkbProblemId("allreduce.py"), std::nullopt);
  EXPECT_FALSE(locatePkbWorker().empty());
}

TEST_F(PkbWorker, PassRecordsOneCasePerShape) {
  O.Selftest = "pass";
  O.Shapes = {"64x32", "8x8"};
  EXPECT_EQ(runPkbSolutions(O), 0);
  auto R = records();
  ASSERT_EQ(R.size(), 2u);
  EXPECT_EQ(R[0]["verdict"], "pass") << R[0].dump(2);
  EXPECT_EQ(R[0]["pkb_problem"], 1);
  EXPECT_EQ(R[0]["shape"], json::array({64, 32}));
  EXPECT_EQ(R[1]["shape"], json::array({8, 8}));
  // Resume: the cases are in the file, nothing runs again.
  EXPECT_EQ(runPkbSolutions(O), 0);
  EXPECT_EQ(records().size(), 2u);
}

TEST_F(PkbWorker, PythonErrorIsRuntimeErrorWithDetail) {
  O.Selftest = "error";
  EXPECT_EQ(runPkbSolutions(O), 1);
  auto R = records();
  ASSERT_EQ(R.size(), 1u);
  EXPECT_EQ(R[0]["verdict"], "runtime-error") << R[0].dump(2);
  EXPECT_NE(R[0]["detail"].get<std::string>().find("ValueError"),
            std::string::npos);
}

TEST_F(PkbWorker, DeadWorkerIsRuntimeErrorAndLauncherSurvives) {
  O.Selftest = "die";
  O.Shapes = {"64x32", "8x8"};
  EXPECT_EQ(runPkbSolutions(O), 1);
  auto R = records();
  ASSERT_EQ(R.size(), 2u);
  EXPECT_EQ(R[0]["verdict"], "runtime-error") << R[0].dump(2);
  EXPECT_EQ(R[0]["launcher"]["outcome"], "worker-died");
  EXPECT_EQ(R[1]["verdict"], "skipped");
}

TEST_F(PkbWorker, HangIsDeadlockAfterTheDeadline) {
  O.Selftest = "hang";
  auto T0 = std::chrono::steady_clock::now();
  EXPECT_EQ(runPkbSolutions(O), 1);
  double S =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - T0)
          .count();
  auto R = records();
  ASSERT_EQ(R.size(), 1u);
  EXPECT_EQ(R[0]["verdict"], "deadlock") << R[0].dump(2);
  EXPECT_EQ(R[0]["launcher"]["phase"]["phase"], "call 0");
  EXPECT_LT(S, 30.0);
}

TEST_F(PkbWorker, HangRecordStillHasVersions) {
  // The ranks log their versions before the first phase, so a record of a
  // case in which no rank sent a result carries them too.
  O.Selftest = "hang";
  EXPECT_EQ(runPkbSolutions(O), 1);
  auto R = records();
  ASSERT_EQ(R.size(), 1u);
  EXPECT_EQ(R[0]["versions"]["torch"], "selftest") << R[0].dump(2);
}

namespace {
/// A `bench peers --json` file with only an NVLink rate (bytes/s).
fs::path ratesFile(const fs::path &Results, double NvlinkBytesPerSec) {
  fs::path P = Results;
  P += ".rates.json";
  std::ofstream(P)
      << json{{"rates", {{"nvlink_bytes_per_s", NvlinkBytesPerSec}}}}.dump();
  return P;
}
} // namespace

TEST_F(PkbWorker, TimedRecordHasRooflineFractionOfBusBandwidth) {
  // Problem 1 (all-reduce), 1024 x 1024 bf16, W = 2: the byte model gives
  // 2 * 1/2 * 2 MiB = 2097152 bytes; the slowest rank (1) takes 101 us (the
  // self-test's synthetic timing), so the bus bandwidth is 2097152 / 101e-6
  // = 20.764 GB/s, and on a 100 GB/s link the fraction is 0.20764.
  O.Selftest = "timed";
  O.WorldSize = 2;
  O.Shapes = {"1024x1024"};
  O.RatesFile = ratesFile(Results, 100e9);
  EXPECT_EQ(runPkbSolutions(O), 0);
  auto R = records();
  ASSERT_EQ(R.size(), 1u);
  const json &RL = R[0]["roofline"];
  ASSERT_TRUE(RL.is_object()) << R[0].dump(2);
  EXPECT_FALSE(R[0].contains("roofline_absent"));
  EXPECT_DOUBLE_EQ(RL["byte_model"]["nvlink_bytes_per_rank"].get<double>(),
                   2097152.0);
  EXPECT_EQ(RL["byte_model"]["formula"], "2(W-1)/W * M*N*b");
  EXPECT_NEAR(RL["busbw_gbps"].get<double>(), 20.7639, 1e-3);
  EXPECT_DOUBLE_EQ(RL["link_peak_gbps"].get<double>(), 100.0);
  EXPECT_NEAR(RL["candidate"]["achieved_fraction"].get<double>(), 0.207639,
              1e-5);
  EXPECT_EQ(RL["candidate"]["binding"], "nvlink");
  // The reference (202 us) gets its fraction too, like .cu candidates.
  EXPECT_NEAR(RL["reference_achieved_fraction"].get<double>(), 0.103820, 1e-5);
  EXPECT_DOUBLE_EQ(R[0]["timing"]["speedup"].get<double>(), 2.0);
  fs::remove(O.RatesFile);
}

TEST_F(PkbWorker, RooflineAbsentSaysWhy) {
  O.Selftest = "timed";
  O.WorldSize = 2;
  O.Shapes = {"1024x1024"};
  // No rates: the bytes are known, the link peak is not.
  EXPECT_EQ(runPkbSolutions(O), 0);
  auto R = records();
  ASSERT_EQ(R.size(), 1u);
  EXPECT_NE(R[0].value("roofline_absent", "").find("--rates"),
            std::string::npos)
      << R[0].dump(2);
  EXPECT_TRUE(R[0]["roofline"].contains("byte_model"));
  // A problem without a byte model: its catalogue reason.
  O.Problem = "10";
  O.RatesFile = ratesFile(Results, 100e9);
  EXPECT_EQ(runPkbSolutions(O), 0);
  R = records();
  ASSERT_EQ(R.size(), 2u);
  EXPECT_NE(R[1].value("roofline_absent", "").find("data-dependent"),
            std::string::npos)
      << R[1].dump(2);
  EXPECT_FALSE(R[1].contains("roofline"));
  // W = 1: nothing crosses NVLink.
  O.Problem = "1";
  O.WorldSize = 1;
  EXPECT_EQ(runPkbSolutions(O), 0);
  R = records();
  ASSERT_EQ(R.size(), 3u);
  EXPECT_NE(R[2].value("roofline_absent", "").find("W = 1"), std::string::npos)
      << R[2].dump(2);
  fs::remove(O.RatesFile);
}

TEST(PkbNames, ShardSpec) {
  EXPECT_EQ(parsePkbShard("2/3"), std::make_pair(1u, 3u));
  EXPECT_EQ(parsePkbShard("1/1"), std::make_pair(0u, 1u));
  for (const char *Bad : {"0/3", "4/3", "1/0", "1", "1/", "/2", "a/b", "1/2x"})
    EXPECT_EQ(parsePkbShard(Bad), std::nullopt) << Bad;
}

TEST_F(PkbWorker, ShardRunsEveryNthSolution) {
  O.Selftest = "pass";
  std::string Dir = std::string(PKB_SOURCE_DIR) + "/kernels/pkb/solutions/";
  O.Solutions = {Dir + "1_allreduce_cuda.py", Dir + "2_allgather_cuda.py",
                 Dir + "3_broadcast_cuda.py"};
  O.Shard = "2/2"; // positions 1 only
  EXPECT_EQ(runPkbSolutions(O), 0);
  auto R = records();
  ASSERT_EQ(R.size(), 1u);
  EXPECT_EQ(R[0]["pkb_problem"], 2);
  O.Shard = "1/2"; // positions 0 and 2
  EXPECT_EQ(runPkbSolutions(O), 0);
  R = records();
  ASSERT_EQ(R.size(), 3u);
  EXPECT_EQ(R[1]["pkb_problem"], 1);
  EXPECT_EQ(R[2]["pkb_problem"], 3);
  O.Shard = "3/2";
  EXPECT_EQ(runPkbSolutions(O), 2);
}
