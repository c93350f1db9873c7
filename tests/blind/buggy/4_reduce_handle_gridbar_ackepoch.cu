// Candidate for PKB problem 4 (reduce to root 0): bf16 sum.
//
// BUGGY ON PURPOSE.
//   Bug: RootLink::waitSlotFree() (non-root side) waits for the root's
//   acknowledgement of the CURRENT epoch (ack >= this->Epoch) instead of the
//   previous one (ack >= this->Epoch - 1). The root sends the ack of epoch e
//   only after it has received every non-root's data of epoch e, and a
//   non-root sends its data only after waitSlotFree() returns: a
//   wait-before-signal cycle between the root and every non-root.
//   Expected symptom on a GPU: deadlock in the very first call (every W >= 2,
//   every size): non-roots spin in waitSlotFree, the root spins in
//   awaitContribution.
//
// Algorithm (the rest is correct): one persistent kernel per call, one
// 512-thread block per SM, a hand-written grid barrier (monotonic counter on
// this rank's own signal pad, gpu-scope atomics, generation = 2 * call + k),
// PUSH to the root, one flag per rank, through a "RootLink" handle whose
// member functions signal and wait on this->... pad pointers:
//   non-root r: waitSlotFree (root done reading inbox slot r-1 of the last
//     call) | grid barrier | push x_r into the root's inbox slot r-1 (NVLink
//     stores) | grid barrier | publish (fence.sc.sys + st.release.sys
//     arrive[r] = epoch on the root's pad);
//   root: awaitContribution(p) for every p > 0 | grid barrier |
//     y = x_0 + sum_p inbox[p-1] (fp32) | grid barrier | freeSlot(p):
//     st.release.sys ack = epoch on p's pad.
// Epoch = call_index + 1. Vectors of 8 bf16 with a scalar tail.
#include <pkb/pkb_abi.h>

#include <cuda_bf16.h>
#include <cuda_runtime.h>

namespace {

constexpr int kThreads = 512;
constexpr int kRoot = 0;
constexpr uint32_t kArrive = 0;        // root pad: [0, 8) by sender
constexpr uint32_t kAck = 32;          // non-root pads: one ack slot
constexpr uint32_t kGridCounter = 64;  // own pad: grid barrier counter
constexpr uint32_t kPhasesPerCall = 2;

__device__ __forceinline__ uint32_t ldAcquireSys(const uint32_t *P) {
  uint32_t V;
  asm volatile("ld.acquire.sys.global.u32 %0, [%1];"
               : "=r"(V)
               : "l"(P)
               : "memory");
  return V;
}
__device__ __forceinline__ uint32_t ldAcquireGpu(const uint32_t *P) {
  uint32_t V;
  asm volatile("ld.acquire.gpu.global.u32 %0, [%1];"
               : "=r"(V)
               : "l"(P)
               : "memory");
  return V;
}
__device__ __forceinline__ void stReleaseSys(uint32_t *P, uint32_t V) {
  asm volatile("st.release.sys.global.u32 [%0], %1;" ::"l"(P), "r"(V)
               : "memory");
}

// Rank <-> root handshake.
struct RootLink {
  uint32_t *Pads[PKB_MAX_RANKS];
  int Rank;
  int World;
  uint32_t Epoch;

  __device__ explicit RootLink(const pkb_peer_view &View, uint32_t E)
      : Rank(View.rank), World(View.world_size), Epoch(E) {
#pragma unroll
    for (int P = 0; P < PKB_MAX_RANKS; ++P)
      Pads[P] = View.signal_pads[P];
  }

  // Non-root: the root no longer reads our inbox slot.
  __device__ void waitSlotFree() const {
    const uint32_t *Ack = this->Pads[this->Rank] + kAck;
    while (ldAcquireSys(Ack) < this->Epoch) { // BUG: must be this->Epoch - 1
    }
  }
  // Non-root: our inbox slot on the root holds this epoch's data.
  __device__ void publish() const {
    __threadfence_system();
    stReleaseSys(this->Pads[kRoot] + kArrive + this->Rank, this->Epoch);
  }
  // Root: rank P's data of this epoch has arrived.
  __device__ void awaitContribution(int P) const {
    const uint32_t *Arrive = this->Pads[kRoot] + kArrive + P;
    while (ldAcquireSys(Arrive) < this->Epoch) {
    }
  }
  // Root: rank P may overwrite its slot again.
  __device__ void freeSlot(int P) const {
    __threadfence_system();
    stReleaseSys(this->Pads[P] + kAck, this->Epoch);
  }
};

// Grid barrier for a grid whose blocks are all co-resident. The counter only
// grows: generation G is complete when it reaches G * gridDim.x.
struct GridBarrier {
  uint32_t *Counter;

