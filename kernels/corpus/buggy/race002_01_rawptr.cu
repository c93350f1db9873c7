// race002_01_rawptr.cu: BUG(RACE-002) in-place all-reduce: each rank overwrites bufs[rank][i] with the sum while peers may still be reading bufs[rank][i] for their own sums in the same phase, so they can add an already-reduced value. FIX: write the sum to a separate output (or a second symmetric buffer) and copy back only after a barrier.
#include <cuda_runtime.h>
#include <stdint.h>

constexpr int kBlock = 256;
constexpr int kGrid = 32;
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

// In-place all-reduce of the symmetric buffers bufs[p] (n floats each); the
// caller has written its contribution into bufs[rank] on this stream.
__global__ void allreduce_inplace(float** bufs, uint32_t** pads, int rank, int world_size,
                                  int64_t n, uint32_t epoch) {
  const int64_t stride = (int64_t)gridDim.x * blockDim.x;
  block_barrier(pads, rank, world_size, 2 * epoch);
  for (int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride) {
    float acc = 0.f;
    for (int p = 0; p < world_size; ++p) acc += bufs[p][i];
    bufs[rank][i] = acc;  // expect: RACE-002
  }
  block_barrier(pads, rank, world_size, 2 * epoch + 1);
}

void launch_allreduce_inplace(float** bufs, uint32_t** pads, int rank, int world_size, int64_t n,
                              cudaStream_t stream) {
  static uint32_t epoch = 0;
  ++epoch;
  allreduce_inplace<<<kGrid, kBlock, 0, stream>>>(bufs, pads, rank, world_size, n, epoch);
}
