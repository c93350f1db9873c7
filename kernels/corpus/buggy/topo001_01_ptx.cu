// topo001_01_ptx.cu: BUG(TOPO-001) the all-reduce reads through multimem.ld_reduce on a multicast address unconditionally; the default target (2 x H200 over NVLink, no NVLS multicast) has no multicast object, so mc_buf is null / the instruction faults. FIX: take this path only when a multicast pointer exists (mc_buf != nullptr), else fall back to per-peer loads.
#include <cuda_runtime.h>
#include <stdint.h>

constexpr int kBlock = 512;
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

// One-shot all-reduce through NVLink SHARP: bufs[rank] is this rank's unicast
// mapping of the symmetric buffer, mc_buf the multicast mapping of the same
// buffer on all ranks; multimem.ld_reduce sums element i over every rank.
__global__ void allreduce_multimem(float** bufs, float* mc_buf, uint32_t** pads, const float* in,
                                   float* out, int rank, int world_size, int64_t n,
                                   uint32_t epoch) {
  const int64_t tid = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
  const int64_t stride = (int64_t)gridDim.x * blockDim.x;
  for (int64_t i = tid; i < n; i += stride) bufs[rank][i] = in[i];
  block_barrier(pads, rank, world_size, 2 * epoch);
  for (int64_t i = tid; i < n; i += stride) {
    float sum;
    asm volatile("multimem.ld_reduce.relaxed.sys.global.add.f32 %0, [%1];" : "=f"(sum) : "l"(mc_buf + i) : "memory");  // expect: TOPO-001
    out[i] = sum;
  }
  block_barrier(pads, rank, world_size, 2 * epoch + 1);
}

void launch_allreduce(float** bufs, float* mc_buf, uint32_t** pads, const float* in, float* out,
                      int rank, int world_size, int64_t n, cudaStream_t stream) {
  static uint32_t epoch = 0;
  ++epoch;
  allreduce_multimem<<<kGrid, kBlock, 0, stream>>>(bufs, mc_buf, pads, in, out, rank, world_size,
                                                   n, epoch);
}
