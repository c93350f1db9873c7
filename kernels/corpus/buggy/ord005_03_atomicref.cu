// ord005_03_atomicref.cu: BUG(ORD-005) the dispatch flag is published with a 64-bit atomic_ref store but polled with a 32-bit atomic_ref load of its low half; the two accesses overlap only partially, so they are not morally strong and do not synchronize. FIX: use uint32_t on both sides (or uint64_t on both sides).
#include <cuda/atomic>
#include <cuda_runtime.h>
#include <stdint.h>

constexpr int kBlock = 256;
constexpr int kMaxRanks = 8;
constexpr int kReadySlot = 0;   // words [0, 16): 64-bit ready flag per sender (2 words each)
constexpr int kDoneSlot = 16;   // words [16, 24): 32-bit done flag per sender

// MoE dispatch (single block per rank). Token t (hidden floats) goes to rank
// dest[t]; sender s writes it to row s*cap + pos of the receiver's symmetric
// recv buffer, and the row count to counts_ptrs[p][s]. Rows past cap are dropped.
__global__ void moe_dispatch(float** recv, int** counts_ptrs, uint32_t** pads, const float* x,
                             const int* dest, int* pos, float* out, int* out_counts, int rank,
                             int world_size, int tokens, int hidden, int cap, uint32_t epoch) {
  __shared__ int sent[kMaxRanks];
  if (threadIdx.x == 0) {
    for (int p = 0; p < kMaxRanks; ++p) sent[p] = 0;
    for (int t = 0; t < tokens; ++t) {
      const int d = dest[t];
      pos[t] = (d >= 0 && d < world_size) ? sent[d]++ : -1;
    }
  }
  __syncthreads();
  for (int64_t e = threadIdx.x; e < (int64_t)tokens * hidden; e += blockDim.x) {
    const int t = (int)(e / hidden), h = (int)(e % hidden);
    const int d = dest[t];
    if (d >= 0 && d < world_size && pos[t] < cap) recv[d][((int64_t)rank * cap + pos[t]) * hidden + h] = x[e];
  }
  if (threadIdx.x < world_size) counts_ptrs[threadIdx.x][rank] = min(sent[threadIdx.x], cap);
  __syncthreads();
  if (threadIdx.x < world_size) {
    const int peer = threadIdx.x;
    unsigned long long* ready = reinterpret_cast<unsigned long long*>(pads[peer] + kReadySlot + 2 * rank);
    cuda::atomic_ref<unsigned long long, cuda::thread_scope_system>(*ready).store(epoch, cuda::std::memory_order_release);
    cuda::atomic_ref<uint32_t, cuda::thread_scope_system> flag(pads[rank][kReadySlot + 2 * peer]);
    while (flag.load(cuda::std::memory_order_acquire) < epoch) {  // expect: ORD-005
    }
  }
  __syncthreads();
  const int* my_counts = counts_ptrs[rank];
  for (int s = 0; s < world_size; ++s) {
    const int64_t len = (int64_t)my_counts[s] * hidden;
    for (int64_t e = threadIdx.x; e < len; e += blockDim.x)
      out[(int64_t)s * cap * hidden + e] = recv[rank][(int64_t)s * cap * hidden + e];
    if (threadIdx.x == 0) out_counts[s] = my_counts[s];
  }
  __syncthreads();
  if (threadIdx.x < world_size) {
    const int peer = threadIdx.x;
    cuda::atomic_ref<uint32_t, cuda::thread_scope_system>(pads[peer][kDoneSlot + rank]).store(epoch, cuda::std::memory_order_release);
    cuda::atomic_ref<uint32_t, cuda::thread_scope_system> done(pads[rank][kDoneSlot + peer]);
    while (done.load(cuda::std::memory_order_acquire) < epoch) {
    }
  }
}

void launch_moe_dispatch(float** recv, int** counts_ptrs, uint32_t** pads, const float* x,
                         const int* dest, int* pos, float* out, int* out_counts, int rank,
                         int world_size, int tokens, int hidden, int cap, cudaStream_t stream) {
  static uint32_t epoch = 0;
  ++epoch;
  moe_dispatch<<<1, kBlock, 0, stream>>>(recv, counts_ptrs, pads, x, dest, pos, out, out_counts,
                                         rank, world_size, tokens, hidden, cap, epoch);
}
