//===- pkb/rt/Verdict.h - Verdicts of the runtime harness -------*- C++ -*-===//
//
// One verdict per (candidate, problem, size, world size, mode) case. Ranks
// report their own verdicts; the case verdict is the most severe of them.
//
//===----------------------------------------------------------------------===//
#ifndef PKB_RT_VERDICT_H
#define PKB_RT_VERDICT_H

#include <optional>
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

} // namespace pkb::rt

#endif // PKB_RT_VERDICT_H
