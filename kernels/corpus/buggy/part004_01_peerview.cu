// part004_01_peerview.cu: BUG(PART-004) push all-to-all whose unpack reads region (q + 1) % W for output block q: region `rank` of the own buffer, which no rank writes (the own block goes straight to out), is read for q = rank - 1, and every other block gets the wrong sender. FIX: read region q for output block q.
#include <cuda_runtime.h>
#include <stdint.h>

#include "pkb/pkb_abi.h"

constexpr int kBlock = 256;
constexpr int kGrid = 16;
constexpr uint32_t kEntry = 0, kExit = PKB_MAX_RANKS;

__device__ __forceinline__ void st_release_sys(uint32_t* p, uint32_t v) {
  asm volatile("st.release.sys.global.u32 [%0], %1;" ::"l"(p), "r"(v) : "memory");
}
__device__ __forceinline__ uint32_t ld_acquire_sys(const uint32_t* p) {
  uint32_t v;
  asm volatile("ld.acquire.sys.global.u32 %0, [%1];" : "=r"(v) : "l"(p) : "memory");
  return v;
}

// One-block barrier kernel: thread p signals peer p at word base + rank and
// waits for peer p's word base + p (launched at two bases per call).
__global__ void barrier(pkb_peer_view view, uint32_t base, uint32_t epoch) {
  const int p = threadIdx.x;
  if (p >= view.world_size) return;
  __threadfence_system();
  st_release_sys(view.signal_pads[p] + base + view.rank, epoch);
  while (ld_acquire_sys(view.signal_pads[view.rank] + base + p) < epoch) {
  }
}

// in/out: world_size blocks of `count` floats. Block p (p != rank) goes to
// region `rank` of rank p's symmetric buffer; the own block goes straight to
// out, so region `rank` of the own buffer is never written.
__global__ void push(pkb_peer_view view, const float* in, float* out, int64_t count) {
  const int64_t stride = (int64_t)gridDim.x * blockDim.x;
  const int W = view.world_size, r = view.rank;
  for (int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; i < count * W; i += stride) {
    const int p = (int)(i / count);
    if (p == r)
      out[i] = in[i];
    else
      static_cast<float*>(view.peers[p])[r * count + (i - p * count)] = in[i];
  }
}

// out block q (q != rank) from the own buffer.
__global__ void unpack(pkb_peer_view view, float* out, int64_t count) {
  const int64_t stride = (int64_t)gridDim.x * blockDim.x;
  const int W = view.world_size, r = view.rank;
  const float* mine = static_cast<const float*>(view.peers[r]);
  for (int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; i < count * W; i += stride) {
    const int q = (int)(i / count);
    if (q != r) out[i] = mine[((q + 1) % W) * count + (i - q * count)];  // expect: PART-004
  }
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
  return ctx->signal_pad_bytes >= 2 * PKB_MAX_RANKS * sizeof(uint32_t) ? 0 : 1;
}

extern "C" int pkb_candidate_run(pkb_context* ctx, const pkb_tensor* inputs, int num_inputs,
                                 pkb_tensor* outputs, int num_outputs) {
  if (num_inputs < 1 || num_outputs < 1 || inputs[0].dtype != PKB_DTYPE_F32) return 1;
  const int64_t n = numel(&inputs[0]);
  if (n % ctx->world_size != 0) return 1;
  const int64_t count = n / ctx->world_size;
  const uint32_t epoch = (uint32_t)ctx->call_index + 1;
  cudaStream_t s = (cudaStream_t)ctx->stream;
  float* out = static_cast<float*>(outputs[0].data);
  push<<<kGrid, kBlock, 0, s>>>(ctx->view, static_cast<const float*>(inputs[0].data), out, count);
  barrier<<<1, PKB_MAX_RANKS, 0, s>>>(ctx->view, kEntry, epoch);
  unpack<<<kGrid, kBlock, 0, s>>>(ctx->view, out, count);
  barrier<<<1, PKB_MAX_RANKS, 0, s>>>(ctx->view, kExit, epoch);
  return cudaGetLastError() == cudaSuccess ? 0 : 1;
}
