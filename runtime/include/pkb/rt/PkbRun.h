//===- pkb/rt/PkbRun.h - Run ParallelKernelBench .py solutions --*- C++ -*-===//
//
// The dynamic stage for ParallelKernelBench (PKB) solutions: one Python
// worker per rank (runtime/python/pkb_worker.py) under the usual launcher,
// hub and watchdog; PKB's inputs and reference; verdicts, timing and JSONL
// records like those of .cu candidates. See docs/pkb.md.
//
//===----------------------------------------------------------------------===//
#ifndef PKB_RT_PKBRUN_H
#define PKB_RT_PKBRUN_H

#include "pkb/rt/Session.h"

#include <nlohmann/json.hpp>

#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace pkb::rt {

/// Settings of one `run --solution` invocation.
struct PkbRunOptions {
  std::vector<std::string> Solutions; ///< PKB-format .py files
  std::string PkbRoot;                ///< empty: $PKB_ROOT
  std::string Problem;                ///< empty: from each file name
  std::string Python;                 ///< empty: python3 from PATH
  std::string WorkerScript;           ///< empty: locatePkbWorker()
  int WorldSize = 1;
  std::vector<std::string> Shapes = {"1024x1024"}; ///< PKB base shapes MxN
  std::string Dtype = "bfloat16";
  int Trials = 3, BackToBack = 4, Warmup = 20, Iters = 100;
  int PkbWarmup = 500, PkbIters = 100;
  double DeadlineSec = 30, SetupDeadlineSec = 900;
  double Atol = 1e-2, Rtol = 1e-2;
  bool Timing = true, Force = false, KeepScratch = false;
  std::filesystem::path Results = "pkb-results.jsonl";
  std::filesystem::path CacheDir; ///< empty: defaultCacheDir()
  /// Machine rates JSON (`bench peers --json`) whose NVLink rate is the link
  /// peak of the roofline fraction; empty: no fraction (the record says why).
  std::filesystem::path RatesFile;
  /// Shard `I/N` (1 <= I <= N): run only the solutions at positions p
  /// (0-based, in the order given) with p % N == I - 1, as `eval --shard`;
  /// empty: all.
  std::string Shard;
  std::string Selftest; ///< protocol self-test mode of the worker (tests)
  bool Quiet = false;   ///< no table on stdout
  /// When set, every case written is also appended here, typed (merged by
  /// the case merger CaseMergerOf, like .cu cases; CaseResult::Record is the
  /// record).
  std::vector<CaseResult> *Collect = nullptr;
};

/// Prefix of the log line (hub Log message) in which each worker reports
/// its versions (JSON: torch, cuda, driver, python, device) as soon as it
/// has imported torch, so that records of ranks that never send a result
/// (deadlock, a dead worker) still carry them.
inline constexpr std::string_view kVersionsLogPrefix = "pkb-versions ";

/// PKB problem id of a solution file: the leading number of its name
/// ("13_gemm_allreduce_cuda.py" -> 13); nullopt when there is none.
std::optional<int> pkbProblemId(const std::filesystem::path &File);

/// reference/<id>_<name>.py under Root; empty when absent.
std::filesystem::path pkbReference(const std::filesystem::path &Root, int Id);

/// The worker module: $PKB_WORKER_PY, next to the executable
/// (../share/pkbcheck/pkb_worker.py or pkb_worker.py), else the source tree.
std::filesystem::path locatePkbWorker();

/// Parses a shard `I/N` (1 <= I <= N) into the 0-based index I - 1 and N;
/// nullopt when malformed.
std::optional<std::pair<unsigned, unsigned>>
parsePkbShard(const std::string &Spec);

/// Runs every solution (of the shard); appends one record per case to
/// O.Results and prints a table. Returns 0 when every case passed, 1
/// otherwise, 2 on usage error (a malformed shard among them).
int runPkbSolutions(const PkbRunOptions &O);

} // namespace pkb::rt

#endif // PKB_RT_PKBRUN_H
