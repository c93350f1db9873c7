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
  unsigned MaxMemoryMiB = 0;   ///< RLIMIT_AS per child; 0 = unlimited
};

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
