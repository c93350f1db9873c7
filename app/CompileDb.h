//===- CompileDb.h - Flags from compile_commands.json -----------*- C++ -*-===//
//
// Reads a JSON compilation database (https://clang.llvm.org/docs/
// JSONCompilationDatabase.html) and keeps, for one file, the flags that
// change how device code parses: -I, -isystem, -D, -U, -include, -std.
// Works for nvcc and clang/gcc command lines (nvcc's `-I dir`, `-Idir`,
// `--include-path=dir`, `-D X`, `--define-macro=X`, `-std=c++17`).
//
//===----------------------------------------------------------------------===//
#ifndef PKB_DRIVER_COMPILEDB_H
#define PKB_DRIVER_COMPILEDB_H

#include "pkb/Diagnostic.h"

#include <optional>
#include <string>
#include <vector>

namespace pkb {

/// A loaded compilation database.
class CompileDb {
public:
  /// Loads BUILD_DIR/compile_commands.json. On failure returns nullopt and
  /// appends a diagnostic naming the file (and the JSON error's byte offset).
  static std::optional<CompileDb> load(const std::string &BuildDir,
                                       std::vector<Diagnostic> &Diags);

  /// Parser-relevant flags for \p File (matched by absolute, normalized
  /// path). Relative include paths are resolved against the entry's
  /// "directory". Returns nullopt if the file has no entry.
  std::optional<std::vector<std::string>>
  flagsFor(const std::string &File) const;

  /// Splits a shell command line the way the compilation-database spec
  /// requires (quotes and backslash escapes). Exposed for tests.
  static std::vector<std::string> splitCommand(const std::string &Cmd);

  /// Keeps the parser-relevant flags of \p Args (argv[0] included or not);
  /// relative paths are made absolute against \p Dir. Exposed for tests.
  static std::vector<std::string>
  filterFlags(const std::vector<std::string> &Args, const std::string &Dir);

private:
  struct Entry {
    std::string File;
    std::vector<std::string> Flags;
  };
  std::vector<Entry> Entries;
};

} // namespace pkb

#endif // PKB_DRIVER_COMPILEDB_H
