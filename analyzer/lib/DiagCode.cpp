//===- DiagCode.cpp - The diagnostic codes --------------------------------===//
#include "pkb/DiagCode.h"

#include <array>

namespace pkb {
namespace {
constexpr std::array<DiagCodeInfo, 26> Table = {{
    {DiagCode::InputUnreadable, "input-unreadable",
     "missing path, directory, not a regular file, or a read failure"},
    {DiagCode::InputUnsupported, "input-unsupported",
     "extension other than .cu .cuh .cpp .cc .h .hpp .py"},
    {DiagCode::InputTooLarge, "input-too-large",
     "larger than the input size limit (16 MiB)"},
    {DiagCode::InputEmpty, "input-empty", "empty, or only whitespace"},
    {DiagCode::InputBinary, "input-binary",
     "a NUL byte or ill-formed UTF-8 in the first 64 KiB"},
    {DiagCode::NoCuda, "no-cuda",
     "a Python file in which no CUDA source was found"},
    {DiagCode::ParseError, "parse-error",
     "Clang errors (the file does not compile) or a Python tokenizer "
     "problem"},
    {DiagCode::MissingInclude, "missing-include",
     "an `#include` that was not found; later errors become warnings"},
    {DiagCode::IncludeTooDeep, "include-too-deep",
     "an `#include` nested past Clang's limit of 200 (a recursive include "
     "without a guard)"},
    {DiagCode::MacroExpansionLimit, "macro-expansion-limit",
     "more than 20 million macro expansions in one unit"},
    {DiagCode::NestingTooDeep, "nesting-too-deep",
     "the parser's recursion exhausted the 256 MiB analysis stack"},
    {DiagCode::PtxUnknown, "ptx-unknown",
     "an inline PTX instruction the decoder does not know (docs/ptx.md)"},
    {DiagCode::RecoveredDeclaration, "recovered-declaration",
     "a name from a header that was not found, guessed as an attribute "
     "macro, namespace, function or opaque type so the kernels still parse "
     "(docs/frontend.md, \"Missing headers\")"},
    {DiagCode::NoKernels, "no-kernels",
     "the file parses but defines no `__global__` function"},
    {DiagCode::PrecompiledHeaders, "precompiled-headers",
     "the precompiled toolkit headers could not be built or used (corrupt, "
     "out of date, unwritable cache); the file was parsed without them"},
    {DiagCode::Note, "note",
     "a remark of the front end (toolkit or shim mode, ...)"},
    {DiagCode::SolverUnknown, "solver-unknown",
     "a solver query ended unknown (time or memory limit): the check is "
     "undecided there"},
    {DiagCode::CompileDb, "compile-db",
     "a problem with the compilation database (`-p`)"},
    {DiagCode::Topology, "topology", "an invalid `--topology`"},
    {DiagCode::NoAnalyzer, "no-analyzer",
     "this build has no analyzer (a runtime-only build): not screened"},
    {DiagCode::FrontendCrash, "frontend-crash",
     "the analysis child crashed; says where it stopped"},
    {DiagCode::Timeout, "timeout",
     "the analysis ran past `--timeout` and was killed"},
    {DiagCode::MemoryLimit, "memory-limit",
     "the analysis exceeded `--max-memory` and was stopped"},
    {DiagCode::OutOfMemory, "out-of-memory",
     "the analysis ran out of memory without a `--max-memory` limit"},
    {DiagCode::InternalError, "internal-error",
     "pkbcheck itself failed (pipe, fork, an exception)"},
    {DiagCode::Interrupted, "interrupted",
     "SIGINT/SIGTERM stopped the run (SARIF notification)"},
}};
} // namespace

std::span<const DiagCodeInfo> diagCodes() { return Table; }

std::string_view toString(DiagCode C) {
  return Table[static_cast<size_t>(C)].Name;
}

std::optional<DiagCode> parseDiagCode(std::string_view Name) {
  for (const DiagCodeInfo &I : Table)
    if (I.Name == Name)
      return I.Code;
  return std::nullopt;
}

std::string diagCodesMarkdown() {
  std::string Out = "| code | meaning |\n| --- | --- |\n";
  for (const DiagCodeInfo &I : Table)
    Out +=
        "| `" + std::string(I.Name) + "` | " + std::string(I.Meaning) + " |\n";
  return Out;
}

} // namespace pkb
