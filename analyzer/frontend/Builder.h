//===- Builder.h - The kernel model builder (AST -> events) -----*- C++ -*-===//
//
// Internal to pkb_frontend. One Builder walks one __global__ function (and
// the __device__ functions it calls, inlined to FrontendOptions::InlineDepth)
// in program order and produces a KernelModel:
//   ExprBuilder.cpp   Clang expressions -> values (pkb::Expr and pointers),
//                     memory reads, atomics and intrinsics as events;
//   EventBuilder.cpp  statements: guards, loops, spin waits, returns, inline
//                     asm, inlining, and buildKernelModel();
//   RoleInference.cpp parameter roles (before and after the walk).
// Compiled with -fno-rtti: only llvm::isa/dyn_cast.
//
//===----------------------------------------------------------------------===//
#ifndef PKB_FRONTEND_BUILDER_H
#define PKB_FRONTEND_BUILDER_H

#include "FrontendInternal.h"

#include "clang/AST/Attr.h"
#include "clang/AST/Expr.h"
#include "clang/AST/ExprCXX.h"
#include "clang/AST/Stmt.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/DenseSet.h"

#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

namespace pkb::fe {

struct PtrChoice;

/// A symbolic pointer: Base[Peer] + Index elements of ElemBytes (+ bytes).
struct PtrVal {
  std::string Base;
  ExprRef Peer;
  ExprRef Index;      ///< In elements of ElemBytes; null = unknown.
  ExprRef ByteOffset; ///< Extra bytes from retyping casts, may be null.
  AddrSpace Space = AddrSpace::Unknown;
  unsigned ElemBytes = 0;
  /// The pointer designates a table of pointers/addresses (T**, int64_t*
  /// address tables, pkb_peer_view::peers): subscripting yields a peer
  /// pointer instead of a memory access.
  bool IsTable = false;
  /// Where the peer-table lookup that produced Peer was written.
  SourceLoc PeerLoc;
  /// Set when the pointer was read out of a local pointer array
  /// (PtrArray) at an index that selects several stored pointers: then
  /// Base/Peer/Space are unused and Index/ByteOffset/ElemBytes are relative
  /// to each alternative; every access through it becomes one event per
  /// alternative (Builder::expandChoices).
  std::shared_ptr<const PtrChoice> Choice;
};

/// A local array of pointers filled by the kernel (`T *Dst[8]; Dst[n++] =
/// p;`, `T *Src[1] = {x};`): the pointers stored into it, so that accesses
/// through `Dst[d]` reach the memory they designate.
struct PtrArray {
  struct Entry {
    std::optional<int64_t> Pos;  ///< Element index, when it is known.
    PtrVal P;                    ///< The stored pointer (no Choice).
    std::vector<ExprRef> Guard;  ///< currentGuard() at the store.
    std::vector<unsigned> Loops; ///< LoopStack at the store.
  };
  std::vector<Entry> Entries;
  size_t DeclLoops = 0;  ///< LoopStack.size() at the declaration.
  size_t DeclGuards = 0; ///< currentGuard().size() at the declaration.
  /// Position of the next append `Dst[n++] = p`, while it is known.
  std::optional<int64_t> Next = 0;
  /// Lower bound of every entry whose position is unknown (appends under a
  /// condition or in a loop, stores at a non-constant index): constant
  /// reads below it are exact.
  int64_t ExactBelow = INT64_MAX;
  /// Var name of the append counter (`local:n@LINE`) when every change of
  /// it is an append to this array and it starts at 0: a loop
  /// `for (d = 0; d < n; ++d)` then visits exactly the stored entries.
  std::string Counter;
};

/// One pointer that a PtrChoice may designate.
struct PtrAlt {
  PtrVal P;                       ///< Absolute pointer (no Choice).
  std::vector<ExprRef> Guard;     ///< Condition under which it is chosen.
  std::vector<unsigned> AddLoops; ///< Loops (clones) it iterates over.
};

/// The pointers a read `Dst[i]` of a PtrArray yields: one per alternative.
/// DropLoop is the loop `for (d = 0; d < n; ++d)` that enumerates the
/// entries (its iterations are replaced by the alternatives), or -1.
struct PtrChoice {
  std::vector<PtrAlt> Alts;
  int DropLoop = -1;
};

struct ObjFields;

/// The value of an expression: a scalar expression and, for pointers or
/// address-valued integers, the pointer it designates.
struct Val {
  Val() = default;
  Val(ExprRef E) : E(std::move(E)) {}
  Val(ExprRef E, std::optional<PtrVal> P) : E(std::move(E)), P(std::move(P)) {}

