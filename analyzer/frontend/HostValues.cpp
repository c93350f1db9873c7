//===- HostValues.cpp - Values of a candidate's host code -----------------===//
//
// The integral values and conditions of a candidate's `pkb_candidate_run`
// (docs/candidate-abi.md) as model expressions over the ABI tensor extents
// (`host:In[K].shape[D]`, `host:In[K].numel`, the same for `Out`), rank,
// world size and constants: launch arguments (LaunchSite::Arg::Host), the
// host condition of a launch (LaunchSite::HostCond) and the byte count of a
// copy into a symmetric buffer (HostOp::Bytes). docs/model-schema.md.
//
//===----------------------------------------------------------------------===//

#include "FrontendInternal.h"

#include "clang/AST/ExprCXX.h"
#include "clang/AST/RecursiveASTVisitor.h"

#include <set>

namespace pkb::fe {

using namespace clang;

namespace {

/// Finds a write of local \p V (assignment, increment, address taken).
/// Taking the address as an element of an initializer list (`void *args[]
/// = {&n, ...}`: the argument array of cudaLaunchKernel) is no write.
class LocalWrites : public RecursiveASTVisitor<LocalWrites> {
public:
  explicit LocalWrites(const VarDecl *V) : V(V) {}
  bool Found = false;
  bool VisitBinaryOperator(BinaryOperator *B) {
    Found |= B->isAssignmentOp() && refersTo(B->getLHS());
    return !Found;
  }
  bool VisitInitListExpr(InitListExpr *IL) {
    // Pre-order: the list is visited before its elements.
    for (const clang::Expr *I : IL->inits())
      if (const auto *U = dyn_cast_or_null<UnaryOperator>(
              I ? I->IgnoreParenCasts() : nullptr);
          U && U->getOpcode() == UO_AddrOf)
        InArgArray.insert(U);
    return true;
  }
  bool VisitUnaryOperator(UnaryOperator *U) {
    Found |= (U->isIncrementDecrementOp() ||
              (U->getOpcode() == UO_AddrOf && !InArgArray.count(U))) &&
             refersTo(U->getSubExpr());
    return !Found;
  }

private:
  bool refersTo(const clang::Expr *E) const {
    const auto *DR = dyn_cast<DeclRefExpr>(E->IgnoreParenImpCasts());
    return DR && DR->getDecl() == V;
  }
  const VarDecl *V;
  std::set<const UnaryOperator *> InArgArray;
};

/// How a function uses its local struct variable \p V: the plain
/// assignments `V.f = e` per field, the fields written otherwise (compound
/// assignment, increment, address taken, bound to a non-const reference),
/// and whether some use may write V as a whole (any use of V other than a
/// field access, a copy, or `&V` as an element of an initializer list).
class StructUses : public RecursiveASTVisitor<StructUses> {
public:
  explicit StructUses(const VarDecl *V) : V(V) {}
  std::map<const FieldDecl *, std::vector<const BinaryOperator *>> Assigns;
  std::set<const FieldDecl *> Dirty;
  bool escapes() const { return Escaped || Refs != Ok.size(); }

