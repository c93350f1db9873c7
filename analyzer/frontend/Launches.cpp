//===- Launches.cpp - Kernel launch sites in host code --------------------===//
//
// Finds `k<<<grid, block, smem, stream>>>`, cudaLaunchKernel,
// cudaLaunchCooperativeKernel (Cooperative = true) and cudaLaunchKernelEx in
// every function body of the unit (host wrappers of .cu files and of the
// CUDA strings of PKB .py files). Grid and block are dim3 expressions:
// constants fold, dim3 locals are followed to their initializer, anything
// else is kept as Opaque source text.
//
//===----------------------------------------------------------------------===//

#include "FrontendInternal.h"

#include "clang/AST/ExprCXX.h"
#include "clang/AST/ParentMapContext.h"
#include "clang/AST/RecursiveASTVisitor.h"
#include "clang/Lex/Lexer.h"

#include <algorithm>
#include <map>
#include <optional>
#include <set>

namespace pkb::fe {

using namespace clang;

namespace {

/// The name a call refers to, resolved or not (a dependent call in a
/// template pattern); "" when it has none.
std::string calleeName(const CallExpr *CE) {
  if (const FunctionDecl *FD = CE->getDirectCallee())
    return FD->getIdentifier() ? FD->getName().str() : "";
  const clang::Expr *C = CE->getCallee();
  if (!C)
    return "";
  C = C->IgnoreParenImpCasts();
  if (const auto *O = dyn_cast<OverloadExpr>(C))
    return O->getName().getAsString();
  if (const auto *D = dyn_cast<CXXDependentScopeMemberExpr>(C))
    return D->getMember().getAsString();
  if (const auto *D = dyn_cast<DependentScopeDeclRefExpr>(C))
    return D->getDeclName().getAsString();
  if (const auto *M = dyn_cast<MemberExpr>(C))
    return M->getMemberDecl()->getNameAsString();
  return "";
}

bool isLaunchFunction(llvm::StringRef N) {
  return N == "cudaLaunchKernel" || N == "cudaLaunchCooperativeKernel" ||
         N == "cudaLaunchKernelEx" || N == "cudaLaunchKernelExC";
}

/// \p E less parentheses, casts and unary operators (`&k`, `(void *)k`):
/// what a launch's kernel argument names.
const clang::Expr *stripToName(const clang::Expr *E) {
  while (E) {
    E = E->IgnoreParenCasts();
    if (const auto *U = dyn_cast<UnaryOperator>(E)) {
      E = U->getSubExpr();
      continue;
    }
    break;
  }
  return E;
}

/// True when \p E, less parentheses, casts and unary operators, may name a
/// function: a function, an overload set or a non-type template parameter.
bool mayNameFunction(const clang::Expr *E) {
  E = stripToName(E);
  if (!E)
    return false;
  if (isa<SubstNonTypeTemplateParmExpr, OverloadExpr,
          DependentScopeDeclRefExpr>(E))
    return true;
  if (const auto *DR = dyn_cast<DeclRefExpr>(E))
    return isa<FunctionDecl, NonTypeTemplateParmDecl>(DR->getDecl());
  return false;
}

/// Looks for anything that collectLaunches could report (mayHoldLaunches).
class LaunchShapes : public RecursiveASTVisitor<LaunchShapes> {
public:
  bool shouldVisitTemplateInstantiations() const { return true; }
  bool Found = false;
  bool VisitCUDAKernelCallExpr(CUDAKernelCallExpr *) {
    Found = true;
    return false;
  }
  bool VisitCallExpr(CallExpr *CE) {
    const clang::Expr *C =
        CE->getCallee() ? CE->getCallee()->IgnoreParenImpCasts() : nullptr;
    const auto *DR = dyn_cast_or_null<DeclRefExpr>(C);
    if (isa_and_nonnull<SubstNonTypeTemplateParmExpr>(C) ||
        (DR && isa<NonTypeTemplateParmDecl>(DR->getDecl()))) {
      Found = true; // a call through a template parameter
      return false;
    }
    if (!isLaunchFunction(calleeName(CE)))
      return true;
    for (const clang::Expr *A : CE->arguments())
      if (mayNameFunction(A)) {
        Found = true;
        return false;
      }
    return true;
  }
};

class LaunchFinder : public RecursiveASTVisitor<LaunchFinder> {
public:
  LaunchFinder(ASTContext &Ctx, const LocMapper &Map, bool SkipPrecompiled)
      : Ctx(Ctx), Map(Map), SkipPrecompiled(SkipPrecompiled) {}
  bool shouldVisitTemplateInstantiations() const { return true; }

  bool VisitCUDAKernelCallExpr(CUDAKernelCallExpr *CE) {
    const FunctionDecl *K = CE->getDirectCallee();
    const CallExpr *Cfg = CE->getConfig();
    if (!K || !Cfg)
      return true;
    if (FoundLaunch *F =
            add(K, Cfg->getNumArgs() > 0 ? Cfg->getArg(0) : nullptr,
                Cfg->getNumArgs() > 1 ? Cfg->getArg(1) : nullptr, false, CE))
      bindArgs(*F, K,
               std::vector<const clang::Expr *>(CE->arg_begin(), CE->arg_end()),
               CE);
    return true;
  }

  /// Records the arguments \p As of launch \p F of kernel \p K at \p At,
  /// in parameter order (null entries: not known, skipped). A struct passed
  /// by value from a local variable also binds its scalar and pointer
  /// fields ("Args.n"), as the kernel model flattens them, with the values
  /// the launching function gives them (fixedFieldValue()).
  void bindArgs(FoundLaunch &F, const FunctionDecl *K,
                const std::vector<const clang::Expr *> &As, const Stmt *At) {
    for (unsigned I = 0; I < As.size() && I < K->getNumParams(); ++I) {
      const clang::Expr *A = As[I];
      if (!A)
        continue;
      std::string Name = K->getParamDecl(I)->getName().str();
      ArgsOf[&F - Out.data()].push_back({Name, A});
      F.Site.Args.push_back(
          {Name,
           A->getType()->isIntegralOrEnumerationType() ? argValue(A) : nullptr,
           sourceText(A->IgnoreImpCasts())});
      if (HostValues::isCandidateRun(CurrentFD))
        candidateArg(F.Site.Args.back(), A);
      bindFields(F, Name, A, At);
    }
  }

