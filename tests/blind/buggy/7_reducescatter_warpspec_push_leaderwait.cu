// Candidate for PKB problem 7 (reducescatter): bf16 sum.
//
// BUGGY ON PURPOSE.
//   Bug: in the consumer half of each block only the consumer leader (lane 0
//   of the first consumer warp) polls the arrival flags; the other consumer
//   warps are released by nothing but a __syncwarp() of the leader's own
//   warp (see "BUG" in the consumer branch of pushReduceScatter). The
//   missing piece is a named barrier over all consumer warps
//   (bar.sync 2, kConsumerThreads) after the leader's wait, so consumer
//   warps 1..7 read the inbox before the producers of any rank (this one
//   included) have written it.
//   Expected symptom on a GPU: wrong-output (reduced values contain the
//   0xFF garbage = bf16 NaN of the untouched symmetric buffer in the first
//   call, and stale inputs from call k-2 of the same parity afterwards).
//
// Algorithm (the rest is correct): single kernel, warp-specialized, PUSH,
// inbox double-buffered by call parity, per-block flags.
//   symmetric buffer of rank p: inbox[h][q][0, nPad) for half h in {0, 1}
//   and sender q; nPad = n rounded up to 8.
//   Block b owns the element slice [lo, hi) of a shard (same on every rank).
//   Warps 0..7 (producers): for every destination q, copy
//     x_r[q*n + lo, q*n + hi) -> inbox_q[h][r][lo, hi) (NVLink stores),
//     bar.sync 1 over the producers, then thread q: fence.sc.sys +
//     st.release.sys flag_q[b][r] = epoch.
//   Warps 8..15 (consumers): wait until flag_r[b][q] >= epoch for all q,
//     then y[lo, hi) = sum_q inbox_r[h][q][lo, hi) in fp32.
//   Reuse: rank r writes inbox_q[h] again only in call k+2; its call k+1
//   kernel could only finish after every rank's call k+1 flags, sent after
//   that rank's call k kernel (the reader of inbox[h]) had finished.
// Epoch = call_index + 1; grid <= number of SMs (one block per SM, all
// co-resident).
#include <pkb/pkb_abi.h>

#include <cuda_bf16.h>
#include <cuda_runtime.h>

namespace {

constexpr int kThreads = 512;
constexpr int kProducerThreads = 256; // warps 0..7
constexpr int kConsumerThreads = kThreads - kProducerThreads;
constexpr int kMaxBlocks = 1024;
constexpr uint32_t kFlags = 0; // pad: [b * 8 + sender]

__device__ __forceinline__ void stReleaseSys(uint32_t *P, uint32_t V) {
  asm volatile("st.release.sys.global.u32 [%0], %1;" ::"l"(P), "r"(V)
               : "memory");
}
__device__ __forceinline__ uint32_t ldAcquireSys(const uint32_t *P) {
  uint32_t V;
  asm volatile("ld.acquire.sys.global.u32 %0, [%1];"
               : "=r"(V)
               : "l"(P)
               : "memory");
  return V;
}
__device__ __forceinline__ void namedBarrier(int Id, int Count) {
  asm volatile("bar.sync %0, %1;" ::"r"(Id), "r"(Count) : "memory");
}

__device__ __forceinline__ void addPack(float (&A)[8], const uint4 &V) {
  const __nv_bfloat162 *H = reinterpret_cast<const __nv_bfloat162 *>(&V);
#pragma unroll
  for (int K = 0; K < 4; ++K) {
    float2 F = __bfloat1622float2(H[K]);
    A[2 * K] += F.x;
    A[2 * K + 1] += F.y;
  }
}

struct Layout {
  size_t N;       // shard elements
  size_t NPad;    // slot stride in elements (multiple of 8)
  size_t HalfOff; // element offset of the current half
  size_t Chunk;   // slice per block (multiple of 8)
};

__global__ void __launch_bounds__(kThreads)
    pushReduceScatter(pkb_peer_view View, const __nv_bfloat16 *X,
                      __nv_bfloat16 *Y, Layout L, uint32_t Epoch, int VecIn,
                      int VecOut) {
  const int W = View.world_size;
  const int R = View.rank;
  const int B = blockIdx.x;
  const size_t Lo = min(L.N, size_t(B) * L.Chunk);
  const size_t Hi = min(L.N, Lo + L.Chunk);
  const int T = threadIdx.x;

  if (T < kProducerThreads) {
    // ---- producers: push shard q of x to rank q's inbox slot R.
    const size_t VecEnd = VecIn ? Lo + ((Hi - Lo) & ~size_t(7)) : Lo;
    for (int Q = 0; Q < W; ++Q) {
      const __nv_bfloat16 *Src = X + size_t(Q) * L.N;
      __nv_bfloat16 *Dst = static_cast<__nv_bfloat16 *>(View.peers[Q]) +
                           L.HalfOff + size_t(R) * L.NPad;
      for (size_t I = Lo + size_t(T) * 8; I < VecEnd;
           I += size_t(kProducerThreads) * 8)
        *reinterpret_cast<uint4 *>(Dst + I) =
            *reinterpret_cast<const uint4 *>(Src + I);
      for (size_t I = VecEnd + T; I < Hi; I += kProducerThreads)
        Dst[I] = Src[I];
    }
    namedBarrier(1, kProducerThreads);
    if (T < W) {
      __threadfence_system();
      stReleaseSys(View.signal_pads[T] + kFlags + B * PKB_MAX_RANKS + R,
                   Epoch);
    }
    return;
  }

  // ---- consumers.
  const int C = T - kProducerThreads;
  if (C == 0) {
    for (int Q = 0; Q < W; ++Q) {
      const uint32_t *F = View.signal_pads[R] + kFlags + B * PKB_MAX_RANKS + Q;
      while (ldAcquireSys(F) < Epoch) {
      }
    }
  }
  __syncwarp(); // BUG: releases only consumer warp 0; warps 1..7 of the
                // consumer group must wait on namedBarrier(2, kConsumerThreads)

  const __nv_bfloat16 *Inbox =
      static_cast<const __nv_bfloat16 *>(View.peers[R]) + L.HalfOff;
  const size_t VecEnd = VecOut ? Lo + ((Hi - Lo) & ~size_t(7)) : Lo;
  for (size_t I = Lo + size_t(C) * 8; I < VecEnd;
       I += size_t(kConsumerThreads) * 8) {
    float A[8] = {0, 0, 0, 0, 0, 0, 0, 0};
    for (int Q = 0; Q < W; ++Q)
      addPack(A, *reinterpret_cast<const uint4 *>(Inbox + size_t(Q) * L.NPad +
                                                  I));
    uint4 Out;
    __nv_bfloat162 *H = reinterpret_cast<__nv_bfloat162 *>(&Out);
#pragma unroll
    for (int K = 0; K < 4; ++K)
      H[K] = __floats2bfloat162_rn(A[2 * K], A[2 * K + 1]);
    *reinterpret_cast<uint4 *>(Y + I) = Out;
  }
  for (size_t I = VecEnd + C; I < Hi; I += kConsumerThreads) {
    float A = 0.f;
    for (int Q = 0; Q < W; ++Q)
      A += __bfloat162float(Inbox[size_t(Q) * L.NPad + I]);
    Y[I] = __float2bfloat16_rn(A);
  }
}

int GNumSms = 0;

size_t padTo8(size_t N) { return (N + 7) & ~size_t(7); }

} // namespace