  bool VisitBinaryOperator(BinaryOperator *B) {
    if (!B->isAssignmentOp())
      return true;
    if (const FieldDecl *F = field(B->getLHS())) {
      if (B->getOpcode() == BO_Assign)
        Assigns[F].push_back(B);
      else
        Dirty.insert(F);
    }
    return true;
  }
  bool VisitUnaryOperator(UnaryOperator *U) {
    if (U->isIncrementDecrementOp() || U->getOpcode() == UO_AddrOf)
      if (const FieldDecl *F = field(U->getSubExpr()))
        Dirty.insert(F);
    return true;
  }
  bool VisitInitListExpr(InitListExpr *IL) {
    for (const clang::Expr *I : IL->inits())
      if (const auto *U = dyn_cast_or_null<UnaryOperator>(
              I ? I->IgnoreParenCasts() : nullptr);
          U && U->getOpcode() == UO_AddrOf)
        if (const DeclRefExpr *DR = ref(U->getSubExpr()))
          Ok.insert(DR);
    return true;
  }
  bool VisitCXXConstructExpr(CXXConstructExpr *C) {
    if (C->getNumArgs() == 1 && C->getConstructor() &&
        C->getConstructor()->isCopyConstructor())
      if (const DeclRefExpr *DR = ref(C->getArg(0)))
        Ok.insert(DR);
    return true;
  }
  bool VisitMemberExpr(MemberExpr *M) {
    if (!M->isArrow() && isa<FieldDecl>(M->getMemberDecl()))
      if (const DeclRefExpr *DR = ref(M->getBase()))
        Ok.insert(DR);
    return true;
  }
  bool VisitCallExpr(CallExpr *CE) {
    const FunctionDecl *Fn = CE->getDirectCallee();
    if (!Fn)
      return true;
    // The launch templates take their arguments by forwarding reference
    // (cudaLaunchKernelEx(config, k, args...)) and copy them.
    if (Fn->getIdentifier() && Fn->getName().starts_with("cudaLaunch"))
      return true;
    for (unsigned I = 0; I < CE->getNumArgs() && I < Fn->getNumParams(); ++I) {
      QualType T = Fn->getParamDecl(I)->getType();
      if (!T->isReferenceType() || T.getNonReferenceType().isConstQualified())
        continue;
      if (const FieldDecl *F = field(CE->getArg(I)))
        Dirty.insert(F);
      else if (ref(CE->getArg(I)))
        Escaped = true; // may write V as a whole
    }
    return true;
  }
  bool VisitDeclRefExpr(DeclRefExpr *DR) {
    Refs += DR->getDecl() == V;
    return true;
  }

private:
  const DeclRefExpr *ref(const clang::Expr *E) const {
    const auto *DR = dyn_cast<DeclRefExpr>(E->IgnoreParenImpCasts());
    return DR && DR->getDecl() == V ? DR : nullptr;
  }
  /// The field f of `V.f`, else null.
  const FieldDecl *field(const clang::Expr *E) const {
    const auto *M = dyn_cast<MemberExpr>(E->IgnoreParenImpCasts());
    if (!M || M->isArrow() || !ref(M->getBase()))
      return nullptr;
    return dyn_cast<FieldDecl>(M->getMemberDecl());
  }
  const VarDecl *V;
  size_t Refs = 0;                  ///< Uses of V.
  std::set<const DeclRefExpr *> Ok; ///< Uses that cannot write V as a whole.
  bool Escaped = false; ///< V is bound to a non-const reference parameter.
};

/// True if \p S is a statement of the compound \p CS or of a compound
/// nested in it (full-expression wrappers aside): it runs once,
/// unconditionally, whenever control passes it.
bool straightLine(const CompoundStmt *CS, const Stmt *S) {
  for (const Stmt *X : CS->body()) {
    if (const auto *EW = dyn_cast<ExprWithCleanups>(X))
      X = EW->getSubExpr();
    if (X == S)
      return true;
    if (const auto *Inner = dyn_cast<CompoundStmt>(X);
        Inner && straightLine(Inner, S))
      return true;
  }
  return false;
}

/// Finds the functions of the main file that may write the global \p V
/// (field \p F of it, or any part when \p F is null): assignments,
/// increments, the address taken, binding to a non-const reference.
class GlobalWriters : public RecursiveASTVisitor<GlobalWriters> {
public:
  GlobalWriters(const VarDecl *V, const FieldDecl *F) : V(V), F(F) {}
  std::set<const FunctionDecl *> Writers;
  bool Unknown = false; ///< A write outside any function body.

