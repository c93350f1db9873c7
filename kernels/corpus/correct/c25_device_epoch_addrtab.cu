// c25_device_epoch_addrtab.cu: CORRECT one-shot all-reduce with a device-side epoch (vLLM custom all-reduce style): each block keeps its barrier count in local memory, reads it once at kernel start, uses base+1 / base+2 as monotonic flag values, and stores base+2 back after a final __syncthreads, so the host passes no epoch.
#include <cuda_runtime.h>
#include <stdint.h>

constexpr int kBlock = 512;
constexpr int kGrid = 24;
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
    st_release_sys(reinterpret_cast<uint32_t*>(pad_ptrs[peer]) + blockIdx.x * kMaxRanks + rank, value);
    while (ld_acquire_sys(reinterpret_cast<const uint32_t*>(pad_ptrs[rank]) + blockIdx.x * kMaxRanks + peer) < value) {
    }
  }
  __syncthreads();
}

// block_epoch: local (non-symmetric) array of kGrid counters, zeroed once at
// setup; every rank advances each counter by 2 per call, so they agree.
__global__ void allreduce_oneshot(const int64_t* buffer_ptrs, const int64_t* pad_ptrs,
                                  uint32_t* block_epoch, const float* in, float* out, int rank,
                                  int world_size, int64_t n) {
  const uint32_t base = block_epoch[blockIdx.x];
  const int64_t tid = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
  const int64_t stride = (int64_t)gridDim.x * blockDim.x;
  float* mine = reinterpret_cast<float*>(buffer_ptrs[rank]);
  for (int64_t i = tid; i < n; i += stride) mine[i] = in[i];
  block_barrier(pad_ptrs, rank, world_size, base + 1);
  for (int64_t i = tid; i < n; i += stride) {
    float acc = 0.f;
    for (int p = 0; p < world_size; ++p) acc += reinterpret_cast<const float*>(buffer_ptrs[p])[i];
    out[i] = acc;
  }
  block_barrier(pad_ptrs, rank, world_size, base + 2);
  if (threadIdx.x == 0) block_epoch[blockIdx.x] = base + 2;  // all threads read base before
}

void launch_allreduce(const int64_t* buffer_ptrs, const int64_t* pad_ptrs, uint32_t* block_epoch,
                      const float* in, float* out, int rank, int world_size, int64_t n,
                      cudaStream_t stream) {
  allreduce_oneshot<<<kGrid, kBlock, 0, stream>>>(buffer_ptrs, pad_ptrs, block_epoch, in, out, rank,
                                                  world_size, n);
}