  /// The variable that argument \p A names or copies: `v`, `(v)`, the copy
  /// construction of a by-value struct argument; null otherwise.
  static const VarDecl *copiedVar(const clang::Expr *A) {
    const clang::Expr *X = A->IgnoreImplicit()->IgnoreParens();
    if (const auto *C = dyn_cast<CXXConstructExpr>(X);
        C && C->getNumArgs() == 1)
      X = C->getArg(0)->IgnoreImplicit()->IgnoreParens();
    const auto *DR = dyn_cast<DeclRefExpr>(X->IgnoreParenImpCasts());
    return DR ? dyn_cast<VarDecl>(DR->getDecl()) : nullptr;
  }

  /// bindArgs() for the fields of a struct argument \p A of parameter
  /// \p Name: the local variable it copies, one level of fields.
  void bindFields(FoundLaunch &F, const std::string &Name, const clang::Expr *A,
                  const Stmt *At) {
    const VarDecl *V = copiedVar(A);
    const RecordDecl *RD = V && V->getType()->isRecordType()
                               ? V->getType()->getAsRecordDecl()
                               : nullptr;
    if (!RD || !(RD = RD->getDefinition()) || !CurrentFD)
      return;
    for (const FieldDecl *Fd : RD->fields()) {
      QualType T = Fd->getType();
      if (!Fd->getIdentifier() ||
          !(T->isIntegralOrEnumerationType() || T->isPointerType()))
        continue;
      const clang::Expr *E =
          fixedFieldValue(Ctx, CurrentFD, V, Fd, At->getBeginLoc());
      if (!E)
        continue;
      F.Site.Args.push_back(
          {Name + "." + Fd->getName().str(),
           T->isIntegralOrEnumerationType() ? argValue(E) : nullptr,
           sourceText(E->IgnoreImpCasts())});
      if (HostValues::isCandidateRun(CurrentFD))
        candidateArg(F.Site.Args.back(), E);
    }
  }

  /// The kernel arguments that the `void **args` array \p E of
  /// cudaLaunchKernel / cudaLaunchCooperativeKernel points at: for a local
  /// array initialized with `{&a, (void *)&b, ...}`, the expressions a, b;
  /// an element of another shape gives a null entry. Empty when \p E is not
  /// such an array.
  std::vector<const clang::Expr *> argArray(const clang::Expr *E) const {
    std::vector<const clang::Expr *> R;
    const auto *DR =
        E ? dyn_cast<DeclRefExpr>(E->IgnoreParenImpCasts()) : nullptr;
    const auto *V = DR ? dyn_cast<VarDecl>(DR->getDecl()) : nullptr;
    if (!V || !V->hasLocalStorage() || !V->getType()->isArrayType() ||
        !V->getInit())
      return R;
    const auto *IL = dyn_cast<InitListExpr>(V->getInit()->IgnoreImplicit());
    if (!IL)
      return R;
    for (const clang::Expr *I : IL->inits()) {
      const auto *U =
          dyn_cast_or_null<UnaryOperator>(I ? I->IgnoreParenCasts() : nullptr);
      R.push_back(U && U->getOpcode() == UO_AddrOf ? U->getSubExpr() : nullptr);
    }
    return R;
  }

  /// Arg::Host and Arg::OutTensor of argument \p E of a launch in
  /// pkb_candidate_run.
  void candidateArg(LaunchSite::Arg &A, const clang::Expr *E) {
    HostValues HV(Ctx, CurrentFD);
    if (E->getType()->isIntegralOrEnumerationType()) {
      if (!A.Value || A.Value->Op != ExprOp::Const) {
        A.Host = HV.value(E);
        A.CallDependent = !A.Host && HV.readsCallIndex(E);
      }
      return;
    }
    std::optional<unsigned> K = HV.tensorData(E, HV.tensors(3));
    if (!K)
      return;
    const OutUses &U = outUses(CurrentFD);
    auto It = U.Data.find(*K);
    if (!U.Escapes && It != U.Data.end() && It->second == 1)
      A.OutTensor = static_cast<int>(*K);
  }

  /// How pkb_candidate_run uses its `Out` parameter.
  struct OutUses {
    std::map<unsigned, unsigned> Data; ///< K -> uses of `Out[K].data`
    bool Escapes = false; ///< `Out` used other than as `Out[c].member`
  };

  /// How `Out` is used in pkb_candidate_run \p FD (cached).
  const OutUses &outUses(const FunctionDecl *FD) {
    auto [It, New] = OutUsesOf.try_emplace(FD);
    if (!New)
      return It->second;
    HostValues HV(Ctx, FD);
    const ParmVarDecl *P = HV.tensors(3);
    struct Walk : RecursiveASTVisitor<Walk> {
      const HostValues &F;
      const ParmVarDecl *P;
      OutUses &U;
      unsigned Refs = 0, Members = 0;
      Walk(const HostValues &F, const ParmVarDecl *P, OutUses &U)
          : F(F), P(P), U(U) {}
      bool VisitDeclRefExpr(DeclRefExpr *DR) {
        Refs += DR->getDecl() == P;
        return true;
      }
      bool VisitMemberExpr(MemberExpr *M) {
        if (!F.tensorIndex(M->getBase(), P))
          return true;
        ++Members;
        if (std::optional<unsigned> K = F.tensorData(M, P))
          ++U.Data[*K];
        return true;
      }
      /// `f(Out[c])` with a helper that only reads the tensor's metadata
      /// (`numel(Out[0])`, `isBf16(Out[0])`) is no use of its data.
      bool VisitCallExpr(CallExpr *CE) {
        const FunctionDecl *Fn = CE->getDirectCallee();
        const FunctionDecl *Def = nullptr;
        if (!Fn || !Fn->hasBody(Def) || !Def)
          return true;
        for (unsigned I = 0; I < CE->getNumArgs() && I < Def->getNumParams();
             ++I)
          if (F.tensorIndex(CE->getArg(I), P) &&
              readsOnlyMetadata(Def, Def->getParamDecl(I)))
            ++Members;
        return true;
      }
    } W(HV, P, It->second);
    W.TraverseStmt(FD->getBody());
    It->second.Escapes = W.Refs != W.Members;
    return It->second;
  }

