//===- pkb/Checker.h - Checker interface and registry -----------*- C++ -*-===//
//
// A checker inspects a ModuleModel and reports Findings. Each checker lives
// in its own file under checkers/, has a fixed ID (e.g. "ORD-001") and is
// documented in docs/checkers.md.
//
//===----------------------------------------------------------------------===//
#ifndef PKB_CHECKER_H
#define PKB_CHECKER_H

#include "pkb/Diagnostic.h"
#include "pkb/Model.h"
#include "pkb/support/Expected.h"

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace pkb {

/// The target topology (see docs/checkers.md, TOPO-001). The default, an
/// empty Name, is "no machine named" (no --topology): checks that depend on
/// the hardware report what the code needs instead of failing it.
struct Topology {
  std::string Name;
  unsigned Gpus = 0;
  bool Multicast = false;

  /// True when a target was named (--topology or a topology file).
  bool named() const { return !Name.empty(); }
};

/// Resolves a --topology argument: "" (no target, the default), a built-in
/// name ("h200x2-nvlink": 2 GPUs,
/// NVLink, no multicast; "h100x8-nvswitch": 8 GPUs, NVSwitch with NVLS
/// multicast; "h200x8-nvswitch" likewise; "generic": 8 GPUs, no multicast) or
/// the path of a JSON file {"name": str, "gpus": int, "multicast": bool}
/// (docs/checkers.md, "Topology files"). On failure the error is a message
/// with the file and line.
support::Expected<Topology> resolveTopology(const std::string &Spec);

/// The candidate-ABI tensor sizes of the problem a file solves, for
/// PART-003's output extent (docs/checkers.md, PART-003 "Output extent from
/// the problem"). The driver fills it from pkb::sizeContract() (problems/
/// ProblemCatalogue.h) for `check --problem` or a file named
/// `<id>_<name>...`; the analyzer itself does not read the catalogue.
struct ProblemSizes {
  std::string Name;            ///< pkbcheck's problem name ("allreduce")
  bool InputTimesW = false;    ///< In[0] has W * n elements (else n)
  bool OutputTimesW = false;   ///< Out[0] has W * n elements (else n)
  bool OutputRootOnly = false; ///< only rank 0 has Out[0]
  unsigned ElemBytes = 2;      ///< bytes per element of In[0] and Out[0]
  std::vector<int64_t> Sizes;  ///< problem sizes n checked (the defaults)
  /// Data-moving collectives only (pkb::SizeContract::Copies): output
  /// element j of rank r is input element (SourceOffsetByRank ? r * n : 0)
  /// + (SourceByBlock ? j % n : j) of rank (SourceByBlock ? j / n : 0).
  bool Copies = false;
  bool SourceByBlock = false;
  bool SourceOffsetByRank = false;
};

class CheckContexts;

/// A fresh set of per-kernel check contexts for one module and one
/// CheckOptions (defined in checkers/Engine.cpp; docs/checkers.md, "One
/// check context per kernel").
std::shared_ptr<CheckContexts> makeCheckContexts();

/// Options shared by all checkers.
struct CheckOptions {
  /// World sizes to check; each checker reports the smallest W that fails.
  std::vector<unsigned> WorldSizes = {2, 3, 4, 5, 6, 7, 8};
  /// Time limit of one solver query, in milliseconds. Past it the query is
  /// "unknown" and reported as a solver-unknown note, never a pass.
  unsigned SolverTimeoutMs = 2000;
  Topology Target;
  /// The problem of the file, when known; unset: none (PART-003 then uses
  /// the kernels' element-count parameters as the output extent only).
  std::optional<ProblemSizes> Problem;
  /// Called before a checker starts on a kernel (\p Kernel is the kernel's
  /// name) or, for module-level checkers, on the module (\p Kernel empty).
  /// The driver uses it to say where a time limit struck; may be null.
  std::function<void(const std::string &CheckId, const std::string &Kernel)>
      OnProgress;
  /// When set, every checker shares one check context per kernel (one Z3
  /// context, one query cache, facts classified once) for the module it is
  /// given; each checker keeps its own solver budget. Null: each checker
  /// builds its own context per kernel (same findings, slower). A set of
  /// contexts belongs to one module: make a new one for the next.
  std::shared_ptr<CheckContexts> Contexts;
};

/// Static description of a checker for --list-checks, SARIF rules and docs.
/// GPU failure classes a finding can explain: the bits of
/// CheckInfo::Explains, named like eval's failure classes (docs/eval.md).
enum ExplainedFailure : unsigned {
  ExplainsDeadlock = 1u << 0,        ///< "deadlock"
  ExplainsCrossCallRace = 1u << 1,   ///< "cross-call-race"
  ExplainsOutputMismatch = 1u << 2,  ///< "output-mismatch"
  ExplainsUnwrittenOutput = 1u << 3, ///< "unwritten-output"
  ExplainsRuntimeError = 1u << 4,    ///< "runtime-error"
};

/// The failure-class names of the bits set in \p Explains, in bit order.
inline std::vector<std::string> explainedFailureNames(unsigned Explains) {
  static const char *const Names[] = {"deadlock", "cross-call-race",
                                      "output-mismatch", "unwritten-output",
                                      "runtime-error"};
  std::vector<std::string> Out;
  for (unsigned I = 0; I < std::size(Names); ++I)
    if (Explains & (1u << I))
      Out.push_back(Names[I]);
  return Out;
}

struct CheckInfo {
  std::string Id;
  std::string Name;    ///< short, e.g. "missing-release-before-signal"
  std::string Summary; ///< one sentence
  std::string HelpUri; ///< docs/checkers.md anchor
  /// ExplainedFailure bits: the GPU failures a finding of this check can
  /// cause, so that eval can name the findings that explain a failure.
  unsigned Explains = 0;
};

/// What a module contains that a checker can report on: the bits of
/// modelFeatures() and of Checker::needs() (docs/checkers.md, "Skip what
/// cannot fire"). Each is read from the kernel model and its enrichment
/// facts (pkb/Enrich.h) by one scan of the events, without Z3.
enum ModelFeature : unsigned {
  /// A barrier event (block, grid, cluster or named).
  HasBarrier = 1u << 0,
  /// A signal: a write to a flag base (KernelFacts::Signals).
  HasSignal = 1u << 1,
  /// A spin wait (KernelFacts::Waits).
  HasWait = 1u << 2,
  /// A memory access through a peer pointer (Address::Peer).
  HasPeerAccess = 1u << 3,
  /// A write of peer-visible data: a data write through a peer pointer, to
  /// peer space or to a symmetric base (the engine's isPeerVisible()).
  HasPeerWrite = 1u << 4,
  /// A CTA shared-memory access, or an access of a `__device__` variable
  /// (memory every thread of a block shares, like shared memory).
  HasSharedAccess = 1u << 5,
  /// Host operations (ModuleModel::HostOps: a PKB solution() or a
  /// candidate's pkb_candidate_run).
  HasHostOps = 1u << 6,
  /// A multicast access (multicast space or a Multicast parameter).
  HasMulticast = 1u << 7,
  /// A write of this rank's own global data: not shared, not symmetric, no
  /// peer pointer, no flag (PART-003's output buffers).
  HasLocalWrite = 1u << 8,
};

/// The ModelFeature bits of \p M: the union over its kernels (each
/// classified from its enrichment facts; a kernel that enrich() has not
/// seen is enriched on a copy) and its host operations. Defined in
/// checkers/Registry.cpp.
unsigned modelFeatures(const ModuleModel &M);

/// Base class of all checkers.
class Checker {
public:
  virtual ~Checker() = default;
  virtual const CheckInfo &info() const = 0;
  /// The checker's preconditions: ModelFeature bits of which a module must
  /// have at least one for the checker to report anything (finding or
  /// note); 0 (the default) runs it on every module. Declared next to the
  /// ID with PKB_CHECK_NEEDS (checkers/Checks.h).
  virtual unsigned needs() const { return 0; }
  /// True if the checker can fire on a module with the ModelFeature bits
  /// \p Features (modelFeatures()): it needs nothing, or the module has
  /// one of the features it needs. A driver skips it otherwise, before any
  /// Z3 work.
  bool appliesTo(unsigned Features) const {
    return needs() == 0 || (needs() & Features) != 0;
  }
  /// True for checkers that look at one kernel at a time (and report their
  /// progress per kernel through CheckOptions::OnProgress); false for those
  /// that look at the module and its host code as a whole.
  virtual bool isPerKernel() const { return false; }
  /// Appends findings for \p M to \p Out and tool notes (e.g. solver
  /// timeouts) to \p Diags.
  virtual void check(const ModuleModel &M, const CheckOptions &Opts,
                     std::vector<Finding> &Out,
                     std::vector<Diagnostic> &Diags) const = 0;
};

/// Every checker, in ID order. Defined in checkers/Registry.cpp, which
/// lists each checker's factory explicitly (no static registration, so that
/// static linking never drops a checker).
const std::vector<std::unique_ptr<Checker>> &allCheckers();

/// True if \p Id is enabled by \p Globs: a comma-separated list of glob
/// patterns ("ORD-*", "BAR-00?") where a leading '-' disables. Later entries
/// win; with no positive pattern everything starts enabled.
bool isCheckEnabled(const std::string &Id, const std::string &Globs);

/// Validates a --checks value against the registry: every pattern (positive
/// or negated) must match at least one check ID, and at least one checker
/// must stay enabled. The error says which pattern matches nothing (or that
/// nothing is left to run).
support::Expected<void> validateCheckGlobs(const std::string &Globs);

} // namespace pkb

#endif // PKB_CHECKER_H
