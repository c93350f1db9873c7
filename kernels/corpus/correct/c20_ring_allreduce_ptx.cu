// c20_ring_allreduce_ptx.cu: CORRECT ring all-reduce (W-1 reduce-scatter steps + W-1 all-gather steps) with one receive slot and one flag word per step, so no slot is rewritten within a call; st.release.sys / ld.acquire.sys per step, all-rank exit barrier before the slots are reused by the next call.
#include <cuda_runtime.h>
#include <stdint.h>

constexpr int kBlock = 256;
constexpr int kGrid = 16;
constexpr int kMaxRanks = 8;
constexpr int kMaxSteps = 2 * (kMaxRanks - 1);
constexpr int kExitBase = kMaxSteps * kGrid;  // step flags: [step * kGrid + block]

__device__ __forceinline__ void st_release_sys(uint32_t* p, uint32_t v) {
  asm volatile("st.release.sys.global.u32 [%0], %1;" ::"l"(p), "r"(v) : "memory");
}
__device__ __forceinline__ uint32_t ld_acquire_sys(const uint32_t* p) {
  uint32_t v;
  asm volatile("ld.acquire.sys.global.u32 %0, [%1];" : "=r"(v) : "l"(p) : "memory");
  return v;
}

__device__ __forceinline__ int64_t chunk_len(int c, int64_t C, int64_t n) {
  return max((int64_t)0, min(C, n - c * C));
}

// After this block's sends for `step`, tell next and wait for prev. Flag word
// step * kGrid + block on a pad is written only by that pad's ring predecessor.
__device__ __forceinline__ void step_sync(uint32_t** pads, int rank, int next, int step,
                                          uint32_t epoch) {
  __syncthreads();
  if (threadIdx.x == 0) {
    st_release_sys(pads[next] + step * kGrid + blockIdx.x, epoch);
    while (ld_acquire_sys(pads[rank] + step * kGrid + blockIdx.x) < epoch) {
    }
  }
  __syncthreads();
}

// recv[p]: rank p's symmetric buffer of 2*(W-1) slots of C = ceil(n/W) floats.
// acc: local scratch of C floats. Element j of every chunk is handled by global
// thread j mod stride on every rank, so per-block flags order all accesses.
__global__ void ring_allreduce(float** recv, uint32_t** pads, const float* in, float* acc,
                               float* out, int rank, int world_size, int64_t n, uint32_t epoch) {
  const int64_t tid = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
  const int64_t stride = (int64_t)gridDim.x * blockDim.x;
  const int W = world_size;
  const int next = (rank + 1) % W;  // we receive from (rank + W - 1) % W
  const int64_t C = (n + W - 1) / W;
  for (int s = 0; s < W - 1; ++s) {  // reduce-scatter
    const int c_send = (rank - s - 1 + 2 * W) % W, c_recv = (rank - s - 2 + 2 * W) % W;
    float* dst = recv[next] + s * C;
    for (int64_t j = tid; j < chunk_len(c_send, C, n); j += stride)
      dst[j] = s == 0 ? in[c_send * C + j] : acc[j];
    step_sync(pads, rank, next, s, epoch);
    const float* got = recv[rank] + s * C;
    for (int64_t j = tid; j < chunk_len(c_recv, C, n); j += stride)
      acc[j] = got[j] + in[c_recv * C + j];
  }
  for (int64_t j = tid; j < chunk_len(rank, C, n); j += stride) out[rank * C + j] = acc[j];
  for (int s = 0; s < W - 1; ++s) {  // all-gather
    const int c_send = (rank - s + W) % W, c_recv = (rank - s - 1 + 2 * W) % W;
    float* dst = recv[next] + (W - 1 + s) * C;
    const float* fwd = recv[rank] + (W - 2 + s) * C;  // slot received in step s - 1
    for (int64_t j = tid; j < chunk_len(c_send, C, n); j += stride)
      dst[j] = s == 0 ? acc[j] : fwd[j];
    step_sync(pads, rank, next, W - 1 + s, epoch);
    const float* got = recv[rank] + (W - 1 + s) * C;
    for (int64_t j = tid; j < chunk_len(c_recv, C, n); j += stride) out[c_recv * C + j] = got[j];
  }
  __syncthreads();
  if (threadIdx.x < W) {
    st_release_sys(pads[threadIdx.x] + kExitBase + blockIdx.x * kMaxRanks + rank, epoch);
    while (ld_acquire_sys(pads[rank] + kExitBase + blockIdx.x * kMaxRanks + threadIdx.x) < epoch) {
    }
  }
}

void launch_ring_allreduce(float** recv, uint32_t** pads, const float* in, float* acc, float* out,
                           int rank, int world_size, int64_t n, cudaStream_t stream) {
  static uint32_t epoch = 0;
  ++epoch;
  ring_allreduce<<<kGrid, kBlock, 0, stream>>>(recv, pads, in, acc, out, rank, world_size, n,
                                               epoch);
}
