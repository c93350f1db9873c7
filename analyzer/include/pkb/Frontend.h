//===- pkb/Frontend.h - CUDA front end (Clang LibTooling) -------*- C++ -*-===//
//
// Parses one CUDA unit for the device side (sm_90, --cuda-device-only) and
// builds the kernel model of every __global__ function it defines.
//
//===----------------------------------------------------------------------===//
#ifndef PKB_FRONTEND_H
#define PKB_FRONTEND_H

#include "pkb/Diagnostic.h"
#include "pkb/Ingest.h"
#include "pkb/Model.h"

#include <cstdint>
#include <string>
#include <vector>

namespace pkb {

/// Options that decide how a unit is compiled.
struct FrontendOptions {
  /// CUDA toolkit root. Empty: search --cuda-path, $CUDA_PATH, $CUDA_HOME,
  /// /usr/local/cuda; if none is usable, use the bundled shim headers.
  std::string CudaPath;
  /// Force the bundled shims even if a toolkit is found.
  bool ForceShims = false;
  /// Extra compiler arguments (e.g. from compile_commands.json: -I, -D).
  std::vector<std::string> ExtraArgs;
  /// Maximum depth of __device__ call inlining.
  unsigned InlineDepth = 8;
  /// GPU architecture passed as --cuda-gpu-arch.
  std::string GpuArch = "sm_90a";
  /// Parse (preprocess, parse, Sema) with the same arguments but build no
  /// kernel models: the baseline that the front-end benchmark
  /// (tests/bench/FrontendBench.cpp) compares model building against.
  bool ParseOnly = false;
  /// Cache directory of the precompiled toolkit / shim headers (the
  /// implicit includes, parsed once per set of arguments and loaded by
  /// every later parse; docs/frontend.md, "Precompiled toolkit headers").
  /// Empty: every parse reads the headers itself.
  std::string PchDir;
};

/// The model and diagnostics of one unit. Locations are already mapped back
/// to the user's original file through the unit's SourceMap.
struct FrontendResult {
  ModuleModel Module;
  std::vector<Diagnostic> Diags;
  bool Parsed = false; ///< False if nothing usable came out of the parse.
  /// True when the kept parse loaded the precompiled headers of
  /// FrontendOptions::PchDir (false without one, or after a fallback).
  bool UsedPch = false;
  /// True when that PCH also held the unit's leading system includes (a
  /// unit PCH, docs/frontend.md "Precompiled toolkit headers").
  bool UsedUnitPch = false;
};

/// Parses \p Unit and extracts kernel models. Never throws; parse errors
/// become Diagnostics. Must only be called in a process that can afford to
/// crash (the driver runs it inside a crash-recovery context or a child).
FrontendResult buildModels(const CudaUnit &Unit, const FrontendOptions &Opts);

/// Directory of the bundled shim headers (compiled in, overridable with
/// $PKBCHECK_SHIM_DIR).
std::string shimDirectory();

/// The default cache directory of the precompiled headers:
/// $PKBCHECK_PCH_DIR if set (an empty value turns them off), else
/// $XDG_CACHE_HOME/pkbcheck/pch, else $HOME/.cache/pkbcheck/pch; empty when
/// none of these is set.
std::string defaultPchDirectory();

/// Default cap of the cache directory in bytes (PKBCHECK_PCH_MAX_MB
/// overrides it): about fifty unit PCHs of the largest kind.
constexpr uint64_t DefaultPrecompiledCacheBytes = uint64_t(1024) << 20;

/// Keeps the cache directory \p Dir within \p MaxBytes: when its PCH files
/// ("*.pch") add up to more, the least recently used ones (oldest
/// modification time: buildModels() touches a PCH each time it is
/// used) are removed until they fit in three quarters of the cap; \p Keep
/// (a path in \p Dir, may be empty) is never removed. Temporary files of
/// builds that did not finish ("*.tmp", older than one hour) are removed
/// too. A process that has a removed PCH open keeps reading it; one that
/// looks for it next builds it again. Returns the number of files removed.
unsigned prunePrecompiledCache(const std::string &Dir, uint64_t MaxBytes,
                               const std::string &Keep = "");

/// The cache cap in bytes: PKBCHECK_PCH_MAX_MB (MiB, a positive integer)
/// when set and valid, else DefaultPrecompiledCacheBytes.
uint64_t precompiledCacheCap();

/// Clang and LLVM version strings, e.g. "19.1.7".
std::string clangVersion();

} // namespace pkb

#endif // PKB_FRONTEND_H
