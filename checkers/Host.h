//===- Host.h - Helpers over Python host operations -------------*- C++ -*-===//
//
// Internal to pkb_checkers: reasoning about ModuleModel::HostOps (the ordered
// operations of a ParallelKernelBench `solution()` or of a candidate's C++
// `pkb_candidate_run`), used by BAR-004 and HOST-001.
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
/// True if \p A and \p B lie in opposite arms of one `if` of C++ host code
/// (HostOp::Guards holds "c" for one and "!(c)" for the other): one rank never
/// runs both in the same call.
bool exclusive(const HostOp &A, const HostOp &B);
/// True if \p A and \p B lie in opposite arms of one `if` whose condition
/// has the same value on every rank (HostOp::UniformGuards): in one call
/// either every rank runs A or every rank runs B, never a mix.
bool exclusiveOnEveryRank(const HostOp &A, const HostOp &B);
/// The kernel-call operation of the module's host sequence at launch site
/// \p L of kernel \p Kernel (same source line and column), or null.
const HostOp *hostOpOf(const ModuleModel &M, const std::string &Kernel,
                       const LaunchSite &L);
/// True if \p Op runs on every call on which its `if` guards hold: only
/// tracked `if` arms (HostOp::Guards) enclose it, no loop or untracked block.
bool runsWhenGuarded(const HostOp &Op);
/// Cross-rank synchronization that one operation performs on its rank.
struct OpSync {
  bool Signals = false; ///< Publishes to other ranks (barrier, collective,
                        ///< kernel storing to a cross-rank flag).
  bool Waits = false;   ///< Blocks on other ranks (barrier, collective,
                        ///< kernel spinning on a cross-rank flag).
};
/// The synchronization of \p Op: hdl.barrier, dist.barrier and collectives
/// both signal and wait; a kernel call signals/waits if one of the kernels
/// it may launch has a signal/wait event on a cross-rank flag
/// (KernelModel::Facts from enrich(); none when enrich() has not run).
OpSync syncOf(const ModuleModel &M, const HostOp &Op);
/// True if a cross-rank barrier lies strictly between operation indices
/// \p From and \p To: an unconditional hdl.barrier / dist.barrier /
/// collective, or, in C++ host code, an operation that signals after \p From
/// on the rank that runs \p From and one that waits before \p To on the rank
/// that runs \p To (a barrier kernel, or split signal and wait kernels).
bool barrierBetween(const ModuleModel &M, size_t From, size_t To);
/// The symmetric buffer ("symm[0]", "signal_pad", ...) that parameter
/// \p P (an index into KernelModel::Params) of kernel \p K reaches in the
/// C++ launch \p Op: the buffer HostOp::ArgBuffers names for the launch
/// argument of the parameter's root (a `pkb_peer_view`'s `peers` field
/// reaches the view's buffer, its `signal_pads` field "signal_pad"); "?" if
/// unknown (Python host code, or an argument no buffer flows into).
std::string argBuffer(const HostOp &Op, const KernelModel &K, size_t P);
/// A host-sequence finding of check \p Id at \p Sev, reported at \p At
/// (an operation of the sequence) for the call \p Of, whose Callee names
/// the finding's kernel; the caller fills in the message, hint and related
/// locations.
Finding hostFinding(const std::string &Id, Severity Sev, const HostOp &At,
                    const HostOp &Of);
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
/// Parameters of \p K (indices into KernelModel::Params) through which it
/// reads peer memory after its last cross-rank signal; a read whose base is
/// no parameter adds SIZE_MAX.
std::vector<size_t> exposedPeerReadParams(const ModuleModel &M,
                                          const KernelModel &K,
                                          const CheckOptions &O);
/// Parameters of \p K through which it stores into peers' symmetric memory
/// (through a peer pointer other than its own rank; no flag, no shared
/// memory) with no cross-rank signal of its own after the store (no exit
/// barrier orders the store before a later kernel of the peer); SIZE_MAX
/// for a base that is no parameter.
std::vector<size_t> exposedPeerWriteParams(const ModuleModel &M,
                                           const KernelModel &K,
                                           const CheckOptions &O);
/// Parameters of \p K through which it reads symmetric memory, its own
/// copy or a peer's (no flag, no shared memory, no read-modify-write),
/// before its first cross-rank wait; SIZE_MAX for a base that is no
/// parameter.
std::vector<size_t> unguardedSymmReadParams(const ModuleModel &M,
                                            const KernelModel &K,
                                            const CheckOptions &O);
/// Parameters of \p K through which it stores into this rank's own
/// symmetric memory before its first cross-rank wait (a write that an entry
/// barrier of the kernel does not order); SIZE_MAX for a base that is no
/// parameter.
std::vector<size_t> unguardedOwnWriteParams(const ModuleModel &M,
                                            const KernelModel &K,
                                            const CheckOptions &O);

} // namespace pkb::chk

#endif // PKB_CHECKERS_HOST_H
