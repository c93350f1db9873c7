// PKB problem 4, bf16 sum reduce to rank 0: y_root = sum_p x_p.
//
// Algorithm: single-kernel push reduce over the symmetric heap.
//   Block b of G (G from n only) owns elements [lo, hi).
//   Non-root p: store x[lo, hi) with 16-byte NVLink stores into slot p of
//     the root's symmetric half (epoch & 1); signal the root (bar.sync;
//     fence.sc.sys + st.release.sys of the epoch into its pad
//     [phase0 + b*8 + p]).
//   Root: wait for every peer (ld.acquire.sys >= epoch; bar.sync); then
//     y[lo, hi) = x[lo, hi) + sum_p slot p [lo, hi) in fp32, rounded once.
// Flow control (instead of an exit barrier): the root acknowledges each call
// at its start (block 0, st.release.sys of epoch e into every peer's pad
// [kAck + root]); "root started call e-1" implies its call e-2, the last
// reader of half e&1, completed. A peer's call e waits for ack >= e-1
// (e >= 3) before writing half e&1. Epochs = call_index + 1 only grow.
// NVLink traffic: each non-root sends 2n bytes (the root receives
// (W-1) * 2n; optimal at W = 2).
#include <pkb/pkb_abi.h>

#include <cuda_bf16.h>
#include <cuda_runtime.h>
#include <stdint.h>

#include "common/push_protocol.cuh"

using namespace pkb_push;

namespace {
constexpr int kRoot = 0;

__global__ void __launch_bounds__(kThreads, 1)
    reduceKernel(pkb_peer_view V, const bf16_t *X, bf16_t *Y, size_t N,
                 size_t Slot, size_t HalfBytes, uint32_t Epoch) {
  const int R = V.rank, W = V.world_size, B = blockIdx.x;
  const uint32_t H = Epoch & 1u;
  size_t Lo, Hi;
  blockRange(N, gridDim.x, B, Lo, Hi);
  if (R == kRoot) {
    if (B == 0)
      signalPeers(V, kAck, Epoch, allPeers(V));
    waitPeers(V, kPhase0 + B * PKB_MAX_RANKS, Epoch, allPeers(V));
    const bf16_t *Mine = halfBuffer(V, R, HalfBytes, H);
    const bf16_t *S[PKB_MAX_RANKS];
    int NS = 0;
    S[NS++] = X + Lo;
    for (int P = 0; P < W; ++P)
      if (P != R)
        S[NS++] = Mine + size_t(P) * Slot + Lo;
    bf16_t *D[1] = {Y + Lo};
    moveRange(D, 1, S, NS, Hi - Lo);
  } else {
    if (Epoch >= 3)
      waitPeers(V, kAck, Epoch - 1, 1u << kRoot);
    bf16_t *D[1] = {halfBuffer(V, kRoot, HalfBytes, H) + size_t(R) * Slot + Lo};
    const bf16_t *S[1] = {X + Lo};
    moveRange(D, 1, S, 1, Hi - Lo);
    signalPeers(V, kPhase0 + B * PKB_MAX_RANKS, Epoch, 1u << kRoot);
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
  (void)Out;
  if (NumIn != 1 || NumOut != (Ctx->rank == kRoot ? 1 : 0) || !isBf16(In[0]))
    return 1;
  size_t Slot = (numel(In[0]) + 7) / 8 * 8;
  Req->num_symm_buffers = 1;
  Req->symm_bytes[0] = 2 * roundUp16(size_t(Ctx->world_size) * Slot * 2);
  Req->workspace_bytes = 0;
  return 0;
}

extern "C" int pkb_candidate_run(pkb_context *Ctx, const pkb_tensor *In,
                                 int NumIn, pkb_tensor *Out, int NumOut) {
  bool Root = Ctx->rank == kRoot;
  if (NumIn != 1 || NumOut != (Root ? 1 : 0))
    return 1;
  size_t N = numel(In[0]);
  size_t Slot = (N + 7) / 8 * 8;
  size_t HB = halfBytes(Ctx);
  if ((Root && numel(Out[0]) != N) ||
      size_t(Ctx->world_size) * Slot * 2 > HB)
    return 2;
  uint32_t Epoch = uint32_t(Ctx->call_index) + 1;
  reduceKernel<<<gridFor(N), kThreads, 0,
                 static_cast<cudaStream_t>(Ctx->stream)>>>(
      Ctx->view, static_cast<const bf16_t *>(In[0].data),
      Root ? static_cast<bf16_t *>(Out[0].data) : nullptr, N, Slot, HB,
      Epoch);
  return cudaGetLastError() == cudaSuccess ? 0 : 3;
}
