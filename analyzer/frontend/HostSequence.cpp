//===- HostSequence.cpp - Host operations of pkb_candidate_run ------------===//
//
// Walks the body of a candidate's `pkb_candidate_run` (docs/candidate-abi.md)
// in source order and records the operations that matter for cross-call
// reasoning (BAR-004, HOST-001), like the Python extractor does for a
// ParallelKernelBench `solution()`:
//   - `k<<<...>>>(args)`: KernelCall, Kernels = {k}, ArgBuffers per argument;
//   - cudaMemcpy*/cudaMemset* whose destination is a symmetric buffer
//     (ctx->symm[i].local, ctx->view.peers) or the signal pad: SymmWrite
//     with Target = the buffer.
// Each operation records the `if` arms that enclose it (HostOp::Guards) and
// its nesting depth. A buffer index is followed through local variables to
// its initializer: a constant names the buffer ("symm[1]"), an index that
// depends on ctx->call_index is a per-call buffer ("symm[@call:...]").
//
//===----------------------------------------------------------------------===//

#include "FrontendInternal.h"

#include "clang/AST/Expr.h"
#include "clang/AST/ExprCXX.h"
#include "clang/AST/Stmt.h"
#include "clang/AST/StmtCXX.h"
#include "clang/Lex/Lexer.h"

namespace pkb::fe {

using namespace clang;

namespace {

/// Source text of \p E (expansion range), "?" when unavailable.
std::string textOf(ASTContext &Ctx, const clang::Expr *E) {
  const SourceManager &SM = Ctx.getSourceManager();
  CharSourceRange CR = Lexer::makeFileCharRange(
      CharSourceRange::getTokenRange(E->getSourceRange()), SM,
      Ctx.getLangOpts());
  std::string T =
      CR.isValid() ? Lexer::getSourceText(CR, SM, Ctx.getLangOpts()).str() : "";
  return T.empty() ? "?" : T;
}

/// Local variable that \p E names, if any (with an initializer).
const VarDecl *localVar(const clang::Expr *E) {
  if (const auto *DR = dyn_cast<DeclRefExpr>(E->IgnoreParenImpCasts()))
    if (const auto *VD = dyn_cast<VarDecl>(DR->getDecl()))
      if (VD->hasLocalStorage() && VD->getInit())
        return VD;
  return nullptr;
}

/// True if \p E reads `call_index`, directly or through local variables.
bool mentionsCallIndex(const Stmt *S, unsigned Depth = 0) {
  if (!S || Depth > 6)
    return false;
  if (const auto *ME = dyn_cast<MemberExpr>(S))
    if (ME->getMemberDecl()->getName() == "call_index")
      return true;
  if (const auto *E = dyn_cast<clang::Expr>(S))
    if (const VarDecl *VD = localVar(E))
      if (mentionsCallIndex(VD->getInit(), Depth + 1))
        return true;
  for (const Stmt *C : S->children())
    if (mentionsCallIndex(C, Depth))
      return true;
  return false;
}

class HostWalker {
public:
  HostWalker(ASTContext &Ctx, const LocMapper &Map, const FunctionDecl *Run)
      : Ctx(Ctx), Map(Map), Run(Run), Values(Ctx, Run) {}

  std::vector<HostOp> Ops;

