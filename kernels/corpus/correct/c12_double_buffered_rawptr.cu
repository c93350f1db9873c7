// c12_double_buffered_rawptr.cu: CORRECT one-shot all-reduce with double-buffered staging: call e stages into half (e & 1), so a single monotonic release/acquire barrier per call suffices (a peer still reading half h in call e-2 has not yet arrived at call e-1's barrier, which this rank passed before restaging half h in call e).
#include <cuda_runtime.h>
#include <stdint.h>

constexpr int kBlock = 512;
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

// bufs[p]: rank p's symmetric staging buffer of 2 * cap floats (two halves of
// cap >= n floats). pads[p][block*8 + s] is written only by rank s with the
// call number e >= 1. Element i is always handled by global thread i mod
// stride, so the block-matched barrier orders every cross-rank access.
__global__ void allreduce_db(float** bufs, uint32_t** pads, const float* in, float* out, int rank,
                             int world_size, int64_t n, int64_t cap, uint32_t epoch) {
  const int64_t tid = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
  const int64_t stride = (int64_t)gridDim.x * blockDim.x;
  const int64_t half = (int64_t)(epoch & 1u) * cap;
  for (int64_t i = tid; i < n; i += stride) bufs[rank][half + i] = in[i];
  __syncthreads();
  if (threadIdx.x < world_size) {
    const int peer = threadIdx.x;
    st_release_sys(pads[peer] + blockIdx.x * kMaxRanks + rank, epoch);
    while (ld_acquire_sys(pads[rank] + blockIdx.x * kMaxRanks + peer) < epoch) {
    }
  }
  __syncthreads();
  for (int64_t i = tid; i < n; i += stride) {
    float acc = 0.f;
    for (int p = 0; p < world_size; ++p) acc += bufs[p][half + i];
    out[i] = acc;
  }
}

// cap: capacity of each half (the largest n of any call); returns false if n > cap.
bool launch_allreduce_db(float** bufs, uint32_t** pads, const float* in, float* out, int rank,
                         int world_size, int64_t n, int64_t cap, cudaStream_t stream) {
  if (n > cap) return false;  // same decision on every rank
  static uint32_t epoch = 0;
  ++epoch;
  allreduce_db<<<kGrid, kBlock, 0, stream>>>(bufs, pads, in, out, rank, world_size, n, cap, epoch);
  return true;
}
