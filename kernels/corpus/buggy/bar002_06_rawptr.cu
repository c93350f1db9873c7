// bar002_06_rawptr.cu: BUG(BAR-002) pull broadcast with rank-conditional launches whose peers never report back (the `peer_done` kernel of correct/c35 is missing): root_publish, launched only on the root, waits for pads[0][kDone + p], which no kernel of the host sequence writes, so the root hangs. Another kernel excuses a wait only when a launch of it in the same host function writes the polled memory (docs/checkers.md, BAR-002). FIX: after pull, each peer stores the epoch into pads[0][kDone + rank] (a `peer_done` kernel).
#include <cuda_runtime.h>
#include <stdint.h>

constexpr int kRoot = 0;
constexpr int kMaxRanks = 8;
constexpr uint32_t kReady = 0, kDone = 8;

__device__ __forceinline__ void st_release_sys(uint32_t* p, uint32_t v) {
  asm volatile("st.release.sys.global.u32 [%0], %1;" ::"l"(p), "r"(v) : "memory");
}
__device__ __forceinline__ uint32_t ld_acquire_sys(const uint32_t* p) {
  uint32_t v;
  asm volatile("ld.acquire.sys.global.u32 %0, [%1];" : "=r"(v) : "l"(p) : "memory");
  return v;
}

__global__ void root_publish(uint32_t* const* pads, int world_size, uint32_t epoch) {
  const int p = threadIdx.x;
  if (p >= world_size || p == kRoot) return;
  __threadfence_system();
  st_release_sys(pads[p] + kReady, epoch);
  while (ld_acquire_sys(pads[kRoot] + kDone + p) < epoch) {  // expect: BAR-002
  }
}

__global__ void peer_wait(uint32_t* const* pads, int rank, uint32_t epoch) {
  if (threadIdx.x == 0)
    while (ld_acquire_sys(pads[rank] + kReady) < epoch) {
    }
}

__global__ void pull(float* const* bufs, float* out, int n) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
    out[i] = bufs[kRoot][i];
}

// The root has staged its data in bufs[kRoot] (stream-ordered before this
// call); its next call's staging runs after root_publish saw every
// peer_done. epoch grows by one per call.
void broadcast(float* const* bufs, uint32_t* const* pads, float* out, int rank, int world_size,
               int n, uint32_t epoch, cudaStream_t stream) {
  if (rank == kRoot) {
    root_publish<<<1, kMaxRanks, 0, stream>>>(pads, world_size, epoch);
  } else {
    peer_wait<<<1, 32, 0, stream>>>(pads, rank, epoch);
    pull<<<16, 256, 0, stream>>>(bufs, out, n);
  }
}
