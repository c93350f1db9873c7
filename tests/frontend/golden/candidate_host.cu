// Host operations of a candidate's pkb_candidate_run (HostSequence.cpp):
// a copy into a buffer chosen by call parity, launches in both arms of a
// rank test (guards), a memset of the signal pad, and a copy into local
// memory that is no host operation. Self-contained stand-ins for the
// pkb_abi.h types.
#include <cuda_runtime.h>
#include <stdint.h>

struct pkb_symm_buffer {
  void *local;
  void **peers;
  size_t bytes;
};
struct pkb_context {
  int rank, world_size;
  uint64_t call_index;
  void *stream;
  pkb_symm_buffer symm[2];
  uint32_t *signal_pad;
  uint32_t **signal_pads;
};

__global__ void publish(uint32_t **pads, uint32_t epoch) {
  pads[threadIdx.x][0] = epoch;
}
__global__ void pull(void *const *bufs, float *y) {
  y[threadIdx.x] = static_cast<const float *>(bufs[0])[threadIdx.x];
}

extern "C" int pkb_candidate_run(pkb_context *ctx, const float *x, float *y,
                                 float *tmp) {
  cudaStream_t s = static_cast<cudaStream_t>(ctx->stream);
  int b = int(ctx->call_index & 1);
  if (ctx->rank == 0) {
    if (cudaMemcpyAsync(ctx->symm[b].local, x, 64, cudaMemcpyDeviceToDevice,
                        s) != cudaSuccess)
      return 1;
    publish<<<1, 8, 0, s>>>(ctx->signal_pads, uint32_t(ctx->call_index) + 1);
  } else {
    pull<<<1, 16, 0, s>>>(ctx->symm[b].peers, y);
  }
  cudaMemcpyAsync(tmp, x, 64, cudaMemcpyDeviceToDevice, s);
  cudaMemsetAsync(ctx->signal_pad, 0, 64, s);
  return 0;
}
