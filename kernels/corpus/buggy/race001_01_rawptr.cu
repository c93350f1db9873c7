// race001_01_rawptr.cu: BUG(RACE-001) the shared-memory tree reduction has no __syncthreads() between levels, so a thread reads red[tid + w] before (or while) its owner updates it. FIX: __syncthreads() at the end of each level of the loop.
#include <cuda_runtime.h>
#include <stdint.h>

constexpr int kBlock = 512;

// Global sum across ranks (single block per rank): local tree reduction, then
// every rank writes its total into vals[p][rank] on every rank p.
// pads[p][s] is written only by rank s: 2e = value written, 2e + 1 = consumed.
__global__ void global_sum(float** vals, uint32_t** pads, const float* in, float* out, int rank,
                           int world_size, int64_t n, uint32_t epoch) {
  __shared__ float red[kBlock];
  float s = 0.f;
  for (int64_t i = threadIdx.x; i < n; i += blockDim.x) s += in[i];
  red[threadIdx.x] = s;
  __syncthreads();
  for (int w = blockDim.x / 2; w > 0; w >>= 1) {
    if (threadIdx.x < w) red[threadIdx.x] += red[threadIdx.x + w];  // expect: RACE-001
  }
  __syncthreads();
  if (threadIdx.x < world_size) {
    const int peer = threadIdx.x;
    vals[peer][rank] = red[0];
    __threadfence_system();
    *(volatile uint32_t*)(pads[peer] + rank) = 2 * epoch;
    while (*(volatile uint32_t*)(pads[rank] + peer) < 2 * epoch) {
    }
    __threadfence_system();
  }
  __syncthreads();
  if (threadIdx.x == 0) {
    float total = 0.f;
    for (int p = 0; p < world_size; ++p) total += vals[rank][p];
    out[0] = total;
  }
  __syncthreads();
  if (threadIdx.x < world_size) {
    const int peer = threadIdx.x;
    __threadfence_system();
    *(volatile uint32_t*)(pads[peer] + rank) = 2 * epoch + 1;
    while (*(volatile uint32_t*)(pads[rank] + peer) < 2 * epoch + 1) {
    }
    __threadfence_system();
  }
}

void launch_global_sum(float** vals, uint32_t** pads, const float* in, float* out, int rank,
                       int world_size, int64_t n, cudaStream_t stream) {
  static uint32_t epoch = 0;
  ++epoch;
  global_sum<<<1, kBlock, 0, stream>>>(vals, pads, in, out, rank, world_size, n, epoch);
}
