//===- OrchestratorTest.cpp - Run plan, worker config, case merger --------===//
//
// The pieces `run`, the external-launcher path and eval share: the typed
// worker configuration and its wire form, the run plan, the typed case
// result of the merger (failure kind, first failing call, speedup) and the
// plugged worker command. CPU only.
//
//===----------------------------------------------------------------------===//
#include "pkb/rt/Session.h"
#include "pkb/rt/WorkerConfig.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <unistd.h>

using namespace pkb::rt;
namespace fs = std::filesystem;

TEST(WorkerConfig, DefaultsAndRoundTrip) {
  // Absent keys read as the struct's defaults (one set of defaults).
  WorkerConfig D = workerConfigFromJson(nlohmann::json::object());
  WorkerConfig Fresh;
  EXPECT_EQ(D.Trials, Fresh.Trials);
  EXPECT_EQ(D.DeadlineMs, Fresh.DeadlineMs);
  EXPECT_EQ(D.Seed, Fresh.Seed);
  EXPECT_TRUE(D.Timing);

  WorkerConfig C;
  C.Mode = "run";
  C.Problem = "allreduce";
  C.Library = "/tmp/x.so";
  C.Sizes = {8, 16};
  C.CaseOffset = 2;
  C.Trials = 1;     // clamped to 3 on the wire
  C.BackToBack = 9; // kept
  C.DeadlineMs = 1234;
  C.Graph = true;
  C.Oversubscribe = true;
  C.Gpus = 1;
  C.Extra = {{"bytes", 4096}};
  nlohmann::json J = toJson(C);
  EXPECT_EQ(J["trials"], 3);
  EXPECT_EQ(J["back_to_back"], 9);
  EXPECT_EQ(J["deadline_ms"], 1234);
  EXPECT_EQ(J["bytes"], 4096);
  J["rank"] = 1; // added by the hub; not an extra setting
  WorkerConfig R = workerConfigFromJson(J);
  EXPECT_EQ(R.Problem, "allreduce");
  EXPECT_EQ(R.Library, "/tmp/x.so");
  EXPECT_EQ(R.Sizes, (std::vector<int64_t>{8, 16}));
  EXPECT_EQ(R.CaseOffset, 2);
  EXPECT_EQ(R.Trials, 3);
  EXPECT_EQ(R.BackToBack, 9);
  EXPECT_TRUE(R.Graph);
  EXPECT_TRUE(R.Oversubscribe);
  EXPECT_EQ(R.Gpus, 1);
  EXPECT_EQ(R.Extra, (nlohmann::json{{"bytes", 4096}}));
  EXPECT_EQ(toJson(R), toJson(C));
}

TEST(FailureKind, NamesAndDerivation) {
  for (FailureKind K : {FailureKind::None, FailureKind::Load,
                        FailureKind::CrossCall, FailureKind::Harness})
    EXPECT_EQ(parseFailureKind(failureKindName(K)), K);
  EXPECT_FALSE(parseFailureKind("nope"));
  EXPECT_EQ(caseFailureKind(Verdict::SetupError, FailureKind::Load),
            FailureKind::Load);
  EXPECT_EQ(caseFailureKind(Verdict::SetupError), FailureKind::Setup);
  EXPECT_EQ(caseFailureKind(Verdict::WrongOutput, std::nullopt, 2),
            FailureKind::CrossCall);
  EXPECT_EQ(caseFailureKind(Verdict::UnwrittenOutput), FailureKind::Output);
  EXPECT_EQ(caseFailureKind(Verdict::Deadlock), FailureKind::Deadlock);
}

