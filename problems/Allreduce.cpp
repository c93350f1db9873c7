//===- Allreduce.cpp - PKB problem 1: bf16 sum all-reduce -----------------===//
//
// Every rank holds x_r of N bf16 elements; every rank must end with
// y = sum_r x_r (bf16). Reference: ncclAllReduce(ncclBfloat16, ncclSum).
// Tolerance 1e-2 abs and rel (bf16 default): the candidate may sum in
// another order or in fp32 and round once.
//
// Roofline per rank, S = 2N bytes, n ranks (lower bounds of any algorithm):
//   NVLink: 2(n-1)/n * S sent (reduce-scatter + all-gather; the same factor
//           as nccl-tests' all-reduce busbw, doc/PERFORMANCE.md);
//   HBM:    read x_r once + write y once = 2S;
//   FLOPs:  (n-1)/n * N additions (each rank reduces its 1/n shard).
//
//===----------------------------------------------------------------------===//
#include "pkb/rt/Problem.h"

namespace pkb::rt {
namespace {
class AllreduceProblem final : public Problem {
public:
  std::string_view name() const override { return "allreduce"; }
  int id() const override { return 1; }
  std::string_view summary() const override {
    return "bf16 sum all-reduce of N elements per rank (out of place)";
  }
  std::string_view sizeUnit() const override { return "bf16 elements"; }
  std::vector<int64_t> defaultSizes() const override {
    return {int64_t(1) << 11, int64_t(1) << 16, int64_t(1) << 20,
            int64_t(1) << 24, int64_t(1) << 27};
  }
  support::Expected<void> checkSize(int WorldSize,
                                    int64_t Size) const override {
    if (Size <= 0)
      return support::fail("size must be positive");
    if (Size % (8 * WorldSize))
      return support::fail(
          "size must be a multiple of 8 x world size (16-byte shards)");
    return {};
  }
  std::vector<TensorSpec> inputs(int, int, int64_t Size) const override {
    return {{"x", PKB_DTYPE_BF16, {Size}}};
  }
  std::vector<TensorSpec> outputs(int, int, int64_t Size) const override {
    return {{"y", PKB_DTYPE_BF16, {Size}}};
  }
  RooflineTerms roofline(int World, int64_t Size) const override {
    double S = 2.0 * static_cast<double>(Size), N = World;
    RooflineTerms T;
    T.NvlinkBytesPerRank = 2.0 * (N - 1) / N * S;
    T.HbmBytesPerRank = 2.0 * S;
    T.FlopsPerRank = (N - 1) / N * static_cast<double>(Size);
    return T;
  }
  support::Expected<void>
  reference(const RankInfo &R, std::span<const pkb_tensor> In,
            std::span<const pkb_tensor> Out) const override {
    if (In.size() != 1 || Out.size() != 1)
      return support::fail("allreduce expects one input and one output");
    ncclResult_t E = ncclAllReduce(In[0].data, Out[0].data,
                                   static_cast<size_t>(In[0].shape[0]),
                                   ncclBfloat16, ncclSum, R.Comm, R.Stream);
    if (E != ncclSuccess)
      return support::fail(std::string("ncclAllReduce: ") +
                           ncclGetErrorString(E));
    return {};
  }
  support::Expected<void> localReference(const RankInfo &R, RankInputs &In,
                                         std::span<const pkb_tensor> Out,
                                         RefOps &Ops) const override {
    if (Out.size() != 1)
      return support::fail("allreduce expects one output");
    std::vector<const void *> Srcs;
    for (int P = 0; P < R.WorldSize; ++P) {
      auto X = In.of(P);
      if (X.size() != 1)
        return support::fail("allreduce expects one input per rank");
      Srcs.push_back(X[0].data);
    }
    return Ops.sum(PKB_DTYPE_BF16, Out[0].data, Srcs,
                   static_cast<size_t>(Out[0].shape[0]));
  }
};
} // namespace

const Problem *makeAllreduceProblem() {
  static const AllreduceProblem P;
  return &P;
}

} // namespace pkb::rt
