// bar004_01_rawptr.cu: BUG(BAR-004) no exit barrier: a fast rank's next call restages its symmetric buffer while slower peers are still summing the previous contents (cross-call write-after-read). FIX: a second release/acquire barrier after the reduction loop.
#include <cuda_runtime.h>
#include <stdint.h>

constexpr int kBlock = 512;
constexpr int kGrid = 16;
constexpr int kMaxRanks = 8;

// One-shot all-reduce (sum). bufs[p]: rank p's symmetric staging buffer;
// pads[p][block*8 + s] is written only by rank s with the call number.
__global__ void allreduce_oneshot(float** bufs, uint32_t** pads, const float* in, float* out,
                                  int rank, int world_size, int64_t n, uint32_t epoch) {
  const int64_t tid = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
  const int64_t stride = (int64_t)gridDim.x * blockDim.x;
  float* mine = bufs[rank];
  for (int64_t i = tid; i < n; i += stride) mine[i] = in[i];  // expect: BAR-004
  __syncthreads();
  if (threadIdx.x < world_size) {
    const int peer = threadIdx.x;
    __threadfence_system();
    *(volatile uint32_t*)(pads[peer] + blockIdx.x * kMaxRanks + rank) = epoch;
    volatile uint32_t* flag = pads[rank] + blockIdx.x * kMaxRanks + peer;
    while (*flag < epoch) {
    }
    __threadfence_system();
  }
  __syncthreads();
  for (int64_t i = tid; i < n; i += stride) {
    float acc = 0.f;
    for (int p = 0; p < world_size; ++p) acc += bufs[p][i];
    out[i] = acc;
  }
}

void launch_allreduce(float** bufs, uint32_t** pads, const float* in, float* out, int rank,
                      int world_size, int64_t n, cudaStream_t stream) {
  static uint32_t epoch = 0;
  ++epoch;
  allreduce_oneshot<<<kGrid, kBlock, 0, stream>>>(bufs, pads, in, out, rank, world_size, n, epoch);
}
