// sig002_05_peerview.cu: BUG(SIG-002) the epoch is kept on the device (__device__ g_calls, zero at module load): the barrier signals and waits for g_calls + 1, but g_calls is advanced only in mode kAdvance, which neither launch passes (entry kEnter, exit kLeave), so every call signals and waits for 1 and from the second call on the waits pass at once. FIX: advance g_calls in the exit launch (mode == kLeave).
#include <cuda_runtime.h>
#include <stdint.h>

#include "pkb/pkb_abi.h"

enum Mode : int { kEnter = 0, kLeave = 1, kAdvance = 2 };

__device__ uint32_t g_calls;  // finished calls of this rank

__device__ __forceinline__ void st_release_sys(uint32_t* p, uint32_t v) {
  asm volatile("st.release.sys.global.u32 [%0], %1;" ::"l"(p), "r"(v) : "memory");
}
__device__ __forceinline__ uint32_t ld_acquire_sys(const uint32_t* p) {
  uint32_t v;
  asm volatile("ld.acquire.sys.global.u32 %0, [%1];" : "=r"(v) : "l"(p) : "memory");
  return v;
}

// One block of PKB_MAX_RANKS threads; thread p signals rank p and waits for it.
__global__ void barrier(pkb_peer_view view, uint32_t slot, int mode) {
  const uint32_t epoch = g_calls + 1;
  const int p = threadIdx.x;
  if (p < view.world_size) {
    __threadfence_system();
    st_release_sys(view.signal_pads[p] + slot + view.rank, epoch);
    while (ld_acquire_sys(view.signal_pads[view.rank] + slot + p) < epoch) {  // expect: SIG-002
    }
  }
  __syncthreads();  // every thread read g_calls before it changes
  if (mode == kAdvance && threadIdx.x == 0) g_calls = epoch;
}

// y = sum over ranks of x, read from every peer's symmetric buffer.
__global__ void reduce(pkb_peer_view view, float* y, size_t n) {
  for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x) {
    float acc = 0.f;
    for (int p = 0; p < view.world_size; ++p) acc += static_cast<const float*>(view.peers[p])[i];
    y[i] = acc;
  }
}

extern "C" int pkb_candidate_run(pkb_context* ctx, const pkb_tensor* in, int, pkb_tensor* out, int) {
  cudaStream_t s = static_cast<cudaStream_t>(ctx->stream);
  const size_t n = (size_t)in[0].shape[0];
  cudaMemcpyAsync(ctx->symm[0].local, in[0].data, n * sizeof(float), cudaMemcpyDeviceToDevice, s);
  barrier<<<1, PKB_MAX_RANKS, 0, s>>>(ctx->view, 0, kEnter);
  reduce<<<16, 256, 0, s>>>(ctx->view, static_cast<float*>(out[0].data), n);
  barrier<<<1, PKB_MAX_RANKS, 0, s>>>(ctx->view, PKB_MAX_RANKS, kLeave);
  return 0;
}
