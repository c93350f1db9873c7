// BUGGY ON PURPOSE (pkbcheck test candidate). Bug: NO EXIT BARRIER (cross-call
// reuse). Copy of 1_allreduce_ptr_table.cu without the exit handshake: block b
// returns as soon as it has read [lo, hi) of every peer's buffer, so in the
// next (back-to-back) call it overwrites [lo, hi) of its own buffer with the
// new x while a slower peer's block b may still be summing the old values.
// Expected GPU verdict: wrong-output from a back-to-back call (call >= 1).
// PKB problem 1, bf16 sum all-reduce, raw pointer tables (symm[0].peers,
// signal_pads), one kernel, per-block entry handshake.
#include <pkb/pkb_abi.h>

#include <cuda_bf16.h>
#include <cuda_runtime.h>
#include <stdint.h>

namespace {
constexpr int kMaxGrid = 16;
constexpr uint32_t kIn = 0; // kOut (exit slots) unused: see the bug

__device__ __forceinline__ void storeRelease(uint32_t *P, uint32_t V) {
  asm volatile("st.release.sys.global.u32 [%0], %1;" ::"l"(P), "r"(V)
               : "memory");
}
__device__ __forceinline__ uint32_t loadAcquire(const uint32_t *P) {
  uint32_t V;
  asm volatile("ld.acquire.sys.global.u32 %0, [%1];"
               : "=r"(V)
               : "l"(P)
               : "memory");
  return V;
}

__device__ __forceinline__ void handshake(uint32_t *const *Pads, int R, int W,
                                          uint32_t Slot, uint32_t Epoch) {
  __syncthreads();
  int T = threadIdx.x;
  if (T < W && T != R) {
    __threadfence_system();
    storeRelease(Pads[T] + Slot + R, Epoch);
    while (loadAcquire(Pads[R] + Slot + T) < Epoch) {
    }
  }
  __syncthreads();
}

__global__ void allreduce(void *const *Peers, uint32_t *const *Pads, int R,
                          int W, const __nv_bfloat16 *X, __nv_bfloat16 *Y,
                          size_t N, uint32_t Epoch) {
  size_t Per = (N + gridDim.x - 1) / gridDim.x;
  size_t Lo = blockIdx.x * Per, Hi = Lo + Per < N ? Lo + Per : N;
  __nv_bfloat16 *Mine = static_cast<__nv_bfloat16 *>(Peers[R]);
  for (size_t I = Lo + threadIdx.x; I < Hi; I += blockDim.x)
    Mine[I] = X[I];
  uint32_t B = blockIdx.x * PKB_MAX_RANKS;
  handshake(Pads, R, W, kIn + B, Epoch);
  for (size_t I = Lo + threadIdx.x; I < Hi; I += blockDim.x) {
    float Acc = 0.f;
    for (int P = 0; P < W; ++P)
      Acc += __bfloat162float(static_cast<const __nv_bfloat16 *>(Peers[P])[I]);
    Y[I] = __float2bfloat16_rn(Acc);
  }
  // BUG: no exit handshake on kOut + B.
}
} // namespace

extern "C" int pkb_candidate_query(const pkb_context *Ctx, const pkb_tensor *In,
                                   int NumIn, const pkb_tensor *Out, int NumOut,
                                   pkb_requirements *Req) {
  if (NumIn != 1 || NumOut != 1 || In[0].dtype != PKB_DTYPE_BF16)
    return 1;
  Req->num_symm_buffers = 1;
  Req->symm_bytes[0] = size_t(In[0].shape[0]) * sizeof(__nv_bfloat16);
  Req->workspace_bytes = 0;
  return 0;
}

extern "C" int pkb_candidate_setup(pkb_context *Ctx) {
  return Ctx->world_size <= PKB_MAX_RANKS ? 0 : 1;
}

extern "C" int pkb_candidate_run(pkb_context *Ctx, const pkb_tensor *In,
                                 int NumIn, pkb_tensor *Out, int NumOut) {
  cudaStream_t S = static_cast<cudaStream_t>(Ctx->stream);
  size_t N = size_t(In[0].shape[0]);
  if (N * 2 > Ctx->symm[0].bytes)
    return 2;
  size_t G = (N + 1023) / 1024;
  int Grid = int(G < 1 ? 1 : (G > kMaxGrid ? kMaxGrid : G));
  allreduce<<<Grid, 256, 0, S>>>(Ctx->symm[0].peers, Ctx->signal_pads,
                                 Ctx->rank, Ctx->world_size,
                                 static_cast<const __nv_bfloat16 *>(In[0].data),
                                 static_cast<__nv_bfloat16 *>(Out[0].data), N,
                                 uint32_t(Ctx->call_index) + 1);
  return cudaGetLastError() == cudaSuccess ? 0 : 4;
}
