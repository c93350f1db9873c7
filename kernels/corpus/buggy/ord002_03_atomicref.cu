// ord002_03_atomicref.cu: BUG(ORD-002) the arrival flags are polled with memory_order_relaxed, so the received blocks are read without a system-scope acquire. FIX: load with memory_order_acquire.
#include <cuda/atomic>
#include <cuda_runtime.h>
#include <stdint.h>

constexpr int kBlock = 256;
constexpr int kGrid = 16;
constexpr int kMaxRanks = 8;

using sys_ref = cuda::atomic_ref<uint32_t, cuda::thread_scope_system>;

// All-to-all (push). in holds world_size blocks of `count` floats; block p goes
// to rank p, landing at recv[p] + rank * count. out[q*count + j] = block from q.
// Slot block * 8 + sender on each pad; call e uses 2e (sent) and 2e + 1 (read).
__global__ void alltoall_push(float** recv, uint32_t** pads, const float* in, float* out,
                              int rank, int world_size, int64_t count, uint32_t epoch) {
  const int64_t tid = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
  const int64_t stride = (int64_t)gridDim.x * blockDim.x;
  for (int p = 0; p < world_size; ++p) {
    float* dst = recv[p] + rank * count;
    for (int64_t j = tid; j < count; j += stride) dst[j] = in[p * count + j];
  }
  __syncthreads();
  if (threadIdx.x < world_size) {
    const int peer = threadIdx.x;
    sys_ref(pads[peer][blockIdx.x * kMaxRanks + rank]).store(2 * epoch, cuda::std::memory_order_release);
    sys_ref flag(pads[rank][blockIdx.x * kMaxRanks + peer]);
    while (flag.load(cuda::std::memory_order_relaxed) < 2 * epoch) {
    }
  }
  __syncthreads();
  const float* mine = recv[rank];
  for (int q = 0; q < world_size; ++q)
    for (int64_t j = tid; j < count; j += stride)
      out[q * count + j] = mine[q * count + j];  // expect: ORD-002
  __syncthreads();
  if (threadIdx.x < world_size) {
    const int peer = threadIdx.x;
    sys_ref(pads[peer][blockIdx.x * kMaxRanks + rank]).store(2 * epoch + 1, cuda::std::memory_order_release);
    sys_ref flag(pads[rank][blockIdx.x * kMaxRanks + peer]);
    while (flag.load(cuda::std::memory_order_acquire) < 2 * epoch + 1) {
    }
  }
}

void launch_alltoall(float** recv, uint32_t** pads, const float* in, float* out, int rank,
                     int world_size, int64_t count, cudaStream_t stream) {
  static uint32_t epoch = 0;
  ++epoch;
  alltoall_push<<<kGrid, kBlock, 0, stream>>>(recv, pads, in, out, rank, world_size, count, epoch);
}
