// ord003_02_ptx.cu: BUG(ORD-003) the "staged" signal uses st.release.gpu, whose scope does not include the peer GPUs that acquire it. FIX: st.release.sys.
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

// Pull all-gather: each rank stages its `chunk` floats in its own symmetric
// buffer, then reads every peer's staged chunk. Slot block * 8 + sender; call e
// uses 2e (staged) and 2e + 1 (done reading).
__global__ void allgather_pull(float** stage, uint32_t** pads, const float* in, float* out,
                               int rank, int world_size, int64_t chunk, uint32_t epoch) {
  const int64_t tid = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
  const int64_t stride = (int64_t)gridDim.x * blockDim.x;
  float* mine = stage[rank];
  for (int64_t i = tid; i < chunk; i += stride) mine[i] = in[i];
  __syncthreads();
  if (threadIdx.x < world_size) {
    const int peer = threadIdx.x;
    uint32_t* remote = pads[peer] + blockIdx.x * kMaxRanks + rank;
    asm volatile("st.release.gpu.global.u32 [%0], %1;" ::"l"(remote), "r"(2 * epoch) : "memory");  // expect: ORD-003
    while (ld_acquire_sys(pads[rank] + blockIdx.x * kMaxRanks + peer) < 2 * epoch) {
    }
  }
  __syncthreads();
  for (int q = 0; q < world_size; ++q) {
    const float* src = stage[q];
    for (int64_t i = tid; i < chunk; i += stride) out[q * chunk + i] = src[i];
  }
  __syncthreads();
  if (threadIdx.x < world_size) {
    const int peer = threadIdx.x;
    st_release_sys(pads[peer] + blockIdx.x * kMaxRanks + rank, 2 * epoch + 1);
    while (ld_acquire_sys(pads[rank] + blockIdx.x * kMaxRanks + peer) < 2 * epoch + 1) {
    }
  }
}

void launch_allgather(float** stage, uint32_t** pads, const float* in, float* out, int rank,
                      int world_size, int64_t chunk, cudaStream_t stream) {
  static uint32_t epoch = 0;
  ++epoch;
  allgather_pull<<<kGrid, kBlock, 0, stream>>>(stage, pads, in, out, rank, world_size, chunk, epoch);
}
