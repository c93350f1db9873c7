// A correct candidate for PKB problem 1, bf16 sum all-reduce (one-shot).
// Style: signals through cuda::atomic_ref<uint32_t, thread_scope_system>
// (store with memory_order_release, load with memory_order_acquire) instead
// of inline PTX; entry and exit barrier kernels on the pkb_peer_view.
//   1. copy x into this rank's symmetric buffer (copy engine);
//   2. entry barrier (pad slots [0, 8)): every rank's x is in place;
//   3. y = sum over p of peers[p] (fp32);
//   4. exit barrier (slots [8, 16)): peers finished reading our buffer
//      before our next call's copy overwrites it.
// Epoch = call_index + 1 (grows; the pad is never re-zeroed).
#include <pkb/pkb_abi.h>

#include <cuda/atomic>
#include <cuda_bf16.h>
#include <cuda_runtime.h>
#include <stdint.h>

namespace {
constexpr uint32_t kEntry = 0, kExit = PKB_MAX_RANKS;
using SysRef = cuda::atomic_ref<uint32_t, cuda::thread_scope_system>;

__global__ void barrierKernel(pkb_peer_view V, uint32_t Slot, uint32_t Epoch) {
  int P = threadIdx.x;
  if (P >= V.world_size)
    return;
  __threadfence_system();
  SysRef Out(V.signal_pads[P][Slot + V.rank]);
  Out.store(Epoch, cuda::memory_order_release);
  SysRef In(V.signal_pads[V.rank][Slot + P]);
  while (In.load(cuda::memory_order_acquire) < Epoch) {
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
} // namespace

extern "C" int pkb_candidate_query(const pkb_context *Ctx, const pkb_tensor *In,
                                   int NumIn, const pkb_tensor *Out, int NumOut,
                                   pkb_requirements *Req) {
  if (NumIn != 1 || NumOut != 1 || In[0].dtype != PKB_DTYPE_BF16)
    return 1;
  Req->num_symm_buffers = 1;
  Req->symm_bytes[0] = size_t(In[0].shape[0]) * sizeof(__nv_bfloat16);
  Req->workspace_bytes = 0;
  return 0;
}

extern "C" int pkb_candidate_setup(pkb_context *Ctx) {
  return Ctx->world_size <= PKB_MAX_RANKS ? 0 : 1;
}

extern "C" int pkb_candidate_run(pkb_context *Ctx, const pkb_tensor *In,
                                 int NumIn, pkb_tensor *Out, int NumOut) {
  cudaStream_t S = static_cast<cudaStream_t>(Ctx->stream);
  size_t N = size_t(In[0].shape[0]);
  if (N * 2 > Ctx->symm[0].bytes)
    return 2;
  uint32_t Epoch = uint32_t(Ctx->call_index) + 1;
  if (cudaMemcpyAsync(Ctx->symm[0].local, In[0].data, N * 2,
                      cudaMemcpyDeviceToDevice, S) != cudaSuccess)
    return 3;
  barrierKernel<<<1, PKB_MAX_RANKS, 0, S>>>(Ctx->view, kEntry, Epoch);
  size_t G = (N + 255) / 256;
  reduceKernel<<<int(G > 64 ? 64 : G), 256, 0, S>>>(
      Ctx->view, static_cast<__nv_bfloat16 *>(Out[0].data), N);
  barrierKernel<<<1, PKB_MAX_RANKS, 0, S>>>(Ctx->view, kExit, Epoch);
  return cudaGetLastError() == cudaSuccess ? 0 : 4;
}