extern "C" int pkb_candidate_query(const pkb_context *Ctx, const pkb_tensor *In,
                                   int NumIn, const pkb_tensor *Out, int NumOut,
                                   pkb_requirements *Req) {
  if (NumIn != 1 || NumOut != 1 || In[0].dtype != PKB_DTYPE_BF16)
    return 1;
  size_t W = size_t(Ctx->world_size);
  size_t NPad = padTo8(size_t(Out[0].shape[0]));
  Req->num_symm_buffers = 1;
  Req->symm_bytes[0] = 2 * W * NPad * sizeof(__nv_bfloat16);
  Req->workspace_bytes = 0;
  return 0;
}

extern "C" int pkb_candidate_setup(pkb_context *Ctx) {
  if (Ctx->world_size < 1 || Ctx->world_size > PKB_MAX_RANKS)
    return 1;
  if (cudaDeviceGetAttribute(&GNumSms, cudaDevAttrMultiProcessorCount,
                             Ctx->device) != cudaSuccess)
    return 2;
  if (GNumSms > kMaxBlocks)
    GNumSms = kMaxBlocks;
  return GNumSms > 0 ? 0 : 3;
}

extern "C" int pkb_candidate_run(pkb_context *Ctx, const pkb_tensor *In,
                                 int NumIn, pkb_tensor *Out, int NumOut) {
  if (NumIn != 1 || NumOut != 1)
    return 1;
  const size_t W = size_t(Ctx->world_size);
  Layout L;
  L.N = size_t(Out[0].shape[0]);
  if (size_t(In[0].shape[0]) != W * L.N)
    return 2;
  L.NPad = padTo8(L.N);
  // Halves at a fixed split of the buffer (sized for the largest call).
  const size_t HalfElems =
      (Ctx->symm[0].bytes / sizeof(__nv_bfloat16) / 2) & ~size_t(7);
  if (W * L.NPad > HalfElems)
    return 3;
  L.HalfOff = (Ctx->call_index & 1) ? HalfElems : 0;

  size_t Want = (L.N + 4095) / 4096;
  int Blocks = int(Want < size_t(GNumSms) ? Want : size_t(GNumSms));
  if (Blocks < 1)
    Blocks = 1;
  L.Chunk = padTo8((L.N + Blocks - 1) / Blocks);

  const int VecIn =
      L.N % 8 == 0 && reinterpret_cast<uintptr_t>(In[0].data) % 16 == 0;
  const int VecOut = reinterpret_cast<uintptr_t>(Out[0].data) % 16 == 0;
  const uint32_t Epoch = uint32_t(Ctx->call_index) + 1;
  pushReduceScatter<<<Blocks, kThreads, 0,
                      static_cast<cudaStream_t>(Ctx->stream)>>>(
      Ctx->view, static_cast<const __nv_bfloat16 *>(In[0].data),
      static_cast<__nv_bfloat16 *>(Out[0].data), L, Epoch, VecIn, VecOut);
  return cudaGetLastError() == cudaSuccess ? 0 : 4;
}
