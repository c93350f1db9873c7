//===- Eval.h - pkbcheck eval: screen, run, classify ------------*- C++ -*-===//
//
// `pkbcheck eval` takes many candidate kernels, screens them statically (in
// child processes, -j in parallel), runs the survivors on GPUs through the
// runtime harness when one is built and GPUs are visible, and writes one
// verdict record per candidate to a JSONL file (schema "pkbcheck-eval/1",
// docs/eval.md). The static and dynamic stages can run on different
// machines: `--resume RESULTS.jsonl` completes the records of an earlier
// static-only run.
//
//===----------------------------------------------------------------------===//
#ifndef PKB_DRIVER_EVAL_H
#define PKB_DRIVER_EVAL_H

#include "Analyze.h"
#include "Records.h"
#include "pkb/support/Expected.h"

#include <nlohmann/json.hpp>

#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace pkb::rt {
struct CaseResult;
} // namespace pkb::rt

namespace pkb {

/// The PKB problem whose id starts a file name ("1_allreduce_cuda.py" is
/// problem 1). Known ids get their canonical name; unknown ids keep the
/// name spelled in the file. nullopt if the name has no leading "<id>_".
std::optional<ProblemRef> problemFromFileName(const std::string &Path);

/// pkbcheck's name of a PKB id it has ported (CatalogueEntry::PortedName in
/// pkb/ProblemCatalogue.h, the one id/name table), or "".
std::string knownProblemName(int Id);

/// Failure-mode classes, mutually exclusive, in ParallelKernelBench's order
/// followed by pkbcheck's additions. A candidate gets the first that applies.
enum class EvalClass {
  CompileError,
  ShapeError,
  ApiError,
  RuntimeError,
  OutputMismatch,
  Deadlock,
  CrossCallRace, ///< passes a first call, fails in back-to-back calls
  UnwrittenOutput,
  CorrectSlower, ///< correct, speedup <= 1 over the NCCL reference
  CorrectFaster, ///< correct, speedup > 1
  /// Correct, but not timed: a correctness-only GPU stage (several ranks per
  /// GPU, `--oversubscribe`), so neither slower nor faster is known.
  CorrectUntimed,
  StaticFlagged, ///< not run: static error-level findings (the gate)
  StaticClean,   ///< not run (no GPU stage): static analysis found no error
  /// Not run (no GPU stage): no error found, but some check was not decided
  /// within the solver limits, so the static stage is no pass either.
  StaticIncomplete,
  NotAnalyzed, ///< static stage could not analyze it and it was not run
};

/// Stable name of a class as written in records ("compile-error", ...).
const char *toString(EvalClass C);
/// Inverse of toString(EvalClass); nullopt for unknown names.
std::optional<EvalClass> parseEvalClass(const std::string &S);
/// True for the classes that mean the candidate failed on the GPU.
bool isDynamicFailure(EvalClass C);

/// Maps the dynamic part of an eval record (typed fields: "verdict",
/// "failure_kind", "first_failing_call", "speedup", "mode") to a class; the
/// detail text is never read. The runtime's verdict and failure-kind names
/// are in runtime/include/pkb/rt/Verdict.h.
EvalClass classifyDynamic(const nlohmann::json &Run);
/// classifyDynamic on the typed dynamic part of a record.
EvalClass classifyRun(const EvalDynamic &Run);

/// The GPU stage: runs one candidate for one problem and returns the
/// runtime's merged record(s) as a JSON object with at least "verdict";
/// or {"ran": false, "reason": ...} when it cannot run it.
using DynamicRunner = std::function<nlohmann::json(const std::string &Candidate,
                                                   const ProblemRef &Problem)>;

/// Options of `pkbcheck eval`.
struct EvalOptions {
  std::vector<std::string> Paths;
  std::optional<ProblemRef> Problem; ///< --problem; else from file names
  bool StaticOnly = false;
  bool RunAll = false; ///< run candidates with error findings too
  unsigned Jobs = 1;
  unsigned ShardIndex = 0, ShardCount = 1; ///< --shard I/N (0-based I)
  std::string Results = "pkb-eval.jsonl";
  bool Resume = false; ///< complete an existing file's records
  AnalyzeOptions Analyze;
  double TimeoutSeconds = 120;
  unsigned MaxMemoryMiB = 8192;
  int Gpus = 0;
  /// GPU stage with more ranks than GPUs (rank r on GPU r % G): correctness
  /// only, references without NCCL, no speedup or roofline. Needed on a
  /// one-GPU machine; see docs/runtime.md.
  bool Oversubscribe = false;
  bool Progress = false;
  /// ParallelKernelBench checkout for .py candidates (else $PKB_ROOT) and
  /// the workers' Python (else python3); see docs/pkb.md.
  std::string PkbRoot, Python;
  /// GPU stage of .py candidates (makePkbDynamicRunner); null: they are
  /// screened statically only, PkbNoRunReason says why.
  DynamicRunner PkbRunner;
  std::string PkbNoRunReason;
};

/// The GPU stage of this build: a runner backed by the runtime harness when
/// the runtime was built and GPUs are visible; otherwise an Error saying why
/// there is none (no runtime in this build, no GPU visible).
support::Expected<DynamicRunner> makeDynamicRunner(const EvalOptions &Opts);

/// The GPU stage for ParallelKernelBench .py candidates (EvalPkb.cpp): runs
/// them with the runtime's Python workers (pkbcheck run --solution) at world
/// size Opts.Gpus (default 1); an Error saying why there is none when there
/// is no runtime, no GPU or no PKB checkout.
support::Expected<DynamicRunner> makePkbDynamicRunner(const EvalOptions &Opts);

/// Folds the typed case results of one candidate (merged by
/// rt::mergeCaseResult, for .cu and .py candidates alike) into eval's dynamic
/// record; Seconds is the wall time of the GPU stage (EvalRuntime.cpp;
/// runtime builds only).
nlohmann::json foldCases(const std::vector<rt::CaseResult> &Cases,
                         double Seconds);

/// Runs the evaluation; appends records to Opts.Results as they complete
/// (skipping candidates already complete in it). \p Runner is null when no
/// GPU stage is available. Returns the process exit code (0 ok, 2 usage or
/// I/O error) and prints progress and a summary on \p Log.
int runEval(const EvalOptions &Opts, const DynamicRunner &Runner,
            const std::string &NoGpuReason, std::ostream &Log);

/// One shard of the candidates: those whose index modulo Count is Index0.
struct Shard {
  unsigned Index0 = 0; ///< 0-based
  unsigned Count = 1;
};

/// Parses "I/N" (1-based I as users write it, 1 <= I <= N); an Error
/// quoting the value otherwise.
support::Expected<Shard> parseShard(const std::string &Spec);

/// Candidate set of a path: the first directory below the root it was
/// found under ("outs/modelA/x.py" under root "outs" is "modelA"); the
/// parent directory's name for files given directly.
std::string candidateSet(const std::string &Root, const std::string &Path);

} // namespace pkb

#endif // PKB_DRIVER_EVAL_H
