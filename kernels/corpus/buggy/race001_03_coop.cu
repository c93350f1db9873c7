// race001_03_coop.cu: BUG(RACE-001) the tile loop has no barrier at its end: thread t+1 overwrites tile[t+1] for the next tile while thread t may still be reading it for the current one (loop-carried write-after-read). FIX: __syncthreads() at the end of the loop body.
#include <cooperative_groups.h>
#include <cuda_runtime.h>
#include <stdint.h>

namespace cg = cooperative_groups;

constexpr int kBlock = 256;
constexpr int kGrid = 64;

__device__ __forceinline__ void st_release_sys(uint32_t* p, uint32_t v) {
  asm volatile("st.release.sys.global.u32 [%0], %1;" ::"l"(p), "r"(v) : "memory");
}
__device__ __forceinline__ uint32_t ld_acquire_sys(const uint32_t* p) {
  uint32_t v;
  asm volatile("ld.acquire.sys.global.u32 %0, [%1];" : "=r"(v) : "l"(p) : "memory");
  return v;
}

// All-reduce fused with a 2-tap smoothing filter inside each 256-element tile.
// Cooperative launch; block 0 performs the cross-rank handshakes for the grid
// (pads[p][s] written only by rank s: 2e = staged, 2e + 1 = done reading).
__global__ void allreduce_smooth_coop(float** bufs, uint32_t** pads, const float* in, float* out,
                                      int rank, int world_size, int64_t n, uint32_t epoch) {
  __shared__ float tile[kBlock];
  cg::grid_group grid = cg::this_grid();
  const int64_t stride = grid.size();
  for (int64_t i = grid.thread_rank(); i < n; i += stride) bufs[rank][i] = in[i];
  grid.sync();
  if (blockIdx.x == 0 && threadIdx.x < world_size) {
    st_release_sys(pads[threadIdx.x] + rank, 2 * epoch);
    while (ld_acquire_sys(pads[rank] + threadIdx.x) < 2 * epoch) {
    }
  }
  grid.sync();
  for (int64_t base = (int64_t)blockIdx.x * blockDim.x; base < n; base += stride) {
    const int64_t i = base + threadIdx.x;
    float acc = 0.f;
    if (i < n)
      for (int p = 0; p < world_size; ++p) acc += bufs[p][i];
    tile[threadIdx.x] = acc;  // expect: RACE-001
    __syncthreads();
    if (i < n) {
      const bool last = threadIdx.x + 1 == blockDim.x || i + 1 == n;
      out[i] = last ? acc : 0.5f * (acc + tile[threadIdx.x + 1]);
    }
  }
  grid.sync();
  if (blockIdx.x == 0 && threadIdx.x < world_size) {
    st_release_sys(pads[threadIdx.x] + rank, 2 * epoch + 1);
    while (ld_acquire_sys(pads[rank] + threadIdx.x) < 2 * epoch + 1) {
    }
  }
}

cudaError_t launch_allreduce_smooth(float** bufs, uint32_t** pads, const float* in, float* out,
                                    int rank, int world_size, int64_t n, cudaStream_t stream) {
  static uint32_t epoch = 0;
  ++epoch;
  void* args[] = {&bufs, &pads, &in, &out, &rank, &world_size, &n, &epoch};
  return cudaLaunchCooperativeKernel((void*)allreduce_smooth_coop, dim3(kGrid), dim3(kBlock), args,
                                     0, stream);
}
