// ord003_01_rawptr.cu: BUG(ORD-003) __threadfence() is a GPU-scope fence; it does not order the pushes into the next rank's memory before the flag. FIX: __threadfence_system().
#include <cuda_runtime.h>
#include <stdint.h>

constexpr int kBlock = 256;
constexpr int kGrid = 8;
constexpr int kMaxRanks = 8;

// Ring shift: out on rank r = in of rank r - 1. recv[p]: rank p's symmetric
// receive buffer (n floats). Slot block * 8 + sender; call e uses 2e (data
// pushed to next) and 2e + 1 (our receive buffer consumed, sent to prev).
__global__ void ring_shift(float** recv, uint32_t** pads, const float* in, float* out,
                           int rank, int world_size, int64_t n, uint32_t epoch) {
  const int64_t tid = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
  const int64_t stride = (int64_t)gridDim.x * blockDim.x;
  const int prev = (rank + world_size - 1) % world_size;
  const int next = (rank + 1) % world_size;
  float* dst = recv[next];
  for (int64_t i = tid; i < n; i += stride) dst[i] = in[i];
  __syncthreads();
  if (threadIdx.x == 0) {
    __threadfence();  // expect: ORD-003
    volatile uint32_t* to_next = pads[next] + blockIdx.x * kMaxRanks + rank;
    *to_next = 2 * epoch;
    volatile uint32_t* from_prev = pads[rank] + blockIdx.x * kMaxRanks + prev;
    while (*from_prev < 2 * epoch) {
    }
    __threadfence_system();
  }
  __syncthreads();
  const float* src = recv[rank];
  for (int64_t i = tid; i < n; i += stride) out[i] = src[i];
  __syncthreads();
  if (threadIdx.x == 0) {
    __threadfence_system();
    volatile uint32_t* to_prev = pads[prev] + blockIdx.x * kMaxRanks + rank;
    *to_prev = 2 * epoch + 1;
    volatile uint32_t* from_next = pads[rank] + blockIdx.x * kMaxRanks + next;
    while (*from_next < 2 * epoch + 1) {
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
