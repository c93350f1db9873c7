// c19_moe_dispatch_peerview.cu: CORRECT MoE token dispatch through the pkbcheck ABI: each receiver zeroes its arrival counter, barrier, senders reserve rows with atomicAdd_system on the receiver's counter (unique slots) and store the token rows, release/acquire barrier, receivers copy rows out, exit barrier.
#include <cuda_runtime.h>
#include <stdint.h>

#include "pkb/pkb_abi.h"

constexpr int kBlock = 512;  // one block per rank: a block barrier is a rank barrier

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

// Symmetric buffer 0 of every rank: [int counter, 3 ints pad][cap x {src, token}
// ints][cap x H floats]. Token t goes to rank dest[t] (skipped unless 0 <= dest
// < W); rows beyond cap are dropped. out: [cap, H], out_meta: [cap, 2],
// out_count: [1].
__global__ void moe_dispatch(pkb_peer_view view, const float* x, const int* dest, float* out,
                             int* out_meta, int* out_count, int T, int H, int cap, uint32_t call) {
  const int W = view.world_size, r = view.rank;
  char* mine = static_cast<char*>(view.peers[r]);
  if (threadIdx.x == 0) *reinterpret_cast<int*>(mine) = 0;
  rank_barrier(view, 3 * call - 2);
  for (int t = threadIdx.x; t < T; t += blockDim.x) {
    const int d = dest[t];
    if (d < 0 || d >= W) continue;
    char* base = static_cast<char*>(view.peers[d]);
    const int slot = atomicAdd_system(reinterpret_cast<int*>(base), 1);
    if (slot >= cap) continue;
    int* meta = reinterpret_cast<int*>(base + 16) + 2 * slot;
    meta[0] = r;
    meta[1] = t;
    float* row = reinterpret_cast<float*>(base + 16 + (size_t)cap * 8) + (int64_t)slot * H;
    for (int h = 0; h < H; ++h) row[h] = x[(int64_t)t * H + h];
  }
  rank_barrier(view, 3 * call - 1);
  const int count = min(*reinterpret_cast<const int*>(mine), cap);
  const float* rows = reinterpret_cast<const float*>(mine + 16 + (size_t)cap * 8);
  const int* meta = reinterpret_cast<const int*>(mine + 16);
  for (int64_t e = threadIdx.x; e < (int64_t)count * H; e += blockDim.x) out[e] = rows[e];
  for (int e = threadIdx.x; e < 2 * count; e += blockDim.x) out_meta[e] = meta[e];
  if (threadIdx.x == 0) *out_count = count;
  rank_barrier(view, 3 * call);
}

extern "C" int pkb_candidate_query(const pkb_context*, const pkb_tensor*, int num_inputs,
                                   const pkb_tensor* outputs, int num_outputs,
                                   pkb_requirements* req) {
  if (num_inputs < 2 || num_outputs < 3) return 1;
  const int64_t cap = outputs[0].shape[0], H = outputs[0].shape[1];
  req->num_symm_buffers = 1;
  req->symm_bytes[0] = 16 + (size_t)cap * 8 + (size_t)(cap * H) * sizeof(float);
  req->workspace_bytes = 0;
  return 0;
}

extern "C" int pkb_candidate_setup(pkb_context* ctx) {
  return ctx->signal_pad_bytes >= PKB_MAX_RANKS * sizeof(uint32_t) ? 0 : 1;
}

// inputs: x [T, H] f32, dest [T] i32; outputs: rows [cap, H] f32, meta [cap, 2] i32, count [1] i32.
extern "C" int pkb_candidate_run(pkb_context* ctx, const pkb_tensor* inputs, int num_inputs,
                                 pkb_tensor* outputs, int num_outputs) {
  if (num_inputs < 2 || num_outputs < 3) return 1;
  moe_dispatch<<<1, kBlock, 0, (cudaStream_t)ctx->stream>>>(
      ctx->view, static_cast<const float*>(inputs[0].data), static_cast<const int*>(inputs[1].data),
      static_cast<float*>(outputs[0].data), static_cast<int*>(outputs[1].data),
      static_cast<int*>(outputs[2].data), (int)inputs[0].shape[0], (int)inputs[0].shape[1],
      (int)outputs[0].shape[0], (uint32_t)ctx->call_index + 1);
  return cudaGetLastError() == cudaSuccess ? 0 : 1;
}
