//===- Report.h - pkbcheck report: tables and charts ------------*- C++ -*-===//
//
// Reads eval records (JSONL, schema "pkbcheck-eval/1"; several files from
// shards are merged, the last record of a candidate wins) as typed
// EvalRecords and writes Markdown, CSV, JSON or one self-contained HTML page
// with inline SVG charts. A *model* is a candidate set (the first directory
// below the eval root, e.g. `solutions_modelA`), or with
// ReportOptions::ModelPerInput the name of each input file or directory;
// every format compares the models side by side (docs/eval.md, "Comparing
// models").
//
//===----------------------------------------------------------------------===//
#ifndef PKB_DRIVER_REPORT_H
#define PKB_DRIVER_REPORT_H

#include "Records.h"

#include <climits>
#include <map>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

namespace pkb {

/// One model's (candidate set's) summary.
struct ModelSummary {
  std::string Name;
  unsigned Candidates = 0;
  unsigned Correct = 0; ///< classes correct-faster, -slower, -untimed
  /// Correct / Candidates (0 for no candidates).
  double CorrectRate = 0;
  /// fast_p at ReportData::ModelP, same order.
  std::vector<double> FastP;
  /// class -> count, for every class the model's candidates have.
  std::map<std::string, unsigned> Classes;
  /// class -> check ID -> number of candidates of that class that a finding
  /// of that check explains (EvalRecord::ExplainedBy "ID@line", derived from
  /// CheckInfo::Explains at eval time; one count per candidate and ID).
  std::map<std::string, std::map<std::string, unsigned>> ExplainedBy;
};

/// One candidate's outcome in the per-problem comparison.
struct ProblemCell {
  std::string Candidate;
  std::string Class;
  std::optional<double> Speedup;
};

/// A row of the per-problem comparison: a PKB problem (Id INT_MAX and Name
/// "(unknown)" for records without a problem), ordered by id.
struct ProblemKey {
  int Id = INT_MAX;
  std::string Name = "(unknown)";
  auto operator<=>(const ProblemKey &) const = default;
};

/// What loadReport reads the inputs as.
struct ReportOptions {
  /// Each input (a JSONL file, or a directory of them) is one model named by
  /// the file's stem or the directory's name; its records' sets are replaced
  /// by that name. Off: inputs are merged and the model is the record's set.
  bool ModelPerInput = false;
};

/// The numbers every report format shows.
struct ReportData {
  std::vector<EvalRecord> Records;  ///< one per (set, candidate), sorted
  std::vector<std::string> Classes; ///< class names, in taxonomy order
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
  unsigned Gated = 0;         ///< flagged candidates not run
  double MeanRunSeconds = 0;  ///< mean GPU-stage seconds of runs
  double GpuSecondsSaved = 0; ///< Gated * MeanRunSeconds
  unsigned Runs = 0;
  /// Model comparison: the fast_p thresholds of KernelBench's table
  /// {0, 0.5, 0.8, 1, 1.5, 2}; one summary per model, by name.
  std::vector<double> ModelP;
  std::vector<ModelSummary> Models;
  /// problem -> model -> outcomes of that model's candidates for it.
  std::map<ProblemKey, std::map<std::string, std::vector<ProblemCell>>>
      ProblemsByModel;
};

/// Loads and merges records from \p Inputs (JSONL files, or directories
/// whose `*.jsonl` files are read in name order, `*.pkb-cases.jsonl` case
/// logs excluded). Malformed lines are reported on \p Log with file and line
/// and skipped. Returns false if an input cannot be read.
bool loadReport(const std::vector<std::string> &Inputs, ReportData &Out,
                std::ostream &Log, const ReportOptions &Opts = {});

/// Fills every derived field of \p D (tables, fast_p, models, problems) from
/// D.Records; loadReport calls it. Never throws.
void summarizeReport(ReportData &D);

/// True for the classes correct-faster, correct-slower and correct-untimed.
bool isCorrectClass(const std::string &Class);

/// fast_p of \p Records for threshold \p P (KernelBench): the fraction of
/// all of them that are correct and have speedup > P; 0 for none.
double fastP(const std::vector<const EvalRecord *> &Records, double P);

void writeMarkdown(const ReportData &D, std::ostream &OS);
void writeCsv(const ReportData &D, std::ostream &OS);
/// One JSON document (schema "pkbcheck-report/1", docs/eval.md): totals,
/// classes, per-set fast_p, the model comparison and the per-problem table.
void writeJson(const ReportData &D, std::ostream &OS);
/// One HTML file, no external resources: tables plus inline SVG charts
/// (stacked failure-class bars per set, fast_p curves, roofline scatter).
void writeHtml(const ReportData &D, std::ostream &OS);

} // namespace pkb

#endif // PKB_DRIVER_REPORT_H
