// c03_allgather_push_rawptr.cu: CORRECT push all-gather over raw peer-pointer tables: remote stores, __syncthreads, __threadfence_system + volatile flag (release), volatile poll + __threadfence_system (acquire), copy-out, exit barrier with the next flag value.
#include <cuda_runtime.h>
#include <stdint.h>

constexpr int kBlock = 256;
constexpr int kGrid = 8;
constexpr int kMaxRanks = 8;

// Same-numbered block of every rank; pads[p][block*8 + s] is written only by s.
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

// gather[p]: rank p's symmetric buffer of world_size * m floats; rank r's
// contribution lands at offset r*m on every rank. Element j of a contribution
// is written and read by global thread j mod stride on every rank.
__global__ void allgather_push(float** gather, uint32_t** pads, const float* in, float* out,
                               int rank, int world_size, int64_t m, uint32_t epoch) {
  const int64_t tid = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
  const int64_t stride = (int64_t)gridDim.x * blockDim.x;
  for (int s = 0; s < world_size; ++s) {
    float* dst = gather[(rank + s) % world_size] + rank * m;
    for (int64_t j = tid; j < m; j += stride) dst[j] = in[j];
  }
  block_barrier(pads, rank, world_size, 2 * epoch);
  const float* mine = gather[rank];
  for (int q = 0; q < world_size; ++q)
    for (int64_t j = tid; j < m; j += stride) out[q * m + j] = mine[q * m + j];
  block_barrier(pads, rank, world_size, 2 * epoch + 1);
}

void launch_allgather(float** gather, uint32_t** pads, const float* in, float* out, int rank,
                      int world_size, int64_t m, cudaStream_t stream) {
  static uint32_t epoch = 0;
  ++epoch;
  allgather_push<<<kGrid, kBlock, 0, stream>>>(gather, pads, in, out, rank, world_size, m, epoch);
}
