// bar003_03_coop.cu: BUG(BAR-003) block 0 signals "data pushed" on behalf of the whole grid after only a __syncthreads(), so the pushes made by blocks 1..G-1 are not ordered before the flag. FIX: grid.sync() before block 0 signals (as the exit path already does).
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

// Ring shift with one grid-wide handshake per phase: every block pushes its
// slice of `in` into the next rank's recv buffer; block 0 signals for the grid.
// pads[p][s] is written only by rank s (2e = pushed, 2e + 1 = consumed).
__global__ void ring_shift_coop(float** recv, uint32_t** pads, const float* in, float* out,
                                int rank, int world_size, int64_t n, uint32_t epoch) {
  cg::grid_group grid = cg::this_grid();
  const int64_t tid = grid.thread_rank();
  const int64_t stride = grid.size();
  const int prev = (rank + world_size - 1) % world_size;
  const int next = (rank + 1) % world_size;
  for (int64_t i = tid; i < n; i += stride) recv[next][i] = in[i];
  __syncthreads();
  if (blockIdx.x == 0 && threadIdx.x == 0) {
    st_release_sys(pads[next] + rank, 2 * epoch);  // expect: BAR-003
    while (ld_acquire_sys(pads[rank] + prev) < 2 * epoch) {
    }
  }
  grid.sync();
  for (int64_t i = tid; i < n; i += stride) out[i] = recv[rank][i];
  grid.sync();
  if (blockIdx.x == 0 && threadIdx.x == 0) {
    st_release_sys(pads[prev] + rank, 2 * epoch + 1);
    while (ld_acquire_sys(pads[rank] + next) < 2 * epoch + 1) {
    }
  }
}

cudaError_t launch_ring_shift(float** recv, uint32_t** pads, const float* in, float* out,
                              int rank, int world_size, int64_t n, cudaStream_t stream) {
  static uint32_t epoch = 0;
  ++epoch;
  void* args[] = {&recv, &pads, &in, &out, &rank, &world_size, &n, &epoch};
  return cudaLaunchCooperativeKernel((void*)ring_shift_coop, dim3(kGrid), dim3(kBlock), args, 0,
                                     stream);
}
