// part003_01_rawptr.cu: BUG(PART-003) shards are C = n / W elements, so the last n % W elements of the output are never written by any rank. FIX: C = ceil(n / W) with the last shard clamped to n (or give the remainder to the last rank).
#include <cuda_runtime.h>
#include <stdint.h>

constexpr int kBlock = 256;
constexpr int kGrid = 16;
constexpr int kMaxRanks = 8;

__device__ __forceinline__ void block_barrier(uint32_t** pads, int rank, int world_size,
                                              uint32_t value) {
  __syncthreads();
  if (threadIdx.x < world_size) {
    const int peer = threadIdx.x;
    __threadfence_system();
    *(volatile uint32_t*)(pads[peer] + blockIdx.x * kMaxRanks + rank) = value;
    while (*(volatile uint32_t*)(pads[rank] + blockIdx.x * kMaxRanks + peer) < value) {
    }
    __threadfence_system();
  }
  __syncthreads();
}

// Sharded-parameter all-gather (pull): x is this rank's full-size copy in
// which only its shard is current; each rank stages its shard in its own
// symmetric buffer and every rank reads all shards into out.
__global__ void gather_shards(float** stage, uint32_t** pads, const float* x, float* out,
                              int rank, int world_size, int64_t n, uint32_t epoch) {
  const int64_t tid = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
  const int64_t stride = (int64_t)gridDim.x * blockDim.x;
  const int64_t C = n / world_size;
  for (int64_t j = tid; j < C; j += stride) stage[rank][rank * C + j] = x[rank * C + j];
  block_barrier(pads, rank, world_size, 2 * epoch);
  for (int q = 0; q < world_size; ++q)
    for (int64_t j = tid; j < C; j += stride) out[q * C + j] = stage[q][q * C + j];  // expect: PART-003
  block_barrier(pads, rank, world_size, 2 * epoch + 1);
}

void launch_gather_shards(float** stage, uint32_t** pads, const float* x, float* out, int rank,
                          int world_size, int64_t n, cudaStream_t stream) {
  static uint32_t epoch = 0;
  ++epoch;
  gather_shards<<<kGrid, kBlock, 0, stream>>>(stage, pads, x, out, rank, world_size, n, epoch);
}
