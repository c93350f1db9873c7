// ord001_02_ptx.cu: BUG(ORD-001) the start signal is st.relaxed.sys with no release fence, so peers may read our staging buffer before the copy lands. FIX: use st.release.sys (or fence.acq_rel.sys before the relaxed store).
#include <cuda_runtime.h>
#include <stdint.h>

constexpr int kBlock = 512;
constexpr int kGrid = 16;
constexpr int kMaxRanks = 8;

__device__ __forceinline__ uint32_t ld_acquire_sys(const uint32_t* p) {
  uint32_t v;
  asm volatile("ld.acquire.sys.global.u32 %0, [%1];" : "=r"(v) : "l"(p) : "memory");
  return v;
}

// One-shot all-reduce (sum). bufs[p]: rank p's symmetric staging buffer of n
// floats. pads[p]: rank p's signal pad, slot = block * 8 + sender.
__global__ void allreduce_oneshot(float** bufs, uint32_t** pads, const float* in,
                                  float* out, int rank, int world_size,
                                  int64_t n, uint32_t epoch) {
  const int64_t tid = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
  const int64_t stride = (int64_t)gridDim.x * blockDim.x;
  float* mine = bufs[rank];
  for (int64_t i = tid; i < n; i += stride) mine[i] = in[i];
  __syncthreads();
  if (threadIdx.x < world_size) {
    const int peer = threadIdx.x;
    uint32_t* remote = pads[peer] + blockIdx.x * kMaxRanks + rank;
    asm volatile("st.relaxed.sys.global.u32 [%0], %1;" ::"l"(remote), "r"(2 * epoch) : "memory");  // expect: ORD-001
    while (ld_acquire_sys(pads[rank] + blockIdx.x * kMaxRanks + peer) < 2 * epoch) {
    }
  }
  __syncthreads();
  for (int64_t i = tid; i < n; i += stride) {
    float acc = 0.f;
    for (int p = 0; p < world_size; ++p) acc += bufs[p][i];
    out[i] = acc;
  }
  __syncthreads();
  if (threadIdx.x < world_size) {
    const int peer = threadIdx.x;
    uint32_t* remote = pads[peer] + blockIdx.x * kMaxRanks + rank;
    asm volatile("st.release.sys.global.u32 [%0], %1;" ::"l"(remote), "r"(2 * epoch + 1) : "memory");
    while (ld_acquire_sys(pads[rank] + blockIdx.x * kMaxRanks + peer) < 2 * epoch + 1) {
    }
  }
}

void launch_allreduce(float** bufs, uint32_t** pads, const float* in, float* out,
                      int rank, int world_size, int64_t n, cudaStream_t stream) {
  static uint32_t epoch = 0;
  ++epoch;
  allreduce_oneshot<<<kGrid, kBlock, 0, stream>>>(bufs, pads, in, out, rank,
                                                  world_size, n, epoch);
}
