// bar003_02_ptx.cu: BUG(BAR-003) only thread 0 waits for the arrival counter and there is no __syncthreads() after its wait, so the other threads read the gathered buffer before the pushes have arrived. FIX: __syncthreads() right after thread 0's wait.
#include <cuda_runtime.h>
#include <stdint.h>

constexpr int kBlock = 256;
constexpr int kGrid = 16;

__device__ __forceinline__ uint32_t ld_acquire_sys(const uint32_t* p) {
  uint32_t v;
  asm volatile("ld.acquire.sys.global.u32 %0, [%1];" : "=r"(v) : "l"(p) : "memory");
  return v;
}

// Push all-gather: rank r writes its m floats to gather[p] + r*m on every rank
// and adds 1 to counter[block] of every rank; barrier instance k is complete
// when the counter reaches W * k. Call c uses instances 2c - 1 and 2c.
__global__ void allgather_push(float** gather, uint32_t** pads, const float* in, float* out,
                               int rank, int world_size, int64_t m, uint32_t call) {
  const int64_t tid = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
  const int64_t stride = (int64_t)gridDim.x * blockDim.x;
  const uint32_t* my_counter = pads[rank] + blockIdx.x;
  for (int p = 0; p < world_size; ++p)
    for (int64_t j = tid; j < m; j += stride) gather[p][rank * m + j] = in[j];
  __syncthreads();
  if (threadIdx.x < world_size)
    asm volatile("red.release.sys.global.add.u32 [%0], %1;" ::"l"(pads[threadIdx.x] + blockIdx.x), "r"(1u) : "memory");
  if (threadIdx.x == 0) {
    while (ld_acquire_sys(my_counter) < (uint32_t)world_size * (2 * call - 1)) {  // expect: BAR-003
    }
  }
  for (int q = 0; q < world_size; ++q)
    for (int64_t j = tid; j < m; j += stride) out[q * m + j] = gather[rank][q * m + j];
  __syncthreads();
  if (threadIdx.x < world_size)
    asm volatile("red.release.sys.global.add.u32 [%0], %1;" ::"l"(pads[threadIdx.x] + blockIdx.x), "r"(1u) : "memory");
  if (threadIdx.x == 0) {
    while (ld_acquire_sys(my_counter) < (uint32_t)world_size * (2 * call)) {
    }
  }
}

void launch_allgather(float** gather, uint32_t** pads, const float* in, float* out, int rank,
                      int world_size, int64_t m, cudaStream_t stream) {
  static uint32_t call = 0;
  ++call;
  allgather_push<<<kGrid, kBlock, 0, stream>>>(gather, pads, in, out, rank, world_size, m, call);
}
