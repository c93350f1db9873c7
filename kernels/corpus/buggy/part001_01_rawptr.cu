// part001_01_rawptr.cu: BUG(PART-001) the last rank reads bufs[rank + 1] == bufs[W], one past the peer table. FIX: bufs[(rank + 1) % world_size].
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

// Cyclic shift: rank r outputs the input of rank r + 1 (mod W), read from that
// rank's symmetric staging buffer.
__global__ void ring_pull(float** bufs, uint32_t** pads, const float* in, float* out, int rank,
                          int world_size, int64_t n, uint32_t epoch) {
  const int64_t tid = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
  const int64_t stride = (int64_t)gridDim.x * blockDim.x;
  for (int64_t i = tid; i < n; i += stride) bufs[rank][i] = in[i];
  block_barrier(pads, rank, world_size, 2 * epoch);
  for (int64_t i = tid; i < n; i += stride) out[i] = bufs[rank + 1][i];  // expect: PART-001
  block_barrier(pads, rank, world_size, 2 * epoch + 1);
}

void launch_ring_pull(float** bufs, uint32_t** pads, const float* in, float* out, int rank,
                      int world_size, int64_t n, cudaStream_t stream) {
  static uint32_t epoch = 0;
  ++epoch;
  ring_pull<<<kGrid, kBlock, 0, stream>>>(bufs, pads, in, out, rank, world_size, n, epoch);
}
