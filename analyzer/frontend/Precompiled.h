//===- Precompiled.h - The toolkit headers, parsed once ---------*- C++ -*-===//
//
// Internal to pkb_frontend. Every unit is parsed after the same implicit
// includes (`__clang_cuda_runtime_wrapper.h` with a toolkit, the shim
// `cuda_runtime.h` without one), which are almost all of the parse time.
// They are precompiled once per set of front-end arguments into a Clang PCH
// in a cache directory and loaded by every later parse with the same
// arguments (docs/frontend.md, "Precompiled toolkit headers"). A unit whose
// first lines are system includes of its own (`<torch/extension.h>`,
// `<cooperative_groups.h>`, `<cuda/atomic>`) gets a second PCH that also
// holds those, one per distinct list of include lines.
//
//===----------------------------------------------------------------------===//
#ifndef PKB_FRONTEND_PRECOMPILED_H
#define PKB_FRONTEND_PRECOMPILED_H

#include "clang/Frontend/CompilerInvocation.h"
#include "clang/Frontend/FrontendAction.h"
#include "clang/Tooling/Tooling.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/VirtualFileSystem.h"

#include <functional>
#include <memory>
#include <string>
#include <utility>
#include <vector>

namespace pkb::fe {

/// A precompiled header of the implicit includes, read from the cache and
/// verified (size and checksum of its trailer). The cache file is the Clang
/// PCH followed by a 64-byte trailer: a NUL byte, "PKBPCH1 ", the xxh3-64
/// checksum of the PCH in 16 hex digits, a space, the PCH size in bytes, a
/// space and "L" (LaunchFree) or "M", padded with spaces and ended by a
/// newline.
struct Precompiled {
  std::string CachePath;   ///< The file in the cache directory.
  std::string VirtualPath; ///< Where the parse reads the PCH (in memory).
  std::unique_ptr<llvm::MemoryBuffer> File; ///< The whole cache file.
  /// The main file the PCH was built from: empty for the implicit includes
  /// alone, the unit's leading include lines (UnitPreamble::Includes) for a
  /// unit PCH.
  std::string MainText;
  llvm::StringRef Ast; ///< The PCH bytes: File less its trailer.
  /// No launch can come from the headers it holds (mayHoldLaunches was
  /// false when it was built): the model builder's traversals may skip
  /// them.
  bool LaunchFree = false;
};

/// The leading system includes of a unit: the `#include <...>` lines that
/// come before anything but blank lines and `//` comments.
struct UnitPreamble {
  /// The include lines, each ended by a newline: the main file of the unit
  /// PCH. Empty when the unit starts with anything else.
  std::string Includes;
  /// Byte offset and length of each include line in the unit's text
  /// (without its newline): blanked in the parsed copy of the text when the
  /// unit PCH is used, so that nothing is included twice and every line
  /// keeps its number.
  std::vector<std::pair<size_t, size_t>> Lines;
};

/// The leading system includes of \p Text (see UnitPreamble). A quoted
/// include, a macro definition, a conditional or any code ends the run: what
/// follows may depend on the unit's own directory or macros.
UnitPreamble unitPreamble(llvm::StringRef Text);

/// \p Text with the include lines of \p P replaced by spaces (same length,
/// same newlines).
std::string blankPreamble(llvm::StringRef Text, const UnitPreamble &P);

/// The cache file name for front-end arguments \p Args (everything but the
/// main file and the recovery prelude) and main file text \p MainText:
/// "clang<version>-<hash>.pch", the hash (SHA-256, 32 hex digits) over the
/// Clang version, \p Args and \p MainText.
std::string precompiledName(const std::vector<std::string> &Args,
                            llvm::StringRef MainText = "");

/// The PCH for \p Args from cache directory \p Dir, built there (Clang's
/// GeneratePCHAction on a main file holding \p MainText, empty for the
/// implicit includes alone, with exactly \p Args, written to
/// a temporary file and renamed into place, so that processes racing to
/// build it each see a whole file) when it is missing. \p Base is the file
/// system the headers are read from. Returns null with \p Why set when it
/// cannot be built or read (unwritable directory, headers with errors,
/// a corrupt file: a corrupt file is removed so that the next run rebuilds
/// it). A unit PCH (non-empty \p MainText) is built only when a second unit
/// with the same include lines comes: the first one leaves an empty
/// "<name>.seen" file and gets null, so that an include list used once
/// costs neither a build nor disk space. When it cannot be built, an empty
/// "<name>.failed" file keeps later parses from trying again (remove the
/// cache directory after installing a missing header).
std::unique_ptr<Precompiled>
obtainPrecompiled(const std::string &Dir, const std::vector<std::string> &Args,
                  llvm::IntrusiveRefCntPtr<llvm::vfs::FileSystem> Base,
                  std::string &Why, llvm::StringRef MainText = "");

/// Makes \p P readable in \p Mem: the PCH at P.VirtualPath and the main
/// file it was built from (P.MainText; Clang checks that it is unchanged).
void mountPrecompiled(const Precompiled &P, llvm::vfs::InMemoryFileSystem &Mem);

/// Edits \p Inv, made by the driver from the same arguments as \p P, to
/// load \p P before the main file (`-include-pch`). The implicit includes it
/// holds are then skipped, later `-include`s are still read, and every
/// header it was built from, system headers included, is checked for
/// changes (size and modification time) when it is loaded.
void usePrecompiled(const Precompiled &P, clang::CompilerInvocation &Inv);

/// True for a Clang diagnostic that says a PCH cannot be used (serialization
/// errors: out of date, malformed, configuration mismatch; unable to load).
bool isPrecompiledFailure(unsigned DiagID);

/// A tool action that lets \p Adjust edit the invocation that the driver
/// built, then runs \p Action on it (what tooling's own FrontendActionFactory
/// does, with the edit).
class AdjustedAction : public clang::tooling::ToolAction {
public:
  AdjustedAction(std::unique_ptr<clang::FrontendAction> Action,
                 std::function<void(clang::CompilerInvocation &)> Adjust)
      : Action(std::move(Action)), Adjust(std::move(Adjust)) {}

  /// Runs the action; false when the compiler could not be set up or the
  /// action failed.
  bool runInvocation(std::shared_ptr<clang::CompilerInvocation> Inv,
                     clang::FileManager *Files,
                     std::shared_ptr<clang::PCHContainerOperations> Ops,
                     clang::DiagnosticConsumer *Diags) override;

private:
  std::unique_ptr<clang::FrontendAction> Action;
  std::function<void(clang::CompilerInvocation &)> Adjust;
};

} // namespace pkb::fe

#endif // PKB_FRONTEND_PRECOMPILED_H
