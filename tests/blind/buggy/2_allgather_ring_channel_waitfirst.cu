// PKB problem 2 (allgather), bf16.
// BUGGY ON PURPOSE.
//
// Algorithm: ring all-gather in one kernel, per-block pipelines, a C++
// RingChannel handle whose __device__ members move data and signal/wait
// through this-> fields (inline PTX st.release.sys / ld.acquire.sys).
//   Every rank's symmetric buffer: 2 slots (call parity) x W regions of Cpad
//   elements (Cpad = max n rounded up to 8). Block b owns element range b of
//   every chunk on every rank and runs its own ring:
//     step s = 0 .. W-2: rank r sends chunk (r - s) mod W to next = r+1 (step
//       0 from x, later steps from the region it received at step s-1) into
//       next's slot, region (r - s) mod W, then posts flag
//       base + s + 1 (base = call_index * (W-1)) into next's pad slot b.
//     A forward at step s >= 1 must first wait for prev's flag >= base + s
//     (chunk (r-s) arrived at prev's step s-1); at the end the rank waits for
//     base + W - 1 and copies every received region to y (own chunk from x).
//   No exit barrier is needed: a rank writes next's slot again two calls
//   later, after its own ring of call c+1 completed, which transitively
//   required next to start call c+1 (so next finished reading call c).
//
// THE BUG (ringKernel, the line marked BUG in the step loop): the wait is
// placed at the top of every step with the value of the flag the step
// itself produces, `Ch.waitFor(Base + S + 1)`, instead of
// `if (S > 0) Ch.waitFor(Base + S)`. At step 0 every rank waits for its
// predecessor's step-0 post before making its own step-0 post: a
// wait-before-signal cycle around the whole ring.
// Expected symptom on a GPU: deadlock (the first call never finishes).
#include <pkb/pkb_abi.h>

#include <cuda_bf16.h>
#include <cuda_runtime.h>

namespace {

constexpr int kBlocks = 32;
constexpr int kThreads = 512;
constexpr uint32_t kRing = 0; // kRing + b: flag posted by the ring predecessor

__device__ __forceinline__ void stReleaseSys(uint32_t *A, uint32_t V) {
  asm volatile("st.release.sys.global.u32 [%0], %1;" ::"l"(A), "r"(V)
               : "memory");
}
__device__ __forceinline__ uint32_t ldAcquireSys(const uint32_t *A) {
  uint32_t V;
  asm volatile("ld.acquire.sys.global.u32 %0, [%1];"
               : "=r"(V)
               : "l"(A)
               : "memory");
  return V;
}

template <int VEC>
__device__ __forceinline__ void copyRange(__nv_bfloat16 *Dst,
                                          const __nv_bfloat16 *Src, size_t Lo,
                                          size_t Hi) {
  if constexpr (VEC == 8) {
    const uint4 *S4 = reinterpret_cast<const uint4 *>(Src);
    uint4 *D4 = reinterpret_cast<uint4 *>(Dst);
    for (size_t I = Lo / 8 + threadIdx.x; I < Hi / 8; I += blockDim.x)
      D4[I] = S4[I];
    for (size_t I = Hi / 8 * 8 + threadIdx.x; I < Hi; I += blockDim.x)
      Dst[I] = Src[I];
  } else {
    for (size_t I = Lo + threadIdx.x; I < Hi; I += blockDim.x)
      Dst[I] = Src[I];
  }
}

// One block's view of its ring: where it sends, where it receives, and the
// two flags.
struct RingChannel {
  __nv_bfloat16 *sendSlot;       // next rank's buffer, this call's slot
  const __nv_bfloat16 *recvSlot; // own buffer, this call's slot
  uint32_t *sendFlag;            // next rank's pad, slot kRing + b
  const uint32_t *recvFlag;      // own pad, slot kRing + b
  size_t cpad;
  size_t lo, hi;

