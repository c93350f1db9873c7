// BUGGY ON PURPOSE (pkbcheck test candidate). Bug: DEADLOCK.
// Copy of 1_allreduce_param_barrier.cu whose barrier kernel waits for every
// peer's slot BEFORE it publishes its own (wait-before-publish): thread p of
// every rank spins on our pad at Slot + p, a value rank p writes only after
// its own spin ends, so every rank waits on every other one (a cycle in the
// wait-for graph for every W >= 2). Expected GPU verdict: deadlock.
// PKB problem 1, bf16 sum all-reduce (two-shot, barrier kernel launched three
// times per call with constant offsets kEntry/kMid/kExit, epoch =
// call_index+1).
#include <pkb/pkb_abi.h>

#include <cuda_bf16.h>
#include <cuda_runtime.h>
#include <stdint.h>

namespace {
constexpr uint32_t kEntry = 0, kMid = PKB_MAX_RANKS, kExit = 2 * PKB_MAX_RANKS;

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

// One block of PKB_MAX_RANKS threads; thread p talks to rank p.
__global__ void barrier(pkb_peer_view V, uint32_t Slot, uint32_t Epoch) {
  int P = threadIdx.x;
  if (P >= V.world_size)
    return;
  // BUG: wait before publish -> circular wait across ranks.
  while (loadAcquire(V.signal_pads[V.rank] + Slot + P) < Epoch) {
  }
  __threadfence_system();
  storeRelease(V.signal_pads[P] + Slot + V.rank, Epoch);
}

__global__ void reduceScatter(pkb_peer_view V, size_t Chunk) {
  __nv_bfloat16 *Mine = static_cast<__nv_bfloat16 *>(V.peers[V.rank]);
  size_t Lo = size_t(V.rank) * Chunk;
  for (size_t I = blockIdx.x * size_t(blockDim.x) + threadIdx.x; I < Chunk;
       I += size_t(gridDim.x) * blockDim.x) {
    float Acc = 0.f;
    for (int P = 0; P < V.world_size; ++P)
      Acc += __bfloat162float(
          static_cast<const __nv_bfloat16 *>(V.peers[P])[Lo + I]);
    Mine[Lo + I] = __float2bfloat16_rn(Acc);
  }
}

__global__ void allGather(pkb_peer_view V, __nv_bfloat16 *Y, size_t Chunk) {
  for (size_t I = blockIdx.x * size_t(blockDim.x) + threadIdx.x;
       I < Chunk * V.world_size; I += size_t(gridDim.x) * blockDim.x) {
    int P = int(I / Chunk);
    Y[I] = static_cast<const __nv_bfloat16 *>(V.peers[P])[I];
  }
}

inline int gridFor(size_t N) {
  size_t G = (N + 255) / 256;
  return int(G < 1 ? 1 : (G > 64 ? 64 : G));
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
  size_t W = size_t(Ctx->world_size);
  if (N % W || N * 2 > Ctx->symm[0].bytes)
    return 2;
  size_t Chunk = N / W;
  uint32_t Epoch = uint32_t(Ctx->call_index) + 1;
  if (cudaMemcpyAsync(Ctx->symm[0].local, In[0].data, N * 2,
                      cudaMemcpyDeviceToDevice, S) != cudaSuccess)
    return 3;
  barrier<<<1, PKB_MAX_RANKS, 0, S>>>(Ctx->view, kEntry, Epoch);
  reduceScatter<<<gridFor(Chunk), 256, 0, S>>>(Ctx->view, Chunk);
  barrier<<<1, PKB_MAX_RANKS, 0, S>>>(Ctx->view, kMid, Epoch);
  allGather<<<gridFor(N), 256, 0, S>>>(
      Ctx->view, static_cast<__nv_bfloat16 *>(Out[0].data), Chunk);
  barrier<<<1, PKB_MAX_RANKS, 0, S>>>(Ctx->view, kExit, Epoch);
  return cudaGetLastError() == cudaSuccess ? 0 : 4;
}
