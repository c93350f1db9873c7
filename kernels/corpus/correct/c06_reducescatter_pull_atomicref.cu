// c06_reducescatter_pull_atomicref.cu: CORRECT pull reduce-scatter with cuda::atomic_ref<uint32_t, thread_scope_system> flags (store release / load acquire), chunk-relative staging for any n (last chunk shorter or empty), exit barrier.
#include <cuda/atomic>
#include <cuda_runtime.h>
#include <stdint.h>

constexpr int kBlock = 256;
constexpr int kGrid = 16;
constexpr int kMaxRanks = 8;

using sys_ref = cuda::atomic_ref<uint32_t, cuda::thread_scope_system>;

__device__ __forceinline__ void block_barrier(uint32_t** pads, int rank, int world_size,
                                              uint32_t value) {
  __syncthreads();
  if (threadIdx.x < world_size) {
    const int peer = threadIdx.x;
    sys_ref(pads[peer][blockIdx.x * kMaxRanks + rank]).store(value, cuda::std::memory_order_release);
    sys_ref flag(pads[rank][blockIdx.x * kMaxRanks + peer]);
    while (flag.load(cuda::std::memory_order_acquire) < value) {
    }
  }
  __syncthreads();
}

// Rank r returns chunk r = [r*C, min(n, (r+1)*C)), C = ceil(n / W), summed over
// all ranks' inputs staged in stage[p] (n floats each).
__global__ void reduce_scatter_pull(float** stage, uint32_t** pads, const float* in, float* out,
                                    int rank, int world_size, int64_t n, uint32_t epoch) {
  const int64_t tid = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
  const int64_t stride = (int64_t)gridDim.x * blockDim.x;
  const int64_t C = (n + world_size - 1) / world_size;
  float* mine = stage[rank];
  for (int c = 0; c < world_size; ++c) {
    const int64_t len = max((int64_t)0, min(C, n - c * C));
    for (int64_t j = tid; j < len; j += stride) mine[c * C + j] = in[c * C + j];
  }
  block_barrier(pads, rank, world_size, 2 * epoch);
  const int64_t my_len = max((int64_t)0, min(C, n - rank * C));
  for (int64_t j = tid; j < my_len; j += stride) {
    float acc = 0.f;
    for (int p = 0; p < world_size; ++p) acc += stage[p][rank * C + j];
    out[j] = acc;
  }
  block_barrier(pads, rank, world_size, 2 * epoch + 1);
}

void launch_reduce_scatter(float** stage, uint32_t** pads, const float* in, float* out, int rank,
                           int world_size, int64_t n, cudaStream_t stream) {
  static uint32_t epoch = 0;
  ++epoch;
  reduce_scatter_pull<<<kGrid, kBlock, 0, stream>>>(stage, pads, in, out, rank, world_size, n,
                                                    epoch);
}
