//===- LocalFlow.cpp - Integral locals followed in program order ----------===//
//
// Values of integral locals that are assigned after their declaration:
//   * an assignment replaces the value; under conditions that did not hold
//     at the declaration (an `if`, `&&`, an earlier early return) it becomes
//     `cond ? new : old`;
//   * a by-reference parameter (`void range(int B, size_t &Lo, size_t &Hi)`)
//     of an inlined call follows the caller's local it is bound to, and its
//     final value flows back to that local;
//   * inside a loop (or switch) that assigns a local, the local is unknown
//     (`local:NAME@LINE`, as before), and after it too, except for a
//     carried induction variable (`for (; I < N; I += S)` on a local
//     declared before the loop) whose exit value is known.
// Locals whose writes cannot all be seen (address taken, bound to a
// reference, assigned in a lambda, passed by non-const reference to a
// function without a user body, functions with goto) keep the older
// treatment (ExprBuilder.cpp, bindLocal). See docs/frontend.md.
//
//===----------------------------------------------------------------------===//

#include "Builder.h"

#include "clang/AST/RecursiveASTVisitor.h"
#include "clang/Basic/SourceManager.h"

namespace pkb::fe {

using namespace clang;

namespace {
/// The local a glvalue names, if it is a non-global variable.
const VarDecl *namedLocal(const clang::Expr *E) {
  const auto *DR =
      dyn_cast_or_null<DeclRefExpr>(E ? E->IgnoreParenImpCasts() : nullptr);
  const auto *VD = DR ? dyn_cast<VarDecl>(DR->getDecl()) : nullptr;
  return VD && !VD->hasGlobalStorage() ? VD : nullptr;
}

/// True if parameter \p I of \p CE's callee is a non-const reference (or
/// the callee is unknown and the argument is a plain glvalue of a local).
bool byMutableRef(const CallExpr *CE, unsigned I) {
  const clang::Expr *A = CE->getArg(I);
  const FunctionDecl *FD = CE->getDirectCallee();
  unsigned Base =
      isa<CXXOperatorCallExpr>(CE) && FD && isa<CXXMethodDecl>(FD) ? 1 : 0;
  if (!FD)
    return isa<DeclRefExpr>(A->IgnoreParens());
  if (I < Base)
    return false;
  unsigned PI = I - Base;
  if (PI >= FD->getNumParams())
    return false; // variadic: by value
  QualType T = FD->getParamDecl(PI)->getType();
  return T->isReferenceType() && !T.getNonReferenceType().isConstQualified();
}

/// Locals of one function whose writes the builder cannot all follow.
class EscapeScanner : public RecursiveASTVisitor<EscapeScanner> {
public:
  std::set<const VarDecl *> Out;
  bool HasGoto = false;
  unsigned LambdaDepth = 0;
  const SourceManager &SM;
  explicit EscapeScanner(const SourceManager &SM) : SM(SM) {}

