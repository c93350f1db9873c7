//===- OversubscribeTest.cpp - Correctness-only runs, CPU side ------------===//
//
// `run --oversubscribe` (more ranks than GPUs, correctness only) without a
// GPU: placement and its validation, the rank -> device mapping, the record
// of a correctness-only run (fake workers: no timing, mode and placement
// recorded, watchdog still active), the CLI's refusals, and every
// problem's local reference executed on the host (a host RefOps) against an
// independent host implementation of the problem's semantics.
//
//===----------------------------------------------------------------------===//
#include "pkb/rt/Compare.h"
#include "pkb/rt/Problem.h"
#include "pkb/rt/Session.h"

#include "HostRefOps.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <map>
#include <set>
#include <unistd.h>

using namespace pkb::rt;
using namespace pkb::rt::test;
namespace fs = std::filesystem;

// ---- placement and device mapping -----------------------------------------

TEST(Placement, MoreRanksThanGpusNeedsOversubscribe) {
  Placement P = planPlacement(4, 1, false);
  ASSERT_FALSE(P.Error.empty());
  EXPECT_NE(P.Error.find("--oversubscribe"), std::string::npos) << P.Error;
  EXPECT_NE(P.Error.find("only 1 GPU is visible"), std::string::npos)
      << P.Error;
  EXPECT_FALSE(planPlacement(8, 2, false).Error.empty());
}

TEST(Placement, OneRankPerGpuIsTheDefault) {
  Placement P = planPlacement(0, 2, false);
  EXPECT_TRUE(P.Error.empty());
  EXPECT_EQ(P.Ranks, 2);
  EXPECT_EQ(P.Gpus, 2);
  EXPECT_FALSE(P.CorrectnessOnly);
  P = planPlacement(2, 4, false);
  EXPECT_TRUE(P.Error.empty());
  EXPECT_EQ(P.Gpus, 2);
  // Unknown GPU count (no CUDA in the launcher): not refused, as before.
  EXPECT_TRUE(planPlacement(4, 0, false).Error.empty());
  EXPECT_FALSE(planPlacement(0, 0, false).Error.empty());
}

TEST(Placement, OversubscribeAllowsUpToMaxRanks) {
  for (int W : {1, 2, 4, 8}) {
    Placement P = planPlacement(W, 1, true);
    EXPECT_TRUE(P.Error.empty()) << W << ": " << P.Error;
    EXPECT_EQ(P.Ranks, W);
    EXPECT_EQ(P.Gpus, 1);
    EXPECT_TRUE(P.CorrectnessOnly);
  }
  Placement P = planPlacement(4, 8, true);
  EXPECT_EQ(P.Gpus, 4); // min(ranks, visible)
  P = planPlacement(9, 1, true);
  EXPECT_NE(P.Error.find("PKB_MAX_RANKS"), std::string::npos) << P.Error;
  P = planPlacement(4, 0, true); // unknown count: assume 1, say so
  EXPECT_TRUE(P.Error.empty());
  EXPECT_EQ(P.Gpus, 1);
  EXPECT_FALSE(P.Note.empty());
}

TEST(Placement, DeviceOfRankIsRankModuloGpus) {
  for (int R = 0; R < 8; ++R) {
    EXPECT_EQ(deviceOfRank(R, 1), 0);
    EXPECT_EQ(deviceOfRank(R, 2), R % 2);
    EXPECT_EQ(deviceOfRank(R, 8), R);
    EXPECT_EQ(deviceOfRank(R, 8, 3), R % 3); // run uses 3 of 8 devices
    EXPECT_EQ(deviceOfRank(R, 2, 4), R % 2); // worker sees fewer: its count
  }
  EXPECT_EQ(deviceOfRank(5, 0), 5); // unknown: identity
  EXPECT_EQ(correctnessOnlyDetail(4, 1), "correctness-only (4 ranks on 1 GPU)");
  EXPECT_EQ(correctnessOnlyDetail(8, 2),
            "correctness-only (8 ranks on 2 GPUs)");
}

