//===- GpuTest.cpp - Runtime harness on real GPUs (label gpu) -------------===//
//
// Each test skips (GTEST_SKIP) when cudaGetDeviceCount fails or returns 0.
// Broken candidates in runtime/testdata must get exactly their verdict.
//
//===----------------------------------------------------------------------===//
#include "pkb/rt/Launcher.h"
#include "pkb/rt/Problem.h"
#include "pkb/rt/Session.h"

#include "HostRefOps.h"

#include <cuda_runtime_api.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <map>
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

TEST_F(Gpu, CrossCallRaceIsWrongOutputInBackToBackCalls) {
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

// ---- correctness-only runs with several ranks on one GPU ------------------
// All ranks on device 0 (VisibleGpus = 1 whatever the machine has): no NCCL,
// local references, no timing.

TEST_F(Gpu, OversubscribedSymmetricHeapRoundTrips) {
  GroupSpec G;
  G.WorldSize = 4;
  G.Exe = O.Exe;
  G.Config = {{"mode", "heap-check"},
              {"bytes", 1 << 20},
              {"oversubscribe", true},
              {"gpus", 1}};
  std::map<int, nlohmann::json> Res;
  G.OnResult = [&](int R, const nlohmann::json &J) { Res[R] = J; };
  GroupOutcome Out = runWorkerGroup(G);
  ASSERT_EQ(Out.Hub.K, HubOutcome::Kind::Completed)
      << Out.Hub.Detail << Out.LogTail[0] << Out.LogTail[1];
  ASSERT_EQ(Res.size(), 4u);
  for (auto &[R, J] : Res) {
    EXPECT_EQ(J["verdict"], "pass") << J.dump();
    EXPECT_EQ(J["device"], 0) << J.dump();
    std::printf("rank %d on device 0, symmetric heap backend: %s\n", R,
                J["symm_backend"].get<std::string>().c_str());
  }
}

TEST_F(Gpu, OversubscribedCorrectCandidatePasses) {
  O.Oversubscribe = true;
  O.VisibleGpus = 1;
  O.Timing = true;   // ignored: correctness-only never times
  O.DeadlineSec = 0; // the oversubscribed default (30 s)
  for (int W : {2, 4}) {
    O.Gpus = W;
    O.Sizes = W == 2 ? std::vector<int64_t>{4096, 1 << 20}
                     : std::vector<int64_t>{4096};
    O.Force = true;
    RunSummary S = runKernel("allreduce_oneshot.cu");
    ASSERT_EQ(S.Records.size(), O.Sizes.size());
    for (const auto &R : S.Records) {
      EXPECT_EQ(R["verdict"], "pass") << R.dump(2);
      EXPECT_EQ(R["mode"], "correctness-only");
      EXPECT_EQ(R["mode_detail"], correctnessOnlyDetail(W, 1));
      EXPECT_FALSE(R.contains("timing")) << R.dump(2);
      ASSERT_EQ(R["ranks"].size(), static_cast<size_t>(W));
      for (const auto &Rk : R["ranks"]) {
        EXPECT_EQ(Rk["device"], 0) << Rk.dump();
        EXPECT_EQ(Rk["reference"], "local") << Rk.dump();
        EXPECT_EQ(Rk["checks"], 7) << Rk.dump(); // 3 trials + 4 back-to-back
      }
    }
  }
}

TEST_F(Gpu, OversubscribedCrossCallRaceIsCaught) {
  // Time-slicing lets one rank run several calls ahead of its peer, so the
  // missing exit barrier shows up as a wrong back-to-back call.
  O.Oversubscribe = true;
  O.VisibleGpus = 1;
  O.Gpus = 2;
  O.DeadlineSec = 0;
  RunSummary S = runKernel("broken_cross_call_race.cu");
  ASSERT_EQ(S.Records.size(), 2u);
  int Caught = 0;
  for (const auto &R : S.Records) {
    EXPECT_NE(R["verdict"], "pass") << R.dump(2);
    if (R["verdict"] == "wrong-output" &&
        R["detail"].get<std::string>().find("back-to-back") !=
            std::string::npos)
      ++Caught;
  }
  EXPECT_GE(Caught, 1);
}

TEST_F(Gpu, OversubscribedDeadlockIsCaught) {
  O.Oversubscribe = true;
  O.VisibleGpus = 1;
  O.Gpus = 2;
  O.DeadlineSec = 3;
  O.Sizes = {4096};
  RunSummary S = runKernel("broken_deadlock.cu");
  ASSERT_EQ(S.Records.size(), 1u);
  EXPECT_EQ(S.Records[0]["verdict"], "deadlock") << S.Records[0].dump(2);
}

TEST_F(Gpu, OversubscribedEightRanksOnOneGpu) {
  O.Oversubscribe = true;
  O.VisibleGpus = 1;
  O.Gpus = 8;
  O.DeadlineSec = 0;
  O.Sizes = {4096};
  RunSummary S = runKernel("allreduce_oneshot.cu");
  ASSERT_EQ(S.Records.size(), 1u);
  EXPECT_EQ(S.Records[0]["verdict"], "pass") << S.Records[0].dump(2);
  EXPECT_EQ(S.Records[0]["mode_detail"], "correctness-only (8 ranks on 1 GPU)");
}

namespace {
/// Every rank's inputs generated on the device exactly as the worker does
/// (generateInputs with inputSeed), kept for the host copy.
struct DeviceWorld {
  DeviceWorld(const Problem &P, int W, int64_t Size, cudaStream_t S) {
    for (int R = 0; R < W; ++R) {
      auto Specs = P.inputs(W, R, Size);
      for (const auto &Sp : Specs) {
        void *D = nullptr;
        EXPECT_EQ(cudaMalloc(&D, std::max<size_t>(Sp.bytes(), 16)),
                  cudaSuccess);
        Ptrs.push_back(D);
        Dev[R].push_back(makeTensor(Sp, D));
      }
      P.generateInputs({R, W, 0, S, nullptr}, Dev[R],
                       inputSeed(0x5EED, Size, 7, R));
    }
    EXPECT_EQ(cudaStreamSynchronize(S), cudaSuccess);
    for (auto &[R, Views] : Dev)
      for (const auto &T : Views) {
        size_t Bytes = static_cast<size_t>(T.shape[0] * T.shape[1] *
                                           T.shape[2] * T.shape[3]) *
                       dtypeSize(static_cast<pkb_dtype>(T.dtype));
        Host[R].emplace_back(Bytes);
        EXPECT_EQ(cudaMemcpy(Host[R].back().data(), T.data, Bytes,
                             cudaMemcpyDeviceToHost),
                  cudaSuccess);
        pkb_tensor H = T;
        H.data = Host[R].back().data();
        HostViews[R].push_back(H);
      }
  }
  ~DeviceWorld() {
    for (void *D : Ptrs)
      cudaFree(D);
  }
  std::vector<void *> Ptrs;
  std::map<int, std::vector<pkb_tensor>> Dev, HostViews;
  std::map<int, std::vector<std::vector<char>>> Host;
};

class MapInputs final : public RankInputs {
public:
  explicit MapInputs(std::map<int, std::vector<pkb_tensor>> &M) : M(M) {}
  std::span<const pkb_tensor> of(int R) override {
    auto It = M.find(R);
    return It == M.end() ? std::span<const pkb_tensor>()
                         : std::span<const pkb_tensor>(It->second);
  }

private:
  std::map<int, std::vector<pkb_tensor>> &M;
};
} // namespace

TEST_F(Gpu, LocalReferencesOnTheDeviceMatchTheHostExecutor) {
  // The device executor (sum kernel, cuBLAS GEMM, RMSNorm kernels, copies)
  // and the device input generation against the host executor on the same
  // inputs, for every problem at W = 4 (all "ranks" in this process).
  ASSERT_EQ(cudaSetDevice(0), cudaSuccess);
  cudaStream_t St = nullptr;
  ASSERT_EQ(cudaStreamCreate(&St), cudaSuccess);
  const int W = 4;
  for (const Problem *P : allProblems()) {
    std::string N(P->name());
    int64_t Size = N == "allreduce"                                ? 8 * W * 64
                   : (N == "gemm_allreduce" || N == "tp_rms_norm") ? 16
                                                                   : 1000;
    auto Ok = P->checkSize(W, Size);
    ASSERT_TRUE(Ok) << Ok.error().Message << ": " << N;
    DeviceWorld Wd(*P, W, Size, St);
    for (int R = 0; R < W; ++R) {
      SCOPED_TRACE(N + " rank " + std::to_string(R));
      auto OutSpecs = P->outputs(W, R, Size);
      std::vector<void *> DOut;
      std::vector<pkb_tensor> DViews, HViews;
      std::vector<std::vector<char>> HOut, Got;
      for (const auto &Sp : OutSpecs) {
        void *D = nullptr;
        ASSERT_EQ(cudaMalloc(&D, Sp.bytes()), cudaSuccess);
        DOut.push_back(D);
        DViews.push_back(makeTensor(Sp, D));
        HOut.emplace_back(Sp.bytes());
        HViews.push_back(makeTensor(Sp, HOut.back().data()));
      }
      {
        MapInputs In(Wd.Dev);
        auto Ops = makeDeviceRefOps(St);
        auto Done = P->localReference({R, W, 0, St, nullptr}, In, DViews, *Ops);
        ASSERT_TRUE(Done) << Done.error().Message;
        ASSERT_EQ(cudaStreamSynchronize(St), cudaSuccess);
      }
      MapInputs HIn(Wd.HostViews);
      pkb::rt::test::HostRefOps HOps;
      auto HDone =
          P->localReference({R, W, 0, nullptr, nullptr}, HIn, HViews, HOps);
      ASSERT_TRUE(HDone) << HDone.error().Message;
      for (size_t I = 0; I < OutSpecs.size(); ++I) {
        std::vector<char> G(OutSpecs[I].bytes());
        ASSERT_EQ(
            cudaMemcpy(G.data(), DOut[I], G.size(), cudaMemcpyDeviceToHost),
            cudaSuccess);
        CompareResult C =
            compareBuffers(G.data(), HOut[I].data(), OutSpecs[I].numel(),
                           OutSpecs[I].Dtype, P->tolerance(OutSpecs[I]));
        EXPECT_TRUE(C.ok()) << describe(C);
        cudaFree(DOut[I]);
      }
    }
  }
  cudaStreamDestroy(St);
}
