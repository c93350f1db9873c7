// race002_02_ptx.cu: BUG(RACE-002) the ring reduce-scatter uses a single receive buffer per rank and no back-pressure: in step s+1 a rank overwrites next's recv while next may still be reading step s's partial from it. FIX: double-buffer recv by step parity plus an ack flag from next before reusing a slot (or one slot per step).
#include <cuda_runtime.h>
#include <stdint.h>

constexpr int kBlock = 256;
constexpr int kGrid = 16;
constexpr int kMaxRanks = 8;
constexpr int kExitBase = kGrid * kMaxRanks;

__device__ __forceinline__ void st_release_sys(uint32_t* p, uint32_t v) {
  asm volatile("st.release.sys.global.u32 [%0], %1;" ::"l"(p), "r"(v) : "memory");
}
__device__ __forceinline__ uint32_t ld_acquire_sys(const uint32_t* p) {
  uint32_t v;
  asm volatile("ld.acquire.sys.global.u32 %0, [%1];" : "=r"(v) : "l"(p) : "memory");
  return v;
}

// Ring reduce-scatter: rank r ends with chunk r (C = ceil(n / W)) of the sum.
// recv[p]: rank p's symmetric receive buffer (C floats); acc: local scratch.
// Step flags pads[p][block*8 + prev(p)] carry (e-1)*W + s + 1 in call e.
__global__ void ring_reduce_scatter(float** recv, uint32_t** pads, const float* in, float* acc,
                                    float* out, int rank, int world_size, int64_t n,
                                    uint32_t epoch) {
  const int64_t tid = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
  const int64_t stride = (int64_t)gridDim.x * blockDim.x;
  const int W = world_size;
  const int prev = (rank + W - 1) % W, next = (rank + 1) % W;
  const int64_t C = (n + W - 1) / W;
  const uint32_t base = (epoch - 1) * (uint32_t)W;
  for (int s = 0; s < W - 1; ++s) {
    const int c_send = (rank - s - 1 + 2 * W) % W;
    const int c_recv = (rank - s - 2 + 2 * W) % W;
    const int64_t ls = max((int64_t)0, min(C, n - c_send * C));
    const int64_t lr = max((int64_t)0, min(C, n - c_recv * C));
    for (int64_t j = tid; j < ls; j += stride) recv[next][j] = s == 0 ? in[c_send * C + j] : acc[j];  // expect: RACE-002
    __syncthreads();
    if (threadIdx.x == 0) {
      st_release_sys(pads[next] + blockIdx.x * kMaxRanks + rank, base + s + 1);
      while (ld_acquire_sys(pads[rank] + blockIdx.x * kMaxRanks + prev) < base + s + 1) {
      }
    }
    __syncthreads();
    for (int64_t j = tid; j < lr; j += stride) {
      const float v = recv[rank][j] + in[c_recv * C + j];
      if (s == W - 2) out[j] = v; else acc[j] = v;
    }
  }
  __syncthreads();
  if (threadIdx.x < W) {
    st_release_sys(pads[threadIdx.x] + kExitBase + blockIdx.x * kMaxRanks + rank, epoch);
    while (ld_acquire_sys(pads[rank] + kExitBase + blockIdx.x * kMaxRanks + threadIdx.x) < epoch) {
    }
  }
}

void launch_ring_reduce_scatter(float** recv, uint32_t** pads, const float* in, float* acc,
                                float* out, int rank, int world_size, int64_t n,
                                cudaStream_t stream) {
  static uint32_t epoch = 0;
  ++epoch;
  ring_reduce_scatter<<<kGrid, kBlock, 0, stream>>>(recv, pads, in, acc, out, rank, world_size, n,
                                                    epoch);
}
