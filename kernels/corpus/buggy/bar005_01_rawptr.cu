// bar005_01_rawptr.cu: BUG(BAR-005) a software grid barrier (atomic counter + spin) in a kernel launched with ceil(n/256) blocks by an ordinary <<<>>> launch; once the grid exceeds what fits on the GPU, resident blocks spin on blocks that can never be scheduled. FIX: cooperative launch (cudaLaunchCooperativeKernel + grid.sync()) with a grid sized from occupancy, and a grid-stride loop.
#include <cuda_runtime.h>
#include <stdint.h>

constexpr int kBlock = 256;

__device__ __forceinline__ void grid_barrier(unsigned int* counter, unsigned int target) {
  __syncthreads();
  if (threadIdx.x == 0) {
    __threadfence();
    atomicAdd(counter, 1u);
    while (*(volatile unsigned int*)counter < target) {  // expect: BAR-005
    }
    __threadfence();
  }
  __syncthreads();
}

// One-shot all-reduce with a single cross-rank handshake done by block 0 for
// the whole grid (pads[p][s] written only by rank s: 2e staged, 2e + 1 done).
// grid_counter is local scratch zeroed by the host before every launch.
__global__ void allreduce_grid(float** bufs, uint32_t** pads, unsigned int* grid_counter,
                               const float* in, float* out, int rank, int world_size, int64_t n,
                               uint32_t epoch) {
  const int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) bufs[rank][i] = in[i];
  grid_barrier(grid_counter, gridDim.x);
  if (blockIdx.x == 0 && threadIdx.x < world_size) {
    const int peer = threadIdx.x;
    __threadfence_system();
    *(volatile uint32_t*)(pads[peer] + rank) = 2 * epoch;
    while (*(volatile uint32_t*)(pads[rank] + peer) < 2 * epoch) {
    }
    __threadfence_system();
  }
  grid_barrier(grid_counter, 2 * gridDim.x);
  if (i < n) {
    float acc = 0.f;
    for (int p = 0; p < world_size; ++p) acc += bufs[p][i];
    out[i] = acc;
  }
  grid_barrier(grid_counter, 3 * gridDim.x);
  if (blockIdx.x == 0 && threadIdx.x < world_size) {
    const int peer = threadIdx.x;
    __threadfence_system();
    *(volatile uint32_t*)(pads[peer] + rank) = 2 * epoch + 1;
    while (*(volatile uint32_t*)(pads[rank] + peer) < 2 * epoch + 1) {
    }
    __threadfence_system();
  }
}

void launch_allreduce(float** bufs, uint32_t** pads, unsigned int* grid_counter, const float* in,
                      float* out, int rank, int world_size, int64_t n, cudaStream_t stream) {
  if (n == 0) return;  // same decision on every rank
  static uint32_t epoch = 0;
  ++epoch;
  const unsigned int grid = (unsigned int)((n + kBlock - 1) / kBlock);
  cudaMemsetAsync(grid_counter, 0, sizeof(unsigned int), stream);
  allreduce_grid<<<grid, kBlock, 0, stream>>>(bufs, pads, grid_counter, in, out, rank, world_size,
                                              n, epoch);
}
