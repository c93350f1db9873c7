//===- pkb/rt/Verdict.h - Verdicts of the runtime harness -------*- C++ -*-===//
//
// One verdict per (candidate, problem, size, world size, mode) case. Ranks
// report their own verdicts; the case verdict is the most severe of them.
//
//===----------------------------------------------------------------------===//
#ifndef PKB_RT_VERDICT_H
#define PKB_RT_VERDICT_H

#include <optional>
#include <string>
#include <string_view>

namespace pkb::rt {

/// Outcome of one case, in increasing severity (see verdictSeverity).
enum class Verdict {
  Pass,            ///< every rank, every trial, every call matched
  WrongOutput,     ///< some element outside tolerance
  UnwrittenOutput, ///< some element still holds the poison pattern
  SanitizerError,  ///< compute-sanitizer reported errors
  SetupError,      ///< dlopen/query/setup failed or returned non-zero
  RuntimeError,    ///< CUDA error (illegal address, ...) or crashed worker
  ApiError,        ///< a .py solution failed on a torch API mismatch
  Deadlock,        ///< a call ran past its deadline; workers were killed
  CompileError,    ///< nvcc rejected the candidate
  Skipped,         ///< not run (earlier fatal error of the same candidate)
  InternalError    ///< the harness itself failed (bootstrap, NCCL, ...)
};

/// Stable lower-case name used in JSON and tables, e.g. "wrong-output".
std::string_view verdictName(Verdict V);

/// Inverse of verdictName; nullopt for unknown names.
std::optional<Verdict> parseVerdict(std::string_view Name);

/// Severity rank used to merge verdicts of ranks (larger is worse).
int verdictSeverity(Verdict V);

/// The more severe of two verdicts.
Verdict worseVerdict(Verdict A, Verdict B);

/// True for verdicts after which the worker processes cannot continue
/// (their CUDA context or peers are in an unknown state).
bool isFatalVerdict(Verdict V);

/// What failed in a case, finer than the verdict and typed so that consumers
/// (eval's failure classes) never read detail text. Workers send it as
/// "failure_kind" in fatal setup results (Load or Setup); the case merger
/// derives it for every case (see caseFailureKind).
enum class FailureKind {
  None,      ///< the case passed
  Compile,   ///< nvcc rejected the candidate
  Load,      ///< dlopen failed or an ABI symbol is missing (an API error)
  Setup,     ///< query/setup rejected the problem or failed (a shape error)
  Output,    ///< wrong or unwritten output in a synchronized trial
  CrossCall, ///< output wrong only from a back-to-back call k >= 1 on
  Crash,     ///< CUDA error, crashed or exited worker
  Deadlock,  ///< a call ran past its deadline
  Sanitizer, ///< compute-sanitizer reported errors
  Harness    ///< the harness failed or the case was skipped
};

/// Stable lower-case name used on the wire and in records, e.g. "load".
std::string_view failureKindName(FailureKind K);

/// Inverse of failureKindName; nullopt for unknown names.
std::optional<FailureKind> parseFailureKind(std::string_view Name);

/// The failure kind of a case with verdict V. Reported is what the failing
/// rank said (only Load/Setup refine a setup-error); FirstFailingCall > 0
/// makes an output verdict a CrossCall.
FailureKind caseFailureKind(Verdict V,
                            std::optional<FailureKind> Reported = std::nullopt,
                            int FirstFailingCall = 0);

} // namespace pkb::rt

#endif // PKB_RT_VERDICT_H
