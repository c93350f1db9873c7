// sig001_04_addrtab.cu: BUG(SIG-001) the flags live right after the W*m fp16 values of the symmetric buffer, so when W*m is odd every 32-bit flag is only 2-byte aligned (misaligned st.release / ld.acquire). FIX: round the flag offset up to a multiple of 16 bytes.
#include <cuda_fp16.h>
#include <cuda_runtime.h>
#include <stdint.h>

constexpr int kBlock = 256;
constexpr int kGrid = 8;
constexpr int kMaxRanks = 8;

// buffer_ptrs[p]: address of rank p's symmetric buffer laid out as
// [W*m halves of gathered data][kGrid * 8 uint32 flags].
__device__ __forceinline__ uint32_t* flag_area(const int64_t* buffer_ptrs, int p, int64_t total) {
  return reinterpret_cast<uint32_t*>(reinterpret_cast<__half*>(buffer_ptrs[p]) + total);
}

__device__ __forceinline__ void block_barrier(const int64_t* buffer_ptrs, int rank,
                                              int world_size, int64_t total, uint32_t value) {
  __syncthreads();
  if (threadIdx.x < world_size) {
    const int peer = threadIdx.x;
    uint32_t* remote = flag_area(buffer_ptrs, peer, total) + blockIdx.x * kMaxRanks + rank;
    asm volatile("st.release.sys.global.u32 [%0], %1;" ::"l"(remote), "r"(value) : "memory");  // expect: SIG-001
    const uint32_t* flag = flag_area(buffer_ptrs, rank, total) + blockIdx.x * kMaxRanks + peer;
    uint32_t seen;
    do {
      asm volatile("ld.acquire.sys.global.u32 %0, [%1];" : "=r"(seen) : "l"(flag) : "memory");
    } while (seen < value);
  }
  __syncthreads();
}

// Push all-gather of m halves per rank into every peer's symmetric buffer.
__global__ void allgather_f16(const int64_t* buffer_ptrs, const __half* in, __half* out, int rank,
                              int world_size, int64_t m, uint32_t epoch) {
  const int64_t tid = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
  const int64_t stride = (int64_t)gridDim.x * blockDim.x;
  const int64_t total = (int64_t)world_size * m;
  for (int p = 0; p < world_size; ++p) {
    __half* dst = reinterpret_cast<__half*>(buffer_ptrs[p]) + rank * m;
    for (int64_t j = tid; j < m; j += stride) dst[j] = in[j];
  }
  block_barrier(buffer_ptrs, rank, world_size, total, 2 * epoch);
  const __half* mine = reinterpret_cast<const __half*>(buffer_ptrs[rank]);
  for (int q = 0; q < world_size; ++q)
    for (int64_t j = tid; j < m; j += stride) out[q * m + j] = mine[q * m + j];
  block_barrier(buffer_ptrs, rank, world_size, total, 2 * epoch + 1);
}

void launch_allgather_f16(const int64_t* buffer_ptrs, const __half* in, __half* out, int rank,
                          int world_size, int64_t m, cudaStream_t stream) {
  static uint32_t epoch = 0;
  ++epoch;
  allgather_f16<<<kGrid, kBlock, 0, stream>>>(buffer_ptrs, in, out, rank, world_size, m, epoch);
}
