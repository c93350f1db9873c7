// PKB problem 1, bf16 sum all-reduce: y = sum_p x_p on every rank.
//
// Algorithm: single kernel, push-based, over the symmetric heap; one-shot or
// two-shot chosen per call (the same choice on every rank: it depends only
// on n and W).
//   One-shot (W == 2, or n <= 256 KiB): block b of G owns [lo, hi). Store
//     x[lo, hi) with 16-byte NVLink stores into slot `rank` of every peer's
//     symmetric half (epoch & 1); signal every peer; wait for every peer;
//     y[lo, hi) = x + sum of the W-1 received slots (fp32, one rounding),
//     all reads local. Sends (W-1)*2n bytes: at W = 2 that is exactly the
//     all-reduce lower bound 2(W-1)/W * 2n, with one synchronization.
//   Two-shot (W > 2 and n > 256 KiB): shards of ss = ceil8(n/W) elements.
//     Phase 0 (reduce-scatter): store shard p [lo, hi) of x into slot `rank`
//     of peer p's RS region; signal/wait phase 0; reduce our shard (own x +
//     W-1 slots) and store the result into y and, with NVLink stores, into
//     slot `rank` of every peer's AG region. Phase 1 (all-gather):
//     signal/wait phase 1; copy AG slot p into y's shard p. Sends
//     2(W-1)/W * 2n bytes (optimal).
// Synchronization (per block, block b pairs with block b of every peer):
//   signal = bar.sync; thread p: fence.sc.sys + st.release.sys of the epoch
//   into peer p's pad [phase*1024 + b*8 + rank]; wait = thread p spins on
//   ld.acquire.sys of our pad [.. + p] >= epoch, then bar.sync.
// No exit barrier needed: peers only write our half (epoch & 1). A peer can
// be at most one call ahead: its call c+2 starts only after its call c+1
// received our call-c+1 signals, which we send after our call c (the last
// reader of half c&1) completed on our stream. Epochs = call_index + 1 only
// grow; the pad is never re-zeroed. Input x is plain device memory: it is
// read once and pushed straight into the peers' symmetric buffers.
#include <pkb/pkb_abi.h>

#include <cuda_bf16.h>
#include <cuda_runtime.h>
#include <stdint.h>

#include "common/push_protocol.cuh"

using namespace pkb_push;

