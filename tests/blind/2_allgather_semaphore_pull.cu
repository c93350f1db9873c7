// PKB problem 2 (allgather), bf16. CORRECT candidate.
//
// Algorithm: multi-kernel pull all-gather over the symmetric heap.
//   1. stageKernel<VEC>: copy this rank's x[n] into its own symmetric buffer.
//   2. barrierKernel (pad region kEntryBase): a PadSemaphore handle object
//      signals every peer (cuda::atomic_ref<uint32_t, thread_scope_system>
//      release store of epoch = call_index + 1 into slot base + rank of the
//      peer's pad, after a system-scope fence) and waits for every peer's
//      signal in its own pad (acquire loads).
//   3. pullKernel<VEC>: y[p*n + i] = symm_p[i] for every rank p, reading the
//      peers' buffers over NVLink; blockIdx.y selects the source rank.
//   4. barrierKernel again, on a different pad region (kExitBase): nobody may
//      restage its buffer in call k+1 while a peer still pulls from it.
// VEC is a template parameter: 8 bf16 (uint4) when n % 8 == 0 and every
// pointer is 16-byte aligned, else 1 (scalar); the uint4 path copies the
// scalar tail of each range separately.
#include <pkb/pkb_abi.h>

#include <cuda/atomic>
#include <cuda_bf16.h>
#include <cuda_runtime.h>

namespace {

constexpr uint32_t kEntryBase = 0;
constexpr uint32_t kExitBase = 2 * PKB_MAX_RANKS;
constexpr int kThreads = 256;

// A semaphore handle over one region of the signal pads. Slot
// (base + s) of rank d's pad holds the last epoch rank s signalled to d.
struct PadSemaphore {
  pkb_peer_view view;
  uint32_t base;

  __device__ PadSemaphore(const pkb_peer_view &View, uint32_t Base)
      : view(View), base(Base) {}

  // Publish everything this rank wrote before (earlier kernels included) and
  // tell `peer` that this rank reached `epoch`.
  __device__ void signal(int peer, uint32_t epoch) const {
    cuda::atomic_thread_fence(cuda::memory_order_seq_cst,
                              cuda::thread_scope_system);
    cuda::atomic_ref<uint32_t, cuda::thread_scope_system> Slot(
        this->view.signal_pads[peer][this->base + this->view.rank]);
    Slot.store(epoch, cuda::memory_order_release);
  }

  // Wait until `peer` reached `epoch` (epochs only grow).
  __device__ void wait(int peer, uint32_t epoch) const {
    cuda::atomic_ref<uint32_t, cuda::thread_scope_system> Slot(
        this->view.signal_pads[this->view.rank][this->base + peer]);
    while (Slot.load(cuda::memory_order_acquire) < epoch) {
    }
  }
};

// One block of 32 threads; thread p handles rank p.
__global__ void barrierKernel(pkb_peer_view View, uint32_t Base,
                              uint32_t Epoch) {
  PadSemaphore Sem(View, Base);
  int P = threadIdx.x;
  if (P >= View.world_size)
    return;
  Sem.signal(P, Epoch);
  Sem.wait(P, Epoch);
}

// Copy N elements with threads [Tid, Tid + k*Stride).
template <int VEC>
__device__ __forceinline__ void copyElems(__nv_bfloat16 *Dst,
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
__global__ void stageKernel(const __nv_bfloat16 *X, __nv_bfloat16 *Mine,
                            size_t N) {
  size_t Tid = size_t(blockIdx.x) * blockDim.x + threadIdx.x;
  size_t Stride = size_t(gridDim.x) * blockDim.x;
  copyElems<VEC>(Mine, X, N, Tid, Stride);
}

// gridDim.y == world_size: block row p pulls rank p's shard.
template <int VEC>
__global__ void pullKernel(pkb_peer_view View, __nv_bfloat16 *Y, size_t N) {
  int P = blockIdx.y;
  if (P >= View.world_size)
    return;
  const __nv_bfloat16 *Src =
      static_cast<const __nv_bfloat16 *>(View.peers[P]);
  size_t Tid = size_t(blockIdx.x) * blockDim.x + threadIdx.x;
  size_t Stride = size_t(gridDim.x) * blockDim.x;
  copyElems<VEC>(Y + size_t(P) * N, Src, N, Tid, Stride);
}

bool aligned16(const void *P) {
  return (reinterpret_cast<uintptr_t>(P) & 15u) == 0;
}

int gridFor(size_t N, int VecElems, int Cap) {
  size_t Units = (N + VecElems - 1) / VecElems;
  size_t Blocks = (Units + kThreads - 1) / kThreads;
  if (Blocks < 1)
    Blocks = 1;
  return Blocks > size_t(Cap) ? Cap : int(Blocks);
}

} // namespace

extern "C" int pkb_candidate_query(const pkb_context *Ctx, const pkb_tensor *In,
                                   int NumIn, const pkb_tensor *Out, int NumOut,
                                   pkb_requirements *Req) {
  if (NumIn != 1 || NumOut != 1 || In[0].dtype != PKB_DTYPE_BF16 ||
      Out[0].dtype != PKB_DTYPE_BF16)
    return 1;
  Req->num_symm_buffers = 1;
  Req->symm_bytes[0] = size_t(In[0].shape[0]) * sizeof(__nv_bfloat16);
  Req->workspace_bytes = 0;
  return 0;
}

extern "C" int pkb_candidate_setup(pkb_context *Ctx) {
  return (Ctx->world_size >= 1 && Ctx->world_size <= PKB_MAX_RANKS &&
          Ctx->num_symm_buffers >= 1)
             ? 0
             : 1;
}

extern "C" int pkb_candidate_run(pkb_context *Ctx, const pkb_tensor *In,
                                 int NumIn, pkb_tensor *Out, int NumOut) {
  if (NumIn != 1 || NumOut != 1)
    return 1;
  cudaStream_t S = static_cast<cudaStream_t>(Ctx->stream);
  const int W = Ctx->world_size;
  const size_t N = size_t(In[0].shape[0]);
  if (size_t(Out[0].shape[0]) != size_t(W) * N ||
      N * sizeof(__nv_bfloat16) > Ctx->symm[0].bytes)
    return 2;
  const uint32_t Epoch = uint32_t(Ctx->call_index) + 1;
  const auto *X = static_cast<const __nv_bfloat16 *>(In[0].data);
  auto *Y = static_cast<__nv_bfloat16 *>(Out[0].data);
  auto *Mine = static_cast<__nv_bfloat16 *>(Ctx->symm[0].local);

  const bool Vec = (N % 8 == 0) && aligned16(X) && aligned16(Y) &&
                   aligned16(Mine);
  const int VecElems = Vec ? 8 : 1;
  const int StageGrid = gridFor(N, VecElems, 512);
  const dim3 PullGrid(unsigned(gridFor(N, VecElems, 128)), unsigned(W));

  if (Vec)
    stageKernel<8><<<StageGrid, kThreads, 0, S>>>(X, Mine, N);
  else
    stageKernel<1><<<StageGrid, kThreads, 0, S>>>(X, Mine, N);
  barrierKernel<<<1, 32, 0, S>>>(Ctx->view, kEntryBase, Epoch);
  if (Vec)
    pullKernel<8><<<PullGrid, kThreads, 0, S>>>(Ctx->view, Y, N);
  else
    pullKernel<1><<<PullGrid, kThreads, 0, S>>>(Ctx->view, Y, N);
  barrierKernel<<<1, 32, 0, S>>>(Ctx->view, kExitBase, Epoch);
  return cudaGetLastError() == cudaSuccess ? 0 : 4;
}
