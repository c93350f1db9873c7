// ord001_05_rawptr.cu: BUG(ORD-001) the pushes go through a local table of destination pointers filled in a loop and drained by a helper; the ready flag after them is a relaxed volatile store through reinterpret_cast with no system-scope fence, so a peer can see the flag before the pushed data. FIX: __threadfence_system() right before the flag store (or st.release.sys).
#include <cuda_runtime.h>
#include <stdint.h>

constexpr int kBlock = 128;
constexpr int kGrid = 4;
constexpr int kMaxRanks = 8;

// Each destination in targets[0, n) receives src[0, len), grid-stride.
__device__ void scatter_copy(float* const* targets, int n, const float* src,
                             int64_t len) {
  for (int t = 0; t < n; ++t) {
    float* out = targets[t];
    for (int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; i < len;
         i += (int64_t)gridDim.x * blockDim.x)
      out[i] = src[i];
  }
}

// slots[p]: rank p's symmetric receive buffer, world_size slots of len
// floats; flags[p]: rank p's signal pad, block b's slot of sender s at
// b * 8 + s (ready) and kGrid * 8 + b * 8 + s (done). tick = call + 1.
__global__ void ring_gather(float** slots, unsigned** flags, const float* x,
                            float* y, int rank, int world_size, int64_t len,
                            unsigned tick) {
  float* targets[kMaxRanks];
  int n = 0;
  for (int k = 1; k < world_size; ++k)
    targets[n++] = slots[(rank + k) % world_size] + (int64_t)rank * len;
  scatter_copy(targets, n, x, len);
  for (int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; i < len;
       i += (int64_t)gridDim.x * blockDim.x)
    y[rank * len + i] = x[i];
  __syncthreads();
  const int t = threadIdx.x;
  if (t < world_size && t != rank) {
    *reinterpret_cast<volatile unsigned*>(flags[t] + blockIdx.x * kMaxRanks + rank) = tick;  // expect: ORD-001
    volatile unsigned* in = flags[rank] + blockIdx.x * kMaxRanks + t;
    while (*in < tick) {
    }
    __threadfence_system();
  }
  __syncthreads();
  const float* recv = slots[rank];
  for (int s = 0; s < world_size; ++s)
    if (s != rank)
      for (int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; i < len;
           i += (int64_t)gridDim.x * blockDim.x)
        y[s * len + i] = recv[s * len + i];
  __syncthreads();
  if (t < world_size && t != rank) {
    __threadfence_system();
    unsigned* done = flags[t] + kGrid * kMaxRanks + blockIdx.x * kMaxRanks + rank;
    *reinterpret_cast<volatile unsigned*>(done) = tick;
    volatile unsigned* in = flags[rank] + kGrid * kMaxRanks + blockIdx.x * kMaxRanks + t;
    while (*in < tick) {
    }
    __threadfence_system();
  }
  __syncthreads();
}

// call_index counts the calls of this operation from 0 on every rank.
void launch_ring_gather(float** slots, unsigned** flags, const float* x,
                        float* y, int rank, int world_size, int64_t len,
                        unsigned call_index, cudaStream_t stream) {
  ring_gather<<<kGrid, kBlock, 0, stream>>>(
      slots, flags, x, y, rank, world_size, len, call_index + 1u);
}
