// ord002_01_rawptr.cu: BUG(ORD-002) after spinning on the volatile halo flags there is no system-scope acquire, so the halo cells may be read stale. FIX: __threadfence_system() after the spin loop (or ld.acquire.sys polling).
#include <cuda_runtime.h>
#include <stdint.h>

constexpr int kBlock = 256;
constexpr int kRadius = 2;

// Periodic 1-D stencil over a ring of ranks (single block per rank).
// halo[p]: rank p's symmetric halo, 2 * kRadius floats: [0, R) = the left
// neighbour's last R cells, [R, 2R) = the right neighbour's first R cells.
// pads[p][0] is written only by p's left neighbour, pads[p][1] only by its
// right neighbour; call e uses 2e (halo ready) and 2e + 1 (halo consumed).
__global__ void halo_stencil(float** halo, uint32_t** pads, const float* x, float* y,
                             int rank, int world_size, int64_t n, uint32_t epoch) {
  if (n < kRadius) return;  // uniform on every thread and rank
  const int left = (rank + world_size - 1) % world_size;
  const int right = (rank + 1) % world_size;
  if (threadIdx.x < kRadius) {
    halo[left][kRadius + threadIdx.x] = x[threadIdx.x];
    halo[right][threadIdx.x] = x[n - kRadius + threadIdx.x];
  }
  __syncthreads();
  if (threadIdx.x == 0) {
    __threadfence_system();
    volatile uint32_t* to_left = pads[left] + 1;
    volatile uint32_t* to_right = pads[right] + 0;
    *to_left = 2 * epoch;
    *to_right = 2 * epoch;
    volatile uint32_t* mine = pads[rank];
    while (mine[0] < 2 * epoch || mine[1] < 2 * epoch) {
    }
  }
  __syncthreads();
  const float* h = halo[rank];
  for (int64_t i = threadIdx.x; i < n; i += blockDim.x) {
    float acc = 0.f;
    for (int d = -kRadius; d <= kRadius; ++d) {
      const int64_t j = i + d;
      acc += (j < 0) ? h[kRadius + j] : (j >= n ? h[kRadius + (j - n)] : x[j]);  // expect: ORD-002
    }
    y[i] = acc / (2 * kRadius + 1);
  }
  __syncthreads();
  if (threadIdx.x == 0) {
    __threadfence_system();
    volatile uint32_t* to_left = pads[left] + 1;
    volatile uint32_t* to_right = pads[right] + 0;
    *to_left = 2 * epoch + 1;
    *to_right = 2 * epoch + 1;
    volatile uint32_t* mine = pads[rank];
    while (mine[0] < 2 * epoch + 1 || mine[1] < 2 * epoch + 1) {
    }
    __threadfence_system();
  }
}

void launch_halo(float** halo, uint32_t** pads, const float* x, float* y, int rank,
                 int world_size, int64_t n, cudaStream_t stream) {
  static uint32_t epoch = 0;
  ++epoch;
  halo_stencil<<<1, kBlock, 0, stream>>>(halo, pads, x, y, rank, world_size, n, epoch);
}
