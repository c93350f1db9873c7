// c09_halo_exchange_peerview.cu: CORRECT 1-D periodic halo exchange + 3-point stencil over a ring of ranks (pkbcheck ABI): boundary cells stored into the neighbours' halo cells, st.release.sys per direction, ld.acquire.sys, __syncthreads, stencil, then "halo consumed" flags so the next call cannot overwrite a halo still being read.
#include <cuda_runtime.h>
#include <stdint.h>

#include "pkb/pkb_abi.h"

constexpr int kBlock = 512;
constexpr int kFromLeft = 0;   // pad word written only by our left neighbour
constexpr int kFromRight = 1;  // pad word written only by our right neighbour

__device__ __forceinline__ void st_release_sys(uint32_t* p, uint32_t v) {
  asm volatile("st.release.sys.global.u32 [%0], %1;" ::"l"(p), "r"(v) : "memory");
}
__device__ __forceinline__ uint32_t ld_acquire_sys(const uint32_t* p) {
  uint32_t v;
  asm volatile("ld.acquire.sys.global.u32 %0, [%1];" : "=r"(v) : "l"(p) : "memory");
  return v;
}

// Thread 0 tells both neighbours `value` and waits until both told us.
__device__ __forceinline__ void neighbour_sync(const pkb_peer_view& view, int left, int right,
                                               uint32_t value) {
  __syncthreads();
  if (threadIdx.x == 0) {
    st_release_sys(view.signal_pads[left] + kFromRight, value);
    st_release_sys(view.signal_pads[right] + kFromLeft, value);
    const uint32_t* mine = view.signal_pads[view.rank];
    while (ld_acquire_sys(mine + kFromLeft) < value || ld_acquire_sys(mine + kFromRight) < value) {
    }
  }
  __syncthreads();
}

// Symmetric buffer 0 = 2 floats: [0] = left neighbour's last cell, [1] = right
// neighbour's first cell. One block per rank; any n >= 1 (n == 0 returns on
// every rank, since n is the same everywhere).
__global__ void halo_stencil(pkb_peer_view view, const float* x, float* y, int64_t n,
                             uint32_t call) {
  if (n == 0) return;
  const int W = view.world_size, r = view.rank;
  const int left = (r + W - 1) % W, right = (r + 1) % W;
  if (threadIdx.x == 0) {
    static_cast<float*>(view.peers[left])[1] = x[0];
    static_cast<float*>(view.peers[right])[0] = x[n - 1];
  }
  neighbour_sync(view, left, right, 2 * call - 1);
  const float* halo = static_cast<const float*>(view.peers[r]);
  for (int64_t i = threadIdx.x; i < n; i += blockDim.x) {
    const float l = i > 0 ? x[i - 1] : halo[0];
    const float h = i + 1 < n ? x[i + 1] : halo[1];
    y[i] = (l + x[i] + h) * (1.f / 3.f);
  }
  neighbour_sync(view, left, right, 2 * call);
}

static int64_t numel(const pkb_tensor* t) {
  int64_t n = 1;
  for (int d = 0; d < t->ndim; ++d) n *= t->shape[d];
  return n;
}

extern "C" int pkb_candidate_query(const pkb_context*, const pkb_tensor*, int, const pkb_tensor*,
                                   int, pkb_requirements* req) {
  req->num_symm_buffers = 1;
  req->symm_bytes[0] = 2 * sizeof(float);
  req->workspace_bytes = 0;
  return 0;
}

extern "C" int pkb_candidate_setup(pkb_context* ctx) {
  return ctx->signal_pad_bytes >= 2 * sizeof(uint32_t) ? 0 : 1;
}

extern "C" int pkb_candidate_run(pkb_context* ctx, const pkb_tensor* inputs, int num_inputs,
                                 pkb_tensor* outputs, int num_outputs) {
  if (num_inputs < 1 || num_outputs < 1 || inputs[0].dtype != PKB_DTYPE_F32) return 1;
  halo_stencil<<<1, kBlock, 0, (cudaStream_t)ctx->stream>>>(
      ctx->view, static_cast<const float*>(inputs[0].data), static_cast<float*>(outputs[0].data),
      numel(&inputs[0]), (uint32_t)ctx->call_index + 1);
  return cudaGetLastError() == cudaSuccess ? 0 : 1;
}
