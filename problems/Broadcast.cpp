//===- Broadcast.cpp - PKB problem 3: bf16 broadcast from rank 0 ----------===//
//
// Size n = the NCCL count. The root (rank 0) holds x[n]; every rank (the
// root included) must end with y[n] = x. Non-root ranks have no input.
// Reference: ncclBroadcast(x, y, n, ncclBfloat16, root 0). Tolerance: bf16
// default (exact copy expected).
//
// Roofline per rank, S = 2n bytes:
//   NVLink: S (nccl-tests doc/PERFORMANCE.md broadcast busbw factor 1: with a
//           pipelined ring/tree every rank forwards the whole buffer once;
//           the root must send at least S);
//   HBM:    root reads x (S) and every rank writes y (S): 2S on the root;
//   FLOPs:  0.
// Parallelism: data parallel (initial weight sync, rank-0 decisions).
// Pattern: one-to-all.
//
//===----------------------------------------------------------------------===//
#include "CollectiveUtil.h"
#include "pkb/rt/Problem.h"

namespace pkb::rt {
namespace {
class BroadcastProblem final : public Problem {
public:
  std::string_view name() const override { return "broadcast"; }
  int id() const override { return 3; }
  std::string_view summary() const override {
    return "bf16 broadcast of n elements from rank 0 to every rank "
           "[data parallel; one-to-all]";
  }
  std::string_view sizeUnit() const override { return "bf16 elements (count)"; }
  std::vector<int64_t> defaultSizes() const override { return fullSweep(); }
  std::vector<TensorSpec> inputs(int, int Rank, int64_t Size) const override {
    if (Rank != kRoot)
      return {};
    return {{"x", PKB_DTYPE_BF16, {Size}}};
  }
  std::vector<TensorSpec> outputs(int, int, int64_t Size) const override {
    return {{"y", PKB_DTYPE_BF16, {Size}}};
  }
  RooflineTerms roofline(int, int64_t Size) const override {
    double S = 2.0 * static_cast<double>(Size);
    RooflineTerms T;
    T.NvlinkBytesPerRank = S;
    T.HbmBytesPerRank = 2.0 * S;
    return T;
  }
  support::Expected<void>
  reference(const RankInfo &R, std::span<const pkb_tensor> In,
            std::span<const pkb_tensor> Out) const override {
    if (Out.size() != 1 || In.size() != (R.Rank == kRoot ? 1u : 0u))
      return support::fail(
          "broadcast expects one output and an input on the root only");
    const void *Send = R.Rank == kRoot ? In[0].data : Out[0].data;
    return ncclError("ncclBroadcast",
                     ncclBroadcast(Send, Out[0].data,
                                   static_cast<size_t>(Out[0].shape[0]),
                                   ncclBfloat16, kRoot, R.Comm, R.Stream));
  }
  support::Expected<void> localReference(const RankInfo &, RankInputs &In,
                                         std::span<const pkb_tensor> Out,
                                         RefOps &Ops) const override {
    auto X = In.of(kRoot);
    if (Out.size() != 1 || X.size() != 1)
      return support::fail(
          "broadcast expects one output and an input on the root");
    return Ops.copy(Out[0].data, X[0].data,
                    2 * static_cast<size_t>(Out[0].shape[0]));
  }
};
} // namespace

const Problem *makeBroadcastProblem() {
  static const BroadcastProblem P;
  return &P;
}

} // namespace pkb::rt
