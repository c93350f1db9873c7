//===- Problem.cpp - Problem base class and registry ----------------------===//
#include "pkb/rt/Problem.h"

#include <algorithm>
#include <charconv>

namespace pkb::rt {

const Problem *makeAllreduceProblem();
const Problem *makeAllgatherProblem();
const Problem *makeBroadcastProblem();
const Problem *makeReduceProblem();
const Problem *makeScatterProblem();
const Problem *makeGatherProblem();
const Problem *makeReducescatterProblem();
const Problem *makeAlltoallProblem();
const Problem *makeGemmAllreduceProblem();
const Problem *makeTpRmsNormProblem();

int64_t TensorSpec::numel() const {
  int64_t N = 1;
  for (int64_t E : Shape)
    N *= E;
  return N;
}

size_t TensorSpec::bytes() const {
  return static_cast<size_t>(numel()) * dtypeSize(Dtype);
}

Problem::~Problem() = default;
RankInputs::~RankInputs() = default;
RefOps::~RefOps() = default;

support::Expected<void> Problem::checkSize(int, int64_t Size) const {
  if (Size <= 0)
    return support::fail("size must be positive");
  return {};
}

Tolerance Problem::tolerance(const TensorSpec &Output) const {
  return defaultTolerance(Output.Dtype);
}

void Problem::generateInputs(const RankInfo &R,
                             std::span<const pkb_tensor> Inputs,
                             uint64_t Seed) const {
  for (size_t I = 0; I < Inputs.size(); ++I)
    fillRandom(Inputs[I], mixSeed(Seed, I + 1), R.Stream);
}

uint64_t mixSeed(uint64_t A, uint64_t B) {
  // SplitMix64 finalizer over a combination of both values.
  uint64_t Z = A + 0x9E3779B97F4A7C15ull * (B + 1);
  Z = (Z ^ (Z >> 30)) * 0xBF58476D1CE4E5B9ull;
  Z = (Z ^ (Z >> 27)) * 0x94D049BB133111EBull;
  return Z ^ (Z >> 31);
}

uint64_t inputSeed(uint64_t Base, int64_t Size, uint64_t Tag, int Rank) {
  return mixSeed(mixSeed(Base, static_cast<uint64_t>(Size)),
                 mixSeed(Tag, static_cast<uint64_t>(Rank)));
}

pkb_tensor makeTensor(const TensorSpec &S, void *Data) {
  pkb_tensor T{};
  T.data = Data;
  T.ndim = static_cast<int32_t>(S.Shape.size());
  T.dtype = S.Dtype;
  for (int I = 0; I < 4; ++I)
    T.shape[I] = I < T.ndim ? S.Shape[static_cast<size_t>(I)] : 1;
  return T;
}

const std::vector<const Problem *> &allProblems() {
  static const std::vector<const Problem *> All = [] {
    std::vector<const Problem *> V = {
        makeAllreduceProblem(),     makeAllgatherProblem(),
        makeBroadcastProblem(),     makeReduceProblem(),
        makeScatterProblem(),       makeGatherProblem(),
        makeReducescatterProblem(), makeAlltoallProblem(),
        makeGemmAllreduceProblem(), makeTpRmsNormProblem()};
    std::sort(V.begin(), V.end(), [](const Problem *A, const Problem *B) {
      return A->id() < B->id();
    });
    return V;
  }();
  return All;
}

const Problem *findProblem(std::string_view NameOrId) {
  int Id = -1;
  auto [Ptr, Ec] =
      std::from_chars(NameOrId.data(), NameOrId.data() + NameOrId.size(), Id);
  bool IsId = Ec == std::errc() && Ptr == NameOrId.data() + NameOrId.size();
  for (const Problem *P : allProblems())
    if (P->name() == NameOrId || (IsId && P->id() == Id))
      return P;
  return nullptr;
}

} // namespace pkb::rt
