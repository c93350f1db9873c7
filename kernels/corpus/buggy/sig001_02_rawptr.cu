// sig001_02_rawptr.cu: BUG(SIG-001) the flag slot is rank * 8 + block but the grid has 16 blocks, so (rank r, block b + 8) and (rank r + 1, block b) share one slot and a waiter can be released by the wrong sender. FIX: slot = block * 8 + rank (stride by the rank count, not the block count).
#include <cuda_runtime.h>
#include <stdint.h>

constexpr int kBlock = 256;
constexpr int kGrid = 16;
constexpr int kMaxRanks = 8;

__device__ __forceinline__ void st_release_sys(uint32_t* p, uint32_t v) {
  asm volatile("st.release.sys.global.u32 [%0], %1;" ::"l"(p), "r"(v) : "memory");
}
__device__ __forceinline__ uint32_t ld_acquire_sys(const uint32_t* p) {
  uint32_t v;
  asm volatile("ld.acquire.sys.global.u32 %0, [%1];" : "=r"(v) : "l"(p) : "memory");
  return v;
}

__device__ __forceinline__ void block_barrier(uint32_t** pads, int rank, int world_size,
                                              uint32_t value) {
  __syncthreads();
  if (threadIdx.x < world_size) {
    const int peer = threadIdx.x;
    st_release_sys(pads[peer] + rank * kMaxRanks + blockIdx.x, value);  // expect: SIG-001
    while (ld_acquire_sys(pads[rank] + peer * kMaxRanks + blockIdx.x) < value) {
    }
  }
  __syncthreads();
}

// Two-shot all-reduce: reduce-scatter into chunk r of our own symmetric buffer,
// then all-gather the reduced chunks. C = ceil(n / W); all phases index
// chunk-relative so each block reads only what the same block of a peer wrote.
__global__ void allreduce_twoshot(float** bufs, uint32_t** pads, const float* in, float* out,
                                  int rank, int world_size, int64_t n, uint32_t epoch) {
  const int64_t tid = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
  const int64_t stride = (int64_t)gridDim.x * blockDim.x;
  const int64_t C = (n + world_size - 1) / world_size;
  float* mine = bufs[rank];
  for (int c = 0; c < world_size; ++c)
    for (int64_t j = tid; j < min(C, n - c * C); j += stride) mine[c * C + j] = in[c * C + j];
  block_barrier(pads, rank, world_size, 3 * epoch - 2);
  for (int64_t j = tid; j < min(C, n - rank * C); j += stride) {
    float acc = 0.f;
    for (int p = 0; p < world_size; ++p) acc += bufs[p][rank * C + j];
    mine[rank * C + j] = acc;
  }
  block_barrier(pads, rank, world_size, 3 * epoch - 1);
  for (int c = 0; c < world_size; ++c)
    for (int64_t j = tid; j < min(C, n - c * C); j += stride) out[c * C + j] = bufs[c][c * C + j];
  block_barrier(pads, rank, world_size, 3 * epoch);
}

void launch_allreduce(float** bufs, uint32_t** pads, const float* in, float* out, int rank,
                      int world_size, int64_t n, cudaStream_t stream) {
  static uint32_t epoch = 0;
  ++epoch;
  allreduce_twoshot<<<kGrid, kBlock, 0, stream>>>(bufs, pads, in, out, rank, world_size, n, epoch);
}
