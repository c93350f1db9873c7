// PKB problem 3 (broadcast from root 0), bf16.
// BUGGY ON PURPOSE.
//
// Algorithm: acknowledged pull broadcast, several kernels per call.
//   root:  ackWaitKernel  - wait until every block of every receiver
//                           acknowledged the previous call (ack >= epoch-1 in
//                           the root's pad), so the staging buffer is free;
//          cudaMemcpyAsync x -> own symmetric buffer, and x -> y;
//          readyKernel    - __threadfence_system + st.release.sys of epoch
//                           into every receiver's "ready" slot.
//   other: pullKernel<VEC> - block b: thread 0 spins (ld.acquire.sys) on the
//                           ready slot, the block copies its range of the
//                           root's buffer to y over NVLink (uint4 + scalar
//                           tail), then st.release.sys ack (rank, b) = epoch
//                           into the root's pad.
// The epoch lives in a small host-side state object (BcastState) set up once
// in pkb_candidate_setup.
//
// THE BUG (pkb_candidate_run, the line `const uint32_t Epoch = gState.epoch;`
// marked BUG below): the epoch is read from the state but never advanced
// (the intended `gState.epoch++` is missing), so every call uses epoch 1.
// From the second call on, the receivers' ready flags already hold 1 and the
// root's acks already hold 1 (>= 0), so neither wait waits: receivers pull
// the root's staging buffer before/while the root copies the new x into it,
// and the root overwrites it while receivers may still be reading the
// previous call's data.
// Expected symptom on a GPU: wrong-output in the back-to-back calls (call
// index >= 1 gets the previous call's data or a mix of two calls' data);
// the first call is correct.
#include <pkb/pkb_abi.h>

#include <cuda_bf16.h>
#include <cuda_runtime.h>

namespace {

constexpr int kRoot = 0;
constexpr int kBlocks = 64;
constexpr int kThreads = 512;
constexpr uint32_t kReady = 0;  // in each receiver's pad, written by root
constexpr uint32_t kAck = 64;   // kAck + p*kBlocks + b in the root's pad

struct BcastState {
  uint32_t epoch;
};
BcastState gState;

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

// Root only: every (receiver, block) ack of the previous call.
__global__ void ackWaitKernel(pkb_peer_view View, uint32_t Epoch) {
  const int Receivers = View.world_size - 1;
  for (int T = threadIdx.x; T < Receivers * kBlocks; T += blockDim.x) {
    const int P = 1 + T / kBlocks, B = T % kBlocks;
    const uint32_t *Ack = View.signal_pads[kRoot] + kAck + P * kBlocks + B;
    while (loadAcquire(Ack) + 1 < Epoch) {
    }
  }
}

// Root only: the staging copy is complete, tell every receiver.
__global__ void readyKernel(pkb_peer_view View, uint32_t Epoch) {
  const int P = threadIdx.x;
  if (P == kRoot || P >= View.world_size)
    return;
  __threadfence_system();
  storeRelease(View.signal_pads[P] + kReady, Epoch);
}

template <int VEC>
__global__ void __launch_bounds__(kThreads)
    pullKernel(pkb_peer_view View, __nv_bfloat16 *Y, size_t N,
               uint32_t Epoch) {
  const int B = blockIdx.x;
  const int Me = View.rank;
  size_t Units = (N + 7) / 8;
  size_t Per = (Units + kBlocks - 1) / kBlocks;
  size_t Lo = size_t(B) * Per * 8, Hi = Lo + Per * 8;
  Lo = Lo < N ? Lo : N;
  Hi = Hi < N ? Hi : N;

  if (threadIdx.x == 0) {
    while (loadAcquire(View.signal_pads[Me] + kReady) < Epoch) {
    }
  }
  __syncthreads();
  const __nv_bfloat16 *Src =
      static_cast<const __nv_bfloat16 *>(View.peers[kRoot]);
  if constexpr (VEC == 8) {
    const uint4 *S4 = reinterpret_cast<const uint4 *>(Src);
    uint4 *D4 = reinterpret_cast<uint4 *>(Y);
    for (size_t I = Lo / 8 + threadIdx.x; I < Hi / 8; I += blockDim.x)
      D4[I] = S4[I];
    for (size_t I = Hi / 8 * 8 + threadIdx.x; I < Hi; I += blockDim.x)
      Y[I] = Src[I];
  } else {
    for (size_t I = Lo + threadIdx.x; I < Hi; I += blockDim.x)
      Y[I] = Src[I];
  }
  __syncthreads();
  if (threadIdx.x == 0) {
    __threadfence_system();
    storeRelease(View.signal_pads[kRoot] + kAck + Me * kBlocks + B, Epoch);
  }
}

bool aligned16(const void *P) {
  return (reinterpret_cast<uintptr_t>(P) & 15u) == 0;
}

} // namespace

extern "C" int pkb_candidate_query(const pkb_context *Ctx, const pkb_tensor *In,
                                   int NumIn, const pkb_tensor *Out, int NumOut,
                                   pkb_requirements *Req) {
  if (NumOut != 1 || Out[0].dtype != PKB_DTYPE_BF16)
    return 1;
  Req->num_symm_buffers = 1;
  Req->symm_bytes[0] = size_t(Out[0].shape[0]) * sizeof(__nv_bfloat16);
  Req->workspace_bytes = 0;
  return 0;
}

extern "C" int pkb_candidate_setup(pkb_context *Ctx) {
  if (Ctx->world_size < 1 || Ctx->world_size > PKB_MAX_RANKS)
    return 1;
  gState.epoch = uint32_t(Ctx->call_index) + 1;
  return 0;
}

extern "C" int pkb_candidate_run(pkb_context *Ctx, const pkb_tensor *In,
                                 int NumIn, pkb_tensor *Out, int NumOut) {
  if (NumOut != 1)
    return 1;
  cudaStream_t S = static_cast<cudaStream_t>(Ctx->stream);
  const size_t N = size_t(Out[0].shape[0]);
  const size_t Bytes = N * sizeof(__nv_bfloat16);
  if (Bytes > Ctx->symm[0].bytes)
    return 2;
  const uint32_t Epoch = gState.epoch; // BUG: never advanced (gState.epoch++)
  auto *Y = static_cast<__nv_bfloat16 *>(Out[0].data);

  if (Ctx->rank == kRoot) {
    if (NumIn != 1 || size_t(In[0].shape[0]) != N)
      return 1;
    ackWaitKernel<<<1, 256, 0, S>>>(Ctx->view, Epoch);
    if (cudaMemcpyAsync(Ctx->symm[0].local, In[0].data, Bytes,
                        cudaMemcpyDeviceToDevice, S) != cudaSuccess ||
        cudaMemcpyAsync(Y, In[0].data, Bytes, cudaMemcpyDeviceToDevice, S) !=
            cudaSuccess)
      return 3;
    readyKernel<<<1, PKB_MAX_RANKS, 0, S>>>(Ctx->view, Epoch);
  } else {
    const bool Vec = N % 8 == 0 && aligned16(Y) &&
                     aligned16(Ctx->view.peers[kRoot]);
    if (Vec)
      pullKernel<8><<<kBlocks, kThreads, 0, S>>>(Ctx->view, Y, N, Epoch);
    else
      pullKernel<1><<<kBlocks, kThreads, 0, S>>>(Ctx->view, Y, N, Epoch);
  }
  return cudaGetLastError() == cudaSuccess ? 0 : 4;
}
