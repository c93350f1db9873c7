//===- pkb/InputLanguage.h - The input languages, by extension --*- C++ -*-===//
//
// The one registry of input languages: each language names the file
// extensions it owns and the extractor that turns a file's text into CUDA
// units (CUDA source as is; ParallelKernelBench Python through
// PythonExtract.cpp). Ingestion, `check`, `eval`, the front end and the
// checkers ask it; no other code tests file extensions. Adding a language
// is one entry in inputLanguages() (InputLanguage.cpp) and its extractor.
// docs/architecture.md#an-input-language.
//
//===----------------------------------------------------------------------===//
#ifndef PKB_INPUTLANGUAGE_H
#define PKB_INPUTLANGUAGE_H

#include "pkb/Ingest.h"

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace pkb {

/// One input language and what the tools need to know about it.
struct InputLanguage {
  InputKind Kind = InputKind::Unsupported;
  /// Short name for messages: "CUDA", "Python".
  std::string_view Name;
  /// Long name for help texts: "CUDA", "ParallelKernelBench Python".
  std::string_view Description;
  /// The extensions it owns, lower case with the dot, in the order help and
  /// messages list them. Matched case-insensitively.
  std::vector<std::string_view> Extensions;
  /// The subset whose files are whole candidates: eval screens and runs
  /// them (headers and host-only sources are not candidates).
  std::vector<std::string_view> CandidateExtensions;
  /// The extensions, spelled exactly (case-sensitive), under which Clang
  /// compiles a file as CUDA; a unit of any other name is given a
  /// ".pkb.cu" name before parsing (Frontend.cpp, virtualMainFile).
  std::vector<std::string_view> ClangCudaExtensions;
  /// Bytes of one rank's signal pad in the runtime this language's kernels
  /// run under: the pkbcheck ABI's pads are 64 KiB (runtime/include/pkb/
  /// pkb_abi.h), torch symm_mem's are 2048 bytes (SIG-001 bounds slots by it).
  uint64_t SignalPadBytes = 65536;
  /// Turns the text of a readable, non-empty, non-binary file into CUDA
  /// units with their line maps, host operations and diagnostics. Never
  /// throws.
  Input (*Extract)(const std::string &Path, std::string Text) = nullptr;
};

/// Every registered language, in the order help texts list them.
const std::vector<InputLanguage> &inputLanguages();

/// The language owning \p Path's extension (case-insensitive); nullptr when
/// no language does.
const InputLanguage *inputLanguageOf(std::string_view Path);

/// True when \p Path is a whole candidate (InputLanguage::CandidateExtensions,
/// case-insensitive): .cu and .py files.
bool isCandidatePath(std::string_view Path);

/// True when Clang compiles a file named \p Path as CUDA by its name
/// (InputLanguage::ClangCudaExtensions, exact spelling).
bool isClangCudaName(std::string_view Path);

/// Every registered extension, joined by spaces: ".cu .cuh .cpp .cc .h .hpp
/// .py".
std::string supportedExtensionsText();

/// Per language "<extensions> (<Name>)", joined by " or ": what the
/// input-unsupported diagnostic says is expected.
std::string expectedExtensionsText();

/// Per language "<Description> (<extensions>)", joined by " and ": the
/// summary line of `check --help`.
std::string languagesHelpText();

/// The CUDA extractor: the whole text is one unit with the identity line
/// map (lines end at "\n", "\r\n" or a lone "\r", as Clang counts them).
Input extractCuda(const std::string &Path, std::string Text);

} // namespace pkb

#endif // PKB_INPUTLANGUAGE_H
