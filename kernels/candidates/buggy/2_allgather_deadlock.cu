// BUGGY ON PURPOSE (pkbcheck test candidate). Bug: DEADLOCK.
// Copy of 2_allgather_push.cu that waits for every peer's phase-0 flag
// BEFORE publishing its own: every rank waits for a signal that its peers
// only send after their own wait, so no rank ever proceeds (circular wait).
// PKB problem 2, bf16 all-gather: y[p*n + i] = x_p[i] on every rank.
//
// Algorithm: single-kernel push all-gather over the symmetric heap.
//   Block b of G (G depends only on n, so block b pairs with block b of every
//   peer) owns elements [lo, hi) of every shard (16-byte multiples).
//   1. Read x[lo, hi) once; store it with 16-byte NVLink stores into slot
//      `rank` of every peer's symmetric half (epoch & 1), and into our own
//      y[rank*n + lo, ...) (no symmetric staging of our own shard).
//   2. Signal: bar.sync, then thread p does fence.sc.sys + st.release.sys of
//      the epoch into peer p's pad slot [phase0 + b*8 + rank].
//   3. Wait: thread p spins with ld.acquire.sys on our slot [b*8 + p] until
//      >= epoch; bar.sync.
//   4. Copy slot p [lo, hi) of our half into y[p*n + lo, ...) (local HBM).
// Why no exit barrier: peers never read our buffers; they write our half
// (epoch & 1). A peer can be at most one call ahead of us: to start call
// c+2 it must finish call c+1, whose waits need our call-c+1 signals, which
// we send only after our call-c kernel (all our reads of half c&1) has
// completed on our stream. So call c+2's pushes (same half as c) never
// overwrite data we still read. Epochs = call_index + 1 only grow.
// NVLink traffic: (W-1) * 2n bytes sent per rank (optimal). No multimem.
#include <pkb/pkb_abi.h>

#include <cuda_bf16.h>
#include <cuda_runtime.h>
#include <stdint.h>

#include "../common/push_protocol.cuh"

using namespace pkb_push;

namespace {
__global__ void __launch_bounds__(kThreads, 1)
    allgatherKernel(pkb_peer_view V, const bf16_t *X, bf16_t *Y, size_t N,
                    size_t Slot, size_t HalfBytes, uint32_t Epoch) {
  const int R = V.rank, W = V.world_size, B = blockIdx.x;
  const uint32_t H = Epoch & 1u;
  size_t Lo, Hi;
  blockRange(N, gridDim.x, B, Lo, Hi);
  bf16_t *Dst[PKB_MAX_RANKS];
  int ND = 0;
  Dst[ND++] = Y + size_t(R) * N + Lo;
  for (int P = 0; P < W; ++P)
    if (P != R)
      Dst[ND++] = halfBuffer(V, P, HalfBytes, H) + size_t(R) * Slot + Lo;
  const bf16_t *Src[1] = {X + Lo};
  moveRange(Dst, ND, Src, 1, Hi - Lo);
  // BUG: wait before signal on every rank -> circular wait.
  waitPeers(V, kPhase0 + B * PKB_MAX_RANKS, Epoch, allPeers(V));
  signalPeers(V, kPhase0 + B * PKB_MAX_RANKS, Epoch, allPeers(V));
  const bf16_t *Mine = halfBuffer(V, R, HalfBytes, H);
  for (int K = 1; K < W; ++K) {
    int P = (R + K) % W;
    bf16_t *D[1] = {Y + size_t(P) * N + Lo};
    const bf16_t *S[1] = {Mine + size_t(P) * Slot + Lo};
    moveRange(D, 1, S, 1, Hi - Lo);
  }
}
} // namespace

namespace {
/// Halves of symmetric buffer 0 (bytes each), as requested in query.
inline size_t halfBytes(const pkb_context *Ctx) {
  return (Ctx->symm[0].bytes / 2) & ~size_t(15);
}
inline bool isBf16(const pkb_tensor &T) { return T.dtype == PKB_DTYPE_BF16; }
inline size_t numel(const pkb_tensor &T) {
  size_t N = 1;
  for (int I = 0; I < T.ndim; ++I)
    N *= size_t(T.shape[I]);
  return N;
}
} // namespace

extern "C" int pkb_candidate_setup(pkb_context *Ctx) {
  if (Ctx->world_size < 2 || Ctx->world_size > PKB_MAX_RANKS)
    return 1;
  if (Ctx->num_symm_buffers < 1 ||
      Ctx->signal_pad_bytes < (kAck + PKB_MAX_RANKS) * sizeof(uint32_t))
    return 2;
  return 0;
}

extern "C" int pkb_candidate_query(const pkb_context *Ctx,
                                   const pkb_tensor *In, int NumIn,
                                   const pkb_tensor *Out, int NumOut,
                                   pkb_requirements *Req) {
  if (NumIn != 1 || NumOut != 1 || !isBf16(In[0]) || !isBf16(Out[0]))
    return 1;
  size_t Slot = (numel(In[0]) + 7) / 8 * 8;
  Req->num_symm_buffers = 1;
  Req->symm_bytes[0] = 2 * roundUp16(size_t(Ctx->world_size) * Slot * 2);
  Req->workspace_bytes = 0;
  return 0;
}

extern "C" int pkb_candidate_run(pkb_context *Ctx, const pkb_tensor *In,
                                 int NumIn, pkb_tensor *Out, int NumOut) {
  if (NumIn != 1 || NumOut != 1)
    return 1;
  size_t N = numel(In[0]);
  size_t Slot = (N + 7) / 8 * 8;
  size_t HB = halfBytes(Ctx);
  if (numel(Out[0]) != N * size_t(Ctx->world_size) ||
      size_t(Ctx->world_size) * Slot * 2 > HB)
    return 2;
  uint32_t Epoch = uint32_t(Ctx->call_index) + 1;
  allgatherKernel<<<gridFor(N), kThreads, 0,
                    static_cast<cudaStream_t>(Ctx->stream)>>>(
      Ctx->view, static_cast<const bf16_t *>(In[0].data),
      static_cast<bf16_t *>(Out[0].data), N, Slot, HB, Epoch);
  return cudaGetLastError() == cudaSuccess ? 0 : 3;
}
