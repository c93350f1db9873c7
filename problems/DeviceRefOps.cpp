//===- DeviceRefOps.cpp - Device executor of the local references ---------===//
//
// RefOps on one CUDA stream of the current device: copies with
// cudaMemcpyAsync, sums with sumRanks (fp32 accumulation in source order, one
// rounding), GEMM with cuBLAS (the same call as gemm_allreduce's NCCL-path
// reference), RMSNorm with the kernels of FusedKernels.cu. Scratch memory is
// cudaMalloc'ed and freed in the destructor; the caller synchronizes the
// stream before destroying the executor.
//
//===----------------------------------------------------------------------===//
#include "CollectiveUtil.h"
#include "FusedKernels.h"
#include "pkb/rt/Problem.h"

#include <vector>

namespace pkb::rt {
namespace {
class DeviceRefOps final : public RefOps {
public:
  explicit DeviceRefOps(cudaStream_t Stream) : Stream(Stream) {}
  ~DeviceRefOps() override {
    for (void *P : Scratch)
      cudaFree(P);
  }
  DeviceRefOps(const DeviceRefOps &) = delete;
  DeviceRefOps &operator=(const DeviceRefOps &) = delete;

  support::Expected<void> copy(void *Dst, const void *Src,
                               size_t Bytes) override {
    if (Bytes == 0)
      return {};
    return cudaError(
        "cudaMemcpyAsync",
        cudaMemcpyAsync(Dst, Src, Bytes, cudaMemcpyDeviceToDevice, Stream));
  }
  support::Expected<void> sum(pkb_dtype Dtype, void *Dst,
                              std::span<const void *const> Srcs,
                              size_t N) override {
    if (Srcs.empty() || Srcs.size() > PKB_MAX_RANKS)
      return support::fail("sum: between 1 and PKB_MAX_RANKS sources");
    return cudaError("sumRanks",
                     sumRanks(Dtype, Dst, Srcs.data(),
                              static_cast<int>(Srcs.size()), N, Stream));
  }
  support::Expected<void> gemmBf16(const void *A, const void *B, void *C,
                                   int64_t M, int64_t N, int64_t K) override {
    return pkb::rt::gemmBf16(A, B, C, M, N, K, Stream);
  }
  support::Expected<void> rowSumSquares(const void *X, float *SumSq, int64_t M,
                                        int64_t N) override {
    return cudaError("rowSumSquares",
                     pkb::rt::rowSumSquares(X, SumSq, M, N, Stream));
  }
  support::Expected<void> rmsNormApply(const void *X, const void *G,
                                       const float *SumSq, void *Y, int64_t M,
                                       int64_t N, int64_t Hidden,
                                       float Eps) override {
    return cudaError(
        "rmsNormApply",
        pkb::rt::rmsNormApply(X, G, SumSq, Y, M, N, Hidden, Eps, Stream));
  }
  void *scratch(size_t Bytes) override {
    void *P = nullptr;
    if (cudaMalloc(&P, Bytes < 16 ? 16 : Bytes) != cudaSuccess) {
      cudaGetLastError();
      return nullptr;
    }
    Scratch.push_back(P);
    return P;
  }

private:
  cudaStream_t Stream;
  std::vector<void *> Scratch;
};
} // namespace

std::unique_ptr<RefOps> makeDeviceRefOps(cudaStream_t Stream) {
  return std::make_unique<DeviceRefOps>(Stream);
}

} // namespace pkb::rt
