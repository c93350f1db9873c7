// c29_allreduce_parity_peerview.cu: CORRECT one-shot all-reduce through the candidate ABI host code (pkb_candidate_run) with double buffering by call parity instead of an exit barrier: call k stages into and reads symm[k & 1], so call k+1 writes the other buffer; before call k+2 restages symm[k & 1] this rank has passed call k+1's entry barrier, which every peer reaches only after its call-k reduce (stream order). Needs two symmetric buffers (pkb_candidate_query).
#include <cuda_runtime.h>
#include <stdint.h>

#include "pkb/pkb_abi.h"

constexpr uint32_t kEntry = 0;

__device__ __forceinline__ void st_release_sys(uint32_t* p, uint32_t v) {
  asm volatile("st.release.sys.global.u32 [%0], %1;" ::"l"(p), "r"(v) : "memory");
}
__device__ __forceinline__ uint32_t ld_acquire_sys(const uint32_t* p) {
  uint32_t v;
  asm volatile("ld.acquire.sys.global.u32 %0, [%1];" : "=r"(v) : "l"(p) : "memory");
  return v;
}

// One block of PKB_MAX_RANKS threads; thread p signals rank p's pad slot
// kEntry + rank and waits for slot kEntry + p of its own pad.
__global__ void entry_barrier(pkb_peer_view view, uint32_t epoch) {
  const int p = threadIdx.x;
  if (p >= view.world_size) return;
  __threadfence_system();
  st_release_sys(view.signal_pads[p] + kEntry + view.rank, epoch);
  while (ld_acquire_sys(view.signal_pads[view.rank] + kEntry + p) < epoch) {
  }
}

// y[i] = sum over ranks p of bufs[p][i] (floats).
__global__ void reduce(void* const* bufs, int world_size, float* y, int64_t n) {
  const int64_t stride = (int64_t)gridDim.x * blockDim.x;
  for (int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride) {
    float acc = 0.f;
    for (int p = 0; p < world_size; ++p) acc += static_cast<const float*>(bufs[p])[i];
    y[i] = acc;
  }
}

extern "C" int pkb_candidate_query(const pkb_context* ctx, const pkb_tensor* in, int nin,
                                   const pkb_tensor* out, int nout, pkb_requirements* req) {
  req->num_symm_buffers = 2;
  req->symm_bytes[0] = req->symm_bytes[1] = (size_t)in[0].shape[0] * sizeof(float);
  req->workspace_bytes = 0;
  return 0;
}

extern "C" int pkb_candidate_setup(pkb_context* ctx) {
  return ctx->world_size <= PKB_MAX_RANKS && ctx->num_symm_buffers >= 2 ? 0 : 1;
}

extern "C" int pkb_candidate_run(pkb_context* ctx, const pkb_tensor* in, int nin,
                                 pkb_tensor* out, int nout) {
  cudaStream_t s = static_cast<cudaStream_t>(ctx->stream);
  const int64_t n = in[0].shape[0];
  const int b = (int)(ctx->call_index & 1);
  if ((size_t)n * sizeof(float) > ctx->symm[b].bytes) return 2;
  const uint32_t epoch = (uint32_t)ctx->call_index + 1;
  cudaMemcpyAsync(ctx->symm[b].local, in[0].data, n * sizeof(float), cudaMemcpyDeviceToDevice, s);
  entry_barrier<<<1, PKB_MAX_RANKS, 0, s>>>(ctx->view, epoch);
  reduce<<<16, 256, 0, s>>>(ctx->symm[b].peers, ctx->world_size, static_cast<float*>(out[0].data),
                            n);
  return cudaGetLastError() == cudaSuccess ? 0 : 4;
}
