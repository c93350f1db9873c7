//===- pkb/rt/Problem.h - Problem specifications ----------------*- C++ -*-===//
//
// A problem is one multi-GPU operation a candidate implements (PKB problem
// 1 is a bf16 sum all-reduce). Its spec says, as functions of the world size
// and a size parameter: the inputs and outputs of each rank, how inputs are
// generated (seeded, on the GPU, never constant), the reference (NCCL, run in
// the same process layout as the candidate: one process per rank), the
// tolerances, and the roofline terms. Specs live in problems/ (library
// pkb_problems); the runtime finds them with allProblems()/findProblem().
//
//===----------------------------------------------------------------------===//
#ifndef PKB_RT_PROBLEM_H
#define PKB_RT_PROBLEM_H

#include "pkb/pkb_abi.h"
#include "pkb/rt/Compare.h"
#include "pkb/rt/Roofline.h"

#include <cuda_runtime_api.h>
#include <nccl.h>

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace pkb::rt {

/// Shape and type of one input or output of one rank.
struct TensorSpec {
  std::string Name;
  pkb_dtype Dtype = PKB_DTYPE_F32;
  std::vector<int64_t> Shape; ///< at most 4 extents
  int64_t numel() const;
  size_t bytes() const;
};

/// What a problem's device-side hooks get: this rank's place and handles.
struct RankInfo {
  int Rank = 0;
  int WorldSize = 1;
  int Device = 0;
  cudaStream_t Stream = nullptr;
  ncclComm_t Comm = nullptr; ///< communicator over all ranks, for references
};

/// Interface of a problem spec. Implementations are stateless and const.
class Problem {
public:
  virtual ~Problem();
  /// Short name used on the command line ("allreduce").
  virtual std::string_view name() const = 0;
  /// ParallelKernelBench problem id (1 for all-reduce).
  virtual int id() const = 0;
  /// One-line description.
  virtual std::string_view summary() const = 0;
  /// What the size parameter counts ("elements per rank", ...).
  virtual std::string_view sizeUnit() const = 0;
  /// Sizes run when the user gives none.
  virtual std::vector<int64_t> defaultSizes() const = 0;
  /// Empty when Size is valid for WorldSize, else the reason.
  virtual std::string checkSize(int WorldSize, int64_t Size) const;
  /// Inputs of rank Rank.
  virtual std::vector<TensorSpec> inputs(int WorldSize, int Rank,
                                         int64_t Size) const = 0;
  /// Outputs of rank Rank.
  virtual std::vector<TensorSpec> outputs(int WorldSize, int Rank,
                                          int64_t Size) const = 0;
  /// Tolerance of one output; defaults to defaultTolerance(dtype).
  virtual Tolerance tolerance(const TensorSpec &Output) const;
  /// Minimum work per rank of one call (see Roofline.h).
  virtual RooflineTerms roofline(int WorldSize, int64_t Size) const = 0;
  /// Fills this rank's inputs on R.Stream from Seed (different per rank,
  /// trial and call). Default: fillRandom on each tensor with derived seeds.
  virtual void generateInputs(const RankInfo &R,
                              std::span<const pkb_tensor> Inputs,
                              uint64_t Seed) const;
  /// Computes the expected outputs on R.Stream, with NCCL over R.Comm; every
  /// rank calls it collectively. Returns an error message or "".
  virtual std::string reference(const RankInfo &R,
                                std::span<const pkb_tensor> Inputs,
                                std::span<const pkb_tensor> Outputs) const = 0;
};

/// Every registered problem, ordered by id (defined in pkb_problems).
const std::vector<const Problem *> &allProblems();

/// Problem by name or decimal id; nullptr if unknown.
const Problem *findProblem(std::string_view NameOrId);

/// Fills T with reproducible pseudo-random values from Seed on Stream
/// (a SplitMix64 hash of seed and element index, Steele et al., OOPSLA
/// 2014): floats uniform in [-1, 1), integers uniform in [-1000, 1000] (u8 in
/// [0, 255]). Returns the CUDA error of the launch.
cudaError_t fillRandom(const pkb_tensor &T, uint64_t Seed, cudaStream_t Stream);

/// SplitMix64 mixing of two values, for deriving seeds on the host.
uint64_t mixSeed(uint64_t A, uint64_t B);

/// Converts a TensorSpec and a device pointer into the ABI's tensor view.
pkb_tensor makeTensor(const TensorSpec &S, void *Data);

} // namespace pkb::rt

#endif // PKB_RT_PROBLEM_H
