//===- Reduce.cpp - PKB problem 4: bf16 sum reduce to rank 0 --------------===//
//
// Size n = the NCCL count. Every rank holds x_r[n]; the root (rank 0) must
// end with y[n] = sum_r x_r. Only the root has an output. Reference:
// ncclReduce(x, y, n, ncclBfloat16, ncclSum, root 0). Tolerance 1e-2 abs and
// rel (bf16 default): summation order and fp32 accumulation may differ.
//
// Roofline per rank, S = 2n bytes:
//   NVLink: S (nccl-tests doc/PERFORMANCE.md reduce busbw factor 1);
//   HBM:    read x (S) + write y on the root (S) = 2S;
//   FLOPs:  (W-1) * n additions on the root in a direct reduce; the lower
//           bound spread over ranks is (W-1)/W * n, used here.
// Parallelism: data parallel (metric/gradient reduction to one rank).
// Pattern: all-to-one reduction.
//
//===----------------------------------------------------------------------===//
#include "CollectiveUtil.h"
#include "pkb/rt/Problem.h"

namespace pkb::rt {
namespace {
class ReduceProblem final : public Problem {
public:
  std::string_view name() const override { return "reduce"; }
  int id() const override { return 4; }
  std::string_view summary() const override {
    return "bf16 sum reduce of n elements per rank to rank 0 "
           "[data parallel; all-to-one reduction]";
  }
  std::string_view sizeUnit() const override { return "bf16 elements (count)"; }
  std::vector<int64_t> defaultSizes() const override { return fullSweep(); }
  std::vector<TensorSpec> inputs(int, int, int64_t Size) const override {
    return {{"x", PKB_DTYPE_BF16, {Size}}};
  }
  std::vector<TensorSpec> outputs(int, int Rank, int64_t Size) const override {
    if (Rank != kRoot)
      return {};
    return {{"y", PKB_DTYPE_BF16, {Size}}};
  }
  RooflineTerms roofline(int W, int64_t Size) const override {
    double N = static_cast<double>(Size), S = 2.0 * N;
    RooflineTerms T;
    T.NvlinkBytesPerRank = S;
    T.HbmBytesPerRank = 2.0 * S;
    T.FlopsPerRank = (W - 1.0) / W * N;
    return T;
  }
  support::Expected<void>
  reference(const RankInfo &R, std::span<const pkb_tensor> In,
            std::span<const pkb_tensor> Out) const override {
    if (In.size() != 1 || Out.size() != (R.Rank == kRoot ? 1u : 0u))
      return support::fail(
          "reduce expects one input and an output on the root only");
    // recvbuff is only used on the root; non-roots pass their sendbuff.
    void *Recv = R.Rank == kRoot ? Out[0].data : In[0].data;
    return ncclError(
        "ncclReduce",
        ncclReduce(In[0].data, Recv, static_cast<size_t>(In[0].shape[0]),
                   ncclBfloat16, ncclSum, kRoot, R.Comm, R.Stream));
  }
  support::Expected<void> localReference(const RankInfo &R, RankInputs &In,
                                         std::span<const pkb_tensor> Out,
                                         RefOps &Ops) const override {
    if (R.Rank != kRoot)
      return Out.empty() ? support::Expected<void>()
                         : support::fail("reduce: only the root has an output");
    if (Out.size() != 1)
      return support::fail("reduce expects one output on the root");
    std::vector<const void *> Srcs;
    for (int P = 0; P < R.WorldSize; ++P) {
      auto X = In.of(P);
      if (X.size() != 1)
        return support::fail("reduce expects one input per rank");
      Srcs.push_back(X[0].data);
    }
    return Ops.sum(PKB_DTYPE_BF16, Out[0].data, Srcs,
                   static_cast<size_t>(Out[0].shape[0]));
  }
};
} // namespace

const Problem *makeReduceProblem() {
  static const ReduceProblem P;
  return &P;
}

} // namespace pkb::rt
