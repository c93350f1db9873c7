// c31_allgather_signal_first_peerview.cu: CORRECT pull all-gather: every rank publishes its flag to the peers first, then waits for theirs (entry barrier), and an exit barrier keeps the staging copy from being overwritten while a peer reads it (twin of buggy/bar002_04_peerview.cu).
#include <cuda_runtime.h>
#include <stdint.h>

#include "pkb/pkb_abi.h"

constexpr int kBlock = 256;
constexpr int kGrid = 8;
constexpr int kExit = kGrid * PKB_MAX_RANKS;

// Pull all-gather of m floats per rank through symmetric buffer 0 (W*m
// floats; rank r stages its input at offset r*m of its own copy).
__global__ void allgather_pull(pkb_peer_view view, const float* in, float* out, int64_t m,
                               uint32_t epoch) {
  const int t = threadIdx.x;
  float* mine = static_cast<float*>(view.peers[view.rank]) + view.rank * m;
  for (int64_t j = (int64_t)blockIdx.x * blockDim.x + t; j < m; j += (int64_t)gridDim.x * blockDim.x)
    mine[j] = in[j];
  __syncthreads();
  if (t < view.world_size && t != view.rank) {
    uint32_t* peer = view.signal_pads[t] + blockIdx.x * PKB_MAX_RANKS + view.rank;
    asm volatile("st.release.sys.global.u32 [%0], %1;" ::"l"(peer), "r"(epoch) : "memory");
  }
  if (t < view.world_size && t != view.rank) {
    volatile uint32_t* flag = view.signal_pads[view.rank] + blockIdx.x * PKB_MAX_RANKS + t;
    uint32_t v;
    do {
      asm volatile("ld.acquire.sys.global.u32 %0, [%1];" : "=r"(v) : "l"(flag) : "memory");
    } while (v < epoch);
  }
  __syncthreads();
  for (int q = 0; q < view.world_size; ++q) {
    const float* src = static_cast<const float*>(view.peers[q]) + q * m;
    for (int64_t j = (int64_t)blockIdx.x * blockDim.x + t; j < m; j += (int64_t)gridDim.x * blockDim.x)
      out[q * m + j] = src[j];
  }
  // Exit barrier (signal first, then wait): no rank restages its input
  // while a peer still reads it.
  __syncthreads();
  if (t < view.world_size && t != view.rank) {
    uint32_t* peer = view.signal_pads[t] + kExit + blockIdx.x * PKB_MAX_RANKS + view.rank;
    asm volatile("st.release.sys.global.u32 [%0], %1;" ::"l"(peer), "r"(epoch) : "memory");
    volatile uint32_t* flag = view.signal_pads[view.rank] + kExit + blockIdx.x * PKB_MAX_RANKS + t;
    uint32_t v;
    do {
      asm volatile("ld.acquire.sys.global.u32 %0, [%1];" : "=r"(v) : "l"(flag) : "memory");
    } while (v < epoch);
  }
}

extern "C" int pkb_candidate_run(pkb_context* ctx, const pkb_tensor* inputs, int num_inputs,
                                 pkb_tensor* outputs, int num_outputs) {
  if (num_inputs < 1 || num_outputs < 1) return 1;
  allgather_pull<<<kGrid, kBlock, 0, (cudaStream_t)ctx->stream>>>(
      ctx->view, static_cast<const float*>(inputs[0].data), static_cast<float*>(outputs[0].data),
      inputs[0].shape[0], (uint32_t)ctx->call_index + 1);
  return cudaGetLastError() == cudaSuccess ? 0 : 1;
}
