// c27_moe_combine_peerview.cu: CORRECT MoE combine (top-k) through the pkbcheck ABI: every expert output row goes to its own row t*K + k of the source rank's combine buffer (no two writers share an element), release/acquire rank barriers, then each rank sums its K rows per token locally; the buffer is zeroed before the first barrier so dropped slots read as 0.
#include <cuda_runtime.h>
#include <stdint.h>

#include "pkb/pkb_abi.h"

constexpr int kBlock = 1024;  // one block per rank: a block barrier is a rank barrier

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

// y: [R, H] outputs of the local experts; row r came from slot k[r] of token
// tok[r] of rank src[r] with weight w[r]. Symmetric buffer 0 = [T*K, H].
// A (src, tok, k) triple is routed to exactly one expert, so rows are unique.
__global__ void moe_combine(pkb_peer_view view, const float* y, const int* src, const int* tok,
                            const int* kslot, const float* w, float* out, int R, int T, int K,
                            int H, uint32_t call) {
  float* mine = static_cast<float*>(view.peers[view.rank]);
  for (int64_t e = threadIdx.x; e < (int64_t)T * K * H; e += blockDim.x) mine[e] = 0.f;
  rank_barrier(view, 3 * call - 2);
  for (int64_t e = threadIdx.x; e < (int64_t)R * H; e += blockDim.x) {
    const int r = (int)(e / H), h = (int)(e % H);
    const int s = src[r], t = tok[r], k = kslot[r];
    if (s < 0 || s >= view.world_size || t < 0 || t >= T || k < 0 || k >= K) continue;
    static_cast<float*>(view.peers[s])[((int64_t)t * K + k) * H + h] = w[r] * y[e];
  }
  rank_barrier(view, 3 * call - 1);
  for (int64_t e = threadIdx.x; e < (int64_t)T * H; e += blockDim.x) {
    const int64_t t = e / H, h = e % H;
    float acc = 0.f;
    for (int k = 0; k < K; ++k) acc += mine[(t * K + k) * H + h];
    out[e] = acc;
  }
  rank_barrier(view, 3 * call);
}

extern "C" int pkb_candidate_query(const pkb_context*, const pkb_tensor* inputs, int num_inputs,
                                   const pkb_tensor* outputs, int, pkb_requirements* req) {
  if (num_inputs < 6) return 1;
  const int64_t K = inputs[5].shape[0];  // inputs[5]: a [K] tensor fixing the top-k
  req->num_symm_buffers = 1;
  req->symm_bytes[0] = (size_t)(outputs[0].shape[0] * K * outputs[0].shape[1]) * sizeof(float);
  req->workspace_bytes = 0;
  return 0;
}

extern "C" int pkb_candidate_setup(pkb_context* ctx) {
  return ctx->signal_pad_bytes >= PKB_MAX_RANKS * sizeof(uint32_t) ? 0 : 1;
}

// inputs: y [R, H] f32, src [R] i32, tok [R] i32, k [R] i32, w [R] f32, topk [K];
// outputs: out [T, H] f32.
extern "C" int pkb_candidate_run(pkb_context* ctx, const pkb_tensor* inputs, int num_inputs,
                                 pkb_tensor* outputs, int num_outputs) {
  if (num_inputs < 6 || num_outputs < 1) return 1;
  moe_combine<<<1, kBlock, 0, (cudaStream_t)ctx->stream>>>(
      ctx->view, static_cast<const float*>(inputs[0].data), static_cast<const int*>(inputs[1].data),
      static_cast<const int*>(inputs[2].data), static_cast<const int*>(inputs[3].data),
      static_cast<const float*>(inputs[4].data), static_cast<float*>(outputs[0].data),
      (int)inputs[0].shape[0], (int)outputs[0].shape[0], (int)inputs[5].shape[0],
      (int)inputs[0].shape[1], (uint32_t)ctx->call_index + 1);
  return cudaGetLastError() == cudaSuccess ? 0 : 1;
}
