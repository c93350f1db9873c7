// c02_allreduce_twoshot_ptx.cu: CORRECT two-shot all-reduce (reduce-scatter into our own chunk, then all-gather) with fence.acq_rel.sys + relaxed.sys flag release/acquire patterns, chunk-relative indexing, 3 monotonic barriers per call (the last one an exit barrier).
#include <cuda_runtime.h>
#include <stdint.h>

constexpr int kBlock = 256;
constexpr int kGrid = 16;
constexpr int kMaxRanks = 8;

// Release pattern (fence.acq_rel.sys; st.relaxed.sys) and acquire pattern
// (ld.relaxed.sys; fence.acq_rel.sys), PTX ISA "Memory Consistency Model".
__device__ __forceinline__ void block_barrier(uint32_t** pads, int rank, int world_size,
                                              uint32_t value) {
  __syncthreads();
  if (threadIdx.x < world_size) {
    const int peer = threadIdx.x;
    uint32_t* remote = pads[peer] + blockIdx.x * kMaxRanks + rank;
    const uint32_t* flag = pads[rank] + blockIdx.x * kMaxRanks + peer;
    asm volatile("fence.acq_rel.sys;" ::: "memory");
    asm volatile("st.relaxed.sys.global.u32 [%0], %1;" ::"l"(remote), "r"(value) : "memory");
    uint32_t seen;
    do {
      asm volatile("ld.relaxed.sys.global.u32 %0, [%1];" : "=r"(seen) : "l"(flag) : "memory");
    } while (seen < value);
    asm volatile("fence.acq_rel.sys;" ::: "memory");
  }
  __syncthreads();
}

// C = ceil(n / W); chunk c = [c*C, min(n, (c+1)*C)). Every phase walks chunk
// offsets j with the same thread mapping, so element c*C + j is always touched
// by global thread j mod stride and block-matched barriers suffice.
__global__ void allreduce_twoshot(float** bufs, uint32_t** pads, const float* in, float* out,
                                  int rank, int world_size, int64_t n, uint32_t epoch) {
  const int64_t tid = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
  const int64_t stride = (int64_t)gridDim.x * blockDim.x;
  const int64_t C = (n + world_size - 1) / world_size;
  float* mine = bufs[rank];
  for (int c = 0; c < world_size; ++c) {
    const int64_t len = max((int64_t)0, min(C, n - c * C));
    for (int64_t j = tid; j < len; j += stride) mine[c * C + j] = in[c * C + j];
  }
  block_barrier(pads, rank, world_size, 3 * epoch - 2);
  const int64_t my_len = max((int64_t)0, min(C, n - rank * C));
  for (int64_t j = tid; j < my_len; j += stride) {
    float acc = 0.f;
    for (int p = 0; p < world_size; ++p) acc += bufs[p][rank * C + j];
    mine[rank * C + j] = acc;  // only this rank reads chunk `rank` in this phase
  }
  block_barrier(pads, rank, world_size, 3 * epoch - 1);
  for (int c = 0; c < world_size; ++c) {
    const int64_t len = max((int64_t)0, min(C, n - c * C));
    for (int64_t j = tid; j < len; j += stride) out[c * C + j] = bufs[c][c * C + j];
  }
  block_barrier(pads, rank, world_size, 3 * epoch);
}

void launch_allreduce_twoshot(float** bufs, uint32_t** pads, const float* in, float* out, int rank,
                              int world_size, int64_t n, cudaStream_t stream) {
  static uint32_t epoch = 0;
  ++epoch;
  allreduce_twoshot<<<kGrid, kBlock, 0, stream>>>(bufs, pads, in, out, rank, world_size, n, epoch);
}
