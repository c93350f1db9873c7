// PKB problem 3, bf16 broadcast from rank 0: y = x_root on every rank.
//
// Algorithm: single-kernel push broadcast over the symmetric heap.
//   Block b of G (G from n only) owns elements [lo, hi).
//   Root: read x[lo, hi) once; store it into y[lo, ...) and, with 16-byte
//     NVLink stores, into every peer's symmetric half (epoch & 1); signal
//     every peer (bar.sync; fence.sc.sys + st.release.sys of the epoch into
//     peer p's pad [phase0 + b*8 + root]).
//   Peer: wait (ld.acquire.sys on pad [b*8 + root] >= epoch; bar.sync), then
//     copy its half [lo, hi) into y (local HBM).
// Flow control (instead of an exit barrier): only the root writes, so it
// could run ahead of a slow peer. Block 0 of every peer acknowledges each
// call at its start (st.release.sys of epoch e into the root's pad
// [kAck + peer]); "peer started call e-1" implies its call e-2 (the last
// reader of half e&1) has completed on its stream. The root's call e waits
// for ack >= e-1 (e >= 3) before storing into half e&1. Epochs =
// call_index + 1 only grow.
// NVLink traffic: the root sends (W-1) * 2n bytes (2n at W = 2: optimal).
#include <pkb/pkb_abi.h>

#include <cuda_bf16.h>
#include <cuda_runtime.h>
#include <stdint.h>

#include "common/push_protocol.cuh"

using namespace pkb_push;

namespace {
constexpr int kRoot = 0;

__global__ void __launch_bounds__(kThreads, 1)
    broadcastKernel(pkb_peer_view V, const bf16_t *X, bf16_t *Y, size_t N,
                    size_t HalfBytes, uint32_t Epoch) {
  const int R = V.rank, W = V.world_size, B = blockIdx.x;
  const uint32_t H = Epoch & 1u;
  size_t Lo, Hi;
  blockRange(N, gridDim.x, B, Lo, Hi);
  if (R == kRoot) {
    if (Epoch >= 3)
      waitPeers(V, kAck, Epoch - 1, allPeers(V));
    bf16_t *Dst[PKB_MAX_RANKS];
    int ND = 0;
    Dst[ND++] = Y + Lo;
    for (int K = 1; K < W; ++K)
      Dst[ND++] = halfBuffer(V, (R + K) % W, HalfBytes, H) + Lo;
    const bf16_t *Src[1] = {X + Lo};
    moveRange(Dst, ND, Src, 1, Hi - Lo);
    signalPeers(V, kPhase0 + B * PKB_MAX_RANKS, Epoch, allPeers(V));
  } else {
    if (B == 0)
      signalPeers(V, kAck, Epoch, 1u << kRoot);
    waitPeers(V, kPhase0 + B * PKB_MAX_RANKS, Epoch, 1u << kRoot);
    bf16_t *D[1] = {Y + Lo};
    const bf16_t *S[1] = {halfBuffer(V, R, HalfBytes, H) + Lo};
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
  (void)In;
  if (NumIn != (Ctx->rank == kRoot ? 1 : 0) || NumOut != 1 ||
      !isBf16(Out[0]))
    return 1;
  size_t Slot = (numel(Out[0]) + 7) / 8 * 8;
  Req->num_symm_buffers = 1;
  Req->symm_bytes[0] = 2 * roundUp16(Slot * 2);
  Req->workspace_bytes = 0;
  return 0;
}

extern "C" int pkb_candidate_run(pkb_context *Ctx, const pkb_tensor *In,
                                 int NumIn, pkb_tensor *Out, int NumOut) {
  bool Root = Ctx->rank == kRoot;
  if (NumIn != (Root ? 1 : 0) || NumOut != 1)
    return 1;
  size_t N = numel(Out[0]);
  size_t HB = halfBytes(Ctx);
  if ((Root && numel(In[0]) != N) || (N + 7) / 8 * 8 * 2 > HB)
    return 2;
  uint32_t Epoch = uint32_t(Ctx->call_index) + 1;
  broadcastKernel<<<gridFor(N), kThreads, 0,
                    static_cast<cudaStream_t>(Ctx->stream)>>>(
      Ctx->view, Root ? static_cast<const bf16_t *>(In[0].data) : nullptr,
      static_cast<bf16_t *>(Out[0].data), N, HB, Epoch);
  return cudaGetLastError() == cudaSuccess ? 0 : 3;
}
