//===- pkb/ProblemCatalogue.h - ParallelKernelBench problems ---*- C++ -*-===//
//
// The one id/name table of the ParallelKernelBench problems (ids 1..87, the
// names of its reference files `<id>_<name>.py`), with the name pkbcheck
// uses for the problems it has ported and whether a C++ spec exists in
// problems/ (a runtime test pins that flag to the registered specs). No
// CUDA: eval, the runtime, the CLI and scripts (`pkbcheck problems --json`)
// all read this table. It also holds, per problem, the byte model of the
// roofline of `.py` solutions: the bytes one rank moves over NVLink in one
// call of PKB's reference, or why there is none (docs/pkb.md#roofline).
//
//===----------------------------------------------------------------------===//
#ifndef PKB_PROBLEMCATALOGUE_H
#define PKB_PROBLEMCATALOGUE_H

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>

namespace pkb {

/// One ParallelKernelBench problem.
struct CatalogueEntry {
  int Id = 0;
  std::string_view PkbName; ///< ParallelKernelBench's name (reference file)
  /// pkbcheck's name for a problem it has ported (spec or planned spec,
  /// docs/problems.md); empty otherwise. Usually PkbName, sometimes shorter.
  std::string_view PortedName;
  bool HasSpec = false; ///< a C++ spec in problems/ (runnable by `run`)

  /// The name pkbcheck prints: PortedName, else PkbName.
  std::string_view name() const {
    return PortedName.empty() ? PkbName : PortedName;
  }
};

/// Every problem, by increasing id (1..87).
std::span<const CatalogueEntry> problemCatalogue();

/// The problem with this id; nullptr if none.
const CatalogueEntry *findCatalogueEntry(int Id);

/// The problem named by an id ("73"), its PortedName or its PkbName;
/// nullptr if none.
const CatalogueEntry *findCatalogueEntry(std::string_view NameOrId);

/// The candidate-ABI tensors of a ported collective (problems 1-8): one
/// 1-D bf16 input `In[0]` and one 1-D bf16 output `Out[0]` whose element
/// counts are the problem size n, or W * n where the problem says so, and
/// the sizes the GPU harness runs by default. Mirrors inputs(), outputs()
/// and defaultSizes() of problems/<Name>.cpp (a runtime test pins the two
/// together); the static checks read it (PART-003's output extent,
/// docs/checkers.md), which must not need CUDA.
struct SizeContract {
  bool InputTimesW = false;              ///< In[0] has W * n elements (else n)
  bool OutputTimesW = false;             ///< Out[0] has W * n elements (else n)
  bool InputRootOnly = false;            ///< only the root (rank 0) has In[0]
  bool OutputRootOnly = false;           ///< only the root (rank 0) has Out[0]
  int ElemBytes = 2;                     ///< bytes per element (bf16)
  std::span<const int64_t> DefaultSizes; ///< n of a default run, ascending
  /// The collectives that only move data (all-gather, broadcast, scatter,
  /// gather, all-to-all): output element j of rank r is input element
  /// (SourceOffsetByRank ? r * n : 0) + (SourceByBlock ? j % n : j) of rank
  /// (SourceByBlock ? j / n : 0), the header formulas of problems/<Name>.cpp
  /// (e.g. all-to-all y_r[p*n + i] = x_p[r*n + i]). False for reductions.
  bool Copies = false;
  bool SourceByBlock = false;      ///< source rank j / n, element j % n
  bool SourceOffsetByRank = false; ///< source element offset by r * n
};

/// The size contract of problem Id; nullptr for a problem without one (not
/// ported, or not a 1-D collective: tp_rms_norm, gemm_allreduce).
const SizeContract *sizeContract(int Id);

/// One ParallelKernelBench case as the byte models see it: the base shape
/// (M, N) that PKB's `create_input_tensor(rank, world_size, problem_id,
/// base_shape, dtype, ...)` receives, the element size of the case's dtype
/// and the world size W.
struct PkbCase {
  int64_t M = 0, N = 0;
  int DtypeBytes = 2; ///< bytes per element of the case's dtype (pkbDtypeBytes)
  int World = 1;      ///< W, ranks
};

/// Per-call NVLink traffic of one PKB problem: the bus bytes of the
/// collectives that PKB's reference (`reference/<id>_<name>.py`) issues for
/// the inputs `create_input_tensor` makes, on the busiest rank, counted with
/// the bus-bandwidth factors of NCCL's nccl-tests (doc/PERFORMANCE.md):
/// all-reduce 2(W-1)/W x S, all-gather and reduce-scatter (W-1)/W x S with S
/// the gathered (scattered) total, broadcast and reduce 1 x S, all-to-all,
/// scatter and gather (W-1)/W x S (nccl-tests' alltoall/scatter/gather),
/// point-to-point the bytes sent; collectives on sub-groups and several
/// collectives per call add up. Tensors the reference sends in a fixed type
/// (fp32 sums, complex64 spectra, int64 ids) count in that type, whatever
/// the case's dtype. Exactly one of Bytes and Reason is set.
struct PkbByteModel {
  /// Bytes per call for a case with W >= 2 (the caller handles W = 1, which
  /// moves nothing); <= 0 for a case PKB's generator rejects; nullptr when
  /// there is no model.
  double (*Bytes)(const PkbCase &) = nullptr;
  std::string_view Formula; ///< Bytes in the case's terms (M, N, b, W)
  std::string_view Source;  ///< the reference's collectives and factors used
  std::string_view Reason;  ///< why there is no model; empty with Bytes
};

/// The byte model of problem Id (1..87); nullptr for an id not in the
/// catalogue.
const PkbByteModel *pkbByteModel(int Id);

/// Bytes per element of a PKB dtype name ("bfloat16", "float16", "float32",
/// "float64"); nullopt for any other name.
std::optional<int> pkbDtypeBytes(std::string_view Dtype);

/// NVLink bytes per rank of one call of problem Id for case C, or why there
/// are none: Id without a model (its Reason), W = 1 (no peer: nothing crosses
/// NVLink), a non-positive shape or element size, a case PKB's generator
/// rejects (e.g. problem 41 at N = 1024, W = 3).
struct PkbNvlinkBytes {
  std::optional<double> Bytes; ///< bytes per call, busiest rank
  std::string Why;             ///< set when Bytes is empty
};
PkbNvlinkBytes pkbNvlinkBytes(int Id, const PkbCase &C);

} // namespace pkb

#endif // PKB_PROBLEMCATALOGUE_H