  void walk(const Stmt *S, unsigned Depth) {
    if (!S)
      return;
    if (const auto *If = dyn_cast<IfStmt>(S)) {
      if (If->getInit())
        walk(If->getInit(), Depth);
      walk(If->getCond(), Depth);
      std::string C = textOf(Ctx, If->getCond());
      Guards.push_back(C);
      Uniform.push_back(!mayDifferAcrossRanks(If->getCond()));
      walk(If->getThen(), Depth + 1);
      Guards.back() = "!(" + C + ")";
      walk(If->getElse(), Depth + 1);
      Guards.pop_back();
      Uniform.pop_back();
      return;
    }
    if (isa<ForStmt, WhileStmt, DoStmt, CXXForRangeStmt, SwitchStmt>(S)) {
      for (const Stmt *C : S->children())
        walk(C, Depth + 1);
      return;
    }
    if (const auto *KC = dyn_cast<CUDAKernelCallExpr>(S)) {
      kernelCall(KC, Depth);
      return;
    }
    if (const auto *CE = dyn_cast<CallExpr>(S))
      copyOrSet(CE, Depth);
    for (const Stmt *C : S->children())
      walk(C, Depth);
  }

private:
  ASTContext &Ctx;
  const LocMapper &Map;
  const FunctionDecl *Run; ///< pkb_candidate_run
  HostValues Values;       ///< its values
  std::vector<std::string> Guards;
  std::vector<bool> Uniform; ///< parallel to Guards: HostOp::UniformGuards

  /// True when \p S may have a different value on different ranks: it
  /// reads a member named like the rank (isRankName()), a global that is
  /// not a constant, a local that is written after its initializer (or has
  /// none), a field of a local struct that is not set once
  /// (fixedFieldValue()), or calls a function without a body in the unit.
  /// Parameters count as equal (those of pkb_candidate_run are the context
  /// and the tensors; a helper's are checked at the call), and so do
  /// addresses: data pointers and symmetric buffers differ between ranks
  /// but every rank allocates the same shapes, so the alignment tests that
  /// host code makes of them agree. Calls are followed into their bodies.
  bool mayDifferAcrossRanks(const Stmt *S, unsigned Depth = 0) {
    if (!S)
      return false;
    if (Depth > 8)
      return true;
    if (const auto *ME = dyn_cast<MemberExpr>(S)) {
      const ValueDecl *D = ME->getMemberDecl();
      if (D->getIdentifier() && isRankName(D->getName()))
        return true;
      const auto *DR =
          dyn_cast<DeclRefExpr>(ME->getBase()->IgnoreParenImpCasts());
      const auto *V =
          DR && !ME->isArrow() ? dyn_cast<VarDecl>(DR->getDecl()) : nullptr;
      if (V && V->hasLocalStorage() && !isa<ParmVarDecl>(V) &&
          V->getType()->isRecordType()) {
        const clang::Expr *X =
            fixedFieldValue(Ctx, dyn_cast<FunctionDecl>(V->getDeclContext()), V,
                            dyn_cast<FieldDecl>(D), ME->getBeginLoc());
        return !X || mayDifferAcrossRanks(X, Depth + 1);
      }
      return mayDifferAcrossRanks(ME->getBase(), Depth + 1);
    }
    if (const auto *DR = dyn_cast<DeclRefExpr>(S)) {
      const auto *V = dyn_cast<VarDecl>(DR->getDecl());
      if (!V || isa<ParmVarDecl>(V))
        return false; // functions, enumerators, parameters
      if (V->hasLocalStorage()) {
        const auto *FD = dyn_cast<FunctionDecl>(V->getDeclContext());
        if (!FD || !FD->hasBody() || !V->getInit() ||
            V->getType()->isRecordType() || writesLocal(V, FD->getBody()))
          return true;
        return mayDifferAcrossRanks(V->getInit(), Depth + 1);
      }
      return !(V->getType().isConstQualified() && V->getInit()) ||
             mayDifferAcrossRanks(V->getInit(), Depth + 1);
    }
    if (const auto *CE = dyn_cast<CallExpr>(S)) {
      const FunctionDecl *Def = nullptr;
      const FunctionDecl *Callee = CE->getDirectCallee();
      if (!Callee || !Callee->hasBody(Def) || !Def ||
          mayDifferAcrossRanks(Def->getBody(), Depth + 1))
        return true;
    }
    for (const Stmt *C : S->children())
      if (mayDifferAcrossRanks(C, Depth))
        return true;
    return false;
  }

