//===- push_protocol.cuh - Shared pieces of the push-style candidates -----===//
//
// Device helpers used by every push-style candidate in kernels/candidates/
// (and their labelled buggy variants): signal-pad layout, system-scope
// release/acquire signalling between ranks, bf16 pack/unpack, the vectorized
// copy/reduce of a range, and the block partition of a range. Included with a
// quoted path so that the analyzer sees (and inlines) these bodies like any
// code of the candidate; the runtime's compile cache hashes quoted includes.
//
// Protocol sources: PTX ISA, "Memory Consistency Model" (release/acquire
// patterns, scope .sys for peers over NVLink); NCCL's LL/simple protocols
// for the epoch-flag idea (flags that only grow, no re-zeroing).
//
//===----------------------------------------------------------------------===//
#pragma once

#include <pkb/pkb_abi.h>

#include <cuda_bf16.h>
#include <cuda_runtime.h>
#include <stdint.h>

namespace pkb_push {
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
inline constexpr int kThreads = 512;
inline constexpr int kMaxGrid =
    128; // <= SM count of H100/H200: all co-resident
inline constexpr uint32_t kPhase0 = 0;
inline constexpr uint32_t kPhase1 = kMaxGrid * PKB_MAX_RANKS;
inline constexpr uint32_t kAck = 2 * kMaxGrid * PKB_MAX_RANKS;

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
__device__ __forceinline__ void waitPeers(const pkb_peer_view &V, uint32_t Slot,
                                          uint32_t Epoch, uint32_t Mask) {
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
  return make_float2(__uint_as_float(W << 16),
                     __uint_as_float(W & 0xFFFF0000u));
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
__device__ __forceinline__ void moveRange(bf16_t *const *Dst, int ND,
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
        Acc[0] += F0.x;
        Acc[1] += F0.y;
        Acc[2] += F1.x;
        Acc[3] += F1.y;
        Acc[4] += F2.x;
        Acc[5] += F2.y;
        Acc[6] += F3.x;
        Acc[7] += F3.y;
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
__device__ __forceinline__ void blockRange(size_t N, int G, int B, size_t &Lo,
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
inline int gridFor(size_t N) {
  size_t G = (N + 2047) / 2048;
  if (G < 1)
    G = 1;
  if (G > size_t(kMaxGrid))
    G = kMaxGrid;
  return int(G);
}

inline size_t roundUp16(size_t B) { return (B + 15) & ~size_t(15); }

/// Pointer to half H of symmetric buffer 0 of rank P, in elements.
__device__ __forceinline__ bf16_t *halfBuffer(const pkb_peer_view &V, int P,
                                              size_t HalfBytes, uint32_t H) {
  return reinterpret_cast<bf16_t *>(static_cast<char *>(V.peers[P]) +
                                    size_t(H) * HalfBytes);
}
} // namespace pkb_push
