//===- pkb/Model.h - The kernel model consumed by checkers ------*- C++ -*-===//
//
// The kernel model is the contract between the CUDA front end (which builds
// it from a Clang AST) and the checkers (which query it, mostly through Z3).
// It is deliberately free of Clang types so that checkers and tests can build
// models by hand and so that `pkbcheck dump` can serialize it as JSON (schema:
// docs/model-schema.md).
//
// One KernelModel describes one `__global__` function (or one template
// instantiation of it) with all reachable `__device__` calls inlined to a
// bounded depth. Its body is an ordered, path-conditioned event list: events
// appear in program order; each carries the conjunction of branch conditions
// under which it executes (Guard) and the loops that enclose it (Loops).
//
//===----------------------------------------------------------------------===//
#ifndef PKB_MODEL_H
#define PKB_MODEL_H

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace pkb {

/// A position in a user's file: 1-based line and column. For CUDA embedded in
/// a Python file this is the position in the `.py` file, not in the extracted
/// CUDA text.
struct SourceLoc {
  std::string File;
  unsigned Line = 0;
  unsigned Col = 0;

  bool isValid() const { return Line != 0; }
};

//===----------------------------------------------------------------------===//
// Symbolic integer expressions over the execution coordinates.
//===----------------------------------------------------------------------===//

/// Operators of a symbolic expression. Arithmetic is on mathematical integers
/// (checkers add range constraints); comparisons and logic yield 0/1.
enum class ExprOp {
  Const,  ///< Integer literal (Value).
  Var,    ///< Named variable (Name); see the Var naming convention below.
  Opaque, ///< An expression the front end cannot model (Name = source text).
  Add,
  Sub,
  Mul,
  Div, ///< Truncating division (C semantics).
  Rem, ///< C remainder.
  Shl,
  Shr,
  And,
  Or,
  Xor,
  Min,
  Max,
  Neg,
  Not,  ///< Bitwise not.
  LNot, ///< Logical not.
  LAnd,
  LOr,
  Eq,
  Ne,
  Lt,
  Le,
  Gt,
  Ge,
  Select, ///< Ops[0] ? Ops[1] : Ops[2].
};

/// An immutable symbolic expression tree, shared by pointer.
///
/// Var naming convention (checkers rely on these exact names):
///   "tid.x|y|z", "bid.x|y|z", "bdim.x|y|z", "gdim.x|y|z"  launch coordinates;
///   "lane" (threadIdx.x % 32 spelled as %laneid);
///   "rank", "world_size"   the executing rank and W, whenever the front end
///                          identifies them (parameter roles, ABI fields);
///   "param:NAME"           any other scalar kernel parameter;
///   "loop:ID"              the induction variable of loop ID (see Loop);
///   "local:NAME@LINE"      a local whose value the front end cannot express;
///   "global:NAME"          the value read from the integral `__device__`
///                          scalar NAME (a device-kept counter); as unknown
///                          as a local to the engine, but SIG-002 knows it
///                          is the same in every call when nothing writes
///                          NAME;
///   "host:In[K].shape[D]", "host:Out[K].shape[D]"  extent D of a
///                          candidate's input / output tensor K, and
///                          "host:In[K].numel", "host:Out[K].numel" its
///                          element count (a `numel(T)` helper that
///                          multiplies the extents), in host expressions
///                          of `pkb_candidate_run` only
///                          (LaunchSite::Arg::Host, LaunchSite::HostCond);
///   "epoch"/"call"         reserved for cross-call reasoning.
struct Expr;
using ExprRef = std::shared_ptr<const Expr>;

struct Expr {
  ExprOp Op = ExprOp::Const;
  int64_t Value = 0;
  std::string Name;
  std::vector<ExprRef> Ops;

  static ExprRef constant(int64_t V);
  static ExprRef var(std::string Name);
  static ExprRef opaque(std::string Text);
  static ExprRef unary(ExprOp Op, ExprRef A);
  static ExprRef binary(ExprOp Op, ExprRef A, ExprRef B);
  static ExprRef select(ExprRef C, ExprRef T, ExprRef F);

  /// Renders the expression in C-like syntax, e.g. "(rank + 1) % world_size".
  std::string str() const;
  /// True if any Var named \p VarName occurs in the tree.
  bool mentions(const std::string &VarName) const;
  /// True if any Opaque node occurs in the tree.
  bool hasOpaque() const;
};

//===----------------------------------------------------------------------===//
// Parameters and roles.
//===----------------------------------------------------------------------===//

/// What a kernel parameter (or a field reached through it) is used for.
enum class ParamRole {
  Unknown,
  LocalBuffer,    ///< Pointer into this rank's global memory.
  PeerTable,      ///< Table of W peer pointers/addresses indexed by a rank.
  SignalPad,      ///< This rank's signal pad (flags that peers write).
  SignalPadTable, ///< Table of W peer signal-pad pointers.
  Rank,           ///< Scalar holding this rank's index.
  WorldSize,      ///< Scalar holding W.
  ElementCount,   ///< Scalar element count (N, numel, bytes).
  Context,        ///< Pointer/struct of the pkbcheck candidate ABI context.
  Scalar,         ///< Any other scalar.
  Multicast,      ///< NVLink multicast (multimem) address.
  /// Scalar carrying a per-call counter (epoch, call index): its value flows
  /// into a signalled value or a wait's target (set by enrich(), see
  /// pkb/Enrich.h), so call k+1 sees it changed.
  Epoch,
};

/// One kernel parameter (or one ABI-context field flattened as "ctx.field").
struct Param {
  std::string Name;
  std::string Type; ///< Spelled type as Clang prints it.
  ParamRole Role = ParamRole::Unknown;
  unsigned ElemBytes = 0; ///< Pointee element size for buffers, 0 if unknown.
  std::string Why;        ///< Short reason for the inferred role.
  SourceLoc Loc;
};

//===----------------------------------------------------------------------===//
// Events.
//===----------------------------------------------------------------------===//

/// Memory-model scope of a fence or atomic (PTX ISA, "Scope").
enum class Scope { None, CTA, Cluster, GPU, System };

/// Memory-model semantics of an access (PTX ISA, "Memory Consistency Model":
/// weak = plain, volatile ~ relaxed.sys for ld/st, morally strong ops).
enum class MemOrder {
  Plain,    ///< weak (non-atomic, non-volatile) access
  Volatile, ///< ld.volatile / st.volatile / C `volatile`
  Relaxed,
  Acquire,
  Release,
  AcqRel,
  SeqCst,
};

/// Where an address points.
enum class AddrSpace {
  Unknown,
  Global, ///< This rank's global memory.
  Peer,   ///< Another rank's memory reached through a peer table / mapping.
  Shared, ///< CTA shared memory.
  Local,  ///< Thread-local (stack) memory.
  Multicast,
};

/// Kinds of events in a kernel body.
enum class EventKind {
  Load,
  Store,
  Atomic,    ///< Read-modify-write returning a value (atom.*, atomicX).
  Reduction, ///< Read-modify-write without result (red.*).
  Fence,     ///< __threadfence*, fence.*, atomic_thread_fence, membar.
  Barrier,   ///< __syncthreads, bar.sync, barrier.sync, __syncwarp, cg sync.
  SpinWait,  ///< Loop whose exit condition depends on a memory load.
  Return,    ///< Early return/exit from the kernel (guarded).
  Call,      ///< Call the front end did not inline (depth bound, no body).
  Opaque,    ///< Inline PTX or construct the model cannot express.
  BulkCopy,  ///< cp.async.bulk*, memcpy-like engine operation.
};

/// Read-modify-write operation of an atomic/reduction, the typed form of
/// Event::AtomicOp (PTX ISA, `atom`/`red` operations; CUDA Guide, "Atomic
/// Functions"). Set by enrich() from AtomicOp.
enum class RmwOp {
  None,
  Add,
  Sub,
  Exch,
  Cas,
  Min,
  Max,
  Inc,
  Dec,
  And,
  Or,
  Xor,
  Other
};

/// Exit comparison of a spin wait, `polled OP Value`, the typed form of
/// Event::CompareOp. Set by enrich() from CompareOp.
enum class CmpOp { None, Eq, Ne, Lt, Le, Gt, Ge };

/// True for kinds that access memory: Load, Store, Atomic, Reduction,
/// SpinWait (its polled read) and BulkCopy.
bool accessesMemory(EventKind K);
/// True for kinds that may write memory: Store, Atomic, Reduction, BulkCopy.
bool writesMemory(EventKind K);

/// Barrier granularity for EventKind::Barrier.
enum class BarrierKind { None, Warp, Block, Cluster, Grid, Named };

/// An address: Base[Peer][Index] in units of ElemBytes.
///   Base   : parameter name, shared-memory variable, or "ctx.FIELD";
///   Peer   : rank expression when the pointer came from a peer table;
///   Index  : element index expression, null if unknown;
///   ByteOffset : extra byte offset (from casts / char arithmetic), may be
///   null.
struct Address {
  std::string Base;
  ExprRef Peer;
  ExprRef Index;
  ExprRef ByteOffset;
  AddrSpace Space = AddrSpace::Unknown;
  /// Where the peer-table lookup (`bufs[p]`, `(T*)ptrs[p]`) that produced
  /// Peer was written; invalid if unknown. PART-001 reports there.
  SourceLoc PeerLoc;
};

/// True if \p A and \p B name the same lvalue: equal base and equal (as
/// rendered) peer, index and byte-offset expressions.
bool sameAddress(const Address &A, const Address &B);

/// A loop enclosing events. Induction variable is "loop:ID" in expressions.
struct Loop {
  unsigned Id = 0;
  std::string InductionVar; ///< Source name, for messages.
  ExprRef Init;             ///< First value, null if unknown.
  ExprRef Bound;            ///< Exclusive upper (or lower) bound, or null.
  ExprRef Step;             ///< Increment per iteration, null if unknown.
  bool Ascending = true;
  int ParentId = -1;
  SourceLoc Loc;
};

/// One event of the kernel body.
struct Event {
  EventKind Kind = EventKind::Opaque;
  /// Where the event is reported. For an event inlined from a one-event
  /// wrapper (`st_release_sys(p, v)` around one asm statement) this is the
  /// wrapper's call site, transitively; otherwise the event's own position.
  SourceLoc Loc;
  /// The event's own position inside the wrapper when Loc was moved to a
  /// call site; invalid otherwise.
  SourceLoc InstLoc;

  // Memory events (Load/Store/Atomic/Reduction/BulkCopy, and the polled load
  // of a SpinWait).
  Address Addr;
  unsigned Width = 0; ///< Access width in bytes (vector accesses: full width).
  MemOrder Order = MemOrder::Plain;
  Scope Scp = Scope::None;
  std::string AtomicOp; ///< "add","cas","exch","or","max",... for RMWs.
  ExprRef Value;        ///< Stored/operand value when expressible.

  // Barriers.
  BarrierKind Barrier = BarrierKind::None;
  /// Named CTA barriers of inline PTX (`bar.sync a, b`, `bar.arrive a, b`,
  /// `barrier.cta.*`; PTX ISA 9.7.13.1): the barrier id (a) and the thread
  /// count (b) as values: a literal, or the value of the asm input operand
  /// `%N` (`namedBarrier(1, 256)` through a helper's parameters). Null where
  /// the operand is absent or its value unknown.
  ExprRef BarrierId, BarrierThreads;

  // SpinWait: the loop exits when `ExitCond` (over "polled") holds; Value is
  // the compared-against expression when the condition is `polled OP Value`.
  ExprRef ExitCond;
  std::string CompareOp; ///< "==", "!=", ">=", "<", ... or "" if complex.

  /// Set by the front end on the store half of a plain read-modify-write of
  /// one lvalue in one expression (`a[i] += v`, `a[i]++`, `a[i] = a[i] + v`):
  /// the matching load is the closest earlier Load of the same address.
  bool RmwStore = false;

  /// Set by the front end on a store that writes, unchanged, the value a
  /// load of the same statement read: a plain copy `y[i] = x[j]` (the same
  /// type on both sides, nothing else evaluated on the right). The address
  /// that load read (in the load's element units, as Addr); null otherwise.
  std::shared_ptr<const Address> CopyOf;

  // Typed forms of AtomicOp/CompareOp, filled by enrich().
  RmwOp Rmw = RmwOp::None;
  CmpOp Cmp = CmpOp::None;

  /// Inline PTX instruction text or other detail for messages.
  std::string Text;

  /// Conjunction of conditions under which the event executes. Each entry is
  /// an expression that must be non-zero.
  std::vector<ExprRef> Guard;
  /// Enclosing loops, outermost first (Loop::Id values).
  std::vector<unsigned> Loops;
  /// Names of the inlined call chain that led here, outermost first.
  std::vector<std::string> InlinedFrom;
};

/// A launch site seen in host code of the same translation unit.
struct LaunchSite {
  std::string Kernel;
  ExprRef GridX, GridY, GridZ, BlockX, BlockY, BlockZ;
  bool Cooperative = false; ///< cudaLaunchCooperativeKernel / cg launch.
  /// One argument of a launch: the kernel parameter it initializes and its
  /// value.
  struct Arg {
    std::string Param; ///< Parameter name as declared by the kernel.
    /// A Const when the front end folds the argument (integer literals,
    /// constexpr variables, enumerators, constant expressions), an Opaque
    /// node with the source text otherwise, null for an argument of
    /// non-integral type.
    ExprRef Value;
    /// The argument's source text ("Ctx->signal_pads"): two kernels whose
    /// launches pass the same text share that memory (BAR-002 matches a
    /// wait with the signals of another kernel through it).
    std::string Text = {};
    /// Launches in a candidate's `pkb_candidate_run` only: a non-constant
    /// integral argument as an expression over the ABI tensor sizes
    /// (`host:In[K].shape[D]`, `host:In[K].numel`, the same for `Out`),
    /// "rank",
    /// "world_size" and constants, following locals that the function
    /// never writes after their initialization (`N / 8 - 1` with `size_t N
    /// = In[0].shape[0]`); null when not expressible.
    ExprRef Host = {};
    /// Launches in `pkb_candidate_run` only: Host is null but the argument
    /// reads ctx->call_index (through locals, struct fields set once and
    /// helpers): its value may change from one call to the next in a way
    /// the model does not express (`L.HalfOff = (call_index & 1) ? Half :
    /// 0` with an unknown Half).
    bool CallDependent = false;
    /// Launches in `pkb_candidate_run` only: K when the argument is the
    /// output tensor's data pointer `Out[K].data` (casts aside), the only
    /// use of `Out[K].data` in the function, outside any loop, and `Out`
    /// is not used otherwise than through `Out[c].member` or as `Out[c]`
    /// given to a helper that reads only its metadata; -1 otherwise.
    int OutTensor = -1;
  };
  /// The arguments of a `k<<<...>>>(args)` launch in parameter order; empty
  /// for launch APIs whose arguments are a `void **` array. The engine binds
  /// the parameters of each distinct binding (docs/checkers.md, "Launch-site
  /// specialization").
  std::vector<Arg> Args;
  SourceLoc Loc;
  /// Host functions from which this launch is reached: the function that
  /// contains it and, transitively, the functions of the unit that call it.
  std::vector<std::string> HostCallers;
  /// The host condition under which the launch runs, over "rank" and
  /// "world_size" only (`if (ctx->rank == 0)`, `switch (ranks_per_node)
  /// case 4:` of a caller); null when unconditional or not expressible. The
  /// engine constrains every agent of this launch by it (docs/checkers.md,
  /// "Rank- and world-size-conditional launches").
  ExprRef Guard;
  /// What the launching function guarantees about the launch's own
  /// arguments, over "param:NAME" (the kernel parameters, "Args.n" for a
  /// field of a struct argument) and constants: the conditions of the
  /// enclosing `if` arms and the negated conditions of the preceding early
  /// returns (`if (n > cap) return 2;` gives `!(param:n > param:cap)`),
  /// where every name is an argument that the function does not change
  /// after its definition (a local never written after its initializer, a
  /// struct field set once; docs/checkers.md, "Launch-site
  /// specialization"). Parts that mention anything else are left out (the
  /// condition only gets weaker). Null when nothing is known.
  ExprRef ParamCond;
  /// Launches in `pkb_candidate_run` only: the conjunction of the
  /// conditions of the enclosing `if` arms and of the preceding early
  /// returns (`if (c) return v;`: !c) of the function, over the same names
  /// as Arg::Host. For an early return of a non-zero integer constant (the
  /// candidate refuses the call) the disjuncts of c that are not
  /// expressible are left out: assumed not to refuse (`N * 2 >
  /// ctx->symm[0].bytes`, a failed CUDA call). Null when unconditional.
  /// Meaningful only when HostCondKnown.
  ExprRef HostCond;
  /// True when HostCond expresses every such condition (no loop or switch
  /// around the launch, no statement before it that may return otherwise);
  /// false for launches outside `pkb_candidate_run`.
  bool HostCondKnown = false;
};

/// A load and the store that writes back the same lvalue in one
/// read-modify-write expression (indices into KernelModel::Events).
struct RmwPair {
  size_t Load = 0;
  size_t Store = 0;
};

/// Facts derived once per kernel by enrich() (pkb/Enrich.h) from the
/// events and roles, read by the checkers instead of re-deriving them.
/// docs/model-schema.md, "Facts", documents each rule.
struct KernelFacts {
  bool Done = false; ///< enrich() ran on this kernel.
  /// Bases used as synchronization flags (polled by a spin wait, or a
  /// SignalPad/SignalPadTable parameter), sorted.
  std::vector<std::string> FlagBases;
  /// Bases of symmetric (peer-visible) data, sorted.
  std::vector<std::string> SymBases;
  /// Flag bases that other ranks write or read, sorted.
  std::vector<std::string> CrossRankFlags;
  std::vector<size_t> Signals;          ///< Writes to flag bases.
  std::vector<size_t> Waits;            ///< SpinWait events.
  std::vector<size_t> SoftGridBarriers; ///< Waits on local flags others set.
  std::vector<RmwPair> RmwPairs;        ///< Plain read-modify-writes.
  /// Every visible launch has blockDim.y = blockDim.z = 1 (gridDim.y =
  /// gridDim.z = 1): enrich() replaced tid.y, tid.z by 0 and bdim.y, bdim.z
  /// by 1 (bid.y, bid.z, gdim.y, gdim.z) in the kernel's expressions.
  bool Block1D = false;
  bool Grid1D = false;
};

/// The model of one `__global__` function (or instantiation).
struct KernelModel {
  std::string Name; ///< Qualified name, with template args if any.
  SourceLoc Loc;
  std::vector<Param> Params;
  std::vector<Loop> Loops;
  std::vector<Event> Events;
  /// Shared-memory variables: name -> element size (bytes).
  std::vector<std::pair<std::string, unsigned>> SharedVars;
  /// Non-const `__device__` variables the kernel accesses, by name: global
  /// memory of this GPU that every thread of every block shares (a
  /// device-side call counter, a grid-barrier count).
  std::vector<std::string> DeviceVars;
  /// Launch sites in host code of the same file for this kernel.
  std::vector<LaunchSite> Launches;
  /// Front-end notes about approximations made (depth bound hit, ...).
  std::vector<std::string> Notes;
  /// Exact values of integer locals assigned more than once
  /// (docs/model-schema.md, "local_defs"): "local:NAME@DECL:LINE" (a suffix
  /// `.N` keeps repeated inlinings apart) -> the value assigned at source
  /// line LINE by an assignment that runs whenever the kernel or its
  /// inlined helper reaches it (no guard, loop or switch around it), or the
  /// `c ? a : b` of an `if` whose arms assign it (LINE is the `if`'s). The
  /// expressions read such a name between that assignment and the next;
  /// the checkers treat it as an unknown of the agent and substitute the
  /// value only to confirm a finding (chk::Analysis::refine()).
  std::map<std::string, ExprRef> LocalDefs;
  /// Derived facts (enrich()).
  KernelFacts Facts;

  const Param *findParam(const std::string &Name) const;
  const Loop *findLoop(unsigned Id) const;
  /// The parameter named \p Base, or the struct parameter it is a field of
  /// ("view.peers" -> "view").
  const Param *paramOf(const std::string &Base) const;
  /// True if \p E accesses CTA shared memory (space or a shared variable).
  bool isSharedAccess(const Event &E) const;
  /// True if \p E accesses a `__device__` variable (DeviceVars).
  bool isDeviceVarAccess(const Event &E) const;
};

/// One ordered host-side operation of a ParallelKernelBench-style Python
/// `solution()` or of a candidate's C++ `pkb_candidate_run`
/// (docs/candidate-abi.md; see docs/model-schema.md, "host operations").
struct HostOp {
  enum OpKind {
    SymmAlloc,  ///< symm_mem.empty(...)
    Rendezvous, ///< symm_mem.rendezvous(...)
    SymmWrite,  ///< buf.copy_/zero_/fill_, cudaMemcpy*/cudaMemset* into a
                ///< symmetric buffer or signal pad
    SymmRead,   ///< hdl.get_buffer(p, ...) of a peer p, read in place
                ///< (`.clone()`, an argument): a host-side read of peer
                ///< memory (Python); Target is the handle
    Barrier,    ///< hdl.barrier(...) or dist.barrier()
    KernelCall, ///< call into the compiled extension
    Collective, ///< dist.all_reduce & co (NCCL)
    Other,
  } Kind = Other;
  std::string Callee;            ///< e.g. "ext.allreduce", "hdl.barrier"
  std::string Target;            ///< buffer written / handle used
  std::vector<std::string> Args; ///< argument source texts
  SourceLoc Loc;
  /// Number of blocks (`if`, `for`, `with`, ...) of the host function that
  /// enclose the operation, counted from the entry function's body
  /// (helpers inlined at depth d add d); 0 = runs on every call.
  unsigned Depth = 0;
  /// Kernels this call may launch (KernelCall; set by enrich()): those with
  /// a launch site in the host function named by the callee's last
  /// component, else every kernel of the module. Launches of a candidate's
  /// C++ `pkb_candidate_run` name their kernel here from the front end.
  std::vector<std::string> Kernels;
  /// C++ host code only: the conditions of the enclosing `if` arms, as
  /// source text, an `else` arm as "!(" + text + ")"; two operations whose
  /// guards hold "c" and "!(c)" never run in the same call of one rank.
  std::vector<std::string> Guards;
  /// C++ host code only, parallel to Guards: the condition has the same
  /// value on every rank (it reads no rank, also not through locals, struct
  /// fields or helpers of the unit; addresses count as equal, see
  /// docs/frontend.md). Two launches under "c" and "!(c)" with c uniform
  /// never run in the same call on any two ranks.
  std::vector<bool> UniformGuards;
  /// C++ host code only: per kernel argument, the symmetric buffer it
  /// designates ("symm[0]", "symm[@call:<text>]" when the index depends on
  /// ctx->call_index, "signal_pad"), else empty. For a SymmWrite the
  /// buffer is in Target.
  std::vector<std::string> ArgBuffers;
  /// C++ cudaMemcpy* into a symmetric buffer only: K when the source is
  /// the input tensor's data `In[K].data` (casts aside), else -1.
  int SourceTensor = -1;
  /// C++ cudaMemcpy*/cudaMemset* into a symmetric buffer only: the byte
  /// count as an expression of fe::HostValues (`host:In[0].numel * 2`);
  /// null when not expressible.
  ExprRef Bytes;
  /// C++ cudaMemcpy*/cudaMemset* into a symmetric buffer only: the
  /// destination is the start of this rank's copy (`ctx->symm[i].local`,
  /// casts aside, no offset).
  bool AtBufferStart = false;
};

/// Everything known about one input file after the front end ran.
struct ModuleModel {
  std::string File;
  std::vector<KernelModel> Kernels;
  std::vector<HostOp> HostOps;
};

const char *toString(ParamRole R);
const char *toString(Scope S);
const char *toString(MemOrder O);
const char *toString(AddrSpace S);
const char *toString(EventKind K);
const char *toString(BarrierKind K);
const char *toString(RmwOp O);
const char *toString(CmpOp O);
/// Parses an AtomicOp spelling ("add", "cas", ...); Other if unknown,
/// None if empty.
RmwOp parseRmwOp(const std::string &S);
/// Parses a CompareOp spelling ("==", ">=", ...); None if not one.
CmpOp parseCmpOp(const std::string &S);
const char *toString(HostOp::OpKind K);

} // namespace pkb

#endif // PKB_MODEL_H
