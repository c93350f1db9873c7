// BUGGY ON PURPOSE (pkbcheck test candidate). Bug: MISSING RELEASE before a
// signal. PKB problem 8, bf16 all-to-all: y_r[p*n + i] = x_p[r*n + i].
// One kernel, block b of G owns [lo, hi) of every chunk:
//   1. push chunk p [lo, hi) of x into slot `rank` of rank p's buffer;
//   2. bar.sync; thread p publishes the epoch into pad_p[kIn + b*8 + rank]
//      with cuda::atomic_ref<..., thread_scope_system>::store(
//      memory_order_RELAXED) and no fence before it  <-- BUG
//   3. thread p waits (acquire) for our pad[kIn + b*8 + p]; bar.sync;
//      y[p*n + lo, ...) = slot p of our buffer;
//   4. exit handshake (correct: fence + release / acquire) on kOut.
// Why it is a bug (PTX memory model, "Memory Consistency Model": release and
// acquire patterns): the reader's ld.acquire.sys synchronizes only with a
// release (or a fence.sc/acq_rel.sys before the flag store) of the writer.
// The flag store here is a relaxed morally-strong store with no preceding
// fence, so the block's NVLink data stores (other threads, ordered with the
// signalling thread only by bar.sync, i.e. at CTA scope) are not ordered
// before it at system scope: a peer may see the flag and read stale slot
// data. Only two GPUs can show it: with every rank oversubscribed on ONE GPU
// the data and the flag go through the same L2 and the stale read does not
// happen, so this file is labelled from the memory model (output-mismatch),
// not from a one-GPU run (expected to escape there: pass).
#include <pkb/pkb_abi.h>

#include <cuda/atomic>
#include <cuda_runtime.h>
#include <stdint.h>

namespace {
constexpr int kMaxGrid = 16;
constexpr uint32_t kIn = 0, kOut = kMaxGrid * PKB_MAX_RANKS;
using SysRef = cuda::atomic_ref<uint32_t, cuda::thread_scope_system>;

__global__ void alltoall(pkb_peer_view V, const uint16_t *X, uint16_t *Y,
                         size_t N, uint32_t Epoch) {
  const int R = V.rank, W = V.world_size, T = threadIdx.x;
  size_t Per = (N + gridDim.x - 1) / gridDim.x;
  size_t Lo = blockIdx.x * Per, Hi = Lo + Per < N ? Lo + Per : N;
  uint32_t B = blockIdx.x * PKB_MAX_RANKS;
  for (int P = 0; P < W; ++P)
    for (size_t I = Lo + T; I < Hi; I += blockDim.x) {
      uint16_t Val = X[size_t(P) * N + I];
      if (P == R)
        Y[size_t(R) * N + I] = Val;
      else
        static_cast<uint16_t *>(V.peers[P])[size_t(R) * N + I] = Val;
    }
  __syncthreads();
  if (T < W && T != R) {
    // BUG: relaxed store, no fence: the pushes above are not released.
    SysRef(V.signal_pads[T][kIn + B + R])
        .store(Epoch, cuda::memory_order_relaxed);
    SysRef In(V.signal_pads[R][kIn + B + T]);
    while (In.load(cuda::memory_order_acquire) < Epoch) {
    }
  }
  __syncthreads();
  const uint16_t *Mine = static_cast<const uint16_t *>(V.peers[R]);
  for (int P = 0; P < W; ++P)
    if (P != R)
      for (size_t I = Lo + T; I < Hi; I += blockDim.x)
        Y[size_t(P) * N + I] = Mine[size_t(P) * N + I];
  __syncthreads();
  if (T < W && T != R) {
    __threadfence_system();
    SysRef(V.signal_pads[T][kOut + B + R])
        .store(Epoch, cuda::memory_order_release);
    SysRef In(V.signal_pads[R][kOut + B + T]);
    while (In.load(cuda::memory_order_acquire) < Epoch) {
    }
  }
}

inline size_t numel(const pkb_tensor &T) {
  size_t N = 1;
  for (int I = 0; I < T.ndim; ++I)
    N *= size_t(T.shape[I]);
  return N;
}
} // namespace

extern "C" int pkb_candidate_query(const pkb_context *Ctx, const pkb_tensor *In,
                                   int NumIn, const pkb_tensor *Out, int NumOut,
                                   pkb_requirements *Req) {
  if (NumIn != 1 || NumOut != 1 || In[0].dtype != PKB_DTYPE_BF16)
    return 1;
  Req->num_symm_buffers = 1;
  Req->symm_bytes[0] = numel(In[0]) * 2;
  Req->workspace_bytes = 0;
  return 0;
}

extern "C" int pkb_candidate_setup(pkb_context *Ctx) {
  return Ctx->world_size <= PKB_MAX_RANKS ? 0 : 1;
}

extern "C" int pkb_candidate_run(pkb_context *Ctx, const pkb_tensor *In,
                                 int NumIn, pkb_tensor *Out, int NumOut) {
  size_t Total = numel(In[0]), W = size_t(Ctx->world_size);
  if (Total % W || Total * 2 > Ctx->symm[0].bytes)
    return 2;
  size_t N = Total / W;
  size_t G = (N + 1023) / 1024;
  int Grid = int(G < 1 ? 1 : (G > kMaxGrid ? kMaxGrid : G));
  alltoall<<<Grid, 256, 0, static_cast<cudaStream_t>(Ctx->stream)>>>(
      Ctx->view, static_cast<const uint16_t *>(In[0].data),
      static_cast<uint16_t *>(Out[0].data), N, uint32_t(Ctx->call_index) + 1);
  return cudaGetLastError() == cudaSuccess ? 0 : 4;
}
