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
std::string nowIso() {
  std::time_t T = std::time(nullptr);
  char Buf[32];
  std::strftime(Buf, sizeof(Buf), "%Y-%m-%dT%H:%M:%SZ", std::gmtime(&T));
  return Buf;
}

std::optional<double> numberAt(const nlohmann::json &J, const char *A,
                               const char *B) {
  if (!J.contains(A) || !J[A].is_object() || !J[A].contains(B) ||
      !J[A][B].is_number())
    return std::nullopt;
  return J[A][B].get<double>();
}

/// Slowest rank's statistics of one timed side ("candidate"/"reference").
std::optional<nlohmann::json>
slowest(const std::map<int, nlohmann::json> &Ranks, int World,
        const char *Side) {
  nlohmann::json Best;
  double BestMedian = -1;
  for (int R = 0; R < World; ++R) {
    auto It = Ranks.find(R);
    if (It == Ranks.end() || !It->second.contains("timing"))
      return std::nullopt;
    auto M = numberAt(It->second["timing"], Side, "median_us");
    if (!M)
      return std::nullopt;
    if (*M > BestMedian) {
      BestMedian = *M;
      Best = It->second["timing"][Side];
      Best["slowest_rank"] = R;
    }
  }
  return Best;
}

std::string firstLines(const std::string &S, int N) {
  std::istringstream In(S);
  std::string Line, Out;
  for (int I = 0; I < N && std::getline(In, Line); ++I)
    Out += (I ? "\n" : "") + Line;
  return Out;
}
} // namespace

nlohmann::json mergeCase(const CaseInfo &I,
                         const std::map<int, nlohmann::json> &RankResults,
                         std::optional<Verdict> Forced,
                         const std::string &ForcedDetail) {
  nlohmann::json Rec = {
      {"key", resultKey(I.Problem, I.KernelHash, I.Size, I.WorldSize, I.Mode)},
      {"problem", I.Problem},
      {"problem_id", I.ProblemId},
      {"kernel", I.Kernel},
      {"kernel_hash", I.KernelHash},
      {"size", I.Size},
      {"world_size", I.WorldSize},
      {"mode", I.Mode},
      {"time", nowIso()}};
  if (I.Gpus > 0)
    Rec["gpus"] = I.Gpus;
  if (I.CorrectnessOnly) {
    Rec["mode_detail"] = correctnessOnlyDetail(I.WorldSize, I.Gpus);
    Rec["timing_disabled"] =
        "several ranks share a GPU (--oversubscribe): time-sliced, so no "
        "timing, speedup or roofline; references computed locally (no NCCL)";
  }
  Verdict V = Forced.value_or(Verdict::Pass);
  std::string Detail = Forced ? ForcedDetail : "";
  nlohmann::json Ranks = nlohmann::json::array();
  for (int R = 0; R < I.WorldSize; ++R) {
    auto It = RankResults.find(R);
    if (It == RankResults.end()) {
      if (!Forced) {
        V = worseVerdict(V, Verdict::InternalError);
        if (Detail.empty())
          Detail = fmt::format("rank {} sent no result", R);
      }
      continue;
    }
    nlohmann::json J = It->second;
    auto RV = parseVerdict(J.value("verdict", std::string("internal-error")))
                  .value_or(Verdict::InternalError);
    if (verdictSeverity(RV) > verdictSeverity(V) ||
        (RV != Verdict::Pass && Detail.empty())) {
      if (verdictSeverity(RV) >= verdictSeverity(V))
        Detail =
            fmt::format("rank {}: {}", R, J.value("detail", std::string()));
      V = worseVerdict(V, RV);
    }
    J.erase("timing");
    Ranks.push_back(std::move(J));
  }
  Rec["verdict"] = std::string(verdictName(V));
  Rec["detail"] = Detail;
  Rec["ranks"] = Ranks;
  if (V == Verdict::Pass && !I.CorrectnessOnly) {
    auto C = slowest(RankResults, I.WorldSize, "candidate");
    auto Ref = slowest(RankResults, I.WorldSize, "reference");
    if (C) {
      nlohmann::json T = {{"candidate", *C}};
      if (Ref) {
        T["reference"] = *Ref;
        double CM = (*C)["median_us"].get<double>();
        double RM = (*Ref)["median_us"].get<double>();
        if (CM > 0)
          T["speedup"] = RM / CM;
      }
      auto It = RankResults.find(0);
      for (const char *K : {"iters", "warmup", "copies", "graph"})
        if (It != RankResults.end() && It->second["timing"].contains(K))
          T[K] = It->second["timing"][K];
      Rec["timing"] = T;
      if (I.Terms) {
        nlohmann::json RL = {{"terms", toJson(*I.Terms)}};
        if (I.Rates) {
          RL["rates"] = toJson(*I.Rates);
          RooflineResult RC = roofline(*I.Terms, *I.Rates,
                                       (*C)["median_us"].get<double>() * 1e-6);
          RL["candidate"] = toJson(RC);
          if (Ref)
            RL["reference_achieved_fraction"] =
                roofline(*I.Terms, *I.Rates,
                         (*Ref)["median_us"].get<double>() * 1e-6)
                    .AchievedFraction;
        }
        Rec["roofline"] = RL;
      }
    }
  }
  return Rec;
}

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

