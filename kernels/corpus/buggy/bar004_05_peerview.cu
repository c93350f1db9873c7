// bar004_05_peerview.cu: BUG(BAR-004) candidate-ABI host code (pkb_candidate_run): each call copies x into symm[0], runs an entry barrier kernel and a reduce kernel that reads every peer's symm[0]; nothing runs after the reduce, so in call k+1 a fast rank's cudaMemcpyAsync overwrites symm[0] while a slow peer still sums call k's data. FIX: launch the barrier kernel again after the reduce (exit barrier), or stage into symm[call_index & 1].
#include <cuda_runtime.h>
#include <stdint.h>

#include "pkb/pkb_abi.h"

constexpr uint32_t kEntry = 0;

__device__ __forceinline__ void st_release_sys(uint32_t* p, uint32_t v) {
  asm volatile("st.release.sys.global.u32 [%0], %1;" ::"l"(p), "r"(v) : "memory");
}
__device__ __forceinline__ uint32_t ld_acquire_sys(const uint32_t* p) {
  uint32_t v;
  asm volatile("ld.acquire.sys.global.u32 %0, [%1];" : "=r"(v) : "l"(p) : "memory");
  return v;
}

// One block of PKB_MAX_RANKS threads; thread p signals rank p's pad slot
// kEntry + rank and waits for slot kEntry + p of its own pad.
__global__ void entry_barrier(pkb_peer_view view, uint32_t epoch) {
  const int p = threadIdx.x;
  if (p >= view.world_size) return;
  __threadfence_system();
  st_release_sys(view.signal_pads[p] + kEntry + view.rank, epoch);
  while (ld_acquire_sys(view.signal_pads[view.rank] + kEntry + p) < epoch) {
  }
}

// y[i] = sum over ranks p of symm_p[i] (floats).
__global__ void reduce(pkb_peer_view view, float* y, int64_t n) {
  const int64_t stride = (int64_t)gridDim.x * blockDim.x;
  for (int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride) {
    float acc = 0.f;
    for (int p = 0; p < view.world_size; ++p) acc += static_cast<const float*>(view.peers[p])[i];
    y[i] = acc;
  }
}

extern "C" int pkb_candidate_setup(pkb_context* ctx) {
  return ctx->world_size <= PKB_MAX_RANKS ? 0 : 1;
}

extern "C" int pkb_candidate_run(pkb_context* ctx, const pkb_tensor* in, int nin,
                                 pkb_tensor* out, int nout) {
  cudaStream_t s = static_cast<cudaStream_t>(ctx->stream);
  const int64_t n = in[0].shape[0];
  if ((size_t)n * sizeof(float) > ctx->symm[0].bytes) return 2;
  const uint32_t epoch = (uint32_t)ctx->call_index + 1;
  cudaMemcpyAsync(ctx->symm[0].local, in[0].data, n * sizeof(float), cudaMemcpyDeviceToDevice, s);  // expect: BAR-004
  entry_barrier<<<1, PKB_MAX_RANKS, 0, s>>>(ctx->view, epoch);
  reduce<<<16, 256, 0, s>>>(ctx->view, static_cast<float*>(out[0].data), n);
  return cudaGetLastError() == cudaSuccess ? 0 : 4;
}
