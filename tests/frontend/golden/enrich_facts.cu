// Enrichment facts: read-modify-write pairs from the AST, a software grid
// barrier on a local counter, an epoch parameter, and a launch reached from
// the host through a wrapper.
#include <stdint.h>
__global__ void accumulate(float** bufs, const float* in, unsigned* counter,
                           uint32_t** pads, int rank, int world_size,
                           int64_t n, uint32_t round) {
  const int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    bufs[rank][i] += in[i];
    bufs[rank][i] = bufs[rank][i] * 2.0f;
    float v = in[i];
    bufs[rank][i] = v;
  }
  __syncthreads();
  if (threadIdx.x == 0) {
    atomicAdd(counter, 1u);
    while (atomicAdd(counter, 0u) < gridDim.x) {
    }
  }
  if (threadIdx.x < world_size) {
    __threadfence_system();
    volatile uint32_t* remote = pads[threadIdx.x] + rank;
    *remote = round + 1;
    volatile uint32_t* local = pads[rank] + threadIdx.x;
    while (*local != round + 1) {
    }
  }
}
static void launch_inner(float** b, const float* in, unsigned* c,
                         uint32_t** p, int r, int w, int64_t n, uint32_t k,
                         cudaStream_t s) {
  accumulate<<<4, 256, 0, s>>>(b, in, c, p, r, w, n, k);
}
void launch_outer(float** b, const float* in, unsigned* c, uint32_t** p,
                  int r, int w, int64_t n, uint32_t k, cudaStream_t s) {
  launch_inner(b, in, c, p, r, w, n, k, s);
}
