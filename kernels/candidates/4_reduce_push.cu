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
    const bf16_t *Mine = half(V, R, HalfBytes, H);
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
    bf16_t *D[1] = {half(V, kRoot, HalfBytes, H) + size_t(R) * Slot + Lo};
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
