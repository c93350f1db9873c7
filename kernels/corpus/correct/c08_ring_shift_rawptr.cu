// c08_ring_shift_rawptr.cu: CORRECT ring exchange (out on rank r = in of rank r-1): push into next's receive buffer, __threadfence_system + volatile "pushed" flag to next, wait for prev's flag + __threadfence_system, copy out, then a "consumed" flag back to prev and a wait for next's before returning.
#include <cuda_runtime.h>
#include <stdint.h>

constexpr int kBlock = 256;
constexpr int kGrid = 8;
constexpr int kMaxRanks = 8;

// recv[p]: rank p's symmetric receive buffer (n floats). pads[p][block*8 + s]
// is written only by rank s (values 2e "pushed" then 2e + 1 "consumed" in call
// e, so one slot may carry both kinds when W == 2 and prev == next).
__global__ void ring_shift(float** recv, uint32_t** pads, const float* in, float* out, int rank,
                           int world_size, int64_t n, uint32_t epoch) {
  const int64_t tid = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
  const int64_t stride = (int64_t)gridDim.x * blockDim.x;
  const int prev = (rank + world_size - 1) % world_size;
  const int next = (rank + 1) % world_size;
  float* dst = recv[next];
  for (int64_t i = tid; i < n; i += stride) dst[i] = in[i];
  __syncthreads();
  if (threadIdx.x == 0) {
    __threadfence_system();
    *(volatile uint32_t*)(pads[next] + blockIdx.x * kMaxRanks + rank) = 2 * epoch;
    while (*(volatile uint32_t*)(pads[rank] + blockIdx.x * kMaxRanks + prev) < 2 * epoch) {
    }
    __threadfence_system();
  }
  __syncthreads();
  const float* src = recv[rank];
  for (int64_t i = tid; i < n; i += stride) out[i] = src[i];
  __syncthreads();
  if (threadIdx.x == 0) {
    __threadfence_system();
    *(volatile uint32_t*)(pads[prev] + blockIdx.x * kMaxRanks + rank) = 2 * epoch + 1;
    while (*(volatile uint32_t*)(pads[rank] + blockIdx.x * kMaxRanks + next) < 2 * epoch + 1) {
    }
    __threadfence_system();
  }
}

void launch_ring_shift(float** recv, uint32_t** pads, const float* in, float* out, int rank,
                       int world_size, int64_t n, cudaStream_t stream) {
  static uint32_t epoch = 0;
  ++epoch;
  ring_shift<<<kGrid, kBlock, 0, stream>>>(recv, pads, in, out, rank, world_size, n, epoch);
}
