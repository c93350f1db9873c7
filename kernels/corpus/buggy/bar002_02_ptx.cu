// bar002_02_ptx.cu: BUG(BAR-002) with an odd world size the last rank has no partner (rank ^ 1 == W); it skips the push and the signal but still waits for its partner's flag, which nobody ever writes: deadlock for W = 3, 5, 7. FIX: guard the wait (and the read of recv) with the same partner < world_size test.
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

// One butterfly step: ranks 2k and 2k+1 swap their vectors and add them.
// recv[p]: rank p's symmetric receive buffer; pads[p][block*8 + s] written by s.
__global__ void butterfly_step(float** recv, uint32_t** pads, const float* in, float* out,
                               int rank, int world_size, int64_t n, uint32_t epoch) {
  const int64_t tid = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
  const int64_t stride = (int64_t)gridDim.x * blockDim.x;
  const int partner = rank ^ 1;
  const bool paired = partner < world_size;
  if (paired)
    for (int64_t i = tid; i < n; i += stride) recv[partner][i] = in[i];
  __syncthreads();
  if (threadIdx.x == 0) {
    if (paired) st_release_sys(pads[partner] + blockIdx.x * kMaxRanks + rank, 2 * epoch);
    while (ld_acquire_sys(pads[rank] + blockIdx.x * kMaxRanks + (rank ^ 1)) < 2 * epoch) {  // expect: BAR-002
    }
  }
  __syncthreads();
  const float* got = recv[rank];
  for (int64_t i = tid; i < n; i += stride) out[i] = in[i] + got[i];
  __syncthreads();
  if (threadIdx.x == 0 && paired) {
    st_release_sys(pads[partner] + blockIdx.x * kMaxRanks + rank, 2 * epoch + 1);
    while (ld_acquire_sys(pads[rank] + blockIdx.x * kMaxRanks + partner) < 2 * epoch + 1) {
    }
  }
}

void launch_butterfly(float** recv, uint32_t** pads, const float* in, float* out, int rank,
                      int world_size, int64_t n, cudaStream_t stream) {
  static uint32_t epoch = 0;
  ++epoch;
  butterfly_step<<<kGrid, kBlock, 0, stream>>>(recv, pads, in, out, rank, world_size, n, epoch);
}
