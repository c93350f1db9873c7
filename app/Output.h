//===- Output.h - Text, JSON and SARIF reports ------------------*- C++ -*-===//
//
// Report writers for `pkbcheck check`. Every writer streams: each file's
// results are written (and flushed) as soon as that file is done, so an
// interrupted run keeps everything finished before the interruption, and
// end() closes the document (valid JSON/SARIF) also after an interruption.
//
//===----------------------------------------------------------------------===//
#ifndef PKB_DRIVER_OUTPUT_H
#define PKB_DRIVER_OUTPUT_H

#include "Analyze.h"
#include "pkb/Checker.h"
#include "pkb/support/Expected.h"

#include <functional>
#include <memory>
#include <ostream>
#include <string>
#include <vector>

namespace pkb {

/// Totals of a `check` run, written at the end.
struct CheckSummary {
  size_t Files = 0;
  size_t FilesWithErrors = 0; ///< files with error-level findings
  size_t InputErrors = 0;     ///< unreadable / unparsable / crash / timeout
  size_t Errors = 0, Warnings = 0, Notes = 0;
  /// Files analyzed but not fully checked (a solver query ended unknown).
  size_t NotChecked = 0;
  double Seconds = 0;
  std::vector<std::string> FailedFiles;     ///< "path (status)", Status != "ok"
  std::vector<std::string> NotCheckedFiles; ///< paths counted in NotChecked
  size_t Planned = 0;  ///< files the run set out to analyze
  int Interrupted = 0; ///< SIGINT/SIGTERM that stopped the run, or 0
};

/// The exit status of `pkbcheck check` for \p S (docs/cli.md):
///   130, 143  interrupted by SIGINT, SIGTERM (128 + signal);
///   2  some input was not analyzed (unreadable, does not compile, crash,
///      timeout, memory limit); takes precedence over findings;
///   1  error-level findings;
///   3  no error finding, but some check was not decided (solver time or
///      budget limit): the files were not fully checked, which is no pass;
///   0  every file analyzed and fully checked, no error-level finding.
int exitStatus(const CheckSummary &S);

/// Streaming report writer.
class ReportWriter {
public:
  virtual ~ReportWriter() = default;
  /// Writes the head of the document (tool, rules).
  virtual void begin() = 0;
  /// Writes one file's findings and diagnostics, then flushes.
  virtual void file(const FileReport &R) = 0;
  /// Writes the summary and closes the document.
  virtual void end(const CheckSummary &S) = 0;
};

/// Settings of a report writer.
struct WriterOptions {
  bool Color = false; ///< ANSI colors (text only)
  /// Absolute URI of checkers.md; a rule's SARIF helpUri is this plus the
  /// rule's anchor. Empty means defaultDocsUrl().
  std::string DocsUrl;
};

struct ReportData;

/// Which command an output format belongs to.
enum class OutputKind {
  Check, ///< `check --format`: a streaming ReportWriter of file reports
  Report ///< `report --format`: a rendering of eval records (ReportData)
};

/// One output format: the format name -> writer table that `check` and
/// `report` use and their help lists from.
struct OutputFormat {
  std::string Name; ///< as given to --format
  OutputKind Kind;
  /// Check formats: creates the writer (Rules: SARIF rule metadata).
  std::function<std::unique_ptr<ReportWriter>(
      std::ostream &, std::vector<CheckInfo> Rules, const WriterOptions &)>
      MakeWriter;
  /// Report formats: renders the records.
  std::function<void(const ReportData &, std::ostream &)> Write;
};

/// Every output format, check formats first, each kind in help order.
const std::vector<OutputFormat> &outputFormats();

/// The format Name of kind K; nullptr if none.
const OutputFormat *findOutputFormat(OutputKind K, const std::string &Name);

/// The names of the formats of kind K joined by Sep, the last two by Last
/// ("text, json or sarif" with Sep ", " and Last " or ").
std::string outputFormatNames(OutputKind K, const std::string &Sep = ", ",
                              const std::string &Last = ", ");

/// Creates the writer for --format \p Format ("text", "json", "sarif").
/// \p Rules describes every checker (SARIF rule metadata). Returns null for
/// an unknown format.
std::unique_ptr<ReportWriter> makeWriter(const std::string &Format,
                                         std::ostream &OS,
                                         std::vector<CheckInfo> Rules,
                                         const WriterOptions &Opts = {});

/// file:// URI of docs/checkers.md in the source tree pkbcheck was built
/// from (always absolute).
std::string defaultDocsUrl();

/// The docs base of `check --docs-url`: \p Option if set, else the
/// environment variable PKBCHECK_DOCS_URL if set, else defaultDocsUrl(). A
/// fragment ("#...") is dropped. Returns an Error if the chosen value is not
/// an absolute URI (scheme ":" ...).
support::Expected<std::string> resolveDocsUrl(const std::string &Option);

/// The helpUri of rule \p R: \p DocsUrl + "#" + the anchor of R.HelpUri
/// (its part after '#'; the lower-case ID when it has none).
std::string ruleHelpUri(const std::string &DocsUrl, const CheckInfo &R);

/// The SARIF artifactLocation.uri of a path: relative paths stay relative
/// (normalized, '/'-separated), absolute paths become file:/// URIs; every
/// byte outside RFC 3986's unreserved set and '/' is percent-encoded
/// (space, '%', '#', '?', ':', non-ASCII bytes, ...).
std::string sarifArtifactUri(const std::string &Path);

/// \p Text with '\\', '[' and ']' escaped by a backslash, so that a SARIF
/// plain-text message shows them literally (SARIF 2.1.0, "messages with
/// embedded links": outside a link these characters are escaped).
std::string sarifEscape(const std::string &Text);

} // namespace pkb

#endif // PKB_DRIVER_OUTPUT_H
