// race003_02_peerview.cu: BUG(RACE-003) every rank adds its per-expert token counts into every rank's global count array with a plain += on peer memory; concurrent read-modify-writes from different ranks lose counts. FIX: atomicAdd_system(&global[e], local[e]) (or write to a per-sender row and sum locally).
#include <cuda_runtime.h>
#include <stdint.h>

#include "pkb/pkb_abi.h"

constexpr int kBlock = 512;  // one block per rank
constexpr int kMaxExperts = 256;

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

// Global expert load: out[e] = number of (token, slot) pairs routed to expert e
// over all ranks. Symmetric buffer 0 holds E int32 global counts per rank.
__global__ void expert_load(pkb_peer_view view, const int* topk_ids, int* out, int TK, int E,
                            uint32_t call) {
  __shared__ int local[kMaxExperts];
  int* mine = static_cast<int*>(view.peers[view.rank]);
  for (int e = threadIdx.x; e < E; e += blockDim.x) {
    local[e] = 0;
    mine[e] = 0;
  }
  __syncthreads();
  for (int i = threadIdx.x; i < TK; i += blockDim.x) {
    const int e = topk_ids[i];
    if (e >= 0 && e < E) atomicAdd(&local[e], 1);
  }
  rank_barrier(view, 3 * call - 2);
  for (int s = 0; s < view.world_size; ++s) {
    int* global = static_cast<int*>(view.peers[(view.rank + s) % view.world_size]);
    for (int e = threadIdx.x; e < E; e += blockDim.x) global[e] += local[e];  // expect: RACE-003
  }
  rank_barrier(view, 3 * call - 1);
  for (int e = threadIdx.x; e < E; e += blockDim.x) out[e] = mine[e];
  rank_barrier(view, 3 * call);
}

extern "C" int pkb_candidate_query(const pkb_context*, const pkb_tensor*, int,
                                   const pkb_tensor* outputs, int, pkb_requirements* req) {
  req->num_symm_buffers = 1;
  req->symm_bytes[0] = (size_t)outputs[0].shape[0] * sizeof(int);
  req->workspace_bytes = 0;
  return 0;
}

extern "C" int pkb_candidate_setup(pkb_context* ctx) {
  return ctx->signal_pad_bytes >= PKB_MAX_RANKS * sizeof(uint32_t) ? 0 : 1;
}

// inputs: topk_ids [T, K] i32; outputs: counts [E] i32 with E <= 256.
extern "C" int pkb_candidate_run(pkb_context* ctx, const pkb_tensor* inputs, int num_inputs,
                                 pkb_tensor* outputs, int num_outputs) {
  if (num_inputs < 1 || num_outputs < 1 || outputs[0].shape[0] > kMaxExperts) return 1;
  const int TK = (int)(inputs[0].shape[0] * inputs[0].shape[1]);
  expert_load<<<1, kBlock, 0, (cudaStream_t)ctx->stream>>>(
      ctx->view, static_cast<const int*>(inputs[0].data), static_cast<int*>(outputs[0].data), TK,
      (int)outputs[0].shape[0], (uint32_t)ctx->call_index + 1);
  return cudaGetLastError() == cudaSuccess ? 0 : 1;
}
