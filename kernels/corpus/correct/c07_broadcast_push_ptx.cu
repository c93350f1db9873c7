// c07_broadcast_push_ptx.cu: CORRECT broadcast from `root` by remote stores: root pushes, st.release.sys "ready" to each receiver, receivers ld.acquire.sys and copy out, then an all-rank exit barrier so no later call (whatever its root) overwrites a buffer still being read.
#include <cuda_runtime.h>
#include <stdint.h>

constexpr int kBlock = 256;
constexpr int kGrid = 16;
constexpr int kMaxRanks = 8;
constexpr int kExitBase = kGrid * kMaxRanks;

__device__ __forceinline__ void st_release_sys(uint32_t* p, uint32_t v) {
  asm volatile("st.release.sys.global.u32 [%0], %1;" ::"l"(p), "r"(v) : "memory");
}
__device__ __forceinline__ uint32_t ld_acquire_sys(const uint32_t* p) {
  uint32_t v;
  asm volatile("ld.acquire.sys.global.u32 %0, [%1];" : "=r"(v) : "l"(p) : "memory");
  return v;
}

// bufs[p]: rank p's symmetric receive buffer (n floats). Ready flags
// pads[p][block*8 + root] are written only by the root of the call; exit flags
// pads[p][kExitBase + block*8 + s] only by rank s. The exit barrier is over all
// ranks, so calls with different roots are ordered too.
__global__ void broadcast_push(float** bufs, uint32_t** pads, const float* in, float* out,
                               int rank, int world_size, int root, int64_t n, uint32_t epoch) {
  if (root < 0 || root >= world_size) return;  // uniform on every thread and rank
  const int64_t tid = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
  const int64_t stride = (int64_t)gridDim.x * blockDim.x;
  if (rank == root) {
    for (int s = 1; s < world_size; ++s) {
      float* dst = bufs[(root + s) % world_size];
      for (int64_t i = tid; i < n; i += stride) dst[i] = in[i];
    }
    for (int64_t i = tid; i < n; i += stride) out[i] = in[i];
    __syncthreads();
    if (threadIdx.x < world_size && threadIdx.x != root)
      st_release_sys(pads[threadIdx.x] + blockIdx.x * kMaxRanks + root, epoch);
  } else {
    if (threadIdx.x == 0) {
      while (ld_acquire_sys(pads[rank] + blockIdx.x * kMaxRanks + root) < epoch) {
      }
    }
    __syncthreads();
    const float* mine = bufs[rank];
    for (int64_t i = tid; i < n; i += stride) out[i] = mine[i];
  }
  __syncthreads();
  if (threadIdx.x < world_size) {
    const int peer = threadIdx.x;
    st_release_sys(pads[peer] + kExitBase + blockIdx.x * kMaxRanks + rank, epoch);
    while (ld_acquire_sys(pads[rank] + kExitBase + blockIdx.x * kMaxRanks + peer) < epoch) {
    }
  }
}

void launch_broadcast(float** bufs, uint32_t** pads, const float* in, float* out, int rank,
                      int world_size, int root, int64_t n, cudaStream_t stream) {
  static uint32_t epoch = 0;
  ++epoch;
  broadcast_push<<<kGrid, kBlock, 0, stream>>>(bufs, pads, in, out, rank, world_size, root, n,
                                               epoch);
}
