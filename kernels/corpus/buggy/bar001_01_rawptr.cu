// bar001_01_rawptr.cu: BUG(BAR-001) __syncthreads() sits inside if (i < n); in the last, partial tile the threads past n skip it while the others wait (divergent barrier, undefined behaviour / hang). FIX: hoist the barrier out of the branch (compute tile[] for all threads, guard only the loads and the store).
#include <cuda_runtime.h>
#include <stdint.h>

constexpr int kBlock = 256;
constexpr int kGrid = 16;
constexpr int kMaxRanks = 8;

__device__ __forceinline__ void block_barrier(uint32_t** pads, int rank, int world_size,
                                              uint32_t value) {
  __syncthreads();
  if (threadIdx.x < world_size) {
    const int peer = threadIdx.x;
    uint32_t* remote = pads[peer] + blockIdx.x * kMaxRanks + rank;
    asm volatile("st.release.sys.global.u32 [%0], %1;" ::"l"(remote), "r"(value) : "memory");
    const uint32_t* flag = pads[rank] + blockIdx.x * kMaxRanks + peer;
    uint32_t seen;
    do {
      asm volatile("ld.acquire.sys.global.u32 %0, [%1];" : "=r"(seen) : "l"(flag) : "memory");
    } while (seen < value);
  }
  __syncthreads();
}

// All-reduce fused with a 2-tap smoothing filter inside each 256-element tile
// (the last element of a tile, or of the tensor, is passed through).
__global__ void allreduce_smooth(float** bufs, uint32_t** pads, const float* in, float* out,
                                 int rank, int world_size, int64_t n, uint32_t epoch) {
  __shared__ float tile[kBlock];
  const int64_t stride = (int64_t)gridDim.x * blockDim.x;
  for (int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride)
    bufs[rank][i] = in[i];
  block_barrier(pads, rank, world_size, 2 * epoch);
  for (int64_t base = (int64_t)blockIdx.x * blockDim.x; base < n; base += stride) {
    const int64_t i = base + threadIdx.x;
    if (i < n) {
      float acc = 0.f;
      for (int p = 0; p < world_size; ++p) acc += bufs[p][i];
      tile[threadIdx.x] = acc;
      __syncthreads();  // expect: BAR-001
      const bool last = threadIdx.x + 1 == blockDim.x || i + 1 == n;
      out[i] = last ? acc : 0.5f * (acc + tile[threadIdx.x + 1]);
    }
    __syncthreads();
  }
  block_barrier(pads, rank, world_size, 2 * epoch + 1);
}

void launch_allreduce_smooth(float** bufs, uint32_t** pads, const float* in, float* out, int rank,
                             int world_size, int64_t n, cudaStream_t stream) {
  static uint32_t epoch = 0;
  ++epoch;
  allreduce_smooth<<<kGrid, kBlock, 0, stream>>>(bufs, pads, in, out, rank, world_size, n, epoch);
}