  HostOp make(HostOp::OpKind K, std::string Callee, const clang::Expr *At,
              unsigned Depth) {
    HostOp Op;
    Op.Kind = K;
    Op.Callee = std::move(Callee);
    Op.Loc = Map.map(At->getBeginLoc());
    Op.Depth = Depth;
    Op.Guards = Guards;
    Op.UniformGuards = Uniform;
    return Op;
  }

  /// The symmetric buffer that pointer expression \p E designates, or "".
  std::string bufferOf(const clang::Expr *E, unsigned Depth = 0) {
    if (!E || Depth > 6)
      return "";
    E = E->IgnoreParenCasts();
    if (const auto *CC = dyn_cast<CXXConstructExpr>(E)) // by-value copy
      return CC->getNumArgs() == 1 ? bufferOf(CC->getArg(0), Depth + 1) : "";
    if (const auto *MT = dyn_cast<MaterializeTemporaryExpr>(E))
      return bufferOf(MT->getSubExpr(), Depth + 1);
    if (const auto *BO = dyn_cast<BinaryOperator>(E))
      if (BO->isAdditiveOp())
        return BO->getLHS()->getType()->isPointerType()
                   ? bufferOf(BO->getLHS(), Depth + 1)
                   : bufferOf(BO->getRHS(), Depth + 1);
    if (const auto *AS = dyn_cast<ArraySubscriptExpr>(E))
      return bufferOf(AS->getBase(), Depth + 1);
    if (const VarDecl *VD = localVar(E))
      return bufferOf(VD->getInit(), Depth + 1);
    const auto *ME = dyn_cast<MemberExpr>(E);
    if (!ME)
      return "";
    llvm::StringRef N = ME->getMemberDecl()->getName();
    if (N == "signal_pad" || N == "signal_pads")
      return "signal_pad";
    if (N == "view")
      return "symm[0]";
    const clang::Expr *Base = ME->getBase()->IgnoreParenImpCasts();
    if ((N == "local" || N == "peers" || N == "peers_host") &&
        isa<ArraySubscriptExpr>(Base)) {
      const auto *AS = cast<ArraySubscriptExpr>(Base);
      const auto *Arr =
          dyn_cast<MemberExpr>(AS->getBase()->IgnoreParenImpCasts());
      if (!Arr || Arr->getMemberDecl()->getName() != "symm")
        return "";
      return "symm[" + indexKey(AS->getIdx()) + "]";
    }
    if (N == "peers" || N == "signal_pads") // view.peers / view.signal_pads
      return bufferOf(ME->getBase(), Depth + 1);
    return "";
  }

  /// A constant index, "@call:<text>" when it depends on the call counter,
  /// else the index's source text.
  std::string indexKey(const clang::Expr *I) {
    clang::Expr::EvalResult R;
    if (!I->isValueDependent() && I->EvaluateAsInt(R, Ctx) && R.Val.isInt())
      return std::to_string(R.Val.getInt().getExtValue());
    if (const VarDecl *VD = localVar(I))
      if (VD->getType().isConstQualified() || !mentionsCallIndex(I))
        if (VD->getInit()->EvaluateAsInt(R, Ctx) && R.Val.isInt())
          return std::to_string(R.Val.getInt().getExtValue());
    if (mentionsCallIndex(I))
      return "@call:" + textOf(Ctx, I);
    return textOf(Ctx, I);
  }

  void kernelCall(const CUDAKernelCallExpr *KC, unsigned Depth) {
    const FunctionDecl *K = KC->getDirectCallee();
    if (!K)
      return;
    HostOp Op = make(HostOp::KernelCall, kernelName(K), KC, Depth);
    Op.Kernels.push_back(Op.Callee);
    for (const clang::Expr *A : KC->arguments()) {
      Op.Args.push_back(textOf(Ctx, A));
      Op.ArgBuffers.push_back(bufferOf(A));
    }
    Ops.push_back(std::move(Op));
  }

