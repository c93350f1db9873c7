// PKB problem 7, bf16 sum reduce-scatter: y_r[i] = sum_p x_p[r*n + i].
//
// Algorithm: single-kernel push reduce-scatter over the symmetric heap.
//   Block b of G (G from n only) owns elements [lo, hi) of every shard.
//   1. For each peer p: read shard p [lo, hi) of x and store it with 16-byte
//      NVLink stores into slot `rank` of peer p's symmetric half (epoch & 1).
//   2. Signal every peer (bar.sync; fence.sc.sys + st.release.sys of the
//      epoch into peer p's pad [phase0 + b*8 + rank]).
//   3. Wait for every peer (ld.acquire.sys >= epoch; bar.sync).
//   4. y[lo, hi) = x[rank*n + lo ...] + sum_{p != rank} slot p [lo, hi), in
//      fp32, rounded once to bf16; all reads local.
// No exit barrier needed: peers only write our half (epoch & 1) and the
// mutual waits keep every rank within one call of every peer (see
// 2_allgather_push.cu). Epochs = call_index + 1 only grow.
// NVLink traffic: (W-1) * 2n bytes sent per rank (optimal). No multimem.
#include <pkb/pkb_abi.h>

#include <cuda_bf16.h>
#include <cuda_runtime.h>
#include <stdint.h>

#include "common/push_protocol.cuh"

using namespace pkb_push;

namespace {
__global__ void __launch_bounds__(kThreads, 1)
    reduceScatterKernel(pkb_peer_view V, const bf16_t *X, bf16_t *Y,
                        size_t N, size_t Slot, size_t HalfBytes,
                        uint32_t Epoch) {
  const int R = V.rank, W = V.world_size, B = blockIdx.x;
  const uint32_t H = Epoch & 1u;
  size_t Lo, Hi;
  blockRange(N, gridDim.x, B, Lo, Hi);
  for (int K = 1; K < W; ++K) {
    int P = (R + K) % W;
    bf16_t *D[1] = {halfBuffer(V, P, HalfBytes, H) + size_t(R) * Slot + Lo};
    const bf16_t *S[1] = {X + size_t(P) * N + Lo};
    moveRange(D, 1, S, 1, Hi - Lo);
  }
  signalPeers(V, kPhase0 + B * PKB_MAX_RANKS, Epoch, allPeers(V));
  waitPeers(V, kPhase0 + B * PKB_MAX_RANKS, Epoch, allPeers(V));
  const bf16_t *Mine = halfBuffer(V, R, HalfBytes, H);
  const bf16_t *S[PKB_MAX_RANKS];
  int NS = 0;
  S[NS++] = X + size_t(R) * N + Lo;
  for (int P = 0; P < W; ++P)
    if (P != R)
      S[NS++] = Mine + size_t(P) * Slot + Lo;
  bf16_t *D[1] = {Y + Lo};
  moveRange(D, 1, S, NS, Hi - Lo);
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
  size_t W = size_t(Ctx->world_size);
  size_t Slot = (numel(In[0]) / W + 7) / 8 * 8;
  Req->num_symm_buffers = 1;
  Req->symm_bytes[0] = 2 * roundUp16(W * Slot * 2);
  Req->workspace_bytes = 0;
  return 0;
}

extern "C" int pkb_candidate_run(pkb_context *Ctx, const pkb_tensor *In,
                                 int NumIn, pkb_tensor *Out, int NumOut) {
  if (NumIn != 1 || NumOut != 1)
    return 1;
  size_t W = size_t(Ctx->world_size);
  size_t N = numel(In[0]) / W;
  size_t Slot = (N + 7) / 8 * 8;
  size_t HB = halfBytes(Ctx);
  if (numel(In[0]) != N * W || numel(Out[0]) != N || W * Slot * 2 > HB)
    return 2;
  uint32_t Epoch = uint32_t(Ctx->call_index) + 1;
  reduceScatterKernel<<<gridFor(N), kThreads, 0,
                        static_cast<cudaStream_t>(Ctx->stream)>>>(
      Ctx->view, static_cast<const bf16_t *>(In[0].data),
      static_cast<bf16_t *>(Out[0].data), N, Slot, HB, Epoch);
  return cudaGetLastError() == cudaSuccess ? 0 : 3;
}
