//===- FrontendInternal.h - Shared pieces of the Clang front end -*- C++
//-*-===//
//
// Internal to pkb_frontend (analyzer/frontend/*.cpp): location mapping, the
// kernel model builder and the host launch-site scanner. Everything here uses
// Clang types; nothing here is installed or used outside the library.
// Compiled with -fno-rtti (Debian's LLVM): no dynamic_cast/typeid, only
// llvm::isa/dyn_cast.
//
//===----------------------------------------------------------------------===//
#ifndef PKB_FRONTEND_INTERNAL_H
#define PKB_FRONTEND_INTERNAL_H

#include "pkb/Frontend.h"
#include "pkb/Model.h"

#include "clang/AST/ASTContext.h"
#include "clang/AST/Decl.h"
#include "clang/AST/OperationKinds.h"
#include "clang/AST/Stmt.h"
#include "clang/Basic/SourceLocation.h"
#include "clang/Basic/SourceManager.h"
#include "llvm/ADT/STLFunctionalExtras.h"

#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace pkb::fe {

/// Maps Clang source locations to user positions. Locations in the main
/// (in-memory) file go through the unit's SourceMap, so CUDA extracted from a
/// .py file reports .py lines and columns; locations in headers report the
/// header's path and raw line/column. Macro locations use the expansion site.
class LocMapper {
public:
  LocMapper(const clang::SourceManager &SM, const CudaUnit &Unit)
      : SM(SM), Unit(Unit) {}

  SourceLoc map(clang::SourceLocation L) const;
  /// True if \p L (after macro expansion) lies in the main file.
  bool inMainFile(clang::SourceLocation L) const;
  /// Location of the start of the unit (line 1, column 1, mapped).
  SourceLoc unitStart() const;
  const CudaUnit &unit() const { return Unit; }

private:
  const clang::SourceManager &SM;
  const CudaUnit &Unit;
};

/// Builds the model of one __global__ function. \p Generic is true when \p FD
/// is an uninstantiated template pattern analyzed without template arguments
/// (dependent types and values are modeled as opaque). Never throws; never
/// crashes on invalid or dependent code. Notes about the input (an unknown
/// PTX instruction, code "ptx-unknown") go to \p Diags when it is given.
KernelModel buildKernelModel(clang::ASTContext &Ctx, const LocMapper &Map,
                             const FrontendOptions &Opts,
                             const clang::FunctionDecl *FD, bool Generic,
                             std::vector<pkb::Diagnostic> *Diags = nullptr);

/// One launch found in host code: the launched function (a template
/// specialization when template arguments were given) and the site.
struct FoundLaunch {
  const clang::FunctionDecl *Kernel = nullptr;
  LaunchSite Site;
};

/// Scans every function body of the translation unit for `k<<<...>>>`,
/// cudaLaunchKernel, cudaLaunchCooperativeKernel and cudaLaunchKernelEx.
/// Each launch lists its host callers: the enclosing function and every
/// function outside the system headers that reaches it through direct calls
/// (by name). With \p SkipPrecompiled the system-header declarations of the
/// precompiled headers are not visited (they hold no launch:
/// mayHoldLaunches), which gives the same launches without reading every
/// header function back from the PCH.
std::vector<FoundLaunch> collectLaunches(clang::ASTContext &Ctx,
                                         const LocMapper &Map,
                                         bool SkipPrecompiled = false);

/// True when some function body or template pattern of the translation
/// unit could yield a launch for collectLaunches, now or once instantiated:
/// a `<<<...>>>` call, a call to one of the launch functions (by name, also
/// unresolved) with an argument that may name a function or a non-type
/// template parameter, or a call through a non-type template parameter.
/// Checked once when the precompiled headers are built.
bool mayHoldLaunches(clang::ASTContext &Ctx);

