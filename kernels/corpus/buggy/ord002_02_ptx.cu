// ord002_02_ptx.cu: BUG(ORD-002) the start wait polls with ld.relaxed.sys and nothing acquires afterwards, so the peers' staged chunks may be read stale. FIX: poll with ld.acquire.sys (or add fence.acq_rel.sys after the loop).
#include <cuda_runtime.h>
#include <stdint.h>

constexpr int kBlock = 256;
constexpr int kGrid = 16;
constexpr int kMaxRanks = 8;

__device__ __forceinline__ void st_release_sys(uint32_t* p, uint32_t v) {
  asm volatile("st.release.sys.global.u32 [%0], %1;" ::"l"(p), "r"(v) : "memory");
}
__device__ __forceinline__ uint32_t ld_acquire_sys(const uint32_t* p) {
  uint32_t v;
  asm volatile("ld.acquire.sys.global.u32 %0, [%1];" : "=r"(v) : "l"(p) : "memory");
  return v;
}

// Reduce-scatter (sum): rank r returns chunk r = [r*C, min(n, (r+1)*C)),
// C = ceil(n / W). stage[p]: rank p's symmetric staging copy of its input.
// Every phase indexes chunk-relative (c*C + j, j strided by thread id), so a
// block only reads what the same-numbered block of each peer wrote.
__global__ void reduce_scatter(float** stage, uint32_t** pads, const float* in, float* out,
                               int rank, int world_size, int64_t n, uint32_t epoch) {
  const int64_t tid = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
  const int64_t stride = (int64_t)gridDim.x * blockDim.x;
  const int64_t C = (n + world_size - 1) / world_size;
  float* mine = stage[rank];
  for (int c = 0; c < world_size; ++c) {
    const int64_t len = min(n - c * C, C);
    for (int64_t j = tid; j < len; j += stride) mine[c * C + j] = in[c * C + j];
  }
  __syncthreads();
  if (threadIdx.x < world_size) {
    const int peer = threadIdx.x;
    st_release_sys(pads[peer] + blockIdx.x * kMaxRanks + rank, 2 * epoch);
    const uint32_t* flag = pads[rank] + blockIdx.x * kMaxRanks + peer;
    uint32_t seen;
    do {
      asm volatile("ld.relaxed.sys.global.u32 %0, [%1];" : "=r"(seen) : "l"(flag) : "memory");
    } while (seen < 2 * epoch);
  }
  __syncthreads();
  const int64_t my_len = min(n - rank * C, C);
  for (int64_t j = tid; j < my_len; j += stride) {
    float acc = 0.f;
    for (int p = 0; p < world_size; ++p) {
      const int src = (rank + p) % world_size;
      acc += stage[src][rank * C + j];  // expect: ORD-002
    }
    out[j] = acc;
  }
  __syncthreads();
  if (threadIdx.x < world_size) {
    const int peer = threadIdx.x;
    st_release_sys(pads[peer] + blockIdx.x * kMaxRanks + rank, 2 * epoch + 1);
    while (ld_acquire_sys(pads[rank] + blockIdx.x * kMaxRanks + peer) < 2 * epoch + 1) {
    }
  }
}

void launch_reduce_scatter(float** stage, uint32_t** pads, const float* in, float* out,
                           int rank, int world_size, int64_t n, cudaStream_t stream) {
  static uint32_t epoch = 0;
  ++epoch;
  reduce_scatter<<<kGrid, kBlock, 0, stream>>>(stage, pads, in, out, rank, world_size, n, epoch);
}
