// BUGGY ON PURPOSE (pkbcheck test candidate). Bug: DEADLOCK (off-by-one
// arrival count). Copy of 4_reduce_atomic_counter.cu whose root waits for
// W * epoch arrivals although only the W-1 non-roots add to the counter (the
// root never does): the counter stops at (W-1) * epoch and the root spins
// forever; the non-roots then wait forever for its `done` flag.
// Expected GPU verdict: deadlock.
// PKB problem 4, bf16 sum reduce to root 0, cuda::atomic_ref counters.
#include <pkb/pkb_abi.h>

#include <cuda/atomic>
#include <cuda_bf16.h>
#include <cuda_runtime.h>
#include <stdint.h>

namespace {
constexpr int kRoot = 0;
constexpr uint32_t kCount = 0, kDone = 1;
using SysRef = cuda::atomic_ref<uint32_t, cuda::thread_scope_system>;

__global__ void arrive(pkb_peer_view V, uint32_t Epoch) {
  if (threadIdx.x != 0)
    return;
  if (V.rank != kRoot) {
    __threadfence_system();
    SysRef(V.signal_pads[kRoot][kCount])
        .fetch_add(1u, cuda::memory_order_release);
  } else {
    SysRef Count(V.signal_pads[kRoot][kCount]);
    uint32_t Want = uint32_t(V.world_size) * Epoch; // BUG: W-1 arrive
    while (Count.load(cuda::memory_order_acquire) < Want) {
    }
  }
}

__global__ void reduceKernel(pkb_peer_view V, __nv_bfloat16 *Y, size_t N) {
  for (size_t I = blockIdx.x * size_t(blockDim.x) + threadIdx.x; I < N;
       I += size_t(gridDim.x) * blockDim.x) {
    float Acc = 0.f;
    for (int P = 0; P < V.world_size; ++P)
      Acc +=
          __bfloat162float(static_cast<const __nv_bfloat16 *>(V.peers[P])[I]);
    Y[I] = __float2bfloat16_rn(Acc);
  }
}

__global__ void done(pkb_peer_view V, uint32_t Epoch) {
  int P = threadIdx.x;
  if (V.rank == kRoot) {
    if (P < V.world_size && P != kRoot) {
      __threadfence_system();
      SysRef(V.signal_pads[P][kDone]).store(Epoch, cuda::memory_order_release);
    }
  } else if (P == 0) {
    SysRef Flag(V.signal_pads[V.rank][kDone]);
    while (Flag.load(cuda::memory_order_acquire) < Epoch) {
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
  if (NumIn != 1 || NumOut != (Ctx->rank == kRoot ? 1 : 0) ||
      In[0].dtype != PKB_DTYPE_BF16)
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
  cudaStream_t S = static_cast<cudaStream_t>(Ctx->stream);
  bool Root = Ctx->rank == kRoot;
  size_t N = numel(In[0]);
  if (NumOut != (Root ? 1 : 0) || N * 2 > Ctx->symm[0].bytes)
    return 2;
  uint32_t Epoch = uint32_t(Ctx->call_index) + 1;
  if (cudaMemcpyAsync(Ctx->symm[0].local, In[0].data, N * 2,
                      cudaMemcpyDeviceToDevice, S) != cudaSuccess)
    return 3;
  arrive<<<1, 32, 0, S>>>(Ctx->view, Epoch);
  if (Root) {
    size_t G = (N + 255) / 256;
    reduceKernel<<<int(G > 64 ? 64 : G), 256, 0, S>>>(
        Ctx->view, static_cast<__nv_bfloat16 *>(Out[0].data), N);
  }
  done<<<1, PKB_MAX_RANKS, 0, S>>>(Ctx->view, Epoch);
  return cudaGetLastError() == cudaSuccess ? 0 : 4;
}