  bool TraverseLambdaExpr(LambdaExpr *L) {
    ++LambdaDepth;
    bool R = RecursiveASTVisitor::TraverseLambdaExpr(L);
    --LambdaDepth;
    return R;
  }
  bool VisitUnaryOperator(UnaryOperator *U) {
    if (U->getOpcode() == UO_AddrOf)
      add(namedLocal(U->getSubExpr()));
    else if (U->isIncrementDecrementOp() && LambdaDepth)
      add(namedLocal(U->getSubExpr()));
    return true;
  }
  bool VisitBinaryOperator(BinaryOperator *BO) {
    if (BO->isAssignmentOp() && LambdaDepth)
      add(namedLocal(BO->getLHS()));
    return true;
  }
  bool VisitArraySubscriptExpr(ArraySubscriptExpr *AS) {
    // The append counter of a local pointer array (`Dst[n++] = p`) keeps
    // its name: PtrArrays.cpp matches `for (d = 0; d < n; ++d)` by it.
    const auto *U =
        dyn_cast<UnaryOperator>(AS->getIdx()->IgnoreParenImpCasts());
    if (U && U->isIncrementDecrementOp())
      if (const VarDecl *Arr = namedLocal(AS->getBase()))
        if (Builder::isPtrArrayType(Arr->getType()))
          add(namedLocal(U->getSubExpr()));
    return true;
  }
  bool VisitVarDecl(VarDecl *VD) {
    // `T &r = x;`: writes through r are not seen as writes of x.
    if (VD->getType()->isReferenceType() &&
        !VD->getType().getNonReferenceType().isConstQualified())
      add(namedLocal(VD->getInit()));
    return true;
  }
  bool VisitCallExpr(CallExpr *CE) {
    const FunctionDecl *FD = CE->getDirectCallee();
    const FunctionDecl *Def = FD ? FD->getDefinition() : nullptr;
    bool UserBody =
        Def && Def->getBody() && !SM.isInSystemHeader(Def->getLocation());
    for (unsigned I = 0; I < CE->getNumArgs(); ++I)
      if (byMutableRef(CE, I) && (!UserBody || LambdaDepth))
        add(namedLocal(CE->getArg(I)));
    return true;
  }
  bool VisitGotoStmt(GotoStmt *) {
    HasGoto = true;
    return true;
  }
  bool VisitIndirectGotoStmt(IndirectGotoStmt *) {
    HasGoto = true;
    return true;
  }
  void add(const VarDecl *VD) {
    if (VD)
      Out.insert(VD);
  }
};

/// Locals written anywhere inside one statement: assignments, `++`/`--`,
/// asm outputs, arguments bound to a non-const reference.
class WriteScanner : public RecursiveASTVisitor<WriteScanner> {
public:
  std::set<const VarDecl *> Out;
  bool VisitUnaryOperator(UnaryOperator *U) {
    if (U->isIncrementDecrementOp())
      add(namedLocal(U->getSubExpr()));
    return true;
  }
  bool VisitBinaryOperator(BinaryOperator *BO) {
    if (BO->isAssignmentOp())
      add(namedLocal(BO->getLHS()));
    return true;
  }
  bool VisitCallExpr(CallExpr *CE) {
    for (unsigned I = 0; I < CE->getNumArgs(); ++I)
      if (byMutableRef(CE, I))
        add(namedLocal(CE->getArg(I)));
    return true;
  }
  bool VisitGCCAsmStmt(GCCAsmStmt *A) {
    for (unsigned I = 0; I < A->getNumOutputs(); ++I)
      add(namedLocal(A->getOutputExpr(I)));
    return true;
  }
  void add(const VarDecl *VD) {
    if (VD)
      Out.insert(VD);
  }
};

/// Number of nodes of \p E (stops counting at \p Limit).
unsigned exprSize(const ExprRef &E, unsigned Limit) {
  if (!E)
    return 0;
  unsigned N = 1;
  for (const ExprRef &O : E->Ops) {
    if (N >= Limit)
      break;
    N += exprSize(O, Limit - N);
  }
  return N;
}
} // namespace

/// Values larger than this become unknown (select chains of many
/// conditional assignments).
static constexpr unsigned MaxTrackedSize = 256;

const std::set<const VarDecl *> &
Builder::untrackedLocals(const FunctionDecl *FD) {
  auto It = UntrackedCache.find(FD);
  if (It != UntrackedCache.end())
    return It->second;
  auto &Out = UntrackedCache[FD];
  if (!FD || !FD->getBody())
    return Out;
  EscapeScanner S(Ctx.getSourceManager());
  S.TraverseStmt(const_cast<Stmt *>(FD->getBody()));
  Out = std::move(S.Out);
  if (S.HasGoto) {
    // Backward jumps: no local of this function is followed.
    for (const ParmVarDecl *P : FD->parameters())
      Out.insert(P);
    TrackNothing.insert(FD);
  }
  return Out;
}

bool Builder::trackable(const VarDecl *VD) {
  if (!VD || VD->hasGlobalStorage() || Frames.empty())
    return false;
  QualType T = VD->getType();
  if (T->isReferenceType())
    T = T.getNonReferenceType();
  if (!T->isIntegralOrEnumerationType() || T.isVolatileQualified())
    return false;
  const FunctionDecl *FD = frame().FD;
  if (untrackedLocals(FD).count(VD) || TrackNothing.count(FD))
    return false;
  return true;
}

void Builder::track(const VarDecl *VD) { frame().Tracked[VD] = currentGuard(); }

bool Builder::isTracked(const VarDecl *VD) const {
  return VD && !Frames.empty() && Frames.back().Tracked.count(VD);
}

ExprRef Builder::localName(const VarDecl *VD) const {
  return Expr::var("local:" + VD->getName().str() + "@" +
                   std::to_string(Map.map(VD->getLocation()).Line));
}

ExprRef Builder::trackedValue(const VarDecl *VD, ExprRef E) const {
  if (!E || E->hasOpaque() || E->mentions("polled") ||
      exprSize(E, MaxTrackedSize + 1) > MaxTrackedSize)
    return localName(VD);
  return E;
}

void Builder::assignTracked(const VarDecl *VD, ExprRef NewE) {
  auto TI = frame().Tracked.find(VD);
  if (TI == frame().Tracked.end())
    return;
  Val &Cur = frame().Vars[VD];
  ExprRef Old = Cur.E ? Cur.E : localName(VD);
  NewE = trackedValue(VD, NewE);
  // Conditions that hold here but did not at the declaration.
  std::vector<ExprRef> Now = currentGuard();
  std::multiset<const pkb::Expr *> AtDecl;
  for (const ExprRef &G : TI->second)
    AtDecl.insert(G.get());
  std::vector<ExprRef> Extra;
  for (const ExprRef &G : Now) {
    auto F = AtDecl.find(G.get());
    if (F != AtDecl.end())
      AtDecl.erase(F);
    else
      Extra.push_back(G);
  }
  if (ExprRef C = mkAnd(Extra))
    NewE = NewE->str() == Old->str()
               ? Old
               : trackedValue(VD, Expr::select(C, NewE, Old));
  Cur.E = NewE;
}

std::vector<const VarDecl *> Builder::writtenIn(const Stmt *S) {
  WriteScanner W;
  if (S)
    W.TraverseStmt(const_cast<Stmt *>(S));
  return {W.Out.begin(), W.Out.end()};
}

std::vector<const VarDecl *> Builder::trackedWrittenIn(const Stmt *S) {
  std::vector<const VarDecl *> R;
  if (!S || Frames.empty() || frame().Tracked.empty())
    return R;
  WriteScanner W;
  W.TraverseStmt(const_cast<Stmt *>(S));
  for (const VarDecl *VD : W.Out)
    if (isTracked(VD))
      R.push_back(VD);
  return R;
}

void Builder::havoc(const std::vector<const VarDecl *> &Vs) {
  for (const VarDecl *VD : Vs)
    frame().Vars[VD].E = localName(VD);
}

} // namespace pkb::fe
