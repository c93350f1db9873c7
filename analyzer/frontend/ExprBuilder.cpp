//===- ExprBuilder.cpp - Clang expressions to values and memory events ----===//
//
// Evaluates expressions in program order: builds pkb::Expr values over the
// launch coordinates and parameters, tracks pointers (base, peer, index) and
// emits Load/Store events for memory accesses. Casts are transparent,
// constants (sizeof, constexpr, enumerators) are folded by Clang's
// evaluator. See docs/frontend.md.
//
//===----------------------------------------------------------------------===//

#include "Builder.h"

#include "clang/AST/RecordLayout.h"
#include "clang/Lex/Lexer.h"

namespace pkb::fe {

using namespace clang;

//===----------------------------------------------------------------------===//
// Folding constructors.
//===----------------------------------------------------------------------===//

static bool isConst(const ExprRef &E, int64_t V) {
  return E && E->Op == ExprOp::Const && E->Value == V;
}

ExprRef mkAdd(ExprRef A, ExprRef B) {
  if (!A || !B)
    return nullptr;
  if (A->Op == ExprOp::Const && B->Op == ExprOp::Const)
    return Expr::constant(A->Value + B->Value);
  if (isConst(A, 0))
    return B;
  if (isConst(B, 0))
    return A;
  return Expr::binary(ExprOp::Add, A, B);
}

ExprRef mkSub(ExprRef A, ExprRef B) {
  if (!A || !B)
    return nullptr;
  if (A->Op == ExprOp::Const && B->Op == ExprOp::Const)
    return Expr::constant(A->Value - B->Value);
  if (isConst(B, 0))
    return A;
  return Expr::binary(ExprOp::Sub, A, B);
}

ExprRef mkMul(ExprRef A, ExprRef B) {
  if (!A || !B)
    return nullptr;
  if (A->Op == ExprOp::Const && B->Op == ExprOp::Const)
    return Expr::constant(A->Value * B->Value);
  if (isConst(A, 1))
    return B;
  if (isConst(B, 1))
    return A;
  if (isConst(A, 0) || isConst(B, 0))
    return Expr::constant(0);
  return Expr::binary(ExprOp::Mul, A, B);
}

ExprRef mkNot(ExprRef A) {
  if (!A)
    return nullptr;
  if (A->Op == ExprOp::LNot && !A->Ops.empty())
    return A->Ops[0];
  if (A->Op == ExprOp::Const)
    return Expr::constant(A->Value == 0);
  static const std::pair<ExprOp, ExprOp> Flip[] = {
      {ExprOp::Eq, ExprOp::Ne}, {ExprOp::Ne, ExprOp::Eq},
      {ExprOp::Lt, ExprOp::Ge}, {ExprOp::Ge, ExprOp::Lt},
      {ExprOp::Gt, ExprOp::Le}, {ExprOp::Le, ExprOp::Gt}};
  for (auto [From, To] : Flip)
    if (A->Op == From && A->Ops.size() == 2)
      return Expr::binary(To, A->Ops[0], A->Ops[1]);
  return Expr::unary(ExprOp::LNot, A);
}

ExprRef mkAnd(const std::vector<ExprRef> &Xs) {
  ExprRef R;
  for (const ExprRef &X : Xs) {
    if (!X)
      continue;
    R = R ? Expr::binary(ExprOp::LAnd, R, X) : X;
  }
  return R;
}

//===----------------------------------------------------------------------===//
// Helpers.
//===----------------------------------------------------------------------===//

std::optional<int64_t> Builder::constant(const clang::Expr *E) const {
  if (!E || E->isValueDependent() || E->isTypeDependent() ||
      E->containsErrors())
    return std::nullopt;
  QualType T = E->getType();
  if (T.isNull() || !T->isIntegralOrEnumerationType())
    return std::nullopt;
  clang::Expr::EvalResult R;
  if (!E->EvaluateAsInt(R, Ctx, clang::Expr::SE_NoSideEffects))
    return std::nullopt;
  if (!R.Val.isInt())
    return std::nullopt;
  return R.Val.getInt().getExtValue();
}

unsigned Builder::sizeOf(QualType T) const {
  if (T.isNull())
    return 0;
  T = T.getNonReferenceType();
  if (T->isDependentType() || T->isIncompleteType() || T->isVoidType() ||
      T->isFunctionType() || T->isSizelessType() || T->containsErrors())
    return 0;
  if (const auto *RT = T->getAs<RecordType>())
    if (RT->getDecl()->isInvalidDecl())
      return 0;
  return static_cast<unsigned>(Ctx.getTypeSizeInChars(T).getQuantity());
}

unsigned Builder::pointeeSize(QualType T) const {
  if (T.isNull())
    return 0;
  T = T.getNonReferenceType();
  if (const auto *PT = T->getAs<PointerType>())
    return sizeOf(PT->getPointeeType());
  if (const ArrayType *AT = T->getAsArrayTypeUnsafe())
    return sizeOf(AT->getElementType());
  return 0;
}

std::string Builder::text(const Stmt *S) const {
  if (!S)
    return "?";
  const SourceManager &SM = Ctx.getSourceManager();
  CharSourceRange R = CharSourceRange::getTokenRange(S->getSourceRange());
  R = Lexer::makeFileCharRange(R, SM, Ctx.getLangOpts());
  if (R.isInvalid())
    return "?";
  bool Invalid = false;
  llvm::StringRef T = Lexer::getSourceText(R, SM, Ctx.getLangOpts(), &Invalid);
  if (Invalid || T.empty())
    return "?";
  std::string Out;
  for (char C : T.take_front(96)) {
    if (C == '\n' || C == '\t' || C == '\r')
      C = ' ';
    if (C == ' ' && !Out.empty() && Out.back() == ' ')
      continue;
    Out += C;
  }
  return Out;
}

Address Builder::toAddress(const PtrVal &P) const {
  Address A;
  if (P.Choice) {
    size_t N = 0;
    while (N < Choices.size() &&
           (Choices[N].first != P.Choice || Choices[N].second != P.ElemBytes))
      ++N;
    if (N == Choices.size())
      Choices.emplace_back(P.Choice, P.ElemBytes);
    A.Base = ChoiceTag + std::to_string(N);
    A.Index = P.Index;
    A.ByteOffset = P.ByteOffset;
    return A;
  }
  A.Base = P.Base;
  A.Peer = P.Peer;
  A.Index = P.Index;
  A.ByteOffset = P.ByteOffset;
  A.Space = P.Space;
  if (P.Peer)
    A.PeerLoc = P.PeerLoc;
  if (P.Peer && A.Space != AddrSpace::Multicast)
    A.Space = AddrSpace::Peer;
  return A;
}

void Builder::emitAccess(EventKind Kind, const PtrVal &P, QualType T,
                         const Stmt *At, ExprRef Value) {
  Event &E = emit(Kind, At);
  E.Addr = toAddress(P);
  E.Width = sizeOf(T);
  if (!T.isNull() && T.isVolatileQualified()) {
    E.Order = MemOrder::Volatile;
    E.Scp = Scope::System;
  }
  E.Value = std::move(Value);
  E.Text = text(At);
  if (Kind == EventKind::Load)
    LastLoad = static_cast<int>(K.Events.size()) - 1;
}

ExprRef Builder::loadValue(const clang::Expr *E, int EventIndex) {
  if (!Conds.empty() && Conds.back()->PolledEvent < 0 && EventIndex >= 0) {
    Conds.back()->PolledEvent = EventIndex;
    return Expr::var("polled");
  }
  return Expr::opaque(text(E));
}

/// Changes the element type of \p P to the pointee of \p PtrTy.
static void retype(PtrVal &P, unsigned NewSize) {
  if (NewSize == 0 || NewSize == P.ElemBytes)
    return;
  if (P.IsTable) {
    P.ElemBytes = NewSize;
    return;
  }
  if (!P.Index || isConst(P.Index, 0)) {
    P.ElemBytes = NewSize;
    return;
  }
  if (P.ElemBytes == 0) {
    P.Index = nullptr;
  } else {
    P.ByteOffset =
        P.ByteOffset
            ? mkAdd(P.ByteOffset, mkMul(P.Index, Expr::constant(P.ElemBytes)))
            : mkMul(P.Index, Expr::constant(P.ElemBytes));
    P.Index = Expr::constant(0);
  }
  P.ElemBytes = NewSize;
}

static const clang::Expr *skipWrappers(const clang::Expr *E) {
  while (E) {
    if (const auto *P = dyn_cast<ParenExpr>(E))
      E = P->getSubExpr();
    else if (const auto *F = dyn_cast<FullExpr>(E))
      E = F->getSubExpr();
    else if (const auto *M = dyn_cast<MaterializeTemporaryExpr>(E))
      E = M->getSubExpr();
    else if (const auto *B = dyn_cast<CXXBindTemporaryExpr>(E))
      E = B->getSubExpr();
    else if (const auto *D = dyn_cast<CXXDefaultArgExpr>(E))
      E = D->getExpr();
    else if (const auto *O = dyn_cast<OpaqueValueExpr>(E)) {
      if (!O->getSourceExpr())
        break;
      E = O->getSourceExpr();
    } else
      break;
  }
  return E;
}

/// "tid.x" & co for threadIdx.x, blockIdx.y, ... (Clang's builtin variables
/// are MS properties: PseudoObjectExpr over MSPropertyRefExpr).
static ExprRef builtinVar(const clang::Expr *E) {
  E = E ? E->IgnoreParenImpCasts() : nullptr;
  const clang::Expr *Base = nullptr;
  std::string Field;
  if (const auto *PO = dyn_cast_or_null<PseudoObjectExpr>(E)) {
    if (const auto *PR = dyn_cast<MSPropertyRefExpr>(
            PO->getSyntacticForm()->IgnoreParens())) {
      Base = PR->getBaseExpr();
      if (PR->getPropertyDecl())
        Field = PR->getPropertyDecl()->getName().str();
    }
  } else if (const auto *PR = dyn_cast_or_null<MSPropertyRefExpr>(E)) {
    Base = PR->getBaseExpr();
    if (PR->getPropertyDecl())
      Field = PR->getPropertyDecl()->getName().str();
  } else if (const auto *ME = dyn_cast_or_null<MemberExpr>(E)) {
    Base = ME->getBase();
    Field = ME->getMemberDecl()->getName().str();
  }
  if (!Base || Field.size() != 1 || Field[0] < 'x' || Field[0] > 'z')
    return nullptr;
  Base = Base->IgnoreParenImpCasts();
  if (const auto *OV = dyn_cast<OpaqueValueExpr>(Base))
    if (OV->getSourceExpr())
      Base = OV->getSourceExpr()->IgnoreParenImpCasts();
  const auto *DR = dyn_cast<DeclRefExpr>(Base);
  if (!DR || !DR->getDecl()->getIdentifier())
    return nullptr;
  llvm::StringRef N = DR->getDecl()->getName();
  const char *P = N == "threadIdx"  ? "tid."
                  : N == "blockIdx" ? "bid."
                  : N == "blockDim" ? "bdim."
                  : N == "gridDim"  ? "gdim."
                                    : nullptr;
  if (!P)
    return nullptr;
  return Expr::var(std::string(P) + Field);
}

static ExprOp binOp(BinaryOperatorKind K) {
  switch (K) {
  case BO_Add:
  case BO_AddAssign:
    return ExprOp::Add;
  case BO_Sub:
  case BO_SubAssign:
    return ExprOp::Sub;
  case BO_Mul:
  case BO_MulAssign:
    return ExprOp::Mul;
  case BO_Div:
  case BO_DivAssign:
    return ExprOp::Div;
  case BO_Rem:
  case BO_RemAssign:
    return ExprOp::Rem;
  case BO_Shl:
  case BO_ShlAssign:
    return ExprOp::Shl;
  case BO_Shr:
  case BO_ShrAssign:
    return ExprOp::Shr;
  case BO_And:
  case BO_AndAssign:
    return ExprOp::And;
  case BO_Or:
  case BO_OrAssign:
    return ExprOp::Or;
  case BO_Xor:
  case BO_XorAssign:
    return ExprOp::Xor;
  case BO_LT:
    return ExprOp::Lt;
  case BO_GT:
    return ExprOp::Gt;
  case BO_LE:
    return ExprOp::Le;
  case BO_GE:
    return ExprOp::Ge;
  case BO_EQ:
    return ExprOp::Eq;
  case BO_NE:
    return ExprOp::Ne;
  case BO_LAnd:
    return ExprOp::LAnd;
  case BO_LOr:
    return ExprOp::LOr;
  default:
    return ExprOp::Opaque;
  }
}

static ExprRef arith(ExprOp Op, ExprRef A, ExprRef B) {
  if (!A || !B)
    return nullptr;
  switch (Op) {
  case ExprOp::Add:
    return mkAdd(A, B);
  case ExprOp::Sub:
    return mkSub(A, B);
  case ExprOp::Mul:
    return mkMul(A, B);
  default:
    return Expr::binary(Op, A, B);
  }
}

//===----------------------------------------------------------------------===//
// Declarations.
//===----------------------------------------------------------------------===//

/// True if \p S assigns to \p VD (`=`, compound assignment, `++`/`--`);
/// with \p Indirect also where it may (its address, an inline-asm output, a
/// non-const reference argument of a call).
static bool assignsTo(const Stmt *S, const VarDecl *VD, bool Indirect = false) {
  if (!S)
    return false;
  auto Is = [VD](const clang::Expr *E) {
    const auto *DR =
        dyn_cast_or_null<DeclRefExpr>(E ? E->IgnoreParenImpCasts() : nullptr);
    return DR && DR->getDecl() == VD;
  };
  if (const auto *BO = dyn_cast<BinaryOperator>(S))
    if (BO->isAssignmentOp() && Is(BO->getLHS()))
      return true;
  if (const auto *UO = dyn_cast<UnaryOperator>(S))
    if ((UO->isIncrementDecrementOp() ||
         (Indirect && UO->getOpcode() == UO_AddrOf)) &&
        Is(UO->getSubExpr()))
      return true;
  if (Indirect) {
    if (const auto *A = dyn_cast<GCCAsmStmt>(S))
      for (unsigned I = 0; I < A->getNumOutputs(); ++I)
        if (Is(A->getOutputExpr(I)))
          return true;
    bool Found = false;
    if (const auto *CE = dyn_cast<CallExpr>(S))
      forEachMutableRefArg(CE, [&](const clang::Expr *A) { Found |= Is(A); });
    if (Found)
      return true;
  }
  for (const Stmt *C : S->children())
    if (assignsTo(C, VD, Indirect))
      return true;
  return false;
}

bool Builder::isExactName(const ExprRef &E) const {
  return E && E->Op == ExprOp::Var && K.LocalDefs.count(E->Name);
}

bool Builder::isValueLocal(const VarDecl *VD) {
  if (!VD || VD->hasGlobalStorage())
    return false;
  if (!VD->getType()->isReferenceType())
    return true;
  const auto *P = dyn_cast<ParmVarDecl>(VD);
  return P && frame().OutParams.count(P);
}

ExprRef Builder::localUnknown(const VarDecl *VD) {
  const auto &MD = multiDefs(frame().FD);
  auto It = MD.find(VD);
  if (It != MD.end() && It->second)
    return Expr::constant(*It->second);
  return Expr::var("local:" + VD->getName().str() + "@" +
                   std::to_string(Map.map(VD->getLocation()).Line));
}

bool Builder::straightLine() const {
  const Frame &F = Frames.back();
  if (Jumped || F.Dead)
    return false;
  if (Jumps.size() == F.JumpBase)
    return LoopStack.size() == F.LoopBase &&
           Guards.size() == F.GuardBase + F.ArmGuards;
  const JumpScope &J = Jumps.back();
  return J.Loop && J.Conds.empty() &&
         Guards.size() == J.GuardBase + (F.ArmGuards - J.ArmBase);
}

bool Builder::convertibleIf(const IfStmt *If) const {
  // No arm leaves early (return, break, continue, goto).
  auto Jumps = [](const Stmt *Arm) {
    return containsStmt<ReturnStmt, BreakStmt, ContinueStmt, GotoStmt,
                        IndirectGotoStmt>(Arm);
  };
  return straightLine() && !Jumps(If->getThen()) && !Jumps(If->getElse());
}

std::map<const ValueDecl *, ExprRef> Builder::intLocalValues() {
  std::map<const ValueDecl *, ExprRef> R;
  for (const auto &[D, V] : frame().Vars) {
    const auto *VD = dyn_cast<VarDecl>(D);
    if (isValueLocal(VD) && V.E && isIntegerVar(VD))
      R[D] = V.E;
  }
  return R;
}

bool Builder::exactAssignment(const VarDecl *VD) {
  if (!isIntegerVar(VD) || !straightLine())
    return false;
  multiDefs(frame().FD); // fills EscapedCache
  if (EscapedCache[frame().FD].count(VD))
    return false;
  // An out-parameter is copied back at the callee's end: an assignment
  // after an early return does not always reach the caller. In a loop it
  // is the caller's variable, which is not fresh in each iteration.
  const Frame &F = frame();
  const auto *P = dyn_cast<ParmVarDecl>(VD);
  if (P && F.OutParams.count(P) &&
      (!F.ReturnConds.empty() || !LoopStack.empty()))
    return false;
  // In a loop of this frame, only a local declared in the innermost body is
  // fresh in each iteration (one name per definition stands for the value
  // of every iteration).
  if (Jumps.size() == F.JumpBase)
    return true;
  const Stmt *L = Jumps.back().Loop;
  return L && Ctx.getSourceManager().isPointWithin(
                  VD->getLocation(), L->getBeginLoc(), L->getEndLoc());
}

ExprRef Builder::defineLocal(const VarDecl *VD, const ExprRef &V,
                             SourceLocation At) {
  if (!V || V->hasOpaque() || V->mentions("polled"))
    return nullptr;
  std::string Name = "local:" + VD->getName().str() + "@" +
                     std::to_string(Map.map(VD->getLocation()).Line) + ":" +
                     std::to_string(Map.map(At).Line);
  std::string Unique = Name;
  for (unsigned N = 2; K.LocalDefs.count(Unique); ++N)
    Unique = Name + "." + std::to_string(N);
  K.LocalDefs.emplace(Unique, V);
  return Expr::var(Unique);
}

ExprRef Builder::carriedStart(const VarDecl *VD) {
  if (!isValueLocal(VD) || !isIntegerVar(VD))
    return nullptr;
  auto It = frame().Vars.find(VD);
  if (It == frame().Vars.end() || !It->second.E)
    return nullptr;
  const ExprRef &E = It->second.E;
  if (E->Op == ExprOp::Const || isExactName(E))
    return E;
  return nullptr;
}

ExprRef Builder::exitValue(const ForStmt *F, const VarDecl *VD, const Loop &L) {
  if (!L.Init || !L.Bound || !L.Step || isa_and_nonnull<DeclStmt>(F->getInit()))
    return nullptr;
  if (assignsTo(F->getBody(), VD, /*Indirect=*/true) ||
      containsStmt<BreakStmt, GotoStmt, IndirectGotoStmt>(F->getBody()))
    return nullptr;
  // No loop variable, polled or opaque value (a local without an exact
  // value stays the engine's unknown, which makes a query approximate).
  std::function<bool(const ExprRef &)> Exact = [&](const ExprRef &E) {
    if (E->Op == ExprOp::Opaque)
      return false;
    if (E->Op == ExprOp::Var)
      return !(E->Name.rfind("loop:", 0) == 0 || E->Name == "polled");
    return std::all_of(E->Ops.begin(), E->Ops.end(),
                       [&](const ExprRef &X) { return !X || Exact(X); });
  };
  if (!Exact(L.Init) || !Exact(L.Bound) || !Exact(L.Step))
    return nullptr;
  const ExprRef &I0 = L.Init, &B = L.Bound, &St = L.Step;
  ExprRef Trips = Expr::binary(
      ExprOp::Div, mkSub(mkAdd(mkSub(B, I0), St), Expr::constant(1)), St);
  return Expr::select(Expr::binary(ExprOp::Lt, I0, B),
                      mkAdd(I0, mkMul(St, Trips)), I0);
}

void Builder::forgetAssignedIn(const Stmt *Loop) {
  for (auto &[D, V] : frame().Vars) {
    const auto *VD = dyn_cast<VarDecl>(D);
    if (VD && isExactName(V.E) && assignsTo(Loop, VD, /*Indirect=*/true))
      V.E = localUnknown(VD);
  }
}

void Builder::forgetRefArgs(const CallExpr *CE) {
  forEachMutableRefArg(CE, [&](const clang::Expr *A) {
    const auto *DR = dyn_cast<DeclRefExpr>(A->IgnoreParenImpCasts());
    const auto *VD = DR ? dyn_cast<VarDecl>(DR->getDecl()) : nullptr;
    if (!isValueLocal(VD))
      return;
    auto It = frame().Vars.find(VD);
    if (It != frame().Vars.end() && It->second.E && isIntegerVar(VD))
      It->second.E = localUnknown(VD);
  });
}

void Builder::bindLocal(const VarDecl *VD, Val V) {
  if (!VD)
    return;
  std::string Local = "local:" + VD->getName().str() + "@" +
                      std::to_string(Map.map(VD->getLocation()).Line);
  const auto &MD = multiDefs(frame().FD);
  auto It = MD.find(VD);
  if (It != MD.end()) {
    ExprRef Exact = !It->second && exactAssignment(VD)
                        ? defineLocal(VD, V.E, VD->getLocation())
                        : nullptr;
    V.E = Exact        ? Exact
          : It->second ? Expr::constant(*It->second)
                       : Expr::var(Local);
  } else if (!V.E || V.E->hasOpaque() || V.E->mentions("polled")) {
    V.E = Expr::var(Local);
  }
  // A copy of a local object has fields of its own (a reference aliases).
  if (V.Obj && !VD->getType()->isReferenceType())
    V.Obj = std::make_shared<ObjFields>(*V.Obj);
  frame().Vars[VD] = std::move(V);
}

Val Builder::declRef(const ValueDecl *D, const clang::Expr *At) {
  if (!D)
    return {Expr::opaque(text(At))};
  auto &Vars = frame().Vars;
  auto It = Vars.find(D);
  if (It != Vars.end()) {
    // A loop condition reading a local assigned from memory in the loop
    // body (do { v = ld(flag); } while (v != 1)) polls that read.
    if (const auto *VD = dyn_cast<VarDecl>(D))
      if (!Conds.empty() && Conds.back()->PolledEvent < 0) {
        auto L = frame().LoadedFrom.find(VD);
        if (L != frame().LoadedFrom.end() && L->second >= 0 &&
            (!Conds.back()->Body || assignsTo(Conds.back()->Body, VD))) {
          Conds.back()->PolledEvent = L->second;
          Val V = It->second;
          V.E = Expr::var("polled");
          return V;
        }
      }
    return It->second;
  }
  if (const auto *EC = dyn_cast<EnumConstantDecl>(D))
    return {Expr::constant(EC->getInitVal().getExtValue())};
  if (const auto *VD = dyn_cast<VarDecl>(D)) {
    if (VD->getName() == "warpSize")
      return {Expr::constant(32)};
    if (VD->hasGlobalStorage() || VD->hasAttr<CUDASharedAttr>()) {
      Val V{Expr::opaque(VD->getName().str())};
      QualType T = VD->getType();
      if (VD->hasAttr<CUDASharedAttr>() || VD->hasAttr<CUDADeviceAttr>() ||
          VD->hasAttr<CUDAConstantAttr>()) {
        PtrVal P;
        P.Base = VD->getName().str();
        P.Index = Expr::constant(0);
        P.Space = VD->hasAttr<CUDASharedAttr>() ? AddrSpace::Shared
                                                : AddrSpace::Global;
        P.ElemBytes = T->isArrayType() ? pointeeSize(T) : sizeOf(T);
        V.P = P;
        if (VD->hasAttr<CUDADeviceAttr>() && !T.isConstQualified() &&
            std::find(K.DeviceVars.begin(), K.DeviceVars.end(), P.Base) ==
                K.DeviceVars.end())
          K.DeviceVars.push_back(P.Base);
      }
      return V;
    }
    return {Expr::var("local:" + VD->getName().str() + "@" +
                      std::to_string(Map.map(VD->getLocation()).Line))};
  }
  return {Expr::opaque(text(At))};
}

//===----------------------------------------------------------------------===//
// Lvalues and pointers.
//===----------------------------------------------------------------------===//

std::optional<PtrVal> Builder::lvalue(const clang::Expr *E) {
  E = skipWrappers(E);
  if (!E || Budget == 0)
    return std::nullopt;
  --Budget;
  if (const auto *AS = dyn_cast<ArraySubscriptExpr>(E)) {
    std::optional<PtrVal> B = pointer(AS->getBase());
    ExprRef I = rv(AS->getIdx());
    if (!B)
      return std::nullopt;
    B->Index = B->Index ? mkAdd(B->Index, I) : nullptr;
    return B;
  }
  if (const auto *U = dyn_cast<UnaryOperator>(E)) {
    if (U->getOpcode() == UO_Deref)
      return pointer(U->getSubExpr());
    if (U->getOpcode() == UO_Extension)
      return lvalue(U->getSubExpr());
  }
  if (const auto *DR = dyn_cast<DeclRefExpr>(E)) {
    const ValueDecl *D = DR->getDecl();
    if (const auto *VD = dyn_cast<VarDecl>(D)) {
      if (VD->getType()->isReferenceType() || VD->hasAttr<CUDASharedAttr>() ||
          (VD->hasGlobalStorage() && !VD->isStaticLocal()))
        return declRef(D, E).P;
    }
    return std::nullopt; // a local variable: not memory
  }
  if (const auto *ME = dyn_cast<MemberExpr>(E)) {
    std::optional<PtrVal> B =
        ME->isArrow() ? pointer(ME->getBase()) : lvalue(ME->getBase());
    if (!B)
      return std::nullopt;
    const auto *FD = dyn_cast<FieldDecl>(ME->getMemberDecl());
    if (FD && !FD->getParent()->isDependentType() &&
        !FD->getParent()->isInvalidDecl() && FD->getParent()->getDefinition()) {
      const ASTRecordLayout &L = Ctx.getASTRecordLayout(FD->getParent());
      int64_t Off = static_cast<int64_t>(L.getFieldOffset(FD->getFieldIndex()) /
                                         Ctx.getCharWidth());
      if (B->ElemBytes && B->Index)
        B->ByteOffset =
            mkAdd(B->ByteOffset ? B->ByteOffset : Expr::constant(0),
                  mkAdd(mkMul(B->Index, Expr::constant(B->ElemBytes)),
                        Expr::constant(Off)));
      else
        B->ByteOffset = nullptr;
      B->Index = Expr::constant(0);
      B->ElemBytes = sizeOf(FD->getType());
    } else {
      B->Index = nullptr;
    }
    return B;
  }
  if (const auto *CO = dyn_cast<ConditionalOperator>(E)) {
    rv(CO->getCond());
    std::optional<PtrVal> A = lvalue(CO->getTrueExpr());
    std::optional<PtrVal> B = lvalue(CO->getFalseExpr());
    if (A && B && A->Base == B->Base && !A->Choice && !B->Choice) {
      A->Index = nullptr;
      return A;
    }
    return std::nullopt;
  }
  eval(E);
  return std::nullopt;
}

/// The pointer stored in the pointer-typed glvalue \p S (a variable, an
/// ABI field, a table element `peers[r]`, a PtrArray element, `*pp`).
std::optional<PtrVal> Builder::readPointer(const clang::Expr *S) {
  if (const auto *DR = dyn_cast<DeclRefExpr>(S))
    return declRef(DR->getDecl(), S).P;
  if (const auto *ME = dyn_cast<MemberExpr>(S))
    if (std::optional<Val> F = fieldValue(ME))
      return F->P;
  // Reading a pointer out of a table: peers[r] -> peer pointer.
  if (const auto *AS = dyn_cast<ArraySubscriptExpr>(S)) {
    if (ptrArrayOf(AS->getBase()))
      return readPtrArray(AS);
    std::optional<PtrVal> B = pointer(AS->getBase());
    ExprRef I = rv(AS->getIdx());
    if (!B)
      return std::nullopt;
    PtrVal P;
    P.Base = B->Base;
    P.Peer = B->Peer ? B->Peer : (B->Index ? mkAdd(B->Index, I) : I);
    P.Index = Expr::constant(0);
    P.Space = AddrSpace::Peer;
    P.ElemBytes = pointeeSize(S->getType());
    P.PeerLoc = Map.map(S->getBeginLoc());
    return P;
  }
  if (const auto *U = dyn_cast<UnaryOperator>(S))
    if (U->getOpcode() == UO_Deref) {
      std::optional<PtrVal> B = pointer(U->getSubExpr());
      if (!B)
        return std::nullopt;
      PtrVal P;
      P.Base = B->Base;
      P.Peer = B->Index ? B->Index : Expr::constant(0);
      P.Index = Expr::constant(0);
      P.Space = AddrSpace::Peer;
      P.ElemBytes = pointeeSize(S->getType());
      P.PeerLoc = Map.map(S->getBeginLoc());
      return P;
    }
  lvalue(S);
  return std::nullopt;
}

std::optional<PtrVal> Builder::pointer(const clang::Expr *E) {
  E = skipWrappers(E);
  if (!E || Budget == 0)
    return std::nullopt;
  --Budget;
  if (const auto *CE = dyn_cast<CastExpr>(E)) {
    const clang::Expr *Sub = CE->getSubExpr();
    unsigned NewSize = pointeeSize(CE->getType());
    if (CE->getCastKind() == CK_LValueToRValue)
      return readPointer(skipWrappers(Sub));
    std::optional<PtrVal> P;
    if (Sub->getType()->isPointerType() || Sub->getType()->isArrayType() ||
        Sub->getType()->isNullPtrType())
      P = CE->getCastKind() == CK_ArrayToPointerDecay && !isa<CastExpr>(Sub)
              ? arrayBase(Sub)
              : pointer(Sub);
    else
      P = eval(Sub).P;
    if (P && !E->getType()->isIntegerType())
      retype(*P, NewSize);
    return P;
  }
  if (isa<DeclRefExpr>(E) || isa<MemberExpr>(E))
    return arrayBase(E);
  if (const auto *BO = dyn_cast<BinaryOperator>(E)) {
    if (BO->getOpcode() == BO_Add || BO->getOpcode() == BO_Sub) {
      bool LP = BO->getLHS()->getType()->isPointerType() ||
                BO->getLHS()->getType()->isArrayType();
      const clang::Expr *PE = LP ? BO->getLHS() : BO->getRHS();
      const clang::Expr *IE = LP ? BO->getRHS() : BO->getLHS();
      if (!IE->getType()->isIntegralOrEnumerationType()) {
        rv(BO->getLHS());
        rv(BO->getRHS());
        return std::nullopt;
      }
      std::optional<PtrVal> P = pointer(PE);
      ExprRef I = rv(IE);
      if (!P)
        return std::nullopt;
      if (P->Index)
        P->Index =
            BO->getOpcode() == BO_Add ? mkAdd(P->Index, I) : mkSub(P->Index, I);
      return P;
    }
  }
  if (const auto *U = dyn_cast<UnaryOperator>(E)) {
    if (U->getOpcode() == UO_AddrOf)
      return lvalue(U->getSubExpr());
  }
  if (const auto *CO = dyn_cast<ConditionalOperator>(E)) {
    ExprRef C = rv(CO->getCond());
    std::optional<PtrVal> A = pointer(CO->getTrueExpr());
    std::optional<PtrVal> B = pointer(CO->getFalseExpr());
    if (A && B && A->Base == B->Base && A->Space == B->Space && !A->Choice &&
        !B->Choice) {
      if (A->Peer && B->Peer && A->Peer != B->Peer)
        A->Peer = Expr::select(C, A->Peer, B->Peer);
      if (A->Index && B->Index)
        A->Index = Expr::select(C, A->Index, B->Index);
      else
        A->Index = nullptr;
      return A;
    }
    return std::nullopt;
  }
  return evalOther(E).P;
}

/// Pointer to the first element of an array lvalue or pointer-valued
/// declaration (parameter, local, shared array, ABI field).
std::optional<PtrVal> Builder::arrayBase(const clang::Expr *E) {
  E = skipWrappers(E);
  if (const auto *DR = dyn_cast_or_null<DeclRefExpr>(E))
    return declRef(DR->getDecl(), E).P;
  if (const auto *ME = dyn_cast_or_null<MemberExpr>(E)) {
    if (std::optional<Val> F = fieldValue(ME))
      return F->P;
    std::optional<PtrVal> P = lvalue(E);
    if (P) {
      P->ElemBytes = pointeeSize(E->getType());
      P->Index = Expr::constant(0);
    }
    return P;
  }
  return lvalue(E);
}

//===----------------------------------------------------------------------===//
// Rvalues.
//===----------------------------------------------------------------------===//

Val Builder::recordRead(const clang::Expr *E) {
  const clang::Expr *S = skipWrappers(E);
  if (!S)
    return {Expr::opaque("?")};
  if (const auto *IC = dyn_cast<ImplicitCastExpr>(S))
    if (IC->getCastKind() == CK_NoOp || IC->getCastKind() == CK_DerivedToBase ||
        IC->getCastKind() == CK_UncheckedDerivedToBase)
      S = skipWrappers(IC->getSubExpr());
  QualType T = S->getType();
  if (S->isGLValue() && !T.isNull() && T->isRecordType()) {
    Scope Sc;
    unsigned W = 0;
    if (atomicRefInfo(T, Sc, W) || !T->getAsCXXRecordDecl() ||
        !T->getAsCXXRecordDecl()->hasDefinition())
      return eval(S);
    if (const auto *DR = dyn_cast<DeclRefExpr>(S)) {
      const auto *VD = dyn_cast<VarDecl>(DR->getDecl());
      if (!VD ||
          (!VD->hasGlobalStorage() && !VD->getType()->isReferenceType() &&
           !VD->hasAttr<CUDASharedAttr>()))
        return eval(S); // a local or by-value parameter: no memory access
    }
    std::optional<PtrVal> P = lvalue(S);
    if (!P)
      return {Expr::opaque(text(S))};
    emitAccess(EventKind::Load, *P, T, S);
    return {loadValue(S, static_cast<int>(K.Events.size()) - 1)};
  }
  return eval(S);
}

/// True if \p RHS reads an lvalue of \p LHS's type and yields it
/// unchanged (parentheses and no-op casts aside): the assignment copies.
static bool plainCopy(const clang::Expr *RHS, const clang::Expr *LHS) {
  const clang::Expr *X = RHS->IgnoreParens();
  bool Read = false;
  while (const auto *IC = dyn_cast<ImplicitCastExpr>(X)) {
    if (IC->getCastKind() == CK_LValueToRValue)
      Read = true;
    else if (IC->getCastKind() != CK_NoOp)
      return false;
    X = IC->getSubExpr()->IgnoreParens();
  }
  if (!Read || !X->isGLValue() || !X->getType()->isScalarType())
    return false;
  return X->getType().getCanonicalType().getUnqualifiedType() ==
         LHS->getType().getCanonicalType().getUnqualifiedType();
}

Val Builder::eval(const clang::Expr *E) {
  E = skipWrappers(E);
  if (!E)
    return {Expr::opaque("?")};
  if (Budget == 0)
    return {Expr::opaque(text(E))};
  --Budget;
  if (!E->HasSideEffects(Ctx))
    if (std::optional<int64_t> C = constant(E))
      return {Expr::constant(*C)};
  QualType T = E->getType();
  bool IsPtr = !T.isNull() && (T->isPointerType() || T->isArrayType());
  bool Special = isa<CallExpr>(E) || isa<ConditionalOperator>(E) ||
                 isa<BinaryOperator>(E) || isa<UnaryOperator>(E);
  if (IsPtr && !Special)
    return {Expr::opaque(text(E)), pointer(E)};
  if (IsPtr) {
    if (const auto *BO = dyn_cast<BinaryOperator>(E))
      if (BO->getOpcode() == BO_Add || BO->getOpcode() == BO_Sub)
        return {Expr::opaque(text(E)), pointer(E)};
    if (const auto *U = dyn_cast<UnaryOperator>(E))
      if (U->getOpcode() == UO_AddrOf)
        return {Expr::opaque(text(E)), pointer(E)};
    if (isa<ConditionalOperator>(E))
      return {Expr::opaque(text(E)), pointer(E)};
  }
  return evalOther(E);
}

/// The value read from glvalue \p S (the operand of an lvalue-to-rvalue
/// conversion \p E), emitting the Load. A conditional glvalue `c ? a[i] :
/// b[j]` reads each branch under its condition.
Val Builder::readLValue(const clang::Expr *S, const clang::Expr *E) {
  if (const auto *CO = dyn_cast<ConditionalOperator>(S)) {
    ExprRef C = rv(CO->getCond());
    Guards.push_back(C);
    Val A = readLValue(skipWrappers(CO->getTrueExpr()), CO->getTrueExpr());
    Guards.back() = mkNot(C);
    Val B = readLValue(skipWrappers(CO->getFalseExpr()), CO->getFalseExpr());
    Guards.pop_back();
    Val R{Expr::select(C, A.E, B.E)};
    if (A.P && B.P && A.P->Base == B.P->Base && !A.P->Choice && !B.P->Choice)
      R.P = A.P;
    return R;
  }
  if (const auto *DR = dyn_cast<DeclRefExpr>(S)) {
    const ValueDecl *D = DR->getDecl();
    const auto *VD = dyn_cast<VarDecl>(D);
    bool Memory =
        VD && ((VD->getType()->isReferenceType() && !isValueLocal(VD)) ||
               VD->hasAttr<CUDASharedAttr>() ||
               (VD->hasGlobalStorage() && !VD->isStaticLocal() &&
                !VD->getType().isConstQualified()));
    if (!Memory)
      return declRef(D, S);
  }
  if (const auto *ME = dyn_cast<MemberExpr>(S))
    if (std::optional<Val> F = fieldValue(ME))
      return *F;
  // Integer read from an address table: (T*)ptrs[r] designates a peer.
  if (const auto *AS = dyn_cast<ArraySubscriptExpr>(S)) {
    if (const auto *BD =
            dyn_cast<DeclRefExpr>(AS->getBase()->IgnoreParenImpCasts()))
      if (const auto *PV = dyn_cast<ParmVarDecl>(BD->getDecl()))
        if (TableParms.count(PV)) {
          std::optional<PtrVal> B = pointer(AS->getBase());
          ExprRef I = rv(AS->getIdx());
          if (B) {
            PtrVal P;
            P.Base = B->Base;
            P.Peer = B->Peer ? B->Peer : I;
            P.Index = Expr::constant(0);
            P.Space = AddrSpace::Peer;
            P.PeerLoc = Map.map(S->getBeginLoc());
            AddrTables.insert(B->Base);
            return {Expr::opaque(text(E)), P};
          }
        }
  }
  std::optional<PtrVal> L = lvalue(S);
  if (!L)
    return {Expr::opaque(text(E))};
  if (L->IsTable) {
    PtrVal P = *L;
    P.IsTable = false;
    P.Peer = L->Index;
    P.Index = Expr::constant(0);
    P.Space = AddrSpace::Peer;
    P.PeerLoc = Map.map(S->getBeginLoc());
    return {Expr::opaque(text(E)), P};
  }
  emitAccess(EventKind::Load, *L, S->getType(), S);
  ExprRef V = loadValue(S, static_cast<int>(K.Events.size()) - 1);
  if (V->Op == ExprOp::Opaque)
    if (const auto *DR = dyn_cast<DeclRefExpr>(S))
      if (const auto *VD = dyn_cast<VarDecl>(DR->getDecl()))
        if (VD->hasAttr<CUDADeviceAttr>() && !VD->isStaticLocal() &&
            VD->getType()->isIntegralOrEnumerationType())
          V = Expr::var("global:" + VD->getName().str());
  return {V};
}

Val Builder::evalOther(const clang::Expr *E) {
  if (ExprRef B = builtinVar(E))
    return {B};
  if (const auto *CE = dyn_cast<CastExpr>(E)) {
    const clang::Expr *Sub = CE->getSubExpr();
    if (CE->getCastKind() == CK_LValueToRValue)
      return readLValue(skipWrappers(Sub), E);
    Val V = eval(Sub);
    if (CE->getType()->isPointerType() && V.P)
      retype(*V.P, pointeeSize(CE->getType()));
    return V;
  }
  if (const auto *DR = dyn_cast<DeclRefExpr>(E))
    return declRef(DR->getDecl(), E);
  if (const auto *ME = dyn_cast<MemberExpr>(E)) {
    if (std::optional<Val> F = fieldValue(ME))
      return *F;
    lvalue(E);
    return {Expr::opaque(text(E))};
  }
  if (const auto *BO = dyn_cast<BinaryOperator>(E)) {
    BinaryOperatorKind Op = BO->getOpcode();
    if (Op == BO_Comma) {
      eval(BO->getLHS());
      return eval(BO->getRHS());
    }
    if (BO->isAssignmentOp()) {
      // C++17: the right operand is sequenced before the left.
      const clang::Expr *L = skipWrappers(BO->getLHS());
      if (Op == BO_Assign && storePtrArray(L, BO->getRHS()))
        return {Expr::opaque(text(E))};
      int Before = static_cast<int>(K.Events.size());
      int LastBefore = LastLoad;
      Val R = eval(BO->getRHS());
      if (const auto *DR = dyn_cast<DeclRefExpr>(L)) {
        const auto *VD = dyn_cast<VarDecl>(DR->getDecl());
        if (isValueLocal(VD)) {
          Val NV = frame().Vars.count(VD) ? frame().Vars[VD] : Val{};
          if (Op == BO_Assign) {
            if (R.P)
              NV.P = R.P;
            else
              NV.P.reset();
            if (LastLoad != LastBefore && LastLoad >= Before)
              frame().LoadedFrom[VD] = LastLoad;
            else
              frame().LoadedFrom.erase(VD);
          } else if (NV.P) {
            NV.P->Index = nullptr;
          }
          // An integer local: the exact value of a plain assignment that
          // always runs and reads no memory, else "some assigned value".
          if (isIntegerVar(VD)) {
            ExprRef Exact =
                Op == BO_Assign && LastLoad == LastBefore && exactAssignment(VD)
                    ? defineLocal(VD, R.E, BO->getBeginLoc())
                    : nullptr;
            NV.E = Exact ? Exact : localUnknown(VD);
          }
          if (!NV.E)
            NV.E = Expr::var("local:" + VD->getName().str() + "@" +
                             std::to_string(Map.map(VD->getLocation()).Line));
          frame().Vars[VD] = NV;
          return R;
        }
      }
      // A field of a local object (`Ch.flag = p`, `this->count += 1`).
      if (setField(L, Op, R))
        return R;
      std::optional<PtrVal> P = lvalue(L);
      if (!P)
        return R;
      if (Op != BO_Assign) {
        emitAccess(EventKind::Load, *P, L->getType(), E);
        emitAccess(EventKind::Store, *P, L->getType(), E, nullptr);
        K.Events.back().RmwStore = true;
      } else {
        emitAccess(EventKind::Store, *P, L->getType(), E, R.E);
        // `a[i] = a[i] + v`: the right side read the stored lvalue.
        Event &St = K.Events.back();
        for (size_t I = static_cast<size_t>(Before); I + 1 < K.Events.size();
             ++I)
          if (K.Events[I].Kind == EventKind::Load &&
              sameAddress(K.Events[I].Addr, St.Addr))
            St.RmwStore = true;
        // `y[i] = x[j]`: the right side is that one load, unchanged.
        if (K.Events.size() == static_cast<size_t>(Before) + 2) {
          const Event &Ld = K.Events[static_cast<size_t>(Before)];
          if (Ld.Kind == EventKind::Load && Ld.Width == St.Width &&
              !St.RmwStore && plainCopy(BO->getRHS(), L))
            St.CopyOf = std::make_shared<const Address>(Ld.Addr);
        }
      }
      return R;
    }
    if (Op == BO_LAnd || Op == BO_LOr) {
      ExprRef A = rv(BO->getLHS());
      Guards.push_back(Op == BO_LAnd ? A : mkNot(A));
      ExprRef B = rv(BO->getRHS());
      Guards.pop_back();
      return {Expr::binary(binOp(Op), A, B)};
    }
    ExprRef A = rv(BO->getLHS());
    ExprRef B = rv(BO->getRHS());
    ExprOp O = binOp(Op);
    if (O == ExprOp::Opaque)
      return {Expr::opaque(text(E))};
    return {arith(O, A, B)};
  }
  if (const auto *U = dyn_cast<UnaryOperator>(E)) {
    switch (U->getOpcode()) {
    case UO_Minus: {
      ExprRef A = rv(U->getSubExpr());
      return {A->Op == ExprOp::Const ? Expr::constant(-A->Value)
                                     : Expr::unary(ExprOp::Neg, A)};
    }
    case UO_Plus:
    case UO_Extension:
      return eval(U->getSubExpr());
    case UO_Not:
      return {Expr::unary(ExprOp::Not, rv(U->getSubExpr()))};
    case UO_LNot:
      return {mkNot(rv(U->getSubExpr()))};
    case UO_PreInc:
    case UO_PreDec:
    case UO_PostInc:
    case UO_PostDec: {
      const clang::Expr *S = skipWrappers(U->getSubExpr());
      if (const auto *DR = dyn_cast<DeclRefExpr>(S))
        if (const auto *VD = dyn_cast<VarDecl>(DR->getDecl()))
          if (isValueLocal(VD)) {
            Val V = declRef(VD, S);
            if (V.P)
              V.P->Index = nullptr;
            if (isIntegerVar(VD))
              V.E = localUnknown(VD);
            frame().Vars[VD] = V;
            frame().LoadedFrom.erase(VD);
            return {Expr::opaque(text(E))};
          }
      if (std::optional<PtrVal> P = lvalue(S)) {
        emitAccess(EventKind::Load, *P, S->getType(), E);
        emitAccess(EventKind::Store, *P, S->getType(), E);
        K.Events.back().RmwStore = true;
      }
      return {Expr::opaque(text(E))};
    }
    case UO_AddrOf:
      return {Expr::opaque(text(E)), lvalue(U->getSubExpr())};
    case UO_Deref:
      lvalue(E);
      return {Expr::opaque(text(E))};
    default:
      break;
    }
  }
  if (const auto *CO = dyn_cast<ConditionalOperator>(E)) {
    ExprRef C = rv(CO->getCond());
    Guards.push_back(C);
    Val A = eval(CO->getTrueExpr());
    Guards.back() = mkNot(C);
    Val B = eval(CO->getFalseExpr());
    Guards.pop_back();
    Val R{Expr::select(C, A.E, B.E)};
    if (A.P && B.P && A.P->Base == B.P->Base && !A.P->Choice && !B.P->Choice)
      R.P = A.P;
    return R;
  }
  if (const auto *CE = dyn_cast<CallExpr>(E))
    return call(CE);
  if (const auto *AE = dyn_cast<AtomicExpr>(E))
    return atomicBuiltin(AE);
  if (const auto *CC = dyn_cast<CXXConstructExpr>(E)) {
    Scope S = Scope::System;
    unsigned W = 0;
    if (atomicRefInfo(CC->getType(), S, W) && CC->getNumArgs() >= 1) {
      Val V{Expr::opaque(text(E))};
      const clang::Expr *A0 = skipWrappers(CC->getArg(0));
      // Copy construction from another atomic_ref.
      Scope S2;
      unsigned W2 = 0;
      if (atomicRefInfo(A0->getType(), S2, W2)) {
        Val O = eval(A0);
        if (O.IsAtomicRef)
          return O;
      }
      V.P = lvalue(A0);
      if (V.P)
        V.P->ElemBytes = W;
      V.IsAtomicRef = true;
      V.RefScope = S;
      return V;
    }
    const CXXConstructorDecl *Ctor = CC->getConstructor();
    if (Ctor && Ctor->isCopyOrMoveConstructor() && CC->getNumArgs() >= 1)
      return recordRead(CC->getArg(0));
    for (const clang::Expr *A : CC->arguments())
      recordRead(A);
    return {Expr::opaque(text(E))};
  }
  if (const auto *IL = dyn_cast<InitListExpr>(E)) {
    for (const clang::Expr *A : IL->inits())
      eval(A);
    return {Expr::opaque(text(E))};
  }
  if (isa<UnaryExprOrTypeTraitExpr>(E) || isa<FloatingLiteral>(E) ||
      isa<StringLiteral>(E) || isa<CXXNullPtrLiteralExpr>(E))
    return {Expr::opaque(text(E))};
  // Anything else (dependent expressions in generic templates, lambdas,
  // ...): evaluate the children for their side effects.
  for (const Stmt *C : E->children())
    if (const auto *CE = dyn_cast_or_null<clang::Expr>(C))
      eval(CE);
  return {Expr::opaque(text(E))};
}

} // namespace pkb::fe
