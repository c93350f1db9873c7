// Candidate for PKB problem 1 (allreduce): bf16 sum all-reduce.
//
// BUGGY ON PURPOSE.
//   Bug: after pushing its slice into every peer's inbox, each block
//   publishes its per-block flag with a RELAXED system-scope store
//   (cuda::atomic_ref<..., thread_scope_system>::store(epoch,
//   memory_order_relaxed)) and no __threadfence_system() before it (see
//   "BUG" in oneShotPush). A correct version fences (fence.sc.sys) and uses
//   memory_order_release. Nothing orders the block's NVLink data stores
//   before the flag store, so a peer that acquires the flag may still read
//   old inbox contents.
//   Expected symptom: only visible on real NVLink with 2 GPUs (or more),
//   argued from the PTX memory model: the data stores of 512 threads and the
//   flag store of one thread to the same peer are not ordered by a
//   __syncthreads() alone (bar.sync is only CTA-scope; no release/fence at
//   sys scope), so the flag can become visible first and the reader sums
//   stale (previous-call-of-same-parity or 0xFF garbage) values. In a
//   typical test run this is rare and the candidate usually passes.
//
// Algorithm (the rest is correct): one-shot PUSH all-reduce, one kernel per
// call templated on the world size W (dispatch 2..8), per-block flags, inbox
// double-buffered by call parity.
//   symmetric buffer of rank p: inbox[h][q][0, N) for half h, sender q.
//   Block b owns elements [lo, hi) (multiple of 8, same on every rank):
//     1. for every q: x_r[lo, hi) -> inbox_q[h][r][lo, hi) (NVLink stores);
//     2. __syncthreads; thread q stores flag_q[b][r] = epoch;
//     3. thread q waits for flag_r[b][q] >= epoch (acquire), __syncthreads;
//     4. y[lo, hi) = sum_q inbox_r[h][q][lo, hi) (local loads, fp32).
//   Reuse: inbox half h is written again in call k+2; a rank's call k+1
//   kernel finishes only after every peer's call k+1 flags, sent after that
//   peer's call k kernel (the reader) finished.
// Epoch = call_index + 1; grid <= number of SMs, so all blocks co-resident.
#include <pkb/pkb_abi.h>

#include <cuda/atomic>
#include <cuda_bf16.h>
#include <cuda_runtime.h>

namespace {

constexpr int kThreads = 512;
constexpr int kMaxBlocks = 1024;
constexpr uint32_t kFlags = 128; // pad: kFlags + b * 8 + sender

using SysFlag = cuda::atomic_ref<uint32_t, cuda::thread_scope_system>;

__device__ __forceinline__ void addPack(float (&A)[8], const uint4 &V) {
  const __nv_bfloat162 *H = reinterpret_cast<const __nv_bfloat162 *>(&V);
#pragma unroll
  for (int K = 0; K < 4; ++K) {
    float2 F = __bfloat1622float2(H[K]);
    A[2 * K] += F.x;
    A[2 * K + 1] += F.y;
  }
}

template <int W>
__global__ void __launch_bounds__(kThreads)
    oneShotPush(pkb_peer_view View, const __nv_bfloat16 *X, __nv_bfloat16 *Y,
                size_t N, size_t Chunk, size_t HalfOff, uint32_t Epoch,
                int Vec) {
  const int R = View.rank;
  const int B = blockIdx.x;
  const int T = threadIdx.x;
  const size_t Lo = min(N, size_t(B) * Chunk);
  const size_t Hi = min(N, Lo + Chunk);
  const size_t VecEnd = Vec ? Lo + ((Hi - Lo) & ~size_t(7)) : Lo;

  // 1. push.
#pragma unroll
  for (int Q = 0; Q < W; ++Q) {
    __nv_bfloat16 *Dst = static_cast<__nv_bfloat16 *>(View.peers[Q]) +
                         HalfOff + size_t(R) * N;
    for (size_t I = Lo + size_t(T) * 8; I < VecEnd; I += size_t(kThreads) * 8)
      *reinterpret_cast<uint4 *>(Dst + I) =
          *reinterpret_cast<const uint4 *>(X + I);
    for (size_t I = VecEnd + T; I < Hi; I += kThreads)
      Dst[I] = X[I];
  }
  __syncthreads();

  // 2. signal.
  if (T < W) {
    // BUG: no __threadfence_system() and a relaxed store: the flag is not a
    // release of the block's NVLink stores above.
    SysFlag(View.signal_pads[T][kFlags + B * PKB_MAX_RANKS + R])
        .store(Epoch, cuda::memory_order_relaxed);
  }

  // 3. wait.
  if (T < W) {
    SysFlag F(View.signal_pads[R][kFlags + B * PKB_MAX_RANKS + T]);
    while (F.load(cuda::memory_order_acquire) < Epoch) {
    }
  }
  __syncthreads();

  // 4. reduce the W slots of this half.
  const __nv_bfloat16 *Inbox =
      static_cast<const __nv_bfloat16 *>(View.peers[R]) + HalfOff;
  for (size_t I = Lo + size_t(T) * 8; I < VecEnd; I += size_t(kThreads) * 8) {
    float A[8] = {0, 0, 0, 0, 0, 0, 0, 0};
#pragma unroll
    for (int Q = 0; Q < W; ++Q)
      addPack(A,
              *reinterpret_cast<const uint4 *>(Inbox + size_t(Q) * N + I));
    uint4 Out;
    __nv_bfloat162 *H = reinterpret_cast<__nv_bfloat162 *>(&Out);
#pragma unroll
    for (int K = 0; K < 4; ++K)
      H[K] = __floats2bfloat162_rn(A[2 * K], A[2 * K + 1]);
    *reinterpret_cast<uint4 *>(Y + I) = Out;
  }
  for (size_t I = VecEnd + T; I < Hi; I += kThreads) {
    float A = 0.f;
#pragma unroll
    for (int Q = 0; Q < W; ++Q)
      A += __bfloat162float(Inbox[size_t(Q) * N + I]);
    Y[I] = __float2bfloat16_rn(A);
  }
}

int GNumSms = 0;

template <int W>
cudaError_t launch(const pkb_context *Ctx, const __nv_bfloat16 *X,
                   __nv_bfloat16 *Y, size_t N, int Blocks, size_t Chunk,
                   size_t HalfOff, uint32_t Epoch, int Vec) {
  oneShotPush<W><<<Blocks, kThreads, 0,
                   static_cast<cudaStream_t>(Ctx->stream)>>>(
      Ctx->view, X, Y, N, Chunk, HalfOff, Epoch, Vec);
  return cudaGetLastError();
}

} // namespace

