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
