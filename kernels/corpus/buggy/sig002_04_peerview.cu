// sig002_04_peerview.cu: BUG(SIG-002) the waiter re-arms its flag by writing 0 after seeing 1, but a fast peer that already passed may set the flag for the next barrier before that reset lands; the reset erases it and the next wait hangs. FIX: never reset; use monotonically increasing values (wait for >= the barrier count), or torch's CAS put/wait handshake.
#include <cuda_runtime.h>
#include <stdint.h>

#include "pkb/pkb_abi.h"

constexpr int kBlock = 256;
constexpr int kGrid = 32;

__device__ __forceinline__ uint32_t ld_acquire_sys(const uint32_t* p) {
  uint32_t v;
  asm volatile("ld.acquire.sys.global.u32 %0, [%1];" : "=r"(v) : "l"(p) : "memory");
  return v;
}

// Cross-rank barrier: sender s sets signal_pads[p][s] = 1 on every rank p; the
// waiter consumes its flags by writing them back to 0.
__global__ void flag_barrier(pkb_peer_view view) {
  if (threadIdx.x < view.world_size) {
    const int peer = threadIdx.x;
    uint32_t* remote = view.signal_pads[peer] + view.rank;
    asm volatile("st.release.sys.global.u32 [%0], %1;" ::"l"(remote), "r"(1u) : "memory");
    uint32_t* flag = view.signal_pads[view.rank] + peer;
    while (ld_acquire_sys(flag) != 1u) {  // expect: SIG-002
    }
    asm volatile("st.relaxed.sys.global.u32 [%0], %1;" ::"l"(flag), "r"(0u) : "memory");
  }
}

__global__ void reduce_peers(pkb_peer_view view, float* out, int64_t n) {
  const int64_t stride = (int64_t)gridDim.x * blockDim.x;
  for (int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride) {
    float acc = 0.f;
    for (int p = 0; p < view.world_size; ++p) acc += static_cast<const float*>(view.peers[p])[i];
    out[i] = acc;
  }
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
  return ctx->signal_pad_bytes >= PKB_MAX_RANKS * sizeof(uint32_t) ? 0 : 1;
}

// All-reduce: stage, barrier, reduce, barrier (the second barrier keeps the
// next call's staging copy from overwriting a buffer a peer is still reading).
extern "C" int pkb_candidate_run(pkb_context* ctx, const pkb_tensor* inputs, int num_inputs,
                                 pkb_tensor* outputs, int num_outputs) {
  if (num_inputs < 1 || num_outputs < 1 || inputs[0].dtype != PKB_DTYPE_F32) return 1;
  cudaStream_t stream = (cudaStream_t)ctx->stream;
  const int64_t n = numel(&inputs[0]);
  cudaMemcpyAsync(ctx->symm[0].local, inputs[0].data, n * sizeof(float), cudaMemcpyDeviceToDevice,
                  stream);
  flag_barrier<<<1, 32, 0, stream>>>(ctx->view);
  reduce_peers<<<kGrid, kBlock, 0, stream>>>(ctx->view, static_cast<float*>(outputs[0].data), n);
  flag_barrier<<<1, 32, 0, stream>>>(ctx->view);
  return cudaGetLastError() == cudaSuccess ? 0 : 1;
}
