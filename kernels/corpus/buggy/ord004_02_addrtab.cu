// ord004_02_addrtab.cu: BUG(ORD-004) the arrival flag is re-read through a plain const uint32_t* inside the spin loop, so the load may be hoisted and the loop never exits. FIX: read it through volatile or ld.acquire.sys in the loop.
#include <cuda_runtime.h>
#include <stdint.h>

constexpr int kBlock = 256;
constexpr int kGrid = 16;
constexpr int kMaxRanks = 8;

// Pull all-to-all. stage_ptrs[p] = address of rank p's symmetric staging
// buffer holding its W outgoing blocks of `count` floats; rank r reads block r
// of every peer. pad_ptrs[p] = address of rank p's signal pad.
__global__ void alltoall_pull(const int64_t* stage_ptrs, const int64_t* pad_ptrs, const float* in,
                              float* out, int rank, int world_size, int64_t count,
                              uint32_t epoch) {
  const int64_t tid = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
  const int64_t stride = (int64_t)gridDim.x * blockDim.x;
  float* mine = reinterpret_cast<float*>(stage_ptrs[rank]);
  const uint32_t* my_pad = reinterpret_cast<const uint32_t*>(pad_ptrs[rank]);
  for (int p = 0; p < world_size; ++p)
    for (int64_t j = tid; j < count; j += stride) mine[p * count + j] = in[p * count + j];
  __syncthreads();
  if (threadIdx.x < world_size) {
    const int peer = threadIdx.x;
    uint32_t* remote = reinterpret_cast<uint32_t*>(pad_ptrs[peer]) + blockIdx.x * kMaxRanks + rank;
    __threadfence_system();
    *(volatile uint32_t*)remote = 2 * epoch;
    const int slot = blockIdx.x * kMaxRanks + peer;
    uint32_t seen = my_pad[slot];
    while (seen < 2 * epoch) { seen = my_pad[slot]; }  // expect: ORD-004
    __threadfence_system();
  }
  __syncthreads();
  for (int q = 0; q < world_size; ++q) {
    const float* src = reinterpret_cast<const float*>(stage_ptrs[q]) + rank * count;
    for (int64_t j = tid; j < count; j += stride) out[q * count + j] = src[j];
  }
  __syncthreads();
  if (threadIdx.x < world_size) {
    const int peer = threadIdx.x;
    uint32_t* remote = reinterpret_cast<uint32_t*>(pad_ptrs[peer]) + blockIdx.x * kMaxRanks + rank;
    __threadfence_system();
    *(volatile uint32_t*)remote = 2 * epoch + 1;
    volatile const uint32_t* flag = my_pad + blockIdx.x * kMaxRanks + peer;
    while (*flag < 2 * epoch + 1) {
    }
    __threadfence_system();
  }
}

void launch_alltoall(const int64_t* stage_ptrs, const int64_t* pad_ptrs, const float* in,
                     float* out, int rank, int world_size, int64_t count, cudaStream_t stream) {
  static uint32_t epoch = 0;
  ++epoch;
  alltoall_pull<<<kGrid, kBlock, 0, stream>>>(stage_ptrs, pad_ptrs, in, out, rank, world_size,
                                              count, epoch);
}