TEST(MergeCaseResult, PythonWorkerFirstFailingCallAndForcedVerdict) {
  // pkb_worker.py reports the call directly; PkbRun.cpp forces the launcher's
  // verdict and keeps the ranks' detail when it has none of its own.
  CaseInfo I;
  I.Problem = "pkb-1";
  I.WorldSize = 2;
  I.Size = 2048;
  I.Mode = "pkb-eager|64x32|bfloat16";
  std::map<int, nlohmann::json> R = {
      {0, {{"verdict", "pass"}}},
      {1,
       {{"verdict", "wrong-output"},
        {"detail", "out: 3 of 2048 elements wrong"},
        {"first_failing_call", 2}}}};
  CaseResult C = mergeCaseResult(I, R);
  EXPECT_EQ(C.V, Verdict::WrongOutput);
  EXPECT_EQ(C.FirstFailingCall, 2);
  EXPECT_EQ(C.Kind, FailureKind::CrossCall);
  EXPECT_EQ(C.Detail, "rank 1: out: 3 of 2048 elements wrong");

  std::map<int, nlohmann::json> F = {
      {0, {{"verdict", "runtime-error"}, {"detail", "ValueError: x"}}}};
  CaseResult FC = mergeCaseResult(I, F, Verdict::RuntimeError, "");
  EXPECT_EQ(FC.V, Verdict::RuntimeError); // rank 1 died: no internal-error
  EXPECT_EQ(FC.Detail, "rank 0: ValueError: x");
  CaseResult DC = mergeCaseResult(I, {}, Verdict::Deadlock, "call 0 timed out");
  EXPECT_EQ(DC.V, Verdict::Deadlock);
  EXPECT_EQ(DC.Detail, "call 0 timed out");
}

TEST(MergeCaseResult, TypedFields) {
  CaseInfo I;
  I.Problem = "p";
  I.WorldSize = 2;
  I.Size = 64;
  // Rank 1 fails only from back-to-back call 2 on; rank 0 from call 3.
  std::map<int, nlohmann::json> R = {
      {0,
       {{"verdict", "wrong-output"},
        {"detail", "back-to-back call 3 of 4"},
        {"failures", {{{"what", "x"}, {"call", 3}}}}}},
      {1,
       {{"verdict", "wrong-output"},
        {"detail", "back-to-back call 2 of 4"},
        {"failures", {{{"what", "y"}, {"call", 2}}, {{"call", 4}}}}}}};
  CaseResult C = mergeCaseResult(I, R);
  EXPECT_EQ(C.V, Verdict::WrongOutput);
  EXPECT_EQ(C.FirstFailingCall, 2);
  EXPECT_EQ(C.Kind, FailureKind::CrossCall);
  EXPECT_EQ(C.Record["failure_kind"], "cross-call");
  EXPECT_EQ(C.Record["first_failing_call"], 2);
  EXPECT_EQ(C.Size, 64);

  // A load failure reported by a rank is kept typed.
  std::map<int, nlohmann::json> L = {{0, {{"verdict", "pass"}}},
                                     {1,
                                      {{"verdict", "setup-error"},
                                       {"failure_kind", "load"},
                                       {"detail", "whatever text"}}}};
  CaseResult LC = mergeCaseResult(I, L);
  EXPECT_EQ(LC.V, Verdict::SetupError);
  EXPECT_EQ(LC.Kind, FailureKind::Load);
  EXPECT_FALSE(LC.FirstFailingCall);

  // Timed pass: speedup and roofline fraction as fields.
  I.Terms = RooflineTerms{1e6, 0, 0};
  I.Rates = MachineRates{1e11, 0, 0};
  auto T = [](double Cand) {
    return nlohmann::json{{"candidate", {{"median_us", Cand}}},
                          {"reference", {{"median_us", 3 * Cand}}}};
  };
  std::map<int, nlohmann::json> P = {
      {0, {{"verdict", "pass"}, {"timing", T(20)}}},
      {1, {{"verdict", "pass"}, {"timing", T(40)}}}};
  CaseResult PC = mergeCaseResult(I, P);
  EXPECT_EQ(PC.Kind, FailureKind::None);
  ASSERT_TRUE(PC.Speedup);
  EXPECT_DOUBLE_EQ(*PC.Speedup, 3.0);
  ASSERT_TRUE(PC.RooflineFraction);
  EXPECT_DOUBLE_EQ(*PC.RooflineFraction, 0.25);

  foldSanitizer(PC, "memcheck", 2, "rank 0: Invalid __global__ write");
  EXPECT_EQ(PC.V, Verdict::SanitizerError);
  EXPECT_EQ(PC.Kind, FailureKind::Sanitizer);
  EXPECT_EQ(PC.Record["verdict"], "sanitizer-error");
  EXPECT_EQ(PC.Record["sanitizer"]["errors"], 2);
}

