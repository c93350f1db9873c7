//===- Fill.cu - Seeded random inputs on the GPU --------------------------===//
// C++17 (CMake < 3.26 cannot ask nvcc for C++20), so Problem.h (which
// uses std::span) is not included; the declaration below matches it.
#include "pkb/pkb_abi.h"

#include <cuda_runtime_api.h>

#include <cuda_bf16.h>
#include <cuda_fp16.h>

namespace pkb::rt {
cudaError_t fillRandom(const pkb_tensor &T, uint64_t Seed, cudaStream_t S);

namespace {
__device__ __forceinline__ uint64_t splitmix(uint64_t X) {
  X += 0x9E3779B97F4A7C15ull;
  X = (X ^ (X >> 30)) * 0xBF58476D1CE4E5B9ull;
  X = (X ^ (X >> 27)) * 0x94D049BB133111EBull;
  return X ^ (X >> 31);
}

/// Uniform in [-1, 1) from the top 24 bits.
__device__ __forceinline__ float uniform(uint64_t H) {
  return static_cast<float>(H >> 40) * (2.0f / 16777216.0f) - 1.0f;
}

template <typename T> __device__ T convert(uint64_t H);
template <> __device__ float convert<float>(uint64_t H) { return uniform(H); }
template <> __device__ __nv_bfloat16 convert<__nv_bfloat16>(uint64_t H) {
  return __float2bfloat16_rn(uniform(H));
}
template <> __device__ __half convert<__half>(uint64_t H) {
  return __float2half_rn(uniform(H));
}
template <> __device__ int32_t convert<int32_t>(uint64_t H) {
  return static_cast<int32_t>(H % 2001) - 1000;
}
template <> __device__ long long convert<long long>(uint64_t H) {
  return static_cast<long long>(H % 2001) - 1000;
}
template <> __device__ uint8_t convert<uint8_t>(uint64_t H) {
  return static_cast<uint8_t>(H & 0xFF);
}

template <typename T>
__global__ void fillKernel(T *Data, size_t N, uint64_t Seed) {
  size_t Stride = size_t(gridDim.x) * blockDim.x;
  for (size_t I = size_t(blockIdx.x) * blockDim.x + threadIdx.x; I < N;
       I += Stride)
    Data[I] = convert<T>(splitmix(Seed ^ splitmix(I)));
}

template <typename T>
cudaError_t launch(void *Data, size_t N, uint64_t Seed, cudaStream_t S) {
  if (N == 0)
    return cudaSuccess;
  size_t Blocks = (N + 255) / 256;
  if (Blocks > 8192)
    Blocks = 8192;
  fillKernel<T><<<static_cast<unsigned>(Blocks), 256, 0, S>>>(
      static_cast<T *>(Data), N, Seed);
  return cudaGetLastError();
}
} // namespace

cudaError_t fillRandom(const pkb_tensor &T, uint64_t Seed, cudaStream_t S) {
  size_t N = 1;
  for (int I = 0; I < T.ndim && I < 4; ++I)
    N *= static_cast<size_t>(T.shape[I]);
  switch (static_cast<pkb_dtype>(T.dtype)) {
  case PKB_DTYPE_BF16:
    return launch<__nv_bfloat16>(T.data, N, Seed, S);
  case PKB_DTYPE_F16:
    return launch<__half>(T.data, N, Seed, S);
  case PKB_DTYPE_F32:
    return launch<float>(T.data, N, Seed, S);
  case PKB_DTYPE_I32:
    return launch<int32_t>(T.data, N, Seed, S);
  case PKB_DTYPE_I64:
    return launch<long long>(T.data, N, Seed, S);
  case PKB_DTYPE_U8:
    return launch<uint8_t>(T.data, N, Seed, S);
  }
  return cudaErrorInvalidValue;
}

} // namespace pkb::rt
