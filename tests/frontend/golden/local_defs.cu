// Exact values of locals assigned more than once (local_defs): a block's
// range from a helper's by-reference outputs, clamped with a select, then
// a relaxed flag after the copy (ORD-001 refines over these values).
#include <stdint.h>
__device__ void blockRange(int N, int &Lo, int &Hi) {
  int Per = (N + 63) / 64;
  Lo = blockIdx.x * Per;
  Hi = Lo + Per;
  Lo = Lo < N ? Lo : N;
  Hi = Hi < N ? Hi : N;
}
__global__ void push(float **peers, uint32_t **pads, const float *x, int n,
                     int rank, int world_size, uint32_t epoch) {
  int Lo, Hi;
  blockRange(n, Lo, Hi);
  float *Dst = peers[0] + rank * n;
  for (int I = Lo + threadIdx.x; I < Hi; I += blockDim.x)
    Dst[I] = x[I];
  __syncthreads();
  int Step = 0;
  for (int K = 0; K < 2; ++K)
    Step = Step + K; // assigned in a loop: no exact value
  if (threadIdx.x == 0)
    *(volatile uint32_t *)(pads[0] + rank + Step) = epoch;
}
void launch(float **p, uint32_t **s, const float *x, int n, int r, int w,
            uint32_t e, cudaStream_t st) {
  push<<<64, 256, 0, st>>>(p, s, x, n, r, w, e);
}
