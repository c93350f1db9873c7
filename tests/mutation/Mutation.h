//===- Mutation.h - Mutation operators over corpus kernels ------*- C++ -*-===//
//
// Text-level mutation operators for mutation testing of the checkers (see
// docs/accuracy.md). Each operator finds every applicable site in a CUDA file
// (or in the CUDA string literals and the solution() of a ParallelKernelBench
// .py file) and describes one mutant per site as an exact replacement of a
// byte range. Comments, string literals other than inline-PTX templates, and
// preprocessor lines are never mutated. Line numbers are preserved: a removed
// statement keeps its newlines.
//
// Pure C++: needs neither Clang nor the checkers.
//
//===----------------------------------------------------------------------===//
#ifndef PKB_TESTS_MUTATION_MUTATION_H
#define PKB_TESTS_MUTATION_MUTATION_H

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

namespace pkb::mutation {

/// The mutation operators (docs/accuracy.md, "Operators").
enum class Op {
  DropFence,           ///< remove one system-scope fence statement
  WeakenScope,         ///< one system scope -> GPU/device scope
  DropSyncthreads,     ///< remove one __syncthreads()
  DropModWorld,        ///< drop one `% world_size` of a peer index
  DropTrailingBarrier, ///< remove a kernel's exit barrier / last host barrier
  DropElemScale,       ///< drop one `* stride` / `<< k` of a written slot
  ShiftChunk,          ///< `x * chunk` -> `x * chunk + 1` in a written chunk
};

/// Static description of an operator.
struct OperatorInfo {
  Op Kind;
  std::string Name;             ///< command-line name, e.g. "drop-fence"
  std::vector<std::string> Ids; ///< check IDs that kill its mutants
  std::string Summary;          ///< one line for reports and docs
};

/// All operators, in the order of the Op enumeration.
const std::vector<OperatorInfo> &operators();

/// The description of \p K.
const OperatorInfo &info(Op K);

/// Looks an operator up by its command-line name.
std::optional<Op> parseOperator(const std::string &Name);

/// One mutant: replace Length bytes at Offset of the original text with
/// Replacement.
struct Mutant {
  Op Kind = Op::DropFence;
  size_t Offset = 0;
  size_t Length = 0;
  std::string Replacement;
  unsigned Line = 1;    ///< 1-based line of Offset in the original
  unsigned Col = 1;     ///< 1-based byte column of Offset
  std::string Original; ///< the replaced bytes (for reports)

  /// The mutated text.
  std::string apply(const std::string &Text) const;
};

/// Finds every site of every operator in \p Ops in \p Text. \p Python
/// selects the .py rules (CUDA only inside triple-quoted string literals
/// assigned to a name; host barriers in `def solution`). Mutants are sorted
/// by offset, then operator.
std::vector<Mutant> findMutants(const std::string &Text, bool Python,
                                const std::vector<Op> &Ops);

/// findMutants for every operator.
std::vector<Mutant> findMutants(const std::string &Text, bool Python);

} // namespace pkb::mutation

#endif // PKB_TESTS_MUTATION_MUTATION_H
