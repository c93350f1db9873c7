// ord005_01_rawptr.cu: BUG(ORD-005) peers write 32-bit flags but the waiter polls two adjacent flags with one 64-bit load; the accesses only partially overlap, so they are not morally strong and the acquire pattern is void. FIX: poll each 32-bit flag with its own 32-bit load.
#include <cuda_runtime.h>
#include <stdint.h>

constexpr int kBlock = 256;
constexpr int kGrid = 16;
constexpr int kMaxRanks = 8;

// Block-matched barrier over all ranks. Sender s raises pads[p][block*8 + s];
// thread k of the waiter checks the flags of senders 2k and 2k + 1.
__device__ __forceinline__ void block_barrier(uint32_t** pads, int rank, int world_size,
                                              uint32_t target) {
  __syncthreads();
  if (threadIdx.x < world_size) {
    const int peer = threadIdx.x;
    __threadfence_system();
    *(volatile uint32_t*)(pads[peer] + blockIdx.x * kMaxRanks + rank) = target;
  }
  if (threadIdx.x < (world_size + 1) / 2) {
    const int k = threadIdx.x;
    volatile unsigned long long* pair =
        reinterpret_cast<volatile unsigned long long*>(pads[rank] + blockIdx.x * kMaxRanks + 2 * k);
    const bool has_hi = 2 * k + 1 < world_size;
    unsigned long long v;
    do { v = *pair; } while ((uint32_t)v < target || (has_hi && (uint32_t)(v >> 32) < target));  // expect: ORD-005
    __threadfence_system();
  }
  __syncthreads();
}

// Pull all-gather of `chunk` floats per rank through symmetric staging buffers.
__global__ void allgather_pull(float** stage, uint32_t** pads, const float* in, float* out,
                               int rank, int world_size, int64_t chunk, uint32_t epoch) {
  const int64_t tid = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
  const int64_t stride = (int64_t)gridDim.x * blockDim.x;
  for (int64_t i = tid; i < chunk; i += stride) stage[rank][i] = in[i];
  block_barrier(pads, rank, world_size, 2 * epoch);
  for (int q = 0; q < world_size; ++q)
    for (int64_t i = tid; i < chunk; i += stride) out[q * chunk + i] = stage[q][i];
  block_barrier(pads, rank, world_size, 2 * epoch + 1);
}

void launch_allgather(float** stage, uint32_t** pads, const float* in, float* out, int rank,
                      int world_size, int64_t chunk, cudaStream_t stream) {
  static uint32_t epoch = 0;
  ++epoch;
  allgather_pull<<<kGrid, kBlock, 0, stream>>>(stage, pads, in, out, rank, world_size, chunk, epoch);
}
