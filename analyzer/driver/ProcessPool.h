//===- ProcessPool.h - One child process per input file ---------*- C++ -*-===//
//
// Runs the analysis of each file in its own forked child so that a crash
// (signal), a memory blow-up or a timeout in the Clang front end or in Z3 is
// contained and reported for that file alone. At most `Jobs` children run at
// once; results come back as JSON over a pipe.
//
//===----------------------------------------------------------------------===//
#ifndef PKB_DRIVER_PROCESSPOOL_H
#define PKB_DRIVER_PROCESSPOOL_H

#include "Analyze.h"

#include <functional>
#include <string>
#include <vector>

namespace pkb {

/// Limits applied to each child.
struct PoolOptions {
  unsigned Jobs = 1;           ///< children at once (>= 1)
  double TimeoutSeconds = 120; ///< wall-clock limit per file; 0 = none
  unsigned MaxMemoryMiB = 0;   ///< RLIMIT_DATA per child (MiB); 0 = unlimited
  /// Called in the parent with a path's index when its child starts.
  std::function<void(size_t)> OnStart;
};

/// Records the stack of the thread that does the analysis work (see
/// analyzeFile), so that a crash on its guard page can be reported as
/// "nesting-too-deep" (the input nests deeper than the parser's recursion can
/// go) instead of a plain segmentation fault. Async-signal-safe to read.
void noteAnalysisStack(const void *Low, size_t Bytes);

/// Analyzes every path with \p Work in child processes and calls \p OnDone
/// in the parent, in completion order, with the path's index and report. A
/// child killed by a signal yields Status "crash" with the signal's name; one
/// past its deadline is killed (SIGKILL) and yields Status "timeout".
void runInChildren(const std::vector<std::string> &Paths,
                   const PoolOptions &Opts,
                   const std::function<FileReport(const std::string &)> &Work,
                   const std::function<void(size_t, FileReport)> &OnDone);

} // namespace pkb

#endif // PKB_DRIVER_PROCESSPOOL_H
