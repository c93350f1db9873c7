//===- Allgather.cpp - PKB problem 2: bf16 all-gather ---------------------===//
//
// Size n = the NCCL sendcount (bf16 elements each rank contributes). Rank r
// holds x_r[n]; every rank must end with y[W*n], y[p*n + i] = x_p[i].
// Reference: ncclAllGather(x, y, n, ncclBfloat16). Exact data movement, but
// the bf16 default tolerance is kept (1e-2) for uniformity; any wrong or
// stale element is off by far more.
//
// Roofline per rank, S = 2Wn bytes (the output), W ranks:
//   NVLink: (W-1)/W * S = (W-1) * 2n sent (each rank's shard must reach W-1
//           peers; nccl-tests doc/PERFORMANCE.md all-gather busbw factor
//           (n-1)/n applied to the total size);
//   HBM:    read x once (2n) + write y once (2Wn);
//   FLOPs:  0.
// Parallelism: data parallel (ZeRO / FSDP parameter gather, sequence-parallel
// activations). Pattern: all-to-all broadcast of equal shards.
//
//===----------------------------------------------------------------------===//
#include "CollectiveUtil.h"
#include "pkb/rt/Problem.h"

namespace pkb::rt {
namespace {
class AllgatherProblem final : public Problem {
public:
  std::string_view name() const override { return "allgather"; }
  int id() const override { return 2; }
  std::string_view summary() const override {
    return "bf16 all-gather: n elements per rank -> W*n on every rank "
           "[data parallel; all-gather of equal shards]";
  }
  std::string_view sizeUnit() const override {
    return "bf16 elements per rank (sendcount)";
  }
  std::vector<int64_t> defaultSizes() const override { return shardSweep(); }
  std::vector<TensorSpec> inputs(int, int, int64_t Size) const override {
    return {{"x", PKB_DTYPE_BF16, {Size}}};
  }
  std::vector<TensorSpec> outputs(int W, int, int64_t Size) const override {
    return {{"y", PKB_DTYPE_BF16, {W * Size}}};
  }
  RooflineTerms roofline(int W, int64_t Size) const override {
    double N = static_cast<double>(Size);
    RooflineTerms T;
    T.NvlinkBytesPerRank = (W - 1) * 2.0 * N;
    T.HbmBytesPerRank = 2.0 * N + 2.0 * W * N;
    return T;
  }
  support::Expected<void>
  reference(const RankInfo &R, std::span<const pkb_tensor> In,
            std::span<const pkb_tensor> Out) const override {
    if (In.size() != 1 || Out.size() != 1)
      return support::fail("allgather expects one input and one output");
    return ncclError("ncclAllGather",
                     ncclAllGather(In[0].data, Out[0].data,
                                   static_cast<size_t>(In[0].shape[0]),
                                   ncclBfloat16, R.Comm, R.Stream));
  }
  support::Expected<void> localReference(const RankInfo &R, RankInputs &In,
                                         std::span<const pkb_tensor> Out,
                                         RefOps &Ops) const override {
    if (Out.size() != 1)
      return support::fail("allgather expects one output");
    size_t Bytes = 2 * static_cast<size_t>(Out[0].shape[0] / R.WorldSize);
    for (int P = 0; P < R.WorldSize; ++P) {
      auto X = In.of(P);
      if (X.size() != 1)
        return support::fail("allgather expects one input per rank");
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

const Problem *makeAllgatherProblem() {
  static const AllgatherProblem P;
  return &P;
}

} // namespace pkb::rt