extern "C" int pkb_candidate_query(const pkb_context *Ctx, const pkb_tensor *In,
                                   int NumIn, const pkb_tensor *Out, int NumOut,
                                   pkb_requirements *Req) {
  (void)Out;
  if (NumIn != 1 || NumOut != 1 || In[0].dtype != PKB_DTYPE_BF16)
    return 1;
  Req->num_symm_buffers = 1;
  Req->symm_bytes[0] = 2 * size_t(Ctx->world_size) * size_t(In[0].shape[0]) *
                       sizeof(__nv_bfloat16);
  Req->workspace_bytes = 0;
  return 0;
}

extern "C" int pkb_candidate_setup(pkb_context *Ctx) {
  if (Ctx->world_size < 2 || Ctx->world_size > PKB_MAX_RANKS)
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
  const size_t N = size_t(In[0].shape[0]);
  if (N == 0 || N % 8)
    return 2;
  // Halves at a fixed split of the buffer (sized for the largest call).
  const size_t HalfElems =
      (Ctx->symm[0].bytes / sizeof(__nv_bfloat16) / 2) & ~size_t(7);
  if (W * N > HalfElems)
    return 3;
  const size_t HalfOff = (Ctx->call_index & 1) ? HalfElems : 0;

  size_t Want = (N + 4095) / 4096;
  int Blocks = int(Want < size_t(GNumSms) ? Want : size_t(GNumSms));
  if (Blocks < 1)
    Blocks = 1;
  size_t Chunk = (N + Blocks - 1) / Blocks;
  Chunk = (Chunk + 7) & ~size_t(7);

  const __nv_bfloat16 *X = static_cast<const __nv_bfloat16 *>(In[0].data);
  __nv_bfloat16 *Y = static_cast<__nv_bfloat16 *>(Out[0].data);
  const int Vec = ((reinterpret_cast<uintptr_t>(X) |
                    reinterpret_cast<uintptr_t>(Y)) % 16) == 0;
  const uint32_t Epoch = uint32_t(Ctx->call_index) + 1;
  cudaError_t E;
  switch (W) {
  case 2: E = launch<2>(Ctx, X, Y, N, Blocks, Chunk, HalfOff, Epoch, Vec); break;
  case 3: E = launch<3>(Ctx, X, Y, N, Blocks, Chunk, HalfOff, Epoch, Vec); break;
  case 4: E = launch<4>(Ctx, X, Y, N, Blocks, Chunk, HalfOff, Epoch, Vec); break;
  case 5: E = launch<5>(Ctx, X, Y, N, Blocks, Chunk, HalfOff, Epoch, Vec); break;
  case 6: E = launch<6>(Ctx, X, Y, N, Blocks, Chunk, HalfOff, Epoch, Vec); break;
  case 7: E = launch<7>(Ctx, X, Y, N, Blocks, Chunk, HalfOff, Epoch, Vec); break;
  case 8: E = launch<8>(Ctx, X, Y, N, Blocks, Chunk, HalfOff, Epoch, Vec); break;
  default: return 4;
  }
  return E == cudaSuccess ? 0 : 5;
}
