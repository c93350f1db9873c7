// PKB problem 6 (gather to root 0), bf16.
// BUGGY ON PURPOSE.
//
// Algorithm: single-kernel push gather with per-block flags.
//   The root's symmetric buffer holds W regions of Cpad elements (Cpad = max
//   n rounded up to 8; every rank allocates the same, only the root's is
//   used). Element range b of every chunk belongs to block b on every rank
//   (kBlocks blocks everywhere).
//   sender p != 0, block b: threads t < kBlocks spin (acquire) until the
//     root acknowledged call c-1 for every block (ack[t] >= epoch-1 in the
//     sender's own pad: the root finished reading the region), the block
//     stores x[range] into region p of the root's buffer (NVLink), then
//     thread 0 sets data flag (p, b) = epoch in the root's pad.
//   root, block b: thread t < W spins (acquire) on data flag (t, b), the
//     block copies range b of every region p to y[p*n + range] (its own chunk
//     straight from x), then thread t stores ack b = epoch into rank t's pad
//     (cuda::atomic_ref<uint32_t, thread_scope_system>, release).
//   Copies are a template over the element type moved per thread: uint4
//   (8 bf16, when n % 8 == 0 and pointers are 16-byte aligned) with a scalar
//   tail, or unsigned short.
//
// THE BUG (pushKernel, the data-flag store marked BUG below): the sender
// publishes its data flag with a RELAXED system-scope store right after
// __syncthreads(), with no release semantics and no fence.sc/acq_rel.sys
// (__threadfence_system) before it. __syncthreads() only orders the block's
// NVLink data stores at CTA scope; nothing makes them visible to the root
// before the flag, so the root's acquire load can observe the flag and then
// read stale data (the previous call's chunk or 0xFF garbage in the first
// call) from its own buffer.
// Expected symptom: only visible on real NVLink with 2 GPUs, argued from the
// PTX memory model (a relaxed flag store does not synchronize with the
// root's acquire); on a GPU run it will usually pass, occasionally
// wrong-output.
#include <pkb/pkb_abi.h>

#include <cuda/atomic>
#include <cuda_bf16.h>
#include <cuda_runtime.h>

namespace {

constexpr int kRoot = 0;
constexpr int kBlocks = 64;
constexpr int kThreads = 512;
constexpr uint32_t kData = 0;  // kData + p*kBlocks + b in the root's pad
constexpr uint32_t kAck = 1024; // kAck + b in every sender's pad

using SysFlag = cuda::atomic_ref<uint32_t, cuda::thread_scope_system>;

template <typename T> struct Lanes {
  static constexpr size_t value = sizeof(T) / sizeof(unsigned short);
};

// Block-wide copy of element range [Lo, Hi) (Lo a multiple of 8) moving T per
// thread, then the scalar tail.
template <typename T>
__device__ __forceinline__ void copyRange(unsigned short *Dst,
                                          const unsigned short *Src, size_t Lo,
                                          size_t Hi) {
  constexpr size_t L = Lanes<T>::value;
  const size_t V0 = Lo / L, V1 = Hi / L;
  const T *SrcT = reinterpret_cast<const T *>(Src);
  T *DstT = reinterpret_cast<T *>(Dst);
  for (size_t I = V0 + threadIdx.x; I < V1; I += blockDim.x)
    DstT[I] = SrcT[I];
  for (size_t I = V1 * L + threadIdx.x; I < Hi; I += blockDim.x)
    Dst[I] = Src[I];
}

struct GatherArgs {
  pkb_peer_view view;
  size_t n;
  size_t cpad;
  uint32_t epoch;
};

__device__ __forceinline__ void blockRange(size_t N, size_t &Lo, size_t &Hi) {
  size_t Units = (N + 7) / 8;
  size_t Per = (Units + kBlocks - 1) / kBlocks;
  Lo = size_t(blockIdx.x) * Per * 8;
  Hi = Lo + Per * 8;
  Lo = Lo < N ? Lo : N;
  Hi = Hi < N ? Hi : N;
}

template <typename T>
__global__ void __launch_bounds__(kThreads)
    pushKernel(GatherArgs A, const unsigned short *X) {
  const int Me = A.view.rank;
  size_t Lo, Hi;
  blockRange(A.n, Lo, Hi);
  // The root must be done with call c-1 in every block before we overwrite.
  if (threadIdx.x < kBlocks) {
    SysFlag Ack(A.view.signal_pads[Me][kAck + threadIdx.x]);
    while (Ack.load(cuda::memory_order_acquire) + 1 < A.epoch) {
    }
  }
  __syncthreads();
  unsigned short *Region =
      static_cast<unsigned short *>(A.view.peers[kRoot]) + size_t(Me) * A.cpad;
  copyRange<T>(Region, X, Lo, Hi);
  __syncthreads();
  if (threadIdx.x == 0) {
    SysFlag Flag(
        A.view.signal_pads[kRoot][kData + Me * kBlocks + blockIdx.x]);
    Flag.store(A.epoch, cuda::memory_order_relaxed); // BUG: no fence/release
  }
}

template <typename T>
__global__ void __launch_bounds__(kThreads)
    rootKernel(GatherArgs A, const unsigned short *X, unsigned short *Y) {
  const int W = A.view.world_size;
  size_t Lo, Hi;
  blockRange(A.n, Lo, Hi);
  copyRange<T>(Y + size_t(kRoot) * A.n, X, Lo, Hi);
  if (int(threadIdx.x) < W && int(threadIdx.x) != kRoot) {
    SysFlag Flag(
        A.view.signal_pads[kRoot][kData + threadIdx.x * kBlocks + blockIdx.x]);
    while (Flag.load(cuda::memory_order_acquire) < A.epoch) {
    }
  }
  __syncthreads();
  const unsigned short *Base =
      static_cast<const unsigned short *>(A.view.peers[kRoot]);
  for (int P = 0; P < W; ++P) {
    if (P == kRoot)
      continue;
    copyRange<T>(Y + size_t(P) * A.n, Base + size_t(P) * A.cpad, Lo, Hi);
  }
  __syncthreads();
  if (int(threadIdx.x) < W && int(threadIdx.x) != kRoot) {
    SysFlag Ack(A.view.signal_pads[threadIdx.x][kAck + blockIdx.x]);
    Ack.store(A.epoch, cuda::memory_order_release);
  }
}

bool aligned16(const void *P) {
  return (reinterpret_cast<uintptr_t>(P) & 15u) == 0;
}

size_t roundUp8(size_t V) { return (V + 7) / 8 * 8; }

} // namespace

