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

namespace {
// ---------------------------------------------------------------------------
// Shared protocol pieces (identical in every push-style candidate).
//
// Signal pad layout (uint32 slots; the pad is 64 KiB = 16384 slots):
//   [kPhase0 + b*8 + p]  block b, phase 0 flag written by rank p
//   [kPhase1 + b*8 + p]  block b, phase 1 flag written by rank p
//   [kAck + p]           "rank p has started call e" acknowledgements
// A flag holds the epoch e = call_index + 1 of the last call that wrote it;
// epochs only grow, so the pad is never re-zeroed and a wait is "flag >= e".
//
// Symmetric buffer 0 is split into two halves used by alternate calls
// (half = epoch & 1). A rank can be at most one call ahead of a peer it
// exchanges data with (see the per-kernel comments), so a call never
// overwrites the half a peer is still reading.
// ---------------------------------------------------------------------------
constexpr int kThreads = 512;
constexpr int kMaxGrid = 128; // <= SM count of H100/H200: all co-resident
constexpr uint32_t kPhase0 = 0;
[[maybe_unused]] constexpr uint32_t kPhase1 = kMaxGrid * PKB_MAX_RANKS;
[[maybe_unused]] constexpr uint32_t kAck = 2 * kMaxGrid * PKB_MAX_RANKS;

typedef uint16_t bf16_t; // raw bf16 bits

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

/// Whole block: after every thread's earlier stores, thread t (t in Mask,
/// t != rank) publishes Epoch into rank t's pad at Slot + rank.
/// bar.sync orders the block's stores before the signalling thread's
/// fence.sc.sys + st.release.sys (cumulative release).
__device__ __forceinline__ void signalPeers(const pkb_peer_view &V,
                                            uint32_t Slot, uint32_t Epoch,
                                            uint32_t Mask) {
  __syncthreads();
  int T = threadIdx.x;
  if (T < V.world_size && T != V.rank && ((Mask >> T) & 1u)) {
    __threadfence_system();
    storeRelease(V.signal_pads[T] + Slot + V.rank, Epoch);
  }
}

/// Whole block: thread t (t in Mask, t != rank) spins with ld.acquire.sys on
/// our pad at Slot + t until it holds >= Epoch; then bar.sync makes the
/// acquired data visible to the whole block.
__device__ __forceinline__ void waitPeers(const pkb_peer_view &V,
                                          uint32_t Slot, uint32_t Epoch,
                                          uint32_t Mask) {
  int T = threadIdx.x;
  if (T < V.world_size && T != V.rank && ((Mask >> T) & 1u)) {
    const uint32_t *P = V.signal_pads[V.rank] + Slot + T;
    while (loadAcquire(P) < Epoch) {
    }
  }
  __syncthreads();
}

__device__ __forceinline__ uint32_t allPeers(const pkb_peer_view &V) {
  return ((1u << V.world_size) - 1u) & ~(1u << V.rank);
}

__device__ __forceinline__ float2 unpack2(uint32_t W) {
  return make_float2(__uint_as_float(W << 16), __uint_as_float(W & 0xFFFF0000u));
}
__device__ __forceinline__ bf16_t toBf16(float F) {
  __nv_bfloat16 B = __float2bfloat16_rn(F);
  return *reinterpret_cast<bf16_t *>(&B);
}
__device__ __forceinline__ uint32_t pack2(float Lo, float Hi) {
  return uint32_t(toBf16(Lo)) | (uint32_t(toBf16(Hi)) << 16);
}
__device__ __forceinline__ float bf16f(bf16_t B) {
  return __uint_as_float(uint32_t(B) << 16);
}

/// Whole block: for i in [0, N): Dst[d][i] = sum_s Src[s][i] (bf16, fp32
/// accumulation, one rounding; a plain copy when NS == 1) for every one of
/// the ND destinations. 16-byte vector accesses when every pointer is
/// 16-byte aligned (scalar tail for N % 8), 2-byte accesses otherwise.
[[maybe_unused]] __device__ __forceinline__ void moveRange(bf16_t *const *Dst, int ND,
                                          const bf16_t *const *Src, int NS,
                                          size_t N) {
  uintptr_t Or = 0;
  for (int D = 0; D < ND; ++D)
    Or |= reinterpret_cast<uintptr_t>(Dst[D]);
  for (int S = 0; S < NS; ++S)
    Or |= reinterpret_cast<uintptr_t>(Src[S]);
  size_t N8 = (Or & 15) ? 0 : N / 8;
  size_t I = threadIdx.x;
  if (NS == 1) {
    const uint4 *S0 = reinterpret_cast<const uint4 *>(Src[0]);
    for (; I + 3 * blockDim.x < N8; I += 4 * blockDim.x) {
      uint4 A = S0[I], B = S0[I + blockDim.x], C = S0[I + 2 * blockDim.x],
            E = S0[I + 3 * blockDim.x];
      for (int D = 0; D < ND; ++D) {
        uint4 *O = reinterpret_cast<uint4 *>(Dst[D]);
        O[I] = A;
        O[I + blockDim.x] = B;
        O[I + 2 * blockDim.x] = C;
        O[I + 3 * blockDim.x] = E;
      }
    }
    for (; I < N8; I += blockDim.x) {
      uint4 A = S0[I];
      for (int D = 0; D < ND; ++D)
        reinterpret_cast<uint4 *>(Dst[D])[I] = A;
    }
  } else {
    for (; I < N8; I += blockDim.x) {
      float Acc[8] = {0, 0, 0, 0, 0, 0, 0, 0};
      for (int S = 0; S < NS; ++S) {
        uint4 V = reinterpret_cast<const uint4 *>(Src[S])[I];
        float2 F0 = unpack2(V.x), F1 = unpack2(V.y), F2 = unpack2(V.z),
               F3 = unpack2(V.w);
        Acc[0] += F0.x; Acc[1] += F0.y; Acc[2] += F1.x; Acc[3] += F1.y;
        Acc[4] += F2.x; Acc[5] += F2.y; Acc[6] += F3.x; Acc[7] += F3.y;
      }
      uint4 O;
      O.x = pack2(Acc[0], Acc[1]);
      O.y = pack2(Acc[2], Acc[3]);
      O.z = pack2(Acc[4], Acc[5]);
      O.w = pack2(Acc[6], Acc[7]);
      for (int D = 0; D < ND; ++D)
        reinterpret_cast<uint4 *>(Dst[D])[I] = O;
    }
  }
  // Scalar part: everything when misaligned, else the last N % 8 elements.
  for (size_t J = N8 * 8 + threadIdx.x; J < N; J += blockDim.x) {
    bf16_t R;
    if (NS == 1) {
      R = Src[0][J];
    } else {
      float Acc = 0;
      for (int S = 0; S < NS; ++S)
        Acc += bf16f(Src[S][J]);
      R = toBf16(Acc);
    }
    for (int D = 0; D < ND; ++D)
      Dst[D][J] = R;
  }
}

/// Block B's sub-range [Lo, Hi) of a range of N elements split over G
/// blocks in multiples of 8 elements (16 bytes); empty when Lo >= N.
[[maybe_unused]] __device__ __forceinline__ void blockRange(size_t N, int G, int B, size_t &Lo,
                                           size_t &Hi) {
  size_t Units = (N + 7) / 8;
  size_t Per = (Units + G - 1) / G * 8;
  Lo = size_t(B) * Per;
  Hi = Lo + Per;
  if (Lo > N)
    Lo = N;
  if (Hi > N)
    Hi = N;
}

/// Grid size for a per-block range of N elements: one block per 2048
/// elements (4 KiB), at most kMaxGrid. Depends only on N, so every rank
/// picks the same grid (block b pairs with block b of every peer).
[[maybe_unused]] inline int gridFor(size_t N) {
  size_t G = (N + 2047) / 2048;
  if (G < 1)
    G = 1;
  if (G > size_t(kMaxGrid))
    G = kMaxGrid;
  return int(G);
}

inline size_t roundUp16(size_t B) { return (B + 15) & ~size_t(15); }

/// Pointer to half H of symmetric buffer 0 of rank P, in elements.
__device__ __forceinline__ bf16_t *half(const pkb_peer_view &V, int P,
                                        size_t HalfBytes, uint32_t H) {
  return reinterpret_cast<bf16_t *>(static_cast<char *>(V.peers[P]) +
                                    size_t(H) * HalfBytes);
}
} // namespace

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
        reinterpret_cast<float *>(half(V, P, HalfBytes, H))[size_t(R) * M +
                                                             Row] = Acc;
  }
  signalPeers(V, kPhase0 + B * PKB_MAX_RANKS, Epoch, allPeers(V));
  waitPeers(V, kPhase0 + B * PKB_MAX_RANKS, Epoch, allPeers(V));
  const float *Sums = reinterpret_cast<const float *>(half(V, R, HalfBytes, H));
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
