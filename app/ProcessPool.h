//===- ProcessPool.h - One child process per input file ---------*- C++ -*-===//
//
// Runs the analysis of each file in its own forked child so that a crash
// (signal), a memory blow-up or a timeout in the Clang front end or in Z3 is
// contained and reported for that file alone. At most `Jobs` children run at
// once; results come back as JSON over a pipe.
//
// Each child runs in its own process group. SIGINT and SIGTERM sent to the
// driver (Ctrl-C, a CI job being cancelled) stop the run cleanly: every
// running child's process group is killed and reaped, nothing new is
// started, and the caller gets the signal back to finish its output and exit
// with 128 + the signal number.
//
//===----------------------------------------------------------------------===//
#ifndef PKB_DRIVER_PROCESSPOOL_H
#define PKB_DRIVER_PROCESSPOOL_H

#include "Analyze.h"

#include <functional>
#include <memory>
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

/// Records the lowest address of the stack of the thread that does the
/// analysis work (see analyzeFile; null when it ends) and gives that thread
/// an alternate signal stack, so that a crash on its guard area is reported
/// as "nesting-too-deep" (the input nests deeper than the parser's recursion
/// can go) instead of a plain segmentation fault. Call it on that thread.
void noteAnalysisStack(const void *Low);
/// Catches SIGINT and SIGTERM while alive and records the first one, so that
/// a long run can stop at a safe point instead of dying mid-write. The
/// previous dispositions are restored on destruction. Guards nest; the
/// outermost one clears the record. With \p SecondSignalKills, a second
/// signal while one is pending restores the default action and re-raises it
/// (for work that is only checked between long steps).
class InterruptGuard {
public:
  explicit InterruptGuard(bool SecondSignalKills = false);
  ~InterruptGuard();
  InterruptGuard(const InterruptGuard &) = delete;
  InterruptGuard &operator=(const InterruptGuard &) = delete;
  /// The first signal caught (SIGINT or SIGTERM) since the outermost guard
  /// was installed, or 0.
  int signal() const;

private:
  struct Saved;
  std::unique_ptr<Saved> Old;
};

/// Exit status of a run stopped by signal \p Sig: 128 + Sig (130 for
/// SIGINT, 143 for SIGTERM), as a shell reports a process killed by it.
int interruptExitStatus(int Sig);

/// "SIGINT", "SIGTERM", else "signal N".
std::string signalName(int Sig);

/// Analyzes every path with \p Work in child processes and calls \p OnDone
/// in the parent, in completion order, with the path's index and report. A
/// child killed by a signal yields Status "crash" with the signal's name; one
/// past its deadline is killed (SIGKILL) and yields Status "timeout".
///
/// While it runs, SIGINT and SIGTERM are caught (InterruptGuard): on one, the
/// process group of every running child is killed with SIGKILL and reaped,
/// no further path is started, and the signal number is returned; paths
/// not finished by then get no OnDone call. Returns 0 when every path was
/// done.
int runInChildren(const std::vector<std::string> &Paths,
                  const PoolOptions &Opts,
                  const std::function<FileReport(const std::string &)> &Work,
                  const std::function<void(size_t, FileReport)> &OnDone);

} // namespace pkb

#endif // PKB_DRIVER_PROCESSPOOL_H
