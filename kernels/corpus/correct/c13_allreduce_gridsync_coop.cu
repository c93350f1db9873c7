// c13_allreduce_gridsync_coop.cu: CORRECT one-shot all-reduce as one cooperative kernel: grid.sync() gathers the whole grid's staging, block 0 alone does the cross-rank release/acquire handshake, grid.sync() publishes it; the same again after the reduction as the exit barrier. Launched with cudaLaunchCooperativeKernel and an occupancy-bounded grid.
#include <cooperative_groups.h>
#include <cuda_runtime.h>
#include <stdint.h>

namespace cg = cooperative_groups;

constexpr int kBlock = 256;
constexpr int kMaxGrid = 128;

__device__ __forceinline__ void st_release_sys(uint32_t* p, uint32_t v) {
  asm volatile("st.release.sys.global.u32 [%0], %1;" ::"l"(p), "r"(v) : "memory");
}
__device__ __forceinline__ uint32_t ld_acquire_sys(const uint32_t* p) {
  uint32_t v;
  asm volatile("ld.acquire.sys.global.u32 %0, [%1];" : "=r"(v) : "l"(p) : "memory");
  return v;
}

// All blocks' prior writes -> grid.sync (GPU scope) -> block 0's st.release.sys
// (cumulative) -> peer's ld.acquire.sys -> peer's grid.sync -> peer's reads.
__device__ __forceinline__ void grid_rank_barrier(cg::grid_group& grid, uint32_t** pads, int rank,
                                                  int world_size, uint32_t value) {
  grid.sync();
  if (blockIdx.x == 0 && threadIdx.x < world_size) {
    const int peer = threadIdx.x;
    st_release_sys(pads[peer] + rank, value);
    while (ld_acquire_sys(pads[rank] + peer) < value) {
    }
  }
  grid.sync();
}

// pads[p][s] is written only by rank s; call e uses 2e and 2e + 1.
__global__ void allreduce_coop(float** bufs, uint32_t** pads, const float* in, float* out,
                               int rank, int world_size, int64_t n, uint32_t epoch) {
  cg::grid_group grid = cg::this_grid();
  const int64_t tid = grid.thread_rank();
  const int64_t stride = grid.size();
  for (int64_t i = tid; i < n; i += stride) bufs[rank][i] = in[i];
  grid_rank_barrier(grid, pads, rank, world_size, 2 * epoch);
  for (int64_t i = tid; i < n; i += stride) {
    float acc = 0.f;
    for (int p = 0; p < world_size; ++p) acc += bufs[p][i];
    out[i] = acc;
  }
  grid_rank_barrier(grid, pads, rank, world_size, 2 * epoch + 1);
}

cudaError_t launch_allreduce(float** bufs, uint32_t** pads, const float* in, float* out, int rank,
                             int world_size, int64_t n, cudaStream_t stream) {
  int device = 0, sms = 0, per_sm = 0;
  cudaGetDevice(&device);
  cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device);
  cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, allreduce_coop, kBlock, 0);
  int grid = sms * per_sm;
  if (grid > kMaxGrid) grid = kMaxGrid;
  if (grid < 1) return cudaErrorCooperativeLaunchTooLarge;
  static uint32_t epoch = 0;
  ++epoch;
  void* args[] = {&bufs, &pads, &in, &out, &rank, &world_size, &n, &epoch};
  return cudaLaunchCooperativeKernel((void*)allreduce_coop, dim3(grid), dim3(kBlock), args, 0,
                                     stream);
}