  /// True if \p Fn takes the tensor \p T by value or by const reference
  /// and never names its `data` member (nor passes it on).
  static bool readsOnlyMetadata(const FunctionDecl *Fn, const ParmVarDecl *T) {
    QualType Ty = T->getType();
    if (Ty->isReferenceType() && !Ty.getNonReferenceType().isConstQualified())
      return false;
    struct Uses : RecursiveASTVisitor<Uses> {
      const ParmVarDecl *T;
      unsigned Refs = 0, Meta = 0;
      explicit Uses(const ParmVarDecl *T) : T(T) {}
      bool VisitDeclRefExpr(DeclRefExpr *DR) {
        Refs += DR->getDecl() == T;
        return true;
      }
      bool VisitMemberExpr(MemberExpr *M) {
        const auto *DR =
            dyn_cast<DeclRefExpr>(M->getBase()->IgnoreParenImpCasts());
        if (DR && DR->getDecl() == T && M->getMemberDecl()->getIdentifier() &&
            M->getMemberDecl()->getName() != "data")
          ++Meta;
        return true;
      }
    } U(T);
    U.TraverseStmt(Fn->getBody());
    return U.Refs == U.Meta;
  }

  /// True if \p S holds a `return` (outside lambdas).
  static bool mayReturn(const Stmt *S) {
    if (!S || isa<LambdaExpr>(S))
      return false;
    if (isa<ReturnStmt>(S))
      return true;
    for (const Stmt *C : S->children())
      if (mayReturn(C))
        return true;
    return false;
  }

  /// A non-zero integer constant returned by `if (c) return v;` (\p If,
  /// no else): the candidate refuses the call.
  bool refusal(const IfStmt *If) {
    const Stmt *T = If->getThen();
    if (const auto *B = dyn_cast<CompoundStmt>(T))
      T = B->size() == 1 ? B->body_front() : nullptr;
    const auto *R = dyn_cast_or_null<ReturnStmt>(T);
    const clang::Expr *V = R ? R->getRetValue() : nullptr;
    clang::Expr::EvalResult X;
    return V && !V->isValueDependent() && V->EvaluateAsInt(X, Ctx) &&
           X.Val.isInt() && !X.Val.getInt().isZero();
  }

  /// What the candidate's refusal `if (c) return v;` (v a non-zero
  /// constant) leaves for the calls it accepts: !c, where each disjunct of
  /// c that HostValues::cond() cannot express is left out (assumed not to
  /// refuse: capacity checks against `ctx->symm[i].bytes`, which the harness
  /// sizes from pkb_candidate_query, and failed CUDA calls); null when nothing
  /// is left.
  ExprRef refusalNeg(const clang::Expr *E, const FunctionDecl *FD,
                     unsigned Depth) {
    if (!E || Depth > MaxGuardDepth)
      return nullptr;
    E = E->IgnoreParenCasts();
    if (const auto *B = dyn_cast<BinaryOperator>(E))
      if (B->getOpcode() == BO_LOr)
        return mkAnd2(refusalNeg(B->getLHS(), FD, Depth + 1),
                      refusalNeg(B->getRHS(), FD, Depth + 1));
    ExprRef C = HostValues(Ctx, FD).cond(E);
    return C ? Expr::unary(ExprOp::LNot, C) : nullptr;
  }

  /// Sets HostCond and HostCondKnown of launch \p F at \p S in
  /// pkb_candidate_run \p FD; a launch in a loop also loses its
  /// Arg::OutTensor (one use of the tensor, several kernel calls).
  void candidateCond(FoundLaunch &F, const Stmt *S, const FunctionDecl *FD) {
    ExprRef R;
    bool Known = true;
    walkUp(S, [&](const Stmt *P, const Stmt *C) {
      if (isa<ForStmt, WhileStmt, DoStmt, CXXForRangeStmt, SwitchStmt,
              LambdaExpr>(P)) {
        Known = false;
        for (LaunchSite::Arg &A : F.Site.Args)
          A.OutTensor = -1;
      } else if (const auto *If = dyn_cast<IfStmt>(P)) {
        ExprRef Cd = HostValues(Ctx, FD).cond(If->getCond());
        if (!Cd || (C != If->getThen() && C != If->getElse()))
          Known = false;
        else
          R = mkAnd2(R,
                     C == If->getThen() ? Cd : Expr::unary(ExprOp::LNot, Cd));
      } else if (const auto *CS = dyn_cast<CompoundStmt>(P)) {
        for (const Stmt *X : CS->body()) {
          if (X == C)
            break;
          if (!mayReturn(X))
            continue;
          const auto *If = dyn_cast<IfStmt>(X);
          if (!If || If->getElse() || If->getInit() ||
              If->getConditionVariable()) {
            Known = false;
            break;
          }
          if (refusal(If)) {
            R = mkAnd2(R, refusalNeg(If->getCond(), FD, 0));
            continue;
          }
          ExprRef Cd = mayReturn(If->getCond())
                           ? nullptr
                           : HostValues(Ctx, FD).cond(If->getCond());
          if (!Cd) {
            Known = false;
            break;
          }
          R = mkAnd2(R, Expr::unary(ExprOp::LNot, Cd));
        }
      }
      return true; // on to the top: a loop further up still counts
    });
    F.Site.HostCondKnown = Known;
    F.Site.HostCond = Known ? R : nullptr;
  }