  /// The variable that a symbol argument names: `g` or `&g`.
  static const DeclRefExpr *symbolRef(const clang::Expr *E) {
    E = E->IgnoreParenCasts();
    if (const auto *U = dyn_cast<UnaryOperator>(E))
      if (U->getOpcode() == UO_AddrOf)
        E = U->getSubExpr()->IgnoreParenCasts();
    return dyn_cast<DeclRefExpr>(E);
  }

  void copyOrSet(const CallExpr *CE, unsigned Depth) {
    const FunctionDecl *FD = CE->getDirectCallee();
    if (!FD || !FD->getIdentifier() || CE->getNumArgs() == 0)
      return;
    llvm::StringRef N = FD->getName();
    if (N == "cudaMemcpyToSymbol" || N == "cudaMemcpyToSymbolAsync" ||
        N == "cudaGetSymbolAddress") {
      // The host writes (or may write, through the address) a __device__
      // variable: SIG-002 must not take a device-kept epoch as constant.
      unsigned SymArg = N == "cudaGetSymbolAddress" ? 1 : 0;
      if (CE->getNumArgs() > SymArg)
        if (const auto *DR = symbolRef(CE->getArg(SymArg))) {
          HostOp Op = make(HostOp::Other, N.str(), CE, Depth);
          Op.Target = "symbol:" + DR->getDecl()->getName().str();
          for (const clang::Expr *A : CE->arguments())
            Op.Args.push_back(textOf(Ctx, A));
          Ops.push_back(std::move(Op));
        }
      return;
    }
    if (!N.starts_with("cudaMemcpy") && !N.starts_with("cudaMemset"))
      return;
    std::string B = bufferOf(CE->getArg(0));
    if (B.empty())
      return;
    HostOp Op = make(HostOp::SymmWrite, N.str(), CE, Depth);
    Op.Target = B;
    for (const clang::Expr *A : CE->arguments())
      Op.Args.push_back(textOf(Ctx, A));
    // cudaMemcpy*(dst, src, count, ...), cudaMemset*(dst, value, count, ...)
    if (CE->getNumArgs() >= 3 && HostValues::isCandidateRun(Run)) {
      if (N.starts_with("cudaMemcpy") && !N.contains("Peer"))
        if (std::optional<unsigned> K =
                Values.tensorData(CE->getArg(1), Values.tensors(1)))
          Op.SourceTensor = static_cast<int>(*K);
      Op.Bytes = Values.value(CE->getArg(2));
      const auto *Dst = dyn_cast<MemberExpr>(CE->getArg(0)->IgnoreParenCasts());
      Op.AtBufferStart = Dst && Dst->getMemberDecl()->getIdentifier() &&
                         Dst->getMemberDecl()->getName() == "local";
    }
    Ops.push_back(std::move(Op));
  }
};

} // namespace

std::vector<HostOp> collectCandidateHostOps(ASTContext &Ctx,
                                            const LocMapper &Map) {
  std::vector<const FunctionDecl *> Fns;
  for (const Decl *D : Ctx.getTranslationUnitDecl()->decls()) {
    if (const auto *LS = dyn_cast<LinkageSpecDecl>(D)) {
      for (const Decl *In : LS->decls())
        if (const auto *F = dyn_cast<FunctionDecl>(In))
          Fns.push_back(F);
    } else if (const auto *F = dyn_cast<FunctionDecl>(D)) {
      Fns.push_back(F);
    }
  }
  for (const FunctionDecl *FD : Fns) {
    if (!FD->getIdentifier() || FD->getName() != "pkb_candidate_run" ||
        !FD->doesThisDeclarationHaveABody() ||
        !Map.inMainFile(FD->getLocation()))
      continue;
    HostWalker W(Ctx, Map, FD);
    W.walk(FD->getBody(), 0);
    return std::move(W.Ops);
  }
  return {};
}

} // namespace pkb::fe
