// ord001_01_rawptr.cu: BUG(ORD-001) the ready flag is a bare volatile store after the remote pushes, with no system-scope release. FIX: __threadfence_system() right before the flag store (or st.release.sys).
#include <cuda_runtime.h>
#include <stdint.h>

constexpr int kBlock = 256;
constexpr int kGrid = 8;
constexpr int kMaxRanks = 8;

// Push all-gather. gather[p] is rank p's symmetric buffer of world_size *
// chunk floats; pads[p] is rank p's signal pad (slot = block * 8 + sender).
// Call e (e >= 1) uses flag values 2e (data ready) and 2e + 1 (done reading).
__global__ void allgather_push(float** gather, uint32_t** pads, const float* in,
                               float* out, int rank, int world_size,
                               int64_t chunk, uint32_t epoch) {
  const int64_t tid = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
  const int64_t stride = (int64_t)gridDim.x * blockDim.x;
  for (int p = 0; p < world_size; ++p) {
    float* dst = gather[p] + (int64_t)rank * chunk;
    for (int64_t i = tid; i < chunk; i += stride) dst[i] = in[i];
  }
  __syncthreads();
  if (threadIdx.x < world_size) {
    const int peer = threadIdx.x;
    volatile uint32_t* remote = pads[peer] + blockIdx.x * kMaxRanks + rank;
    *remote = 2 * epoch;  // expect: ORD-001
    volatile uint32_t* local = pads[rank] + blockIdx.x * kMaxRanks + peer;
    while (*local < 2 * epoch) {
    }
    __threadfence_system();
  }
  __syncthreads();
  const float* mine = gather[rank];
  for (int q = 0; q < world_size; ++q)
    for (int64_t i = tid; i < chunk; i += stride)
      out[q * chunk + i] = mine[q * chunk + i];
  // Exit barrier: peers may overwrite our gather buffer only after we read it.
  __syncthreads();
  if (threadIdx.x < world_size) {
    const int peer = threadIdx.x;
    __threadfence_system();
    volatile uint32_t* remote = pads[peer] + blockIdx.x * kMaxRanks + rank;
    *remote = 2 * epoch + 1;
    volatile uint32_t* local = pads[rank] + blockIdx.x * kMaxRanks + peer;
    while (*local < 2 * epoch + 1) {
    }
    __threadfence_system();
  }
}

void launch_allgather(float** gather, uint32_t** pads, const float* in,
                      float* out, int rank, int world_size, int64_t chunk,
                      cudaStream_t stream) {
  static uint32_t epoch = 0;
  ++epoch;
  allgather_push<<<kGrid, kBlock, 0, stream>>>(gather, pads, in, out, rank,
                                               world_size, chunk, epoch);
}
