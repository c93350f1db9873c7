// ord005_02_ptx.cu: BUG(ORD-005) senders raise the 32-bit flag with a 16-bit st.release.sys.u16 while the waiter polls it with a 32-bit ld.acquire.sys.u32; partially overlapping accesses are not morally strong, so release/acquire does not synchronize. FIX: store the flag with st.release.sys.global.u32.
#include <cuda_runtime.h>
#include <stdint.h>

constexpr int kBlock = 256;
constexpr int kGrid = 8;
constexpr int kMaxRanks = 8;

// Barrier over all ranks for the same-numbered block. `region` selects the
// start (0) or exit (1) flag array so that each flag advances once per call
// and can be compared for equality with the 16-bit call number.
__device__ __forceinline__ void block_barrier(uint32_t** pads, int rank, int world_size,
                                              int region, uint32_t epoch) {
  const int base = region * kGrid * kMaxRanks + blockIdx.x * kMaxRanks;
  const uint32_t target = epoch & 0xffffu;
  __syncthreads();
  if (threadIdx.x < world_size) {
    const int peer = threadIdx.x;
    uint32_t* remote = pads[peer] + base + rank;
    asm volatile("st.release.sys.global.u16 [%0], %1;" ::"l"(remote), "h"((unsigned short)target) : "memory");
    const uint32_t* flag = pads[rank] + base + peer;
    uint32_t seen;
    do { asm volatile("ld.acquire.sys.global.u32 %0, [%1];" : "=r"(seen) : "l"(flag) : "memory"); } while (seen != target);  // expect: ORD-005
  }
  __syncthreads();
}

// Broadcast (pull): the root stages its input; every other rank copies it.
__global__ void broadcast_pull(float** stage, uint32_t** pads, const float* in, float* out,
                               int rank, int world_size, int root, int64_t n, uint32_t epoch) {
  if (root < 0 || root >= world_size) return;  // uniform on every thread and rank
  const int64_t tid = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
  const int64_t stride = (int64_t)gridDim.x * blockDim.x;
  if (rank == root)
    for (int64_t i = tid; i < n; i += stride) stage[root][i] = in[i];
  block_barrier(pads, rank, world_size, 0, epoch);
  const float* src = stage[root];
  for (int64_t i = tid; i < n; i += stride) out[i] = src[i];
  block_barrier(pads, rank, world_size, 1, epoch);
}

void launch_broadcast(float** stage, uint32_t** pads, const float* in, float* out, int rank,
                      int world_size, int root, int64_t n, cudaStream_t stream) {
  static uint32_t epoch = 0;
  ++epoch;
  broadcast_pull<<<kGrid, kBlock, 0, stream>>>(stage, pads, in, out, rank, world_size, root, n,
                                               epoch);
}
