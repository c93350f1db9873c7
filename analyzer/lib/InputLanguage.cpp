//===- InputLanguage.cpp - The input languages, by extension --------------===//
//
// The registry of pkb/InputLanguage.h: CUDA source (Ingest.cpp,
// extractCuda) and ParallelKernelBench Python (PythonExtract.cpp).
//
//===----------------------------------------------------------------------===//
#include "pkb/InputLanguage.h"

#include <algorithm>
#include <cctype>
#include <filesystem>

namespace fs = std::filesystem;

namespace pkb {
namespace {

/// The extension of \p Path as std::filesystem sees it (".cu"; "" for
/// "Makefile" and for a dot file such as ".cu"), lower-cased when \p Lower.
std::string extensionOf(std::string_view Path, bool Lower) {
  std::string Ext = fs::path(Path).extension().string();
  if (Lower)
    for (char &C : Ext)
      C = static_cast<char>(std::tolower(static_cast<unsigned char>(C)));
  return Ext;
}

bool contains(const std::vector<std::string_view> &List, std::string_view S) {
  return std::find(List.begin(), List.end(), S) != List.end();
}

std::string joined(const std::vector<std::string_view> &List) {
  std::string S;
  for (std::string_view E : List)
    S += (S.empty() ? "" : " ") + std::string(E);
  return S;
}

std::vector<InputLanguage> makeLanguages() {
  std::vector<InputLanguage> L;
  InputLanguage Cuda;
  Cuda.Kind = InputKind::Cuda;
  Cuda.Name = "CUDA";
  Cuda.Description = "CUDA";
  Cuda.Extensions = {".cu", ".cuh", ".cpp", ".cc", ".h", ".hpp"};
  Cuda.CandidateExtensions = {".cu"};
  Cuda.ClangCudaExtensions = {".cu", ".cuh"};
  Cuda.SignalPadBytes = 65536; // pkb_abi.h
  Cuda.Extract = extractCuda;
  L.push_back(std::move(Cuda));

  InputLanguage Py;
  Py.Kind = InputKind::Python;
  Py.Name = "Python";
  Py.Description = "ParallelKernelBench Python";
  Py.Extensions = {".py"};
  Py.CandidateExtensions = {".py"};
  Py.SignalPadBytes = 2048; // torch symm_mem's default pad
  Py.Extract = [](const std::string &Path, std::string Text) {
    return extractPython(Path, Text);
  };
  L.push_back(std::move(Py));
  return L;
}

} // namespace

const std::vector<InputLanguage> &inputLanguages() {
  static const std::vector<InputLanguage> Languages = makeLanguages();
  return Languages;
}

const InputLanguage *inputLanguageOf(std::string_view Path) {
  std::string Ext = extensionOf(Path, /*Lower=*/true);
  for (const InputLanguage &L : inputLanguages())
    if (contains(L.Extensions, Ext))
      return &L;
  return nullptr;
}

bool isCandidatePath(std::string_view Path) {
  const InputLanguage *L = inputLanguageOf(Path);
  return L && contains(L->CandidateExtensions, extensionOf(Path, true));
}

bool isClangCudaName(std::string_view Path) {
  std::string Ext = extensionOf(Path, /*Lower=*/false);
  for (const InputLanguage &L : inputLanguages())
    if (contains(L.ClangCudaExtensions, Ext))
      return true;
  return false;
}

std::string supportedExtensionsText() {
  std::string S;
  for (const InputLanguage &L : inputLanguages())
    S += (S.empty() ? "" : " ") + joined(L.Extensions);
  return S;
}

std::string expectedExtensionsText() {
  std::string S;
  for (const InputLanguage &L : inputLanguages())
    S += (S.empty() ? "" : " or ") + joined(L.Extensions) + " (" +
         std::string(L.Name) + ")";
  return S;
}

std::string languagesHelpText() {
  std::string S;
  for (const InputLanguage &L : inputLanguages())
    S += (S.empty() ? "" : " and ") + std::string(L.Description) + " (" +
         joined(L.Extensions) + ")";
  return S;
}

} // namespace pkb
