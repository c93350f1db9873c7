// race003_01_rawptr.cu: BUG(RACE-003) all W ranks apply acc[p][j] += v to the same peer elements with plain loads and stores, so concurrent read-modify-writes lose updates. FIX: atomicAdd_system(&acc[p][j], v) (or pull-reduce: each rank sums its chunk from the peers' inputs).
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

// Reduce-scatter by push-accumulate: every rank adds its slice of chunk p into
// acc[p] (rank p's symmetric accumulator, C = ceil(n / W) floats).
__global__ void reduce_scatter_push(float** acc, uint32_t** pads, const float* in, float* out,
                                    int rank, int world_size, int64_t n, uint32_t epoch) {
  const int64_t tid = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
  const int64_t stride = (int64_t)gridDim.x * blockDim.x;
  const int64_t C = (n + world_size - 1) / world_size;
  for (int64_t j = tid; j < C; j += stride) acc[rank][j] = 0.f;
  block_barrier(pads, rank, world_size, 3 * epoch - 2);
  for (int s = 0; s < world_size; ++s) {
    const int p = (rank + s) % world_size;
    const int64_t len = max((int64_t)0, min(C, n - p * C));
    for (int64_t j = tid; j < len; j += stride) acc[p][j] += in[p * C + j];  // expect: RACE-003
  }
  block_barrier(pads, rank, world_size, 3 * epoch - 1);
  const int64_t my_len = max((int64_t)0, min(C, n - rank * C));
  for (int64_t j = tid; j < my_len; j += stride) out[j] = acc[rank][j];
  block_barrier(pads, rank, world_size, 3 * epoch);
}

void launch_reduce_scatter(float** acc, uint32_t** pads, const float* in, float* out, int rank,
                           int world_size, int64_t n, cudaStream_t stream) {
  static uint32_t epoch = 0;
  ++epoch;
  reduce_scatter_push<<<kGrid, kBlock, 0, stream>>>(acc, pads, in, out, rank, world_size, n, epoch);
}
