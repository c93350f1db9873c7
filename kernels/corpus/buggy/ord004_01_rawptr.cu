// ord004_01_rawptr.cu: BUG(ORD-004) the start barrier spins on a plain (non-volatile) load of the flag; the compiler may hoist it out of the loop and spin forever. FIX: poll through a volatile pointer or ld.acquire.sys.
#include <cuda_runtime.h>
#include <stdint.h>

constexpr int kBlock = 256;
constexpr int kGrid = 32;
constexpr int kMaxRanks = 8;

// One-shot all-reduce (sum). bufs[p] = rank p's symmetric staging buffer.
// Slot block * 8 + sender; call e uses 2e (staged) and 2e + 1 (done).
__global__ void allreduce_oneshot(float** bufs, uint32_t** pads, const float* in, float* out,
                                  int rank, int world_size, int64_t n, uint32_t epoch) {
  const int64_t tid = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
  const int64_t stride = (int64_t)gridDim.x * blockDim.x;
  for (int64_t i = tid; i < n; i += stride) bufs[rank][i] = in[i];
  __syncthreads();
  if (threadIdx.x < world_size) {
    const int peer = threadIdx.x;
    __threadfence_system();
    *(volatile uint32_t*)(pads[peer] + blockIdx.x * kMaxRanks + rank) = 2 * epoch;
    const uint32_t* flag = pads[rank] + blockIdx.x * kMaxRanks + peer;
    while (*flag < 2 * epoch) {  // expect: ORD-004
    }
    __threadfence_system();
  }
  __syncthreads();
  for (int64_t i = tid; i < n; i += stride) {
    float acc = 0.f;
    for (int p = 0; p < world_size; ++p) acc += bufs[p][i];
    out[i] = acc;
  }
  __syncthreads();
  if (threadIdx.x < world_size) {
    const int peer = threadIdx.x;
    __threadfence_system();
    *(volatile uint32_t*)(pads[peer] + blockIdx.x * kMaxRanks + rank) = 2 * epoch + 1;
    volatile uint32_t* flag = pads[rank] + blockIdx.x * kMaxRanks + peer;
    while (*flag < 2 * epoch + 1) {
    }
    __threadfence_system();
  }
}

void launch_allreduce(float** bufs, uint32_t** pads, const float* in, float* out, int rank,
                      int world_size, int64_t n, cudaStream_t stream) {
  static uint32_t epoch = 0;
  ++epoch;
  allreduce_oneshot<<<kGrid, kBlock, 0, stream>>>(bufs, pads, in, out, rank, world_size, n, epoch);
}
