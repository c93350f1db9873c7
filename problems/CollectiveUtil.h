//===- CollectiveUtil.h - Shared helpers of the collective specs -*- C++
//-*-===//
//
// Small helpers shared by the problem specs of PKB problems 2..8 and the fused
// problems: the NCCL error wrapper, the default size sweep of the sharded
// collectives and the CUDA error wrapper.
//
//===----------------------------------------------------------------------===//
#ifndef PKB_PROBLEMS_COLLECTIVEUTIL_H
#define PKB_PROBLEMS_COLLECTIVEUTIL_H

#include "pkb/support/Expected.h"

#include <cuda_runtime_api.h>
#include <nccl.h>

#include <cstdint>
#include <string>
#include <vector>

namespace pkb::rt {

/// Success for ncclSuccess, else the error "What: <NCCL error string>".
inline support::Expected<void> ncclError(const char *What, ncclResult_t E) {
  if (E == ncclSuccess)
    return {};
  return support::fail(std::string(What) + ": " + ncclGetErrorString(E));
}

/// Success for cudaSuccess, else the error "What: <CUDA error string>".
inline support::Expected<void> cudaError(const char *What, cudaError_t E) {
  if (E == cudaSuccess)
    return {};
  return support::fail(std::string(What) + ": " + cudaGetErrorString(E));
}

/// Default sizes of collectives whose size is the NCCL per-rank count of a
/// shard (all-gather sendcount, reduce-scatter recvcount, scatter/gather
/// per-rank count, all-to-all per-peer count): 2^10, 2^16, 2^20, 2^24, 2^26
/// bf16 elements, i.e. a 4 KiB, 256 KiB, 4 MiB, 64 MiB and 256 MiB full
/// buffer at 2 ranks (W times the shard in general). Valid for every W.
inline std::vector<int64_t> shardSweep() {
  return {int64_t(1) << 10, int64_t(1) << 16, int64_t(1) << 20,
          int64_t(1) << 24, int64_t(1) << 26};
}

/// Default sizes of collectives whose size is the whole buffer (broadcast,
/// reduce): 2^11 .. 2^27 bf16 elements = 4 KiB, 256 KiB, 4 MiB, 64 MiB,
/// 256 MiB.
inline std::vector<int64_t> fullSweep() {
  return {int64_t(1) << 11, int64_t(1) << 17, int64_t(1) << 21,
          int64_t(1) << 25, int64_t(1) << 27};
}

/// Root rank of the rooted collectives (broadcast, reduce, scatter, gather).
constexpr int kRoot = 0;

} // namespace pkb::rt

#endif // PKB_PROBLEMS_COLLECTIVEUTIL_H
