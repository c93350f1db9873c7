// bar004_03_peerview.cu: BUG(BAR-004) after copying the gathered buffer out the kernel returns at once; in the next call a fast rank pushes into a peer's buffer while that peer may still be copying the previous call's data out (cross-call write-after-read). FIX: an exit barrier (release/acquire, value 2*call) after the copy-out.
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

// Push all-gather into symmetric buffer 0 (W*m floats per rank): rank r writes
// its m floats at offset r*m of every rank's copy. Flag slot block*8 + sender.
__global__ void allgather_push(pkb_peer_view view, const float* in, float* out, int64_t m,
                               uint32_t call) {
  const int64_t tid = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
  const int64_t stride = (int64_t)gridDim.x * blockDim.x;
  for (int p = 0; p < view.world_size; ++p) {
    float* dst = static_cast<float*>(view.peers[p]) + view.rank * m;
    for (int64_t j = tid; j < m; j += stride) dst[j] = in[j];  // expect: BAR-004
  }
  __syncthreads();
  if (threadIdx.x < view.world_size) {
    const int peer = threadIdx.x;
    st_release_sys(view.signal_pads[peer] + blockIdx.x * PKB_MAX_RANKS + view.rank, call);
    while (ld_acquire_sys(view.signal_pads[view.rank] + blockIdx.x * PKB_MAX_RANKS + peer) < call) {
    }
  }
  __syncthreads();
  const float* mine = static_cast<const float*>(view.peers[view.rank]);
  for (int q = 0; q < view.world_size; ++q)
    for (int64_t j = tid; j < m; j += stride) out[q * m + j] = mine[q * m + j];
}

static int64_t numel(const pkb_tensor* t) {
  int64_t n = 1;
  for (int d = 0; d < t->ndim; ++d) n *= t->shape[d];
  return n;
}

extern "C" int pkb_candidate_query(const pkb_context* ctx, const pkb_tensor* inputs, int,
                                   const pkb_tensor*, int, pkb_requirements* req) {
  req->num_symm_buffers = 1;
  req->symm_bytes[0] = (size_t)ctx->world_size * numel(&inputs[0]) * sizeof(float);
  req->workspace_bytes = 0;
  return 0;
}

extern "C" int pkb_candidate_setup(pkb_context* ctx) {
  return ctx->signal_pad_bytes >= kGrid * PKB_MAX_RANKS * sizeof(uint32_t) ? 0 : 1;
}

extern "C" int pkb_candidate_run(pkb_context* ctx, const pkb_tensor* inputs, int num_inputs,
                                 pkb_tensor* outputs, int num_outputs) {
  if (num_inputs < 1 || num_outputs < 1 || inputs[0].dtype != PKB_DTYPE_F32) return 1;
  allgather_push<<<kGrid, kBlock, 0, (cudaStream_t)ctx->stream>>>(
      ctx->view, static_cast<const float*>(inputs[0].data), static_cast<float*>(outputs[0].data),
      numel(&inputs[0]), (uint32_t)ctx->call_index + 1);
  return cudaGetLastError() == cudaSuccess ? 0 : 1;
}
