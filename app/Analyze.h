//===- Analyze.h - Analysis of one input file -------------------*- C++ -*-===//
//
// The unit of work of `pkbcheck check`: one input file read, parsed, modeled
// and checked. Runs in a child process (see ProcessPool.h) so that a crash or
// a runaway solver in one file cannot take the run down.
//
//===----------------------------------------------------------------------===//
#ifndef PKB_DRIVER_ANALYZE_H
#define PKB_DRIVER_ANALYZE_H

#include "CompileDb.h"
#include "pkb/Diagnostic.h"
#include "pkb/Model.h"

#include <nlohmann/json.hpp>

#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

namespace pkb {

/// Everything the driver needs to analyze a file.
struct AnalyzeOptions {
  std::string CudaPath;
  bool ForceShims = false;
  std::vector<std::string> ExtraArgs;  ///< --extra-arg, for every file
  std::shared_ptr<const CompileDb> Db; ///< -p BUILD_DIR, or null
  /// Cache directory of the precompiled toolkit headers
  /// (FrontendOptions::PchDir); empty: --no-pch.
  std::string PchDir;
  std::vector<unsigned> WorldSizes = {2, 3, 4, 5, 6, 7, 8};
  std::string Checks;   ///< --checks globs
  std::string Topology; ///< "" = no target named (docs/checkers.md)
  /// The problem every file solves, an id or a name (`--problem`); empty:
  /// each file's own, from its name (`<id>_<name>...`, as eval does);
  /// "none": no problem. Only problems with a size contract
  /// (pkb::sizeContract()) reach the checkers (CheckOptions::Problem).
  std::string Problem;
  unsigned SolverTimeoutMs = 2000;
};

/// Outcome of one file. Status:
///   "ok"           analyzed (it may have findings);
///   "parse-error"  Clang reported errors: the file does not compile (the
///                  kernels that still parsed were checked, their findings
///                  are kept), never a pass;
///   "input-error"  could not be read, or held no CUDA that parses;
///   "crash", "timeout", "memory-limit"  the analysis did not finish.
/// Every status but "ok" is an input error (exit status 2, docs/cli.md).
struct FileReport {
  std::string Path;
  std::string Status = "ok";
  unsigned Kernels = 0;
  double Seconds = 0;
  /// Solver queries that ended unknown (time or budget limit): the file was
  /// not fully checked, so a clean result is "not checked", never a pass.
  unsigned Undecided = 0;
  std::vector<Finding> Findings;
  std::vector<Diagnostic> Diags;
  /// Seconds per phase of the analysis: "frontend" (reading, parsing and
  /// modeling every unit) and one entry per check ID that ran. JSON
  /// "phases"; `check --profile` sums them over the files.
  std::map<std::string, double> PhaseSeconds;
  /// Peak resident set size of the process that analyzed the file, in MiB
  /// (check's per-file worker: ru_maxrss, which includes the pages it
  /// shares with the parent); 0 when the file was analyzed in the calling
  /// process. JSON "peak_rss_mib".
  double PeakRssMiB = 0;
  /// `pkbcheck dump` only: the module model as JSON (schema
  /// pkbcheck-model/1); null otherwise.
  nlohmann::json Model;

  bool hasErrorFinding() const;
  bool hasInputError() const;
  /// True when the analysis finished but some check was not decided.
  bool notFullyChecked() const { return Status == "ok" && Undecided > 0; }
};

/// Where analyzeFile reports its progress, in a child process of
/// runInChildren: one JSON message before each phase
/// ({"kind":"progress","phase":"frontend"} and
/// {"kind":"progress","phase":"check","check":ID,"kernel":NAME}) and the
/// report so far after each checker ({"kind":"partial","checks_done":N,
/// "report":{...}}), so that a file stopped by --timeout or a crash keeps the
/// findings of the checks that finished. Null (the default): no messages.
/// Process-wide; set it before analyzeFile runs.
void setAnalysisProgressSink(std::function<void(const nlohmann::json &)> Sink);

/// For a process that exits (`_exit`) right after its one analyzeFile call,
/// a per-file worker of runInChildren: with \p Keep, analyzeFile leaves the
/// file's check contexts (one Z3 context per kernel, with every term and
/// query of its checkers) to the process exit instead of destroying them.
/// Z3_del_context took 0.9 s of the 1.7 s of sig001_02_rawptr.cu, after
/// its checkers had finished (docs/performance.md, seventh session).
/// Process-wide; false (the default) destroys them as usual, as a process
/// that analyzes several files must.
void keepCheckContextsUntilExit(bool Keep);

/// Sends \p Message to the progress sink, if one is set.
void emitAnalysisProgress(const nlohmann::json &Message);

/// Analyzes one file in this process. Never throws. The Clang and solver
/// work runs on a thread with a large stack (kAnalysisStackBytes), so deeply
/// nested input exhausts a limit, not the process's 8 MiB main stack.
FileReport analyzeFile(const std::string &Path, const AnalyzeOptions &Opts);

/// Stack size of the analysis thread: 256 MiB of address space (only the
/// pages touched are committed).
inline constexpr size_t kAnalysisStackBytes = size_t(256) << 20;

/// The work of `pkbcheck dump` for one file: FileReport::Model holds the
/// model, Diags the diagnostics, Status as for analyzeFile (no checkers run).
/// Runs on the large-stack thread like analyzeFile. Never throws.
FileReport dumpFile(const std::string &Path, const AnalyzeOptions &Opts);

nlohmann::json toJson(const FileReport &R);
FileReport fileReportFromJson(const nlohmann::json &J);

} // namespace pkb

#endif // PKB_DRIVER_ANALYZE_H
