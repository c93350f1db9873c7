// c34_ranks_dispatch_rawptr.cu: CORRECT per-block flag barrier instantiated per world size (pattern of TensorRT-LLM / SGLang trt_reduce_internal: a RANKS_PER_NODE template parameter, dispatched by `switch (ranks_per_node)`): thread t < RANKS signals peer t. The peer index is bounded by the template constant, not by W, but the instantiation for RANKS is launched only in `case RANKS:` of the switch on the world size, so t < W on every launch (docs/checkers.md, "Rank- and world-size-conditional launches").
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
    uint32_t* remote = pads[threadIdx.x] + slot + rank;
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
      launch_ranks<2>(bufs, pads, in, out, rank, world_size, n, epoch, stream);
      break;
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
