// bar002_05_peerview.cu: BUG(BAR-002) central counter barrier on rank 0's pad: only the W - 1 non-root ranks add to the counter, but every rank waits until it holds W * epoch (epoch = call_index + 1); the counter stops at (W - 1) * epoch and no rank ever leaves the first barrier. FIX: let every rank arrive, or wait for (W - 1) * epoch.
#include <cuda_runtime.h>
#include <stdint.h>

#include "pkb/pkb_abi.h"

__device__ __forceinline__ uint32_t ld_acquire_sys(const uint32_t* p) {
  uint32_t v;
  asm volatile("ld.acquire.sys.global.u32 %0, [%1];" : "=r"(v) : "l"(p) : "memory");
  return v;
}

// One thread per rank arrives on the counter (word 0 of rank 0's pad) and
// waits for all arrivals of this call; counts accumulate over calls.
__global__ void counter_barrier(pkb_peer_view view, uint32_t epoch) {
  if (threadIdx.x != 0) return;
  uint32_t* counter = view.signal_pads[0];
  if (view.rank != 0) {
    __threadfence_system();
    atomicAdd_system(counter, 1u);
  }
  while (ld_acquire_sys(counter) < view.world_size * epoch) {  // expect: BAR-002
  }
}

extern "C" int pkb_candidate_run(pkb_context* ctx, const pkb_tensor*, int, pkb_tensor*, int) {
  cudaStream_t s = static_cast<cudaStream_t>(ctx->stream);
  counter_barrier<<<1, 32, 0, s>>>(ctx->view, (uint32_t)ctx->call_index + 1);
  return cudaGetLastError() == cudaSuccess ? 0 : 1;
}
