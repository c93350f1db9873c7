//===- Verdict.cpp - Verdict names and severities -------------------------===//
#include "pkb/rt/Verdict.h"

#include <array>
#include <utility>

namespace pkb::rt {
namespace {
constexpr std::array<std::pair<Verdict, std::string_view>, 11> Names = {{
    {Verdict::Pass, "pass"},
    {Verdict::WrongOutput, "wrong-output"},
    {Verdict::UnwrittenOutput, "unwritten-output"},
    {Verdict::SanitizerError, "sanitizer-error"},
    {Verdict::SetupError, "setup-error"},
    {Verdict::RuntimeError, "runtime-error"},
    {Verdict::ApiError, "api-error"},
    {Verdict::Deadlock, "deadlock"},
    {Verdict::CompileError, "compile-error"},
    {Verdict::Skipped, "skipped"},
    {Verdict::InternalError, "internal-error"},
}};
constexpr std::array<std::pair<FailureKind, std::string_view>, 10> KindNames = {
    {
        {FailureKind::None, "none"},
        {FailureKind::Compile, "compile"},
        {FailureKind::Load, "load"},
        {FailureKind::Setup, "setup"},
        {FailureKind::Output, "output"},
        {FailureKind::CrossCall, "cross-call"},
        {FailureKind::Crash, "crash"},
        {FailureKind::Deadlock, "deadlock"},
        {FailureKind::Sanitizer, "sanitizer"},
        {FailureKind::Harness, "harness"},
    }};
} // namespace

std::string_view verdictName(Verdict V) {
  for (const auto &[K, N] : Names)
    if (K == V)
      return N;
  return "internal-error";
}

std::optional<Verdict> parseVerdict(std::string_view Name) {
  for (const auto &[K, N] : Names)
    if (N == Name)
      return K;
  return std::nullopt;
}

int verdictSeverity(Verdict V) { return static_cast<int>(V); }

Verdict worseVerdict(Verdict A, Verdict B) {
  return verdictSeverity(A) >= verdictSeverity(B) ? A : B;
}

bool isFatalVerdict(Verdict V) {
  switch (V) {
  case Verdict::SetupError:
  case Verdict::RuntimeError:
  case Verdict::ApiError:
  case Verdict::Deadlock:
  case Verdict::CompileError:
  case Verdict::InternalError:
    return true;
  default:
    return false;
  }
}

std::string_view failureKindName(FailureKind K) {
  for (const auto &[Kind, N] : KindNames)
    if (Kind == K)
      return N;
  return "harness";
}

std::optional<FailureKind> parseFailureKind(std::string_view Name) {
  for (const auto &[Kind, N] : KindNames)
    if (N == Name)
      return Kind;
  return std::nullopt;
}

FailureKind caseFailureKind(Verdict V, std::optional<FailureKind> Reported,
                            int FirstFailingCall) {
  switch (V) {
  case Verdict::Pass:
    return FailureKind::None;
  case Verdict::WrongOutput:
  case Verdict::UnwrittenOutput:
    return FirstFailingCall > 0 ? FailureKind::CrossCall : FailureKind::Output;
  case Verdict::SanitizerError:
    return FailureKind::Sanitizer;
  case Verdict::SetupError:
    return Reported == FailureKind::Load ? FailureKind::Load
                                         : FailureKind::Setup;
  case Verdict::ApiError: // a torch API mismatch (docs/pkb.md): an interface
    return FailureKind::Load; // failure like a missing ABI symbol
  case Verdict::RuntimeError:
    return FailureKind::Crash;
  case Verdict::Deadlock:
    return FailureKind::Deadlock;
  case Verdict::CompileError:
    return FailureKind::Compile;
  case Verdict::Skipped:
  case Verdict::InternalError:
    return FailureKind::Harness;
  }
  return FailureKind::Harness;
}

} // namespace pkb::rt
