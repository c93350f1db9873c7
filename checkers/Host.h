//===- Host.h - Helpers over Python host operations -------------*- C++ -*-===//
//
// Internal to pkb_checkers: reasoning about ModuleModel::HostOps (the ordered
// operations of a ParallelKernelBench `solution()`), used by BAR-004 and
// HOST-001.
//
//===----------------------------------------------------------------------===//
#ifndef PKB_CHECKERS_HOST_H
#define PKB_CHECKERS_HOST_H

#include "Engine.h"

namespace pkb::chk {

/// True if \p Op runs on every call: no `if`/`for`/`with` block of the
/// host code encloses it (HostOp::Depth, from the Python extractor).
bool unconditional(const HostOp &Op);
/// True if \p Op writes a symmetric buffer: a SymmWrite whose target was
/// allocated with symm_mem.empty (when the allocations are visible).
bool isSymmWrite(const ModuleModel &M, const HostOp &Op);
/// True if an unconditional cross-rank barrier (hdl.barrier, dist.barrier,
/// a collective) lies strictly between operation indices \p From and \p To.
bool barrierBetween(const ModuleModel &M, size_t From, size_t To);
/// Kernels of \p M that the call \p Op may launch (HostOp::Kernels from
/// enrich(); every kernel when the list is empty).
std::vector<const KernelModel *> calledKernels(const ModuleModel &M,
                                               const HostOp &Op);
/// True if \p K reads peer memory (through a peer pointer) before its first
/// cross-rank wait (no entry barrier of its own).
bool readsPeersBeforeSync(const ModuleModel &M, const KernelModel &K,
                          const CheckOptions &O);
/// True if \p K reads peer memory after its last cross-rank signal (no exit
/// barrier of its own).
bool readsPeersAfterLastSync(const ModuleModel &M, const KernelModel &K,
                             const CheckOptions &O);

} // namespace pkb::chk

#endif // PKB_CHECKERS_HOST_H
