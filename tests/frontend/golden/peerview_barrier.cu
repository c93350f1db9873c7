// Barrier over the candidate ABI's pkb_peer_view with atomic_ref.
#include <cuda/atomic>
#include "pkb/pkb_abi.h"
__device__ void barrier(pkb_peer_view v, uint32_t epoch) {
  if (threadIdx.x >= v.world_size)
    return;
  cuda::atomic_ref<uint32_t, cuda::thread_scope_system> out(
      v.signal_pads[threadIdx.x][v.rank]);
  out.store(epoch, cuda::std::memory_order_release);
  cuda::atomic_ref<uint32_t, cuda::thread_scope_system> in(
      v.signal_pads[v.rank][threadIdx.x]);
  while (in.load(cuda::std::memory_order_acquire) != epoch) {
  }
}
__global__ void step(pkb_peer_view v, uint32_t epoch) {
  barrier(v, epoch);
  __syncthreads();
}
