// c10_counter_barrier_ptx.cu: CORRECT one-shot bf16 all-reduce with a monotonic counter barrier: each rank red.release.sys.global.add's 1 into counter[block] of every rank, thread 0 ld.acquire.sys-polls its own counter until W * instance, then __syncthreads; the counter is never reset.
#include <cuda_bf16.h>
#include <cuda_runtime.h>
#include <stdint.h>

constexpr int kBlock = 512;
constexpr int kGrid = 24;

__device__ __forceinline__ uint32_t ld_acquire_sys(const uint32_t* p) {
  uint32_t v;
  asm volatile("ld.acquire.sys.global.u32 %0, [%1];" : "=r"(v) : "l"(p) : "memory");
  return v;
}

// Instance k (k = 1, 2, ... over the lifetime of the pads) completes when
// counter[block] reaches W * k: no rank can arrive at k + 1 before every rank
// arrived at k, because arriving at k + 1 requires having seen W * k.
__device__ __forceinline__ void counter_barrier(uint32_t** pads, int rank, int world_size,
                                                uint32_t instance) {
  __syncthreads();
  if (threadIdx.x < world_size)
    asm volatile("red.release.sys.global.add.u32 [%0], %1;" ::"l"(pads[threadIdx.x] + blockIdx.x), "r"(1u) : "memory");
  if (threadIdx.x == 0) {
    while (ld_acquire_sys(pads[rank] + blockIdx.x) < (uint32_t)world_size * instance) {
    }
  }
  __syncthreads();
}

__global__ void allreduce_bf16(__nv_bfloat16** bufs, uint32_t** pads, const __nv_bfloat16* in,
                               __nv_bfloat16* out, int rank, int world_size, int64_t n,
                               uint32_t call) {
  const int64_t tid = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
  const int64_t stride = (int64_t)gridDim.x * blockDim.x;
  for (int64_t i = tid; i < n; i += stride) bufs[rank][i] = in[i];
  counter_barrier(pads, rank, world_size, 2 * call - 1);
  for (int64_t i = tid; i < n; i += stride) {
    float acc = 0.f;
    for (int p = 0; p < world_size; ++p) acc += __bfloat162float(bufs[p][i]);
    out[i] = __float2bfloat16(acc);
  }
  counter_barrier(pads, rank, world_size, 2 * call);
}

void launch_allreduce_bf16(__nv_bfloat16** bufs, uint32_t** pads, const __nv_bfloat16* in,
                           __nv_bfloat16* out, int rank, int world_size, int64_t n,
                           cudaStream_t stream) {
  static uint32_t call = 0;
  ++call;
  allreduce_bf16<<<kGrid, kBlock, 0, stream>>>(bufs, pads, in, out, rank, world_size, n, call);
}
