// c05_alltoall_push_peerview.cu: CORRECT push all-to-all through the pkbcheck ABI: block p of the input is stored into region `rank` of rank p's symmetric buffer, then a release/acquire barrier, a local copy-out, and an exit barrier.
#include <cuda_runtime.h>
#include <stdint.h>

#include "pkb/pkb_abi.h"

constexpr int kBlock = 256;
constexpr int kGrid = 16;

__device__ __forceinline__ void st_release_sys(uint32_t* p, uint32_t v) {
  asm volatile("st.release.sys.global.u32 [%0], %1;" ::"l"(p), "r"(v) : "memory");
}
__device__ __forceinline__ uint32_t ld_acquire_sys(const uint32_t* p) {
  uint32_t v;
  asm volatile("ld.acquire.sys.global.u32 %0, [%1];" : "=r"(v) : "l"(p) : "memory");
  return v;
}

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

// in/out: world_size blocks of `count` floats. Rank s's block for rank r lands
// in region s of rank r's symmetric buffer; element j of every block is handled
// by global thread j mod stride on all ranks.
__global__ void alltoall_push(pkb_peer_view view, const float* in, float* out, int64_t count,
                              uint32_t call) {
  const int64_t tid = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
  const int64_t stride = (int64_t)gridDim.x * blockDim.x;
  const int W = view.world_size, r = view.rank;
  for (int s = 0; s < W; ++s) {
    const int p = (r + s) % W;
    float* dst = static_cast<float*>(view.peers[p]) + r * count;
    for (int64_t j = tid; j < count; j += stride) dst[j] = in[p * count + j];
  }
  block_barrier(view, 2 * call - 1);
  const float* mine = static_cast<const float*>(view.peers[r]);
  for (int q = 0; q < W; ++q)
    for (int64_t j = tid; j < count; j += stride) out[q * count + j] = mine[q * count + j];
  block_barrier(view, 2 * call);
}

static int64_t numel(const pkb_tensor* t) {
  int64_t n = 1;
  for (int d = 0; d < t->ndim; ++d) n *= t->shape[d];
  return n;
}

extern "C" int pkb_candidate_query(const pkb_context* ctx, const pkb_tensor* inputs, int num_inputs,
                                   const pkb_tensor*, int, pkb_requirements* req) {
  if (num_inputs < 1 || numel(&inputs[0]) % ctx->world_size != 0) return 1;
  req->num_symm_buffers = 1;
  req->symm_bytes[0] = (size_t)numel(&inputs[0]) * sizeof(float);
  req->workspace_bytes = 0;
  return 0;
}

extern "C" int pkb_candidate_setup(pkb_context* ctx) {
  if (ctx->world_size < 1 || ctx->world_size > PKB_MAX_RANKS) return 1;
  return ctx->signal_pad_bytes >= kGrid * PKB_MAX_RANKS * sizeof(uint32_t) ? 0 : 1;
}

extern "C" int pkb_candidate_run(pkb_context* ctx, const pkb_tensor* inputs, int num_inputs,
                                 pkb_tensor* outputs, int num_outputs) {
  if (num_inputs < 1 || num_outputs < 1 || inputs[0].dtype != PKB_DTYPE_F32) return 1;
  const int64_t n = numel(&inputs[0]);
  if (n % ctx->world_size != 0) return 1;
  alltoall_push<<<kGrid, kBlock, 0, (cudaStream_t)ctx->stream>>>(
      ctx->view, static_cast<const float*>(inputs[0].data), static_cast<float*>(outputs[0].data),
      n / ctx->world_size, (uint32_t)ctx->call_index + 1);
  return cudaGetLastError() == cudaSuccess ? 0 : 1;
}
