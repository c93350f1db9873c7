// PKB problem 18, tensor-parallel RMSNorm: y_r = x_r * rsqrt(s/H + 1e-6) * g_r
// with s[m] the sum over all ranks of x_r[m, :]^2 and H = W * N.
//
// Algorithm: single kernel. Block b of G (G from M only, so block b pairs
// with block b of every peer) owns rows [lo, hi); one warp per row.
//   1. Per row: fp32 sum of squares of x_r[m, :] (16-byte loads, warp
//      shuffle reduction); lane 0 stores it into slot `rank`, row m of the
//      symmetric half (epoch & 1) of every rank, ours included (fp32).
//   2. Signal every peer (bar.sync; fence.sc.sys + st.release.sys of the
//      epoch into peer p's pad [phase0 + b*8 + rank]); wait for every peer
//      (ld.acquire.sys >= epoch; bar.sync).
//   3. Per row: s = sum over the W slots (local reads); y = x * rsqrt(s/H +
//      eps) * g, 16-byte stores.
// No exit barrier: peers only write our half (epoch & 1) and the mutual waits
// keep ranks within one call (argument of 2_allgather_push.cu). NVLink
// traffic: (W-1) * 4M bytes (one-shot; the floor is 2(W-1)/W * 4M).
// Requires N % 8 == 0 (N = 1024 in the spec).
#include <pkb/pkb_abi.h>

#include <cuda_bf16.h>
#include <cuda_runtime.h>
#include <stdint.h>

#include "common/push_protocol.cuh"

using namespace pkb_push;

namespace {
constexpr float kEps = 1e-6f;

__global__ void __launch_bounds__(kThreads, 1)
    rmsNormKernel(pkb_peer_view V, const bf16_t *X, const bf16_t *G,
                  bf16_t *Y, int M, int N, size_t HalfBytes, uint32_t Epoch) {
  const int R = V.rank, W = V.world_size, B = blockIdx.x;
  const uint32_t H = Epoch & 1u;
  const int Rows = (M + gridDim.x - 1) / gridDim.x;
  const int Lo = min(M, B * Rows), Hi = min(M, Lo + Rows);
  const int Warp = threadIdx.x / 32, Lane = threadIdx.x % 32;
  const int Warps = blockDim.x / 32;
  const int N8 = N / 8;
  for (int Row = Lo + Warp; Row < Hi; Row += Warps) {
    const uint4 *Xr = reinterpret_cast<const uint4 *>(X + size_t(Row) * N);
    float Acc = 0;
    for (int I = Lane; I < N8; I += 32) {
      uint4 Q = Xr[I];
      uint32_t Wd[4] = {Q.x, Q.y, Q.z, Q.w};
#pragma unroll
      for (int K = 0; K < 4; ++K) {
        float2 F = unpack2(Wd[K]);
        Acc += F.x * F.x + F.y * F.y;
      }
    }
#pragma unroll
    for (int O = 16; O > 0; O /= 2)
      Acc += __shfl_xor_sync(0xffffffffu, Acc, O);
    if (Lane == 0)
      for (int P = 0; P < W; ++P)
        reinterpret_cast<float *>(halfBuffer(V, P, HalfBytes, H))[size_t(R) * M +
                                                             Row] = Acc;
  }
  signalPeers(V, kPhase0 + B * PKB_MAX_RANKS, Epoch, allPeers(V));
  waitPeers(V, kPhase0 + B * PKB_MAX_RANKS, Epoch, allPeers(V));
  const float *Sums = reinterpret_cast<const float *>(halfBuffer(V, R, HalfBytes, H));
  const float InvH = 1.0f / float(N * W);
  const uint4 *G4 = reinterpret_cast<const uint4 *>(G);
  for (int Row = Lo + Warp; Row < Hi; Row += Warps) {
    float S = 0;
    for (int P = 0; P < W; ++P)
      S += Sums[size_t(P) * M + Row];
    float Scale = rsqrtf(S * InvH + kEps);
    const uint4 *Xr = reinterpret_cast<const uint4 *>(X + size_t(Row) * N);
    uint4 *Yr = reinterpret_cast<uint4 *>(Y + size_t(Row) * N);
    for (int I = Lane; I < N8; I += 32) {
      uint4 Q = Xr[I], Gq = G4[I];
      uint32_t Xw[4] = {Q.x, Q.y, Q.z, Q.w}, Gw[4] = {Gq.x, Gq.y, Gq.z, Gq.w};
      uint32_t Ow[4];
#pragma unroll
      for (int K = 0; K < 4; ++K) {
        float2 Fx = unpack2(Xw[K]), Fg = unpack2(Gw[K]);
        Ow[K] = pack2(Fx.x * Scale * Fg.x, Fx.y * Scale * Fg.y);
      }
      Yr[I] = make_uint4(Ow[0], Ow[1], Ow[2], Ow[3]);
    }
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
  if (NumIn != 2 || NumOut != 1 || In[0].ndim != 2 || !isBf16(In[0]))
    return 1;
  Req->num_symm_buffers = 1;
  Req->symm_bytes[0] = 2 * roundUp16(size_t(Ctx->world_size) *
                                     size_t(In[0].shape[0]) * sizeof(float));
  Req->workspace_bytes = 0;
  return 0;
}

extern "C" int pkb_candidate_run(pkb_context *Ctx, const pkb_tensor *In,
                                 int NumIn, pkb_tensor *Out, int NumOut) {
  if (NumIn != 2 || NumOut != 1 || In[0].ndim != 2)
    return 1;
  int M = int(In[0].shape[0]), N = int(In[0].shape[1]);
  if (N % 8 || numel(In[1]) != size_t(N) || numel(Out[0]) != numel(In[0]) ||
      size_t(Ctx->world_size) * size_t(M) * sizeof(float) > halfBytes(Ctx))
    return 2;
  int G = (M + 15) / 16; // 16 warps per block: one row per warp at least
  G = G < 1 ? 1 : (G > kMaxGrid ? kMaxGrid : G);
  uint32_t Epoch = uint32_t(Ctx->call_index) + 1;
  rmsNormKernel<<<G, kThreads, 0, static_cast<cudaStream_t>(Ctx->stream)>>>(
      Ctx->view, static_cast<const bf16_t *>(In[0].data),
      static_cast<const bf16_t *>(In[1].data),
      static_cast<bf16_t *>(Out[0].data), M, N, halfBytes(Ctx), Epoch);
  return cudaGetLastError() == cudaSuccess ? 0 : 3;
}