  ExprRef E;
  std::optional<PtrVal> P;
  /// For cuda::atomic_ref objects: the referenced location, width and scope.
  bool IsAtomicRef = false;
  Scope RefScope = Scope::System;
  /// For by-value struct parameters (pkb_peer_view & co): the kernel
  /// parameter name the struct came from, e.g. "view".
  std::string Record;
  /// For local arrays of pointers (and parameters bound to one): the
  /// pointers stored into the array, shared with the caller's local.
  std::shared_ptr<PtrArray> Arr;
  /// For local struct objects of device code (a channel or semaphore
  /// handle, `Ch.flag = ...`): the values of their fields set so far,
  /// shared with member functions called on the object (their `this`).
  std::shared_ptr<ObjFields> Obj;
};

/// The fields of a local struct object that device code has set
/// (Builder::setField()).
struct ObjFields {
  std::map<const clang::FieldDecl *, Val> F;
};

/// An inlining frame: bindings of parameters and locals.
struct Frame {
  const clang::FunctionDecl *FD = nullptr;
  std::map<const clang::ValueDecl *, Val> Vars;
  /// Locals assigned more than once (name -> all defs are this constant?).
  const std::map<const clang::VarDecl *, std::optional<int64_t>> *MultiDef =
      nullptr;
  size_t GuardBase = 0; ///< Guards.size() when the frame was entered.
  std::vector<ExprRef> ReturnConds; ///< Negated conditions of early returns.
  bool Dead = false;                ///< After an unconditional return.
  std::optional<Val> Ret;
  unsigned Returns = 0;
  /// Locals whose last assignment read memory: the event index of the read.
  std::map<const clang::VarDecl *, int> LoadedFrom;
  /// For an inlined member function: the fields of the local object it was
  /// called on (`this->flag`), or the flattened by-value parameter struct
  /// ("A") whose fields `this->f` names.
  std::shared_ptr<ObjFields> This;
  std::string ThisRecord;
  /// Reference parameters bound to an integer local of the caller
  /// (`blockRange(n, Lo, Hi)`): the callee assigns them like locals, and
  /// callUser() copies their final values back.
  std::set<const clang::ParmVarDecl *> OutParams;
  /// Guards of the enclosing `if` arms of this frame that are if-converted
  /// (Builder::convertibleIf()): assignments under them have exact values.
  size_t ArmGuards = 0;
  /// LoopStack.size() and Jumps.size() when the frame was entered: a frame
  /// entered in a loop body runs once per iteration, and its locals are
  /// fresh in each.
  size_t LoopBase = 0, JumpBase = 0;
};

/// State of the condition of a loop being evaluated (spin-wait detection).
struct CondCtx {
  int PolledEvent = -1; ///< Index in Events of the polled load/atomic.
  /// Body of a for/while loop whose condition is evaluated: a local loaded
  /// from memory before the loop is polled only if the body reassigns it
  /// (otherwise the condition is loop-invariant: `for (e...; e < len; ...)`).
  const clang::Stmt *Body = nullptr;
};

class Builder {
public:
  /// \p Diags, when given, receives notes about the kernel's input that
  /// are no parse errors (an unknown PTX instruction in inline asm).
  Builder(clang::ASTContext &Ctx, const LocMapper &Map,
          const FrontendOptions &Opts, bool Generic,
          std::vector<pkb::Diagnostic> *Diags = nullptr)
      : Ctx(Ctx), Map(Map), Opts(Opts), Generic(Generic), Diags(Diags) {}

  KernelModel build(const clang::FunctionDecl *FD);

