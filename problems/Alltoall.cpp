//===- Alltoall.cpp - PKB problem 8: bf16 all-to-all ----------------------===//
//
// Size n = the per-peer count. Rank r holds x_r[W*n] made of W chunks of n;
// rank r must end with y_r[W*n], y_r[p*n + i] = x_p[r*n + i] (chunk r of
// every rank, in rank order: the MPI_Alltoall / torch all_to_all_single
// layout). Reference (as nccl-tests alltoall_perf): one group of ncclSend of
// chunk p to every peer p and ncclRecv into chunk p from every peer p; the
// own chunk is a device-to-device copy. Tolerance: bf16 default (exact).
//
// Roofline per rank, S = 2Wn bytes:
//   NVLink: (W-1)/W * S (nccl-tests doc/PERFORMANCE.md alltoall busbw factor
//           (n-1)/n);
//   HBM:    read x (S) + write y (S) = 2S;
//   FLOPs:  0.
// Parallelism: expert parallel (MoE token dispatch), sequence parallel
// (Ulysses). Pattern: all-to-all personalized.
//
//===----------------------------------------------------------------------===//
#include "CollectiveUtil.h"
#include "pkb/rt/Problem.h"

namespace pkb::rt {
namespace {
class AlltoallProblem final : public Problem {
public:
  std::string_view name() const override { return "alltoall"; }
  int id() const override { return 8; }
  std::string_view summary() const override {
    return "bf16 all-to-all of W chunks of n elements per rank "
           "[expert/sequence parallel; all-to-all personalized]";
  }
  std::string_view sizeUnit() const override {
    return "bf16 elements per peer chunk";
  }
  std::vector<int64_t> defaultSizes() const override { return shardSweep(); }
  std::vector<TensorSpec> inputs(int W, int, int64_t Size) const override {
    return {{"x", PKB_DTYPE_BF16, {W * Size}}};
  }
  std::vector<TensorSpec> outputs(int W, int, int64_t Size) const override {
    return {{"y", PKB_DTYPE_BF16, {W * Size}}};
  }
  RooflineTerms roofline(int W, int64_t Size) const override {
    double N = static_cast<double>(Size);
    RooflineTerms T;
    T.NvlinkBytesPerRank = (W - 1) * 2.0 * N;
    T.HbmBytesPerRank = 4.0 * W * N;
    return T;
  }
  support::Expected<void>
  reference(const RankInfo &R, std::span<const pkb_tensor> In,
            std::span<const pkb_tensor> Out) const override {
    if (In.size() != 1 || Out.size() != 1)
      return support::fail("alltoall expects one input and one output");
    size_t N =
        static_cast<size_t>(In[0].shape[0]) / static_cast<size_t>(R.WorldSize);
    const auto *X = static_cast<const char *>(In[0].data);
    auto *Y = static_cast<char *>(Out[0].data);
    support::Expected<void> E =
        cudaError("cudaMemcpyAsync",
                  cudaMemcpyAsync(Y + 2 * N * R.Rank, X + 2 * N * R.Rank, 2 * N,
                                  cudaMemcpyDeviceToDevice, R.Stream));
    if (!E)
      return E;
    if (auto G = ncclGroupStart(); G != ncclSuccess)
      return ncclError("ncclGroupStart", G);
    for (int P = 0; P < R.WorldSize; ++P) {
      if (P == R.Rank)
        continue;
      ncclResult_t S =
          ncclSend(X + 2 * N * P, N, ncclBfloat16, P, R.Comm, R.Stream);
      if (S == ncclSuccess)
        S = ncclRecv(Y + 2 * N * P, N, ncclBfloat16, P, R.Comm, R.Stream);
      if (S != ncclSuccess) {
        ncclGroupEnd();
        return ncclError("ncclSend/ncclRecv", S);
      }
    }
    return ncclError("ncclGroupEnd", ncclGroupEnd());
  }
  support::Expected<void> localReference(const RankInfo &R, RankInputs &In,
                                         std::span<const pkb_tensor> Out,
                                         RefOps &Ops) const override {
    if (Out.size() != 1)
      return support::fail("alltoall expects one output");
    size_t Bytes = 2 * static_cast<size_t>(Out[0].shape[0] / R.WorldSize);
    for (int P = 0; P < R.WorldSize; ++P) {
      auto X = In.of(P);
      if (X.size() != 1)
        return support::fail("alltoall expects one input per rank");
      // y_r chunk p = x_p chunk r.
      support::Expected<void> E = Ops.copy(
          static_cast<char *>(Out[0].data) + Bytes * static_cast<size_t>(P),
          static_cast<const char *>(X[0].data) +
              Bytes * static_cast<size_t>(R.Rank),
          Bytes);
      if (!E)
        return E;
    }
    return {};
  }
};
} // namespace

const Problem *makeAlltoallProblem() {
  static const AlltoallProblem P;
  return &P;
}

} // namespace pkb::rt
