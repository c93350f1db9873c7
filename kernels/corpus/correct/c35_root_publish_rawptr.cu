// c35_root_publish_rawptr.cu: CORRECT pull broadcast from root 0 with rank-conditional launches (pattern of kernels/candidates/3_broadcast_pull_pads.cu): only the root launches `root_publish` (thread p stores the epoch into pads[p][kReady], then waits for pads[0][kDone + p]); the peers launch `peer_wait`, `pull` and `peer_done`, which stores into pads[0][kDone + rank]. The host guard `rank == kRoot` makes every sender of root_publish rank 0 (no slot is shared by two ranks), and its wait is ended by peer_done, another kernel of the same host sequence that writes the same pad table (docs/checkers.md, "Rank- and world-size-conditional launches"; BAR-002, "Waits signalled by another kernel").
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
  while (ld_acquire_sys(pads[kRoot] + kDone + p) < epoch) {
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

__global__ void peer_done(uint32_t* const* pads, int rank, uint32_t epoch) {
  if (threadIdx.x == 0) {
    __threadfence_system();
    st_release_sys(pads[kRoot] + kDone + rank, epoch);
  }
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
    peer_done<<<1, 32, 0, stream>>>(pads, rank, epoch);
  }
}
