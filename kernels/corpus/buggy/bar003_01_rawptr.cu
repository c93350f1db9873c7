// bar003_01_rawptr.cu: BUG(BAR-003) threads 0..W-1 raise the "sent" flags right after their own pushes, without a __syncthreads(), so the release does not cover the pushes of the other threads of the block. FIX: __syncthreads() before the signalling branch.
#include <cuda_runtime.h>
#include <stdint.h>

constexpr int kBlock = 256;
constexpr int kGrid = 16;
constexpr int kMaxRanks = 8;

// All-to-all (push). Block p of `in` (count floats) lands at recv[p] + rank*count.
// pads[p][block*8 + s] is written only by s; call e uses 2e and 2e + 1.
__global__ void alltoall_push(float** recv, uint32_t** pads, const float* in, float* out,
                              int rank, int world_size, int64_t count, uint32_t epoch) {
  const int64_t tid = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
  const int64_t stride = (int64_t)gridDim.x * blockDim.x;
  for (int p = 0; p < world_size; ++p)
    for (int64_t j = tid; j < count; j += stride) recv[p][rank * count + j] = in[p * count + j];
  if (threadIdx.x < world_size) {
    const int peer = threadIdx.x;
    __threadfence_system();
    *(volatile uint32_t*)(pads[peer] + blockIdx.x * kMaxRanks + rank) = 2 * epoch;  // expect: BAR-003
    volatile uint32_t* flag = pads[rank] + blockIdx.x * kMaxRanks + peer;
    while (*flag < 2 * epoch) {
    }
    __threadfence_system();
  }
  __syncthreads();
  for (int q = 0; q < world_size; ++q)
    for (int64_t j = tid; j < count; j += stride) out[q * count + j] = recv[rank][q * count + j];
  __syncthreads();
  if (threadIdx.x < world_size) {
    const int peer = threadIdx.x;
    __threadfence_system();
    *(volatile uint32_t*)(pads[peer] + blockIdx.x * kMaxRanks + rank) = 2 * epoch + 1;
    volatile uint32_t* flag = pads[rank] + blockIdx.x * kMaxRanks + peer;
    while (*flag < 2 * epoch + 1) {
    }
    __threadfence_system();
  }
}

void launch_alltoall(float** recv, uint32_t** pads, const float* in, float* out, int rank,
                     int world_size, int64_t count, cudaStream_t stream) {
  static uint32_t epoch = 0;
  ++epoch;
  alltoall_push<<<kGrid, kBlock, 0, stream>>>(recv, pads, in, out, rank, world_size, count, epoch);
}
