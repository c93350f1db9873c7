//===- pkb/rt/Worker.h - Worker processes and their hub client --*- C++ -*-===//
//
// A worker is one rank: `pkbcheck worker --socket S --rank R --world N`
// (started by the launcher) or the process an external launcher started.
// It connects to the hub, receives the configuration and runs one of the
// modes below, reporting per-case results to the hub.
//
// Configuration: a WorkerConfig (WorkerConfig.h: keys, types, defaults),
// sent by the hub as JSON with "rank" and "world_size" added:
//   mode          "run" | "bench-nccl" | "heap-check" | "fake"
//   run:   problem, library, sizes, trials, back_to_back, warmup, iters,
//          deadline_ms, setup_deadline_ms, seed, graph, timing,
//          oversubscribe, gpus, l2_multiple, case_offset
//   bench-nccl: min_bytes, max_bytes, warmup, iters, collectives [..]
//   heap-check: bytes (WorkerConfig::Extra)
//   fake:  sizes, deadline_ms, fake {action, rank, size} - CPU-only test
//          double; action is ok | sleep | crash | exit | fatal | wrong
// Per-case results: case, size, rank, verdict, detail, optional
// failure_kind (FailureKind name; "load" for dlopen/ABI-symbol failures),
// failures [{what, call (0: trial, k: back-to-back call k), ...}], timing.
//
//===----------------------------------------------------------------------===//
#ifndef PKB_RT_WORKER_H
#define PKB_RT_WORKER_H

#include "pkb/support/Expected.h"

#include <nlohmann/json.hpp>

#include <string>
#include <vector>

namespace pkb::rt {

/// Client side of the hub protocol (Wire.h). Every call is blocking; a
/// broken connection makes the worker exit (the hub has failed or killed
/// the group), so methods do not return errors.
class HubClient {
public:
  /// Connects (retrying up to TimeoutMs), says hello, reads the config.
  /// Returns an Error saying which step failed.
  support::Expected<void> connect(const std::string &Socket, int Rank,
                                  int TimeoutMs);
  ~HubClient();
  const nlohmann::json &config() const { return Config; }
  int rank() const { return Rank; }
  int worldSize() const { return Config.value("world_size", 1); }

  /// Every rank contributes Data (and FdsIn, the same count on every rank);
  /// returns every rank's data in rank order; FdsOut gets every rank's fds
  /// in rank order (owned by the caller).
  std::vector<std::string> allgather(const std::string &Data,
                                     const std::vector<int> &FdsIn = {},
                                     std::vector<int> *FdsOut = nullptr);
  /// allgather with no data.
  void barrier();
  /// Starts the watchdog for Phase ({"phase": .., "case": .., ...}).
  void arm(nlohmann::json Phase, long DeadlineMs);
  void disarm();
  /// Sends one per-rank result (must hold "verdict").
  void result(const nlohmann::json &R);
  void log(const std::string &Line);
  /// Announces a clean finish.
  void done();

private:
  void send(int Type, const std::string &Payload,
            const std::vector<int> &Fds = {});
  int Fd = -1;
  int Rank = 0;
  nlohmann::json Config;
};

/// Entry of `pkbcheck worker`: connects to Socket and runs the configured
/// mode. Returns the process exit code (0 on a clean finish).
int workerMain(const std::string &Socket, int Rank, int World);

/// Runs a worker on an already connected client (used in-process under
/// external launchers). Returns the exit code.
int runWorker(HubClient &C);

/// Mode "fake": no CUDA; used by the CPU tests of launcher and watchdog.
int runFakeWorker(HubClient &C);
/// Mode "run": correctness and timing of a candidate (needs GPUs).
int runCandidateWorker(HubClient &C);
/// Mode "bench-nccl": nccl-tests-style collective timings (needs GPUs).
int runNcclBenchWorker(HubClient &C);
/// Mode "heap-check": symmetric-heap round trips (needs GPUs): pads zeroed,
/// local writes read remotely, remote SM stores read locally, device peer
/// tables equal to the host tables. Config key "bytes".
int runHeapCheckWorker(HubClient &C);

} // namespace pkb::rt

#endif // PKB_RT_WORKER_H
