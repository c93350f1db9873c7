//===- pkb/rt/Session.h - The orchestrator of candidate runs ----*- C++ -*-===//
//
// The one orchestrator of `pkbcheck run`, of the external-launcher path
// (mpirun/srun/torchrun) and of eval's GPU stage:
//   planRun      RunOptions -> RunPlan: placement, mode, sizes, deadlines and
//                the base WorkerConfig (one set of defaults, WorkerConfig.h)
//   CaseMerger   per-rank results -> one typed CaseResult per case (with its
//                JSONL record); CaseMergerOf<Key> is the same merger for
//                cases keyed otherwise (PKB solutions: by shape)
//   runCandidates  compiles each candidate, skips cases already in the
//                results file, starts worker groups (relaunching after a
//                fatal case so that the remaining sizes run on clean GPUs),
//                appends records as cases complete and prints a table.
// A new kind of worker plugs in through RunOptions::WorkerCommand (the
// launcher starts it per rank; it reads the WorkerConfig from the hub and
// reports per-case results: "case", "size", "verdict", "detail", optional
// "failure_kind", "failures" [{"call", ...}], "timing").
//
//===----------------------------------------------------------------------===//
#ifndef PKB_RT_SESSION_H
#define PKB_RT_SESSION_H

#include "pkb/rt/Roofline.h"
#include "pkb/rt/Verdict.h"
#include "pkb/rt/WorkerConfig.h"

#include <nlohmann/json.hpp>

#include <cstdio>
#include <filesystem>
#include <functional>
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

/// The typed result of one case: what consumers (eval, tables) read.
/// Record is the same case as written to the JSONL results file.
struct CaseResult {
  int64_t Size = 0;
  Verdict V = Verdict::InternalError;
  FailureKind Kind = FailureKind::Harness;
  std::string Detail; ///< for people only; never parsed
  std::string Mode;   ///< the result-key mode (CaseInfo::Mode)
  /// Output verdicts: 0 if a synchronized trial failed, k >= 1 if only the
  /// k-th back-to-back call (1-based) and later failed.
  std::optional<int> FirstFailingCall;
  /// Reference / candidate median (slowest rank each); timed passes only.
  std::optional<double> Speedup;
  /// Achieved fraction of the roofline floor (needs machine rates).
  std::optional<double> RooflineFraction;
  nlohmann::json Record; ///< the JSONL record
};

/// Merges the per-rank results of one case. Forced, when set, is a verdict
/// the launcher observed (deadlock, crash) and is merged with the ranks'
/// verdicts; ranks without a result count as internal-error unless a
/// verdict is forced. Timing is the slowest rank's median (with that rank's
/// p10/p90); speedup = reference / candidate. The first failing call comes
/// from the ranks' typed "failures"[].call, the failure kind from the
/// verdict and the failing rank's "failure_kind".
CaseResult mergeCaseResult(const CaseInfo &Info,
                           const std::map<int, nlohmann::json> &RankResults,
                           std::optional<Verdict> Forced = std::nullopt,
                           const std::string &ForcedDetail = "");

/// mergeCaseResult(...).Record.
nlohmann::json mergeCase(const CaseInfo &Info,
                         const std::map<int, nlohmann::json> &RankResults,
                         std::optional<Verdict> Forced = std::nullopt,
                         const std::string &ForcedDetail = "");

/// Marks a merged case as failed by compute-sanitizer (Errors errors,
/// Report excerpt): adds "sanitizer" to the record and raises the verdict
/// to sanitizer-error when that is worse.
void foldSanitizer(CaseResult &C, const std::string &Tool, int Errors,
                   const std::string &Report);

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
  /// A plugged worker kind (argv prefix, see GroupSpec::Command); empty:
  /// this binary's C++ worker.
  std::vector<std::string> WorkerCommand;
  /// Tests: run "fake" workers (no CUDA, no compile) with this "fake" object.
  std::optional<nlohmann::json> Fake;
  FILE *Out = stdout; ///< progress and table; nullptr: quiet
};

/// What a run did.
struct RunSummary {
  std::vector<CaseResult> Cases;       ///< cases run, typed
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

/// Everything decided before a candidate runs.
struct RunPlan {
  const Problem *Spec = nullptr; ///< null with fake workers
  std::string ProblemName;       ///< canonical name
  int ProblemId = 0;
  Placement Place;
  std::string Mode; ///< the result-key mode ("eager", "graph", ...)
  std::vector<int64_t> Sizes;
  double DeadlineSec = kDefaultDeadlineSec; ///< per call, before scaling
  std::string Sanitize;                     ///< compute-sanitizer tool or ""
  std::optional<MachineRates> Rates;
  /// Base configuration of every worker group (Library and Sizes are set
  /// per candidate and group).
  WorkerConfig Worker;

