//===- pkb/rt/Compiler.h - Compile candidates with nvcc ---------*- C++ -*-===//
#ifndef PKB_RT_COMPILER_H
#define PKB_RT_COMPILER_H

#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

namespace pkb::rt {

/// How candidates are compiled.
struct CompileOptions {
  std::string Nvcc;                 ///< nvcc path; empty: findNvcc()
  std::filesystem::path CacheDir;   ///< where libraries are cached
  std::filesystem::path AbiInclude; ///< dir holding pkb/pkb_abi.h
  std::vector<std::string> ExtraFlags;
};

/// Outcome of compileCandidate.
struct CompileResult {
  bool Ok = false;
  bool Cached = false;           ///< library came from the cache
  std::filesystem::path Library; ///< the .so on success
  std::string Hash;              ///< content hash (32 hex digits)
  std::string Log;               ///< nvcc's stdout+stderr, verbatim
  std::string Command;           ///< the command line that was run
};

/// 128-bit FNV-1a (two 64-bit lanes with different offsets) as 32 hex
/// digits. Not cryptographic; used as a cache key.
std::string contentHash(std::string_view Data);

/// nvcc from $PKB_NVCC, else the toolkit search of pkb/support/Toolkit.h
/// ($CUDA_PATH, $CUDA_HOME, /usr/local/cuda, PATH); empty if none exists.
std::string findNvcc();

/// The flags every candidate gets: -gencode=arch=compute_90a,code=sm_90a
/// -shared -Xcompiler -fPIC -O3 -std=c++17 -lineinfo -I<abi include>.
std::vector<std::string> candidateFlags(const CompileOptions &O);

/// Compiles Source into CacheDir/<hash>.so unless it is cached (hash over
/// the source text, every file it includes with a quoted `#include "..."`
/// (recursively), the ABI header, nvcc's path and the flags). Writes to a
/// temporary name and renames, so concurrent ranks may compile the same
/// candidate.
CompileResult compileCandidate(const std::filesystem::path &Source,
                               const CompileOptions &O);

/// Default cache directory: $PKB_CACHE_DIR, $XDG_CACHE_HOME/pkbcheck or
/// ~/.cache/pkbcheck (created).
std::filesystem::path defaultCacheDir();

} // namespace pkb::rt

#endif // PKB_RT_COMPILER_H
