//===- pkb/rt/WorkerConfig.h - Typed configuration of a worker --*- C++ -*-===//
//
// The configuration the hub hands every rank of a worker group. It is typed
// on both sides and has one set of defaults (the member initializers below);
// JSON exists only on the wire (toJson at the hub, workerConfigFromJson in
// the worker). A new kind of worker (another language, another mode) reads
// the same keys; mode-specific settings go into Extra.
//
//===----------------------------------------------------------------------===//
#ifndef PKB_RT_WORKERCONFIG_H
#define PKB_RT_WORKERCONFIG_H

#include <nlohmann/json.hpp>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace pkb::rt {

/// Configuration of one worker group (every rank gets the same one).
struct WorkerConfig {
  /// "run" | "fake" | "bench-nccl" | "heap-check", or the mode of a plugged
  /// worker command (see GroupSpec::Command).
  std::string Mode = "run";
  std::string Problem;        ///< problem name (run)
  std::string Library;        ///< compiled candidate (.so), or the source a
                              ///< non-C++ worker loads itself
  std::vector<int64_t> Sizes; ///< sizes of this group, in case order
  int CaseOffset = 0;         ///< index of Sizes[0] in the run
  int Trials = 3;             ///< checked trials (at least kMinTrials)
  int BackToBack = 4;         ///< calls without host sync (at least 4)
  int Warmup = 20;            ///< warm-up calls before timing
  int Iters = 100;            ///< timed calls (at least 1)
  long DeadlineMs = 10000;    ///< per-call watchdog deadline
  long SetupDeadlineMs = 180000;
  uint64_t Seed = 0x5EED;     ///< base seed of the inputs
  bool Graph = false;         ///< time inside one CUDA graph
  bool Timing = true;         ///< time the candidate and the reference
  bool Oversubscribe = false; ///< correctness only, rank r on GPU r % Gpus
  int Gpus = 0;               ///< GPUs the ranks run on (0: all)
  double L2Multiple = 3;      ///< timing buffers exceed this many x L2
  std::optional<nlohmann::json> Fake; ///< mode "fake": {action, rank, size}
  /// Settings of other modes ("bytes" of heap-check, the bench-nccl keys,
  /// anything a plugged worker needs); merged into the JSON as is.
  nlohmann::json Extra = nlohmann::json::object();

  /// Smallest accepted trial and back-to-back counts.
  static constexpr int kMinTrials = 3, kMinBackToBack = 4;
};

/// The wire form: every field under its snake_case key ("back_to_back",
/// "deadline_ms", ...) plus the keys of Extra. Counts are clamped to their
/// minimums here, so every worker sees valid values.
nlohmann::json toJson(const WorkerConfig &C);

/// Reads the wire form; absent keys keep the defaults of WorkerConfig and
/// unknown keys land in Extra.
WorkerConfig workerConfigFromJson(const nlohmann::json &J);

} // namespace pkb::rt

#endif // PKB_RT_WORKERCONFIG_H