  /// Tracks the function whose body is being visited (launch callers).
  bool TraverseDecl(Decl *D) {
    if (SkipPrecompiled &&
        fromPrecompiledSystemHeader(D, Ctx.getSourceManager()))
      return true;
    const auto *FD = dyn_cast_or_null<FunctionDecl>(D);
    if (!FD || !FD->getIdentifier())
      return RecursiveASTVisitor::TraverseDecl(D);
    std::string Saved = std::move(Current);
    const FunctionDecl *SavedFD = CurrentFD;
    bool SavedSystem = CurrentInSystemHeader;
    Current = FD->getName().str();
    CurrentFD = FD;
    const SourceManager &SM = Ctx.getSourceManager();
    CurrentInSystemHeader =
        FD->getLocation().isValid() &&
        SM.isInSystemHeader(SM.getExpansionLoc(FD->getLocation()));
    bool R = RecursiveASTVisitor::TraverseDecl(D);
    Current = std::move(Saved);
    CurrentFD = SavedFD;
    CurrentInSystemHeader = SavedSystem;
    return R;
  }

  bool VisitCallExpr(CallExpr *CE) {
    if (isa<CUDAKernelCallExpr>(CE))
      return true;
    const FunctionDecl *FD = CE->getDirectCallee();
    if (!FD || !FD->getIdentifier())
      return true;
    llvm::StringRef N = FD->getName();
    // Callers in system headers do not count: a header function that calls
    // a name the unit also uses is no host caller of the unit's launches.
    if (!Current.empty() && !CurrentInSystemHeader)
      CallersOf[N.str()].insert(Current);
    if (CurrentFD)
      CallSites[FD].push_back({CE, CurrentFD});
    bool Coop = N == "cudaLaunchCooperativeKernel";
    if (Coop || N == "cudaLaunchKernel") {
      const FunctionDecl *K =
          CE->getNumArgs() >= 3 ? kernelOf(CE->getArg(0)) : nullptr;
      if (FoundLaunch *F =
              K ? add(K, CE->getArg(1), CE->getArg(2), Coop, CE) : nullptr;
          F && CE->getNumArgs() >= 4)
        bindArgs(*F, K, argArray(CE->getArg(3)), CE);
    } else if (N == "cudaLaunchKernelEx" || N == "cudaLaunchKernelExC") {
      const FunctionDecl *K =
          CE->getNumArgs() >= 2 ? kernelOf(CE->getArg(1)) : nullptr;
      // The template form passes the kernel's arguments after it.
      if (FoundLaunch *F = K ? add(K, nullptr, nullptr, false, CE) : nullptr;
          F && N == "cudaLaunchKernelEx")
        bindArgs(*F, K,
                 std::vector<const clang::Expr *>(CE->arg_begin() + 2,
                                                  CE->arg_end()),
                 CE);
    }
    return true;
  }

  std::vector<FoundLaunch> Out;

private:
  static const FunctionDecl *kernelOf(const clang::Expr *E) {
    E = stripToName(E);
    if (const auto *DR = dyn_cast_or_null<DeclRefExpr>(E))
      return dyn_cast<FunctionDecl>(DR->getDecl());
    return nullptr;
  }

  /// A kernel argument: scalar(), and for a local variable of the
  /// launching function that the function never writes after its
  /// initialization, the folded initializer (`uint32_t Epoch = 1;`).
  ExprRef argValue(const clang::Expr *E) {
    ExprRef R = scalar(E);
    if (!R || R->Op != ExprOp::Opaque || !CurrentFD || !CurrentFD->hasBody())
      return R;
    const auto *DR = dyn_cast<DeclRefExpr>(E->IgnoreParenImpCasts());
    const auto *VD = DR ? dyn_cast<VarDecl>(DR->getDecl()) : nullptr;
    if (!VD || !VD->hasLocalStorage() || isa<ParmVarDecl>(VD) ||
        !VD->getInit() || VD->getType()->isReferenceType())
      return R;
    clang::Expr::EvalResult V;
    if (VD->getInit()->isValueDependent() ||
        !VD->getInit()->EvaluateAsInt(V, Ctx) || !V.Val.isInt())
      return R;
    return writesLocal(VD, CurrentFD->getBody())
               ? R
               : Expr::constant(V.Val.getInt().getExtValue());
  }

  ExprRef scalar(const clang::Expr *E) {
    if (!E)
      return nullptr;
    if (isa<CXXDefaultArgExpr>(E))
      return Expr::constant(1);
    if (!E->isValueDependent() && !E->isTypeDependent() &&
        E->getType()->isIntegralOrEnumerationType()) {
      clang::Expr::EvalResult R;
      if (E->EvaluateAsInt(R, Ctx) && R.Val.isInt())
        return Expr::constant(R.Val.getInt().getExtValue());
    }
    std::string T = sourceText(E);
    return Expr::opaque(T.empty() ? "?" : T);
  }

  /// The source text of \p E as written ("" when it has no file range).
  std::string sourceText(const clang::Expr *E) const {
    const SourceManager &SM = Ctx.getSourceManager();
    CharSourceRange CR = Lexer::makeFileCharRange(
        CharSourceRange::getTokenRange(E->getSourceRange()), SM,
        Ctx.getLangOpts());
    return CR.isValid() ? Lexer::getSourceText(CR, SM, Ctx.getLangOpts()).str()
                        : std::string();
  }

