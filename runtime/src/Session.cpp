//===- Session.cpp - The `pkbcheck run` orchestration ---------------------===//
#include "pkb/rt/Session.h"
#include "pkb/pkb_abi.h"
#include "pkb/rt/Compiler.h"
#include "pkb/rt/Launcher.h"
#include "pkb/rt/Problem.h"
#include "pkb/rt/ResultStore.h"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <ctime>
#include <fstream>
#include <set>
#include <sstream>
#include <stdexcept>
#include <unistd.h>

#ifndef PKB_RUNTIME_INCLUDE_DIR
#define PKB_RUNTIME_INCLUDE_DIR ""
#endif

namespace pkb::rt {
namespace fs = std::filesystem;

namespace {
std::string firstLines(const std::string &S, int N) {
  std::istringstream In(S);
  std::string Line, Out;
  for (int I = 0; I < N && std::getline(In, Line); ++I)
    Out += (I ? "\n" : "") + Line;
  return Out;
}
} // namespace

Placement planPlacement(int RequestedRanks, int VisibleGpus,
                        bool Oversubscribe) {
  Placement P;
  P.CorrectnessOnly = Oversubscribe;
  int Visible = std::max(VisibleGpus, 0);
  P.Ranks = RequestedRanks > 0 ? RequestedRanks : Visible;
  if (P.Ranks <= 0) {
    P.Error = "no NVIDIA GPU found; pass --gpus N";
    return P;
  }
  if (P.Ranks > PKB_MAX_RANKS) {
    P.Error = fmt::format("{} ranks requested; the candidate ABI supports at "
                          "most {} (PKB_MAX_RANKS)",
                          P.Ranks, PKB_MAX_RANKS);
    return P;
  }
  if (!Oversubscribe) {
    if (Visible > 0 && P.Ranks > Visible)
      P.Error = fmt::format(
          "--gpus {} asks for {} ranks but only {} GPU{} visible; pass "
          "--oversubscribe for a correctness-only run with several ranks per "
          "GPU (rank r on GPU r % {}, local references instead of NCCL, no "
          "timing)",
          P.Ranks, P.Ranks, Visible, Visible == 1 ? " is" : "s are", Visible);
    P.Gpus = Visible > 0 ? std::min(P.Ranks, Visible) : P.Ranks;
    return P;
  }
  if (Visible == 0) {
    P.Note = "could not count the GPUs without CUDA (no CUDA_VISIBLE_DEVICES, "
             "no /proc/driver/nvidia/gpus); assuming 1, workers map rank r to "
             "device r % (devices CUDA reports)";
    Visible = 1;
  }
  P.Gpus = std::min(P.Ranks, Visible);
  return P;
}

int deviceOfRank(int Rank, int DeviceCount, int Gpus) {
  int G = DeviceCount;
  if (Gpus > 0 && (G <= 0 || Gpus < G))
    G = Gpus;
  if (G <= 0)
    return Rank;
  return Rank % G;
}

int visibleGpuCount() {
  if (const char *V = std::getenv("CUDA_VISIBLE_DEVICES")) {
    std::string S = V;
    if (S.empty())
      return 0;
    return static_cast<int>(std::count(S.begin(), S.end(), ',')) + 1;
  }
  std::error_code Ec;
  int N = 0;
  for (auto It = fs::directory_iterator("/proc/driver/nvidia/gpus", Ec);
       !Ec && It != fs::directory_iterator(); It.increment(Ec))
    ++N;
  return N;
}

std::string machineId() {
  char Host[256] = {0};
  ::gethostname(Host, sizeof(Host) - 1);
  std::vector<std::string> Ids;
  std::error_code Ec;
  for (auto It = fs::directory_iterator("/proc/driver/nvidia/gpus", Ec);
       !Ec && It != fs::directory_iterator(); It.increment(Ec))
    Ids.push_back(It->path().filename().string());
  std::sort(Ids.begin(), Ids.end());
  std::string S = Host;
  for (const auto &X : Ids)
    S += "," + X;
  if (const char *V = std::getenv("CUDA_VISIBLE_DEVICES"))
    S += std::string("|") + V;
  return S;
}

std::filesystem::path ratesCachePath(const std::filesystem::path &CacheDir) {
  return CacheDir /
         fmt::format("machine-{}.json", contentHash(machineId()).substr(0, 16));
}

namespace {
void say(FILE *Out, const std::string &S) {
  if (Out) {
    std::fputs(S.c_str(), Out);
    std::fflush(Out);
  }
}

std::string tableRow(const nlohmann::json &R) {
  std::string Cand = "-", Ref = "-", Speed = "-", Floor = "-", Frac = "-",
              Bind = "-";
  if (R.contains("timing")) {
    const auto &T = R["timing"];
    Cand = fmt::format("{:.2f}", T["candidate"]["median_us"].get<double>());
    if (T.contains("reference"))
      Ref = fmt::format("{:.2f}", T["reference"]["median_us"].get<double>());
    if (T.contains("speedup"))
      Speed = fmt::format("{:.3f}x", T["speedup"].get<double>());
  }
  if (R.contains("roofline") && R["roofline"].contains("candidate")) {
    const auto &C = R["roofline"]["candidate"];
    Floor = fmt::format("{:.2f}", C["floor_us"].get<double>());
    Frac = fmt::format("{:.3f}", C["achieved_fraction"].get<double>());
    Bind = C["binding"].get<std::string>();
  }
  return fmt::format("{:>12} {:>17} {:>11} {:>11} {:>9} {:>10} {:>6} {:>7}",
                     R["size"].get<int64_t>(), R["verdict"].get<std::string>(),
                     Cand, Ref, Speed, Floor, Frac, Bind);
}

std::string tableHeader() {
  return fmt::format("{:>12} {:>17} {:>11} {:>11} {:>9} {:>10} {:>6} {:>7}\n",
                     "size", "verdict", "cand_us", "nccl_us", "speedup",
                     "floor_us", "frac", "bound");
}
} // namespace

RunPlan planRun(const RunOptions &O, int ExternalWorld) {
  RunPlan Plan;
  Plan.ProblemName = O.ProblemName;
  if (!O.Fake) {
    Plan.Spec = findProblem(O.ProblemName);
    if (!Plan.Spec)
      throw std::runtime_error("unknown problem '" + O.ProblemName +
                               "' (see `pkbcheck problems`)");
    Plan.ProblemName = std::string(Plan.Spec->name());
    Plan.ProblemId = Plan.Spec->id();
  }
  if (ExternalWorld > 0) {
    if (!O.Sanitize.empty())
      throw std::runtime_error(
          "--sanitize starts the workers under compute-sanitizer; under an "
          "external launcher, start the ranks under it yourself");
    Plan.Place.Ranks = ExternalWorld;
    Plan.Place.CorrectnessOnly = O.Oversubscribe;
    int Visible = O.VisibleGpus >= 0 ? O.VisibleGpus : visibleGpuCount();
    Plan.Place.Gpus = std::max(1, std::min(ExternalWorld, Visible));
  } else {
    int Visible = O.VisibleGpus >= 0 ? O.VisibleGpus : visibleGpuCount();
    Plan.Place = planPlacement(O.Gpus, Visible, O.Oversubscribe);
    if (!Plan.Place.Error.empty())
      throw std::runtime_error(Plan.Place.Error);
  }
  if (O.Oversubscribe && O.Graph)
    throw std::runtime_error("--graph only changes how calls are timed; "
                             "--oversubscribe never times (drop one)");
  bool CorrectnessOnly = Plan.Place.CorrectnessOnly;
  Plan.DeadlineSec = O.DeadlineSec > 0
                         ? O.DeadlineSec
                         : (CorrectnessOnly ? kOversubscribedDeadlineSec
                                            : kDefaultDeadlineSec);
  Plan.Sizes = O.Sizes;
  if (Plan.Sizes.empty() && Plan.Spec)
    Plan.Sizes = Plan.Spec->defaultSizes();
  if (Plan.Spec)
    for (int64_t S : Plan.Sizes)
      if (auto Ok = Plan.Spec->checkSize(Plan.Place.Ranks, S); !Ok)
        throw std::runtime_error(
            fmt::format("size {}: {}", S, Ok.error().Message));
  if (O.Kernels.empty())
    throw std::runtime_error("no candidate given (--kernel)");
  Plan.Sanitize = O.Sanitize;
  Plan.Mode = O.Sanitize.empty() ? (O.Graph ? "graph" : "eager")
                                 : "sanitize-" + O.Sanitize;
  if (CorrectnessOnly)
    Plan.Mode = O.Sanitize.empty() ? "correctness-only"
                                   : "correctness-only+sanitize-" + O.Sanitize;
  if (!O.RatesFile.empty())
    Plan.Rates = loadMachineRates(O.RatesFile);
  bool Sanitizing = !O.Sanitize.empty();
  WorkerConfig &W = Plan.Worker;
  W.Mode = O.Fake ? "fake" : "run";
  W.Problem = Plan.ProblemName;
  W.Trials = O.Trials;
  W.BackToBack = O.BackToBack;
  W.Warmup = O.Warmup;
  W.Iters = O.Iters;
  W.DeadlineMs =
      static_cast<long>(Plan.DeadlineSec * 1000 * (Sanitizing ? 20 : 1));
  W.SetupDeadlineMs = static_cast<long>(O.SetupDeadlineSec * 1000);
  W.Seed = O.Seed;
  W.Graph = O.Graph;
  W.Timing = O.Timing && !Sanitizing && !CorrectnessOnly;
  W.Oversubscribe = CorrectnessOnly;
  W.Gpus = Plan.Place.Gpus;
  W.Fake = O.Fake;
  return Plan;
}

CaseInfo RunPlan::caseInfo(const std::string &Kernel, const std::string &Hash,
                           int64_t Size) const {
  CaseInfo I;
  I.Problem = ProblemName;
  I.ProblemId = ProblemId;
  I.Kernel = Kernel;
  I.KernelHash = Hash;
  I.Size = Size;
  I.WorldSize = Place.Ranks;
  I.Mode = Mode;
  I.CorrectnessOnly = Place.CorrectnessOnly;
  if (Place.CorrectnessOnly)
    I.Gpus = Place.Gpus;
  if (Spec)
    I.Terms = Spec->roofline(Place.Ranks, Size);
  I.Rates = Rates;
  return I;
}

CaseMerger::CaseMerger(const RunPlan &Plan, std::string Kernel,
                       std::string Hash)
    : CaseMergerOf<int64_t>(
          Plan.Place.Ranks,
          [](const nlohmann::json &R) { return R.value("size", int64_t(-1)); },
          [&Plan, Kernel = std::move(Kernel),
           Hash = std::move(Hash)](const int64_t &Size) {
            return Plan.caseInfo(Kernel, Hash, Size);
          }) {}

RunSummary runCandidates(const RunOptions &O) {
  RunSummary Sum;
  const RunPlan Plan = planRun(O);
  const int World = Plan.Place.Ranks;
  const bool CorrectnessOnly = Plan.Place.CorrectnessOnly;
  if (!Plan.Place.Note.empty())
    say(O.Out, "note: " + Plan.Place.Note + "\n");
  ResultStore Store(O.Results);
  fs::path CacheDir = O.CacheDir.empty() ? defaultCacheDir() : O.CacheDir;
  fs::path Abi =
      O.AbiInclude.empty() ? fs::path(PKB_RUNTIME_INCLUDE_DIR) : O.AbiInclude;

  for (const std::string &Kernel : O.Kernels) {
    if (CorrectnessOnly)
      say(O.Out,
          fmt::format("== {} on {} ({} ranks, mode: {}; local references, "
                      "no timing, deadline {} s per call)\n",
                      Kernel, Plan.ProblemName, World,
                      correctnessOnlyDetail(World, Plan.Place.Gpus),
                      Plan.DeadlineSec));
    else
      say(O.Out, fmt::format("== {} on {} ({} GPUs, mode {})\n", Kernel,
                             Plan.ProblemName, World, Plan.Mode));
    std::string Hash, Library;
    std::optional<std::string> CompileLog;
    if (O.Fake) {
      std::ifstream In(Kernel, std::ios::binary);
      std::stringstream SS;
      SS << In.rdbuf();
      Hash = contentHash(Kernel + '\0' + SS.str()).substr(0, 16);
    } else {
      CompileOptions CO;
      CO.Nvcc = O.Nvcc;
      CO.CacheDir = CacheDir;
      CO.AbiInclude = Abi;
      CompileResult CR = compileCandidate(Kernel, CO);
      Hash = CR.Hash.empty() ? contentHash(Kernel) : CR.Hash;
      if (!CR.Ok)
        CompileLog = CR.Log;
      Library = CR.Library.string();
    }
    CaseMerger Merger(Plan, Kernel, Hash);
    auto Emit = [&](CaseResult C) {
      Store.append(C.Record);
      Sum.AllPass &= C.V == Verdict::Pass;
      say(O.Out, tableRow(C.Record) + "\n");
      if (C.V != Verdict::Pass && !C.Detail.empty())
        say(O.Out, "    " + firstLines(C.Detail, 12) + "\n");
      Sum.Records.push_back(C.Record);
      Sum.Cases.push_back(std::move(C));
    };
    std::vector<int64_t> Pending;
    for (int64_t S : Plan.Sizes) {
      std::string Key = resultKey(Plan.ProblemName, Hash, S, World, Plan.Mode);
      if (!O.Force && Store.contains(Key)) {
        ++Sum.SkippedDone;
        continue;
      }
      if (std::find(Pending.begin(), Pending.end(), S) == Pending.end())
        Pending.push_back(S);
    }
    if (Pending.empty()) {
      say(O.Out, "   all cases already in " + Store.path().string() + "\n");
      continue;
    }
    say(O.Out, tableHeader());
    if (CompileLog) {
      for (int64_t S : Pending) {
        CaseResult C = Merger.force(S, Verdict::CompileError, *CompileLog);
        C.Record["compiler_log"] = *CompileLog;
        Emit(std::move(C));
      }
      continue;
    }
    bool Sanitizing = !Plan.Sanitize.empty();
    while (!Pending.empty()) {
      std::vector<CaseResult> Held; // sanitizer mode: fold after exit
      std::optional<std::pair<Verdict, std::string>> AllScope;
      int FinishedInGroup = 0;
      auto Finish = [&](CaseResult C) {
        ++FinishedInGroup;
        int64_t Size = C.Size;
        Pending.erase(std::remove(Pending.begin(), Pending.end(), Size),
                      Pending.end());
        Merger.drop(Size);
        if (Sanitizing)
          Held.push_back(std::move(C));
        else
          Emit(std::move(C));
      };
      WorkerConfig Cfg = Plan.Worker;
      Cfg.Library = Library;
      Cfg.Sizes = Pending;
      GroupSpec G;
      G.WorldSize = World;
      G.Exe = O.Exe;
      G.Command = O.WorkerCommand;
      G.Config = toJson(Cfg);
      G.Sanitizer = Plan.Sanitize;
      G.KeepScratch = O.KeepScratch;
      G.OnResult = [&](int Rank, const nlohmann::json &J) {
        if (J.value("scope", std::string()) == "all") {
          AllScope = {parseVerdict(J.value("verdict", std::string()))
                          .value_or(Verdict::InternalError),
                      fmt::format("rank {}: {}", Rank,
                                  J.value("detail", std::string()))};
          return;
        }
        int64_t Size = J.value("size", int64_t(-1));
        if (std::find(Pending.begin(), Pending.end(), Size) == Pending.end())
          return;
        if (auto C = Merger.add(Rank, J))
          Finish(std::move(*C));
      };
      G.OnLog = [&](int Rank, const std::string &Line) {
        say(O.Out, fmt::format("   [rank {}] {}\n", Rank, Line));
      };
      ++Sum.Groups;
      GroupOutcome GO = runWorkerGroup(G);
      const HubOutcome &H = GO.Hub;
      auto LogTail = [&](int Rank) {
        auto It = GO.LogTail.find(Rank);
        if (It == GO.LogTail.end() || It->second.empty())
          return std::string();
        return "\n--- rank " + std::to_string(Rank) + " output (tail) ---\n" +
               It->second;
      };
      if (H.K != HubOutcome::Kind::Completed || AllScope) {
        Verdict V = Verdict::InternalError;
        std::string Detail = H.Detail;
        switch (H.K) {
        case HubOutcome::Kind::Deadlock:
          V = Verdict::Deadlock;
          Detail = fmt::format("rank {} still running {} after {} ms; all "
                               "workers killed",
                               H.Rank, H.Phase.value("phase", std::string("?")),
                               H.Phase.value("deadline_ms", 0L));
          if (H.Phase.contains("call"))
            Detail += fmt::format(" (call {})", H.Phase["call"].dump());
          break;
        case HubOutcome::Kind::WorkerDied:
          V = Verdict::RuntimeError;
          Detail = H.Detail + LogTail(H.Rank);
          break;
        case HubOutcome::Kind::FatalResult:
          V = Verdict::RuntimeError; // refined by the rank's own verdict
          break;
        case HubOutcome::Kind::BootstrapFailed:
          V = Verdict::InternalError;
          Detail = H.Detail + LogTail(0);
          break;
        case HubOutcome::Kind::Completed:
          break;
        }
        if (AllScope && H.K != HubOutcome::Kind::Deadlock) {
          V = AllScope->first;
          Detail = AllScope->second;
        }
        bool Everything = AllScope.has_value() || !H.Phase.contains("size");
        int64_t FailedSize =
            H.Phase.contains("size") ? H.Phase["size"].get<int64_t>() : -1;
        if (H.K == HubOutcome::Kind::FatalResult && !AllScope) {
          // The fatal per-rank result is in the merger: take its size and
          // verdict.
          Everything = false;
          for (const auto &[S, ByRank] : Merger.partial()) {
            auto It = ByRank.find(H.Rank);
            if (It == ByRank.end())
              continue;
            FailedSize = S;
            V = parseVerdict(It->second.value("verdict", std::string()))
                    .value_or(Verdict::InternalError);
            Detail = fmt::format("rank {}: {}", H.Rank,
                                 It->second.value("detail", std::string()));
          }
        }
        size_t Before = Pending.size();
        std::vector<int64_t> Failed;
        if (Everything || FailedSize < 0)
          Failed = Everything ? Pending : std::vector<int64_t>{Pending.front()};
        else
          Failed = {FailedSize};
        for (int64_t S : Failed) {
          if (std::find(Pending.begin(), Pending.end(), S) == Pending.end())
            continue;
          CaseResult C = Merger.force(S, V, Detail);
          C.Record["launcher"] = {{"outcome", hubOutcomeName(H.K)},
                                  {"rank", H.Rank},
                                  {"phase", H.Phase}};
          Finish(std::move(C));
        }
        // Never loop forever: a group that failed without finishing any
        // case charges the failure to the first pending size.
        if (Pending.size() == Before && FinishedInGroup == 0 &&
            !Pending.empty()) {
          Merger.drop(Pending.front());
          Finish(Merger.force(Pending.front(), V, Detail));
        }
      } else {
        for (int64_t S : std::vector<int64_t>(Pending))
          Finish(Merger.force(S, Verdict::InternalError,
                              "worker group finished without a result for "
                              "this size" +
                                  LogTail(0)));
      }
      if (Sanitizing) {
        int Errors = 0;
        std::string Report;
        for (const auto &[R, N] : GO.SanitizerErrors) {
          Errors += N;
          if (N > 0 && Report.empty())
            Report = fmt::format("rank {}: {}", R,
                                 sanitizerExcerpt(GO.SanitizerLog[R], 24));
        }
        for (auto &C : Held) {
          foldSanitizer(C, Plan.Sanitize, Errors, Report);
          Emit(std::move(C));
        }
      }
    }
  }
  return Sum;
}

} // namespace pkb::rt
