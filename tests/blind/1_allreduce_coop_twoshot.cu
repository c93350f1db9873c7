// Candidate for PKB problem 1 (allreduce): bf16 sum all-reduce, CORRECT.
//
// Algorithm: two-shot (reduce-scatter + all-gather) in ONE persistent
// cooperative kernel (cudaLaunchCooperativeKernel, cooperative_groups
// grid.sync()). Pull style: every rank only reads its peers' symmetric
// buffers, it only writes its own.
//
//   symmetric buffer 0 of rank r (N bf16 each half):
//     [0, N)   staging: a copy of x_r
//     [N, 2N)  reduced: rank r's shard r of the result, at its global offset
//
//   0. every block copies its part of x into staging;
//   1. entry barrier over ranks (PeerSemaphore, slot set kEntry);
//   2. rank r sums shard r over all ranks' staging (NVLink loads, fp32) and
//      stores it into its own reduced half;
//   3. middle barrier (kMid): every shard is reduced somewhere;
//   4. y[shard q] = rank q's reduced half (NVLink loads);
//   5. exit barrier (kExit): nobody starts the next call (which rewrites
//      staging and reduced) while a peer may still be reading them.
//
// Cross-rank barriers are run by block 0 only, between grid.sync()s, through
// a small "PeerSemaphore" handle whose member functions signal and wait with
// cuda::atomic_ref<uint32_t, thread_scope_system> release stores / acquire
// loads on the signal pads. Epoch = call_index + 1 (pads are zeroed once).
// N is a multiple of 8 * world_size (checked by the problem), so every shard
// is a whole number of 16-byte vectors.
#include <pkb/pkb_abi.h>

#include <cooperative_groups.h>
#include <cuda/atomic>
#include <cuda_bf16.h>
#include <cuda_runtime.h>

namespace cg = cooperative_groups;

namespace {

constexpr int kThreads = 512;
constexpr uint32_t kEntry = 0;                 // slots [0, 8)
constexpr uint32_t kMid = PKB_MAX_RANKS;       // slots [8, 16)
constexpr uint32_t kExit = 2 * PKB_MAX_RANKS;  // slots [16, 24)

using SysFlag = cuda::atomic_ref<uint32_t, cuda::thread_scope_system>;

// A barrier handle over all ranks. Slot `Base + s` of rank p's pad holds the
// latest epoch rank s has reached at this barrier.
struct PeerSemaphore {
  uint32_t *Pads[PKB_MAX_RANKS];
  int Rank;
  int World;
  uint32_t Base;
  uint32_t Epoch;

  __device__ PeerSemaphore(const pkb_peer_view &View, uint32_t SlotBase,
                           uint32_t E)
      : Rank(View.rank), World(View.world_size), Base(SlotBase), Epoch(E) {
#pragma unroll
    for (int P = 0; P < PKB_MAX_RANKS; ++P)
      Pads[P] = View.signal_pads[P];
  }

  // Thread `Peer` tells rank Peer that this rank has arrived.
  __device__ void signal(int Peer) const {
    __threadfence_system();
    SysFlag(this->Pads[Peer][this->Base + this->Rank])
        .store(this->Epoch, cuda::memory_order_release);
  }
  // Thread `Peer` waits until rank Peer has arrived here.
  __device__ void wait(int Peer) const {
    SysFlag F(this->Pads[this->Rank][this->Base + Peer]);
    while (F.load(cuda::memory_order_acquire) < this->Epoch) {
    }
  }
  // Called by every thread of block 0; threads [0, World) do the work.
  __device__ void arriveAndWait() const {
    int P = threadIdx.x;
    if (P < this->World) {
      signal(P);
      wait(P);
    }
  }
};

// Grid-wide barrier followed (in block 0) by a barrier over all ranks, and a
// second grid barrier so every block observes the ranks' arrival.
__device__ void fullBarrier(cg::grid_group &Grid, const PeerSemaphore &Sem) {
  __threadfence_system();
  Grid.sync();
  if (blockIdx.x == 0)
    Sem.arriveAndWait();
  Grid.sync();
}

__device__ __forceinline__ void addPack(float (&Acc)[8], const uint4 &V) {
  const __nv_bfloat162 *H = reinterpret_cast<const __nv_bfloat162 *>(&V);
#pragma unroll
  for (int K = 0; K < 4; ++K) {
    float2 F = __bfloat1622float2(H[K]);
    Acc[2 * K] += F.x;
    Acc[2 * K + 1] += F.y;
  }
}

__device__ __forceinline__ uint4 packAcc(const float (&Acc)[8]) {
  uint4 Out;
  __nv_bfloat162 *H = reinterpret_cast<__nv_bfloat162 *>(&Out);
#pragma unroll
  for (int K = 0; K < 4; ++K)
    H[K] = __floats2bfloat162_rn(Acc[2 * K], Acc[2 * K + 1]);
  return Out;
}

__global__ void __launch_bounds__(kThreads)
    twoShotAllreduce(pkb_peer_view View, const uint4 *X, uint4 *Y, size_t N8,
                     uint32_t Epoch) {
  cg::grid_group Grid = cg::this_grid();
  const int W = View.world_size;
  const int R = View.rank;
  const size_t Tid = Grid.thread_rank();
  const size_t Stride = Grid.size();
  uint4 *Mine = reinterpret_cast<uint4 *>(View.peers[R]);

  // 0. stage x_r.
  for (size_t I = Tid; I < N8; I += Stride)
    Mine[I] = X[I];

  // 1. entry barrier: every rank's staging is complete.
  fullBarrier(Grid, PeerSemaphore(View, kEntry, Epoch));

  // 2. reduce shard R over all ranks, into Mine[N8 + shard].
  const size_t S8 = N8 / size_t(W);
  const size_t Base = size_t(R) * S8;
  for (size_t I = Tid; I < S8; I += Stride) {
    float Acc[8] = {0, 0, 0, 0, 0, 0, 0, 0};
    for (int P = 0; P < W; ++P) {
      const uint4 *Src = reinterpret_cast<const uint4 *>(View.peers[P]);
      addPack(Acc, Src[Base + I]);
    }
    Mine[N8 + Base + I] = packAcc(Acc);
  }

  // 3. every shard is reduced on its owner.
  fullBarrier(Grid, PeerSemaphore(View, kMid, Epoch));

  // 4. all-gather: element vector I belongs to shard I / S8.
  for (size_t I = Tid; I < N8; I += Stride) {
    int Owner = int(I / S8);
    const uint4 *Src = reinterpret_cast<const uint4 *>(View.peers[Owner]);
    Y[I] = Src[N8 + I];
  }

  // 5. exit barrier: all reads of peers' buffers of this call are done on
  // every rank before any rank's next call rewrites its buffer.
  Grid.sync();
  if (blockIdx.x == 0)
    PeerSemaphore(View, kExit, Epoch).arriveAndWait();
}

int GMaxCoopBlocks = 0;

} // namespace