  void dims(const clang::Expr *E, ExprRef &X, ExprRef &Y, ExprRef &Z,
            unsigned Depth = 0) {
    if (!E || Depth > 8)
      return;
    const clang::Expr *S = E->IgnoreImplicit()->IgnoreParens();
    while (true) {
      if (const auto *F = dyn_cast<CXXFunctionalCastExpr>(S))
        S = F->getSubExpr()->IgnoreImplicit()->IgnoreParens();
      else if (const auto *M = dyn_cast<MaterializeTemporaryExpr>(S))
        S = M->getSubExpr()->IgnoreImplicit()->IgnoreParens();
      else
        break;
    }
    if (const auto *C = dyn_cast<CXXConstructExpr>(S)) {
      if (C->getNumArgs() == 1 && C->getArg(0)->getType()->isRecordType()) {
        dims(C->getArg(0), X, Y, Z, Depth + 1);
        return;
      }
      X = C->getNumArgs() > 0 ? scalar(C->getArg(0)) : Expr::constant(1);
      Y = C->getNumArgs() > 1 ? scalar(C->getArg(1)) : Expr::constant(1);
      Z = C->getNumArgs() > 2 ? scalar(C->getArg(2)) : Expr::constant(1);
      return;
    }
    if (const auto *DR = dyn_cast<DeclRefExpr>(S))
      if (const auto *VD = dyn_cast<VarDecl>(DR->getDecl()))
        if (VD->getType()->isRecordType() && VD->getInit()) {
          dims(VD->getInit(), X, Y, Z, Depth + 1);
          return;
        }
    if (S->getType()->isIntegralOrEnumerationType()) {
      X = scalar(S);
      Y = Z = Expr::constant(1);
      return;
    }
    X = scalar(S);
  }

  /// Records a launch of \p K at \p At; returns it, or null when \p K is
  /// unknown or the launch was already recorded.
  FoundLaunch *add(const FunctionDecl *K, const clang::Expr *Grid,
                   const clang::Expr *Block, bool Coop, const CallExpr *At) {
    if (!K)
      return nullptr;
    SourceLoc L = Map.map(At->getBeginLoc());
    auto Key = std::make_tuple(K->getCanonicalDecl(), L.File, L.Line, L.Col);
    if (!Seen.insert(Key).second)
      return nullptr;
    FoundLaunch F;
    F.Kernel = K;
    Where.push_back({At, CurrentFD});
    ArgsOf.emplace_back();
    F.Site.Kernel = kernelName(K);
    F.Site.Cooperative = Coop;
    F.Site.Loc = L;
    if (!Current.empty())
      F.Site.HostCallers.push_back(Current);
    dims(Grid, F.Site.GridX, F.Site.GridY, F.Site.GridZ);
    dims(Block, F.Site.BlockX, F.Site.BlockY, F.Site.BlockZ);
    Out.push_back(std::move(F));
    return &Out.back();
  }

public:
  /// Extends each launch's HostCallers with every function of the unit
  /// that reaches the enclosing function through direct calls.
  void closeCallers() {
    for (FoundLaunch &F : Out) {
      std::vector<std::string> &C = F.Site.HostCallers;
      for (size_t I = 0; I < C.size(); ++I) {
        auto It = CallersOf.find(C[I]);
        if (It == CallersOf.end())
          continue;
        for (const std::string &Caller : It->second)
          if (std::find(C.begin(), C.end(), Caller) == C.end())
            C.push_back(Caller);
      }
    }
  }

  /// Sets each launch's Guard: the conditions of the enclosing `if` arms,
  /// `switch` cases and early returns of its function, and (for a function
  /// only this unit can call: a template instantiation or internal linkage)
  /// the disjunction of the guards of its call sites, transitively.
  void computeGuards() {
    if (Out.empty())
      return;
    // localGuard() walks up the AST through Clang's parent map, built over
    // the context's traversal scope: by default the whole unit, so its
    // first use deserialized every declaration of the precompiled toolkit
    // headers (a third of a file's analysis time). The walk never leaves
    // the function it starts in, or the functions enclosing a lambda, so
    // the map is built over the top-level declarations that hold them:
    // the same parents for every node the walk visits.
    // A launch or call outside any named function (in a lambda at
    // namespace scope, `auto f = [] { ... };`, reached only through its
    // variable's initializer) keeps the whole unit as the scope.
    std::vector<Decl *> Saved = Ctx.getTraversalScope();
    std::vector<Decl *> Tops;
    bool WholeUnit = false;
    auto AddTop = [&](const FunctionDecl *FD) {
      if (!FD) {
        WholeUnit = true;
        return;
      }
      const Decl *Top = FD;
      for (const DeclContext *DC = Top->getLexicalDeclContext();
           DC && !isa<TranslationUnitDecl>(DC); DC = DC->getLexicalParent())
        Top = Decl::castFromDeclContext(DC);
      Decl *T = const_cast<Decl *>(Top);
      if (std::find(Tops.begin(), Tops.end(), T) == Tops.end())
        Tops.push_back(T);
    };
    for (const auto &[S, FD] : Where)
      AddTop(FD);
    for (const auto &[Callee, Calls] : CallSites)
      for (const auto &[Call, Caller] : Calls)
        AddTop(Caller);
    if (!WholeUnit)
      Ctx.setTraversalScope(Tops);
    for (size_t I = 0; I < Out.size(); ++I) {
      std::set<const FunctionDecl *> Active;
      Out[I].Site.Guard = mkAnd2(localGuard(Where[I].first, Where[I].second),
                                 callerGuard(Where[I].second, Active));
      if (HostValues::isCandidateRun(Where[I].second))
        candidateCond(Out[I], Where[I].first, Where[I].second);
      Out[I].Site.ParamCond = paramCond(I);
    }
    if (!WholeUnit)
      Ctx.setTraversalScope(Saved);
  }

private:
  /// Maximum depth of host call chains followed for guards.
  static constexpr unsigned MaxGuardDepth = 8;

  static ExprRef mkAnd2(ExprRef A, ExprRef B) {
    if (!A)
      return B;
    if (!B)
      return A;
    return Expr::binary(ExprOp::LAnd, std::move(A), std::move(B));
  }
  /// Disjunction; null (true) when either side is unknown.
  static ExprRef mkOr2(ExprRef A, ExprRef B) {
    if (!A || !B)
      return nullptr;
    return Expr::binary(ExprOp::LOr, std::move(A), std::move(B));
  }

