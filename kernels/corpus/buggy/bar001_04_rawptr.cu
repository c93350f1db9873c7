// bar001_04_rawptr.cu: BUG(BAR-001) the early return before the first barrier is fine (exited threads do not hold up __syncthreads(), PTX ISA `exit`), but the second barrier sits under `if (threadIdx.x < 32)`: threads 32.. of a block stay alive, skip it and go on to the final __syncthreads(), so the block's barriers pair up wrongly (CUDA Guide, "Synchronization Functions": conditional __syncthreads() needs a block-uniform condition). FIX: move the second __syncthreads() out of the branch.
#include <cuda_runtime.h>
#include <stdint.h>

constexpr int kBlock = 256;
constexpr int kGrid = 64;

__global__ void allreduce_warp0_tap(float* const* bufs, float* out, int world_size, int n) {
  __shared__ float tile[kBlock];
  __shared__ float head[32];
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  float acc = 0.f;
  for (int p = 0; p < world_size; ++p) acc += bufs[p][i];
  tile[threadIdx.x] = acc;
  __syncthreads();
  if (threadIdx.x < 32) {
    head[threadIdx.x] = tile[threadIdx.x];
    __syncthreads();  // expect: BAR-001
  }
  __syncthreads();
  out[i] = 0.5f * (acc + head[threadIdx.x % 32]);
}

void launch_allreduce_warp0_tap(float* const* bufs, float* out, int world_size, int n,
                                cudaStream_t stream) {
  allreduce_warp0_tap<<<kGrid, kBlock, 0, stream>>>(bufs, out, world_size, n);
}
