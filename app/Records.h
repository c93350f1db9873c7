//===- Records.h - Reading and appending eval records (JSONL) ---*- C++ -*-===//
//
// The results file of `pkbcheck eval` is JSON Lines: one record of schema
// "pkbcheck-eval/1" per line (docs/eval.md). It is appended to by
// interrupted and resumed runs, shards and two machines, so readers must
// survive anything a line can hold: a truncated last line, a record written
// by another version, a hand-edited field of the wrong type. Every reader
// (`eval --resume`, `eval -o`, `report`) goes through readEvalRecords, which
// validates each record against one declarative schema (evalRecordSchema)
// and skips bad lines with a FILE:LINE warning; writers go through
// JsonlAppender, which never glues a record onto a truncated line.
//
//===----------------------------------------------------------------------===//
#ifndef PKB_DRIVER_RECORDS_H
#define PKB_DRIVER_RECORDS_H

#include "pkb/support/Expected.h"

#include <nlohmann/json.hpp>

#include <optional>
#include <ostream>
#include <string>
#include <string_view>
#include <vector>

namespace pkb {

/// JSON types a record field may have; FieldSpec::Types is a bit set of them.
enum FieldType : unsigned {
  FtNull = 1u << 0,
  FtBool = 1u << 1,
  FtInt = 1u << 2,    ///< an integer that fits in `int` (no fraction)
  FtNumber = 1u << 3, ///< any number (integers included)
  FtString = 1u << 4,
  FtObject = 1u << 5,
  FtArray = 1u << 6,
};

/// One field of the eval record schema.
struct FieldSpec {
  /// Dotted path from the record root; `[]` stands for every element of an
  /// array ("static.findings[].line").
  const char *Path;
  unsigned Types; ///< Allowed FieldType bits.
  /// The field must be present whenever its parent is (a missing parent is
  /// checked by the parent's own entry).
  bool Required = false;
};

/// The fields of schema "pkbcheck-eval/1" that any reader uses, with their
/// types. Fields not listed are allowed and not checked.
const std::vector<FieldSpec> &evalRecordSchema();

/// Checks \p Record (any JSON value) against evalRecordSchema(). On failure
/// the Error names the first bad field, e.g. "field 'dynamic.speedup' is a
/// string, expected a number or null".
support::Expected<void> validateEvalRecord(const nlohmann::json &Record);

/// Parses and validates one line of a results file. Returns the record, or
/// an Error saying what is wrong (invalid JSON, nesting too deep, not an
/// object, or a field of the wrong type). Never throws.
support::Expected<nlohmann::json> parseEvalRecord(std::string_view Line);

/// Reads every record of \p File in order into \p Out. Blank lines are
/// ignored; a bad line is reported on \p Log as "FILE:LINE: warning: WHY;
/// record skipped" and skipped. Returns false (with "pkbcheck: error: cannot
/// read 'FILE': REASON" on \p Log) only if the file cannot be opened or
/// read. Never throws.
bool readEvalRecords(const std::string &File, std::vector<nlohmann::json> &Out,
                     std::ostream &Log);

/// A problem of ParallelKernelBench, by its PKB id and name.
struct ProblemRef {
  int Id = 0;
  std::string Name;
};

/// The dynamic (GPU) part of an eval record, typed (docs/eval.md).
struct EvalDynamic {
  bool Ran = false;
  std::string Reason;      ///< why it did not run (Ran false)
  std::string Verdict;     ///< runtime verdict name ("pass", "deadlock", ..)
  std::string Detail;      ///< for people; never parsed
  std::string Mode;        ///< "eager", "correctness-only", ...
  std::string FailureKind; ///< rt::FailureKind name ("load", "setup", ...)
  std::optional<double> Speedup, Seconds, RooflineFraction;
  std::optional<int> FirstFailingCall;
  std::optional<nlohmann::json> Cases;             ///< per-size cases (array)
  nlohmann::json Extra = nlohmann::json::object(); ///< fields not above
};

/// One record of schema "pkbcheck-eval/1", typed. The JSON keys are spelled
/// only in toJson / evalRecordFromJson (Records.cpp) and the schema table.
struct EvalRecord {
  std::string Candidate;
  std::string Set = "default";
  std::optional<ProblemRef> Problem; ///< null in JSON when unknown
  /// The static part: the file report of the analysis (docs/model-schema.md)
  /// with "errors" and "warnings" counts.
  nlohmann::json Static = nlohmann::json::object();
  std::string Gate;  ///< "pass", "flagged", ... (docs/eval.md)
  std::string Stage; ///< "static" (GPU stage pending) or "final"
  std::string Class; ///< EvalClass name
  std::vector<std::string> ExplainedBy; ///< "ID@line" of explaining findings
  EvalDynamic Dynamic;
  nlohmann::json Extra = nlohmann::json::object(); ///< fields not above
};

/// The JSON of a dynamic part; optional fields are written only when set.
nlohmann::json toJson(const EvalDynamic &D);
/// Reads a dynamic part; fields of another type are left at their defaults
/// and unknown fields are kept in Extra. Never throws.
EvalDynamic evalDynamicFromJson(const nlohmann::json &J);
/// The JSON of a record (with "schema": "pkbcheck-eval/1").
nlohmann::json toJson(const EvalRecord &R);
/// Reads a record (validate it first: validateEvalRecord); fields of another
/// type are left at their defaults, unknown fields kept in Extra, so
/// toJson(evalRecordFromJson(J)) == J for a record this version wrote.
/// Never throws.
EvalRecord evalRecordFromJson(const nlohmann::json &J);

/// The "errors" (\p Warnings false) or "warnings" count of the static part
/// of \p R; 0 when absent or not a non-negative integer. Never throws.
unsigned staticCount(const EvalRecord &R, bool Warnings);

/// The roofline fraction of a run: `roofline_fraction`, or the older
/// `roofline.fraction` kept in Extra; nullopt if neither is a number.
std::optional<double> rooflineFraction(const EvalDynamic &D);

/// Appends records to a JSONL file, one line each, durably: each line is
/// written with one write(2), checked and fsync'ed. If the file already
/// exists, is non-empty and does not end with a newline (a run was killed
/// mid-line), open() first writes a newline so that the truncated line stays
/// a line of its own (which readers skip) instead of corrupting the next
/// record. Not copyable.
class JsonlAppender {
public:
  JsonlAppender() = default;
  JsonlAppender(const JsonlAppender &) = delete;
  JsonlAppender &operator=(const JsonlAppender &) = delete;
  ~JsonlAppender();

  /// Opens (creating it if needed) \p File for appending. On failure the
  /// Error is the system's reason ("Permission denied").
  support::Expected<void> open(const std::string &File);
  /// Writes \p Record as one line (invalid UTF-8 in strings is replaced by
  /// U+FFFD, so any record can be written) and syncs it to disk. On failure
  /// the Error is the system's reason.
  support::Expected<void> append(const nlohmann::json &Record);
  /// True between a successful open() and destruction.
  bool isOpen() const { return Fd >= 0; }

private:
  support::Expected<void> writeAll(std::string_view Bytes);
  int Fd = -1;
};

} // namespace pkb

#endif // PKB_DRIVER_RECORDS_H
