// bar001_02_coop.cu: BUG(BAR-001) idle blocks return before grid.sync(); a grid barrier must be reached by every block of the cooperative launch, so the remaining blocks hang when n < kGrid * kBlock. FIX: let idle blocks fall through with a zero partial instead of returning.
#include <cooperative_groups.h>
#include <cuda_runtime.h>
#include <stdint.h>

namespace cg = cooperative_groups;

constexpr int kBlock = 256;
constexpr int kGrid = 128;

__device__ __forceinline__ void st_release_sys(uint32_t* p, uint32_t v) {
  asm volatile("st.release.sys.global.u32 [%0], %1;" ::"l"(p), "r"(v) : "memory");
}
__device__ __forceinline__ uint32_t ld_acquire_sys(const uint32_t* p) {
  uint32_t v;
  asm volatile("ld.acquire.sys.global.u32 %0, [%1];" : "=r"(v) : "l"(p) : "memory");
  return v;
}

// Global sum across ranks of a vector: blocks write partial sums, grid.sync(),
// then block 0 exchanges the rank totals. vals[p] is rank p's symmetric array
// of W floats (vals[p][s] = total of rank s); pads[p][s] is written only by s.
__global__ void global_sum(float** vals, uint32_t** pads, const float* in, float* partials,
                           float* out, int rank, int world_size, int64_t n, uint32_t epoch) {
  __shared__ float red[kBlock];
  cg::grid_group grid = cg::this_grid();
  if ((int64_t)blockIdx.x * blockDim.x >= n) return;
  float s = 0.f;
  for (int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += (int64_t)gridDim.x * blockDim.x) s += in[i];
  red[threadIdx.x] = s;
  __syncthreads();
  for (int w = blockDim.x / 2; w > 0; w >>= 1) {
    if (threadIdx.x < w) red[threadIdx.x] += red[threadIdx.x + w];
    __syncthreads();
  }
  if (threadIdx.x == 0) partials[blockIdx.x] = red[0];
  grid.sync();  // expect: BAR-001
  if (blockIdx.x != 0) return;
  if (threadIdx.x == 0) {
    float total = 0.f;
    for (int b = 0; b < gridDim.x; ++b) total += partials[b];
    red[0] = total;
  }
  __syncthreads();
  if (threadIdx.x < world_size) {
    const int peer = threadIdx.x;
    vals[peer][rank] = red[0];
    st_release_sys(pads[peer] + rank, 2 * epoch);
    while (ld_acquire_sys(pads[rank] + peer) < 2 * epoch) {
    }
  }
  __syncthreads();
  if (threadIdx.x == 0) {
    float sum = 0.f;
    for (int p = 0; p < world_size; ++p) sum += vals[rank][p];
    out[0] = sum;
  }
  __syncthreads();
  if (threadIdx.x < world_size) {
    const int peer = threadIdx.x;
    st_release_sys(pads[peer] + rank, 2 * epoch + 1);
    while (ld_acquire_sys(pads[rank] + peer) < 2 * epoch + 1) {
    }
  }
}

cudaError_t launch_global_sum(float** vals, uint32_t** pads, const float* in, float* partials,
                              float* out, int rank, int world_size, int64_t n,
                              cudaStream_t stream) {
  static uint32_t epoch = 0;
  ++epoch;
  void* args[] = {&vals, &pads, &in, &partials, &out, &rank, &world_size, &n, &epoch};
  return cudaLaunchCooperativeKernel((void*)global_sum, dim3(kGrid), dim3(kBlock), args, 0, stream);
}
