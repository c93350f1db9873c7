// part001_03_addrtab.cu: BUG(PART-001) partner = rank ^ 1 equals W on the last rank when W is odd, and buffer_ptrs[partner] is read past the table. FIX: if (partner >= world_size) partner = rank (the unpaired rank keeps its own data).
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

// Barrier of the same-numbered block on all ranks (slot block*8 + sender).
__device__ __forceinline__ void block_barrier(const int64_t* pad_ptrs, int rank, int world_size,
                                              uint32_t value) {
  __syncthreads();
  if (threadIdx.x < world_size) {
    const int peer = threadIdx.x;
    st_release_sys(reinterpret_cast<uint32_t*>(pad_ptrs[peer]) + blockIdx.x * kMaxRanks + rank, value);
    while (ld_acquire_sys(reinterpret_cast<const uint32_t*>(pad_ptrs[rank]) + blockIdx.x * kMaxRanks + peer) < value) {
    }
  }
  __syncthreads();
}

// Pairwise swap (ranks 2k and 2k + 1 exchange their vectors) through staged
// symmetric buffers addressed by the int64 address table buffer_ptrs.
__global__ void pair_swap(const int64_t* buffer_ptrs, const int64_t* pad_ptrs, const float* in,
                          float* out, int rank, int world_size, int64_t n, uint32_t epoch) {
  const int64_t tid = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
  const int64_t stride = (int64_t)gridDim.x * blockDim.x;
  const int partner = rank ^ 1;
  float* mine = reinterpret_cast<float*>(buffer_ptrs[rank]);
  for (int64_t i = tid; i < n; i += stride) mine[i] = in[i];
  block_barrier(pad_ptrs, rank, world_size, 2 * epoch);
  const float* src = reinterpret_cast<const float*>(buffer_ptrs[partner]);  // expect: PART-001
  for (int64_t i = tid; i < n; i += stride) out[i] = src[i];
  block_barrier(pad_ptrs, rank, world_size, 2 * epoch + 1);
}

void launch_pair_swap(const int64_t* buffer_ptrs, const int64_t* pad_ptrs, const float* in,
                      float* out, int rank, int world_size, int64_t n, cudaStream_t stream) {
  static uint32_t epoch = 0;
  ++epoch;
  pair_swap<<<kGrid, kBlock, 0, stream>>>(buffer_ptrs, pad_ptrs, in, out, rank, world_size, n,
                                          epoch);
}
