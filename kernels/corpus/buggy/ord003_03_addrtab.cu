// ord003_03_addrtab.cu: BUG(ORD-003) barrier arrival on the peers' counters uses plain atomicAdd (device scope), which is not a system-scope operation, so the peer's acquire does not synchronize with it. FIX: atomicAdd_system (after __threadfence_system) or red.release.sys.global.add.u32.
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

// Counter barrier for the same-numbered block on every rank: each rank adds 1
// to counter[block] of every rank; instance m completes at world_size * m.
__device__ __forceinline__ void counter_barrier(const int64_t* pad_ptrs, int rank, int world_size,
                                                uint32_t instance) {
  __syncthreads();
  if (threadIdx.x < world_size) {
    uint32_t* counter = reinterpret_cast<uint32_t*>(pad_ptrs[threadIdx.x]) + blockIdx.x;
    __threadfence_system();
    atomicAdd(counter, 1u);  // expect: ORD-003
  }
  if (threadIdx.x == 0) {
    const uint32_t* mine = reinterpret_cast<const uint32_t*>(pad_ptrs[rank]) + blockIdx.x;
    while (ld_acquire_sys(mine) < (uint32_t)world_size * instance) {
    }
  }
  __syncthreads();
}

// One-shot bf16 all-reduce with fp32 accumulation. buffer_ptrs[p] is the
// address of rank p's symmetric staging buffer (n bf16 values).
__global__ void allreduce_bf16(const int64_t* buffer_ptrs, const int64_t* pad_ptrs,
                               const __nv_bfloat16* in, __nv_bfloat16* out, int rank,
                               int world_size, int64_t n, uint32_t call) {
  const int64_t tid = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
  const int64_t stride = (int64_t)gridDim.x * blockDim.x;
  __nv_bfloat16* mine = reinterpret_cast<__nv_bfloat16*>(buffer_ptrs[rank]);
  for (int64_t i = tid; i < n; i += stride) mine[i] = in[i];
  counter_barrier(pad_ptrs, rank, world_size, 2 * call - 1);
  for (int64_t i = tid; i < n; i += stride) {
    float acc = 0.f;
    for (int p = 0; p < world_size; ++p)
      acc += __bfloat162float(reinterpret_cast<const __nv_bfloat16*>(buffer_ptrs[p])[i]);
    out[i] = __float2bfloat16(acc);
  }
  counter_barrier(pad_ptrs, rank, world_size, 2 * call);
}

void launch_allreduce_bf16(const int64_t* buffer_ptrs, const int64_t* pad_ptrs,
                           const __nv_bfloat16* in, __nv_bfloat16* out, int rank,
                           int world_size, int64_t n, cudaStream_t stream) {
  static uint32_t call = 0;
  ++call;
  allreduce_bf16<<<kGrid, kBlock, 0, stream>>>(buffer_ptrs, pad_ptrs, in, out, rank,
                                               world_size, n, call);
}