  /// Tracks the function (or member function) whose body is visited.
  bool TraverseDecl(Decl *D) {
    const auto *FD = dyn_cast_or_null<FunctionDecl>(D);
    if (!FD)
      return RecursiveASTVisitor::TraverseDecl(D);
    const FunctionDecl *Saved = Cur;
    Cur = FD;
    bool R = RecursiveASTVisitor::TraverseDecl(D);
    Cur = Saved;
    return R;
  }
  bool VisitBinaryOperator(BinaryOperator *B) {
    if (B->isAssignmentOp() && refersTo(B->getLHS()))
      write();
    return true;
  }
  bool VisitUnaryOperator(UnaryOperator *U) {
    if ((U->isIncrementDecrementOp() || U->getOpcode() == UO_AddrOf) &&
        refersTo(U->getSubExpr()))
      write();
    return true;
  }
  bool VisitCallExpr(CallExpr *CE) {
    const FunctionDecl *Fn = CE->getDirectCallee();
    for (unsigned I = 0; I < CE->getNumArgs(); ++I) {
      if (!refersTo(CE->getArg(I)))
        continue;
      QualType T = Fn && I < Fn->getNumParams() ? Fn->getParamDecl(I)->getType()
                                                : QualType();
      if (T.isNull() ||
          (T->isReferenceType() && !T.getNonReferenceType().isConstQualified()))
        write();
    }
    return true;
  }
  bool VisitCXXMemberCallExpr(CXXMemberCallExpr *CE) {
    // A member function of the object may change it.
    if (CE->getImplicitObjectArgument() &&
        refersTo(CE->getImplicitObjectArgument()))
      write();
    return true;
  }

private:
  void write() {
    if (Cur)
      Writers.insert(Cur);
    else
      Unknown = true;
  }
  /// \p E names V (F null) or V.F, or V as a whole (which writes every
  /// field).
  bool refersTo(const clang::Expr *E) const {
    E = E->IgnoreParenImpCasts();
    if (const auto *DR = dyn_cast<DeclRefExpr>(E))
      return DR->getDecl() == V;
    const auto *M = dyn_cast<MemberExpr>(E);
    if (!M || M->isArrow())
      return false;
    const auto *DR = dyn_cast<DeclRefExpr>(M->getBase()->IgnoreParenImpCasts());
    return DR && DR->getDecl() == V && (!F || M->getMemberDecl() == F);
  }
  const VarDecl *V;
  const FieldDecl *F;
  const FunctionDecl *Cur = nullptr;
};

} // namespace

bool writtenOnlyInSetup(ASTContext &Ctx, const VarDecl *V, const FieldDecl *F) {
  if (!V || !V->hasGlobalStorage() || V->isStaticLocal() ||
      !(V->getType()->isIntegralOrEnumerationType() ||
        V->getType()->isRecordType()))
    return false;
  // Only a variable this file defines: another unit could write it.
  const SourceManager &SM = Ctx.getSourceManager();
  if (!SM.isInMainFile(SM.getExpansionLoc(V->getLocation())) ||
      !V->isThisDeclarationADefinition())
    return false;
  GlobalWriters W(V, F);
  for (Decl *D : Ctx.getTranslationUnitDecl()->decls())
    if (D->getLocation().isValid() &&
        SM.isInMainFile(SM.getExpansionLoc(D->getLocation())))
      W.TraverseDecl(D);
  if (W.Unknown)
    return false;
  for (const FunctionDecl *FD : W.Writers) {
    llvm::StringRef N = FD->getIdentifier() ? FD->getName() : "";
    if (N != "pkb_candidate_setup" && N != "pkb_candidate_query")
      return false;
  }
  return true;
}

const clang::Expr *fixedFieldValue(ASTContext &Ctx, const FunctionDecl *FD,
                                   const VarDecl *V, const FieldDecl *F,
                                   SourceLocation Use) {
  if (!FD || !FD->hasBody() || !V || !F || !V->hasLocalStorage() ||
      isa<ParmVarDecl>(V) || V->getType()->isReferenceType() ||
      !V->getType()->isRecordType())
    return nullptr;
  StructUses U(V);
  U.TraverseStmt(FD->getBody());
  if (U.escapes() || U.Dirty.count(F))
    return nullptr;
  const clang::Expr *Init = nullptr;
  if (const auto *IL = dyn_cast_or_null<InitListExpr>(
          V->getInit() ? V->getInit()->IgnoreImplicit() : nullptr)) {
    if (F->getFieldIndex() < IL->getNumInits())
      Init = IL->getInit(F->getFieldIndex());
  }
  auto It = U.Assigns.find(F);
  if (It == U.Assigns.end() || It->second.empty())
    return Init && !isa<ImplicitValueInitExpr>(Init) ? Init : nullptr;
  // An explicit initializer and an assignment: two values.
  if (It->second.size() != 1 || (Init && !isa<ImplicitValueInitExpr>(Init)))
    return nullptr;
  const BinaryOperator *B = It->second.front();
  const SourceManager &SM = Ctx.getSourceManager();
  const auto *Body = dyn_cast<CompoundStmt>(FD->getBody());
  if (!Body || !straightLine(Body, B) ||
      (Use.isValid() && !SM.isBeforeInTranslationUnit(B->getEndLoc(), Use)))
    return nullptr;
  return B->getRHS();
}

ExprRef foldedInt(const clang::Expr *E, ASTContext &Ctx) {
  clang::Expr::EvalResult R;
  if (E->isValueDependent() || E->isTypeDependent() ||
      !E->getType()->isIntegralOrEnumerationType() ||
      !E->EvaluateAsInt(R, Ctx) || !R.Val.isInt())
    return nullptr;
  return Expr::constant(R.Val.getInt().getExtValue());
}

std::optional<ExprOp> hostBinaryOp(BinaryOperatorKind K) {
  switch (K) {
  case BO_Add:
    return ExprOp::Add;
  case BO_Sub:
    return ExprOp::Sub;
  case BO_Mul:
    return ExprOp::Mul;
  case BO_Div:
    return ExprOp::Div;
  case BO_Rem:
    return ExprOp::Rem;
  case BO_And:
    return ExprOp::And;
  case BO_Or:
    return ExprOp::Or;
  case BO_Xor:
    return ExprOp::Xor;
  case BO_Shl:
    return ExprOp::Shl;
  case BO_Shr:
    return ExprOp::Shr;
  case BO_EQ:
    return ExprOp::Eq;
  case BO_NE:
    return ExprOp::Ne;
  case BO_LT:
    return ExprOp::Lt;
  case BO_LE:
    return ExprOp::Le;
  case BO_GT:
    return ExprOp::Gt;
  case BO_GE:
    return ExprOp::Ge;
  case BO_LAnd:
    return ExprOp::LAnd;
  case BO_LOr:
    return ExprOp::LOr;
  default:
    return std::nullopt;
  }
}

bool writesLocal(const VarDecl *V, const Stmt *Body) {
  LocalWrites W(V);
  W.TraverseStmt(const_cast<Stmt *>(Body));
  return W.Found;
}

bool HostValues::isCandidateRun(const FunctionDecl *FD) {
  return FD && FD->getIdentifier() && FD->getName() == "pkb_candidate_run" &&
         FD->getNumParams() >= 4 && FD->hasBody();
}

const clang::Expr *HostValues::constLocalInit(const DeclRefExpr *DR) const {
  const auto *VD = dyn_cast<VarDecl>(DR->getDecl());
  if (!VD || !VD->hasLocalStorage() || isa<ParmVarDecl>(VD) || !VD->getInit() ||
      VD->getType()->isReferenceType())
    return nullptr;
  return writesLocal(VD, Run->getBody()) ? nullptr : VD->getInit();
}

/// `T[c]` of the parameter \p P with a constant c, else nullopt.
std::optional<unsigned> HostValues::tensorIndex(const clang::Expr *E,
                                                const ParmVarDecl *P) const {
  const auto *AS = dyn_cast<ArraySubscriptExpr>(E->IgnoreParenImpCasts());
  if (!AS)
    return std::nullopt;
  const auto *DR = dyn_cast<DeclRefExpr>(AS->getBase()->IgnoreParenImpCasts());
  clang::Expr::EvalResult R;
  if (!DR || DR->getDecl() != P || AS->getIdx()->isValueDependent() ||
      !AS->getIdx()->EvaluateAsInt(R, Ctx) || !R.Val.isInt() ||
      R.Val.getInt().isNegative())
    return std::nullopt;
  return static_cast<unsigned>(R.Val.getInt().getZExtValue());
}

/// K when \p E is `P[K].data` (casts aside), else nullopt.
std::optional<unsigned> HostValues::tensorData(const clang::Expr *E,
                                               const ParmVarDecl *P) const {
  const auto *M = dyn_cast<MemberExpr>(E->IgnoreParenCasts());
  if (!M || !M->getMemberDecl()->getIdentifier() ||
      M->getMemberDecl()->getName() != "data")
    return std::nullopt;
  return tensorIndex(M->getBase(), P);
}

/// `T[K].shape[D]` of the input (parameter 1) or output (parameter 3)
/// tensors of pkb_candidate_run \p FD, as "host:In[K].shape[D]" /
/// "host:Out[K].shape[D]"; null otherwise.
ExprRef HostValues::tensorShape(const clang::Expr *E) const {
  const FunctionDecl *FD = Run;
  const auto *AS = dyn_cast<ArraySubscriptExpr>(E->IgnoreParenImpCasts());
  if (!AS)
    return nullptr;
  const auto *M = dyn_cast<MemberExpr>(AS->getBase()->IgnoreParenImpCasts());
  clang::Expr::EvalResult D;
  if (!M || !M->getMemberDecl()->getIdentifier() ||
      M->getMemberDecl()->getName() != "shape" ||
      AS->getIdx()->isValueDependent() ||
      !AS->getIdx()->EvaluateAsInt(D, Ctx) || !D.Val.isInt() ||
      D.Val.getInt().isNegative())
    return nullptr;
  for (unsigned PI : {1u, 3u})
    if (std::optional<unsigned> K =
            tensorIndex(M->getBase(), FD->getParamDecl(PI)))
      return Expr::var(std::string(PI == 1 ? "host:In[" : "host:Out[") +
                       std::to_string(*K) + "].shape[" +
                       std::to_string(D.Val.getInt().getZExtValue()) + "]");
  return nullptr;
}

/// True if \p FD computes a tensor's element count: one `pkb_tensor`
/// parameter T (by value or reference) and the body `acc = 1; for (i =
/// 0; i < T.ndim; ++i) acc *= T.shape[i]; return acc;` (any names, casts
/// aside): the product of the extents (docs/candidate-abi.md).
bool HostValues::isNumelFunction(const FunctionDecl *FD) {
  FD = FD->getDefinition();
  if (!FD || FD->getNumParams() != 1)
    return false;
  auto [It, New] = NumelFns.try_emplace(FD, false);
  if (!New)
    return It->second;
  const ParmVarDecl *T = FD->getParamDecl(0);
  const auto *RD = T->getType().getNonReferenceType()->getAsRecordDecl();
  const auto *Body = dyn_cast_or_null<CompoundStmt>(FD->getBody());
  if (!RD || !RD->getIdentifier() || RD->getName() != "pkb_tensor" || !Body ||
      Body->size() != 3)
    return false;
  auto Stmts = Body->body();
  auto It2 = Stmts.begin();
  // acc = 1
  const auto *DS = dyn_cast<DeclStmt>(*It2++);
  const auto *Acc = DS && DS->isSingleDecl()
                        ? dyn_cast<VarDecl>(DS->getSingleDecl())
                        : nullptr;
  clang::Expr::EvalResult One;
  if (!Acc || !Acc->getInit() || Acc->getInit()->isValueDependent() ||
      !Acc->getInit()->EvaluateAsInt(One, Ctx) || !One.Val.isInt() ||
      One.Val.getInt() != 1)
    return false;
  auto IsParamMember = [&](const clang::Expr *X, llvm::StringRef Name) {
    const auto *M = dyn_cast_or_null<MemberExpr>(X->IgnoreParenCasts());
    const auto *DR =
        M ? dyn_cast<DeclRefExpr>(M->getBase()->IgnoreParenImpCasts())
          : nullptr;
    return DR && DR->getDecl() == T && M->getMemberDecl()->getIdentifier() &&
           M->getMemberDecl()->getName() == Name;
  };
  auto IsRef = [](const clang::Expr *X, const ValueDecl *D) {
    const auto *DR = dyn_cast_or_null<DeclRefExpr>(X->IgnoreParenCasts());
    return DR && DR->getDecl() == D;
  };
  // for (i = 0; i < T.ndim; ++i) acc *= T.shape[i];
  const auto *For = dyn_cast<ForStmt>(*It2++);
  const auto *Init = For ? dyn_cast_or_null<DeclStmt>(For->getInit()) : nullptr;
  const auto *I = Init && Init->isSingleDecl()
                      ? dyn_cast<VarDecl>(Init->getSingleDecl())
                      : nullptr;
  const auto *Cond =
      For ? dyn_cast_or_null<BinaryOperator>(For->getCond()) : nullptr;
  const auto *Inc =
      For ? dyn_cast_or_null<UnaryOperator>(For->getInc()) : nullptr;
  if (!I || !Cond || Cond->getOpcode() != BO_LT || !IsRef(Cond->getLHS(), I) ||
      !IsParamMember(Cond->getRHS(), "ndim") || !Inc || !Inc->isIncrementOp() ||
      !IsRef(Inc->getSubExpr(), I))
    return false;
  const Stmt *B = For->getBody();
  if (const auto *CS = dyn_cast<CompoundStmt>(B))
    B = CS->size() == 1 ? CS->body_front() : nullptr;
  const auto *Mul = dyn_cast_or_null<CompoundAssignOperator>(B);
  const auto *Sub =
      Mul ? dyn_cast<ArraySubscriptExpr>(Mul->getRHS()->IgnoreParenCasts())
          : nullptr;
  if (!Mul || Mul->getOpcode() != BO_MulAssign || !IsRef(Mul->getLHS(), Acc) ||
      !Sub || !IsParamMember(Sub->getBase(), "shape") ||
      !IsRef(Sub->getIdx(), I))
    return false;
  // return acc;
  const auto *Ret = dyn_cast<ReturnStmt>(*It2);
  It->second = Ret && Ret->getRetValue() && IsRef(Ret->getRetValue(), Acc);
  return It->second;
}

/// \p E in pkb_candidate_run \p FD as an expression over the tensor
/// extents (tensorShape()), rank, world size and constants, following
/// locals never written after their initialization; null when it
/// mentions anything else. Logic and comparisons yield 0/1.
ExprRef HostValues::value(const clang::Expr *E, unsigned Depth) {
  const FunctionDecl *FD = Run;
  if (!E || Depth > MaxDepth)
    return nullptr;
  E = E->IgnoreParenCasts();
  if (ExprRef C = foldedInt(E, Ctx))
    return C;
  if (ExprRef T = tensorShape(E))
    return T;
  if (const auto *CE = dyn_cast<CallExpr>(E)) {
    const FunctionDecl *Callee = CE->getDirectCallee();
    // A helper whose body is one `return e;` (`padTo8(N)`): e with its
    // parameters bound to the arguments' values.
    const FunctionDecl *Def = nullptr;
    if (Callee && Callee->hasBody(Def) && Def &&
        CE->getNumArgs() == Def->getNumParams() &&
        Def->getReturnType()->isIntegralOrEnumerationType())
      if (const auto *B = dyn_cast<CompoundStmt>(Def->getBody());
          B && B->size() == 1)
        if (const auto *Ret = dyn_cast<ReturnStmt>(B->body_front());
            Ret && Ret->getRetValue()) {
          std::map<const ParmVarDecl *, ExprRef> Saved = Env;
          bool Ok = true;
          for (unsigned I = 0; I < CE->getNumArgs() && Ok; ++I) {
            ExprRef A = value(CE->getArg(I), Depth + 1);
            Ok = A != nullptr;
            Env[Def->getParamDecl(I)] = A;
          }
          ExprRef R = Ok ? value(Ret->getRetValue(), Depth + 1) : nullptr;
          Env = std::move(Saved);
          if (R)
            return R;
        }
    // numel(In[0]): a function of the unit that multiplies the extents.
    if (!Callee || CE->getNumArgs() != 1 || !isNumelFunction(Callee))
      return nullptr;
    for (unsigned PI : {1u, 3u})
      if (std::optional<unsigned> K =
              tensorIndex(CE->getArg(0), FD->getParamDecl(PI)))
        return Expr::var(std::string(PI == 1 ? "host:In[" : "host:Out[") +
                         std::to_string(*K) + "].numel");
    return nullptr;
  }
  if (const auto *M = dyn_cast<MemberExpr>(E)) {
    if (!M->getType()->isIntegralOrEnumerationType() ||
        !M->getMemberDecl()->getIdentifier())
      return nullptr;
    // A field of a local struct that the function sets once (`C.n = N;`).
    const auto *DR = dyn_cast<DeclRefExpr>(M->getBase()->IgnoreParenImpCasts());
    if (const auto *V =
            DR && !M->isArrow() ? dyn_cast<VarDecl>(DR->getDecl()) : nullptr)
      if (const clang::Expr *X = fixedFieldValue(
              Ctx, FD, V, dyn_cast<FieldDecl>(M->getMemberDecl()),
              M->getBeginLoc()))
        return value(X, Depth + 1);
    // A field of a global that only setup writes: the same in every call.
    if (const auto *V =
            DR && !M->isArrow() ? dyn_cast<VarDecl>(DR->getDecl()) : nullptr;
        V && V->hasGlobalStorage() &&
        writtenOnlyInSetup(Ctx, V, dyn_cast<FieldDecl>(M->getMemberDecl())))
      return Expr::var("host:fixed:" + V->getName().str() + "." +
                       M->getMemberDecl()->getName().str());
    llvm::StringRef N = M->getMemberDecl()->getName();
    if (N == "call_index")
      return Expr::var("host:call_index");
    return isRankName(N)    ? Expr::var("rank")
           : isWorldName(N) ? Expr::var("world_size")
                            : nullptr;
  }
  if (const auto *DR = dyn_cast<DeclRefExpr>(E)) {
    if (!DR->getType()->isIntegralOrEnumerationType())
      return nullptr;
    if (const auto *P = dyn_cast<ParmVarDecl>(DR->getDecl()))
      if (auto It = Env.find(P); It != Env.end())
        return It->second;
    if (const clang::Expr *Init = constLocalInit(DR))
      return value(Init, Depth + 1);
    if (const auto *V = dyn_cast<VarDecl>(DR->getDecl());
        V && V->hasGlobalStorage() && !V->getType().isConstQualified() &&
        writtenOnlyInSetup(Ctx, V, nullptr))
      return Expr::var("host:fixed:" + V->getName().str());
    return nullptr;
  }
  if (const auto *U = dyn_cast<UnaryOperator>(E)) {
    ExprRef A = value(U->getSubExpr(), Depth + 1);
    if (!A)
      return nullptr;
    switch (U->getOpcode()) {
    case UO_LNot:
      return Expr::unary(ExprOp::LNot, A);
    case UO_Minus:
      return Expr::unary(ExprOp::Neg, A);
    case UO_Plus:
      return A;
    default:
      return nullptr;
    }
  }
  if (const auto *C = dyn_cast<ConditionalOperator>(E)) {
    ExprRef Cd = value(C->getCond(), Depth + 1);
    ExprRef T = Cd ? value(C->getTrueExpr(), Depth + 1) : nullptr;
    ExprRef F = T ? value(C->getFalseExpr(), Depth + 1) : nullptr;
    return F ? Expr::select(Cd, T, F) : nullptr;
  }
  const auto *B = dyn_cast<BinaryOperator>(E);
  if (!B)
    return nullptr;
  std::optional<ExprOp> Op = hostBinaryOp(B->getOpcode());
  if (!Op)
    return nullptr;
  ExprRef L = value(B->getLHS(), Depth + 1);
  ExprRef R = L ? value(B->getRHS(), Depth + 1) : nullptr;
  return R ? Expr::binary(*Op, L, R) : nullptr;
}

bool HostValues::readsCallIndex(const Stmt *S, unsigned Depth) const {
  if (!S || Depth > MaxDepth)
    return false;
  if (const auto *M = dyn_cast<MemberExpr>(S)) {
    const ValueDecl *D = M->getMemberDecl();
    if (D->getIdentifier() && D->getName() == "call_index")
      return true;
    const auto *DR = dyn_cast<DeclRefExpr>(M->getBase()->IgnoreParenImpCasts());
    if (const auto *V =
            DR && !M->isArrow() ? dyn_cast<VarDecl>(DR->getDecl()) : nullptr)
      if (const clang::Expr *X =
              fixedFieldValue(Ctx, dyn_cast<FunctionDecl>(V->getDeclContext()),
                              V, dyn_cast<FieldDecl>(D), M->getBeginLoc()))
        return readsCallIndex(X, Depth + 1);
  }
  if (const auto *DR = dyn_cast<DeclRefExpr>(S))
    if (const auto *V = dyn_cast<VarDecl>(DR->getDecl());
        V && V->hasLocalStorage() && !isa<ParmVarDecl>(V) && V->getInit())
      return readsCallIndex(V->getInit(), Depth + 1);
  if (const auto *CE = dyn_cast<CallExpr>(S)) {
    const FunctionDecl *Def = nullptr;
    if (const FunctionDecl *Callee = CE->getDirectCallee();
        Callee && Callee->hasBody(Def) && Def &&
        readsCallIndex(Def->getBody(), Depth + 1))
      return true;
  }
  for (const Stmt *C : S->children())
    if (readsCallIndex(C, Depth))
      return true;
  return false;
}

/// \p E as a condition (non-zero: true) over the names of value().
ExprRef HostValues::cond(const clang::Expr *E) {
  ExprRef V = value(E, 0);
  if (!V)
    return nullptr;
  // Comparisons and logic already yield 0/1.
  const clang::Expr *X = E->IgnoreParenCasts();
  const auto *B = dyn_cast<BinaryOperator>(X);
  const auto *U = dyn_cast<UnaryOperator>(X);
  if ((B && (B->isComparisonOp() || B->isLogicalOp())) ||
      (U && U->getOpcode() == UO_LNot))
    return V;
  return Expr::binary(ExprOp::Ne, V, Expr::constant(0));
}

} // namespace pkb::fe
