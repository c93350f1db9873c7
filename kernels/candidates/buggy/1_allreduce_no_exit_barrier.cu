// BUGGY ON PURPOSE (pkbcheck test candidate). Bug: MISSING TRAILING (EXIT)
// BARRIER. Copy of runtime/testdata/allreduce_oneshot.cu without the exit
// barrier: peers read our symmetric buffer over NVLink in reduceKernel, and
// the next call's cudaMemcpyAsync overwrites that buffer as soon as our own
// reduce finishes, while a slower peer may still be reading the old data.
// Back-to-back calls can then produce sums mixing two calls' inputs.
// A correct (simple, not fast) candidate for PKB problem 1, bf16 sum
// all-reduce. One-shot algorithm over the symmetric heap:
//   1. copy x into this rank's symmetric buffer (copy engine);
//   2. entry barrier: every rank signals every peer's pad, then waits for
//      all peers (system-scope release/acquire; epochs, no re-zeroing);
//   3. y[i] = sum over ranks p of symm_p[i], read over NVLink, fp32 sum;
//   4. exit barrier: nobody overwrites its buffer in the next call while a
//      peer may still be reading it.
// The same file is the complete example in docs/candidate-abi.md.
#include <pkb/pkb_abi.h>

#include <cuda_bf16.h>
#include <cuda_runtime.h>

namespace {
// Pad layout: [0, PKB_MAX_RANKS) entry barrier slots indexed by the signalling
// rank, [PKB_MAX_RANKS, 2*PKB_MAX_RANKS) exit barrier slots.
[[maybe_unused]] constexpr uint32_t kEntry = 0, kExit = PKB_MAX_RANKS;

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

// One block of world_size threads; thread p talks to rank p.
__global__ void barrierKernel(pkb_peer_view View, uint32_t Slot,
                              uint32_t Epoch) {
  int P = threadIdx.x;
  if (P >= View.world_size)
    return;
  __threadfence_system(); // earlier kernels' writes before the signal
  storeRelease(View.signal_pads[P] + Slot + View.rank, Epoch);
  while (loadAcquire(View.signal_pads[View.rank] + Slot + P) < Epoch) {
  }
}

// y = sum_p peers[p]; 8 bf16 (16 bytes) per thread per step.
__global__ void reduceKernel(pkb_peer_view View, __nv_bfloat16 *Y, size_t N8) {
  size_t Stride = size_t(gridDim.x) * blockDim.x;
  for (size_t I = size_t(blockIdx.x) * blockDim.x + threadIdx.x; I < N8;
       I += Stride) {
    float Acc[8] = {0, 0, 0, 0, 0, 0, 0, 0};
    for (int P = 0; P < View.world_size; ++P) {
      uint4 V = reinterpret_cast<const uint4 *>(View.peers[P])[I];
      const __nv_bfloat16 *B = reinterpret_cast<const __nv_bfloat16 *>(&V);
#pragma unroll
      for (int K = 0; K < 8; ++K)
        Acc[K] += __bfloat162float(B[K]);
    }
    uint4 Out;
    __nv_bfloat16 *O = reinterpret_cast<__nv_bfloat16 *>(&Out);
#pragma unroll
    for (int K = 0; K < 8; ++K)
      O[K] = __float2bfloat16_rn(Acc[K]);
    reinterpret_cast<uint4 *>(Y)[I] = Out;
  }
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
  if (N % 8 || N * 2 > Ctx->symm[0].bytes)
    return 2;
  uint32_t Epoch = uint32_t(Ctx->call_index) + 1;
  if (cudaMemcpyAsync(Ctx->symm[0].local, In[0].data, N * 2,
                      cudaMemcpyDeviceToDevice, S) != cudaSuccess)
    return 3;
  barrierKernel<<<1, PKB_MAX_RANKS, 0, S>>>(Ctx->view, kEntry, Epoch);
  int Blocks = int((N / 8 + 511) / 512);
  int Grid = Blocks < 1056 ? Blocks : 1056;
  reduceKernel<<<Grid, 512, 0, S>>>(
      Ctx->view, static_cast<__nv_bfloat16 *>(Out[0].data), N / 8);
  return cudaGetLastError() == cudaSuccess ? 0 : 4;
}
