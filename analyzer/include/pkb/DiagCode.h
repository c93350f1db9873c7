//===- pkb/DiagCode.h - The diagnostic codes --------------------*- C++ -*-===//
//
// Every code a tool diagnostic (Diagnostic::Code) can carry, with what it
// means. The list of codes in docs/diagnostics.md is generated from this
// table (diagCodesMarkdown; a driver test keeps the two equal); the sources
// name codes by these values, never as literals (a test checks it).
//
//===----------------------------------------------------------------------===//
#ifndef PKB_DIAGCODE_H
#define PKB_DIAGCODE_H

#include <optional>
#include <span>
#include <string>
#include <string_view>

namespace pkb {

/// The diagnostic codes, grouped by the stage that emits them.
enum class DiagCode {
  InputUnreadable,
  InputUnsupported,
  InputTooLarge,
  InputEmpty,
  InputBinary,
  NoCuda,
  ParseError,
  MissingInclude,
  IncludeTooDeep,
  MacroExpansionLimit,
  NestingTooDeep,
  PtxUnknown,
  RecoveredDeclaration,
  NoKernels,
  PrecompiledHeaders,
  Note,
  SolverUnknown,
  CompileDb,
  Topology,
  NoAnalyzer,
  FrontendCrash,
  Timeout,
  MemoryLimit,
  OutOfMemory,
  InternalError,
  Interrupted,
};

/// One row of the table.
struct DiagCodeInfo {
  DiagCode Code;
  std::string_view Name;    ///< as written: "input-unreadable"
  std::string_view Meaning; ///< one sentence (Markdown)
};

/// Every code, in enum order.
std::span<const DiagCodeInfo> diagCodes();

/// The written name of a code, e.g. "parse-error".
std::string_view toString(DiagCode C);

/// Inverse of toString(DiagCode); nullopt for unknown names.
std::optional<DiagCode> parseDiagCode(std::string_view Name);

/// The Markdown table of docs/diagnostics.md (code | meaning).
std::string diagCodesMarkdown();

} // namespace pkb

#endif // PKB_DIAGCODE_H