  __device__ void waitFor(uint32_t Value) const {
    if (threadIdx.x == 0)
      while (ldAcquireSys(this->recvFlag) < Value) {
      }
    __syncthreads();
  }
  // All threads of the block must have stored their part before the post.
  __device__ void post(uint32_t Value) const {
    __syncthreads();
    if (threadIdx.x == 0) {
      __threadfence_system();
      stReleaseSys(this->sendFlag, Value);
    }
  }
  template <int VEC>
  __device__ void send(int Chunk, const __nv_bfloat16 *Src) const {
    copyRange<VEC>(this->sendSlot + size_t(Chunk) * this->cpad, Src, this->lo,
                   this->hi);
  }
  __device__ const __nv_bfloat16 *received(int Chunk) const {
    return this->recvSlot + size_t(Chunk) * this->cpad;
  }
};

struct RingArgs {
  pkb_peer_view view;
  const __nv_bfloat16 *x;
  __nv_bfloat16 *y;
  size_t n;
  size_t cpad;
  uint32_t slot;
  uint32_t base; // call_index * (W - 1)
};

template <int VEC>
__global__ void __launch_bounds__(kThreads) ringKernel(RingArgs A) {
  const int R = A.view.rank, W = A.view.world_size;
  const int Next = (R + 1) % W;
  size_t Units = (A.n + 7) / 8;
  size_t Per = (Units + kBlocks - 1) / kBlocks;
  size_t Lo = size_t(blockIdx.x) * Per * 8, Hi = Lo + Per * 8;
  Lo = Lo < A.n ? Lo : A.n;
  Hi = Hi < A.n ? Hi : A.n;

  const size_t SlotOff = size_t(A.slot) * size_t(W) * A.cpad;
  RingChannel Ch;
  Ch.sendSlot = static_cast<__nv_bfloat16 *>(A.view.peers[Next]) + SlotOff;
  Ch.recvSlot =
      static_cast<const __nv_bfloat16 *>(A.view.peers[R]) + SlotOff;
  Ch.sendFlag = A.view.signal_pads[Next] + kRing + blockIdx.x;
  Ch.recvFlag = A.view.signal_pads[R] + kRing + blockIdx.x;
  Ch.cpad = A.cpad;
  Ch.lo = Lo;
  Ch.hi = Hi;

  // Own chunk.
  copyRange<VEC>(A.y + size_t(R) * A.n, A.x, Lo, Hi);

  for (int S = 0; S < W - 1; ++S) {
    const int Chunk = (R - S + W) % W;
    Ch.waitFor(A.base + S + 1); // BUG: should be: if (S > 0) Ch.waitFor(A.base + S);
    const __nv_bfloat16 *Src = S == 0 ? A.x : Ch.received(Chunk);
    Ch.send<VEC>(Chunk, Src);
    Ch.post(A.base + S + 1);
  }

  Ch.waitFor(A.base + W - 1);
  for (int S = 1; S < W; ++S) {
    const int Chunk = (R - S + W) % W;
    copyRange<VEC>(A.y + size_t(Chunk) * A.n, Ch.received(Chunk), Lo, Hi);
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
  if (NumIn != 1 || NumOut != 1 || In[0].dtype != PKB_DTYPE_BF16 ||
      Ctx->world_size < 1)
    return 1;
  size_t N = size_t(In[0].shape[0]);
  Req->num_symm_buffers = 1;
  Req->symm_bytes[0] = 2 * size_t(Ctx->world_size) * roundUp8(N > 0 ? N : 8) *
                       sizeof(__nv_bfloat16);
  Req->workspace_bytes = 0;
  return 0;
}

extern "C" int pkb_candidate_setup(pkb_context *Ctx) {
  return (Ctx->world_size >= 1 && Ctx->world_size <= PKB_MAX_RANKS) ? 0 : 1;
}

extern "C" int pkb_candidate_run(pkb_context *Ctx, const pkb_tensor *In,
                                 int NumIn, pkb_tensor *Out, int NumOut) {
  if (NumIn != 1 || NumOut != 1)
    return 1;
  cudaStream_t St = static_cast<cudaStream_t>(Ctx->stream);
  const int W = Ctx->world_size;
  RingArgs A;
  A.view = Ctx->view;
  A.x = static_cast<const __nv_bfloat16 *>(In[0].data);
  A.y = static_cast<__nv_bfloat16 *>(Out[0].data);
  A.n = size_t(In[0].shape[0]);
  A.cpad = (Ctx->symm[0].bytes / sizeof(__nv_bfloat16) / (2 * size_t(W))) /
           8 * 8;
  A.slot = uint32_t(Ctx->call_index & 1);
  A.base = uint32_t(Ctx->call_index) * uint32_t(W - 1);
  if (A.n > A.cpad || size_t(Out[0].shape[0]) != size_t(W) * A.n)
    return 2;
  const bool Vec = A.n % 8 == 0 && aligned16(A.x) && aligned16(A.y) &&
                   aligned16(Ctx->symm[0].local);
  if (Vec)
    ringKernel<8><<<kBlocks, kThreads, 0, St>>>(A);
  else
    ringKernel<1><<<kBlocks, kThreads, 0, St>>>(A);
  return cudaGetLastError() == cudaSuccess ? 0 : 4;
}