  /// True when only this unit can call \p FD: an implicit template
  /// instantiation or a function with internal linkage.
  static bool unitOnly(const FunctionDecl *FD) {
    return FD->getTemplateSpecializationKind() == TSK_ImplicitInstantiation ||
           !FD->isExternallyVisible();
  }

  /// The condition (over rank and world size) under which some call of
  /// \p FD in the unit runs; null (true) when unknown or unconditional.
  ExprRef callerGuard(const FunctionDecl *FD,
                      std::set<const FunctionDecl *> &Active) {
    if (!FD || !unitOnly(FD) || Active.size() >= MaxGuardDepth ||
        !Active.insert(FD).second)
      return nullptr;
    auto It = CallSites.find(FD);
    ExprRef R;
    bool First = true;
    if (It != CallSites.end())
      for (const auto &[Call, Caller] : It->second) {
        ExprRef G =
            mkAnd2(localGuard(Call, Caller), callerGuard(Caller, Active));
        R = First ? G : mkOr2(R, G);
        First = false;
        if (!R)
          break;
      }
    Active.erase(FD);
    return First ? nullptr : R;
  }

  /// The conditions of the `if` arms, `switch` cases and preceding early
  /// returns (`if (c) return;`) that enclose \p S in the body of \p FD.
  ExprRef localGuard(const Stmt *S, const FunctionDecl *FD) {
    ExprRef R;
    walkUp(S, [&](const Stmt *P, const Stmt *C) {
      if (const auto *If = dyn_cast<IfStmt>(P)) {
        if (C == If->getThen())
          R = mkAnd2(R, cond(If->getCond(), true, FD, 0));
        else if (C == If->getElse())
          R = mkAnd2(R, cond(If->getCond(), false, FD, 0));
      } else if (const auto *CS = dyn_cast<CompoundStmt>(P)) {
        auto Parents = Ctx.getParents(*CS);
        const auto *Sw =
            Parents.empty() ? nullptr : Parents[0].get<SwitchStmt>();
        if (Sw && Sw->getBody() == CS)
          R = mkAnd2(R, caseGuard(Sw, CS, C, FD));
        else
          R = mkAnd2(R, earlyReturns(CS, C, FD));
      }
      return true;
    });
    return R;
  }

  /// Calls \p Visit(parent, child) for \p S and each statement above it
  /// in its function (at most 256 steps), until \p Visit returns false.
  template <typename F> void walkUp(const Stmt *S, F Visit) {
    DynTypedNode Cur = DynTypedNode::create(*S);
    for (unsigned Steps = 0; Steps < 256; ++Steps) {
      auto Ps = Ctx.getParents(Cur);
      if (Ps.empty())
        return;
      const Stmt *P = Ps[0].get<Stmt>();
      // `cudaError_t E = cudaLaunchKernel(...);`: from the initializer
      // through its local variable on to the DeclStmt.
      if ((!P && Ps[0].get<VarDecl>()) || (P && Cur.get<VarDecl>())) {
        Cur = Ps[0];
        continue;
      }
      const Stmt *C = Cur.get<Stmt>();
      if (!P || !C || !Visit(P, C))
        return;
      Cur = Ps[0];
    }
  }

  /// \p X when it is an early return `if (c) return ...;`: no else, the
  /// then-branch a return or a block holding only one; null otherwise.
  static const IfStmt *earlyReturn(const Stmt *X) {
    const auto *If = dyn_cast<IfStmt>(X);
    if (!If || If->getElse())
      return nullptr;
    const Stmt *T = If->getThen();
    if (const auto *B = dyn_cast<CompoundStmt>(T))
      T = B->size() == 1 ? B->body_front() : nullptr;
    return T && isa<ReturnStmt>(T) ? If : nullptr;
  }

  /// For \p C, a child of the compound \p CS: the negated conditions of
  /// the statements before it of the form `if (c) return ...;` (no else).
  ExprRef earlyReturns(const CompoundStmt *CS, const Stmt *C,
                       const FunctionDecl *FD) {
    ExprRef R;
    for (const Stmt *X : CS->body()) {
      if (X == C)
        break;
      if (const IfStmt *If = earlyReturn(X))
        R = mkAnd2(R, cond(If->getCond(), false, FD, 0));
    }
    return R;
  }

  /// For \p C, a child of the body \p CS of switch \p Sw: the disjunction
  /// of `cond == v` over the case labels that reach it (labels before
  /// earlier statements count while control can fall through to C); null
  /// for a `default:` or an inexpressible condition.
  ExprRef caseGuard(const SwitchStmt *Sw, const CompoundStmt *CS, const Stmt *C,
                    const FunctionDecl *FD) {
    ExprRef V = value(Sw->getCond(), FD, 0);
    if (!V)
      return nullptr;
    std::vector<const Stmt *> Body(CS->body_begin(), CS->body_end());
    auto It = std::find(Body.begin(), Body.end(), C);
    if (It == Body.end())
      return nullptr;
    ExprRef R;
    bool Any = false;
    for (size_t I = It - Body.begin() + 1; I-- > 0;) {
      const Stmt *X = Body[I];
      bool Label = false;
      while (const auto *SC = dyn_cast<SwitchCase>(X)) {
        Label = true;
        const auto *Case = dyn_cast<CaseStmt>(SC);
        if (!Case || Case->getRHS())
          return nullptr; // default: or a GNU case range
        ExprRef L = value(Case->getLHS(), FD, 0);
        if (!L)
          return nullptr;
        ExprRef Eq = Expr::binary(ExprOp::Eq, V, L);
        R = Any ? mkOr2(R, Eq) : Eq;
        Any = true;
        X = SC->getSubStmt();
      }
      // Control reaches the label only from the switch when the statement
      // before it cannot fall through.
      if (Label && (I == 0 || isa<BreakStmt>(Body[I - 1]) ||
                    isa<ReturnStmt>(Body[I - 1])))
        return R;
    }
    return Any ? R : nullptr;
  }