std::string correctnessOnlyDetail(int Ranks, int Gpus) {
  return fmt::format("correctness-only ({} rank{} on {} GPU{})", Ranks,
                     Ranks == 1 ? "" : "s", Gpus, Gpus == 1 ? "" : "s");
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

std::optional<MachineRates> loadMachineRates(const fs::path &P) {
  std::ifstream In(P);
  if (!In)
    return std::nullopt;
  auto J = nlohmann::json::parse(In, nullptr, false);
  if (J.is_discarded() || !J.contains("rates"))
    return std::nullopt;
  MachineRates R = machineRatesFromJson(J["rates"]);
  if (R.NvlinkBytesPerSec <= 0 && R.HbmBytesPerSec <= 0)
    return std::nullopt;
  return R;
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

RunSummary runCandidates(const RunOptions &O) {
  RunSummary Sum;
  const Problem *P = nullptr;
  std::string ProblemName = O.ProblemName;
  int ProblemId = 0;
  if (!O.Fake) {
    P = findProblem(O.ProblemName);
    if (!P)
      throw std::runtime_error("unknown problem '" + O.ProblemName +
                               "' (see `pkbcheck problems`)");
    ProblemName = std::string(P->name());
    ProblemId = P->id();
  }
  int Visible = O.VisibleGpus >= 0 ? O.VisibleGpus : visibleGpuCount();
  Placement Place = planPlacement(O.Gpus, Visible, O.Oversubscribe);
  if (!Place.Error.empty())
    throw std::runtime_error(Place.Error);
  if (O.Oversubscribe && O.Graph)
    throw std::runtime_error("--graph only changes how calls are timed; "
                             "--oversubscribe never times (drop one)");
  int World = Place.Ranks;
  bool CorrectnessOnly = Place.CorrectnessOnly;
  double DeadlineSec = O.DeadlineSec > 0
                           ? O.DeadlineSec
                           : (CorrectnessOnly ? kOversubscribedDeadlineSec
                                              : kDefaultDeadlineSec);
  if (!Place.Note.empty())
    say(O.Out, "note: " + Place.Note + "\n");
  std::vector<int64_t> Sizes = O.Sizes;
  if (Sizes.empty() && P)
    Sizes = P->defaultSizes();
  if (P)
    for (int64_t S : Sizes)
      if (std::string Why = P->checkSize(World, S); !Why.empty())
        throw std::runtime_error(fmt::format("size {}: {}", S, Why));
  if (O.Kernels.empty())
    throw std::runtime_error("no candidate given (--kernel)");
  ResultStore Store(O.Results);
  std::optional<MachineRates> Rates;
  if (!O.RatesFile.empty())
    Rates = loadMachineRates(O.RatesFile);
  std::string Mode = O.Sanitize.empty() ? (O.Graph ? "graph" : "eager")
                                        : "sanitize-" + O.Sanitize;
  if (CorrectnessOnly)
    Mode = O.Sanitize.empty() ? "correctness-only"
                              : "correctness-only+sanitize-" + O.Sanitize;
  fs::path CacheDir = O.CacheDir.empty() ? defaultCacheDir() : O.CacheDir;
  fs::path Abi =
      O.AbiInclude.empty() ? fs::path(PKB_RUNTIME_INCLUDE_DIR) : O.AbiInclude;

  for (const std::string &Kernel : O.Kernels) {
    if (CorrectnessOnly)
      say(O.Out,
          fmt::format("== {} on {} ({} ranks, mode: {}; local references, "
                      "no timing, deadline {} s per call)\n",
                      Kernel, ProblemName, World,
                      correctnessOnlyDetail(World, Place.Gpus), DeadlineSec));
    else
      say(O.Out, fmt::format("== {} on {} ({} GPUs, mode {})\n", Kernel,
                             ProblemName, World, Mode));
    CaseInfo Base;
    Base.Problem = ProblemName;
    Base.ProblemId = ProblemId;
    Base.Kernel = Kernel;
    Base.WorldSize = World;
    Base.Mode = Mode;
    Base.Rates = Rates;
    Base.CorrectnessOnly = CorrectnessOnly;
    if (CorrectnessOnly)
      Base.Gpus = Place.Gpus;
    std::string Library;
    std::optional<std::string> CompileLog;
    if (O.Fake) {
      std::ifstream In(Kernel, std::ios::binary);
      std::stringstream SS;
      SS << In.rdbuf();
      Base.KernelHash = contentHash(Kernel + '\0' + SS.str()).substr(0, 16);
    } else {
      CompileOptions CO;
      CO.Nvcc = O.Nvcc;
      CO.CacheDir = CacheDir;
      CO.AbiInclude = Abi;
      CompileResult CR = compileCandidate(Kernel, CO);
      Base.KernelHash = CR.Hash.empty() ? contentHash(Kernel) : CR.Hash;
      if (!CR.Ok)
        CompileLog = CR.Log;
      Library = CR.Library.string();
    }
    auto Info = [&](int64_t Size) {
      CaseInfo I = Base;
      I.Size = Size;
      if (P)
        I.Terms = P->roofline(World, Size);
      return I;
    };
    auto Emit = [&](nlohmann::json Rec) {
      Store.append(Rec);
      Sum.AllPass &= Rec["verdict"] == "pass";
      say(O.Out, tableRow(Rec) + "\n");
      if (Rec["verdict"] != "pass" && !Rec["detail"].get<std::string>().empty())
        say(O.Out,
            "    " + firstLines(Rec["detail"].get<std::string>(), 12) + "\n");
      Sum.Records.push_back(std::move(Rec));
    };
    std::vector<int64_t> Pending;
    for (int64_t S : Sizes) {
      std::string Key = resultKey(ProblemName, Base.KernelHash, S, World, Mode);
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
        auto Rec = mergeCase(Info(S), {}, Verdict::CompileError, *CompileLog);
        Rec["compiler_log"] = *CompileLog;
        Emit(std::move(Rec));
      }
      continue;
    }
    bool Sanitizing = !O.Sanitize.empty();
    while (!Pending.empty()) {
      std::map<int64_t, std::map<int, nlohmann::json>> Partial;
      std::vector<nlohmann::json> Held; // sanitizer mode: fold after exit
      std::optional<std::pair<Verdict, std::string>> AllScope;
      int FinishedInGroup = 0;
      auto Finish = [&](int64_t Size, nlohmann::json Rec) {
        ++FinishedInGroup;
        Pending.erase(std::remove(Pending.begin(), Pending.end(), Size),
                      Pending.end());
        Partial.erase(Size);
        if (Sanitizing)
          Held.push_back(std::move(Rec));
        else
          Emit(std::move(Rec));
      };
      nlohmann::json Cfg = {
          {"mode", O.Fake ? "fake" : "run"},
          {"problem", ProblemName},
          {"library", Library},
          {"sizes", Pending},
          {"trials", std::max(3, O.Trials)},
          {"back_to_back", std::max(4, O.BackToBack)},
          {"warmup", O.Warmup},
          {"iters", std::max(1, O.Iters)},
          {"deadline_ms",
           static_cast<long>(DeadlineSec * 1000 * (Sanitizing ? 20 : 1))},
          {"setup_deadline_ms", static_cast<long>(O.SetupDeadlineSec * 1000)},
          {"seed", O.Seed},
          {"graph", O.Graph},
          {"timing", O.Timing && !Sanitizing && !CorrectnessOnly},
          {"oversubscribe", CorrectnessOnly},
          {"gpus", Place.Gpus}};
      if (O.Fake)
        Cfg["fake"] = *O.Fake;
      GroupSpec G;
      G.WorldSize = World;
      G.Exe = O.Exe;
      G.Config = Cfg;
      G.Sanitizer = O.Sanitize;
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
        Partial[Size][Rank] = J;
        if (static_cast<int>(Partial[Size].size()) == World)
          Finish(Size, mergeCase(Info(Size), Partial[Size]));
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
          // The fatal per-rank result is in Partial: take its size and
          // verdict.
          Everything = false;
          for (const auto &[S, ByRank] : Partial) {
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
          auto Rec = mergeCase(Info(S), Partial[S], V, Detail);
          Rec["launcher"] = {{"outcome", hubOutcomeName(H.K)},
                             {"rank", H.Rank},
                             {"phase", H.Phase}};
          Finish(S, std::move(Rec));
        }
        // Never loop forever: a group that failed without finishing any
        // case charges the failure to the first pending size.
        if (Pending.size() == Before && FinishedInGroup == 0 &&
            !Pending.empty())
          Finish(Pending.front(),
                 mergeCase(Info(Pending.front()), {}, V, Detail));
      } else {
        for (int64_t S : std::vector<int64_t>(Pending))
          Finish(S, mergeCase(Info(S), Partial[S], Verdict::InternalError,
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
        for (auto &Rec : Held) {
          Rec["sanitizer"] = {{"tool", O.Sanitize}, {"errors", Errors}};
          if (Errors > 0) {
            Rec["sanitizer"]["report"] = Report;
            auto RV = parseVerdict(Rec["verdict"].get<std::string>())
                          .value_or(Verdict::InternalError);
            if (verdictSeverity(RV) <
                verdictSeverity(Verdict::SanitizerError)) {
              Rec["verdict"] =
                  std::string(verdictName(Verdict::SanitizerError));
              Rec["detail"] = Report;
            }
          }
          Emit(std::move(Rec));
        }
      }
    }
  }
  return Sum;
}

} // namespace pkb::rt
