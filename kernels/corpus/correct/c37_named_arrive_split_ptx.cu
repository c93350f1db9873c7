// c37_named_arrive_split_ptx.cu: CORRECT producer/consumer split on a named barrier (pattern of vLLM lamport_cta_arrive): warp 0 waits with `barrier.cta.sync 1, blockDim.x`, every other thread counts itself in with `barrier.cta.arrive 1, blockDim.x` and goes on (PTX ISA "bar, barrier"). All blockDim.x threads take part in barrier 1, so it is not divergent.
#include <cuda_runtime.h>
#include <stdint.h>

constexpr int kBlock = 256;
constexpr int kGrid = 16;

__global__ void named_split(const float* in, float* out, uint32_t* done) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  out[i] = 2.f * in[i];
  if (threadIdx.x < 32) {
    asm volatile("barrier.cta.sync 1, %0;" : : "r"(blockDim.x) : "memory");
    if (threadIdx.x == 0)
      atomicAdd(&done[blockIdx.x], 1u);
  } else {
    asm volatile("barrier.cta.arrive 1, %0;" : : "r"(blockDim.x) : "memory");
  }
}

void launch_named_split(const float* in, float* out, uint32_t* done, cudaStream_t stream) {
  named_split<<<kGrid, kBlock, 0, stream>>>(in, out, done);
}
