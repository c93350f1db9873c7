//===- EventBuilder.cpp - Statement walk: guards, loops, spin waits -------===//
//
// Walks a kernel body in program order. If-conditions become Guard entries
// (an early return under c adds !c to every later event of the same
// function), loops become Loop records (induction variable, init, bound,
// step), loops whose condition reads memory become SpinWait events, inline
// asm goes through ptx::decode, and __device__ calls are inlined with their
// parameters bound to the argument values. See docs/frontend.md.
//
//===----------------------------------------------------------------------===//

#include "Builder.h"

#include "pkb/Ptx.h"

#include "clang/AST/RecursiveASTVisitor.h"

namespace pkb::fe {

using namespace clang;

//===----------------------------------------------------------------------===//
// Events and guards.
//===----------------------------------------------------------------------===//

std::vector<ExprRef> Builder::currentGuard() const {
  std::vector<ExprRef> G;
  for (const Frame &F : Frames)
    for (const ExprRef &R : F.ReturnConds)
      G.push_back(R);
  for (const ExprRef &C : Guards)
    if (C)
      G.push_back(C);
  for (const JumpScope &J : Jumps)
    for (const ExprRef &C : J.Conds)
      G.push_back(C);
  return G;
}

Event &Builder::emit(EventKind Kind, const Stmt *At) {
  Event E;
  E.Kind = Kind;
  E.Loc = At ? Map.map(At->getBeginLoc()) : SourceLoc{};
  E.Guard = currentGuard();
  E.Loops = LoopStack;
  E.InlinedFrom = InlineStack;
  K.Events.push_back(std::move(E));
  return K.Events.back();
}

//===----------------------------------------------------------------------===//
// Locals assigned more than once.
//===----------------------------------------------------------------------===//

namespace {
class DefScanner : public RecursiveASTVisitor<DefScanner> {
public:
  std::map<const VarDecl *, std::optional<int64_t>> Defs;
  std::map<const VarDecl *, int> Count;
  ASTContext &Ctx;
  explicit DefScanner(ASTContext &Ctx) : Ctx(Ctx) {}

