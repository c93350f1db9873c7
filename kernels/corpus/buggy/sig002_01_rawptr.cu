// sig002_01_rawptr.cu: BUG(SIG-002) the barrier flags are set to 1 and waited on for == 1 but never reset and carry no epoch, so every barrier after the first passes on the stale 1 and the reduce reads unfinished peer buffers. FIX: pass a per-barrier counter and wait for flag >= counter.
#include <cuda_runtime.h>
#include <stdint.h>

constexpr int kBlock = 256;
constexpr int kGrid = 16;

// Cross-rank barrier kernel: sender s sets pads[p][s] on every rank p.
__global__ void rank_barrier(uint32_t** pads, int rank, int world_size) {
  if (threadIdx.x < world_size) {
    const int peer = threadIdx.x;
    __threadfence_system();
    *(volatile uint32_t*)(pads[peer] + rank) = 1;
    volatile uint32_t* flag = pads[rank] + peer;
    while (*flag != 1) {  // expect: SIG-002
    }
    __threadfence_system();
  }
}

// Sums every rank's staged buffer.
__global__ void reduce_peers(float** bufs, float* out, int world_size, int64_t n) {
  const int64_t stride = (int64_t)gridDim.x * blockDim.x;
  for (int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride) {
    float acc = 0.f;
    for (int p = 0; p < world_size; ++p) acc += bufs[p][i];
    out[i] = acc;
  }
}

// One all-reduce call: stage, barrier, reduce, barrier (so the next call's
// staging copy cannot overwrite a buffer a peer is still reading).
void allreduce(float** bufs_dev, float* my_buf, uint32_t** pads, const float* in, float* out,
               int rank, int world_size, int64_t n, cudaStream_t stream) {
  cudaMemcpyAsync(my_buf, in, n * sizeof(float), cudaMemcpyDeviceToDevice, stream);
  rank_barrier<<<1, 32, 0, stream>>>(pads, rank, world_size);
  reduce_peers<<<kGrid, kBlock, 0, stream>>>(bufs_dev, out, world_size, n);
  rank_barrier<<<1, 32, 0, stream>>>(pads, rank, world_size);
}
