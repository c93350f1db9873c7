// part003_02_peerview.cu: BUG(PART-003) the two-shot all-reduce splits n into W chunks of n / W elements; the last n % W elements are neither reduced nor gathered, so out[W*C .. n) is never written. FIX: C = ceil(n / W) with every chunk clamped to n.
#include <cuda_runtime.h>
#include <stdint.h>

#include "pkb/pkb_abi.h"

constexpr int kBlock = 512;
constexpr int kGrid = 16;

__device__ __forceinline__ void block_barrier(const pkb_peer_view& view, uint32_t value) {
  __syncthreads();
  if (threadIdx.x < view.world_size) {
    const int peer = threadIdx.x;
    uint32_t* remote = view.signal_pads[peer] + blockIdx.x * PKB_MAX_RANKS + view.rank;
    asm volatile("st.release.sys.global.u32 [%0], %1;" ::"l"(remote), "r"(value) : "memory");
    const uint32_t* flag = view.signal_pads[view.rank] + blockIdx.x * PKB_MAX_RANKS + peer;
    uint32_t seen;
    do {
      asm volatile("ld.acquire.sys.global.u32 %0, [%1];" : "=r"(seen) : "l"(flag) : "memory");
    } while (seen < value);
  }
  __syncthreads();
}

// Two-shot all-reduce on symmetric buffer 0; chunk-relative indexing in every
// phase so a block only reads what the same block of each peer wrote.
__global__ void allreduce_twoshot(pkb_peer_view view, const float* in, float* out, int64_t n,
                                  uint32_t call) {
  const int64_t tid = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
  const int64_t stride = (int64_t)gridDim.x * blockDim.x;
  const int W = view.world_size, r = view.rank;
  const int64_t C = n / W;
  float* mine = static_cast<float*>(view.peers[r]);
  for (int c = 0; c < W; ++c)
    for (int64_t j = tid; j < C; j += stride) mine[c * C + j] = in[c * C + j];
  block_barrier(view, 3 * call - 2);
  for (int64_t j = tid; j < C; j += stride) {
    float acc = 0.f;
    for (int p = 0; p < W; ++p) acc += static_cast<const float*>(view.peers[p])[r * C + j];
    mine[r * C + j] = acc;
  }
  block_barrier(view, 3 * call - 1);
  for (int c = 0; c < W; ++c)
    for (int64_t j = tid; j < C; j += stride) out[c * C + j] = static_cast<const float*>(view.peers[c])[c * C + j];  // expect: PART-003
  block_barrier(view, 3 * call);
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
  return ctx->signal_pad_bytes >= kGrid * PKB_MAX_RANKS * sizeof(uint32_t) ? 0 : 1;
}

extern "C" int pkb_candidate_run(pkb_context* ctx, const pkb_tensor* inputs, int num_inputs,
                                 pkb_tensor* outputs, int num_outputs) {
  if (num_inputs < 1 || num_outputs < 1 || inputs[0].dtype != PKB_DTYPE_F32) return 1;
  allreduce_twoshot<<<kGrid, kBlock, 0, (cudaStream_t)ctx->stream>>>(
      ctx->view, static_cast<const float*>(inputs[0].data), static_cast<float*>(outputs[0].data),
      numel(&inputs[0]), (uint32_t)ctx->call_index + 1);
  return cudaGetLastError() == cudaSuccess ? 0 : 1;
}
