//===- Scatter.cpp - PKB problem 5: bf16 scatter from rank 0 --------------===//
//
// Size n = the per-rank count. The root (rank 0) holds x[W*n]; rank p must
// end with y[n] = x[p*n .. (p+1)*n). Non-root ranks have no input.
// Reference (NCCL has no scatter primitive; as nccl-tests scatter_perf):
// one ncclGroupStart/End with ncclSend of chunk p to each peer p on the root
// and ncclRecv from the root elsewhere; the root's own chunk is a
// device-to-device copy. Tolerance: bf16 default (exact copy expected).
//
// Roofline, S = 2Wn bytes (the root's buffer):
//   NVLink: (W-1)/W * S on the root (nccl-tests doc/PERFORMANCE.md scatter
//           busbw factor (n-1)/n), the busiest rank;
//   HBM:    the root reads its whole buffer once (S) and writes its own
//           chunk (2n): S + 2n;
//   FLOPs:  0.
// Parallelism: data parallel (distribution of a batch or of shards).
// Pattern: one-to-all personalized.
//
//===----------------------------------------------------------------------===//
#include "CollectiveUtil.h"
#include "pkb/rt/Problem.h"

namespace pkb::rt {
namespace {
class ScatterProblem final : public Problem {
public:
  std::string_view name() const override { return "scatter"; }
  int id() const override { return 5; }
  std::string_view summary() const override {
    return "bf16 scatter of W*n elements from rank 0, n to each rank "
           "[data parallel; one-to-all personalized]";
  }
  std::string_view sizeUnit() const override {
    return "bf16 elements per rank (recvcount)";
  }
  std::vector<int64_t> defaultSizes() const override { return shardSweep(); }
  std::vector<TensorSpec> inputs(int W, int Rank, int64_t Size) const override {
    if (Rank != kRoot)
      return {};
    return {{"x", PKB_DTYPE_BF16, {W * Size}}};
  }
  std::vector<TensorSpec> outputs(int, int, int64_t Size) const override {
    return {{"y", PKB_DTYPE_BF16, {Size}}};
  }
  RooflineTerms roofline(int W, int64_t Size) const override {
    double N = static_cast<double>(Size);
    RooflineTerms T;
    T.NvlinkBytesPerRank = (W - 1) * 2.0 * N;
    T.HbmBytesPerRank = 2.0 * W * N + 2.0 * N;
    return T;
  }
  support::Expected<void>
  reference(const RankInfo &R, std::span<const pkb_tensor> In,
            std::span<const pkb_tensor> Out) const override {
    if (Out.size() != 1 || In.size() != (R.Rank == kRoot ? 1u : 0u))
      return support::fail(
          "scatter expects one output and an input on the root only");
    size_t N = static_cast<size_t>(Out[0].shape[0]);
    if (R.Rank == kRoot) {
      const auto *X = static_cast<const char *>(In[0].data);
      support::Expected<void> E =
          cudaError("cudaMemcpyAsync",
                    cudaMemcpyAsync(Out[0].data, X + 2 * N * kRoot, 2 * N,
                                    cudaMemcpyDeviceToDevice, R.Stream));
      if (!E)
        return E;
      if (auto G = ncclGroupStart(); G != ncclSuccess)
        return ncclError("ncclGroupStart", G);
      for (int P = 0; P < R.WorldSize; ++P)
        if (P != kRoot)
          if (auto S =
                  ncclSend(X + 2 * N * P, N, ncclBfloat16, P, R.Comm, R.Stream);
              S != ncclSuccess) {
            ncclGroupEnd();
            return ncclError("ncclSend", S);
          }
      return ncclError("ncclGroupEnd", ncclGroupEnd());
    }
    return ncclError("ncclRecv", ncclRecv(Out[0].data, N, ncclBfloat16, kRoot,
                                          R.Comm, R.Stream));
  }
  support::Expected<void> localReference(const RankInfo &R, RankInputs &In,
                                         std::span<const pkb_tensor> Out,
                                         RefOps &Ops) const override {
    auto X = In.of(kRoot);
    if (Out.size() != 1 || X.size() != 1)
      return support::fail(
          "scatter expects one output and an input on the root");
    size_t Bytes = 2 * static_cast<size_t>(Out[0].shape[0]);
    return Ops.copy(Out[0].data,
                    static_cast<const char *>(X[0].data) +
                        Bytes * static_cast<size_t>(R.Rank),
                    Bytes);
  }
};
} // namespace

const Problem *makeScatterProblem() {
  static const ScatterProblem P;
  return &P;
}

} // namespace pkb::rt
