//===- Report.h - pkbcheck report: tables and charts ------------*- C++ -*-===//
//
// Reads eval records (JSONL, schema "pkbcheck-eval/1"; several files from
// shards are merged, the last record of a candidate wins) and writes
// Markdown, CSV or one self-contained HTML page with inline SVG charts.
//
//===----------------------------------------------------------------------===//
#ifndef PKB_DRIVER_REPORT_H
#define PKB_DRIVER_REPORT_H

#include <nlohmann/json.hpp>

#include <map>
#include <ostream>
#include <string>
#include <vector>

namespace pkb {

/// The numbers every report format shows.
struct ReportData {
  std::vector<nlohmann::json> Records; ///< one per candidate, sorted
  std::vector<std::string> Classes;    ///< class names, in taxonomy order
  /// set -> class -> count; problem -> class -> count; class -> count.
  std::map<std::string, std::map<std::string, unsigned>> BySet, ByProblem;
  std::map<std::string, unsigned> ByClass;
  /// fast_p thresholds and, per set (and "all"), the fraction of that set's
  /// candidates that are correct with speedup > p (KernelBench's fast_p).
  std::vector<double> P;
  std::map<std::string, std::vector<double>> FastP;
  /// problem -> roofline fractions of correct runs.
  std::map<std::string, std::vector<double>> Roofline;
  /// Screening quality of the static gate over candidates that were both
  /// screened and run (TP: flagged and failed on the GPU; FP: flagged and
  /// correct; FN: passed the gate and failed; TN: passed and correct).
  unsigned TP = 0, FP = 0, FN = 0, TN = 0;
  unsigned Gated = 0;          ///< flagged candidates not run
  double MeanRunSeconds = 0;   ///< mean GPU-stage seconds of runs
  double GpuSecondsSaved = 0;  ///< Gated * MeanRunSeconds
  unsigned Runs = 0;
};

/// Loads and merges records. Malformed lines are reported on \p Log with
/// file and line and skipped. Returns false if a file cannot be read.
bool loadReport(const std::vector<std::string> &Files, ReportData &Out,
                std::ostream &Log);

/// fast_p of \p Records for threshold \p P: correct and speedup > P.
double fastP(const std::vector<const nlohmann::json *> &Records, double P);

void writeMarkdown(const ReportData &D, std::ostream &OS);
void writeCsv(const ReportData &D, std::ostream &OS);
/// One HTML file, no external resources: tables plus inline SVG charts
/// (stacked failure-class bars per set, fast_p curves, roofline scatter).
void writeHtml(const ReportData &D, std::ostream &OS);

} // namespace pkb

#endif // PKB_DRIVER_REPORT_H
