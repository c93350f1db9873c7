// c04_allgather_pull_addrtab.cu: CORRECT pull all-gather with int64 address tables (as torch symm_mem's buffer_ptrs_dev / signal_pad_ptrs_dev): stage, release/acquire barrier, read every peer's staged chunk, exit barrier.
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

__device__ __forceinline__ void block_barrier(const int64_t* pad_ptrs, int rank, int world_size,
                                              uint32_t value) {
  __syncthreads();
  if (threadIdx.x < world_size) {
    const int peer = threadIdx.x;
    uint32_t* remote = reinterpret_cast<uint32_t*>(pad_ptrs[peer]) + blockIdx.x * kMaxRanks + rank;
    const uint32_t* flag = reinterpret_cast<const uint32_t*>(pad_ptrs[rank]) + blockIdx.x * kMaxRanks + peer;
    st_release_sys(remote, value);
    while (ld_acquire_sys(flag) < value) {
    }
  }
  __syncthreads();
}

// stage_ptrs[p]: address of rank p's symmetric staging buffer (m floats).
__global__ void allgather_pull(const int64_t* stage_ptrs, const int64_t* pad_ptrs, const float* in,
                               float* out, int rank, int world_size, int64_t m, uint32_t epoch) {
  const int64_t tid = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
  const int64_t stride = (int64_t)gridDim.x * blockDim.x;
  float* mine = reinterpret_cast<float*>(stage_ptrs[rank]);
  for (int64_t j = tid; j < m; j += stride) mine[j] = in[j];
  block_barrier(pad_ptrs, rank, world_size, 2 * epoch);
  for (int s = 0; s < world_size; ++s) {
    const int q = (rank + s) % world_size;  // stagger the peers we read first
    const float* src = reinterpret_cast<const float*>(stage_ptrs[q]);
    for (int64_t j = tid; j < m; j += stride) out[q * m + j] = src[j];
  }
  block_barrier(pad_ptrs, rank, world_size, 2 * epoch + 1);
}

void launch_allgather(const int64_t* stage_ptrs, const int64_t* pad_ptrs, const float* in,
                      float* out, int rank, int world_size, int64_t m, cudaStream_t stream) {
  static uint32_t epoch = 0;
  ++epoch;
  allgather_pull<<<kGrid, kBlock, 0, stream>>>(stage_ptrs, pad_ptrs, in, out, rank, world_size, m,
                                               epoch);
}