/// True for a declaration read from the precompiled headers that lies in a
/// system header (or has no location): never a kernel of the unit, and
/// never a launch site when the headers passed mayHoldLaunches.
inline bool fromPrecompiledSystemHeader(const clang::Decl *D,
                                        const clang::SourceManager &SM) {
  if (!D || !D->isFromASTFile())
    return false;
  clang::SourceLocation L = D->getLocation();
  return L.isInvalid() || SM.isInSystemHeader(SM.getExpansionLoc(L));
}

/// Host operations of the candidate entry point `pkb_candidate_run`
/// (docs/candidate-abi.md) defined in the main file, in source order:
/// kernel launches and cudaMemcpy*/cudaMemset* into symmetric buffers or the
/// signal pad, with their enclosing `if` arms (HostOp::Guards). Empty when
/// the unit defines no such function.
std::vector<HostOp> collectCandidateHostOps(clang::ASTContext &Ctx,
                                            const LocMapper &Map);

/// \p E as a constant when Clang folds it to an integer, else null.
ExprRef foldedInt(const clang::Expr *E, clang::ASTContext &Ctx);

/// The model operator of a host integer or logic operator (+ - * / %, the
/// bitwise & | ^ << >>, comparisons, && and ||); nullopt for any other.
std::optional<ExprOp> hostBinaryOp(clang::BinaryOperatorKind K);

/// True if \p D is declared in a system header (the CUDA toolkit, the shims,
/// the C++ library), or has no location: calls to such functions are not
/// inlined.
bool inSystemHeader(const clang::ASTContext &Ctx, const clang::Decl *D);

/// True if \p S or a statement inside it is one of \p Ts (`containsStmt<
/// ForStmt, WhileStmt>(Body)`).
template <class... Ts> bool containsStmt(const clang::Stmt *S) {
  if (!S)
    return false;
  if (llvm::isa<Ts...>(S))
    return true;
  for (const clang::Stmt *C : S->children())
    if (containsStmt<Ts...>(C))
      return true;
  return false;
}

/// True if \p VD holds an integer (or enum) value, also through a
/// reference (`size_t &Lo`): the locals that LocalDefs names.
inline bool isIntegerVar(const clang::VarDecl *VD) {
  return VD->getType().getNonReferenceType()->isIntegralOrEnumerationType();
}

/// True if \p T is a reference to a non-const type (`size_t &`): a
/// parameter or variable of this type may assign what it is bound to.
bool isMutableRef(clang::QualType T);

/// Calls \p Fn with each argument of \p CE that binds to a reference
/// parameter of non-const type (`void blockRange(size_t n, size_t &Lo)`):
/// the arguments the callee may assign. Nothing for a call whose callee is
/// not known (a dependent or indirect call).
void forEachMutableRefArg(const clang::CallExpr *CE,
                          llvm::function_ref<void(const clang::Expr *)> Fn);

/// True if \p Body writes the local \p V (assignment, increment or
/// decrement, address taken).
bool writesLocal(const clang::VarDecl *V, const clang::Stmt *Body);

/// The value that field \p F of the local struct variable \p V of \p FD
/// holds at \p Use (an invalid location: anywhere after the definition):
/// the right-hand side of its only assignment `V.F = e`, when that
/// statement runs unconditionally (a statement of the body's compound
/// statements) before \p Use, or else its explicit aggregate initializer
/// (`S V{a, b}`). Null when the function may write V.F otherwise (compound
/// assignment, increment, address taken, a non-const reference) or V as a
/// whole (any use other than field accesses, copies and `&V` in an
/// initializer list: the argument array of cudaLaunchKernel).
const clang::Expr *fixedFieldValue(clang::ASTContext &Ctx,
                                   const clang::FunctionDecl *FD,
                                   const clang::VarDecl *V,
                                   const clang::FieldDecl *F,
                                   clang::SourceLocation Use);

/// True if the integral or struct global \p V that the main file defines
/// (field \p F of it; any part when null) is written only in
/// `pkb_candidate_setup` or `pkb_candidate_query` (which run once, before
/// the calls): its value is the same in every `pkb_candidate_run` call.
/// Writes are assignments, increments, the address taken, non-const
/// reference arguments and member calls on the object; a write in a helper
/// function (even one only setup calls) makes it false.
bool writtenOnlyInSetup(clang::ASTContext &Ctx, const clang::VarDecl *V,
                        const clang::FieldDecl *F);

