// c26_butterfly_step_atomicref.cu: CORRECT pairwise exchange-and-add (one butterfly step) for any W: partner = rank ^ 1, the unpaired last rank of an odd W neither signals nor waits and outputs its own input; push, atomic_ref release store, acquire load, add, "consumed" flag back to the partner.
#include <cuda/atomic>
#include <cuda_runtime.h>
#include <stdint.h>

constexpr int kBlock = 256;
constexpr int kGrid = 16;
constexpr int kMaxRanks = 8;

using sys_ref = cuda::atomic_ref<uint32_t, cuda::thread_scope_system>;

// recv[p]: rank p's symmetric receive buffer (n floats). pads[p][block*8 + s]
// is written only by rank s: 2e = pushed, 2e + 1 = consumed (call e).
__global__ void butterfly_step(float** recv, uint32_t** pads, const float* in, float* out,
                               int rank, int world_size, int64_t n, uint32_t epoch) {
  const int64_t tid = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
  const int64_t stride = (int64_t)gridDim.x * blockDim.x;
  const int partner = rank ^ 1;
  if (partner >= world_size) {  // rank-uniform: only the last rank of an odd W
    for (int64_t i = tid; i < n; i += stride) out[i] = in[i];
    return;
  }
  for (int64_t i = tid; i < n; i += stride) recv[partner][i] = in[i];
  __syncthreads();
  if (threadIdx.x == 0) {
    sys_ref(pads[partner][blockIdx.x * kMaxRanks + rank]).store(2 * epoch, cuda::std::memory_order_release);
    sys_ref flag(pads[rank][blockIdx.x * kMaxRanks + partner]);
    while (flag.load(cuda::std::memory_order_acquire) < 2 * epoch) {
    }
  }
  __syncthreads();
  const float* got = recv[rank];
  for (int64_t i = tid; i < n; i += stride) out[i] = in[i] + got[i];
  __syncthreads();
  if (threadIdx.x == 0) {
    sys_ref(pads[partner][blockIdx.x * kMaxRanks + rank]).store(2 * epoch + 1, cuda::std::memory_order_release);
    sys_ref flag(pads[rank][blockIdx.x * kMaxRanks + partner]);
    while (flag.load(cuda::std::memory_order_acquire) < 2 * epoch + 1) {
    }
  }
}

void launch_butterfly(float** recv, uint32_t** pads, const float* in, float* out, int rank,
                      int world_size, int64_t n, cudaStream_t stream) {
  static uint32_t epoch = 0;
  ++epoch;
  butterfly_step<<<kGrid, kBlock, 0, stream>>>(recv, pads, in, out, rank, world_size, n, epoch);
}