  /// A condition that \p E implies (Pos) or that !E implies (!Pos): `!`,
  /// `&&` and `||` are walked here (a && b implies both, !(a || b) both
  /// negations; a disjunct that is not expressible makes the disjunction
  /// true), and each other operand becomes `Leaf(operand, Depth)` as is (a
  /// comparison) or compared with 0. With \p FollowBoolLocals, a bool
  /// local of \p FD never written after its initializer is replaced by
  /// it. Null (true) when nothing is expressible.
  template <typename LeafFn>
  ExprRef condOver(const clang::Expr *E, bool Pos, const FunctionDecl *FD,
                   unsigned Depth, bool FollowBoolLocals, const LeafFn &Leaf) {
    if (!E || Depth > MaxGuardDepth)
      return nullptr;
    E = E->IgnoreParenCasts();
    auto Sub = [&](const clang::Expr *X, bool P) {
      return condOver(X, P, FD, Depth + 1, FollowBoolLocals, Leaf);
    };
    if (const auto *U = dyn_cast<UnaryOperator>(E))
      if (U->getOpcode() == UO_LNot)
        return Sub(U->getSubExpr(), !Pos);
    const auto *B = dyn_cast<BinaryOperator>(E);
    if (B && (B->getOpcode() == BO_LAnd || B->getOpcode() == BO_LOr)) {
      ExprRef L = Sub(B->getLHS(), Pos);
      ExprRef R = Sub(B->getRHS(), Pos);
      return (B->getOpcode() == BO_LAnd) == Pos ? mkAnd2(L, R) : mkOr2(L, R);
    }
    if (const auto *DR = dyn_cast<DeclRefExpr>(E); DR && FollowBoolLocals)
      if (const clang::Expr *Init = constLocalInit(DR, FD))
        if (Init->getType()->isBooleanType())
          return Sub(Init, Pos);
    bool IsCmp = B && B->isComparisonOp();
    if (!IsCmp && !E->getType()->isIntegralOrEnumerationType())
      return nullptr; // `if (!ptr) return`
    ExprRef V = Leaf(E, Depth + 1);
    if (!V)
      return nullptr;
    if (!IsCmp)
      V = Expr::binary(ExprOp::Ne, V, Expr::constant(0));
    return Pos ? V : Expr::unary(ExprOp::LNot, V);
  }

  /// A condition that \p E implies (Pos) or that !E implies (!Pos), over
  /// rank and world size (value()); null (true) when nothing is
  /// expressible.
  ExprRef cond(const clang::Expr *E, bool Pos, const FunctionDecl *FD,
               unsigned Depth) {
    return condOver(
        E, Pos, FD, Depth, /*FollowBoolLocals=*/true,
        [&](const clang::Expr *X, unsigned D) { return value(X, FD, D); });
  }

  /// The initializer of a local variable of \p FD (not a parameter) that
  /// \p FD never writes after it; null otherwise.
  const clang::Expr *constLocalInit(const DeclRefExpr *DR,
                                    const FunctionDecl *FD) {
    return FD && FD->hasBody() ? HostValues(Ctx, FD).constLocalInit(DR)
                               : nullptr;
  }

  /// \p E as an integer expression over rank ("rank"-like names),
  /// world size ("world_size"-like names, `ranks_per_node`) and constants;
  /// null when it mentions anything else.
  ExprRef value(const clang::Expr *E, const FunctionDecl *FD, unsigned Depth) {
    if (!E || Depth > MaxGuardDepth)
      return nullptr;
    E = E->IgnoreParenCasts();
    if (ExprRef C = foldedInt(E, Ctx))
      return C;
    auto Named = [](llvm::StringRef N) -> ExprRef {
      if (isRankName(N))
        return Expr::var("rank");
      if (isWorldName(N))
        return Expr::var("world_size");
      return nullptr;
    };
    if (const auto *M = dyn_cast<MemberExpr>(E))
      return M->getType()->isIntegralOrEnumerationType() &&
                     M->getMemberDecl()->getIdentifier()
                 ? Named(M->getMemberDecl()->getName())
                 : nullptr;
    if (const auto *DR = dyn_cast<DeclRefExpr>(E)) {
      if (!DR->getType()->isIntegralOrEnumerationType() ||
          !DR->getDecl()->getIdentifier())
        return nullptr;
      if (ExprRef N = Named(DR->getDecl()->getName()))
        return N;
      if (const clang::Expr *Init = constLocalInit(DR, FD))
        return value(Init, FD, Depth + 1);
      return nullptr;
    }
    if (const auto *B = dyn_cast<BinaryOperator>(E)) {
      // && and || are cond()'s.
      std::optional<ExprOp> Op = hostBinaryOp(B->getOpcode());
      if (!Op || *Op == ExprOp::LAnd || *Op == ExprOp::LOr)
        return nullptr;
      ExprRef L = value(B->getLHS(), FD, Depth + 1);
      ExprRef R = L ? value(B->getRHS(), FD, Depth + 1) : nullptr;
      return R ? Expr::binary(*Op, L, R) : nullptr;
    }
    return nullptr;
  }

  /// A launch's arguments as the host code spells them: parameter name and
  /// argument expression (bindArgs()).
  using ArgList = std::vector<std::pair<std::string, const clang::Expr *>>;

  /// LaunchSite::ParamCond of launch \p I.
  ExprRef paramCond(size_t I) {
    const Stmt *S = Where[I].first;
    const FunctionDecl *FD = Where[I].second;
    const ArgList &As = ArgsOf[I];
    if (!S || !FD || !FD->hasBody() || As.empty())
      return nullptr;
    ExprRef R;
    walkUp(S, [&](const Stmt *P, const Stmt *C) {
      if (isa<LambdaExpr>(P))
        return false; // the lambda may run elsewhere
      if (const auto *If = dyn_cast<IfStmt>(P)) {
        if (C == If->getThen())
          R = mkAnd2(R, paramTest(If->getCond(), true, FD, As, 0));
        else if (C == If->getElse())
          R = mkAnd2(R, paramTest(If->getCond(), false, FD, As, 0));
      } else if (const auto *CS = dyn_cast<CompoundStmt>(P)) {
        for (const Stmt *X : CS->body()) {
          if (X == C)
            break;
          const IfStmt *If = earlyReturn(X);
          if (If && !If->getInit() && !If->getConditionVariable())
            R = mkAnd2(R, paramTest(If->getCond(), false, FD, As, 0));
        }
      }
      return true;
    });
    return R;
  }

