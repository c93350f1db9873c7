//===- DeviceOps.cu - Small device kernels of the runtime -----------------===//
#include "pkb/rt/Cuda.h"

#include <cstdint>

namespace pkb::rt {
namespace {
template <typename T> __global__ void fillKernel(T *Data, size_t N, T Value) {
  size_t Stride = size_t(gridDim.x) * blockDim.x;
  for (size_t I = size_t(blockIdx.x) * blockDim.x + threadIdx.x; I < N;
       I += Stride)
    Data[I] = Value;
}

__global__ void copy16Kernel(int4 *__restrict__ Dst,
                             const int4 *__restrict__ Src, size_t N) {
  size_t Stride = size_t(gridDim.x) * blockDim.x;
  size_t I = size_t(blockIdx.x) * blockDim.x + threadIdx.x;
  // Four independent 16-byte loads in flight per thread.
  for (; I + 3 * Stride < N; I += 4 * Stride) {
    int4 A = Src[I], B = Src[I + Stride], C = Src[I + 2 * Stride],
         D = Src[I + 3 * Stride];
    Dst[I] = A;
    Dst[I + Stride] = B;
    Dst[I + 2 * Stride] = C;
    Dst[I + 3 * Stride] = D;
  }
  for (; I < N; I += Stride)
    Dst[I] = Src[I];
}

__global__ void copy1Kernel(char *Dst, const char *Src, size_t N) {
  size_t Stride = size_t(gridDim.x) * blockDim.x;
  for (size_t I = size_t(blockIdx.x) * blockDim.x + threadIdx.x; I < N;
       I += Stride)
    Dst[I] = Src[I];
}

__global__ void fma8Kernel(float *Sink, int Iters) {
  float A[8];
  float X = 1.0f + threadIdx.x * 1e-7f, Y = 0.999999f;
#pragma unroll
  for (int K = 0; K < 8; ++K)
    A[K] = X + K;
  for (int I = 0; I < Iters; ++I) {
#pragma unroll
    for (int K = 0; K < 8; ++K)
      A[K] = fmaf(A[K], Y, X);
  }
  float S = 0;
#pragma unroll
  for (int K = 0; K < 8; ++K)
    S += A[K];
  Sink[size_t(blockIdx.x) * blockDim.x + threadIdx.x] = S;
}
} // namespace

cudaError_t fillPattern(void *Data, size_t N, size_t ElemBytes,
                        uint64_t Pattern, cudaStream_t Stream) {
  if (N == 0)
    return cudaSuccess;
  int Blocks = static_cast<int>(N / 256 + 1 < 4096 ? N / 256 + 1 : 4096);
  switch (ElemBytes) {
  case 1:
    fillKernel<<<Blocks, 256, 0, Stream>>>(static_cast<uint8_t *>(Data), N,
                                           static_cast<uint8_t>(Pattern));
    break;
  case 2:
    fillKernel<<<Blocks, 256, 0, Stream>>>(static_cast<uint16_t *>(Data), N,
                                           static_cast<uint16_t>(Pattern));
    break;
  case 4:
    fillKernel<<<Blocks, 256, 0, Stream>>>(static_cast<uint32_t *>(Data), N,
                                           static_cast<uint32_t>(Pattern));
    break;
  case 8:
    fillKernel<<<Blocks, 256, 0, Stream>>>(
        static_cast<unsigned long long *>(Data), N,
        static_cast<unsigned long long>(Pattern));
    break;
  default:
    return cudaErrorInvalidValue;
  }
  return cudaGetLastError();
}

cudaError_t smCopy(void *Dst, const void *Src, size_t Bytes, int Blocks,
                   cudaStream_t Stream) {
  if ((reinterpret_cast<uintptr_t>(Dst) | reinterpret_cast<uintptr_t>(Src) |
       Bytes) %
          16 ==
      0)
    copy16Kernel<<<Blocks, 512, 0, Stream>>>(
        static_cast<int4 *>(Dst), static_cast<const int4 *>(Src), Bytes / 16);
  else
    copy1Kernel<<<Blocks, 512, 0, Stream>>>(
        static_cast<char *>(Dst), static_cast<const char *>(Src), Bytes);
  return cudaGetLastError();
}

cudaError_t fmaKernel(float *Sink, int Blocks, int Iters, cudaStream_t Stream) {
  fma8Kernel<<<Blocks, 256, 0, Stream>>>(Sink, Iters);
  return cudaGetLastError();
}

} // namespace pkb::rt
