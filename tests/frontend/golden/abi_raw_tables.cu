// Self-written sample: raw pointer tables of the candidate ABI passed as
// plain parameters with uninformative names. The roles of A, B, R and W
// come from the values every launch passes (ctx->symm[0].peers,
// ctx->signal_pads, ctx->rank, ctx->world_size), not from the names.
#include <pkb/pkb_abi.h>
#include <stdint.h>

__global__ void flagPeers(void *const *A, uint32_t *const *B, int R, int W,
                          uint32_t E) {
  int T = threadIdx.x;
  if (T < W && T != R) {
    static_cast<float *>(A[T])[R] = 1.0f;
    __threadfence_system();
    atomicExch_system(B[T] + R, E);
  }
}

void run(pkb_context *ctx) {
  flagPeers<<<1, 8>>>(ctx->symm[0].peers, ctx->signal_pads, ctx->rank,
                      ctx->world_size, uint32_t(ctx->call_index) + 1);
}
