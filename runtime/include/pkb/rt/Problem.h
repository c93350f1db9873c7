//===- pkb/rt/Problem.h - Problem specifications ----------------*- C++ -*-===//
//
// A problem is one multi-GPU operation a candidate implements (PKB problem
// 1 is a bf16 sum all-reduce). Its spec says, as functions of the world size
// and a size parameter: the inputs and outputs of each rank, how inputs are
// generated (seeded, on the GPU, never constant), the reference (NCCL, run in
// the same process layout as the candidate: one process per rank), a local
// reference that needs no communication (for correctness-only runs with more
// ranks than GPUs: each rank regenerates every rank's inputs from their seeds
// and computes its own expected outputs), the tolerances, and the roofline
// terms. Specs live in problems/ (library
// pkb_problems); the runtime finds them with allProblems()/findProblem().
//
//===----------------------------------------------------------------------===//
#ifndef PKB_RT_PROBLEM_H
#define PKB_RT_PROBLEM_H

#include "pkb/pkb_abi.h"
#include "pkb/rt/Compare.h"
#include "pkb/rt/Roofline.h"
#include "pkb/support/Expected.h"

#include <cuda_runtime_api.h>
#include <nccl.h>

#include <cstddef>
#include <cstdint>
#include <memory>
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

/// Every rank's inputs of one call, as the harness generated them for that
/// rank (same specs, same seed: inputSeed(base, size, tag, rank)), but
/// regenerated on the calling rank's device. What a local reference reads
/// instead of communicating.
class RankInputs {
public:
  virtual ~RankInputs();
  /// Inputs of rank Rank (shapes of Problem::inputs(W, Rank, Size)); empty
  /// for a rank without inputs or out of range. Valid until the reference
  /// returns; generation is ordered before later work on the stream.
  virtual std::span<const pkb_tensor> of(int Rank) = 0;
};

/// The operations local references are written in. Asynchronous and in
/// order (one CUDA stream on the device executor, makeDeviceRefOps; plain
/// host loops in the CPU tests); pointers live in the executor's memory.
/// Every operation returns success or an error with a message.
class RefOps {
public:
  virtual ~RefOps();
  /// Copies Bytes bytes from Src to Dst (no overlap).
  virtual support::Expected<void> copy(void *Dst, const void *Src,
                                       size_t Bytes) = 0;
  /// Dst[i] = Srcs[0][i] + Srcs[1][i] + ... for N elements of Dtype (bf16,
  /// f16 or f32), accumulated in fp32 in the order of Srcs and rounded once
  /// to Dtype (round to nearest even). At most PKB_MAX_RANKS sources.
  virtual support::Expected<void> sum(pkb_dtype Dtype, void *Dst,
                                      std::span<const void *const> Srcs,
                                      size_t N) = 0;
  /// Row-major C[M, N] = A[M, K] * B[K, N], bf16 in/out, fp32 accumulation
  /// (cuBLAS, as the NCCL-path reference of gemm_allreduce).
  virtual support::Expected<void> gemmBf16(const void *A, const void *B,
                                           void *C, int64_t M, int64_t N,
                                           int64_t K) = 0;
  /// SumSq[m] = sum_n float(X[m, n])^2 for a row-major bf16 X[M, N] (fp32).
  virtual support::Expected<void> rowSumSquares(const void *X, float *SumSq,
                                                int64_t M, int64_t N) = 0;
  /// Y[m, n] = bf16(X[m, n] * rsqrt(SumSq[m] / Hidden + Eps) * G[n]).
  virtual support::Expected<void> rmsNormApply(const void *X, const void *G,
                                               const float *SumSq, void *Y,
                                               int64_t M, int64_t N,
                                               int64_t Hidden, float Eps) = 0;
  /// Scratch memory of Bytes bytes (unspecified contents), valid until this
  /// executor is destroyed; nullptr on failure.
  virtual void *scratch(size_t Bytes) = 0;
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
  /// Success when Size is valid for WorldSize, else an error with the
  /// reason. Default: Size must be positive.
  virtual support::Expected<void> checkSize(int WorldSize, int64_t Size) const;
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
  /// rank calls it collectively. On failure the error says which call
  /// failed.
  virtual support::Expected<void>
  reference(const RankInfo &R, std::span<const pkb_tensor> Inputs,
            std::span<const pkb_tensor> Outputs) const = 0;
  /// Computes this rank's expected outputs without any communication (no
  /// NCCL; R.Comm is null): reads every rank's inputs from In (regenerated
  /// locally) and works through Ops. Used by correctness-only runs with
  /// several ranks per GPU (`run --oversubscribe`), where NCCL refuses to
  /// run. Must agree with reference() within the problem's tolerances.
  virtual support::Expected<void>
  localReference(const RankInfo &R, RankInputs &In,
                 std::span<const pkb_tensor> Outputs, RefOps &Ops) const = 0;
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

/// Seed of rank Rank's inputs for one checked call: Base is the run's seed,
/// Size the case's size, Tag the trial (0, 1, ..) or back-to-back call
/// (1000 + k). mixSeed(mixSeed(Base, Size), mixSeed(Tag, Rank)).
uint64_t inputSeed(uint64_t Base, int64_t Size, uint64_t Tag, int Rank);

/// The device executor of RefOps on Stream (the current device): sums and
/// RMSNorm by small kernels, GEMM by cuBLAS, copies by cudaMemcpyAsync,
/// scratch by cudaMalloc, freed when the executor is destroyed (synchronize
/// the stream first).
std::unique_ptr<RefOps> makeDeviceRefOps(cudaStream_t Stream);

/// Converts a TensorSpec and a device pointer into the ABI's tensor view.
pkb_tensor makeTensor(const TensorSpec &S, void *Data);

} // namespace pkb::rt

#endif // PKB_RT_PROBLEM_H