TEST(Placement, InputSeedsDifferPerRankTagAndSize) {
  std::set<uint64_t> Seen;
  for (int R = 0; R < 8; ++R)
    for (uint64_t Tag : {0ull, 1ull, 2ull, 1000ull, 1003ull})
      for (int64_t Size : {1024, 2048})
        Seen.insert(inputSeed(0x5EED, Size, Tag, R));
  EXPECT_EQ(Seen.size(), 8u * 5 * 2);
  EXPECT_EQ(inputSeed(1, 2, 3, 4), mixSeed(mixSeed(1, 2), mixSeed(3, 4)));
}

// ---- correctness-only records with fake workers ---------------------------

namespace {
class OversubscribedRun : public ::testing::Test {
protected:
  void SetUp() override {
    Results = fs::temp_directory_path() /
              ("pkb-rt-over-" + std::to_string(::getpid()) + "-" +
               ::testing::UnitTest::GetInstance()->current_test_info()->name() +
               ".jsonl");
    fs::remove(Results);
    O.Results = Results;
    O.Exe = std::string(PKB_BINARY_DIR) + "/bin/pkbcheck-rt";
    O.ProblemName = "fake";
    O.Kernels = {std::string(PKB_SOURCE_DIR) +
                 "/runtime/testdata/allreduce_oneshot.cu"};
    O.Gpus = 4;
    O.VisibleGpus = 2;
    O.Oversubscribe = true;
    O.Sizes = {1, 2};
    O.DeadlineSec = 0.5;
    O.Out = nullptr;
  }
  void TearDown() override { fs::remove(Results); }
  fs::path Results;
  RunOptions O;
};
} // namespace

TEST_F(OversubscribedRun, RecordSaysCorrectnessOnlyWithoutTiming) {
  O.Fake = nlohmann::json{{"action", "ok"}};
  RunSummary S = runCandidates(O);
  ASSERT_EQ(S.Records.size(), 2u);
  EXPECT_TRUE(S.AllPass);
  for (const auto &R : S.Records) {
    EXPECT_EQ(R["verdict"], "pass") << R.dump(2);
    EXPECT_EQ(R["mode"], "correctness-only");
    EXPECT_EQ(R["mode_detail"], "correctness-only (4 ranks on 2 GPUs)");
    EXPECT_EQ(R["gpus"], 2);
    EXPECT_EQ(R["world_size"], 4);
    EXPECT_TRUE(R.contains("timing_disabled"));
    EXPECT_FALSE(R.contains("timing")) << R.dump(2);
    EXPECT_FALSE(R.contains("roofline")) << R.dump(2);
    EXPECT_NE(R["key"].get<std::string>().find("|correctness-only"),
              std::string::npos);
    ASSERT_EQ(R["ranks"].size(), 4u);
    for (const auto &Rank : R["ranks"])
      EXPECT_EQ(Rank["device"], Rank["rank"].get<int>() % 2) << Rank.dump();
  }
}

TEST_F(OversubscribedRun, WatchdogAndVerdictsStillApply) {
  O.Fake = nlohmann::json{{"action", "sleep"}, {"rank", 3}, {"size", 1}};
  RunSummary S = runCandidates(O);
  ASSERT_EQ(S.Records.size(), 2u);
  for (const auto &R : S.Records)
    EXPECT_EQ(R["verdict"], R["size"] == 1 ? "deadlock" : "pass") << R.dump(2);
  O.Fake = nlohmann::json{{"action", "wrong"}, {"rank", 1}, {"size", 2}};
  O.Force = true;
  S = runCandidates(O);
  for (const auto &R : S.Records)
    EXPECT_EQ(R["verdict"], R["size"] == 2 ? "wrong-output" : "pass");
}

TEST_F(OversubscribedRun, RefusedWithoutTheFlagOrWithGraph) {
  O.Fake = nlohmann::json{{"action", "ok"}};
  O.Oversubscribe = false;
  O.VisibleGpus = 1;
  try {
    runCandidates(O);
    ADD_FAILURE() << "4 ranks on 1 GPU ran without --oversubscribe";
  } catch (const std::runtime_error &E) {
    EXPECT_NE(std::string(E.what()).find("--oversubscribe"), std::string::npos)
        << E.what();
  }
  O.Oversubscribe = true;
  O.Graph = true;
  EXPECT_THROW(runCandidates(O), std::runtime_error);
}

