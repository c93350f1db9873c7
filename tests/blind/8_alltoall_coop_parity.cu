// PKB problem 8 (alltoall), bf16. CORRECT candidate.
//
// Algorithm: one cooperative kernel per call (cudaLaunchCooperativeKernel,
// grid = co-resident blocks), push into the peers' symmetric buffers,
// double-buffered by call parity, one all-to-all flag exchange per call.
//   Symmetric buffer of every rank: 2 slots x W senders x Cpad elements
//   (Cpad = max n rounded up to 8, fixed for the run). Sender q's chunk for
//   rank r lives in r's buffer at ((c % 2) * W + q) * Cpad in call c.
//   phase 1: y[r*n ..] = x[r*n ..] locally; for every peer q (rotated start)
//            store x[q*n ..] into q's buffer at (slot*W + r)*Cpad (NVLink).
//   grid.sync(); block 0, thread q: fence.acq_rel.sys then
//            red.release.sys.global.max of epoch (= call_index + 1) into
//            q's pad slot kBar + r, then ld.acquire.sys spin until rank q's
//            slot kBar + q in the own pad reaches epoch; grid.sync().
//   phase 2: y[q*n ..] = own buffer at (slot*W + q)*Cpad.
// Why no exit barrier: rank r writes q's slot s again only in call c+2,
// after passing call c+1's flag exchange, i.e. after q signalled in call
// c+1, which q does only after its call-c kernel (which read slot s) ended.
// The peer-pointer tables are a struct of arrays passed by value; VEC is a
// template parameter (uint4 when n % 8 == 0 and aligned, scalar tail kept).
#include <pkb/pkb_abi.h>

#include <cooperative_groups.h>
#include <cuda_bf16.h>
#include <cuda_runtime.h>

namespace cg = cooperative_groups;

namespace {

constexpr int kThreads = 512;
constexpr uint32_t kBar = 0;

struct A2APeers {
  __nv_bfloat16 *buf[PKB_MAX_RANKS];
  uint32_t *pad[PKB_MAX_RANKS];
  int rank;
  int world;
};

struct A2ACall {
  const __nv_bfloat16 *x;
  __nv_bfloat16 *y;
  size_t n;    // elements per peer chunk
  size_t cpad; // elements per (slot, sender) region
  uint32_t slot;
  uint32_t epoch;
};

__device__ __forceinline__ void redMaxReleaseSys(uint32_t *Addr, uint32_t V) {
  asm volatile("red.release.sys.global.max.u32 [%0], %1;" ::"l"(Addr), "r"(V)
               : "memory");
}
__device__ __forceinline__ uint32_t ldAcquireSys(const uint32_t *Addr) {
  uint32_t V;
  asm volatile("ld.acquire.sys.global.u32 %0, [%1];"
               : "=r"(V)
               : "l"(Addr)
               : "memory");
  return V;
}

template <int VEC>
__device__ __forceinline__ void gridCopy(__nv_bfloat16 *Dst,
                                         const __nv_bfloat16 *Src, size_t N,
                                         size_t Tid, size_t Stride) {
  if constexpr (VEC == 8) {
    size_t NV = N / 8;
    const uint4 *S4 = reinterpret_cast<const uint4 *>(Src);
    uint4 *D4 = reinterpret_cast<uint4 *>(Dst);
    for (size_t I = Tid; I < NV; I += Stride)
      D4[I] = S4[I];
    for (size_t I = NV * 8 + Tid; I < N; I += Stride)
      Dst[I] = Src[I];
  } else {
    for (size_t I = Tid; I < N; I += Stride)
      Dst[I] = Src[I];
  }
}

template <int VEC>
__global__ void __launch_bounds__(kThreads)
    alltoallKernel(A2APeers Peers, A2ACall C) {
  cg::grid_group Grid = cg::this_grid();
  const size_t Tid = Grid.thread_rank();
  const size_t Stride = Grid.size();
  const int R = Peers.rank, W = Peers.world;

  // Phase 1: own chunk locally, the others pushed to their owners.
  gridCopy<VEC>(C.y + size_t(R) * C.n, C.x + size_t(R) * C.n, C.n, Tid,
                Stride);
  for (int J = 1; J < W; ++J) {
    const int Q = (R + J) % W;
    __nv_bfloat16 *Dst =
        Peers.buf[Q] + (size_t(C.slot) * W + size_t(R)) * C.cpad;
    gridCopy<VEC>(Dst, C.x + size_t(Q) * C.n, C.n, Tid, Stride);
  }

  Grid.sync();
  if (blockIdx.x == 0 && int(threadIdx.x) < W && int(threadIdx.x) != R) {
    const int Q = threadIdx.x;
    asm volatile("fence.acq_rel.sys;" ::: "memory");
    redMaxReleaseSys(Peers.pad[Q] + kBar + R, C.epoch);
    while (ldAcquireSys(Peers.pad[R] + kBar + Q) < C.epoch) {
    }
  }
  Grid.sync();

  // Phase 2: the chunks the peers pushed into this rank's slot.
  for (int J = 1; J < W; ++J) {
    const int Q = (R + J) % W;
    const __nv_bfloat16 *Src =
        Peers.buf[R] + (size_t(C.slot) * W + size_t(Q)) * C.cpad;
    gridCopy<VEC>(C.y + size_t(Q) * C.n, Src, C.n, Tid, Stride);
  }
}

int gCoopBlocks[2] = {0, 0}; // [0]: VEC = 1, [1]: VEC = 8

bool aligned16(const void *P) {
  return (reinterpret_cast<uintptr_t>(P) & 15u) == 0;
}

size_t roundUp8(size_t V) { return (V + 7) / 8 * 8; }

template <int VEC> int coopBlocksFor(int Device) {
  int Sms = 0, PerSm = 0, Coop = 0;
  if (cudaDeviceGetAttribute(&Sms, cudaDevAttrMultiProcessorCount, Device) !=
          cudaSuccess ||
      cudaDeviceGetAttribute(&Coop, cudaDevAttrCooperativeLaunch, Device) !=
          cudaSuccess ||
      cudaOccupancyMaxActiveBlocksPerMultiprocessor(
          &PerSm, alltoallKernel<VEC>, kThreads, 0) != cudaSuccess)
    return 0;
  if (!Coop || PerSm < 1)
    return 0;
  return Sms * (PerSm < 2 ? PerSm : 2);
}

} // namespace

