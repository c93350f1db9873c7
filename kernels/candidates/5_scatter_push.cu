// PKB problem 5, bf16 scatter from rank 0: y_p = x_root[p*n .. (p+1)*n).
//
// Algorithm: single-kernel push scatter over the symmetric heap.
//   Block b of G (G from n only) owns elements [lo, hi) of every chunk.
//   Root: store chunk p [lo, hi) of x with 16-byte NVLink stores into peer
//     p's symmetric half (epoch & 1); its own chunk goes to y directly;
//     signal every peer (bar.sync; fence.sc.sys + st.release.sys).
//   Peer: wait for the root (ld.acquire.sys >= epoch; bar.sync), copy its
//     half [lo, hi) into y.
// Flow control as in 3_broadcast_push.cu: peers acknowledge each call at its
// start (block 0, st.release.sys into the root's pad [kAck + peer]); the
// root's call e waits for ack >= e-1 (peer's call e-2, the last reader of
// half e&1, has completed) before writing. Epochs = call_index + 1.
// NVLink traffic: the root sends (W-1) * 2n bytes (optimal).
#include <pkb/pkb_abi.h>

#include <cuda_bf16.h>
#include <cuda_runtime.h>
#include <stdint.h>

#include "common/push_protocol.cuh"

using namespace pkb_push;

namespace {
constexpr int kRoot = 0;

__global__ void __launch_bounds__(kThreads, 1)
    scatterKernel(pkb_peer_view V, const bf16_t *X, bf16_t *Y, size_t N,
                  size_t HalfBytes, uint32_t Epoch) {
  const int R = V.rank, W = V.world_size, B = blockIdx.x;
  const uint32_t H = Epoch & 1u;
  size_t Lo, Hi;
  blockRange(N, gridDim.x, B, Lo, Hi);
  if (R == kRoot) {
    if (Epoch >= 3)
      waitPeers(V, kAck, Epoch - 1, allPeers(V));
    for (int K = 1; K <= W; ++K) {
      int P = (R + K) % W; // own chunk last
      bf16_t *D[1] = {P == R ? Y + Lo : halfBuffer(V, P, HalfBytes, H) + Lo};
      const bf16_t *S[1] = {X + size_t(P) * N + Lo};
      moveRange(D, 1, S, 1, Hi - Lo);
    }
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
  if ((Root && numel(In[0]) != N * size_t(Ctx->world_size)) ||
      (N + 7) / 8 * 8 * 2 > HB)
    return 2;
  uint32_t Epoch = uint32_t(Ctx->call_index) + 1;
  scatterKernel<<<gridFor(N), kThreads, 0,
                  static_cast<cudaStream_t>(Ctx->stream)>>>(
      Ctx->view, Root ? static_cast<const bf16_t *>(In[0].data) : nullptr,
      static_cast<bf16_t *>(Out[0].data), N, HB, Epoch);
  return cudaGetLastError() == cudaSuccess ? 0 : 3;
}