TEST_F(OversubscribedRun, NormalRunsStillTime) {
  O.Fake = nlohmann::json{{"action", "ok"}};
  O.Oversubscribe = false;
  O.Gpus = 2;
  RunSummary S = runCandidates(O);
  ASSERT_EQ(S.Records.size(), 2u);
  for (const auto &R : S.Records) {
    EXPECT_EQ(R["mode"], "eager");
    EXPECT_TRUE(R.contains("timing"));
    EXPECT_FALSE(R.contains("mode_detail"));
  }
}

// ---- the CLI ---------------------------------------------------------------

namespace {
/// Runs pkbcheck-rt with Args (shell words) and CUDA_VISIBLE_DEVICES=Visible;
/// returns {exit status, stdout+stderr}.
std::pair<int, std::string> cli(const std::string &Args,
                                const std::string &Visible = "0") {
  std::string Cmd = "CUDA_VISIBLE_DEVICES=" + Visible + " '" +
                    std::string(PKB_BINARY_DIR) + "/bin/pkbcheck-rt' " + Args +
                    " 2>&1";
  FILE *P = ::popen(Cmd.c_str(), "r");
  if (!P)
    return {-1, ""};
  std::string Out;
  char Buf[4096];
  size_t N;
  while ((N = std::fread(Buf, 1, sizeof(Buf), P)) > 0)
    Out.append(Buf, N);
  int St = ::pclose(P);
  return {WIFEXITED(St) ? WEXITSTATUS(St) : -1, Out};
}

std::string kernelArg() {
  return "--kernel '" + std::string(PKB_SOURCE_DIR) +
         "/runtime/testdata/allreduce_oneshot.cu'";
}
} // namespace

TEST(OversubscribeCli, RunRefusesMoreRanksThanGpusWithoutTheFlag) {
  fs::path R = fs::temp_directory_path() /
               ("pkb-over-cli-" + std::to_string(::getpid()) + ".jsonl");
  auto [Rc, Out] = cli("run --problem allreduce " + kernelArg() +
                       " --gpus 4 --no-probe --results '" + R.string() + "'");
  EXPECT_EQ(Rc, 2) << Out;
  EXPECT_NE(Out.find("--oversubscribe"), std::string::npos) << Out;
  std::tie(Rc, Out) =
      cli("run --problem allreduce " + kernelArg() +
          " --gpus 2 --oversubscribe --graph --results '" + R.string() + "'");
  EXPECT_EQ(Rc, 2) << Out;
  EXPECT_NE(Out.find("--graph"), std::string::npos) << Out;
  std::tie(Rc, Out) =
      cli("run --problem allreduce " + kernelArg() +
          " --gpus 9 --oversubscribe --results '" + R.string() + "'");
  EXPECT_EQ(Rc, 2) << Out;
  EXPECT_NE(Out.find("PKB_MAX_RANKS"), std::string::npos) << Out;
  fs::remove(R);
}

TEST(OversubscribeCli, BenchmarksRefuseOversubscription) {
  auto [Rc, Out] = cli("bench nccl --oversubscribe");
  EXPECT_EQ(Rc, 2) << Out;
  EXPECT_NE(Out.find("correctness-only"), std::string::npos) << Out;
  std::tie(Rc, Out) = cli("bench peers --oversubscribe");
  EXPECT_EQ(Rc, 2) << Out;
  EXPECT_NE(Out.find("correctness-only"), std::string::npos) << Out;
  std::tie(Rc, Out) = cli("bench nccl --gpus 2");
  EXPECT_EQ(Rc, 2) << Out;
  EXPECT_NE(Out.find("one GPU per rank"), std::string::npos) << Out;
}

TEST(OversubscribeCli, HelpListsTheFlag) {
  auto [Rc, Out] = cli("run --help");
  EXPECT_EQ(Rc, 0) << Out;
  EXPECT_NE(Out.find("--oversubscribe"), std::string::npos) << Out;
}

// ---- local references on the host -----------------------------------------

