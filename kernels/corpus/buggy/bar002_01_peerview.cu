// bar002_01_peerview.cu: BUG(BAR-002) ranks skip the arrival on their own counter but the wait expects world_size arrivals per barrier, so the counter stops at (W-1)*m and every rank waits forever. FIX: also arrive on the own counter, or wait for (world_size - 1) * instance.
#include <cuda_runtime.h>
#include <stdint.h>

#include "pkb/pkb_abi.h"

constexpr int kBlock = 256;
constexpr int kGrid = 16;

__device__ __forceinline__ uint32_t ld_acquire_sys(const uint32_t* p) {
  uint32_t v;
  asm volatile("ld.acquire.sys.global.u32 %0, [%1];" : "=r"(v) : "l"(p) : "memory");
  return v;
}

// Counter barrier for the same-numbered block of every rank (pad word = block).
__device__ __forceinline__ void counter_barrier(const pkb_peer_view& view, uint32_t instance) {
  __syncthreads();
  if (threadIdx.x < view.world_size && threadIdx.x != view.rank) {
    uint32_t* counter = view.signal_pads[threadIdx.x] + blockIdx.x;
    asm volatile("red.release.sys.global.add.u32 [%0], %1;" ::"l"(counter), "r"(1u) : "memory");
  }
  if (threadIdx.x == 0) {
    const uint32_t* mine = view.signal_pads[view.rank] + blockIdx.x;
    while (ld_acquire_sys(mine) < (uint32_t)view.world_size * instance) {  // expect: BAR-002
    }
  }
  __syncthreads();
}

// Pull all-gather of m floats per rank through symmetric buffer 0 (W*m floats;
// rank r stages its input at offset r*m of its own copy).
__global__ void allgather_pull(pkb_peer_view view, const float* in, float* out, int64_t m,
                               uint32_t call) {
  const int64_t tid = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
  const int64_t stride = (int64_t)gridDim.x * blockDim.x;
  float* mine = static_cast<float*>(view.peers[view.rank]) + view.rank * m;
  for (int64_t j = tid; j < m; j += stride) mine[j] = in[j];
  counter_barrier(view, 2 * call - 1);
  for (int q = 0; q < view.world_size; ++q) {
    const float* src = static_cast<const float*>(view.peers[q]) + q * m;
    for (int64_t j = tid; j < m; j += stride) out[q * m + j] = src[j];
  }
  counter_barrier(view, 2 * call);
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
  return ctx->signal_pad_bytes >= kGrid * sizeof(uint32_t) ? 0 : 1;
}

extern "C" int pkb_candidate_run(pkb_context* ctx, const pkb_tensor* inputs, int num_inputs,
                                 pkb_tensor* outputs, int num_outputs) {
  if (num_inputs < 1 || num_outputs < 1 || inputs[0].dtype != PKB_DTYPE_F32) return 1;
  const uint32_t call = (uint32_t)ctx->call_index + 1;
  allgather_pull<<<kGrid, kBlock, 0, (cudaStream_t)ctx->stream>>>(
      ctx->view, static_cast<const float*>(inputs[0].data), static_cast<float*>(outputs[0].data),
      numel(&inputs[0]), call);
  return cudaGetLastError() == cudaSuccess ? 0 : 1;
}
