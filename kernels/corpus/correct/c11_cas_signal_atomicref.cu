// c11_cas_signal_atomicref.cu: CORRECT one-shot all-reduce with torch-style CAS signal pads (put_signal: CAS 0->1 release; wait_signal: CAS 1->0 acquire), as in PyTorch's CUDASymmetricMemory sync_remote_blocks; self-resetting, so no epoch is needed and back-to-back calls are safe.
#include <cuda/atomic>
#include <cuda_runtime.h>
#include <stdint.h>

constexpr int kBlock = 512;
constexpr int kGrid = 16;

using sys_ref = cuda::atomic_ref<uint32_t, cuda::thread_scope_system>;

// Spins until the slot is free (0), then sets it: a sender never has two
// signals pending in one slot, so no signal can be lost or merged.
__device__ __forceinline__ void put_signal(uint32_t* addr) {
  sys_ref ref(*addr);
  uint32_t expected = 0;
  while (!ref.compare_exchange_strong(expected, 1u, cuda::std::memory_order_release,
                                      cuda::std::memory_order_relaxed)) {
    expected = 0;
  }
}

// Spins until the slot is set, then consumes it (back to 0).
__device__ __forceinline__ void wait_signal(uint32_t* addr) {
  sys_ref ref(*addr);
  uint32_t expected = 1;
  while (!ref.compare_exchange_strong(expected, 0u, cuda::std::memory_order_acquire,
                                      cuda::std::memory_order_relaxed)) {
    expected = 1;
  }
}

// Slot of (block, sender) on every pad: block * W + sender.
__device__ __forceinline__ void sync_remote_blocks(uint32_t** pads, int rank, int world_size) {
  __syncthreads();
  if (threadIdx.x < world_size) {
    const int peer = threadIdx.x;
    put_signal(pads[peer] + blockIdx.x * world_size + rank);
    wait_signal(pads[rank] + blockIdx.x * world_size + peer);
  }
  __syncthreads();
}

__global__ void allreduce_oneshot(float** bufs, uint32_t** pads, const float* in, float* out,
                                  int rank, int world_size, int64_t n) {
  const int64_t tid = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
  const int64_t stride = (int64_t)gridDim.x * blockDim.x;
  for (int64_t i = tid; i < n; i += stride) bufs[rank][i] = in[i];
  sync_remote_blocks(pads, rank, world_size);
  for (int64_t i = tid; i < n; i += stride) {
    float acc = 0.f;
    for (int p = 0; p < world_size; ++p) acc += bufs[p][i];
    out[i] = acc;
  }
  sync_remote_blocks(pads, rank, world_size);
}

void launch_allreduce(float** bufs, uint32_t** pads, const float* in, float* out, int rank,
                      int world_size, int64_t n, cudaStream_t stream) {
  allreduce_oneshot<<<kGrid, kBlock, 0, stream>>>(bufs, pads, in, out, rank, world_size, n);
}
