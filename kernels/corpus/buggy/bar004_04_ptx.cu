// bar004_04_ptx.cu: BUG(BAR-004) the two-shot all-reduce ends right after the all-gather reads; the next call's staging loop overwrites our reduced chunk while peers may still be reading it. FIX: a third (exit) barrier after the all-gather phase.
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
    asm volatile("fence.acq_rel.sys;" ::: "memory");
    asm volatile("st.relaxed.sys.global.u32 [%0], %1;" ::"l"(pads[peer] + blockIdx.x * kMaxRanks + rank), "r"(value) : "memory");
    uint32_t seen;
    do {
      asm volatile("ld.relaxed.sys.global.u32 %0, [%1];" : "=r"(seen) : "l"(pads[rank] + blockIdx.x * kMaxRanks + peer) : "memory");
    } while (seen < value);
    asm volatile("fence.acq_rel.sys;" ::: "memory");
  }
  __syncthreads();
}

// Two-shot all-reduce, C = ceil(n / W), chunk-relative indexing in every phase.
// Call e uses barrier values 2e - 1 and 2e.
__global__ void allreduce_twoshot(float** bufs, uint32_t** pads, const float* in, float* out,
                                  int rank, int world_size, int64_t n, uint32_t epoch) {
  const int64_t tid = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
  const int64_t stride = (int64_t)gridDim.x * blockDim.x;
  const int64_t C = (n + world_size - 1) / world_size;
  float* mine = bufs[rank];
  for (int c = 0; c < world_size; ++c)
    for (int64_t j = tid; j < min(C, n - c * C); j += stride) mine[c * C + j] = in[c * C + j];  // expect: BAR-004
  block_barrier(pads, rank, world_size, 2 * epoch - 1);
  for (int64_t j = tid; j < min(C, n - rank * C); j += stride) {
    float acc = 0.f;
    for (int p = 0; p < world_size; ++p) acc += bufs[(rank + p) % world_size][rank * C + j];
    mine[rank * C + j] = acc;
  }
  block_barrier(pads, rank, world_size, 2 * epoch);
  for (int c = 0; c < world_size; ++c)
    for (int64_t j = tid; j < min(C, n - c * C); j += stride) out[c * C + j] = bufs[c][c * C + j];
}

void launch_allreduce(float** bufs, uint32_t** pads, const float* in, float* out, int rank,
                      int world_size, int64_t n, cudaStream_t stream) {
  static uint32_t epoch = 0;
  ++epoch;
  allreduce_twoshot<<<kGrid, kBlock, 0, stream>>>(bufs, pads, in, out, rank, world_size, n, epoch);
}
