// c01_allreduce_oneshot_peerview.cu: CORRECT one-shot all-reduce through the pkbcheck ABI: stage, block-matched release/acquire barrier (st.release.sys / ld.acquire.sys, monotonic call-derived values), sum over peers, exit barrier so the next call cannot restage early.
#include <cuda_runtime.h>
#include <stdint.h>

#include "pkb/pkb_abi.h"

constexpr int kBlock = 512;
constexpr int kGrid = 16;
constexpr size_t kPadWords = (size_t)kGrid * PKB_MAX_RANKS;

__device__ __forceinline__ void st_release_sys(uint32_t* p, uint32_t v) {
  asm volatile("st.release.sys.global.u32 [%0], %1;" ::"l"(p), "r"(v) : "memory");
}
__device__ __forceinline__ uint32_t ld_acquire_sys(const uint32_t* p) {
  uint32_t v;
  asm volatile("ld.acquire.sys.global.u32 %0, [%1];" : "=r"(v) : "l"(p) : "memory");
  return v;
}

// Every write of this block before the call is visible to the same-numbered
// block of every rank after it (torch sync_remote_blocks "pattern 1"). Slot
// block*8 + sender is written only by `sender`, with increasing values.
__device__ __forceinline__ void block_barrier(const pkb_peer_view& view, uint32_t value) {
  __syncthreads();
  if (threadIdx.x < view.world_size) {
    const int peer = threadIdx.x;
    st_release_sys(view.signal_pads[peer] + blockIdx.x * PKB_MAX_RANKS + view.rank, value);
    while (ld_acquire_sys(view.signal_pads[view.rank] + blockIdx.x * PKB_MAX_RANKS + peer) < value) {
    }
  }
  __syncthreads();
}

// Element i is staged and read by the same global thread id on every rank (same
// grid on all ranks), so block-matched barriers order all cross-rank accesses.
__global__ void allreduce_oneshot(pkb_peer_view view, const float* in, float* out, int64_t n,
                                  uint32_t call) {
  const int64_t tid = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
  const int64_t stride = (int64_t)gridDim.x * blockDim.x;
  float* mine = static_cast<float*>(view.peers[view.rank]);
  for (int64_t i = tid; i < n; i += stride) mine[i] = in[i];
  block_barrier(view, 2 * call - 1);
  for (int64_t i = tid; i < n; i += stride) {
    float acc = 0.f;
    for (int p = 0; p < view.world_size; ++p) acc += static_cast<const float*>(view.peers[p])[i];
    out[i] = acc;
  }
  block_barrier(view, 2 * call);
}

static int64_t numel(const pkb_tensor* t) {
  int64_t n = 1;
  for (int d = 0; d < t->ndim; ++d) n *= t->shape[d];
  return n;
}

extern "C" int pkb_candidate_query(const pkb_context*, const pkb_tensor* inputs, int num_inputs,
                                   const pkb_tensor*, int, pkb_requirements* req) {
  if (num_inputs < 1) return 1;
  req->num_symm_buffers = 1;
  req->symm_bytes[0] = (size_t)numel(&inputs[0]) * sizeof(float);
  req->workspace_bytes = 0;
  return 0;
}

extern "C" int pkb_candidate_setup(pkb_context* ctx) {
  if (ctx->world_size < 1 || ctx->world_size > PKB_MAX_RANKS) return 1;
  return ctx->signal_pad_bytes >= kPadWords * sizeof(uint32_t) ? 0 : 1;
}

extern "C" int pkb_candidate_run(pkb_context* ctx, const pkb_tensor* inputs, int num_inputs,
                                 pkb_tensor* outputs, int num_outputs) {
  if (num_inputs < 1 || num_outputs < 1 || inputs[0].dtype != PKB_DTYPE_F32) return 1;
  const uint32_t call = (uint32_t)ctx->call_index + 1;
  allreduce_oneshot<<<kGrid, kBlock, 0, (cudaStream_t)ctx->stream>>>(
      ctx->view, static_cast<const float*>(inputs[0].data), static_cast<float*>(outputs[0].data),
      numel(&inputs[0]), call);
  return cudaGetLastError() == cudaSuccess ? 0 : 1;
}
