// c33_allreduce_early_exit_rawptr.cu: CORRECT one-shot all-reduce with a block-local smoothing tap (pattern of TensorRT-LLM mnnvlTwoShotAllreduceKernels: `if (elt >= token_dim) return;` before a __syncthreads()): threads past the end return before the barrier. An exited thread does not hold up an all-thread CTA barrier (PTX ISA `exit`: barriers waiting on all threads are released when the exiting threads are the only ones missing), so the barrier is not divergent; every thread that stays alive reaches it.
#include <cuda_runtime.h>
#include <stdint.h>

constexpr int kBlock = 256;
constexpr int kGrid = 64;

// Peers' buffers are staged and fenced by a barrier kernel before this
// launch and not written again before the next call's exit barrier.
__global__ void allreduce_tap(float* const* bufs, float* out, int world_size, int n) {
  __shared__ float tile[kBlock];
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  float acc = 0.f;
  for (int p = 0; p < world_size; ++p) acc += bufs[p][i];
  tile[threadIdx.x] = acc;
  __syncthreads();
  const int j = threadIdx.x + 1 < blockDim.x && i + 1 < n ? threadIdx.x + 1 : threadIdx.x;
  out[i] = 0.5f * (acc + tile[j]);
}

void launch_allreduce_tap(float* const* bufs, float* out, int world_size, int n,
                          cudaStream_t stream) {
  allreduce_tap<<<kGrid, kBlock, 0, stream>>>(bufs, out, world_size, n);
}