  static const VarDecl *local(const clang::Expr *E) {
    const auto *DR =
        dyn_cast_or_null<DeclRefExpr>(E ? E->IgnoreParenImpCasts() : nullptr);
    const auto *VD = DR ? dyn_cast<VarDecl>(DR->getDecl()) : nullptr;
    return VD && !VD->hasGlobalStorage() ? VD : nullptr;
  }
  void def(const VarDecl *VD, std::optional<int64_t> C) {
    if (!VD)
      return;
    auto [It, New] = Defs.try_emplace(VD, C);
    if (!New && It->second != C)
      It->second = std::nullopt;
  }
  bool VisitBinaryOperator(BinaryOperator *BO) {
    if (!BO->isAssignmentOp())
      return true;
    std::optional<int64_t> C;
    const clang::Expr *R = BO->getRHS();
    clang::Expr::EvalResult ER;
    if (BO->getOpcode() == BO_Assign && !R->isValueDependent() &&
        R->getType()->isIntegralOrEnumerationType() &&
        R->EvaluateAsInt(ER, Ctx) && ER.Val.isInt())
      C = ER.Val.getInt().getExtValue();
    def(local(BO->getLHS()), C);
    return true;
  }
  bool VisitUnaryOperator(UnaryOperator *U) {
    if (U->isIncrementDecrementOp() || U->getOpcode() == UO_AddrOf)
      def(local(U->getSubExpr()), std::nullopt);
    if (U->getOpcode() == UO_AddrOf)
      escape(local(U->getSubExpr()));
    return true;
  }
  bool VisitGCCAsmStmt(GCCAsmStmt *A) {
    for (unsigned I = 0; I < A->getNumOutputs(); ++I)
      def(local(A->getOutputExpr(I)), std::nullopt);
    return true;
  }
  // `blockRange(n, Lo, Hi)` with `size_t &Lo`: the inlined callee assigns
  // Lo. The reference arguments of library functions are not defs here
  // (as before): `while (!ref.compare_exchange_strong(expected, 1)) {
  // expected = 0; }` keeps `expected` the constant of its assignments,
  // since the body resets it before every call.
  bool VisitCallExpr(CallExpr *CE) {
    const FunctionDecl *Def = nullptr;
    const FunctionDecl *FD = CE->getDirectCallee();
    if (FD && FD->hasBody(Def) && !inSystemHeader(Ctx, Def))
      forEachMutableRefArg(
          CE, [&](const clang::Expr *A) { def(local(A), std::nullopt); });
    return true;
  }
  // `Ref R(Lo)`, `size_t &R = Lo`, `[&] { ... }`: writes through another
  // name, which the builder does not follow.
  bool VisitCXXConstructExpr(CXXConstructExpr *CE) {
    const CXXConstructorDecl *C = CE->getConstructor();
    for (unsigned I = 0; C && I < CE->getNumArgs() && I < C->getNumParams();
         ++I)
      if (isMutableRef(C->getParamDecl(I)->getType())) {
        if (!inSystemHeader(Ctx, C))
          def(local(CE->getArg(I)), std::nullopt);
        escape(local(CE->getArg(I)));
      }
    return true;
  }
  bool VisitVarDecl(VarDecl *VD) {
    if (isMutableRef(VD->getType()) && VD->getInit())
      escape(local(VD->getInit()));
    return true;
  }
  bool VisitLambdaExpr(LambdaExpr *L) {
    for (const LambdaCapture &C : L->captures())
      if (C.capturesVariable() && C.getCaptureKind() == LCK_ByRef)
        if (const auto *VD = dyn_cast<VarDecl>(C.getCapturedVar()))
          escape(VD->hasGlobalStorage() ? nullptr : VD);
    return true;
  }
  void escape(const VarDecl *VD) {
    if (VD)
      Escaped.insert(VD);
  }
  std::set<const VarDecl *> Escaped;
};
} // namespace

bool isMutableRef(QualType T) {
  return T->isReferenceType() && !T.getNonReferenceType().isConstQualified();
}

void forEachMutableRefArg(const CallExpr *CE,
                          llvm::function_ref<void(const clang::Expr *)> Fn) {
  const FunctionDecl *FD = CE->getDirectCallee();
  if (!FD)
    return;
  unsigned Base = isa<CXXOperatorCallExpr>(CE) && isa<CXXMethodDecl>(FD);
  for (unsigned I = Base; I < CE->getNumArgs(); ++I)
    if (I - Base < FD->getNumParams() &&
        isMutableRef(FD->getParamDecl(I - Base)->getType()))
      Fn(CE->getArg(I));
}

const std::map<const VarDecl *, std::optional<int64_t>> &
Builder::multiDefs(const FunctionDecl *FD) {
  auto It = MultiDefCache.find(FD);
  if (It != MultiDefCache.end())
    return It->second;
  auto &Out = MultiDefCache[FD];
  if (!FD || !FD->getBody())
    return Out;
  DefScanner S(Ctx);
  S.TraverseStmt(const_cast<Stmt *>(FD->getBody()));
  EscapedCache[FD] = std::move(S.Escaped);
  for (auto &[VD, C] : S.Defs) {
    std::optional<int64_t> V = C;
    if (V) {
      const clang::Expr *I = VD->getInit();
      std::optional<int64_t> IV = I ? constant(I) : std::nullopt;
      if (I && IV != V)
        V = std::nullopt;
    }
    Out[VD] = V;
  }
  return Out;
}

//===----------------------------------------------------------------------===//
// Loops and spin waits.
//===----------------------------------------------------------------------===//

namespace {
/// The loop variable and step of `for (T i = a; i OP b; i += s)`.
struct ForShape {
  const VarDecl *Var = nullptr;
  const clang::Expr *Init = nullptr;
  const clang::Expr *StepExpr = nullptr;
  int StepSign = 0; ///< +1/-1 for ++/--, 0 for an expression step
  bool Sub = false; ///< i -= s
  /// `for (; i < n; i += s)`: no init, the variable continues from before
  /// the loop (a vector loop's index carried into the scalar tail).
  bool Carried = false;
};
} // namespace

static ForShape forShape(const ForStmt *F) {
  ForShape S;
  if (const auto *DS = dyn_cast_or_null<DeclStmt>(F->getInit())) {
    if (DS->isSingleDecl())
      if (const auto *VD = dyn_cast<VarDecl>(DS->getSingleDecl())) {
        S.Var = VD;
        S.Init = VD->getInit();
      }
  } else if (const auto *BO = dyn_cast_or_null<BinaryOperator>(F->getInit())) {
    if (BO->getOpcode() == BO_Assign)
      if (const auto *DR =
              dyn_cast<DeclRefExpr>(BO->getLHS()->IgnoreParenImpCasts())) {
        S.Var = dyn_cast<VarDecl>(DR->getDecl());
        S.Init = BO->getRHS();
      }
  }
  const clang::Expr *Inc = F->getInc() ? F->getInc()->IgnoreParens() : nullptr;
  if (!F->getInit() && Inc) {
    const clang::Expr *X = nullptr;
    if (const auto *U = dyn_cast<UnaryOperator>(Inc))
      X = U->getSubExpr();
    else if (const auto *BO = dyn_cast<BinaryOperator>(Inc))
      X = BO->getLHS();
    if (const auto *DR = dyn_cast_or_null<DeclRefExpr>(
            X ? X->IgnoreParenImpCasts() : nullptr)) {
      S.Var = dyn_cast<VarDecl>(DR->getDecl());
      S.Carried = true;
    }
  }
  auto IsVar = [&](const clang::Expr *E) {
    const auto *DR =
        dyn_cast_or_null<DeclRefExpr>(E ? E->IgnoreParenImpCasts() : nullptr);
    return DR && S.Var && DR->getDecl() == S.Var;
  };
  if (const auto *U = dyn_cast_or_null<UnaryOperator>(Inc)) {
    if (U->isIncrementDecrementOp() && IsVar(U->getSubExpr()))
      S.StepSign = U->isIncrementOp() ? 1 : -1;
  } else if (const auto *BO = dyn_cast_or_null<BinaryOperator>(Inc)) {
    if ((BO->getOpcode() == BO_AddAssign || BO->getOpcode() == BO_SubAssign) &&
        IsVar(BO->getLHS())) {
      S.StepExpr = BO->getRHS();
      S.Sub = BO->getOpcode() == BO_SubAssign;
    } else if (BO->getOpcode() == BO_Assign && IsVar(BO->getLHS())) {
      if (const auto *R =
              dyn_cast<BinaryOperator>(BO->getRHS()->IgnoreParenImpCasts()))
        if ((R->getOpcode() == BO_Add || R->getOpcode() == BO_Sub) &&
            IsVar(R->getLHS())) {
          S.StepExpr = R->getRHS();
          S.Sub = R->getOpcode() == BO_Sub;
        }
    }
  }
  if (!S.StepSign && !S.StepExpr)
    S.Var = nullptr; // not an induction variable we understand
  return S;
}

/// True if \p E is the loop variable \p LV, or `LV + c`, `c + LV`, `LV - c`
/// with c free of LV; \p Off is then c (-c), or null for LV itself.
static bool isLoopVarPlus(const ExprRef &E, const std::string &LV,
                          ExprRef &Off) {
  auto Is = [&](const ExprRef &X) {
    return X && X->Op == ExprOp::Var && X->Name == LV;
  };
  Off = nullptr;
  if (Is(E))
    return true;
  if (!E || E->Ops.size() != 2 ||
      (E->Op != ExprOp::Add && E->Op != ExprOp::Sub))
    return false;
  for (int I = 0; I < 2; ++I)
    if (Is(E->Ops[I]) && !E->Ops[1 - I]->mentions(LV) &&
        (E->Op == ExprOp::Add || I == 0)) {
      Off = E->Op == ExprOp::Add ? E->Ops[1 - I]
                                 : Expr::unary(ExprOp::Neg, E->Ops[1]);
      return true;
    }
  return false;
}

/// Splits `polled OP v` (or `v OP polled`) into OP and v.
static void compareParts(const ExprRef &C, std::string &Op, ExprRef &V) {
  if (!C)
    return;
  auto IsPolled = [](const ExprRef &E) {
    return E && E->Op == ExprOp::Var && E->Name == "polled";
  };
  if (IsPolled(C)) {
    Op = "!=";
    V = Expr::constant(0);
    return;
  }
  if (C->Op == ExprOp::LNot && C->Ops.size() == 1 && IsPolled(C->Ops[0])) {
    Op = "==";
    V = Expr::constant(0);
    return;
  }
  if (C->Ops.size() != 2)
    return;
  static const struct {
    ExprOp Op;
    const char *S, *Mirror;
  } Cmp[] = {{ExprOp::Eq, "==", "=="}, {ExprOp::Ne, "!=", "!="},
             {ExprOp::Lt, "<", ">"},   {ExprOp::Le, "<=", ">="},
             {ExprOp::Gt, ">", "<"},   {ExprOp::Ge, ">=", "<="}};
  for (const auto &X : Cmp)
    if (C->Op == X.Op) {
      if (IsPolled(C->Ops[0])) {
        Op = X.S;
        V = C->Ops[1];
      } else if (IsPolled(C->Ops[1])) {
        Op = X.Mirror;
        V = C->Ops[0];
      }
    }
}

/// Turns the polled read of a loop condition into a SpinWait event.
static void makeSpin(Builder &B, const CondCtx &C, ExprRef ExitCond,
                     unsigned LoopId, const Stmt *At) {
  if (C.PolledEvent < 0 || C.PolledEvent >= static_cast<int>(B.K.Events.size()))
    return;
  Event P = B.K.Events[C.PolledEvent];
  Event S;
  S.Kind = EventKind::SpinWait;
  S.Loc = At ? B.Map.map(At->getBeginLoc()) : P.Loc;
  S.Addr = P.Addr;
  S.Width = P.Width;
  S.Order = P.Order;
  S.Scp = P.Scp;
  S.AtomicOp = P.AtomicOp;
  S.Text = P.Text;
  S.Guard = P.Guard;
  for (unsigned L : P.Loops)
    if (L != LoopId)
      S.Loops.push_back(L);
  S.InlinedFrom = B.InlineStack;
  S.ExitCond = ExitCond;
  compareParts(ExitCond, S.CompareOp, S.Value);
  if (P.Kind == EventKind::Load) {
    B.K.Events[C.PolledEvent] = std::move(S);
  } else {
    // An RMW that polls (CAS loop): the wait, then the successful RMW.
    Event &R = B.K.Events[C.PolledEvent];
    R.Loops = S.Loops;
    B.K.Events.insert(B.K.Events.begin() + C.PolledEvent, std::move(S));
  }
}

static bool isInfinite(Builder &B, const clang::Expr *Cond) {
  if (!Cond)
    return true;
  std::optional<int64_t> V = B.constant(Cond);
  return V && *V != 0;
}

static bool isBreak(const Stmt *S) {
  if (!S)
    return false;
  if (isa<BreakStmt>(S))
    return true;
  if (const auto *CS = dyn_cast<CompoundStmt>(S))
    return CS->size() >= 1 && isa<BreakStmt>(CS->body_back());
  return false;
}

namespace {
/// RAII loop registration.
struct LoopScope {
  Builder &B;
  unsigned Id;
  bool Open = true;
  LoopScope(Builder &B, const Stmt *S) : B(B) {
    B.forgetAssignedIn(S);
    Loop L;
    L.Id = Id = static_cast<unsigned>(B.K.Loops.size());
    L.ParentId =
        B.LoopStack.empty() ? -1 : static_cast<int>(B.LoopStack.back());
    L.Loc = B.Map.map(S->getBeginLoc());
    B.K.Loops.push_back(L);
    B.LoopStack.push_back(Id);
    B.Jumps.push_back({B.Guards.size(), false, {}, S, B.frame().ArmGuards});
  }
  ~LoopScope() { close(); }
  /// Leaves the loop before the scope ends (idempotent).
  void close() {
    if (!Open)
      return;
    Open = false;
    B.LoopStack.pop_back();
    B.Jumps.pop_back();
  }
  Loop &loop() { return B.K.Loops[Id]; }
};
} // namespace

/// Body of a `while (true)` loop: `if (c) break;` with c reading memory is
/// the exit of a spin wait.
static void infiniteBody(Builder &B, const Stmt *Body, unsigned LoopId) {
  const auto *CS = dyn_cast_or_null<CompoundStmt>(Body);
  if (!CS) {
    B.stmt(Body);
    return;
  }
  for (const Stmt *S : CS->body()) {
    if (B.frame().Dead || B.Jumped)
      break;
    const auto *If = dyn_cast<IfStmt>(S);
    if (If && !If->getElse() && isBreak(If->getThen()) && !If->getInit()) {
      CondCtx C;
      B.Conds.push_back(&C);
      ExprRef Cond = B.rv(If->getCond());
      B.Conds.pop_back();
      makeSpin(B, C, Cond, LoopId, If->getCond());
      if (C.PolledEvent >= 0)
        continue;
      B.Guards.push_back(Cond);
      B.stmt(If->getThen());
      B.Guards.pop_back();
      B.Jumped = false;
      continue;
    }
    B.stmt(S);
  }
  B.Jumped = false;
}

//===----------------------------------------------------------------------===//
// Statements.
//===----------------------------------------------------------------------===//

void Builder::stmt(const Stmt *S) {
  if (!S || Budget == 0)
    return;
  --Budget;
  if (const auto *CS = dyn_cast<CompoundStmt>(S)) {
    for (const Stmt *C : CS->body()) {
      if (frame().Dead || Jumped)
        break;
      stmt(C);
    }
    return;
  }
  if (const auto *E = dyn_cast<clang::Expr>(S)) {
    eval(E);
    return;
  }
  if (const auto *DS = dyn_cast<DeclStmt>(S)) {
    for (const Decl *D : DS->decls()) {
      const auto *VD = dyn_cast<VarDecl>(D);
      if (!VD)
        continue;
      if (VD->hasAttr<CUDASharedAttr>()) {
        std::string N = VD->getName().str();
        QualType T = VD->getType();
        unsigned W = T->isArrayType() ? pointeeSize(T) : sizeOf(T);
        bool Have = false;
        for (auto &SV : K.SharedVars)
          Have |= SV.first == N;
        if (!Have)
          K.SharedVars.emplace_back(N, W);
        continue;
      }
      if (VD->hasGlobalStorage())
        continue;
      if (isPtrArrayType(VD->getType())) {
        bindLocal(VD, declarePtrArray(VD));
        continue;
      }
      const clang::Expr *Init = VD->getInit();
      Val V;
      if (Init) {
        int Before = static_cast<int>(K.Events.size());
        int LastBefore = LastLoad;
        if (VD->getType()->isReferenceType()) {
          V.P = lvalue(Init);
          if (!V.P) {
            V = eval(Init);
          }
        } else {
          V = eval(Init);
        }
        if (LastLoad != LastBefore && LastLoad >= Before)
          frame().LoadedFrom[VD] = LastLoad;
      }
      bindLocal(VD, std::move(V));
    }
    return;
  }
  if (const auto *If = dyn_cast<IfStmt>(S)) {
    if (If->getInit())
      stmt(If->getInit());
    if (const DeclStmt *CV = If->getConditionVariableDeclStmt())
      stmt(CV);
    std::optional<int64_t> CVal;
    if (If->isConstexpr() || !If->getCond()->HasSideEffects(Ctx))
      CVal = constant(If->getCond());
    if (CVal) {
      stmt(*CVal ? If->getThen() : If->getElse());
      return;
    }
    ExprRef C = If->getConditionVariable() ? Expr::opaque(text(If->getCond()))
                                           : rv(If->getCond());
    // If-conversion of the integer locals (`if (Lo > N) Lo = N;`): inside
    // the arms assignments have exact values under the arm's condition;
    // after the `if`, a local assigned in an arm is `C ? then : else`.
    std::optional<std::map<const ValueDecl *, ExprRef>> Before;
    if (convertibleIf(If))
      Before = intLocalValues();
    if (Before)
      ++frame().ArmGuards;
    Guards.push_back(C);
    stmt(If->getThen());
    Guards.pop_back();
    bool JThen = Jumped;
    Jumped = false;
    // The else arm starts from the values before the `if`.
    std::map<const ValueDecl *, ExprRef> AfterThen;
    if (Before)
      for (auto &[D, E] : *Before) {
        Val &V = frame().Vars[D];
        if (V.E != E) {
          AfterThen[D] = V.E;
          V.E = E;
        }
      }
    if (If->getElse()) {
      Guards.push_back(mkNot(C));
      stmt(If->getElse());
      Guards.pop_back();
    }
    Jumped = JThen && Jumped;
    if (Before) {
      --frame().ArmGuards;
      for (auto &[D, E] : *Before) {
        auto T = AfterThen.find(D);
        ExprRef TE = T != AfterThen.end() ? T->second : E;
        Val &V = frame().Vars[D];
        if (TE == E && V.E == E)
          continue;
        const auto *VD = cast<VarDecl>(D);
        ExprRef Unknown = localUnknown(VD);
        auto Known = [&](const ExprRef &X) {
          return X && !(X->Op == ExprOp::Var && Unknown->Op == ExprOp::Var &&
                        X->Name == Unknown->Name);
        };
        ExprRef M =
            Known(TE) && Known(V.E) && exactAssignment(VD)
                ? defineLocal(VD, Expr::select(C, TE, V.E), If->getBeginLoc())
                : nullptr;
        V.E = M ? M : Unknown;
      }
    }
    return;
  }
  if (const auto *F = dyn_cast<ForStmt>(S)) {
    ForShape Sh = forShape(F);
    ExprRef InitV;
    if (Sh.Var && Sh.Carried) {
      // The variable's value before the loop is its start when exactly
      // known (`size_t i = tid; for (; i < n8; i += s)`); otherwise the
      // loop is no induction loop, as before.
      InitV = carriedStart(Sh.Var);
      if (!InitV)
        Sh.Var = nullptr;
    } else if (Sh.Var) {
      InitV = rv(Sh.Init);
    } else if (F->getInit()) {
      stmt(F->getInit());
    }
    // The variable's value after the loop (exitValue()), when exact.
    ExprRef Exit;
    LoopScope LS(*this, S);
    unsigned Id = LS.Id;
    bool BoundedAbove = false; // `i < b` or `i <= b`, ascending
    if (Sh.Var) {
      LS.loop().InductionVar = Sh.Var->getName().str();
      LS.loop().Init = InitV;
      Val V{Expr::var("loop:" + std::to_string(Id))};
      frame().Vars[Sh.Var] = V;
      // Known before the body (PtrArray reads check for `++d`); the final
      // step is set after it.
      if (Sh.StepSign > 0)
        LS.loop().Step = Expr::constant(1);
    }
    if (const DeclStmt *CV = F->getConditionVariableDeclStmt())
      stmt(CV);
    bool Inf = isInfinite(*this, F->getCond());
    CondCtx C;
    C.Body = F->getBody();
    ExprRef Cond;
    if (F->getCond()) {
      Conds.push_back(&C);
      Cond = rv(F->getCond());
      Conds.pop_back();
    }
    if (Cond && Sh.Var && Cond->Ops.size() == 2) {
      std::string LV = "loop:" + std::to_string(Id);
      // `i + c < b` (an unrolled loop's `i + 3 * s < n`) bounds i by b - c.
      ExprRef Off0, Off1;
      bool L0 = isLoopVarPlus(Cond->Ops[0], LV, Off0);
      bool L1 = !L0 && isLoopVarPlus(Cond->Ops[1], LV, Off1);
      ExprRef Other = L0 ? Cond->Ops[1] : L1 ? Cond->Ops[0] : nullptr;
      if (ExprRef Off = L0 ? Off0 : Off1; Other && Off)
        Other = mkSub(Other, Off);
      ExprOp Op = Cond->Op;
      if (L1) // b > i  ==  i < b
        Op = Op == ExprOp::Gt   ? ExprOp::Lt
             : Op == ExprOp::Ge ? ExprOp::Le
             : Op == ExprOp::Lt ? ExprOp::Gt
             : Op == ExprOp::Le ? ExprOp::Ge
                                : Op;
      if (Other) {
        Loop &L = LS.loop();
        switch (Op) {
        case ExprOp::Lt:
        case ExprOp::Ne:
          L.Bound = Other;
          BoundedAbove = Op == ExprOp::Lt;
          break;
        case ExprOp::Le:
          L.Bound = mkAdd(Other, Expr::constant(1));
          BoundedAbove = true;
          break;
        case ExprOp::Gt:
          L.Bound = Other;
          L.Ascending = false;
          break;
        case ExprOp::Ge:
          L.Bound = mkSub(Other, Expr::constant(1));
          L.Ascending = false;
          break;
        default:
          break;
        }
      }
    }
    if (C.PolledEvent >= 0)
      makeSpin(*this, C, mkNot(Cond), Id, F->getCond());
    if (Inf)
      infiniteBody(*this, F->getBody(), Id);
    else
      stmt(F->getBody());
    Jumped = false;
    if (Sh.Var) {
      ExprRef Step =
          Sh.StepSign ? Expr::constant(Sh.StepSign) : rv(Sh.StepExpr);
      if (Sh.Sub)
        Step = Step->Op == ExprOp::Const ? Expr::constant(-Step->Value)
                                         : Expr::unary(ExprOp::Neg, Step);
      LS.loop().Step = Step;
      if (Sh.StepSign < 0 || Sh.Sub)
        LS.loop().Ascending = false;
      frame().Vars[Sh.Var] =
          Val{Expr::var("local:" + Sh.Var->getName().str() + "@" +
                        std::to_string(Map.map(Sh.Var->getLocation()).Line))};
      if (BoundedAbove && LS.loop().Ascending && C.PolledEvent < 0 && !Inf)
        Exit = exitValue(F, Sh.Var, LS.loop());
    } else if (F->getInc()) {
      eval(F->getInc());
    }
    LS.close();
    // Back at a straight-line point: the exit value is the variable's
    // exact value (a vector loop's index that the scalar tail continues).
    if (Exit && exactAssignment(Sh.Var))
      if (ExprRef D = defineLocal(Sh.Var, Exit, F->getEndLoc()))
        frame().Vars[Sh.Var].E = D;
    return;
  }
  if (const auto *W = dyn_cast<WhileStmt>(S)) {
    LoopScope LS(*this, S);
    if (const DeclStmt *CV = W->getConditionVariableDeclStmt())
      stmt(CV);
    bool Inf = isInfinite(*this, W->getCond());
    CondCtx C;
    C.Body = W->getBody();
    Conds.push_back(&C);
    ExprRef Cond = rv(W->getCond());
    Conds.pop_back();
    if (C.PolledEvent >= 0)
      makeSpin(*this, C, mkNot(Cond), LS.Id, W->getCond());
    if (Inf)
      infiniteBody(*this, W->getBody(), LS.Id);
    else
      stmt(W->getBody());
    Jumped = false;
    return;
  }
  if (const auto *D = dyn_cast<DoStmt>(S)) {
    LoopScope LS(*this, S);
    size_t Start = K.Events.size();
    if (isInfinite(*this, D->getCond()))
      infiniteBody(*this, D->getBody(), LS.Id);
    else
      stmt(D->getBody());
    Jumped = false;
    CondCtx C;
    Conds.push_back(&C);
    ExprRef Cond = rv(D->getCond());
    Conds.pop_back();
    if (C.PolledEvent >= static_cast<int>(Start))
      makeSpin(*this, C, mkNot(Cond), LS.Id, D->getCond());
    return;
  }
  if (const auto *FR = dyn_cast<CXXForRangeStmt>(S)) {
    if (FR->getRangeInit())
      eval(FR->getRangeInit());
    LoopScope LS(*this, S);
    if (const VarDecl *LV = FR->getLoopVariable())
      frame().Vars[LV] =
          Val{Expr::var("local:" + LV->getName().str() + "@" +
                        std::to_string(Map.map(LV->getLocation()).Line))};
    stmt(FR->getBody());
    Jumped = false;
    return;
  }
  if (const auto *R = dyn_cast<ReturnStmt>(S)) {
    Val V;
    if (R->getRetValue())
      V = eval(R->getRetValue());
    Frame &F = frame();
    std::vector<ExprRef> Local(Guards.begin() + F.GuardBase, Guards.end());
    if (Frames.size() == 1) {
      Event &E = emit(EventKind::Return, S);
      E.Text = "return";
    } else {
      if (F.Returns == 0)
        F.Ret = V;
      else if (F.Ret && V.E && F.Ret->E && F.Ret->E->str() != V.E->str())
        F.Ret->E = Expr::opaque("return value of " + F.FD->getNameAsString());
      ++F.Returns;
    }
    ExprRef C = mkAnd(Local);
    if (!C)
      F.Dead = true;
    else
      F.ReturnConds.push_back(mkNot(C));
    return;
  }
  if (isa<BreakStmt>(S) || isa<ContinueStmt>(S)) {
    // A conditional jump guards the rest of the loop (switch) body with the
    // negation of the conditions it sits under.
    JumpScope *J = nullptr;
    for (auto It = Jumps.rbegin(); It != Jumps.rend() && !J; ++It)
      if (isa<BreakStmt>(S) || !It->IsSwitch)
        J = &*It;
    if (J && J->GuardBase < Guards.size()) {
      std::vector<ExprRef> Local(Guards.begin() + J->GuardBase, Guards.end());
      if (ExprRef C = mkAnd(Local))
        J->Conds.push_back(mkNot(C));
    }
    Jumped = true;
    return;
  }
  if (const auto *A = dyn_cast<GCCAsmStmt>(S)) {
    asmStmt(A);
    return;
  }
  if (const auto *SW = dyn_cast<SwitchStmt>(S)) {
    if (SW->getInit())
      stmt(SW->getInit());
    ExprRef C = rv(SW->getCond());
    (void)C;
    Jumps.push_back({Guards.size(), true, {}, nullptr, frame().ArmGuards});
    stmt(SW->getBody());
    Jumps.pop_back();
    Jumped = false;
    K.Notes.push_back("switch at line " +
                      std::to_string(Map.map(S->getBeginLoc()).Line) +
                      ": case guards are not modeled");
    return;
  }
  if (const auto *CS = dyn_cast<SwitchCase>(S)) {
    stmt(CS->getSubStmt());
    return;
  }
  if (const auto *L = dyn_cast<LabelStmt>(S)) {
    stmt(L->getSubStmt());
    return;
  }
  if (const auto *AS = dyn_cast<AttributedStmt>(S)) {
    stmt(AS->getSubStmt());
    return;
  }
  if (isa<NullStmt>(S) || isa<GotoStmt>(S))
    return;
  for (const Stmt *C : S->children())
    stmt(C);
}

//===----------------------------------------------------------------------===//
// Inline PTX.
//===----------------------------------------------------------------------===//

void Builder::asmStmt(const GCCAsmStmt *A) {
  if (!A->getAsmString())
    return;
  std::string T = A->getAsmString()->getString().str();
  std::vector<ptx::Inst> Insts = ptx::decode(T);
  if (Diags)
    for (const ptx::Inst &I : Insts)
      if (I.Unknown) {
        pkb::Diagnostic D;
        D.Code = std::string(toString(ptx::UnknownInstructionCode));
        D.Sev = Severity::Note;
        D.Loc = Map.map(A->getBeginLoc());
        D.Message = ptx::unknownInstructionMessage(I);
        Diags->push_back(std::move(D)); // repeats are merged per file
      }
  unsigned NOut = A->getNumOutputs(), NIn = A->getNumInputs();
  std::vector<Val> In(NIn);
  for (unsigned I = 0; I < NIn; ++I)
    In[I] = eval(A->getInputExpr(I));
  auto Operand = [&](int K) -> const Val * {
    if (K < 0)
      return nullptr;
    unsigned U = static_cast<unsigned>(K);
    if (U >= NOut && U - NOut < NIn)
      return &In[U - NOut];
    return nullptr;
  };
  std::set<const VarDecl *> LoadedOutputs;
  for (const ptx::Inst &I : Insts) {
    EventKind Kind;
    switch (I.Kind) {
    case ptx::InstKind::Load:
      Kind = EventKind::Load;
      break;
    case ptx::InstKind::Store:
      Kind = EventKind::Store;
      break;
    case ptx::InstKind::Atomic:
      Kind = EventKind::Atomic;
      break;
    case ptx::InstKind::Reduction:
      Kind = EventKind::Reduction;
      break;
    case ptx::InstKind::Fence:
      Kind = EventKind::Fence;
      break;
    case ptx::InstKind::Barrier:
      Kind = EventKind::Barrier;
      break;
    case ptx::InstKind::Multimem:
      Kind = llvm::StringRef(I.Mnemonic).contains("ld_reduce") ? EventKind::Load
             : llvm::StringRef(I.Mnemonic).contains(".st")
                 ? EventKind::Store
                 : EventKind::Reduction;
      break;
    case ptx::InstKind::BulkCopy:
      Kind = EventKind::BulkCopy;
      break;
    case ptx::InstKind::Other:
      continue;
    default:
      Kind = EventKind::Opaque;
      break;
    }
    Event &E = emit(Kind, A);
    E.Text = I.Text;
    E.Order = I.Order;
    E.Scp = I.Scp;
    E.Width = I.Width;
    E.AtomicOp = I.AtomicOp;
    E.Barrier = I.Barrier;
    if (I.Predicated)
      E.Guard.push_back(Expr::opaque("asm predicate"));
    if (const Val *V = Operand(I.AddrOperand)) {
      if (V->P) {
        E.Addr = toAddress(*V->P);
      } else {
        E.Addr.Base = "asm:" + V->E->str();
      }
    }
    if (I.Kind == ptx::InstKind::Multimem)
      E.Addr.Space = AddrSpace::Multicast;
    else if (E.Addr.Space == AddrSpace::Unknown ||
             (E.Addr.Space == AddrSpace::Global &&
              I.Space == AddrSpace::Shared))
      E.Addr.Space = I.Space;
    if (const Val *V = Operand(I.ValueOperand))
      E.Value = V->E;
    if (I.Barrier == BarrierKind::Named) {
      // bar{.cta}.sync/arrive a{, b}; bar{.cta}.red.op d, a{, b}, {!}c
      size_t IdIdx = llvm::StringRef(I.Mnemonic).ends_with(".red") ? 1 : 0;
      auto OperandValue = [&](size_t OI) -> ExprRef {
        if (OI >= I.Operands.size())
          return nullptr;
        llvm::StringRef T = llvm::StringRef(I.Operands[OI]).trim();
        unsigned long long N = 0;
        if (!T.getAsInteger(0, N))
          return Expr::constant(static_cast<int64_t>(N));
        if (T.consume_front("%") && !T.getAsInteger(10, N))
          if (const Val *V = Operand(static_cast<int>(N)); V && V->E && !V->P)
            return V->E->Op == ExprOp::Opaque ? nullptr : V->E;
        return nullptr;
      };
      E.BarrierId = OperandValue(IdIdx);
      if (I.Operands.size() >= IdIdx + 2 + (IdIdx ? 1 : 0))
        E.BarrierThreads = OperandValue(IdIdx + 1);
    }
    int Idx = static_cast<int>(K.Events.size()) - 1;
    if ((Kind == EventKind::Load || Kind == EventKind::Atomic) &&
        I.DestOperand >= 0 && static_cast<unsigned>(I.DestOperand) < NOut) {
      const auto *DR = dyn_cast<DeclRefExpr>(
          A->getOutputExpr(I.DestOperand)->IgnoreParenImpCasts());
      const auto *VD = DR ? dyn_cast<VarDecl>(DR->getDecl()) : nullptr;
      if (VD && !VD->hasGlobalStorage()) {
        LastLoad = Idx;
        Val NV;
        NV.E = loadValue(DR, Idx);
        if (NV.E->Op != ExprOp::Var)
          NV.E = Expr::var("local:" + VD->getName().str() + "@" +
                           std::to_string(Map.map(VD->getLocation()).Line));
        frame().Vars[VD] = NV;
        frame().LoadedFrom[VD] = Idx;
        LoadedOutputs.insert(VD);
      }
    }
  }
  // Other outputs: unknown values.
  for (unsigned I = 0; I < NOut; ++I) {
    const auto *DR =
        dyn_cast<DeclRefExpr>(A->getOutputExpr(I)->IgnoreParenImpCasts());
    const auto *VD = DR ? dyn_cast<VarDecl>(DR->getDecl()) : nullptr;
    if (VD && !VD->hasGlobalStorage() && !LoadedOutputs.count(VD)) {
      frame().Vars[VD] =
          Val{Expr::var("local:" + VD->getName().str() + "@" +
                        std::to_string(Map.map(VD->getLocation()).Line))};
      frame().LoadedFrom.erase(VD);
    }
  }
}

//===----------------------------------------------------------------------===//
// Inlining.
//===----------------------------------------------------------------------===//

/// True if \p S contains a loop statement.
static bool hasLoop(const Stmt *S) {
  return containsStmt<ForStmt, WhileStmt, DoStmt, CXXForRangeStmt>(S);
}

Val Builder::callUser(const CallExpr *CE, const FunctionDecl *Callee) {
  std::string Name = kernelName(Callee);
  bool Recursive = false;
  for (const Frame &F : Frames)
    Recursive |= F.FD == Callee;
  unsigned ArgBase =
      isa<CXXOperatorCallExpr>(CE) && isa<CXXMethodDecl>(Callee) ? 1 : 0;
  // The object of a member call: `this` in the callee designates a local
  // object's tracked fields, or a flattened by-value struct.
  std::shared_ptr<ObjFields> This;
  std::string ThisRecord;
  if (const auto *MC = dyn_cast<CXXMemberCallExpr>(CE)) {
    const clang::Expr *O = MC->getImplicitObjectArgument();
    eval(O);
    const clang::Expr *OS = O ? O->IgnoreParenImpCasts() : nullptr;
    if (isa_and_nonnull<CXXThisExpr>(OS)) {
      This = frame().This;
      ThisRecord = frame().ThisRecord;
    } else if (const auto *ME =
                   dyn_cast<MemberExpr>(MC->getCallee()->IgnoreParens());
               OS && ME && !ME->isArrow()) {
      if (std::optional<std::string> R = recordRoot(OS))
        ThisRecord = *R;
      else
        This = objectOf(OS, /*Create=*/true);
    }
  }
  std::vector<Val> Args;
  // Integer locals of the caller passed by non-const reference
  // (`blockRange(n, Lo, Hi)`): the parameter, the local, its value then.
  struct OutParam {
    const ParmVarDecl *P;
    const VarDecl *Local;
    ExprRef AtCall;
  };
  std::vector<OutParam> Outs;
  unsigned NP = Callee->getNumParams();
  for (unsigned I = ArgBase; I < CE->getNumArgs(); ++I) {
    const clang::Expr *A = CE->getArg(I);
    unsigned PI = I - ArgBase;
    const ParmVarDecl *P = PI < NP ? Callee->getParamDecl(PI) : nullptr;
    Val V;
    if (P && isMutableRef(P->getType())) {
      const auto *DR = dyn_cast<DeclRefExpr>(A->IgnoreParenImpCasts());
      const auto *VD = DR ? dyn_cast<VarDecl>(DR->getDecl()) : nullptr;
      if (VD && !VD->hasGlobalStorage() &&
          (!isa<ParmVarDecl>(VD) || isValueLocal(VD))) {
        V = eval(A); // a local passed by reference: its value
        if (isIntegerVar(VD) && isIntegerVar(P))
          Outs.push_back({P, VD, V.E});
      } else {
        V.P = lvalue(A);
      }
      if (!V.E)
        V.E = Expr::opaque(text(A));
    } else {
      V = eval(A);
      if (!V.Arr)
        V.Arr = ptrArrayOf(A);
      // A struct argument that is a flattened record or a struct field of
      // one (`f(args.view)`) keeps its flattened name in the callee.
      if (A->getType()->getAsRecordDecl())
        if (std::optional<std::string> R = recordRoot(A))
          V.Record = *R;
    }
    Args.push_back(std::move(V));
  }
  if (Recursive || InlineStack.size() >= Opts.InlineDepth) {
    forgetRefArgs(CE);
    Event &E = emit(EventKind::Call, CE);
    E.Text = Name;
    K.Notes.push_back((Recursive ? "recursive call to "
                                 : "inline depth " +
                                       std::to_string(Opts.InlineDepth) +
                                       " reached at ") +
                      Name + " (line " + std::to_string(E.Loc.Line) + ")");
    return {Expr::opaque(text(CE))};
  }
  Frame F;
  F.FD = Callee;
  F.This = std::move(This);
  F.ThisRecord = std::move(ThisRecord);
  F.GuardBase = Guards.size();
  F.LoopBase = LoopStack.size();
  F.JumpBase = Jumps.size();
  for (const OutParam &O : Outs)
    F.OutParams.insert(O.P);
  for (unsigned I = 0; I < NP && I < Args.size(); ++I) {
    const ParmVarDecl *P = Callee->getParamDecl(I);
    Val V = Args[I];
    if (V.P && !V.P->Choice && TableParms.count(P))
      V.P->IsTable = true;
    // An object passed by value is a copy (by reference: the caller's).
    if (V.Obj && !P->getType()->isReferenceType())
      V.Obj = std::make_shared<ObjFields>(*V.Obj);
    if (V.E && (V.E->hasOpaque() || V.E->mentions("polled")))
      V.E = Expr::var("local:" + P->getName().str() + "@" +
                      std::to_string(Map.map(P->getLocation()).Line));
    F.Vars[P] = std::move(V);
  }
  for (unsigned I = static_cast<unsigned>(Args.size()); I < NP; ++I) {
    const ParmVarDecl *P = Callee->getParamDecl(I);
    F.Vars[P] = P->hasDefaultArg() && !P->hasUninstantiatedDefaultArg()
                    ? eval(P->getDefaultArg())
                    : Val{Expr::var("local:" + P->getName().str())};
  }
  Frames.push_back(std::move(F));
  InlineStack.push_back(Name);
  bool SavedJump = Jumped;
  Jumped = false;
  size_t Before = K.Events.size();
  stmt(Callee->getBody());
  Jumped = SavedJump;
  InlineStack.pop_back();
  // A one-event wrapper without loops (`st_release_sys(p, v)`, `ld_acquire`)
  // acts like an instruction: its event is reported at the call site.
  if (K.Events.size() == Before + 1 && !hasLoop(Callee->getBody())) {
    Event &E = K.Events.back();
    if (!E.InstLoc.isValid())
      E.InstLoc = E.Loc;
    E.Loc = Map.map(CE->getBeginLoc());
  }
  Val R = Frames.back().Ret ? *Frames.back().Ret : Val{};
  std::vector<std::pair<const VarDecl *, ExprRef>> Final;
  for (const OutParam &O : Outs) {
    const Val &V = Frames.back().Vars[O.P];
    Final.emplace_back(O.Local, V.E == O.AtCall ? nullptr : V.E);
  }
  Frames.pop_back();
  Inlined.insert(CE);
  // The callee's final value of an out-parameter that it assigned: exact
  // when both the callee's assignment and this call always run, else "some
  // assigned value" of the caller's local.
  for (const auto &[VD, E] : Final) {
    if (!E)
      continue;
    bool Exact = isExactName(E) && exactAssignment(VD);
    frame().Vars[VD].E = Exact ? E : localUnknown(VD);
    frame().LoadedFrom.erase(VD);
  }
  if (!R.E)
    R.E = Expr::opaque(text(CE));
  return R;
}

//===----------------------------------------------------------------------===//
// Entry point.
//===----------------------------------------------------------------------===//

/// Adds the names of the variables of \p E to \p Out.
static void varsOf(const ExprRef &E, std::set<std::string> &Out) {
  if (!E)
    return;
  if (E->Op == ExprOp::Var)
    Out.insert(E->Name);
  for (const ExprRef &O : E->Ops)
    varsOf(O, Out);
}

void Builder::pruneLocalDefs() {
  if (K.LocalDefs.empty())
    return;
  std::set<std::string> Used;
  auto Addr = [&](const Address &A) {
    varsOf(A.Peer, Used);
    varsOf(A.Index, Used);
    varsOf(A.ByteOffset, Used);
  };
  for (const Event &E : K.Events) {
    Addr(E.Addr);
    if (E.CopyOf)
      Addr(*E.CopyOf);
    for (const ExprRef &X :
         {E.Value, E.ExitCond, E.BarrierId, E.BarrierThreads})
      varsOf(X, Used);
    for (const ExprRef &G : E.Guard)
      varsOf(G, Used);
  }
  for (const Loop &L : K.Loops)
    for (const ExprRef &X : {L.Init, L.Bound, L.Step})
      varsOf(X, Used);
  // The values of used definitions use others (`Hi = Lo + per`).
  std::vector<std::string> Work(Used.begin(), Used.end());
  while (!Work.empty()) {
    auto It = K.LocalDefs.find(Work.back());
    Work.pop_back();
    if (It == K.LocalDefs.end())
      continue;
    std::set<std::string> More;
    varsOf(It->second, More);
    for (const std::string &N : More)
      if (Used.insert(N).second)
        Work.push_back(N);
  }
  for (auto It = K.LocalDefs.begin(); It != K.LocalDefs.end();)
    It = Used.count(It->first) ? std::next(It) : K.LocalDefs.erase(It);
}

KernelModel Builder::build(const FunctionDecl *FD) {
  K.Name = kernelName(FD);
  K.Loc = Map.map(FD->getLocation());
  if (Generic)
    K.Notes.push_back("uninstantiated template: analyzed generically "
                      "(dependent types and values are opaque)");
  std::set<const FunctionDecl *> Seen;
  scanTables(FD->getBody(), 0, Seen);
  Frame F;
  F.FD = FD;
  Frames.push_back(std::move(F));
  inferRoles(FD);
  stmt(FD->getBody());
  Frames.clear();
  expandChoices();
  pruneLocalDefs();
  refineRoles();
  if (Budget == 0)
    K.Notes.push_back("kernel too large: the model was truncated");
  return std::move(K);
}

KernelModel buildKernelModel(ASTContext &Ctx, const LocMapper &Map,
                             const FrontendOptions &Opts,
                             const FunctionDecl *FD, bool Generic,
                             std::vector<pkb::Diagnostic> *Diags) {
  if (!FD || !FD->getBody()) {
    KernelModel K;
    K.Name = kernelName(FD);
    return K;
  }
  Builder B(Ctx, Map, Opts, Generic, Diags);
  return B.build(FD);
}

} // namespace pkb::fe
