//===- FusedKernels.h - Device helpers of the fused problem specs -*- C++
//-*-===//
//
// Host-callable launchers (defined in FusedKernels.cu, C++17 CUDA) used by the
// references and input generators of the fused problems (13, 18, ...), and a
// per-process cuBLAS handle. All launches are asynchronous on Stream and
// return the CUDA error of the launch.
//
//===----------------------------------------------------------------------===//
#ifndef PKB_PROBLEMS_FUSEDKERNELS_H
#define PKB_PROBLEMS_FUSEDKERNELS_H

#include "pkb/support/Expected.h"

#include <cublas_v2.h>
#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>

namespace pkb::rt {

/// T[i] *= Scale for N bf16 elements (Scale a power of two keeps it exact).
cudaError_t scaleBf16(void *T, size_t N, float Scale, cudaStream_t Stream);

/// SumSq[m] = sum_n float(X[m, n])^2 for a row-major bf16 X[M, N] (fp32).
cudaError_t rowSumSquares(const void *X, float *SumSq, int64_t M, int64_t N,
                          cudaStream_t Stream);

/// Y[m, n] = bf16(float(X[m, n]) * rsqrt(SumSq[m] / Hidden + Eps) *
/// float(G[n])): the RMSNorm of Zhang & Sennrich (NeurIPS 2019) with the
/// sum of squares over the full hidden size Hidden already reduced.
cudaError_t rmsNormApply(const void *X, const void *G, const float *SumSq,
                         void *Y, int64_t M, int64_t N, int64_t Hidden,
                         float Eps, cudaStream_t Stream);

/// Dst[i] = bf16/f16/f32(sum_k float(Srcs[k][i])) for N elements of Dtype
/// (a pkb_dtype: PKB_DTYPE_BF16, PKB_DTYPE_F16 or PKB_DTYPE_F32), Count <= 8
/// sources summed in fp32 in the order given and rounded once (round to
/// nearest even). cudaErrorInvalidValue for other dtypes or counts.
cudaError_t sumRanks(int Dtype, void *Dst, const void *const *Srcs, int Count,
                     size_t N, cudaStream_t Stream);

/// The cuBLAS handle of this process (created on first use on the current
/// device, never destroyed: one worker process per rank), bound to Stream.
/// nullptr if cublasCreate fails.
cublasHandle_t cublasFor(cudaStream_t Stream);

/// Row-major C[M, N] = A[M, K] * B[K, N], bf16 in/out, fp32 accumulation
/// (cublasGemmEx with CUBLAS_COMPUTE_32F). On failure the error says which
/// cuBLAS call failed.
support::Expected<void> gemmBf16(const void *A, const void *B, void *C,
                                 int64_t M, int64_t N, int64_t K,
                                 cudaStream_t Stream);

} // namespace pkb::rt

#endif // PKB_PROBLEMS_FUSEDKERNELS_H