  /// The case of Kernel (content hash Hash) at Size.
  CaseInfo caseInfo(const std::string &Kernel, const std::string &Hash,
                    int64_t Size) const;
};

/// Plans a run of O. ExternalWorld > 0: the ranks were started by an
/// external launcher (mpirun/srun/torchrun) with that world size, which
/// places them itself (no check against the GPUs visible here; no
/// sanitizer). Throws std::runtime_error on usage errors (unknown problem,
/// too many ranks, --graph with --oversubscribe, invalid size, no kernel).
RunPlan planRun(const RunOptions &O, int ExternalWorld = 0);

/// The one case merger of every worker kind: collects the per-rank results
/// of one candidate's worker groups, keyed by case, and merges each case
/// once through mergeCaseResult. Key is the size (int64_t) for the C++
/// worker of .cu candidates (CaseMerger) and the shape text ("1024x1024")
/// for the Python worker of ParallelKernelBench solutions (PkbRun.cpp).
template <typename Key> class CaseMergerOf {
public:
  /// The case a rank's result belongs to (its "size" or "shape").
  using KeyOfResult = std::function<Key(const nlohmann::json &)>;
  /// Everything the record of a case needs.
  using InfoOfKey = std::function<CaseInfo(const Key &)>;

  /// A merger for World ranks.
  CaseMergerOf(int World, KeyOfResult KeyOf, InfoOfKey InfoOf)
      : World(World), KeyOf(std::move(KeyOf)), InfoOf(std::move(InfoOf)) {}
  /// Keeps rank Rank's result R until its case is merged; returns its key.
  Key collect(int Rank, const nlohmann::json &R);
  /// collect(), then the merged case when R completes it (every rank has
  /// reported); the case is forgotten then.
  std::optional<CaseResult> add(int Rank, const nlohmann::json &R);
  /// Merges K with what its ranks sent so far and, when set, a verdict the
  /// launcher observed (mergeCaseResult); forgets K.
  CaseResult merge(const Key &K, std::optional<Verdict> Forced = std::nullopt,
                   const std::string &ForcedDetail = "");
  /// merge(K, V, Detail).
  CaseResult force(const Key &K, Verdict V, const std::string &Detail) {
    return merge(K, V, Detail);
  }
  /// What the ranks sent so far for K (empty when nothing).
  const std::map<int, nlohmann::json> &ranks(const Key &K) const;
  /// What the ranks sent so far for the cases not yet merged.
  const std::map<Key, std::map<int, nlohmann::json>> &partial() const {
    return Partial;
  }
  /// Forgets the partial results of K.
  void drop(const Key &K) { Partial.erase(K); }
  /// The CaseInfo of K.
  CaseInfo info(const Key &K) const { return InfoOf(K); }

private:
  int World;
  KeyOfResult KeyOf;
  InfoOfKey InfoOf;
  std::map<Key, std::map<int, nlohmann::json>> Partial;
};

extern template class CaseMergerOf<int64_t>;
extern template class CaseMergerOf<std::string>;

/// The merger of one .cu candidate of a run: cases keyed by the results'
/// "size", described by Plan.caseInfo(Kernel, Hash, size).
class CaseMerger : public CaseMergerOf<int64_t> {
public:
  /// Plan must outlive the merger.
  CaseMerger(const RunPlan &Plan, std::string Kernel, std::string Hash);
};

/// Runs every candidate on every size. Throws std::runtime_error on usage
/// errors (unknown problem, unreadable results file).
RunSummary runCandidates(const RunOptions &O);

/// Visible NVIDIA GPUs without initializing CUDA: CUDA_VISIBLE_DEVICES if
/// set, else entries of /proc/driver/nvidia/gpus; 0 when unknown.
int visibleGpuCount();

/// Machine id for the rates cache: hostname + GPU PCI ids + visible list.
std::string machineId();

/// Where `run` caches the machine rates (`bench peers --json`) of this
/// machine under CacheDir: machine-<hash of machineId()>.json.
std::filesystem::path ratesCachePath(const std::filesystem::path &CacheDir);

} // namespace pkb::rt

#endif // PKB_RT_SESSION_H
