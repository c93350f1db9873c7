// bar001_05_ptx.cu: BUG(BAR-001) warp 0 waits on named barrier 1 for blockDim.x threads, but the other warps neither sync nor arrive on barrier 1: the count is never reached and warp 0 hangs (PTX ISA "bar, barrier"). FIX: let the other threads execute `barrier.cta.arrive 1, blockDim.x` (see correct/c37_named_arrive_split_ptx.cu).
#include <cuda_runtime.h>
#include <stdint.h>

constexpr int kBlock = 256;
constexpr int kGrid = 16;

__global__ void named_missing_arrive(const float* in, float* out, uint32_t* done) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  out[i] = 2.f * in[i];
  if (threadIdx.x < 32) {
    asm volatile("barrier.cta.sync 1, %0;" : : "r"(blockDim.x) : "memory");  // expect: BAR-001
    if (threadIdx.x == 0)
      atomicAdd(&done[blockIdx.x], 1u);
  }
}

void launch_named_missing_arrive(const float* in, float* out, uint32_t* done,
                                 cudaStream_t stream) {
  named_missing_arrive<<<kGrid, kBlock, 0, stream>>>(in, out, done);
}
