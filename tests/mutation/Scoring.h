//===- Scoring.h - Corpus accuracy and mutation scores ----------*- C++ -*-===//
//
// The bookkeeping of pkb_accuracy (docs/accuracy.md), kept apart from the
// analysis so that it can be unit-tested on synthetic findings: annotation
// parsing, per-ID true/false positives and misses over the labelled corpus,
// and the classification of mutants.
//
//===----------------------------------------------------------------------===//
#ifndef PKB_TESTS_MUTATION_SCORING_H
#define PKB_TESTS_MUTATION_SCORING_H

#include "Mutation.h"
#include "pkb/Diagnostic.h"

#include <nlohmann/json.hpp>

#include <map>
#include <set>
#include <string>
#include <utility>
#include <vector>

namespace pkb::accuracy {

/// A reported or expected finding: (line, check ID).
using Key = std::pair<unsigned, std::string>;

/// The `// expect: ID` / `# expect: ID` annotations of a file's text (same
/// rule as tests/corpus/CorpusCheckTest.cpp: the annotation ends the line).
std::set<Key> readAnnotations(const std::string &Text);

/// The (line, ID) keys of the findings at Error or Warning level.
std::set<Key> reportedKeys(const std::vector<Finding> &Findings);

/// True/false positives and misses.
struct Counts {
  size_t Tp = 0, Fp = 0, Fn = 0;
  /// TP / (TP + FP); 1 when nothing was reported.
  double precision() const;
  /// TP / (TP + FN); 1 when nothing was expected.
  double recall() const;
};

/// One corpus file compared with its annotations.
struct FileScore {
  std::string Path;
  std::string Status = "ok"; ///< FileReport status (ok, input-error, ...)
  double Seconds = 0;
  std::set<Key> Want, Got;
  Counts C;
  bool Exact = false;       ///< Got == Want
  size_t ErrorFindings = 0; ///< findings at Error level
};

/// Compares the findings of one file with its annotations.
FileScore scoreFile(const std::string &Path, const std::set<Key> &Want,
                    const std::vector<Finding> &Findings,
                    const std::string &Status, double Seconds);

/// Corpus-wide totals. A file with no annotation is a correct file; its
/// Error-level findings are false alarms.
struct CorpusScore {
  std::vector<FileScore> Files;
  std::map<std::string, Counts> PerId; ///< by check ID
  Counts Total;
  size_t Exact = 0;
  size_t CorrectFiles = 0;
  size_t CorrectFilesWithErrors = 0;
  size_t FalseAlarms = 0; ///< Error-level findings on correct files
  double Seconds = 0;     ///< sum of per-file times
};

/// Sums per-file scores (per ID and overall).
CorpusScore scoreCorpus(std::vector<FileScore> Files);

/// JSON form of a corpus score (docs/accuracy.md, "JSON output").
nlohmann::json toJson(const CorpusScore &S);

/// What became of one mutant.
enum class Outcome {
  Killed,      ///< a new finding with one of the operator's IDs
  KilledOther, ///< new findings, none with the operator's IDs
  Survived,    ///< no new finding
  Stillborn,   ///< the mutant does not parse
  Equivalent,  ///< listed in the reviewed equivalent-mutant file
  Failed,      ///< analysis crashed or timed out
};

/// Lower-case name of an outcome ("killed", "killed-other", ...).
const char *toString(Outcome O);

/// Classifies a mutant. New findings are the mutant's (line, ID) keys that
/// the original file does not have (lines are preserved by the operators).
/// \p NewIds receives the IDs of the new findings, sorted and unique.
Outcome classifyMutant(const std::vector<std::string> &KillIds,
                       const std::set<Key> &Baseline, const std::set<Key> &Got,
                       bool Stillborn, bool Failed, bool Equivalent,
                       std::vector<std::string> &NewIds);

/// Counts of one operator (or all).
struct OperatorScore {
  size_t Mutants = 0, Stillborn = 0, Equivalent = 0, Failed = 0, Killed = 0,
         KilledOther = 0, Survived = 0;
  void add(Outcome O);
  /// Mutants that count: all but stillborn, equivalent and failed ones.
  size_t scored() const { return Killed + KilledOther + Survived; }
  /// Killed / scored(); 1 when nothing is scored.
  double score() const;
};

/// Reads a reviewed equivalent-mutant list: lines `file:line:operator`
/// (file is the base name), `#` starts a comment, blank lines are skipped.
/// Malformed lines are reported in \p Errors.
std::set<std::string> readEquivalentList(const std::string &Text,
                                         std::vector<std::string> &Errors);

/// The key of a mutant in an equivalent-mutant list.
std::string equivalentKey(const std::string &File, unsigned Line,
                          const std::string &Operator);

} // namespace pkb::accuracy

#endif // PKB_TESTS_MUTATION_SCORING_H