namespace {
/// Options of a fake-worker run of "k.cu" with Gpus ranks, Visible GPUs.
RunOptions fakeOptions(int Gpus, int Visible) {
  RunOptions O;
  O.ProblemName = "fake";
  O.Fake = nlohmann::json::object();
  O.Kernels = {"k.cu"};
  O.Gpus = Gpus;
  O.VisibleGpus = Visible;
  return O;
}
} // namespace

TEST(RunPlan, PlacementModesAndDeadlines) {
  RunOptions O = fakeOptions(4, 1);
  EXPECT_THROW(planRun(O), std::runtime_error); // 4 ranks on 1 GPU
  O.Oversubscribe = true;
  RunPlan P = planRun(O);
  EXPECT_EQ(P.Place.Ranks, 4);
  EXPECT_EQ(P.Mode, "correctness-only");
  EXPECT_DOUBLE_EQ(P.DeadlineSec, kOversubscribedDeadlineSec);
  EXPECT_FALSE(P.Worker.Timing);
  EXPECT_TRUE(P.Worker.Oversubscribe);
  EXPECT_EQ(P.Worker.Gpus, 1);
  EXPECT_EQ(P.Worker.Mode, "fake");
  CaseInfo I = P.caseInfo("k.cu", "h", 8);
  EXPECT_TRUE(I.CorrectnessOnly);
  EXPECT_EQ(I.Gpus, 1);
  EXPECT_EQ(I.WorldSize, 4);

  O.Oversubscribe = false;
  O.VisibleGpus = 8;
  O.Sanitize = "memcheck";
  P = planRun(O);
  EXPECT_EQ(P.Mode, "sanitize-memcheck");
  EXPECT_EQ(P.Worker.DeadlineMs, 20 * 10000); // sanitizers run ~20x slower
  EXPECT_FALSE(P.Worker.Timing);

  // External launcher: its world size, no visible-GPU check, no sanitizer.
  O.VisibleGpus = 2;
  EXPECT_THROW(planRun(O, 16), std::runtime_error);
  O.Sanitize.clear();
  P = planRun(O, 16);
  EXPECT_EQ(P.Place.Ranks, 16);
  EXPECT_EQ(P.Mode, "eager");
  EXPECT_TRUE(P.Worker.Timing);

  O.Graph = true;
  O.Oversubscribe = true;
  EXPECT_THROW(planRun(O), std::runtime_error);
  O.Graph = false;
  O.Kernels.clear();
  EXPECT_THROW(planRun(O), std::runtime_error);
}

TEST(CaseMerger, MergesWhenEveryRankReported) {
  RunPlan P = planRun(fakeOptions(2, 2));
  CaseMerger M(P, "k.cu", "h");
  EXPECT_FALSE(M.add(0, {{"size", 8}, {"verdict", "pass"}}));
  EXPECT_EQ(M.partial().size(), 1u);
  auto C = M.add(1, {{"size", 8}, {"verdict", "pass"}});
  ASSERT_TRUE(C);
  EXPECT_EQ(C->V, Verdict::Pass);
  EXPECT_EQ(C->Record["key"], "fake|h|8|2|eager");
  EXPECT_TRUE(M.partial().empty());
  EXPECT_FALSE(M.add(1, {{"size", 16}, {"verdict", "pass"}}));
  CaseResult F = M.force(16, Verdict::Deadlock, "stuck");
  EXPECT_EQ(F.V, Verdict::Deadlock);
  EXPECT_EQ(F.Kind, FailureKind::Deadlock);
  EXPECT_EQ(F.Detail, "stuck");
  EXPECT_TRUE(M.partial().empty());
}

