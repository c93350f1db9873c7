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
#include "clang/AST/RecursiveASTVisitor.h"
#include "clang/Lex/Lexer.h"

#include <algorithm>
#include <map>
#include <set>

namespace pkb::fe {

using namespace clang;

namespace {

/// Finds writes to one local variable in a function body: assignments,
/// increments, decrements and taking its address (which may write it).
class LocalWrites : public RecursiveASTVisitor<LocalWrites> {
public:
  explicit LocalWrites(const VarDecl *V) : V(V) {}
  bool Found = false;
  bool VisitBinaryOperator(BinaryOperator *B) {
    Found |= B->isAssignmentOp() && refersTo(B->getLHS());
    return !Found;
  }
  bool VisitUnaryOperator(UnaryOperator *U) {
    Found |= (U->isIncrementDecrementOp() || U->getOpcode() == UO_AddrOf) &&
             refersTo(U->getSubExpr());
    return !Found;
  }

private:
  bool refersTo(const clang::Expr *E) const {
    const auto *DR = dyn_cast<DeclRefExpr>(E->IgnoreParenImpCasts());
    return DR && DR->getDecl() == V;
  }
  const VarDecl *V;
};

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
      for (unsigned I = 0; I < CE->getNumArgs() && I < K->getNumParams(); ++I) {
        const clang::Expr *A = CE->getArg(I);
        F->Site.Args.push_back({K->getParamDecl(I)->getName().str(),
                                A->getType()->isIntegralOrEnumerationType()
                                    ? argValue(A)
                                    : nullptr});
      }
    return true;
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
    bool Coop = N == "cudaLaunchCooperativeKernel";
    if (Coop || N == "cudaLaunchKernel") {
      if (CE->getNumArgs() >= 3)
        add(kernelOf(CE->getArg(0)), CE->getArg(1), CE->getArg(2), Coop, CE);
    } else if (N == "cudaLaunchKernelEx" || N == "cudaLaunchKernelExC") {
      if (CE->getNumArgs() >= 2)
        add(kernelOf(CE->getArg(1)), nullptr, nullptr, false, CE);
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
    LocalWrites W(VD);
    W.TraverseStmt(CurrentFD->getBody());
    return W.Found ? R : Expr::constant(V.Val.getInt().getExtValue());
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
    const SourceManager &SM = Ctx.getSourceManager();
    CharSourceRange CR = Lexer::makeFileCharRange(
        CharSourceRange::getTokenRange(E->getSourceRange()), SM,
        Ctx.getLangOpts());
    std::string T = CR.isValid()
                        ? Lexer::getSourceText(CR, SM, Ctx.getLangOpts()).str()
                        : "?";
    return Expr::opaque(T.empty() ? "?" : T);
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

private:
  ASTContext &Ctx;
  const LocMapper &Map;
  std::string Current; ///< Name of the function being traversed.
  const FunctionDecl *CurrentFD = nullptr; ///< The function itself.
  bool CurrentInSystemHeader = false;      ///< It lies in a system header.
  bool SkipPrecompiled;                    ///< See collectLaunches.
  /// Callee name -> names of the functions that call it.
  std::map<std::string, std::set<std::string>> CallersOf;
  std::set<std::tuple<const FunctionDecl *, std::string, unsigned, unsigned>>
      Seen;
};

} // namespace

std::vector<FoundLaunch> collectLaunches(ASTContext &Ctx, const LocMapper &Map,
                                         bool SkipPrecompiled) {
  LaunchFinder F(Ctx, Map, SkipPrecompiled);
  F.TraverseDecl(Ctx.getTranslationUnitDecl());
  F.closeCallers();
  return std::move(F.Out);
}

bool mayHoldLaunches(ASTContext &Ctx) {
  LaunchShapes S;
  S.TraverseDecl(Ctx.getTranslationUnitDecl());
  return S.Found;
}

} // namespace pkb::fe
