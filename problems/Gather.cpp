//===- Gather.cpp - PKB problem 6: bf16 gather to rank 0 ------------------===//
//
// Size n = the per-rank count. Rank p holds x_p[n]; the root (rank 0) must
// end with y[W*n], y[p*n + i] = x_p[i]. Only the root has an output.
// Reference (NCCL has no gather primitive; as nccl-tests gather_perf): one
// group with ncclRecv from every peer on the root and ncclSend to the root
// elsewhere; the root's own chunk is a device-to-device copy. Tolerance: bf16
// default (exact copy expected).
//
// Roofline, S = 2Wn bytes (the root's buffer):
//   NVLink: (W-1)/W * S received by the root (nccl-tests
//           doc/PERFORMANCE.md gather busbw factor (n-1)/n); the root's
//           inbound link is the bottleneck, so this is the per-rank term;
//   HBM:    the root writes S and reads its own 2n: S + 2n;
//   FLOPs:  0.
// Parallelism: data parallel (collecting results). Pattern: all-to-one.
//
//===----------------------------------------------------------------------===//
#include "CollectiveUtil.h"
#include "pkb/rt/Problem.h"

namespace pkb::rt {
namespace {
class GatherProblem final : public Problem {
public:
  std::string_view name() const override { return "gather"; }
  int id() const override { return 6; }
  std::string_view summary() const override {
    return "bf16 gather of n elements per rank into W*n on rank 0 "
           "[data parallel; all-to-one personalized]";
  }
  std::string_view sizeUnit() const override {
    return "bf16 elements per rank (sendcount)";
  }
  std::vector<int64_t> defaultSizes() const override { return shardSweep(); }
  std::vector<TensorSpec> inputs(int, int, int64_t Size) const override {
    return {{"x", PKB_DTYPE_BF16, {Size}}};
  }
  std::vector<TensorSpec> outputs(int W, int Rank,
                                  int64_t Size) const override {
    if (Rank != kRoot)
      return {};
    return {{"y", PKB_DTYPE_BF16, {W * Size}}};
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
    if (In.size() != 1 || Out.size() != (R.Rank == kRoot ? 1u : 0u))
      return support::fail(
          "gather expects one input and an output on the root only");
    size_t N = static_cast<size_t>(In[0].shape[0]);
    if (R.Rank == kRoot) {
      auto *Y = static_cast<char *>(Out[0].data);
      support::Expected<void> E =
          cudaError("cudaMemcpyAsync",
                    cudaMemcpyAsync(Y + 2 * N * kRoot, In[0].data, 2 * N,
                                    cudaMemcpyDeviceToDevice, R.Stream));
      if (!E)
        return E;
      if (auto G = ncclGroupStart(); G != ncclSuccess)
        return ncclError("ncclGroupStart", G);
      for (int P = 0; P < R.WorldSize; ++P)
        if (P != kRoot)
          if (auto S =
                  ncclRecv(Y + 2 * N * P, N, ncclBfloat16, P, R.Comm, R.Stream);
              S != ncclSuccess) {
            ncclGroupEnd();
            return ncclError("ncclRecv", S);
          }
      return ncclError("ncclGroupEnd", ncclGroupEnd());
    }
    return ncclError("ncclSend", ncclSend(In[0].data, N, ncclBfloat16, kRoot,
                                          R.Comm, R.Stream));
  }
  support::Expected<void> localReference(const RankInfo &R, RankInputs &In,
                                         std::span<const pkb_tensor> Out,
                                         RefOps &Ops) const override {
    if (R.Rank != kRoot)
      return Out.empty() ? support::Expected<void>()
                         : support::fail("gather: only the root has an output");
    if (Out.size() != 1)
      return support::fail("gather expects one output on the root");
    size_t Bytes = 2 * static_cast<size_t>(Out[0].shape[0] / R.WorldSize);
    for (int P = 0; P < R.WorldSize; ++P) {
      auto X = In.of(P);
      if (X.size() != 1)
        return support::fail("gather expects one input per rank");
      support::Expected<void> E = Ops.copy(static_cast<char *>(Out[0].data) +
                                               Bytes * static_cast<size_t>(P),
                                           X[0].data, Bytes);
      if (!E)
        return E;
    }
    return {};
  }
};
} // namespace

const Problem *makeGatherProblem() {
  static const GatherProblem P;
  return &P;
}

} // namespace pkb::rt
