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

} // namespace pkb::rt
