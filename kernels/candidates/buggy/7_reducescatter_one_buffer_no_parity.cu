// BUGGY ON PURPOSE (pkbcheck test candidate). Bug: CROSS-CALL REUSE.
// Copy of 7_reducescatter_two_buffers.cu that always uses buffer 0 (the call
// parity was dropped) but keeps the single entry barrier and no exit barrier:
// in call c+1 a rank overwrites buffer 0 with its new x while a slower peer is
// still reading call c's data from it. The two-buffer argument of the correct
// file needs the parity. Expected GPU verdict: wrong-output from a
// back-to-back call (call >= 1).
// PKB problem 7, bf16 reduce-scatter, raw pointer tables.
#include <pkb/pkb_abi.h>

#include <cuda_bf16.h>
#include <cuda_runtime.h>
#include <stdint.h>

namespace {
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

__global__ void entryBarrier(uint32_t *const *Pads, int R, int W,
                             uint32_t Epoch) {
  int P = threadIdx.x;
  if (P >= W)
    return;
  __threadfence_system();
  storeRelease(Pads[P] + R, Epoch);
  while (loadAcquire(Pads[R] + P) < Epoch) {
  }
}

__global__ void reduceChunk(void *const *Buf, int R, int W, __nv_bfloat16 *Y,
                            size_t N) {
  for (size_t I = blockIdx.x * size_t(blockDim.x) + threadIdx.x; I < N;
       I += size_t(gridDim.x) * blockDim.x) {
    float Acc = 0.f;
    for (int P = 0; P < W; ++P)
      Acc += __bfloat162float(
          static_cast<const __nv_bfloat16 *>(Buf[P])[size_t(R) * N + I]);
    Y[I] = __float2bfloat16_rn(Acc);
  }
}

inline size_t numel(const pkb_tensor &T) {
  size_t N = 1;
  for (int I = 0; I < T.ndim; ++I)
    N *= size_t(T.shape[I]);
  return N;
}
} // namespace

extern "C" int pkb_candidate_query(const pkb_context *Ctx, const pkb_tensor *In,
                                   int NumIn, const pkb_tensor *Out, int NumOut,
                                   pkb_requirements *Req) {
  if (NumIn != 1 || NumOut != 1 || In[0].dtype != PKB_DTYPE_BF16)
    return 1;
  Req->num_symm_buffers = 2;
  Req->symm_bytes[0] = Req->symm_bytes[1] = numel(In[0]) * 2;
  Req->workspace_bytes = 0;
  return 0;
}

extern "C" int pkb_candidate_setup(pkb_context *Ctx) {
  return Ctx->world_size <= PKB_MAX_RANKS && Ctx->num_symm_buffers >= 2 ? 0 : 1;
}

extern "C" int pkb_candidate_run(pkb_context *Ctx, const pkb_tensor *In,
                                 int NumIn, pkb_tensor *Out, int NumOut) {
  cudaStream_t S = static_cast<cudaStream_t>(Ctx->stream);
  size_t Total = numel(In[0]), N = numel(Out[0]);
  int B = 0; // BUG: should alternate with call_index & 1
  if (Total != N * size_t(Ctx->world_size) || Total * 2 > Ctx->symm[B].bytes)
    return 2;
  if (cudaMemcpyAsync(Ctx->symm[B].local, In[0].data, Total * 2,
                      cudaMemcpyDeviceToDevice, S) != cudaSuccess)
    return 3;
  entryBarrier<<<1, PKB_MAX_RANKS, 0, S>>>(Ctx->signal_pads, Ctx->rank,
                                           Ctx->world_size,
                                           uint32_t(Ctx->call_index) + 1);
  size_t G = (N + 255) / 256;
  reduceChunk<<<int(G > 64 ? 64 : G), 256, 0, S>>>(
      Ctx->symm[B].peers, Ctx->rank, Ctx->world_size,
      static_cast<__nv_bfloat16 *>(Out[0].data), N);
  return cudaGetLastError() == cudaSuccess ? 0 : 4;
}