namespace {
/// Host inputs of every rank: seeded bf16 values in [-1, 1), distinct per
/// rank, tensor and element (the device fill's distribution, not its bits).
struct HostWorld {
  HostWorld(const Problem &P, int W, int64_t Size) {
    for (int R = 0; R < W; ++R) {
      auto Specs = P.inputs(W, R, Size);
      for (size_t T = 0; T < Specs.size(); ++T) {
        Data[R].emplace_back(Specs[T].bytes());
        auto &D = Data[R].back();
        uint64_t Seed = mixSeed(inputSeed(0x5EED, Size, 0, R), T);
        for (int64_t I = 0; I < Specs[T].numel(); ++I) {
          uint64_t H = mixSeed(Seed, static_cast<uint64_t>(I));
          float V = static_cast<float>(H >> 40) * (2.0f / 16777216.0f) - 1.0f;
          store(Specs[T].Dtype, D.data(), static_cast<size_t>(I), V);
        }
        Views[R].push_back(makeTensor(Specs[T], D.data()));
      }
    }
  }
  std::map<int, std::vector<std::vector<char>>> Data;
  std::map<int, std::vector<pkb_tensor>> Views;
};

class HostRankInputs final : public RankInputs {
public:
  explicit HostRankInputs(HostWorld &Wd) : Wd(Wd) {}
  std::span<const pkb_tensor> of(int R) override {
    Asked.insert(R);
    auto It = Wd.Views.find(R);
    return It == Wd.Views.end() ? std::span<const pkb_tensor>()
                                : std::span<const pkb_tensor>(It->second);
  }
  std::set<int> Asked;

private:
  HostWorld &Wd;
};

/// Sizes that are small on the host and valid for every W in 1..8.
int64_t smallSize(const Problem &P, int W) {
  std::string N(P.name());
  if (N == "allreduce")
    return 8 * W * 3;
  if (N == "gemm_allreduce" || N == "tp_rms_norm")
    return 3; // rows
  return 37;  // odd: offsets that forget a factor show up
}

/// Expected outputs of rank R from the problem's semantics (docs/problems.md),
/// written independently of the problem specs.
std::vector<std::vector<float>> expected(const Problem &P, int W, int R,
                                         int64_t S, HostWorld &Wd) {
  std::string N(P.name());
  auto X = [&](int Rank, size_t T, size_t I) {
    return bf(Wd.Views[Rank][T].data, I);
  };
  auto Round = [](float V) { return bf16ToFloat(floatToBf16(V)); };
  size_t n = static_cast<size_t>(S);
  std::vector<float> Y;
  if (N == "allreduce" || (N == "reduce" && R == 0)) {
    for (size_t I = 0; I < n; ++I) {
      float Acc = 0;
      for (int p = 0; p < W; ++p)
        Acc += X(p, 0, I);
      Y.push_back(Round(Acc));
    }
  } else if (N == "reduce" || (N == "gather" && R != 0)) {
    return {};
  } else if (N == "allgather" || N == "gather") {
    for (int p = 0; p < W; ++p)
      for (size_t I = 0; I < n; ++I)
        Y.push_back(X(p, 0, I));
  } else if (N == "broadcast") {
    for (size_t I = 0; I < n; ++I)
      Y.push_back(X(0, 0, I));
  } else if (N == "scatter") {
    for (size_t I = 0; I < n; ++I)
      Y.push_back(X(0, 0, static_cast<size_t>(R) * n + I));
  } else if (N == "reducescatter") {
    for (size_t I = 0; I < n; ++I) {
      float Acc = 0;
      for (int p = 0; p < W; ++p)
        Acc += X(p, 0, static_cast<size_t>(R) * n + I);
      Y.push_back(Round(Acc));
    }
  } else if (N == "alltoall") {
    for (int p = 0; p < W; ++p)
      for (size_t I = 0; I < n; ++I)
        Y.push_back(X(p, 0, static_cast<size_t>(R) * n + I));
  } else if (N == "gemm_allreduce") {
    const size_t K = 1024, Nc = 1024;
    for (size_t i = 0; i < n; ++i)
      for (size_t j = 0; j < Nc; ++j) {
        float Acc = 0;
        for (int p = 0; p < W; ++p) {
          float Part = 0;
          for (size_t k = 0; k < K; ++k)
            Part += X(p, 0, i * K + k) * X(p, 1, k * Nc + j);
          Acc += Round(Part);
        }
        Y.push_back(Round(Acc));
      }
  } else if (N == "tp_rms_norm") {
    const size_t Hn = 1024;
    for (size_t i = 0; i < n; ++i) {
      double Ss = 0;
      for (int p = 0; p < W; ++p)
        for (size_t j = 0; j < Hn; ++j)
          Ss += double(X(p, 0, i * Hn + j)) * X(p, 0, i * Hn + j);
      double Scale = 1.0 / std::sqrt(Ss / double(Hn * W) + 1e-6);
      for (size_t j = 0; j < Hn; ++j)
        Y.push_back(Round(
            static_cast<float>(X(R, 0, i * Hn + j) * Scale * X(R, 1, j))));
    }
  } else {
    ADD_FAILURE() << "no host semantics for problem " << N
                  << ": add it to OversubscribeTest.cpp";
    return {};
  }
  return {Y};
}
} // namespace

