//===- GpuTest.cpp - Runtime harness on real GPUs (label gpu) -------------===//
//
// Each test skips (GTEST_SKIP) when cudaGetDeviceCount fails or returns 0.
// Broken candidates in runtime/testdata must get exactly their verdict.
//
//===----------------------------------------------------------------------===//
#include "pkb/rt/Launcher.h"
#include "pkb/rt/Session.h"

#include <cuda_runtime_api.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <unistd.h>

using namespace pkb::rt;
namespace fs = std::filesystem;

namespace {
int gpuCount() {
  int N = 0;
  if (cudaGetDeviceCount(&N) != cudaSuccess)
    return 0;
  return N;
}

class Gpu : public ::testing::Test {
protected:
  void SetUp() override {
    Count = gpuCount();
    if (Count <= 0)
      GTEST_SKIP() << "no CUDA device";
    Ranks = Count >= 2 ? 2 : 1;
    Results = fs::temp_directory_path() /
              ("pkb-rt-gpu-" + std::to_string(::getpid()) + ".jsonl");
    fs::remove(Results);
    O.Results = Results;
    O.Exe = std::string(PKB_BINARY_DIR) + "/bin/pkbcheck-rt";
    O.ProblemName = "allreduce";
    O.Gpus = Ranks;
    O.Sizes = {4096, 1 << 20};
    O.Timing = false;
    O.DeadlineSec = 5;
    O.AbiInclude = fs::path(PKB_SOURCE_DIR) / "runtime" / "include";
    O.Out = stdout;
  }
  void TearDown() override { fs::remove(Results); }
  RunSummary runKernel(const std::string &Name) {
    O.Kernels = {std::string(PKB_SOURCE_DIR) + "/runtime/testdata/" + Name};
    return runCandidates(O);
  }
  int Count = 0, Ranks = 1;
  fs::path Results;
  RunOptions O;
};
} // namespace

TEST_F(Gpu, SymmetricHeapRoundTrips) {
  GroupSpec G;
  G.WorldSize = Ranks;
  G.Exe = O.Exe;
  G.Config = {{"mode", "heap-check"}, {"bytes", 8 << 20}};
  std::map<int, nlohmann::json> Res;
  G.OnResult = [&](int R, const nlohmann::json &J) { Res[R] = J; };
  GroupOutcome Out = runWorkerGroup(G);
  ASSERT_EQ(Out.Hub.K, HubOutcome::Kind::Completed)
      << Out.Hub.Detail << Out.LogTail[0];
  ASSERT_EQ(static_cast<int>(Res.size()), Ranks);
  for (auto &[R, J] : Res) {
    EXPECT_EQ(J["verdict"], "pass") << J.dump();
    std::printf("rank %d symmetric heap backend: %s\n", R,
                J["symm_backend"].get<std::string>().c_str());
  }
}

TEST_F(Gpu, CorrectCandidatePassesWithTiming) {
  O.Timing = true;
  O.Warmup = 5;
  O.Iters = 100;
  RunSummary S = runKernel("allreduce_oneshot.cu");
  ASSERT_EQ(S.Records.size(), 2u);
  for (const auto &R : S.Records) {
    EXPECT_EQ(R["verdict"], "pass") << R.dump(2);
    ASSERT_TRUE(R.contains("timing")) << R.dump(2);
    EXPECT_GT(R["timing"]["candidate"]["median_us"].get<double>(), 0);
    EXPECT_GT(R["timing"]["reference"]["median_us"].get<double>(), 0);
    EXPECT_EQ(R["timing"]["candidate"]["n"], 100);
  }
}

TEST_F(Gpu, DeadlockIsCaught) {
  O.DeadlineSec = 3;
  O.Sizes = {4096};
  RunSummary S = runKernel("broken_deadlock.cu");
  ASSERT_EQ(S.Records.size(), 1u);
  EXPECT_EQ(S.Records[0]["verdict"], "deadlock") << S.Records[0].dump(2);
}

TEST_F(Gpu, IllegalAddressIsRuntimeError) {
  O.Sizes = {4096};
  RunSummary S = runKernel("broken_illegal_address.cu");
  ASSERT_EQ(S.Records.size(), 1u);
  EXPECT_EQ(S.Records[0]["verdict"], "runtime-error") << S.Records[0].dump(2);
  EXPECT_NE(
      S.Records[0]["detail"].get<std::string>().find("cudaErrorIllegalAddress"),
      std::string::npos)
      << S.Records[0]["detail"];
}

TEST_F(Gpu, MisalignedAtomicIsRuntimeError) {
  O.Sizes = {4096};
  RunSummary S = runKernel("broken_misaligned_atomic.cu");
  ASSERT_EQ(S.Records.size(), 1u);
  EXPECT_EQ(S.Records[0]["verdict"], "runtime-error") << S.Records[0].dump(2);
  EXPECT_NE(S.Records[0]["detail"].get<std::string>().find(
                "cudaErrorMisalignedAddress"),
            std::string::npos)
      << S.Records[0]["detail"];
}

TEST_F(Gpu, CrossCallRaseIsWrongOutputInBackToBackCalls) {
  if (Ranks < 2)
    GTEST_SKIP() << "needs two GPUs";
  RunSummary S = runKernel("broken_cross_call_race.cu");
  ASSERT_EQ(S.Records.size(), 2u);
  for (const auto &R : S.Records) {
    EXPECT_EQ(R["verdict"], "wrong-output") << R.dump(2);
    EXPECT_NE(R["detail"].get<std::string>().find("back-to-back"),
              std::string::npos)
        << R["detail"];
  }
}

TEST_F(Gpu, UnwrittenOutputIsCaught) {
  RunSummary S = runKernel("broken_unwritten_output.cu");
  ASSERT_EQ(S.Records.size(), 2u);
  for (const auto &R : S.Records)
    EXPECT_EQ(R["verdict"], "unwritten-output") << R.dump(2);
}

TEST_F(Gpu, CompileErrorVerdict) {
  O.Sizes = {4096};
  RunSummary S = runKernel("broken_compile_error.cu");
  ASSERT_EQ(S.Records.size(), 1u);
  EXPECT_EQ(S.Records[0]["verdict"], "compile-error");
}
