//===- FusedKernels.cu - Device helpers of the fused problem specs --------===//
// C++17 CUDA (CMake < 3.26 cannot ask nvcc for C++20); see FusedKernels.h.
#include "FusedKernels.h"

#include "pkb/pkb_abi.h"

#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <mutex>

namespace pkb::rt {
namespace {
__global__ void scaleKernel(__nv_bfloat16 *T, size_t N, float S) {
  size_t Stride = size_t(gridDim.x) * blockDim.x;
  for (size_t I = size_t(blockIdx.x) * blockDim.x + threadIdx.x; I < N;
       I += Stride)
    T[I] = __float2bfloat16_rn(__bfloat162float(T[I]) * S);
}

// One block per row; fp32 tree reduction in shared memory.
__global__ void sumSqKernel(const __nv_bfloat16 *X, float *Out, int64_t N) {
  __shared__ float Part[256];
  const __nv_bfloat16 *Row = X + blockIdx.x * N;
  float Acc = 0;
  for (int64_t I = threadIdx.x; I < N; I += blockDim.x) {
    float V = __bfloat162float(Row[I]);
    Acc += V * V;
  }
  Part[threadIdx.x] = Acc;
  __syncthreads();
  for (int S = blockDim.x / 2; S > 0; S /= 2) {
    if (int(threadIdx.x) < S)
      Part[threadIdx.x] += Part[threadIdx.x + S];
    __syncthreads();
  }
  if (threadIdx.x == 0)
    Out[blockIdx.x] = Part[0];
}

__global__ void rmsApplyKernel(const __nv_bfloat16 *X, const __nv_bfloat16 *G,
                               const float *SumSq, __nv_bfloat16 *Y, int64_t N,
                               float InvHidden, float Eps) {
  int64_t M = blockIdx.x;
  float Scale = rsqrtf(SumSq[M] * InvHidden + Eps);
  for (int64_t I = threadIdx.x; I < N; I += blockDim.x)
    Y[M * N + I] = __float2bfloat16_rn(__bfloat162float(X[M * N + I]) * Scale *
                                       __bfloat162float(G[I]));
}

constexpr int kMaxSum = 8;
struct SumSources {
  const void *P[kMaxSum];
  int Count;
};

__device__ __forceinline__ float toF(__nv_bfloat16 V) {
  return __bfloat162float(V);
}
__device__ __forceinline__ float toF(__half V) { return __half2float(V); }
__device__ __forceinline__ float toF(float V) { return V; }
template <typename T> __device__ T fromF(float V);
template <> __device__ __nv_bfloat16 fromF<__nv_bfloat16>(float V) {
  return __float2bfloat16_rn(V);
}
template <> __device__ __half fromF<__half>(float V) {
  return __float2half_rn(V);
}
template <> __device__ float fromF<float>(float V) { return V; }

// fp32 accumulation in source order, one rounding (local references).
template <typename T>
__global__ void sumKernel(T *Dst, SumSources S, size_t N) {
  size_t Stride = size_t(gridDim.x) * blockDim.x;
  for (size_t I = size_t(blockIdx.x) * blockDim.x + threadIdx.x; I < N;
       I += Stride) {
    float Acc = 0.0f;
    for (int K = 0; K < S.Count; ++K)
      Acc += toF(static_cast<const T *>(S.P[K])[I]);
    Dst[I] = fromF<T>(Acc);
  }
}

size_t blocksFor(size_t N) {
  size_t B = (N + 255) / 256;
  return B < 1 ? 1 : (B > 8192 ? 8192 : B);
}
} // namespace

cudaError_t scaleBf16(void *T, size_t N, float Scale, cudaStream_t Stream) {
  if (N == 0)
    return cudaSuccess;
  scaleKernel<<<unsigned(blocksFor(N)), 256, 0, Stream>>>(
      static_cast<__nv_bfloat16 *>(T), N, Scale);
  return cudaGetLastError();
}

cudaError_t rowSumSquares(const void *X, float *SumSq, int64_t M, int64_t N,
                          cudaStream_t Stream) {
  if (M <= 0)
    return cudaSuccess;
  sumSqKernel<<<unsigned(M), 256, 0, Stream>>>(
      static_cast<const __nv_bfloat16 *>(X), SumSq, N);
  return cudaGetLastError();
}

cudaError_t rmsNormApply(const void *X, const void *G, const float *SumSq,
                         void *Y, int64_t M, int64_t N, int64_t Hidden,
                         float Eps, cudaStream_t Stream) {
  if (M <= 0)
    return cudaSuccess;
  rmsApplyKernel<<<unsigned(M), 256, 0, Stream>>>(
      static_cast<const __nv_bfloat16 *>(X),
      static_cast<const __nv_bfloat16 *>(G), SumSq,
      static_cast<__nv_bfloat16 *>(Y), N, 1.0f / float(Hidden), Eps);
  return cudaGetLastError();
}

cudaError_t sumRanks(int Dtype, void *Dst, const void *const *Srcs, int Count,
                     size_t N, cudaStream_t Stream) {
  if (Count < 1 || Count > kMaxSum)
    return cudaErrorInvalidValue;
  if (N == 0)
    return cudaSuccess;
  SumSources S{};
  S.Count = Count;
  for (int K = 0; K < Count; ++K)
    S.P[K] = Srcs[K];
  unsigned Blocks = unsigned(blocksFor(N));
  switch (Dtype) {
  case PKB_DTYPE_BF16:
    sumKernel<<<Blocks, 256, 0, Stream>>>(static_cast<__nv_bfloat16 *>(Dst), S,
                                          N);
    break;
  case PKB_DTYPE_F16:
    sumKernel<<<Blocks, 256, 0, Stream>>>(static_cast<__half *>(Dst), S, N);
    break;
  case PKB_DTYPE_F32:
    sumKernel<<<Blocks, 256, 0, Stream>>>(static_cast<float *>(Dst), S, N);
    break;
  default:
    return cudaErrorInvalidValue;
  }
  return cudaGetLastError();
}

cublasHandle_t cublasFor(cudaStream_t Stream) {
  static std::mutex Mu;
  static cublasHandle_t Handle = nullptr;
  std::lock_guard<std::mutex> Lock(Mu);
  if (!Handle && cublasCreate(&Handle) != CUBLAS_STATUS_SUCCESS)
    Handle = nullptr;
  if (Handle)
    cublasSetStream(Handle, Stream);
  return Handle;
}

support::Expected<void> gemmBf16(const void *A, const void *B, void *C,
                                 int64_t M, int64_t N, int64_t K,
                                 cudaStream_t Stream) {
  cublasHandle_t H = cublasFor(Stream);
  if (!H)
    return support::fail("cublasCreate failed");
  float One = 1.0f, Zero = 0.0f;
  // Row-major C = A B  <=>  column-major C^T = B^T A^T.
  cublasStatus_t S = cublasGemmEx(
      H, CUBLAS_OP_N, CUBLAS_OP_N, int(N), int(M), int(K), &One, B, CUDA_R_16BF,
      int(N), A, CUDA_R_16BF, int(K), &Zero, C, CUDA_R_16BF, int(N),
      CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT);
  if (S != CUBLAS_STATUS_SUCCESS)
    return support::fail("cublasGemmEx failed");
  return {};
}

} // namespace pkb::rt
