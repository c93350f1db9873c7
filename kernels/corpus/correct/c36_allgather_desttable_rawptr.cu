// c36_allgather_desttable_rawptr.cu: CORRECT push all-gather whose destinations (own output slice, then every peer's gather slot) are collected in a local pointer array with a running count and written by a copy helper; bar.sync, then __threadfence_system() before each relaxed flag store, a fence after each wait, and an exit barrier before the next call's pushes.
#include <cuda_runtime.h>
#include <stdint.h>

constexpr int kBlock = 256;
constexpr int kGrid = 8;
constexpr int kMaxRanks = 8;
constexpr int kDoneBase = kGrid * kMaxRanks; // second pad region: "done reading"

// Grid-stride copy of src[0, n) into each of the count destinations.
__device__ void copy_to_all(float* const* dst, int count, const float* src,
                            int64_t n) {
  const int64_t first = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
  const int64_t stride = (int64_t)gridDim.x * blockDim.x;
  for (int d = 0; d < count; ++d)
    for (int64_t i = first; i < n; i += stride)
      dst[d][i] = src[i];
}

// Thread t < world_size, t != rank, tells rank t that this block reached
// `slot` and waits for rank t's matching flag; the block then continues.
__device__ void exchange_flags(uint32_t** pads, int rank, int world_size,
                               int slot, uint32_t epoch) {
  __syncthreads();
  const int peer = threadIdx.x;
  if (peer < world_size && peer != rank) {
    __threadfence_system();
    *reinterpret_cast<volatile uint32_t*>(pads[peer] + slot + rank) = epoch;
    volatile uint32_t* mine = pads[rank] + slot + peer;
    while (*mine < epoch) {
    }
    __threadfence_system();
  }
  __syncthreads();
}

// gather[p]: rank p's symmetric buffer of world_size * chunk floats (slot q
// holds rank q's shard); pads[p]: rank p's signal pad. epoch = call + 1.
__global__ void allgather_desttable(float** gather, uint32_t** pads,
                                    const float* in, float* out, int rank,
                                    int world_size, int64_t chunk,
                                    uint32_t epoch) {
  float* dst[kMaxRanks];
  int count = 0;
  dst[count++] = out + (int64_t)rank * chunk;
  for (int p = 0; p < world_size; ++p)
    if (p != rank)
      dst[count++] = gather[p] + (int64_t)rank * chunk;
  copy_to_all(dst, count, in, chunk);
  exchange_flags(pads, rank, world_size, blockIdx.x * kMaxRanks, epoch);
  const int64_t first = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
  const int64_t stride = (int64_t)gridDim.x * blockDim.x;
  const float* mine = gather[rank];
  for (int q = 0; q < world_size; ++q)
    if (q != rank)
      for (int64_t i = first; i < chunk; i += stride)
        out[q * chunk + i] = mine[q * chunk + i];
  exchange_flags(pads, rank, world_size, kDoneBase + blockIdx.x * kMaxRanks,
                 epoch);
}

// Host side: one launch per call; the epoch is kept here and only grows.
struct DestTableAllgather {
  uint32_t calls = 0;
  void operator()(float** gather, uint32_t** pads, const float* in,
                  float* out, int rank, int world_size, int64_t chunk,
                  cudaStream_t stream) {
    calls += 1;
    allgather_desttable<<<kGrid, kBlock, 0, stream>>>(
        gather, pads, in, out, rank, world_size, chunk, calls);
  }
};
