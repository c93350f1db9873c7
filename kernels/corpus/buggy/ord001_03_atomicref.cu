// ord001_03_atomicref.cu: BUG(ORD-001) the root publishes the broadcast with a memory_order_relaxed store, which does not order its remote data writes. FIX: store with memory_order_release.
#include <cuda/atomic>
#include <cuda_runtime.h>
#include <stdint.h>

constexpr int kBlock = 256;
constexpr int kGrid = 8;
constexpr int kMaxRanks = 8;
constexpr int kExitBase = kGrid * kMaxRanks;

using sys_ref = cuda::atomic_ref<uint32_t, cuda::thread_scope_system>;

// Broadcast from `root`. bufs[p]: rank p's symmetric receive buffer (n
// floats). Ready flags pads[p][block*8 + root] are written only by the root of
// the call; exit flags pads[p][kExitBase + block*8 + s] only by rank s. The
// all-rank exit barrier keeps the next call (any root) from overwriting early.
__global__ void broadcast_push(float** bufs, uint32_t** pads, const float* in, float* out,
                               int rank, int world_size, int root, int64_t n, uint32_t epoch) {
  const int64_t tid = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
  const int64_t stride = (int64_t)gridDim.x * blockDim.x;
  if (root < 0 || root >= world_size) return;  // uniform: same on every thread and rank
  if (rank == root) {
    for (int p = 0; p < world_size; ++p) {
      if (p == root) continue;
      for (int64_t i = tid; i < n; i += stride) bufs[p][i] = in[i];
    }
    for (int64_t i = tid; i < n; i += stride) out[i] = in[i];
    __syncthreads();
    if (threadIdx.x < world_size && threadIdx.x != root) {
      sys_ref ready(pads[threadIdx.x][blockIdx.x * kMaxRanks + root]);
      ready.store(epoch, cuda::std::memory_order_relaxed);  // expect: ORD-001
    }
  } else {
    if (threadIdx.x == 0) {
      sys_ref ready(pads[rank][blockIdx.x * kMaxRanks + root]);
      while (ready.load(cuda::std::memory_order_acquire) < epoch) {
      }
    }
    __syncthreads();
    const float* mine = bufs[rank];
    for (int64_t i = tid; i < n; i += stride) out[i] = mine[i];
  }
  __syncthreads();
  if (threadIdx.x < world_size) {
    const int peer = threadIdx.x;
    sys_ref(pads[peer][kExitBase + blockIdx.x * kMaxRanks + rank]).store(epoch, cuda::std::memory_order_release);
    sys_ref done(pads[rank][kExitBase + blockIdx.x * kMaxRanks + peer]);
    while (done.load(cuda::std::memory_order_acquire) < epoch) {
    }
  }
}

void launch_broadcast(float** bufs, uint32_t** pads, const float* in, float* out,
                      int rank, int world_size, int root, int64_t n,
                      cudaStream_t stream) {
  static uint32_t epoch = 0;
  ++epoch;
  broadcast_push<<<kGrid, kBlock, 0, stream>>>(bufs, pads, in, out, rank,
                                               world_size, root, n, epoch);
}