extern "C" int pkb_candidate_query(const pkb_context *Ctx, const pkb_tensor *In,
                                   int NumIn, const pkb_tensor *Out, int NumOut,
                                   pkb_requirements *Req) {
  if (NumIn != 1 || In[0].dtype != PKB_DTYPE_BF16 || Ctx->world_size < 1)
    return 1;
  size_t N = size_t(In[0].shape[0]);
  Req->num_symm_buffers = 1;
  Req->symm_bytes[0] = size_t(Ctx->world_size) * roundUp8(N > 0 ? N : 8) *
                       sizeof(__nv_bfloat16);
  Req->workspace_bytes = 0;
  return 0;
}

extern "C" int pkb_candidate_setup(pkb_context *Ctx) {
  if (Ctx->world_size < 1 || Ctx->world_size > PKB_MAX_RANKS)
    return 1;
  return kAck + kBlocks <= Ctx->signal_pad_bytes / sizeof(uint32_t) ? 0 : 1;
}

extern "C" int pkb_candidate_run(pkb_context *Ctx, const pkb_tensor *In,
                                 int NumIn, pkb_tensor *Out, int NumOut) {
  if (NumIn != 1)
    return 1;
  cudaStream_t S = static_cast<cudaStream_t>(Ctx->stream);
  const int W = Ctx->world_size;
  GatherArgs A;
  A.view = Ctx->view;
  A.n = size_t(In[0].shape[0]);
  A.cpad = (Ctx->symm[0].bytes / sizeof(__nv_bfloat16) / size_t(W)) / 8 * 8;
  A.epoch = uint32_t(Ctx->call_index) + 1;
  if (A.n > A.cpad)
    return 2;
  const auto *X = static_cast<const unsigned short *>(In[0].data);
  bool Vec = A.n % 8 == 0 && aligned16(X) && aligned16(Ctx->symm[0].local);

  if (Ctx->rank == kRoot) {
    if (NumOut != 1 || size_t(Out[0].shape[0]) != size_t(W) * A.n)
      return 1;
    auto *Y = static_cast<unsigned short *>(Out[0].data);
    if (Vec && aligned16(Y))
      rootKernel<uint4><<<kBlocks, kThreads, 0, S>>>(A, X, Y);
    else
      rootKernel<unsigned short><<<kBlocks, kThreads, 0, S>>>(A, X, Y);
  } else {
    if (Vec)
      pushKernel<uint4><<<kBlocks, kThreads, 0, S>>>(A, X);
    else
      pushKernel<unsigned short><<<kBlocks, kThreads, 0, S>>>(A, X);
  }
  return cudaGetLastError() == cudaSuccess ? 0 : 4;
}
