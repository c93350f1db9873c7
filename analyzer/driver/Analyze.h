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

#include <memory>
#include <string>
#include <vector>

namespace pkb {

/// Everything the driver needs to analyze a file.
struct AnalyzeOptions {
  std::string CudaPath;
  bool ForceShims = false;
  std::vector<std::string> ExtraArgs;    ///< --extra-arg, for every file
  std::shared_ptr<const CompileDb> Db;   ///< -p BUILD_DIR, or null
  std::vector<unsigned> WorldSizes = {2, 3, 4, 5, 6, 7, 8};
  std::string Checks;                    ///< --checks globs
  std::string Topology = "h200x2-nvlink";
  unsigned SolverTimeoutMs = 2000;
};

/// Outcome of one file. Status: "ok" (analyzed; may have findings),
/// "input-error" (could not be read or parsed at all), "crash", "timeout".
struct FileReport {
  std::string Path;
  std::string Status = "ok";
  unsigned Kernels = 0;
  double Seconds = 0;
  std::vector<Finding> Findings;
  std::vector<Diagnostic> Diags;

  bool hasErrorFinding() const;
  bool hasInputError() const;
};

/// Analyzes one file in this process. Never throws.
FileReport analyzeFile(const std::string &Path, const AnalyzeOptions &Opts);

/// Builds the model of one file (all units merged) for `pkbcheck dump`.
/// Diagnostics go to \p Diags.
ModuleModel dumpModel(const std::string &Path, const AnalyzeOptions &Opts,
                      std::vector<Diagnostic> &Diags);

nlohmann::json toJson(const FileReport &R);
FileReport fileReportFromJson(const nlohmann::json &J);

} // namespace pkb

#endif // PKB_DRIVER_ANALYZE_H