namespace {
#ifndef PKB_FORCE_TWOSHOT
#define PKB_FORCE_TWOSHOT 0
#endif
constexpr size_t kOneShotMaxElems = 128 * 1024; // 256 KiB of bf16

inline bool useOneShot(size_t N, int W) {
  return !PKB_FORCE_TWOSHOT && (W == 2 || N <= kOneShotMaxElems);
}
inline size_t shardElems(size_t N, int W) {
  return ((N + size_t(W) - 1) / size_t(W) + 7) / 8 * 8;
}
inline size_t halfNeed(size_t N, int W) {
  size_t Two = 2 * size_t(W) * shardElems(N, W) * 2;
  size_t Small = N < kOneShotMaxElems ? N : kOneShotMaxElems;
  size_t One = size_t(W) * (((W == 2 ? N : Small) + 7) / 8 * 8) * 2;
  return roundUp16(Two > One ? Two : One);
}

__device__ __forceinline__ size_t clip(size_t V, size_t Len) {
  return V < Len ? V : Len;
}

__global__ void __launch_bounds__(kThreads, 1)
    allreduceKernel(pkb_peer_view V, const bf16_t *X, bf16_t *Y, size_t N,
                    size_t SS, int OneShot, size_t HalfBytes,
                    uint32_t Epoch) {
  const int R = V.rank, W = V.world_size, B = blockIdx.x;
  const uint32_t H = Epoch & 1u;
  const uint32_t Slot0 = kPhase0 + B * PKB_MAX_RANKS;
  const uint32_t Slot1 = kPhase1 + B * PKB_MAX_RANKS;
  bf16_t *Mine = halfBuffer(V, R, HalfBytes, H);
  if (OneShot) {
    // SS is the slot size ceil8(N) here.
    size_t Lo, Hi;
    blockRange(N, gridDim.x, B, Lo, Hi);
    bf16_t *D[PKB_MAX_RANKS];
    int ND = 0;
    for (int K = 1; K < W; ++K)
      D[ND++] = halfBuffer(V, (R + K) % W, HalfBytes, H) + size_t(R) * SS + Lo;
    const bf16_t *S0[1] = {X + Lo};
    moveRange(D, ND, S0, 1, Hi - Lo);
    signalPeers(V, Slot0, Epoch, allPeers(V));
    waitPeers(V, Slot0, Epoch, allPeers(V));
    const bf16_t *S[PKB_MAX_RANKS];
    int NS = 0;
    S[NS++] = X + Lo;
    for (int P = 0; P < W; ++P)
      if (P != R)
        S[NS++] = Mine + size_t(P) * SS + Lo;
    bf16_t *Dy[1] = {Y + Lo};
    moveRange(Dy, 1, S, NS, Hi - Lo);
    return;
  }
  // Two-shot. Shard s = [s*SS, min(N, (s+1)*SS)); block range [Lo, Hi)
  // inside a shard, clipped to the shard's length.
  size_t Lo, Hi;
  blockRange(SS, gridDim.x, B, Lo, Hi);
  auto Len = [&](int S) -> size_t {
    size_t Start = size_t(S) * SS;
    return Start >= N ? 0 : (N - Start < SS ? N - Start : SS);
  };
  const size_t AG = size_t(W) * SS; // AG region offset in the half
  for (int K = 1; K < W; ++K) {
    int P = (R + K) % W;
    size_t L = Len(P), A = clip(Lo, L), E = clip(Hi, L);
    bf16_t *D[1] = {halfBuffer(V, P, HalfBytes, H) + size_t(R) * SS + A};
    const bf16_t *S[1] = {X + size_t(P) * SS + A};
    moveRange(D, 1, S, 1, E - A);
  }
  signalPeers(V, Slot0, Epoch, allPeers(V));
  waitPeers(V, Slot0, Epoch, allPeers(V));
  {
    size_t L = Len(R), A = clip(Lo, L), E = clip(Hi, L);
    const bf16_t *S[PKB_MAX_RANKS];
    int NS = 0;
    S[NS++] = X + size_t(R) * SS + A;
    for (int P = 0; P < W; ++P)
      if (P != R)
        S[NS++] = Mine + size_t(P) * SS + A;
    bf16_t *D[PKB_MAX_RANKS];
    int ND = 0;
    D[ND++] = Y + size_t(R) * SS + A;
    for (int K = 1; K < W; ++K)
      D[ND++] = halfBuffer(V, (R + K) % W, HalfBytes, H) + AG + size_t(R) * SS + A;
    moveRange(D, ND, S, NS, E - A);
  }
  signalPeers(V, Slot1, Epoch, allPeers(V));
  waitPeers(V, Slot1, Epoch, allPeers(V));
  for (int K = 1; K < W; ++K) {
    int P = (R + K) % W;
    size_t L = Len(P), A = clip(Lo, L), E = clip(Hi, L);
    bf16_t *D[1] = {Y + size_t(P) * SS + A};
    const bf16_t *S[1] = {Mine + AG + size_t(P) * SS + A};
    moveRange(D, 1, S, 1, E - A);
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
  Req->num_symm_buffers = 1;
  Req->symm_bytes[0] = 2 * halfNeed(numel(In[0]), Ctx->world_size);
  Req->workspace_bytes = 0;
  return 0;
}

extern "C" int pkb_candidate_run(pkb_context *Ctx, const pkb_tensor *In,
                                 int NumIn, pkb_tensor *Out, int NumOut) {
  if (NumIn != 1 || NumOut != 1)
    return 1;
  int W = Ctx->world_size;
  size_t N = numel(In[0]);
  size_t HB = halfBytes(Ctx);
  if (numel(Out[0]) != N || halfNeed(N, W) > HB)
    return 2;
  uint32_t Epoch = uint32_t(Ctx->call_index) + 1;
  bool One = useOneShot(N, W);
  size_t SS = One ? (N + 7) / 8 * 8 : shardElems(N, W);
  allreduceKernel<<<gridFor(One ? N : SS), kThreads, 0,
                    static_cast<cudaStream_t>(Ctx->stream)>>>(
      Ctx->view, static_cast<const bf16_t *>(In[0].data),
      static_cast<bf16_t *>(Out[0].data), N, SS, One ? 1 : 0, HB, Epoch);
  return cudaGetLastError() == cudaSuccess ? 0 : 3;
}
