// sig001_05_peerview.cu: BUG(SIG-001) the parameterised barrier kernel's exit launch binds the pad offset to 16380 words (byte 65520): rank r's slot slot + rank lies at byte 65520 + 4r, so for W >= 5 the slots of rank 4 (byte 65536) and higher ranks lie outside the 64 KiB signal pad; the entry and middle launches (0, 8) are fine, and the finding names the launch that binds the bad slot (docs/checkers.md, "Launch-site specialization"). FIX: keep every launch's slot range inside the pad, e.g. kExit = 2 * PKB_MAX_RANKS as in correct/c32_param_barrier_launches_peerview.cu.
#include <cuda_runtime.h>
#include <stdint.h>

#include "pkb/pkb_abi.h"

constexpr uint32_t kEntry = 0, kMid = PKB_MAX_RANKS, kExit = 16380;

__device__ __forceinline__ void st_release_sys(uint32_t* p, uint32_t v) {
  asm volatile("st.release.sys.global.u32 [%0], %1;" ::"l"(p), "r"(v) : "memory");
}
__device__ __forceinline__ uint32_t ld_acquire_sys(const uint32_t* p) {
  uint32_t v;
  asm volatile("ld.acquire.sys.global.u32 %0, [%1];" : "=r"(v) : "l"(p) : "memory");
  return v;
}

// One block of PKB_MAX_RANKS threads; thread p signals rank p and waits for it.
__global__ void barrier(pkb_peer_view view, uint32_t slot, uint32_t epoch) {
  const int p = threadIdx.x;
  if (p >= view.world_size) return;
  __threadfence_system();
  st_release_sys(view.signal_pads[p] + slot + view.rank, epoch);  // expect: SIG-001
  while (ld_acquire_sys(view.signal_pads[view.rank] + slot + p) < epoch) {
  }
}

// y = sum over ranks of x, read from every peer's symmetric buffer.
__global__ void reduce(pkb_peer_view view, float* y, size_t n) {
  for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x) {
    float acc = 0.f;
    for (int p = 0; p < view.world_size; ++p) acc += static_cast<const float*>(view.peers[p])[i];
    y[i] = acc;
  }
}

extern "C" int pkb_candidate_run(pkb_context* ctx, const pkb_tensor* in, int num_in, pkb_tensor* out, int num_out) {
  cudaStream_t s = static_cast<cudaStream_t>(ctx->stream);
  const size_t n = (size_t)in[0].shape[0];
  const uint32_t epoch = (uint32_t)ctx->call_index + 1;
  cudaMemcpyAsync(ctx->symm[0].local, in[0].data, n * sizeof(float), cudaMemcpyDeviceToDevice, s);
  barrier<<<1, PKB_MAX_RANKS, 0, s>>>(ctx->view, kEntry, epoch);
  reduce<<<16, 256, 0, s>>>(ctx->view, static_cast<float*>(out[0].data), n);
  barrier<<<1, PKB_MAX_RANKS, 0, s>>>(ctx->view, kMid, epoch);
  barrier<<<1, PKB_MAX_RANKS, 0, s>>>(ctx->view, kExit, epoch);
  return 0;
}