// The same merger keyed otherwise: ParallelKernelBench cases by shape text
// (PkbRun.cpp), collected first and merged once with the launcher's verdict.
TEST(CaseMerger, KeyedByShapeCollectsThenMergesOnce) {
  CaseMergerOf<std::string> M(
      2, [](const nlohmann::json &J) { return J.value("shape", ""); },
      [](const std::string &S) {
        CaseInfo I;
        I.Problem = "pkb-13";
        I.ProblemId = 13;
        I.Kernel = "13_x.py";
        I.KernelHash = "h";
        I.Size = S == "2x4" ? 8 : 0;
        I.WorldSize = 2;
        I.Mode = "pkb-eager|" + S + "|bfloat16";
        return I;
      });
  EXPECT_EQ(M.collect(0, {{"shape", "2x4"}, {"verdict", "pass"}}), "2x4");
  EXPECT_EQ(M.collect(1, {{"shape", "2x4"},
                          {"verdict", "wrong-output"},
                          {"detail", "3 wrong"},
                          {"first_failing_call", 2}}),
            "2x4");
  EXPECT_EQ(M.ranks("2x4").size(), 2u);
  EXPECT_TRUE(M.ranks("9x9").empty());
  CaseResult C = M.merge("2x4");
  EXPECT_EQ(C.V, Verdict::WrongOutput);
  EXPECT_EQ(C.Detail, "rank 1: 3 wrong");
  EXPECT_EQ(C.FirstFailingCall, 2);
  EXPECT_EQ(C.Size, 8);
  EXPECT_EQ(C.Record["key"], "pkb-13|h|8|2|pkb-eager|2x4|bfloat16");
  EXPECT_TRUE(M.partial().empty());
  // A case the group died in: one rank's result, the launcher's verdict.
  M.collect(0, {{"shape", "2x4"}, {"verdict", "pass"}});
  CaseResult D = M.merge("2x4", Verdict::Deadlock, "call 1 timed out");
  EXPECT_EQ(D.V, Verdict::Deadlock);
  EXPECT_EQ(D.Detail, "call 1 timed out");
  EXPECT_TRUE(M.partial().empty());
}

// A plugged worker command: the launcher runs it per rank with the hub
// arguments appended (here the C++ fake worker through a shell wrapper).
TEST(PluggedWorker, CommandReceivesHubArguments) {
  fs::path Results =
      fs::temp_directory_path() /
      ("pkb-rt-plugged-" + std::to_string(::getpid()) + ".jsonl");
  fs::remove(Results);
  RunOptions O;
  O.Results = Results;
  O.ProblemName = "fake";
  O.Kernels = {std::string(PKB_SOURCE_DIR) +
               "/runtime/testdata/allreduce_oneshot.cu"};
  O.Gpus = 2;
  O.VisibleGpus = 2;
  O.Sizes = {1, 2};
  O.DeadlineSec = 5;
  O.Out = nullptr;
  O.Fake = {{"action", "wrong"}, {"rank", 1}, {"size", 2}};
  O.WorkerCommand = {"/bin/sh", "-c", "exec \"$0\" worker \"$@\"",
                     std::string(PKB_BINARY_DIR) + "/bin/pkbcheck-rt"};
  RunSummary S = runCandidates(O);
  fs::remove(Results);
  ASSERT_EQ(S.Cases.size(), 2u);
  EXPECT_EQ(S.Cases[0].V, Verdict::Pass);
  EXPECT_EQ(S.Cases[1].V, Verdict::WrongOutput);
  EXPECT_EQ(S.Cases[1].Kind, FailureKind::Output);
  EXPECT_EQ(S.Records.size(), S.Cases.size());
}