extern "C" int pkb_candidate_query(const pkb_context *Ctx, const pkb_tensor *In,
                                   int NumIn, const pkb_tensor *Out, int NumOut,
                                   pkb_requirements *Req) {
  if (NumIn != 1 || NumOut != 1 || In[0].dtype != PKB_DTYPE_BF16 ||
      Out[0].dtype != PKB_DTYPE_BF16 || Ctx->world_size < 1)
    return 1;
  size_t W = size_t(Ctx->world_size);
  size_t N = size_t(In[0].shape[0]) / W;
  Req->num_symm_buffers = 1;
  Req->symm_bytes[0] =
      2 * W * roundUp8(N > 0 ? N : 8) * sizeof(__nv_bfloat16);
  Req->workspace_bytes = 0;
  return 0;
}

extern "C" int pkb_candidate_setup(pkb_context *Ctx) {
  if (Ctx->world_size < 1 || Ctx->world_size > PKB_MAX_RANKS)
    return 1;
  int Device = 0;
  if (cudaGetDevice(&Device) != cudaSuccess)
    return 1;
  gCoopBlocks[0] = coopBlocksFor<1>(Device);
  gCoopBlocks[1] = coopBlocksFor<8>(Device);
  return (gCoopBlocks[0] > 0 && gCoopBlocks[1] > 0) ? 0 : 1;
}

extern "C" int pkb_candidate_run(pkb_context *Ctx, const pkb_tensor *In,
                                 int NumIn, pkb_tensor *Out, int NumOut) {
  if (NumIn != 1 || NumOut != 1)
    return 1;
  cudaStream_t S = static_cast<cudaStream_t>(Ctx->stream);
  const int W = Ctx->world_size;
  const size_t Total = size_t(In[0].shape[0]);
  if (Total % size_t(W) != 0 || size_t(Out[0].shape[0]) != Total)
    return 2;

  A2APeers Peers;
  for (int P = 0; P < PKB_MAX_RANKS; ++P) {
    Peers.buf[P] = static_cast<__nv_bfloat16 *>(Ctx->view.peers[P]);
    Peers.pad[P] = Ctx->view.signal_pads[P];
  }
  Peers.rank = Ctx->rank;
  Peers.world = W;

  A2ACall C;
  C.x = static_cast<const __nv_bfloat16 *>(In[0].data);
  C.y = static_cast<__nv_bfloat16 *>(Out[0].data);
  C.n = Total / size_t(W);
  C.cpad = (Ctx->symm[0].bytes / sizeof(__nv_bfloat16) / (2 * size_t(W))) /
           8 * 8;
  C.slot = uint32_t(Ctx->call_index & 1);
  C.epoch = uint32_t(Ctx->call_index) + 1;
  if (C.n > C.cpad)
    return 2;

  const bool Vec = C.n % 8 == 0 && aligned16(C.x) && aligned16(C.y) &&
                   aligned16(Ctx->symm[0].local);
  // Enough blocks for the work, never more than can be co-resident.
  size_t Units = (C.n + (Vec ? 7 : 0)) / (Vec ? 8 : 1);
  size_t Want = (Units * size_t(W) + kThreads - 1) / kThreads;
  int Cap = gCoopBlocks[Vec ? 1 : 0];
  int Blocks = Want < 1 ? 1 : (Want > size_t(Cap) ? Cap : int(Want));

  void *Args[] = {&Peers, &C};
  cudaError_t E =
      Vec ? cudaLaunchCooperativeKernel(
                reinterpret_cast<const void *>(&alltoallKernel<8>),
                dim3(Blocks), dim3(kThreads), Args, 0, S)
          : cudaLaunchCooperativeKernel(
                reinterpret_cast<const void *>(&alltoallKernel<1>),
                dim3(Blocks), dim3(kThreads), Args, 0, S);
  return E == cudaSuccess ? 0 : 4;
}
