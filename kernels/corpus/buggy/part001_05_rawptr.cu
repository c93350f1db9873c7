// part001_05_rawptr.cu: BUG(PART-001) per-world-size instantiations of a flag barrier dispatched by `switch (world_size)`, but `case 2:` falls through to the RANKS = 4 instantiation (a missing `break`-and-launch for 2 ranks): at W = 2, threads 2 and 3 look up pads[2] and pads[3], past the W-entry pad table. FIX: give `case 2:` its own `launch_ranks<2>` and `break`.
#include <cuda_runtime.h>
#include <stdint.h>

constexpr int kBlock = 256;
constexpr int kGrid = 16;
constexpr int kMaxRanks = 8;

__device__ __forceinline__ void st_release_sys(uint32_t* p, uint32_t v) {
  asm volatile("st.release.sys.global.u32 [%0], %1;" ::"l"(p), "r"(v) : "memory");
}
__device__ __forceinline__ uint32_t ld_acquire_sys(const uint32_t* p) {
  uint32_t v;
  asm volatile("ld.acquire.sys.global.u32 %0, [%1];" : "=r"(v) : "l"(p) : "memory");
  return v;
}

// Thread t < RANKS signals peer t at slot (blockIdx.x, rank) of round
// `round` and waits for peer t's signal (per-block barrier, epochs grow).
template <int RANKS>
__device__ __forceinline__ void block_barrier(uint32_t* const* pads, int rank, int round,
                                              uint32_t epoch) {
  __syncthreads();
  if (threadIdx.x < RANKS) {
    __threadfence_system();
    const int slot = (round * kGrid + blockIdx.x) * kMaxRanks;
    uint32_t* remote = pads[threadIdx.x] + slot + rank;  // expect: PART-001
    st_release_sys(remote, epoch);
    while (ld_acquire_sys(pads[rank] + slot + threadIdx.x) < epoch) {
    }
  }
  __syncthreads();
}

template <int RANKS>
__global__ void allreduce_ranks(float* const* bufs, uint32_t* const* pads, const float* in,
                                float* out, int rank, int world_size, int n, uint32_t epoch) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) bufs[rank][i] = in[i];
  block_barrier<RANKS>(pads, rank, 0, epoch);
  if (i < n) {
    float acc = 0.f;
    for (int p = 0; p < world_size; ++p) acc += bufs[p][i];
    out[i] = acc;
  }
  block_barrier<RANKS>(pads, rank, 1, epoch);
}

template <int RANKS>
static void launch_ranks(float* const* bufs, uint32_t* const* pads, const float* in, float* out,
                         int rank, int world_size, int n, uint32_t epoch, cudaStream_t stream) {
  allreduce_ranks<RANKS><<<kGrid, kBlock, 0, stream>>>(bufs, pads, in, out, rank, world_size, n, epoch);
}

// One call per epoch (epochs grow, the pads are never reset);
// n <= kGrid * kBlock.
void launch_allreduce(float* const* bufs, uint32_t* const* pads, const float* in, float* out,
                      int rank, int world_size, int n, uint32_t epoch, cudaStream_t stream) {
  switch (world_size) {
    case 2:
    case 4:
      launch_ranks<4>(bufs, pads, in, out, rank, world_size, n, epoch, stream);
      break;
    case 8:
      launch_ranks<8>(bufs, pads, in, out, rank, world_size, n, epoch, stream);
      break;
    default:
      break;
  }
}
