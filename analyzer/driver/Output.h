//===- Output.h - Text, JSON and SARIF reports ------------------*- C++ -*-===//
//
// Report writers for `pkbcheck check`. Every writer streams: each file's
// results are written (and flushed) as soon as that file is done, so an
// interrupted run keeps everything finished before the interruption.
//
//===----------------------------------------------------------------------===//
#ifndef PKB_DRIVER_OUTPUT_H
#define PKB_DRIVER_OUTPUT_H

#include "Analyze.h"
#include "pkb/Checker.h"

#include <memory>
#include <ostream>
#include <string>
#include <vector>

namespace pkb {

/// Totals of a run, written at the end.
struct RunSummary {
  size_t Files = 0;
  size_t FilesWithErrors = 0; ///< files with error-level findings
  size_t InputErrors = 0;     ///< unreadable / unparsable / crash / timeout
  size_t Errors = 0, Warnings = 0, Notes = 0;
  /// Files analyzed but not fully checked (a solver query ended unknown).
  size_t NotChecked = 0;
  double Seconds = 0;
  std::vector<std::string> FailedFiles;     ///< "path (status)", Status != "ok"
  std::vector<std::string> NotCheckedFiles; ///< paths counted in NotChecked
};

/// Streaming report writer.
class ReportWriter {
public:
  virtual ~ReportWriter() = default;
  virtual void begin() = 0;
  virtual void file(const FileReport &R) = 0;
  virtual void end(const RunSummary &S) = 0;
};

/// Creates the writer for --format \p Format ("text", "json", "sarif").
/// \p Rules describes every checker (SARIF rule metadata). \p Color enables
/// ANSI colors (text only). Returns null for an unknown format.
std::unique_ptr<ReportWriter> makeWriter(const std::string &Format,
                                         std::ostream &OS,
                                         std::vector<CheckInfo> Rules,
                                         bool Color);

} // namespace pkb

#endif // PKB_DRIVER_OUTPUT_H
