// Push all-gather over a raw peer-pointer table with volatile flags.
#include <stdint.h>
__global__ void allgather(float** gather, uint32_t** pads, const float* in,
                          int rank, int world_size, int64_t chunk,
                          uint32_t epoch) {
  const int64_t tid = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
  for (int p = 0; p < world_size; ++p) {
    float* dst = gather[p] + (int64_t)rank * chunk;
    for (int64_t i = tid; i < chunk; i += (int64_t)gridDim.x * blockDim.x)
      dst[i] = in[i];
  }
  __syncthreads();
  if (threadIdx.x < world_size) {
    __threadfence_system();
    volatile uint32_t* remote = pads[threadIdx.x] + rank;
    *remote = epoch;
    volatile uint32_t* local = pads[rank] + threadIdx.x;
    while (*local < epoch) {
    }
  }
}
void launch(float** g, uint32_t** p, const float* in, int r, int w, int64_t c,
            cudaStream_t s) {
  allgather<<<8, 256, 0, s>>>(g, p, in, r, w, c, 1);
}
