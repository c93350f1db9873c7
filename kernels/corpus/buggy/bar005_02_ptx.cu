// bar005_02_ptx.cu: BUG(BAR-005) grid-wide spin barrier (red.release.gpu + ld.acquire.gpu) in a kernel whose grid is ceil(n / 1024) blocks from a plain launch: nothing guarantees all blocks are co-resident, so large n deadlocks. FIX: launch cooperatively with an occupancy-bounded grid and loop over the data.
#include <cuda_runtime.h>
#include <stdint.h>

constexpr int kBlock = 256;
constexpr int kPerThread = 4;

__device__ __forceinline__ void grid_barrier(unsigned int* counter, unsigned int target) {
  __syncthreads();
  if (threadIdx.x == 0) {
    unsigned int seen;
    asm volatile("red.release.gpu.global.add.u32 [%0], %1;" ::"l"(counter), "r"(1u) : "memory");
    do { asm volatile("ld.acquire.gpu.global.u32 %0, [%1];" : "=r"(seen) : "l"(counter) : "memory"); } while (seen < target);  // expect: BAR-005
  }
  __syncthreads();
}

__device__ __forceinline__ void st_release_sys(uint32_t* p, uint32_t v) {
  asm volatile("st.release.sys.global.u32 [%0], %1;" ::"l"(p), "r"(v) : "memory");
}
__device__ __forceinline__ uint32_t ld_acquire_sys(const uint32_t* p) {
  uint32_t v;
  asm volatile("ld.acquire.sys.global.u32 %0, [%1];" : "=r"(v) : "l"(p) : "memory");
  return v;
}

// Reduce-scatter (sum), chunk r = [r*C, min(n, (r+1)*C)), C = ceil(n / W).
// Block 0 does the cross-rank handshake for the grid (pads[p][s] by rank s).
__global__ void reduce_scatter_grid(float** bufs, uint32_t** pads, unsigned int* grid_counter,
                                    const float* in, float* out, int rank, int world_size,
                                    int64_t n, uint32_t epoch) {
  const int64_t C = (n + world_size - 1) / world_size;
  const int64_t base = ((int64_t)blockIdx.x * blockDim.x + threadIdx.x) * kPerThread;
  for (int k = 0; k < kPerThread; ++k)
    if (base + k < n) bufs[rank][base + k] = in[base + k];
  grid_barrier(grid_counter, gridDim.x);
  if (blockIdx.x == 0 && threadIdx.x < world_size) {
    st_release_sys(pads[threadIdx.x] + rank, 2 * epoch);
    while (ld_acquire_sys(pads[rank] + threadIdx.x) < 2 * epoch) {
    }
  }
  grid_barrier(grid_counter, 2 * gridDim.x);
  const int64_t my_len = max((int64_t)0, min(C, n - rank * C));
  for (int k = 0; k < kPerThread; ++k) {
    const int64_t j = base + k;
    if (j < my_len) {
      float acc = 0.f;
      for (int p = 0; p < world_size; ++p) acc += bufs[p][rank * C + j];
      out[j] = acc;
    }
  }
  grid_barrier(grid_counter, 3 * gridDim.x);
  if (blockIdx.x == 0 && threadIdx.x < world_size) {
    st_release_sys(pads[threadIdx.x] + rank, 2 * epoch + 1);
    while (ld_acquire_sys(pads[rank] + threadIdx.x) < 2 * epoch + 1) {
    }
  }
}

void launch_reduce_scatter(float** bufs, uint32_t** pads, unsigned int* grid_counter,
                           const float* in, float* out, int rank, int world_size, int64_t n,
                           cudaStream_t stream) {
  if (n == 0) return;  // same decision on every rank
  static uint32_t epoch = 0;
  ++epoch;
  const unsigned int grid = (unsigned int)((n + kBlock * kPerThread - 1) / (kBlock * kPerThread));
  cudaMemsetAsync(grid_counter, 0, sizeof(unsigned int), stream);
  reduce_scatter_grid<<<grid, kBlock, 0, stream>>>(bufs, pads, grid_counter, in, out, rank,
                                                   world_size, n, epoch);
}