  // --- ExprBuilder.cpp ---------------------------------------------------
  /// Evaluates \p E in program order, emitting its memory events.
  Val eval(const clang::Expr *E);
  ExprRef rv(const clang::Expr *E) { return eval(E).E; }
  /// The memory location an lvalue designates, if it is memory (not a
  /// local variable); emits events of subexpressions.
  std::optional<PtrVal> lvalue(const clang::Expr *E);
  /// Pointer value of a pointer-typed (or address-valued) expression.
  std::optional<PtrVal> pointer(const clang::Expr *E);
  std::optional<PtrVal> arrayBase(const clang::Expr *E);
  /// The pointer value read from the pointer-typed glvalue \p S.
  std::optional<PtrVal> readPointer(const clang::Expr *S);
  /// Reads a class-typed glvalue (copy construction / assignment source):
  /// a Load of the whole object if it is memory; else eval().
  Val recordRead(const clang::Expr *E);
  /// eval() for everything but plain pointer expressions.
  Val evalOther(const clang::Expr *E);
  /// Constant value of \p E if Clang can fold it.
  std::optional<int64_t> constant(const clang::Expr *E) const;
  unsigned sizeOf(clang::QualType T) const;
  unsigned pointeeSize(clang::QualType T) const;
  std::string text(const clang::Stmt *S) const;
  Address toAddress(const PtrVal &P) const;
  /// Emits a Load/Store of \p P with the access type \p T.
  void emitAccess(EventKind K, const PtrVal &P, clang::QualType T,
                  const clang::Stmt *At, ExprRef Value = nullptr);
  /// The value a memory read yields ("polled" in a loop condition).
  ExprRef loadValue(const clang::Expr *E, int EventIndex);

  // --- PtrArrays.cpp -----------------------------------------------------
  /// True if \p T is an array of pointers (a PtrArray candidate).
  static bool isPtrArrayType(clang::QualType T);
  /// Declares the local pointer array \p VD (with its initializer list).
  Val declarePtrArray(const clang::VarDecl *VD);
  /// Handles `Arr[i] = p` when Arr is a PtrArray; false if \p Lhs is not
  /// an element of one.
  bool storePtrArray(const clang::Expr *Lhs, const clang::Expr *Rhs);
  /// The PtrArray that \p Base (an array or pointer expression) designates.
  std::shared_ptr<PtrArray> ptrArrayOf(const clang::Expr *Base);
  /// The pointer read by `Arr[i]` from a PtrArray, if the index selects
  /// known entries (a constant, or the enumerating loop variable).
  std::optional<PtrVal> readPtrArray(const clang::ArraySubscriptExpr *AS);
  /// Replaces every event whose address came from a PtrChoice by one event
  /// per alternative (end of build()).
  void expandChoices();
  /// Choices referenced by the events' addresses (base ChoiceTag + index)
  /// with the element size of the relative index; filled by toAddress().
  mutable std::vector<std::pair<std::shared_ptr<const PtrChoice>, unsigned>>
      Choices;

  // --- EventBuilder.cpp --------------------------------------------------
  Event &emit(EventKind K, const clang::Stmt *At);
  void stmt(const clang::Stmt *S);
  /// Inlines or records a call to a user function; returns its value.
  Val callUser(const clang::CallExpr *CE, const clang::FunctionDecl *Callee);
  void asmStmt(const clang::GCCAsmStmt *A);
  std::vector<ExprRef> currentGuard() const;
  Frame &frame() { return Frames.back(); }
  const std::map<const clang::VarDecl *, std::optional<int64_t>> &
  multiDefs(const clang::FunctionDecl *FD);

