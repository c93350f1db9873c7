// BUGGY ON PURPOSE (pkbcheck test candidate). Bug: DEADLOCK (partition error in
// the signalling threads). Copy of 2_allgather_coop_groups.cu whose handshake
// signals only peers T < W - 1 (off-by-one bound) but waits for every peer:
// no rank ever signals rank W-1, so rank W-1 waits forever in the first
// handshake (and every other rank in the exit handshake, which rank W-1
// never reaches). Expected GPU verdict: deadlock.
// PKB problem 2, bf16 all-gather, cooperative groups, push + exit handshake.
#include <pkb/pkb_abi.h>

#include <cooperative_groups.h>
#include <cuda_bf16.h>
#include <cuda_runtime.h>
#include <stdint.h>

namespace cg = cooperative_groups;

namespace {
constexpr int kMaxGrid = 16;
constexpr uint32_t kIn = 0, kOut = kMaxGrid * PKB_MAX_RANKS;
typedef uint16_t bf16_t;

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

__device__ __forceinline__ void handshake(cg::thread_block &Block,
                                          const pkb_peer_view &V, uint32_t Slot,
                                          uint32_t Epoch) {
  Block.sync();
  int T = Block.thread_rank();
  if (T < V.world_size - 1 && T != V.rank) { // BUG: bound is world_size
    __threadfence_system();
    storeRelease(V.signal_pads[T] + Slot + V.rank, Epoch);
  }
  if (T < V.world_size && T != V.rank) {
    while (loadAcquire(V.signal_pads[V.rank] + Slot + T) < Epoch) {
    }
  }
  Block.sync();
}

__global__ void allgather(pkb_peer_view V, const bf16_t *X, bf16_t *Y, size_t N,
                          uint32_t Epoch) {
  cg::thread_block Block = cg::this_thread_block();
  const int R = V.rank, W = V.world_size;
  size_t Per = (N + gridDim.x - 1) / gridDim.x;
  size_t Lo = blockIdx.x * Per, Hi = Lo + Per < N ? Lo + Per : N;
  for (size_t I = Lo + Block.thread_rank(); I < Hi; I += Block.size()) {
    bf16_t Val = X[I];
    Y[size_t(R) * N + I] = Val;
    for (int P = 0; P < W; ++P)
      if (P != R)
        static_cast<bf16_t *>(V.peers[P])[size_t(R) * N + I] = Val;
  }
  uint32_t B = blockIdx.x * PKB_MAX_RANKS;
  handshake(Block, V, kIn + B, Epoch);
  const bf16_t *Mine = static_cast<const bf16_t *>(V.peers[R]);
  for (int P = 0; P < W; ++P)
    if (P != R)
      for (size_t I = Lo + Block.thread_rank(); I < Hi; I += Block.size())
        Y[size_t(P) * N + I] = Mine[size_t(P) * N + I];
  handshake(Block, V, kOut + B, Epoch);
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
  Req->num_symm_buffers = 1;
  Req->symm_bytes[0] = size_t(Ctx->world_size) * numel(In[0]) * 2;
  Req->workspace_bytes = 0;
  return 0;
}

extern "C" int pkb_candidate_setup(pkb_context *Ctx) {
  return Ctx->world_size <= PKB_MAX_RANKS ? 0 : 1;
}

extern "C" int pkb_candidate_run(pkb_context *Ctx, const pkb_tensor *In,
                                 int NumIn, pkb_tensor *Out, int NumOut) {
  size_t N = numel(In[0]);
  if (size_t(Ctx->world_size) * N * 2 > Ctx->symm[0].bytes)
    return 2;
  size_t G = (N + 1023) / 1024;
  int Grid = int(G < 1 ? 1 : (G > kMaxGrid ? kMaxGrid : G));
  allgather<<<Grid, 256, 0, static_cast<cudaStream_t>(Ctx->stream)>>>(
      Ctx->view, static_cast<const bf16_t *>(In[0].data),
      static_cast<bf16_t *>(Out[0].data), N, uint32_t(Ctx->call_index) + 1);
  return cudaGetLastError() == cudaSuccess ? 0 : 4;
}