/// Values of a candidate's `pkb_candidate_run(ctx, In, NumIn, Out, NumOut)`
/// (docs/candidate-abi.md) as model expressions over the tensor extents
/// ("host:In[K].shape[D]", "host:Out[K].shape[D]"), element counts
/// ("host:In[K].numel", "host:Out[K].numel", from a helper that multiplies
/// the extents), "rank", "world_size", the call counter `ctx->call_index`
/// ("host:call_index"), globals that only setup writes
/// ("host:fixed:NAME", "host:fixed:NAME.field": writtenOnlyInSetup()) and
/// constants, following locals that the function never writes after their
/// initialization, fields of local structs that it sets once
/// (fixedFieldValue()) and calls of helpers whose body is one `return e;`
/// (`padTo8(N)`) (docs/model-schema.md, launches[].args[].host).
class HostValues {
public:
  HostValues(clang::ASTContext &Ctx, const clang::FunctionDecl *Run)
      : Ctx(Ctx), Run(Run) {}
  /// True for a definition of pkb_candidate_run with the ABI's parameters.
  static bool isCandidateRun(const clang::FunctionDecl *FD);
  /// The parameter `In` (1) or `Out` (3) of the function.
  const clang::ParmVarDecl *tensors(unsigned Param) const {
    return Run->getParamDecl(Param);
  }
  /// K when \p E is `P[K]` with a constant K, else nullopt.
  std::optional<unsigned> tensorIndex(const clang::Expr *E,
                                      const clang::ParmVarDecl *P) const;
  /// K when \p E is `P[K].data` (casts aside), else nullopt.
  std::optional<unsigned> tensorData(const clang::Expr *E,
                                     const clang::ParmVarDecl *P) const;
  /// \p E as an integer expression (logic and comparisons yield 0/1); null
  /// when it mentions anything else.
  ExprRef value(const clang::Expr *E, unsigned Depth = 0);
  /// \p E as a condition (non-zero: true); null when not expressible.
  ExprRef cond(const clang::Expr *E);
  /// The initializer of a local of the function (not a parameter) that the
  /// function never writes after it; null otherwise.
  const clang::Expr *constLocalInit(const clang::DeclRefExpr *DR) const;
  /// True when \p E reads the call counter `ctx->call_index`: directly or
  /// through locals never written after their initialization, fields of
  /// local structs set once and helpers of the unit. For an argument whose
  /// value() is null this says it may change from one call to the next
  /// (`(call_index & 1) ? Half : 0` with an unknown Half).
  bool readsCallIndex(const clang::Stmt *E, unsigned Depth = 0) const;

private:
  static constexpr unsigned MaxDepth = 8;
  ExprRef tensorShape(const clang::Expr *E) const;
  bool isNumelFunction(const clang::FunctionDecl *FD);
  clang::ASTContext &Ctx;
  const clang::FunctionDecl *Run;
  std::map<const clang::FunctionDecl *, bool> NumelFns;
  /// The parameters of the one-return helper being evaluated (value()).
  std::map<const clang::ParmVarDecl *, ExprRef> Env;
};

/// Qualified name of \p FD including template arguments, e.g.
/// "ns::reduce<float, 4>".
std::string kernelName(const clang::FunctionDecl *FD);

/// True for a name that spells a rank ("rank", "my_rank", "local_rank",
/// ...; case and underscores ignored). Shared by the kernel parameter roles
/// and the host guards of launches.
bool isRankName(llvm::StringRef N);
/// True for a name that spells the world size ("world_size", "nranks",
/// "ranks_per_node", ...; case and underscores ignored).
bool isWorldName(llvm::StringRef N);

} // namespace pkb::fe

#endif // PKB_FRONTEND_INTERNAL_H
