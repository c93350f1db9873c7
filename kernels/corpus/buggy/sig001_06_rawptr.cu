// sig001_06_rawptr.cu: BUG(SIG-001) pull broadcast with rank-conditional launches: every non-root rank launches `peer_done`, which stores the epoch into the same slot pads[0][kDone] whatever its rank, and the root waits once on that slot: for W >= 3 the first peer to finish releases the root, which then restages its buffer while the other peers still pull it. The host guard `rank != kRoot` leaves ranks 1..W-1 as senders, so the collision stays. FIX: give each sender its own slot, pads[0][kDone + rank], and wait for each of them.
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
  if (p == 1)
    while (ld_acquire_sys(pads[kRoot] + kDone) < epoch) {
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
    st_release_sys(pads[kRoot] + kDone, epoch);  // expect: SIG-001
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
