//===- pkb/rt/Hub.h - Bootstrap hub and watchdog ----------------*- C++ -*-===//
//
// The hub is the rendezvous point of one group of workers: it accepts one
// connection per rank, hands out the run configuration, implements
// allgather (with file-descriptor passing) and barriers, forwards per-rank
// results, and is the watchdog: a worker arms a deadline before every call
// of the candidate; when a deadline passes, or a worker dies, or a worker
// reports a fatal verdict, the hub kills every worker of the group and
// returns why. It runs in the launcher (pkbcheck run) or, when an external
// launcher (mpirun, srun, torchrun) started the ranks, in a thread of rank 0.
//
//===----------------------------------------------------------------------===//
#ifndef PKB_RT_HUB_H
#define PKB_RT_HUB_H

#include <nlohmann/json.hpp>

#include <functional>
#include <map>
#include <string>
#include <sys/types.h>
#include <vector>

namespace pkb::rt {

/// Settings of one hub.
struct HubOptions {
  int WorldSize = 1;
  nlohmann::json Config;          ///< sent to every worker ("rank" added)
  int BootstrapTimeoutMs = 60000; ///< every rank must say hello by then
  /// Called for every per-rank Result message, in arrival order.
  std::function<void(int Rank, const nlohmann::json &)> OnResult;
  /// Called for every Log message.
  std::function<void(int Rank, const std::string &)> OnLog;
};

/// Why the hub stopped.
struct HubOutcome {
  enum class Kind {
    Completed,      ///< every rank sent Done (and exited 0 if a child)
    Deadlock,       ///< an armed deadline passed
    WorkerDied,     ///< a worker exited, crashed or closed its socket early
    FatalResult,    ///< a worker reported a fatal verdict
    BootstrapFailed ///< not every rank connected in time
  };
  Kind K = Kind::Completed;
  int Rank = -1;                 ///< the rank that caused it
  nlohmann::json Phase;          ///< that rank's last armed phase (or null)
  std::string Detail;            ///< human-readable reason
  std::map<int, int> ExitStatus; ///< rank -> waitpid status (children only)
};

/// Name of an outcome kind ("completed", "deadlock", ...).
const char *hubOutcomeName(HubOutcome::Kind K);

/// waitpid status in words: "exited with status 3", "killed by signal 11
/// (SIGSEGV)".
std::string describeWaitStatus(int Status);

class Hub {
public:
  /// Takes ownership of a listening socket (see listenUnix).
  Hub(int ListenFd, HubOptions Options);
  ~Hub();
  Hub(const Hub &) = delete;
  Hub &operator=(const Hub &) = delete;

  /// Launcher mode: Pid is rank Rank's process (a process-group leader);
  /// the hub reaps it and, on failure, kills its whole process group.
  void adoptChild(int Rank, pid_t Pid);

  /// Serves until completion or failure. On failure every worker is killed
  /// (SIGKILL; process groups for children, pids from Hello otherwise, never
  /// the calling process) and children are reaped before returning.
  HubOutcome run();

private:
  struct Impl;
  Impl *P;
};

} // namespace pkb::rt

#endif // PKB_RT_HUB_H
