// part002_02_peerview.cu: BUG(PART-002) MoE combine with top-k routing: every expert output row of token t is stored to row t of the source rank's combine buffer, so the k experts of one token (on different ranks) write the same elements in the same phase and all but one are lost. FIX: store to row t*K + k (one row per routing slot) and sum the K rows locally after the barrier.
#include <cuda_runtime.h>
#include <stdint.h>

#include "pkb/pkb_abi.h"

constexpr int kBlock = 1024;  // one block per rank: a block barrier is a grid barrier

__device__ __forceinline__ void rank_barrier(const pkb_peer_view& view, uint32_t value) {
  __syncthreads();
  if (threadIdx.x < view.world_size) {
    const int peer = threadIdx.x;
    uint32_t* remote = view.signal_pads[peer] + view.rank;
    asm volatile("st.release.sys.global.u32 [%0], %1;" ::"l"(remote), "r"(value) : "memory");
    const uint32_t* flag = view.signal_pads[view.rank] + peer;
    uint32_t seen;
    do {
      asm volatile("ld.acquire.sys.global.u32 %0, [%1];" : "=r"(seen) : "l"(flag) : "memory");
    } while (seen < value);
  }
  __syncthreads();
}

// y: [R, H] outputs of the local experts for R received rows; row r came from
// token tok[r] of rank src[r] with routing weight w[r]. Symmetric buffer 0 is
// the [T, H] combine area; out[t] = weighted sum of token t's expert outputs.
__global__ void moe_combine(pkb_peer_view view, const float* y, const int* src, const int* tok,
                            const float* w, float* out, int R, int T, int H, uint32_t call) {
  float* mine = static_cast<float*>(view.peers[view.rank]);
  for (int64_t e = threadIdx.x; e < (int64_t)T * H; e += blockDim.x) mine[e] = 0.f;
  rank_barrier(view, 3 * call - 2);
  for (int64_t e = threadIdx.x; e < (int64_t)R * H; e += blockDim.x) {
    const int r = (int)(e / H), h = (int)(e % H);
    const int s = src[r], t = tok[r];
    if (s < 0 || s >= view.world_size || t < 0 || t >= T) continue;
    static_cast<float*>(view.peers[s])[(int64_t)t * H + h] = w[r] * y[e];  // expect: PART-002
  }
  rank_barrier(view, 3 * call - 1);
  for (int64_t e = threadIdx.x; e < (int64_t)T * H; e += blockDim.x) out[e] = mine[e];
  rank_barrier(view, 3 * call);
}

extern "C" int pkb_candidate_query(const pkb_context*, const pkb_tensor*, int,
                                   const pkb_tensor* outputs, int, pkb_requirements* req) {
  req->num_symm_buffers = 1;
  req->symm_bytes[0] = (size_t)(outputs[0].shape[0] * outputs[0].shape[1]) * sizeof(float);
  req->workspace_bytes = 0;
  return 0;
}

extern "C" int pkb_candidate_setup(pkb_context* ctx) {
  return ctx->signal_pad_bytes >= PKB_MAX_RANKS * sizeof(uint32_t) ? 0 : 1;
}

// inputs: y [R, H] f32, src [R] i32, tok [R] i32, w [R] f32; outputs: out [T, H] f32.
extern "C" int pkb_candidate_run(pkb_context* ctx, const pkb_tensor* inputs, int num_inputs,
                                 pkb_tensor* outputs, int num_outputs) {
  if (num_inputs < 4 || num_outputs < 1) return 1;
  const int R = (int)inputs[0].shape[0], H = (int)inputs[0].shape[1];
  const int T = (int)outputs[0].shape[0];
  moe_combine<<<1, kBlock, 0, (cudaStream_t)ctx->stream>>>(
      ctx->view, static_cast<const float*>(inputs[0].data), static_cast<const int*>(inputs[1].data),
      static_cast<const int*>(inputs[2].data), static_cast<const float*>(inputs[3].data),
      static_cast<float*>(outputs[0].data), R, T, H, (uint32_t)ctx->call_index + 1);
  return cudaGetLastError() == cudaSuccess ? 0 : 1;
}