  // Exact values of locals assigned more than once (KernelModel::LocalDefs).
  /// True if \p VD holds a value in the current frame: a local, or an
  /// out-parameter (Frame::OutParams).
  bool isValueLocal(const clang::VarDecl *VD);
  /// True if \p E is the name of an exact value (a LocalDefs entry).
  bool isExactName(const ExprRef &E) const;
  /// The value of \p VD that stands for "some value it was assigned": the
  /// constant all of its assignments store, else `local:NAME@DECL`.
  ExprRef localUnknown(const clang::VarDecl *VD);
  /// True if an assignment here runs whenever the current frame or the
  /// innermost loop body of the frame reaches it (straightLine()) and \p VD
  /// is an integer value local whose address does not escape and that is
  /// fresh there: declared in that loop body, or a local of a frame
  /// entered in a loop (an out-parameter is not). Its value is then exact
  /// until the next assignment, within one iteration.
  bool exactAssignment(const clang::VarDecl *VD);
  /// True if the current point runs whenever the innermost loop body of
  /// the current frame, or the frame itself when no loop of it encloses the
  /// point, reaches it, or whenever the if-converted arms around it are
  /// taken: no other guard since that body or frame began, no switch, not
  /// after a jump (or a conditional break or continue of that loop) or a
  /// return.
  bool straightLine() const;
  /// True if the integer locals assigned in \p If's arms are if-converted:
  /// the `if` is at a straightLine() point and no arm jumps out.
  bool convertibleIf(const clang::IfStmt *If) const;
  /// The current values of the frame's integer value locals.
  std::map<const clang::ValueDecl *, ExprRef> intLocalValues();
  /// Records \p V as the value of \p VD assigned at \p At (LocalDefs) and
  /// returns the variable that names it; null when \p V is no expression
  /// the model can name (opaque, a polled value).
  ExprRef defineLocal(const clang::VarDecl *VD, const ExprRef &V,
                      clang::SourceLocation At);
  /// Before a loop: locals of the frame that \p Loop may assign lose the
  /// exact value they had on entry (the reads of later iterations see
  /// another).
  void forgetAssignedIn(const clang::Stmt *Loop);
  /// The start of a loop `for (; i < n; i += s)` that continues \p VD: its
  /// value before the loop when exactly known (a LocalDefs name or a
  /// constant), else null (the loop is then no induction loop).
  ExprRef carriedStart(const clang::VarDecl *VD);
  /// The value of the induction variable \p VD after the counted loop \p F
  /// (model loop \p L: `i < b` or `i <= b`, ascending, step s): with start
  /// i0, `i0 < b ? i0 + s * ((b - i0 + s - 1) / s) : i0`. Null when the
  /// variable does not outlive the loop, the body may assign it or leave
  /// the loop early (break, goto), or the start, bound or step reads a
  /// loop variable, a polled or an opaque value.
  ExprRef exitValue(const clang::ForStmt *F, const clang::VarDecl *VD,
                    const Loop &L);
  /// After a call that was not inlined: the locals it may assign through
  /// non-const references are unknowns.
  void forgetRefArgs(const clang::CallExpr *CE);
  /// Drops the LocalDefs that no event, loop or other used definition
  /// reads.
  void pruneLocalDefs();

  // --- RoleInference.cpp -------------------------------------------------
  void inferRoles(const clang::FunctionDecl *FD);
  void refineRoles();
  /// Var for a kernel parameter (rank/world_size/param:NAME), or for a
  /// field of a by-value ABI struct parameter.
  ExprRef paramValue(const clang::ParmVarDecl *P) const;
  /// The value of `S.FIELD` for a flattened struct S (recordRoot()): the
  /// rank or world size for fields named so, a table or buffer pointer
  /// `param:S.FIELD` for pointer and array-of-pointer fields, else the
  /// variable `param:S.FIELD`; nullopt when S is no flattened struct.
  std::optional<Val> fieldValue(const clang::MemberExpr *ME);
  /// The field set of the local object that \p Base (`Ch` or `this`)
  /// designates, created for a local struct variable when \p Create; null
  /// when \p Base is no tracked local object.
  std::shared_ptr<ObjFields> objectOf(const clang::Expr *Base, bool Create);
  /// `Obj.F op= R` on a tracked local object (`Ch.flag = p`,
  /// `this->count += 1`): records the field's new value; false when \p L
  /// is not a field of such an object.
  bool setField(const clang::Expr *L, clang::BinaryOperatorKind Op,
                const Val &R);
  /// The flattened name of a struct value: a record variable's Record
  /// ("A"), or a by-value struct field of one ("A.view", one level, as
  /// addFieldParams() lists them); nullopt else.
  std::optional<std::string> recordRoot(const clang::Expr *E);
  /// Parameters for the fields of a struct parameter (RoleInference.cpp).
  void addFieldParams(const Param &Owner, const clang::RecordDecl *Def,
                      const std::string &What, unsigned Depth);
  void scanTables(const clang::Stmt *S, unsigned Depth,
                  std::set<const clang::FunctionDecl *> &Seen);

