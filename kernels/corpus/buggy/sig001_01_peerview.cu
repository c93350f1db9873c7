// sig001_01_peerview.cu: BUG(SIG-001) every sender stores its start signal into the same word (slot = block), so one arrival satisfies the waiter and it reads peers that have not staged yet. FIX: one slot per sender (block * 8 + rank) and wait for all W of them.
#include <cuda_runtime.h>
#include <stdint.h>

#include "pkb/pkb_abi.h"

constexpr int kBlock = 256;
constexpr int kGrid = 16;
constexpr int kStartBase = 0;   // intended: one start flag per block
constexpr int kExitBase = 64;   // one exit flag per (block, sender)
constexpr size_t kPadWords = kExitBase + kGrid * PKB_MAX_RANKS;

__device__ __forceinline__ void st_release_sys(uint32_t* p, uint32_t v) {
  asm volatile("st.release.sys.global.u32 [%0], %1;" ::"l"(p), "r"(v) : "memory");
}
__device__ __forceinline__ uint32_t ld_acquire_sys(const uint32_t* p) {
  uint32_t v;
  asm volatile("ld.acquire.sys.global.u32 %0, [%1];" : "=r"(v) : "l"(p) : "memory");
  return v;
}

// One-shot all-reduce on symmetric buffer 0 (n floats per rank).
__global__ void allreduce_oneshot(pkb_peer_view view, const float* in, float* out, int64_t n,
                                  uint32_t epoch) {
  const int64_t tid = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
  const int64_t stride = (int64_t)gridDim.x * blockDim.x;
  float* mine = static_cast<float*>(view.peers[view.rank]);
  for (int64_t i = tid; i < n; i += stride) mine[i] = in[i];
  __syncthreads();
  if (threadIdx.x < view.world_size) st_release_sys(view.signal_pads[threadIdx.x] + kStartBase + blockIdx.x, epoch);  // expect: SIG-001
  if (threadIdx.x == 0) {
    while (ld_acquire_sys(view.signal_pads[view.rank] + kStartBase + blockIdx.x) < epoch) {
    }
  }
  __syncthreads();
  for (int64_t i = tid; i < n; i += stride) {
    float acc = 0.f;
    for (int p = 0; p < view.world_size; ++p) acc += static_cast<const float*>(view.peers[p])[i];
    out[i] = acc;
  }
  __syncthreads();
  if (threadIdx.x < view.world_size) {
    const int peer = threadIdx.x;
    st_release_sys(view.signal_pads[peer] + kExitBase + blockIdx.x * PKB_MAX_RANKS + view.rank, epoch);
    while (ld_acquire_sys(view.signal_pads[view.rank] + kExitBase + blockIdx.x * PKB_MAX_RANKS + peer) < epoch) {
    }
  }
}

static int64_t numel(const pkb_tensor* t) {
  int64_t n = 1;
  for (int d = 0; d < t->ndim; ++d) n *= t->shape[d];
  return n;
}

extern "C" int pkb_candidate_query(const pkb_context*, const pkb_tensor* inputs, int,
                                   const pkb_tensor*, int, pkb_requirements* req) {
  req->num_symm_buffers = 1;
  req->symm_bytes[0] = (size_t)numel(&inputs[0]) * sizeof(float);
  req->workspace_bytes = 0;
  return 0;
}

extern "C" int pkb_candidate_setup(pkb_context* ctx) {
  return ctx->signal_pad_bytes >= kPadWords * sizeof(uint32_t) ? 0 : 1;
}

extern "C" int pkb_candidate_run(pkb_context* ctx, const pkb_tensor* inputs, int num_inputs,
                                 pkb_tensor* outputs, int num_outputs) {
  if (num_inputs < 1 || num_outputs < 1 || inputs[0].dtype != PKB_DTYPE_F32) return 1;
  const uint32_t epoch = (uint32_t)ctx->call_index + 1;
  allreduce_oneshot<<<kGrid, kBlock, 0, (cudaStream_t)ctx->stream>>>(
      ctx->view, static_cast<const float*>(inputs[0].data), static_cast<float*>(outputs[0].data),
      numel(&inputs[0]), epoch);
  return cudaGetLastError() == cudaSuccess ? 0 : 1;
}