extern "C" int pkb_candidate_query(const pkb_context *Ctx, const pkb_tensor *In,
                                   int NumIn, const pkb_tensor *Out, int NumOut,
                                   pkb_requirements *Req) {
  (void)Ctx;
  (void)Out;
  if (NumIn != 1 || NumOut != 1 || In[0].dtype != PKB_DTYPE_BF16)
    return 1;
  Req->num_symm_buffers = 1;
  Req->symm_bytes[0] = 2 * size_t(In[0].shape[0]) * sizeof(__nv_bfloat16);
  Req->workspace_bytes = 0;
  return 0;
}

extern "C" int pkb_candidate_setup(pkb_context *Ctx) {
  if (Ctx->world_size < 1 || Ctx->world_size > PKB_MAX_RANKS)
    return 1;
  int Sms = 0, PerSm = 0;
  if (cudaDeviceGetAttribute(&Sms, cudaDevAttrMultiProcessorCount,
                             Ctx->device) != cudaSuccess)
    return 2;
  if (cudaOccupancyMaxActiveBlocksPerMultiprocessor(&PerSm, twoShotAllreduce,
                                                    kThreads, 0) != cudaSuccess)
    return 3;
  if (PerSm < 1)
    return 4;
  // One block per SM is plenty for a memory-bound kernel.
  GMaxCoopBlocks = Sms;
  return 0;
}

extern "C" int pkb_candidate_run(pkb_context *Ctx, const pkb_tensor *In,
                                 int NumIn, pkb_tensor *Out, int NumOut) {
  if (NumIn != 1 || NumOut != 1)
    return 1;
  cudaStream_t Stream = static_cast<cudaStream_t>(Ctx->stream);
  const size_t N = size_t(In[0].shape[0]);
  const size_t W = size_t(Ctx->world_size);
  if (N == 0 || N % (8 * W) || 2 * N * 2 > Ctx->symm[0].bytes)
    return 2;
  if ((reinterpret_cast<uintptr_t>(In[0].data) |
       reinterpret_cast<uintptr_t>(Out[0].data)) % 16)
    return 3;
  size_t N8 = N / 8;
  size_t Want = (N8 + kThreads - 1) / kThreads;
  int Blocks = int(Want < size_t(GMaxCoopBlocks) ? Want : GMaxCoopBlocks);
  if (Blocks < 1)
    Blocks = 1;

  pkb_peer_view View = Ctx->view;
  const uint4 *X = static_cast<const uint4 *>(In[0].data);
  uint4 *Y = static_cast<uint4 *>(Out[0].data);
  uint32_t Epoch = uint32_t(Ctx->call_index) + 1;
  void *Args[] = {&View, &X, &Y, &N8, &Epoch};
  if (cudaLaunchCooperativeKernel(reinterpret_cast<const void *>(
                                      &twoShotAllreduce),
                                  dim3(Blocks), dim3(kThreads), Args, 0,
                                  Stream) != cudaSuccess)
    return 4;
  return 0;
}
