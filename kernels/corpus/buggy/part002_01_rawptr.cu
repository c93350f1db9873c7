// part002_01_rawptr.cu: BUG(PART-002) to keep every shard C = ceil(n/W) long the last rank's shard is [n - C, n), which overlaps rank W-2's shard when n % W != 0; both ranks push different values for the shared elements into every peer in the same phase. FIX: last shard = [(W-1)*C, n) (shorter), i.e. start = rank * C for every rank.
#include <cuda_runtime.h>
#include <stdint.h>

constexpr int kBlock = 1024;
constexpr int kGrid = 1;  // one block: the barrier then orders every thread's pushes
constexpr int kMaxRanks = 8;

__device__ __forceinline__ void block_barrier(uint32_t** pads, int rank, int world_size,
                                              uint32_t value) {
  __syncthreads();
  if (threadIdx.x < world_size) {
    const int peer = threadIdx.x;
    uint32_t* remote = pads[peer] + blockIdx.x * kMaxRanks + rank;
    asm volatile("st.release.sys.global.u32 [%0], %1;" ::"l"(remote), "r"(value) : "memory");
    const uint32_t* flag = pads[rank] + blockIdx.x * kMaxRanks + peer;
    uint32_t seen;
    do {
      asm volatile("ld.acquire.sys.global.u32 %0, [%1];" : "=r"(seen) : "l"(flag) : "memory");
    } while (seen < value);
  }
  __syncthreads();
}

__device__ __forceinline__ int64_t shard_start(int r, int world_size, int64_t n, int64_t C) {
  return r == world_size - 1 ? n - C : r * C;
}

// Sharded-parameter all-gather: x is this rank's full-size copy in which only
// its own shard is current; every rank pushes its shard into full[p] on all p.
__global__ void gather_shards(float** full, uint32_t** pads, const float* x, float* out, int rank,
                              int world_size, int64_t n, uint32_t epoch) {
  const int64_t tid = threadIdx.x;
  const int64_t stride = blockDim.x;
  const int64_t C = (n + world_size - 1) / world_size;
  const int64_t start = shard_start(rank, world_size, n, C);
  const int64_t len = max((int64_t)0, min(C, n - start));
  for (int p = 0; p < world_size; ++p)
    for (int64_t j = tid; j < len; j += stride) full[p][start + j] = x[start + j];  // expect: PART-002
  block_barrier(pads, rank, world_size, 2 * epoch);
  for (int64_t i = tid; i < n; i += stride) out[i] = full[rank][i];
  block_barrier(pads, rank, world_size, 2 * epoch + 1);
}

void launch_gather_shards(float** full, uint32_t** pads, const float* x, float* out, int rank,
                          int world_size, int64_t n, cudaStream_t stream) {
  static uint32_t epoch = 0;
  ++epoch;
  gather_shards<<<kGrid, kBlock, 0, stream>>>(full, pads, x, out, rank, world_size, n, epoch);
}
