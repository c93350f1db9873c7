//===- HostRefOps.h - Host executor of the local references (tests) ------===//
//
// RefOps on host memory with the device executor's arithmetic (fp32
// accumulation in source order, one round-to-nearest-even rounding), used by
// the CPU tests of the local references and by the GPU test that checks the
// device executor against it.
//
//===----------------------------------------------------------------------===//
#ifndef PKB_TESTS_RUNTIME_HOSTREFOPS_H
#define PKB_TESTS_RUNTIME_HOSTREFOPS_H

#include "pkb/rt/Compare.h"
#include "pkb/rt/Problem.h"

#include <cmath>
#include <cstring>
#include <vector>

namespace pkb::rt::test {
inline float toF(pkb_dtype T, const void *P, size_t I) {
  switch (T) {
  case PKB_DTYPE_BF16:
    return bf16ToFloat(static_cast<const uint16_t *>(P)[I]);
  case PKB_DTYPE_F16:
    return f16ToFloat(static_cast<const uint16_t *>(P)[I]);
  default:
    return static_cast<const float *>(P)[I];
  }
}

inline void store(pkb_dtype T, void *P, size_t I, float V) {
  switch (T) {
  case PKB_DTYPE_BF16:
    static_cast<uint16_t *>(P)[I] = floatToBf16(V);
    break;
  case PKB_DTYPE_F16:
    static_cast<uint16_t *>(P)[I] = floatToF16(V);
    break;
  default:
    static_cast<float *>(P)[I] = V;
  }
}

inline float bf(const void *P, size_t I) { return toF(PKB_DTYPE_BF16, P, I); }

/// RefOps on host memory: the device executor's arithmetic in plain loops.
class HostRefOps final : public RefOps {
public:
  support::Expected<void> copy(void *Dst, const void *Src,
                               size_t Bytes) override {
    std::memcpy(Dst, Src, Bytes);
    ++Copies;
    return {};
  }
  support::Expected<void> sum(pkb_dtype T, void *Dst,
                              std::span<const void *const> Srcs,
                              size_t N) override {
    if (Srcs.empty() || Srcs.size() > PKB_MAX_RANKS)
      return support::fail("bad source count");
    for (size_t I = 0; I < N; ++I) {
      float Acc = 0;
      for (const void *S : Srcs)
        Acc += toF(T, S, I);
      store(T, Dst, I, Acc);
    }
    ++Sums;
    return {};
  }
  support::Expected<void> gemmBf16(const void *A, const void *B, void *C,
                                   int64_t M, int64_t N, int64_t K) override {
    for (int64_t I = 0; I < M; ++I)
      for (int64_t J = 0; J < N; ++J) {
        float Acc = 0;
        for (int64_t L = 0; L < K; ++L)
          Acc += bf(A, static_cast<size_t>(I * K + L)) *
                 bf(B, static_cast<size_t>(L * N + J));
        store(PKB_DTYPE_BF16, C, static_cast<size_t>(I * N + J), Acc);
      }
    return {};
  }
  support::Expected<void> rowSumSquares(const void *X, float *S, int64_t M,
                                        int64_t N) override {
    for (int64_t I = 0; I < M; ++I) {
      float Acc = 0;
      for (int64_t J = 0; J < N; ++J) {
        float V = bf(X, static_cast<size_t>(I * N + J));
        Acc += V * V;
      }
      S[I] = Acc;
    }
    return {};
  }
  support::Expected<void> rmsNormApply(const void *X, const void *G,
                                       const float *S, void *Y, int64_t M,
                                       int64_t N, int64_t Hidden,
                                       float Eps) override {
    for (int64_t I = 0; I < M; ++I) {
      float Scale = 1.0f / std::sqrt(S[I] / static_cast<float>(Hidden) + Eps);
      for (int64_t J = 0; J < N; ++J)
        store(PKB_DTYPE_BF16, Y, static_cast<size_t>(I * N + J),
              bf(X, static_cast<size_t>(I * N + J)) * Scale *
                  bf(G, static_cast<size_t>(J)));
    }
    return {};
  }
  void *scratch(size_t Bytes) override {
    Mem.emplace_back(Bytes);
    return Mem.back().data();
  }
  int Copies = 0, Sums = 0;

private:
  std::vector<std::vector<char>> Mem;
};

} // namespace pkb::rt::test

#endif // PKB_TESTS_RUNTIME_HOSTREFOPS_H
