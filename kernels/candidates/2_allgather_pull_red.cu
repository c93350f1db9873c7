// A correct candidate for PKB problem 2, bf16 all-gather: y[p*n + i] =
// x_p[i]. Style: inline PTX counters. Each barrier slot counts arrivals:
// every rank does `fence.sc.sys; red.release.sys.global.add.u32` of 1 into
// its slot of every peer's pad, and a wait is `ld.acquire.sys` until the
// slot holds >= the number of calls so far (call_index + 1), since each call
// adds exactly 1. Pull all-gather:
//   1. copy x into this rank's symmetric buffer (copy engine);
//   2. entry barrier (counters at [0, 8)); 3. y[p*n + i] = buffer_p[i];
//   4. exit barrier (counters at [8, 16)): peers finished pulling from our
//      buffer before our next call's copy overwrites it.
#include <pkb/pkb_abi.h>

#include <cuda_bf16.h>
#include <cuda_runtime.h>
#include <stdint.h>

namespace {
constexpr uint32_t kEntry = 0, kExit = PKB_MAX_RANKS;

__device__ __forceinline__ void arrive(uint32_t *P) {
  asm volatile(
      "fence.sc.sys;\n\tred.release.sys.global.add.u32 [%0], 1;" ::"l"(P)
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

__global__ void counterBarrier(pkb_peer_view V, uint32_t Slot, uint32_t Calls) {
  int P = threadIdx.x;
  if (P >= V.world_size || P == V.rank)
    return;
  arrive(V.signal_pads[P] + Slot + V.rank);
  while (loadAcquire(V.signal_pads[V.rank] + Slot + P) < Calls) {
  }
}

__global__ void pull(pkb_peer_view V, uint16_t *Y, size_t N) {
  size_t Total = N * size_t(V.world_size);
  for (size_t I = blockIdx.x * size_t(blockDim.x) + threadIdx.x; I < Total;
       I += size_t(gridDim.x) * blockDim.x) {
    int P = int(I / N);
    Y[I] = static_cast<const uint16_t *>(V.peers[P])[I - size_t(P) * N];
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
  cudaStream_t S = static_cast<cudaStream_t>(Ctx->stream);
  size_t N = numel(In[0]);
  if (N * 2 > Ctx->symm[0].bytes)
    return 2;
  uint32_t Calls = uint32_t(Ctx->call_index) + 1;
  if (cudaMemcpyAsync(Ctx->symm[0].local, In[0].data, N * 2,
                      cudaMemcpyDeviceToDevice, S) != cudaSuccess)
    return 3;
  counterBarrier<<<1, PKB_MAX_RANKS, 0, S>>>(Ctx->view, kEntry, Calls);
  size_t G = (N * Ctx->world_size + 255) / 256;
  pull<<<int(G > 64 ? 64 : G), 256, 0, S>>>(
      Ctx->view, static_cast<uint16_t *>(Out[0].data), N);
  counterBarrier<<<1, PKB_MAX_RANKS, 0, S>>>(Ctx->view, kExit, Calls);
  return cudaGetLastError() == cudaSuccess ? 0 : 4;
}
