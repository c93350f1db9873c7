//===- pkb/rt/Bench.h - Machine probes and NCCL benchmarks ------*- C++ -*-===//
#ifndef PKB_RT_BENCH_H
#define PKB_RT_BENCH_H

#include <nlohmann/json.hpp>

#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

namespace pkb::rt {

/// Options of `pkbcheck bench peers`.
struct PeerProbeOptions {
  size_t Bytes = size_t(256) << 20; ///< bytes per copy
  int Reps = 10;                    ///< timed copies per measurement
};

/// Measures, in this process over every visible GPU: HBM device-to-device
/// copy bandwidth (bytes read + written per second), for every ordered GPU
/// pair the one-way copy-engine bandwidth (cudaMemcpyPeerAsync), SM stores
/// to the peer and SM loads from the peer (best of three grid sizes), and
/// the FP32 FMA rate. Returns JSON with "devices", "pairs" and "rates"
/// (nvlink = slowest pair's better of copy engine and SM stores; hbm and
/// flops = slowest device). Throws std::runtime_error without GPUs.
nlohmann::json probeMachine(const PeerProbeOptions &O);

/// Prints the probe as tables.
void printProbe(const nlohmann::json &J, FILE *Out);

/// One collective of `pkbcheck bench nccl`.
struct NcclBenchOptions {
  int Gpus = 0;
  size_t MinBytes = 4096, MaxBytes = size_t(1) << 30;
  int Warmup = 5, Iters = 20;
  std::vector<std::string> Collectives = {
      "all_reduce", "all_gather", "reduce_scatter", "alltoall", "broadcast"};
  std::string Exe; ///< worker binary; empty: this one
};

/// Bus-bandwidth factor of nccl-tests (doc/PERFORMANCE.md): all_reduce
/// 2(n-1)/n; all_gather, reduce_scatter and alltoall (n-1)/n; broadcast 1.
/// Throws std::invalid_argument for unknown names.
double busBwFactor(const std::string &Collective, int Ranks);

/// Runs the benchmark with one worker per GPU; returns rows
/// {collective, bytes, time_us, algbw_gbs, busbw_gbs} (time averaged over
/// ranks like nccl-tests' default -a 1). Throws std::runtime_error when the
/// workers fail.
nlohmann::json runNcclBench(const NcclBenchOptions &O);

/// Prints rows as nccl-tests-style tables, one per collective.
void printNcclBench(const nlohmann::json &Rows, FILE *Out);

} // namespace pkb::rt

#endif // PKB_RT_BENCH_H
