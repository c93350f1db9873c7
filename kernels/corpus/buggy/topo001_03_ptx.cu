// topo001_03_ptx.cu: BUG(TOPO-001) the barrier arrives on every rank at once with multimem.red.release.sys on the multicast mapping of the signal pads; the default target has no NVLink multicast, so mc_pad does not exist there. FIX: guard with mc_pad != nullptr and fall back to one red.release.sys.global.add.u32 per peer pad.
#include <cuda_runtime.h>
#include <stdint.h>

constexpr int kBlock = 256;
constexpr int kGrid = 16;

__device__ __forceinline__ uint32_t ld_acquire_sys(const uint32_t* p) {
  uint32_t v;
  asm volatile("ld.acquire.sys.global.u32 %0, [%1];" : "=r"(v) : "l"(p) : "memory");
  return v;
}

// Counter barrier with one multicast arrival: word `block` of every rank's pad
// is incremented by one multimem.red; instance k completes at W * k.
__device__ __forceinline__ void mc_barrier(uint32_t* mc_pad, const uint32_t* my_pad, int world_size,
                                           uint32_t instance) {
  __syncthreads();
  if (threadIdx.x == 0) {
    asm volatile("multimem.red.release.sys.global.add.u32 [%0], %1;" ::"l"(mc_pad + blockIdx.x), "r"(1u) : "memory");  // expect: TOPO-001
    while (ld_acquire_sys(my_pad + blockIdx.x) < (uint32_t)world_size * instance) {
    }
  }
  __syncthreads();
}

// Pull all-gather of m floats per rank through symmetric staging buffers.
__global__ void allgather_mc(float** stage, uint32_t* mc_pad, const uint32_t* my_pad,
                             const float* in, float* out, int rank, int world_size, int64_t m,
                             uint32_t call) {
  const int64_t tid = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
  const int64_t stride = (int64_t)gridDim.x * blockDim.x;
  for (int64_t j = tid; j < m; j += stride) stage[rank][j] = in[j];
  mc_barrier(mc_pad, my_pad, world_size, 2 * call - 1);
  for (int q = 0; q < world_size; ++q)
    for (int64_t j = tid; j < m; j += stride) out[q * m + j] = stage[q][j];
  mc_barrier(mc_pad, my_pad, world_size, 2 * call);
}

void launch_allgather(float** stage, uint32_t* mc_pad, const uint32_t* my_pad, const float* in,
                      float* out, int rank, int world_size, int64_t m, cudaStream_t stream) {
  static uint32_t call = 0;
  ++call;
  allgather_mc<<<kGrid, kBlock, 0, stream>>>(stage, mc_pad, my_pad, in, out, rank, world_size, m,
                                             call);
}
