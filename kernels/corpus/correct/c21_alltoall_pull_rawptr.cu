// c21_alltoall_pull_rawptr.cu: CORRECT pull all-to-all over raw pointer tables: each rank stages its W outgoing blocks, __syncthreads + __threadfence_system + volatile flag, volatile poll + __threadfence_system, reads block `rank` of every peer, exit barrier.
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
    volatile const uint32_t* flag = pads[rank] + blockIdx.x * kMaxRanks + peer;
    while (*flag < value) {
    }
    __threadfence_system();
  }
  __syncthreads();
}

// stage[p]: rank p's symmetric staging copy of its input (W blocks of count).
// Element j of every block is staged and read by global thread j mod stride.
__global__ void alltoall_pull(float** stage, uint32_t** pads, const float* in, float* out,
                              int rank, int world_size, int64_t count, uint32_t epoch) {
  const int64_t tid = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
  const int64_t stride = (int64_t)gridDim.x * blockDim.x;
  float* mine = stage[rank];
  for (int p = 0; p < world_size; ++p)
    for (int64_t j = tid; j < count; j += stride) mine[p * count + j] = in[p * count + j];
  block_barrier(pads, rank, world_size, 2 * epoch);
  for (int s = 0; s < world_size; ++s) {
    const int q = (rank + s) % world_size;
    const float* src = stage[q] + rank * count;
    for (int64_t j = tid; j < count; j += stride) out[q * count + j] = src[j];
  }
  block_barrier(pads, rank, world_size, 2 * epoch + 1);
}

void launch_alltoall(float** stage, uint32_t** pads, const float* in, float* out, int rank,
                     int world_size, int64_t count, cudaStream_t stream) {
  static uint32_t epoch = 0;
  ++epoch;
  alltoall_pull<<<kGrid, kBlock, 0, stream>>>(stage, pads, in, out, rank, world_size, count, epoch);
}
