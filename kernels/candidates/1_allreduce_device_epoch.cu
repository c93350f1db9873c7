// A correct candidate for PKB problem 1, bf16 sum all-reduce (one-shot).
// Style: the epoch is kept on the device, not passed from the host: a
// __device__ counter gEpoch (zero when the module loads, one per rank
// process) holds the number of finished calls. Both barrier kernels of a
// call wait for gEpoch + 1; the exit barrier, after all of its waits
// (bar.sync), advances gEpoch by one. Stream order puts the next call's
// kernels after that update, so every rank uses 1, 2, 3, ... as the host
// call_index + 1 would be.
//   1. copy x into this rank's symmetric buffer;
//   2. entry barrier (slots [0, 8)); 3. y = sum_p peers[p];
//   4. exit barrier (slots [8, 16)), then gEpoch += 1.
#include <pkb/pkb_abi.h>

#include <cuda_bf16.h>
#include <cuda_runtime.h>
#include <stdint.h>

namespace {
constexpr uint32_t kEntry = 0, kExit = PKB_MAX_RANKS;

__device__ uint32_t gEpoch; // finished calls on this rank

__device__ __forceinline__ void storeRelease(uint32_t *P, uint32_t V) {
  asm volatile("st.release.sys.global.u32 [%0], %1;" ::"l"(P), "r"(V)
               : "memory");
}
__device__ __forceinline__ uint32_t loadAcquire(const uint32_t *P) {
  uint32_t V;
  asm volatile("ld.acquire.sys.global.u32 %0, [%1];"
               : "=r"(V)
               : "l"(P)
               : "memory");
  return V;
}

__global__ void barrierKernel(pkb_peer_view V, uint32_t Slot, int Advance) {
  uint32_t Epoch = gEpoch + 1;
  int P = threadIdx.x;
  if (P < V.world_size) {
    __threadfence_system();
    storeRelease(V.signal_pads[P] + Slot + V.rank, Epoch);
    while (loadAcquire(V.signal_pads[V.rank] + Slot + P) < Epoch) {
    }
  }
  __syncthreads(); // every thread has read gEpoch and finished waiting
  if (Advance && threadIdx.x == 0)
    gEpoch = Epoch;
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
  if (cudaMemcpyAsync(Ctx->symm[0].local, In[0].data, N * 2,
                      cudaMemcpyDeviceToDevice, S) != cudaSuccess)
    return 3;
  barrierKernel<<<1, PKB_MAX_RANKS, 0, S>>>(Ctx->view, kEntry, 0);
  size_t G = (N + 255) / 256;
  reduceKernel<<<int(G > 64 ? 64 : G), 256, 0, S>>>(
      Ctx->view, static_cast<__nv_bfloat16 *>(Out[0].data), N);
  barrierKernel<<<1, PKB_MAX_RANKS, 0, S>>>(Ctx->view, kExit, 1);
  return cudaGetLastError() == cudaSuccess ? 0 : 4;
}
