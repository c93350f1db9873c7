//===- pkb/support/Subprocess.h - Starting and ending children --*- C++ -*-===//
//
// The one fork/exec helper of the project: the per-file analysis children
// (app/ProcessPool.cpp), nvcc (runtime/src/Compiler.cpp) and
// the workers (runtime/src/Launcher.cpp) are started, limited, waited for
// and killed through it. Every child gets its own process group (set in
// the child and in the parent, so kill(-pid) never races), stdin from
// /dev/null, and the resource limits asked for.
//
//===----------------------------------------------------------------------===//
#ifndef PKB_SUPPORT_SUBPROCESS_H
#define PKB_SUPPORT_SUBPROCESS_H

#include "pkb/support/Expected.h"

#include <sys/resource.h>
#include <sys/types.h>

#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace pkb::support {

/// How to start a child.
struct SpawnOptions {
  /// Program and arguments, run with execvp (PATH search); empty: run Body
  /// in the forked child instead.
  std::vector<std::string> Argv;
  /// The child's work when Argv is empty, given the write end of the pipe
  /// (Output::Pipe; else -1); its return value is the exit status (the
  /// child never returns into the caller's code).
  std::function<int(int PipeFd)> Body;
  /// The environment ("NAME=value"); nullopt: inherit.
  std::optional<std::vector<std::string>> Env;
  std::string Cwd; ///< working directory; empty: inherit
  /// Where stdout and stderr go: Pipe (read from Child::OutFd; with a Body
  /// the pipe is handed to it and stdout/stderr stay the parent's), a file
  /// (OutputFile, truncated), or the parent's.
  enum class Output { Inherit, Pipe, File } Out = Output::Inherit;
  std::string OutputFile;
  bool DieWithParent = false; ///< SIGKILL when the parent dies (Linux)
  /// Resource limits (resource, value), each capped at the hard limit.
  std::vector<std::pair<int, rlim_t>> Limits;
  /// Runs in the child after the process group and limits are set and
  /// before exec or Body (signal dispositions, crash handlers, ...).
  std::function<void()> InChild;
};

/// A started child.
struct Child {
  pid_t Pid = -1;
  int OutFd = -1; ///< read end of the pipe (Output::Pipe), else -1
};

/// Starts a child. Errors: pipe, open or fork failed.
Expected<Child> spawnProcess(const SpawnOptions &O);

/// Sets a resource limit, capped at the current hard limit.
void setLimit(int Resource, rlim_t Value);

/// Waits for Pid (retrying on EINTR) and returns its raw wait status. With
/// \p MaxRssKiB, also stores the child's peak resident set size in KiB
/// (`ru_maxrss` of wait4(2); 0 when the system does not report it).
int waitStatus(pid_t Pid, long *MaxRssKiB = nullptr);

/// The exit code of a wait status: the code of a normal exit, 128 + signal
/// for a killed child.
int exitCode(int Status);

/// SIGKILL to the process group of Pid and to Pid itself (in case its
/// setpgid has not happened yet).
void killProcessGroup(pid_t Pid);

/// What runCapture returns.
struct Captured {
  int ExitCode = 0;   ///< exitCode() of the child; 127: could not execute
  std::string Output; ///< stdout and stderr, interleaved
  bool TimedOut = false;
};

/// Runs Argv with stdout and stderr captured, killing its process group
/// after TimeoutSeconds (<= 0: no limit). Errors: the child did not start.
Expected<Captured> runCapture(const std::vector<std::string> &Argv,
                              double TimeoutSeconds = 0);

} // namespace pkb::support

#endif // PKB_SUPPORT_SUBPROCESS_H