  // --- Intrinsics.cpp ----------------------------------------------------
  /// Calls: barriers, fences, atomics, atomic_ref, cooperative groups,
  /// cache-hinted loads/stores, or user functions (inlined).
  Val call(const clang::CallExpr *CE);
  /// call() before the out-parameters of a call that was not inlined are
  /// forgotten.
  Val callImpl(const clang::CallExpr *CE);
  Val atomicBuiltin(const clang::AtomicExpr *AE);
  /// Scope and width if \p T is a cuda::atomic_ref / cuda::std::atomic_ref.
  bool atomicRefInfo(clang::QualType T, Scope &S, unsigned &Width) const;
  Val declRef(const clang::ValueDecl *D, const clang::Expr *At);
  /// The value read from glvalue \p S, the operand of the lvalue-to-rvalue
  /// conversion \p E (emits the Load; `c ? a[i] : b[j]` per branch).
  Val readLValue(const clang::Expr *S, const clang::Expr *E);
  void bindLocal(const clang::VarDecl *VD, Val V);

  clang::ASTContext &Ctx;
  const LocMapper &Map;
  const FrontendOptions &Opts;
  bool Generic;
  std::vector<pkb::Diagnostic> *Diags;
  KernelModel K;
  std::vector<Frame> Frames;
  std::vector<ExprRef> Guards;
  std::vector<unsigned> LoopStack;
  std::vector<std::string> InlineStack;
  std::vector<CondCtx *> Conds; ///< Innermost last.
  std::map<const clang::ParmVarDecl *, ParamRole> KernelRoles;
  std::set<std::string> AddrTables; ///< Bases used as int->pointer tables.
  /// Parameters (of the kernel or of callees) subscripted and cast to a
  /// pointer: address tables.
  std::set<const clang::ParmVarDecl *> TableParms;
  bool Jumped = false; ///< After break/continue in the current block.
  /// A loop or switch body that `break`/`continue` leave.
  struct JumpScope {
    size_t GuardBase = 0; ///< Guards.size() when the body was entered.
    bool IsSwitch = false;
    /// Negated conditions of conditional break/continue seen so far: later
    /// events of the body execute only when none of them was taken.
    std::vector<ExprRef> Conds;
    /// The loop statement (null for a switch).
    const clang::Stmt *Loop = nullptr;
    /// Frame::ArmGuards when the body was entered.
    size_t ArmBase = 0;
  };
  std::vector<JumpScope> Jumps; ///< Innermost last.
  int LastLoad = -1;            ///< Index of the last memory read emitted.
  std::map<const clang::FunctionDecl *,
           std::map<const clang::VarDecl *, std::optional<int64_t>>>
      MultiDefCache;
  /// Per function: locals whose address escapes (multiDefs() fills it).
  std::map<const clang::FunctionDecl *, std::set<const clang::VarDecl *>>
      EscapedCache;
  /// Calls that callUser() inlined (their out-parameters were copied back).
  std::set<const clang::CallExpr *> Inlined;
  unsigned Budget = 200000; ///< Events + visits, against pathological input.
};

/// Address base prefix of an event whose pointer is a PtrChoice (replaced by
/// Builder::expandChoices before the model leaves the builder).
extern const char ChoiceTag[];

/// Small folding constructors.
ExprRef mkAdd(ExprRef A, ExprRef B);
ExprRef mkSub(ExprRef A, ExprRef B);
ExprRef mkMul(ExprRef A, ExprRef B);
ExprRef mkNot(ExprRef A);
ExprRef mkAnd(const std::vector<ExprRef> &Xs);

} // namespace pkb::fe

#endif // PKB_FRONTEND_BUILDER_H