  /// A condition over the launch's parameters (paramTerm()) that \p E
  /// implies (Pos) or that !E implies (!Pos); null (true) when nothing is
  /// expressible.
  ExprRef paramTest(const clang::Expr *E, bool Pos, const FunctionDecl *FD,
                    const ArgList &As, unsigned Depth) {
    return condOver(E, Pos, FD, Depth, /*FollowBoolLocals=*/false,
                    [&](const clang::Expr *X, unsigned D) {
                      return paramTerm(X, FD, As, X->getBeginLoc(), D);
                    });
  }

  /// \p E (evaluated at \p Use) as an integer expression over the launch's
  /// parameters and constants: a local or parameter of \p FD that is
  /// passed as argument NAME and never written after its definition is
  /// "param:NAME"; a field f of a local struct passed as NAME that \p FD
  /// sets once before \p Use is "param:NAME.f". Null otherwise.
  ExprRef paramTerm(const clang::Expr *E, const FunctionDecl *FD,
                    const ArgList &As, SourceLocation Use, unsigned Depth) {
    if (!E || Depth > MaxGuardDepth ||
        !E->IgnoreParenCasts()->getType()->isIntegralOrEnumerationType())
      return nullptr;
    E = E->IgnoreParenCasts();
    if (ExprRef C = foldedInt(E, Ctx))
      return C;
    auto ArgNamed = [&](const VarDecl *V) -> const std::string * {
      for (const auto &[Name, A] : As)
        if (copiedVar(A) == V)
          return &Name;
      return nullptr;
    };
    if (const auto *DR = dyn_cast<DeclRefExpr>(E)) {
      const auto *V = dyn_cast<VarDecl>(DR->getDecl());
      const std::string *N = V ? ArgNamed(V) : nullptr;
      if (!N || !V->hasLocalStorage() || V->getType()->isReferenceType() ||
          writesLocal(V, FD->getBody()))
        return nullptr;
      return Expr::var("param:" + *N);
    }
    if (const auto *M = dyn_cast<MemberExpr>(E)) {
      const auto *DR =
          dyn_cast<DeclRefExpr>(M->getBase()->IgnoreParenImpCasts());
      const auto *V =
          DR && !M->isArrow() ? dyn_cast<VarDecl>(DR->getDecl()) : nullptr;
      const auto *F = dyn_cast<FieldDecl>(M->getMemberDecl());
      const std::string *N = V ? ArgNamed(V) : nullptr;
      if (!N || !F || !F->getIdentifier() ||
          !fixedFieldValue(Ctx, FD, V, F, Use))
        return nullptr;
      return Expr::var("param:" + *N + "." + F->getName().str());
    }
    if (const auto *U = dyn_cast<UnaryOperator>(E)) {
      if (U->getOpcode() != UO_Minus)
        return nullptr;
      ExprRef A = paramTerm(U->getSubExpr(), FD, As, Use, Depth + 1);
      return A ? Expr::unary(ExprOp::Neg, A) : nullptr;
    }
    if (const auto *B = dyn_cast<BinaryOperator>(E)) {
      std::optional<ExprOp> Op = hostBinaryOp(B->getOpcode());
      if (!Op || *Op == ExprOp::LAnd || *Op == ExprOp::LOr)
        return nullptr;
      ExprRef L = paramTerm(B->getLHS(), FD, As, Use, Depth + 1);
      ExprRef R = L ? paramTerm(B->getRHS(), FD, As, Use, Depth + 1) : nullptr;
      return R ? Expr::binary(*Op, L, R) : nullptr;
    }
    return nullptr;
  }

  ASTContext &Ctx;
  const LocMapper &Map;
  /// Per entry of Out: the arguments of the launch (bindArgs()).
  std::vector<ArgList> ArgsOf;
  /// Per entry of Out: the launch expression and the function containing it.
  std::vector<std::pair<const Stmt *, const FunctionDecl *>> Where;
  /// Callee (as called: a template specialization when one is named) ->
  /// its call sites and the functions containing them.
  std::map<const FunctionDecl *,
           std::vector<std::pair<const CallExpr *, const FunctionDecl *>>>
      CallSites;
  std::string Current; ///< Name of the function being traversed.
  const FunctionDecl *CurrentFD = nullptr; ///< The function itself.
  bool CurrentInSystemHeader = false;      ///< It lies in a system header.
  bool SkipPrecompiled;                    ///< See collectLaunches.
  /// Callee name -> names of the functions that call it.
  std::map<std::string, std::set<std::string>> CallersOf;
  std::set<std::tuple<const FunctionDecl *, std::string, unsigned, unsigned>>
      Seen;
  /// outUses() per pkb_candidate_run.
  std::map<const FunctionDecl *, OutUses> OutUsesOf;
};

} // namespace

std::vector<FoundLaunch> collectLaunches(ASTContext &Ctx, const LocMapper &Map,
                                         bool SkipPrecompiled) {
  LaunchFinder F(Ctx, Map, SkipPrecompiled);
  F.TraverseDecl(Ctx.getTranslationUnitDecl());
  F.closeCallers();
  F.computeGuards();
  return std::move(F.Out);
}

bool mayHoldLaunches(ASTContext &Ctx) {
  LaunchShapes S;
  S.TraverseDecl(Ctx.getTranslationUnitDecl());
  return S.Found;
}

} // namespace pkb::fe