TEST(LocalReference, EveryProblemMatchesItsSemanticsOnTheHost) {
  std::set<std::string> Names;
  for (const Problem *P : allProblems()) {
    Names.insert(std::string(P->name()));
    for (int W : {1, 2, 3, 4, 8}) {
      int64_t S = smallSize(*P, W);
      auto Ok = P->checkSize(W, S);
      ASSERT_TRUE(Ok) << Ok.error().Message << ": " << P->name() << " W=" << W;
      HostWorld Wd(*P, W, S);
      for (int R = 0; R < W; ++R) {
        SCOPED_TRACE(std::string(P->name()) + " W=" + std::to_string(W) +
                     " rank " + std::to_string(R));
        auto OutSpecs = P->outputs(W, R, S);
        std::vector<std::vector<char>> OutData;
        std::vector<pkb_tensor> Out;
        for (const auto &Sp : OutSpecs) {
          OutData.emplace_back(Sp.bytes());
          // Poison: an element the reference forgets stays NaN.
          uint64_t Poison = poisonPattern(Sp.Dtype);
          for (int64_t I = 0; I < Sp.numel(); ++I)
            std::memcpy(OutData.back().data() + I * dtypeSize(Sp.Dtype),
                        &Poison, dtypeSize(Sp.Dtype));
          Out.push_back(makeTensor(Sp, OutData.back().data()));
        }
        HostRankInputs In(Wd);
        HostRefOps Ops;
        RankInfo RI{R, W, 0, nullptr, nullptr};
        auto Done = P->localReference(RI, In, Out, Ops);
        ASSERT_TRUE(Done) << Done.error().Message;
        auto Want = expected(*P, W, R, S, Wd);
        ASSERT_EQ(Want.size(), Out.size());
        for (size_t O = 0; O < Out.size(); ++O) {
          ASSERT_EQ(Want[O].size(), static_cast<size_t>(OutSpecs[O].numel()));
          ASSERT_EQ(OutSpecs[O].Dtype, PKB_DTYPE_BF16);
          std::vector<uint16_t> WantBits;
          for (float V : Want[O])
            WantBits.push_back(floatToBf16(V));
          CompareResult C = compareBuffers(
              OutData[O].data(), WantBits.data(), OutSpecs[O].numel(),
              OutSpecs[O].Dtype, P->tolerance(OutSpecs[O]));
          EXPECT_TRUE(C.ok()) << describe(C);
          EXPECT_EQ(C.Unwritten, 0);
        }
        // The reference must not ask for ranks that do not exist.
        for (int A : In.Asked)
          EXPECT_TRUE(A >= 0 && A < W) << A;
      }
    }
  }
  // Every PKB problem with a spec is covered, the two fused ones included.
  for (const char *N :
       {"allreduce", "allgather", "broadcast", "reduce", "scatter", "gather",
        "reducescatter", "alltoall", "gemm_allreduce", "tp_rms_norm"})
    EXPECT_TRUE(Names.count(N)) << N << " is not registered";
}

TEST(LocalReference, RootedProblemsReadOnlyTheRoot) {
  for (const char *Name : {"broadcast", "scatter"}) {
    const Problem *P = findProblem(Name);
    ASSERT_NE(P, nullptr);
    HostWorld Wd(*P, 4, 16);
    for (int R = 0; R < 4; ++R) {
      auto OutSpecs = P->outputs(4, R, 16);
      std::vector<char> D(OutSpecs[0].bytes());
      std::vector<pkb_tensor> Out = {makeTensor(OutSpecs[0], D.data())};
      HostRankInputs In(Wd);
      HostRefOps Ops;
      auto Done = P->localReference({R, 4, 0, nullptr, nullptr}, In, Out, Ops);
      ASSERT_TRUE(Done) << Done.error().Message;
      EXPECT_EQ(In.Asked, std::set<int>{0}) << Name << " rank " << R;
    }
  }
}
