//===- pkb/rt/Session.h - The `pkbcheck run` orchestration ------*- C++ -*-===//
//
// Compiles each candidate, skips cases already in the results file, starts
// worker groups (relaunching after a fatal case so that the remaining sizes
// run on clean GPUs), merges per-rank results into one record per case,
// appends records to the JSONL file as they complete and prints a table.
//
//===----------------------------------------------------------------------===//
#ifndef PKB_RT_SESSION_H
#define PKB_RT_SESSION_H

#include "pkb/rt/Roofline.h"
#include "pkb/rt/Verdict.h"

#include <nlohmann/json.hpp>

#include <cstdio>
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace pkb::rt {

class Problem;

/// Everything that identifies one case and what its record needs.
struct CaseInfo {
  std::string Problem;
  int ProblemId = 0;
  std::string Kernel;
  std::string KernelHash;
  int64_t Size = 0;
  int WorldSize = 1;
  /// "eager", "graph", "sanitize-<tool>", "correctness-only" or
  /// "correctness-only+sanitize-<tool>" (part of the result key).
  std::string Mode = "eager";
  /// Correctness-only (--oversubscribe): the record gets no timing or
  /// roofline, and says so in "mode_detail" and "timing_disabled".
  bool CorrectnessOnly = false;
  int Gpus = 0; ///< GPUs the ranks ran on (recorded when > 0)
  std::optional<RooflineTerms> Terms;
  std::optional<MachineRates> Rates;
};

/// Merges the per-rank results of one case into its record. Forced, when
/// set, is a verdict the launcher observed (deadlock, crash) and is merged
/// with the ranks' verdicts; ranks without a result count as
/// internal-error unless a verdict is forced. Timing is the slowest rank's
/// median (with that rank's p10/p90); speedup = reference / candidate.
nlohmann::json mergeCase(const CaseInfo &Info,
                         const std::map<int, nlohmann::json> &RankResults,
                         std::optional<Verdict> Forced = std::nullopt,
                         const std::string &ForcedDetail = "");

/// Options of `pkbcheck run`.
struct RunOptions {
  std::string ProblemName;          ///< required unless FakeWorkers
  std::vector<std::string> Kernels; ///< candidate .cu files
  int Gpus = 0;                     ///< 0: all visible
  std::vector<int64_t> Sizes;       ///< empty: the problem's defaults
  int Trials = 3, BackToBack = 4, Warmup = 20, Iters = 100;
  /// Per-call deadline in seconds; <= 0: kDefaultDeadlineSec, or
  /// kOversubscribedDeadlineSec with Oversubscribe.
  double DeadlineSec = 0, SetupDeadlineSec = 180;
  uint64_t Seed = 0x5EED;
  bool Graph = false, Timing = true, Force = false, KeepScratch = false;
  std::string Sanitize; ///< memcheck | racecheck | synccheck
  /// Correctness only, allowing more ranks than GPUs (rank r on GPU r % G):
  /// local references instead of NCCL, no timing (see planPlacement).
  bool Oversubscribe = false;
  /// GPUs to assume visible; < 0: visibleGpuCount(). For tests.
  int VisibleGpus = -1;
  std::filesystem::path Results = "pkb-results.jsonl";
  std::filesystem::path CacheDir; ///< empty: defaultCacheDir()
  std::string Nvcc;
  std::filesystem::path AbiInclude; ///< empty: the source tree's
  std::filesystem::path RatesFile;  ///< machine rates JSON (bench peers)
  std::string Exe;                  ///< worker binary; empty: this one
  /// Tests: run "fake" workers (no CUDA, no compile) with this "fake" object.
  std::optional<nlohmann::json> Fake;
  FILE *Out = stdout; ///< progress and table; nullptr: quiet
};

/// What a run did.
struct RunSummary {
  std::vector<nlohmann::json> Records; ///< records appended by this run
  int SkippedDone = 0;                 ///< cases found in the results file
  int Groups = 0;                      ///< worker groups started
  bool AllPass = true;
};

/// Default per-call deadline (seconds).
constexpr double kDefaultDeadlineSec = 10;
/// Default per-call deadline with --oversubscribe: ranks sharing a GPU are
/// time-sliced, so a call that spins waiting for a peer only finishes after
/// the peer's context got the GPU (several time slices per call).
constexpr double kOversubscribedDeadlineSec = 30;

/// How the ranks of a run map onto GPUs.
struct Placement {
  int Ranks = 0;                ///< world size
  int Gpus = 0;                 ///< GPUs used: min(Ranks, visible)
  bool CorrectnessOnly = false; ///< --oversubscribe given
  std::string Error;            ///< non-empty: refuse the run (user message)
  std::string Note;             ///< non-empty: something worth printing
};

/// Validates a request for RequestedRanks ranks (<= 0: one per visible GPU)
/// with VisibleGpus GPUs (0: unknown). Without Oversubscribe, more ranks
/// than visible GPUs is an error suggesting --oversubscribe; with it, any
/// 1..PKB_MAX_RANKS ranks run, correctness only (an unknown GPU count is
/// taken as 1, with a Note).
Placement planPlacement(int RequestedRanks, int VisibleGpus,
                        bool Oversubscribe);

/// Device of rank Rank with DeviceCount devices visible to the worker and
/// Gpus used by the run (0: all): Rank % min(DeviceCount, Gpus).
int deviceOfRank(int Rank, int DeviceCount, int Gpus = 0);

/// "correctness-only (W ranks on G GPUs)" (singular forms for 1).
std::string correctnessOnlyDetail(int Ranks, int Gpus);

/// Runs every candidate on every size. Throws std::runtime_error on usage
/// errors (unknown problem, unreadable results file).
RunSummary runCandidates(const RunOptions &O);

/// Visible NVIDIA GPUs without initializing CUDA: CUDA_VISIBLE_DEVICES if
/// set, else entries of /proc/driver/nvidia/gpus; 0 when unknown.
int visibleGpuCount();

/// Machine id for the rates cache: hostname + GPU PCI ids + visible list.
std::string machineId();

/// Rates from a `bench peers --json` file; nullopt if absent or malformed.
std::optional<MachineRates> loadMachineRates(const std::filesystem::path &P);

} // namespace pkb::rt

#endif // PKB_RT_SESSION_H