  __device__ void sync(uint32_t Gen) const {
    __syncthreads();
    if (threadIdx.x == 0) {
      __threadfence_system(); // this block's (NVLink) stores first
      atomicAdd(this->Counter, 1u);
      const uint32_t Target = Gen * gridDim.x;
      while (ldAcquireGpu(this->Counter) < Target) {
      }
    }
    __syncthreads();
  }
};

__device__ __forceinline__ void addPack(float (&A)[8], const uint4 &V) {
  const __nv_bfloat162 *H = reinterpret_cast<const __nv_bfloat162 *>(&V);
#pragma unroll
  for (int K = 0; K < 4; ++K) {
    float2 F = __bfloat1622float2(H[K]);
    A[2 * K] += F.x;
    A[2 * K + 1] += F.y;
  }
}

__global__ void __launch_bounds__(kThreads)
    reduceKernel(pkb_peer_view View, const __nv_bfloat16 *X, __nv_bfloat16 *Y,
                 size_t N, size_t NPad, uint32_t CallIndex, int Vec) {
  const RootLink Link(View, CallIndex + 1);
  const GridBarrier Bar{View.signal_pads[View.rank] + kGridCounter};
  const uint32_t Gen0 = CallIndex * kPhasesPerCall;
  const int R = View.rank;
  const int W = View.world_size;
  const bool Leader = blockIdx.x == 0;
  const size_t Tid = size_t(blockIdx.x) * blockDim.x + threadIdx.x;
  const size_t Stride = size_t(gridDim.x) * blockDim.x;
  const size_t VecEnd = Vec ? (N & ~size_t(7)) : 0;

  if (R != kRoot) {
    if (Leader && threadIdx.x == 0)
      Link.waitSlotFree();
    Bar.sync(Gen0 + 1);
    __nv_bfloat16 *Slot =
        static_cast<__nv_bfloat16 *>(View.peers[kRoot]) + size_t(R - 1) * NPad;
    for (size_t I = Tid * 8; I < VecEnd; I += Stride * 8)
      *reinterpret_cast<uint4 *>(Slot + I) =
          *reinterpret_cast<const uint4 *>(X + I);
    for (size_t I = VecEnd + Tid; I < N; I += Stride)
      Slot[I] = X[I];
    Bar.sync(Gen0 + 2);
    if (Leader && threadIdx.x == 0)
      Link.publish();
    return;
  }

  // Root.
  if (Leader && threadIdx.x > 0 && int(threadIdx.x) < W)
    Link.awaitContribution(threadIdx.x);
  Bar.sync(Gen0 + 1);
  const __nv_bfloat16 *Inbox =
      static_cast<const __nv_bfloat16 *>(View.peers[kRoot]);
  for (size_t I = Tid * 8; I < VecEnd; I += Stride * 8) {
    float A[8] = {0, 0, 0, 0, 0, 0, 0, 0};
    addPack(A, *reinterpret_cast<const uint4 *>(X + I));
    for (int P = 1; P < W; ++P)
      addPack(A, *reinterpret_cast<const uint4 *>(Inbox + size_t(P - 1) * NPad +
                                                  I));
    uint4 Out;
    __nv_bfloat162 *H = reinterpret_cast<__nv_bfloat162 *>(&Out);
#pragma unroll
    for (int K = 0; K < 4; ++K)
      H[K] = __floats2bfloat162_rn(A[2 * K], A[2 * K + 1]);
    *reinterpret_cast<uint4 *>(Y + I) = Out;
  }
  for (size_t I = VecEnd + Tid; I < N; I += Stride) {
    float A = __bfloat162float(X[I]);
    for (int P = 1; P < W; ++P)
      A += __bfloat162float(Inbox[size_t(P - 1) * NPad + I]);
    Y[I] = __float2bfloat16_rn(A);
  }
  Bar.sync(Gen0 + 2);
  if (Leader && threadIdx.x > 0 && int(threadIdx.x) < W)
    Link.freeSlot(threadIdx.x);
}

int GBlocks = 0; // fixed for the life of the worker: the grid counter needs it

size_t padTo8(size_t N) { return (N + 7) & ~size_t(7); }

} // namespace

extern "C" int pkb_candidate_query(const pkb_context *Ctx, const pkb_tensor *In,
                                   int NumIn, const pkb_tensor *Out, int NumOut,
                                   pkb_requirements *Req) {
  (void)Out;
  (void)NumOut;
  if (NumIn != 1 || In[0].dtype != PKB_DTYPE_BF16)
    return 1;
  size_t Slots = Ctx->world_size > 1 ? size_t(Ctx->world_size - 1) : 1;
  Req->num_symm_buffers = 1;
  Req->symm_bytes[0] =
      Slots * padTo8(size_t(In[0].shape[0])) * sizeof(__nv_bfloat16);
  Req->workspace_bytes = 0;
  return 0;
}

extern "C" int pkb_candidate_setup(pkb_context *Ctx) {
  if (Ctx->world_size < 2 || Ctx->world_size > PKB_MAX_RANKS)
    return 1;
  int Sms = 0, PerSm = 0;
  if (cudaDeviceGetAttribute(&Sms, cudaDevAttrMultiProcessorCount,
                             Ctx->device) != cudaSuccess)
    return 2;
  if (cudaOccupancyMaxActiveBlocksPerMultiprocessor(&PerSm, reduceKernel,
                                                    kThreads, 0) != cudaSuccess ||
      PerSm < 1)
    return 3;
  GBlocks = Sms; // one block per SM: all co-resident
  return 0;
}

extern "C" int pkb_candidate_run(pkb_context *Ctx, const pkb_tensor *In,
                                 int NumIn, pkb_tensor *Out, int NumOut) {
  const bool Root = Ctx->rank == kRoot;
  if (NumIn != 1 || NumOut != (Root ? 1 : 0))
    return 1;
  const size_t N = size_t(In[0].shape[0]);
  const size_t NPad = padTo8(N);
  if (size_t(Ctx->world_size - 1) * NPad * sizeof(__nv_bfloat16) >
      Ctx->symm[0].bytes)
    return 2;
  const __nv_bfloat16 *X = static_cast<const __nv_bfloat16 *>(In[0].data);
  __nv_bfloat16 *Y = Root ? static_cast<__nv_bfloat16 *>(Out[0].data) : nullptr;
  const int Vec = ((reinterpret_cast<uintptr_t>(X) |
                    reinterpret_cast<uintptr_t>(Y)) % 16) == 0;
  reduceKernel<<<GBlocks, kThreads, 0,
                 static_cast<cudaStream_t>(Ctx->stream)>>>(
      Ctx->view, X, Y, N, NPad, uint32_t(Ctx->call_index), Vec);
  return cudaGetLastError() == cudaSuccess ? 0 : 4;
}
