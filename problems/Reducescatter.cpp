//===- Reducescatter.cpp - PKB problem 7: bf16 sum reduce-scatter ---------===//
//
// Size n = the NCCL recvcount. Rank r holds x_r[W*n]; rank r must end with
// y[n] = sum_p x_p[r*n .. (r+1)*n). Reference: ncclReduceScatter(x, y, n,
// ncclBfloat16, ncclSum). Tolerance 1e-2 abs and rel (bf16 default).
//
// Roofline per rank, S = 2Wn bytes (the input), W ranks:
//   NVLink: (W-1)/W * S (nccl-tests doc/PERFORMANCE.md reduce-scatter busbw
//           factor (n-1)/n);
//   HBM:    read x (S) + write y (2n);
//   FLOPs:  (W-1) * n additions per rank (its shard summed over W inputs).
// Parallelism: data parallel (ZeRO-2/FSDP gradient reduce-scatter),
// sequence parallel. Pattern: all-to-all reduction of equal shards.
//
//===----------------------------------------------------------------------===//
#include "CollectiveUtil.h"
#include "pkb/rt/Problem.h"

namespace pkb::rt {
namespace {
class ReducescatterProblem final : public Problem {
public:
  std::string_view name() const override { return "reducescatter"; }
  int id() const override { return 7; }
  std::string_view summary() const override {
    return "bf16 sum reduce-scatter: W*n elements per rank -> shard of n "
           "[data parallel; reduce-scatter]";
  }
  std::string_view sizeUnit() const override {
    return "bf16 elements per rank (recvcount)";
  }
  std::vector<int64_t> defaultSizes() const override { return shardSweep(); }
  std::vector<TensorSpec> inputs(int W, int, int64_t Size) const override {
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
    T.FlopsPerRank = (W - 1) * N;
    return T;
  }
  support::Expected<void>
  reference(const RankInfo &R, std::span<const pkb_tensor> In,
            std::span<const pkb_tensor> Out) const override {
    if (In.size() != 1 || Out.size() != 1)
      return support::fail("reducescatter expects one input and one output");
    return ncclError("ncclReduceScatter",
                     ncclReduceScatter(In[0].data, Out[0].data,
                                       static_cast<size_t>(Out[0].shape[0]),
                                       ncclBfloat16, ncclSum, R.Comm,
                                       R.Stream));
  }
  support::Expected<void> localReference(const RankInfo &R, RankInputs &In,
                                         std::span<const pkb_tensor> Out,
                                         RefOps &Ops) const override {
    if (Out.size() != 1)
      return support::fail("reducescatter expects one output");
    size_t N = static_cast<size_t>(Out[0].shape[0]);
    std::vector<const void *> Srcs;
    for (int P = 0; P < R.WorldSize; ++P) {
      auto X = In.of(P);
      if (X.size() != 1)
        return support::fail("reducescatter expects one input per rank");
      Srcs.push_back(static_cast<const char *>(X[0].data) +
                     2 * N * static_cast<size_t>(R.Rank));
    }
    return Ops.sum(PKB_DTYPE_BF16, Out[0].data, Srcs, N);
  }
};
} // namespace

const Problem *makeReducescatterProblem() {
  static const ReducescatterProblem P;
  return &P;
}

} // namespace pkb::rt
