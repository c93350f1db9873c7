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
    return true;
  }
  bool VisitGCCAsmStmt(GCCAsmStmt *A) {
    for (unsigned I = 0; I < A->getNumOutputs(); ++I)
      def(local(A->getOutputExpr(I)), std::nullopt);
    return true;
  }
};
} // namespace

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
  /// `for (; cond; i += s)`: no init, the variable carries its value from
  /// before the loop (Init is null; the builder takes the current value).
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
    // A carried variable: the one the increment updates.
    const clang::Expr *Target = nullptr;
    if (const auto *U = dyn_cast<UnaryOperator>(Inc))
      Target = U->isIncrementDecrementOp() ? U->getSubExpr() : nullptr;
    else if (const auto *BO = dyn_cast<BinaryOperator>(Inc))
      Target = BO->isAssignmentOp() ? BO->getLHS() : nullptr;
    const auto *DR = dyn_cast_or_null<DeclRefExpr>(
        Target ? Target->IgnoreParenImpCasts() : nullptr);
    const auto *VD = DR ? dyn_cast<VarDecl>(DR->getDecl()) : nullptr;
    if (VD && !VD->hasGlobalStorage()) {
      S.Var = VD;
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

/// True if \p S may leave the enclosing loop other than through its
/// condition: a `break` outside nested loops and switches, a `return` or a
/// `goto` anywhere.
static bool leavesLoop(const Stmt *S, bool Nested = false) {
  if (!S)
    return false;
  if (isa<ReturnStmt>(S) || isa<GotoStmt>(S) || isa<IndirectGotoStmt>(S))
    return true;
  if (isa<BreakStmt>(S))
    return !Nested;
  bool Inner = Nested || isa<ForStmt>(S) || isa<WhileStmt>(S) ||
               isa<DoStmt>(S) || isa<CXXForRangeStmt>(S) || isa<SwitchStmt>(S);
  for (const Stmt *C : S->children())
    if (leavesLoop(C, Inner))
      return true;
  return false;
}

/// True if \p S holds a `continue` of the enclosing loop.
static bool hasContinue(const Stmt *S, bool Nested = false) {
  if (!S)
    return false;
  if (isa<ContinueStmt>(S))
    return !Nested;
  bool Inner = Nested || isa<ForStmt>(S) || isa<WhileStmt>(S) ||
               isa<DoStmt>(S) || isa<CXXForRangeStmt>(S);
  for (const Stmt *C : S->children())
    if (hasContinue(C, Inner))
      return true;
  return false;
}

/// The stride of `v += s`, `v -= s` (negated), `++v`, `v++` (1) when \p St is
/// that statement on \p VD; \p One is set for the increment forms.
static const clang::Expr *carriedStride(const Stmt *St, const VarDecl *VD,
                                        bool &Sub, bool &One) {
  const auto *E = dyn_cast_or_null<clang::Expr>(St);
  if (!E)
    return nullptr;
  E = E->IgnoreParens();
  auto Is = [VD](const clang::Expr *X) {
    const auto *DR = dyn_cast<DeclRefExpr>(X->IgnoreParenImpCasts());
    return DR && DR->getDecl() == VD;
  };
  if (const auto *U = dyn_cast<UnaryOperator>(E))
    if (U->isIncrementOp() && Is(U->getSubExpr())) {
      One = true;
      return E;
    }
  if (const auto *BO = dyn_cast<BinaryOperator>(E))
    if ((BO->getOpcode() == BO_AddAssign || BO->getOpcode() == BO_SubAssign) &&
        Is(BO->getLHS())) {
      Sub = BO->getOpcode() == BO_SubAssign;
      return BO->getRHS();
    }
  return nullptr;
}

/// True if evaluating \p E calls nothing, writes nothing and reads none of
/// \p Vars.
static bool invariantIn(const Stmt *E,
                        const std::vector<const VarDecl *> &Vars) {
  if (!E)
    return true;
  if (isa<CallExpr>(E) || isa<StmtExpr>(E) || isa<LambdaExpr>(E))
    return false;
  if (const auto *BO = dyn_cast<BinaryOperator>(E))
    if (BO->isAssignmentOp())
      return false;
  if (const auto *U = dyn_cast<UnaryOperator>(E))
    if (U->isIncrementDecrementOp())
      return false;
  if (const auto *DR = dyn_cast<DeclRefExpr>(E))
    if (std::find(Vars.begin(), Vars.end(), DR->getDecl()) != Vars.end())
      return false;
  for (const Stmt *C : E->children())
    if (!invariantIn(C, Vars))
      return false;
  return true;
}

/// If \p E is `V + c` or `V - c` (c not mentioning V), the offset c (`-c`).
static ExprRef offsetFrom(const ExprRef &E, const std::string &V) {
  if (!E || E->Ops.size() != 2)
    return nullptr;
  auto IsV = [&](const ExprRef &X) {
    return X && X->Op == ExprOp::Var && X->Name == V;
  };
  if (E->Op == ExprOp::Add) {
    if (IsV(E->Ops[0]) && !E->Ops[1]->mentions(V))
      return E->Ops[1];
    if (IsV(E->Ops[1]) && !E->Ops[0]->mentions(V))
      return E->Ops[0];
  }
  if (E->Op == ExprOp::Sub && IsV(E->Ops[0]) && !E->Ops[1]->mentions(V))
    return E->Ops[1]->Op == ExprOp::Const ? Expr::constant(-E->Ops[1]->Value)
                                          : Expr::unary(ExprOp::Neg, E->Ops[1]);
  return nullptr;
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
  LoopScope(Builder &B, const Stmt *S) : B(B) {
    Loop L;
    L.Id = Id = static_cast<unsigned>(B.K.Loops.size());
    L.ParentId =
        B.LoopStack.empty() ? -1 : static_cast<int>(B.LoopStack.back());
    L.Loc = B.Map.map(S->getBeginLoc());
    B.K.Loops.push_back(L);
    B.LoopStack.push_back(Id);
    B.Jumps.push_back({B.Guards.size(), false, {}});
  }
  ~LoopScope() {
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
      if (!VD->getType()->isReferenceType() && trackable(VD)) {
        // Followed in program order (LocalFlow.cpp): the initial value.
        V.E = trackedValue(VD, V.E);
        frame().Vars[VD] = std::move(V);
        track(VD);
        continue;
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
    Guards.push_back(C);
    stmt(If->getThen());
    Guards.pop_back();
    bool JThen = Jumped;
    Jumped = false;
    if (If->getElse()) {
      Guards.push_back(mkNot(C));
      stmt(If->getElse());
      Guards.pop_back();
    }
    Jumped = JThen && Jumped;
    return;
  }
  if (const auto *F = dyn_cast<ForStmt>(S)) {
    ForShape Sh = forShape(F);
    // A carried induction variable must be a followed local that only the
    // increment writes.
    auto WritesVar = [&](const Stmt *Part) {
      std::vector<const VarDecl *> W = trackedWrittenIn(Part);
      return std::find(W.begin(), W.end(), Sh.Var) != W.end();
    };
    if (Sh.Carried &&
        (!isTracked(Sh.Var) || WritesVar(F->getBody()) ||
         WritesVar(F->getCond()) || !frame().Vars[Sh.Var].E ||
         frame().Vars[Sh.Var].E->mentions(localName(Sh.Var)->Name)))
      Sh.Var = nullptr;
    ExprRef InitV;
    // The value of a followed induction variable before the loop.
    ExprRef Before =
        Sh.Var && isTracked(Sh.Var) ? frame().Vars[Sh.Var].E : nullptr;
    if (Sh.Var) {
      InitV = Sh.Carried ? Before : rv(Sh.Init);
    } else if (F->getInit()) {
      stmt(F->getInit());
    }
    // Followed locals the loop writes are unknown inside it and after it.
    std::vector<const VarDecl *> Written;
    for (const Stmt *Part :
         {static_cast<const Stmt *>(F->getCond()),
          static_cast<const Stmt *>(F->getInc()), F->getBody()})
      for (const VarDecl *VD : trackedWrittenIn(Part))
        if (VD != Sh.Var &&
            std::find(Written.begin(), Written.end(), VD) == Written.end())
          Written.push_back(VD);
    // Carried locals updated once per iteration by a loop-invariant amount
    // (`off += len;` at the top level of the body of a `++i` loop that only
    // its condition leaves): off = start + (i - init) * len.
    struct Carry {
      const VarDecl *VD;
      ExprRef Start, Stride;
    };
    std::vector<Carry> Carries;
    const auto *BodyCS = dyn_cast_or_null<CompoundStmt>(F->getBody());
    if (Sh.Var && Sh.StepSign > 0 && InitV && !InitV->hasOpaque() && BodyCS &&
        !leavesLoop(BodyCS) && !hasContinue(BodyCS)) {
      // Every local the loop writes, followed or not (append counters).
      std::vector<const VarDecl *> Varying = writtenIn(S);
      Varying.push_back(Sh.Var);
      for (const VarDecl *VD : Written) {
        auto In = [&](const Stmt *Part) {
          std::vector<const VarDecl *> W = trackedWrittenIn(Part);
          return std::find(W.begin(), W.end(), VD) != W.end();
        };
        if (In(F->getCond()) || In(F->getInc()))
          continue;
        int Count = 0;
        const clang::Expr *StrideE = nullptr;
        bool Sub = false, One = false;
        for (const Stmt *St : BodyCS->body())
          if (In(St)) {
            ++Count;
            StrideE = carriedStride(St, VD, Sub, One);
          }
        if (Count != 1 || !StrideE || (!One && !invariantIn(StrideE, Varying)))
          continue;
        ExprRef Stride;
        if (One) {
          Stride = Expr::constant(1);
        } else {
          size_t Ev = K.Events.size();
          Stride = rv(StrideE); // no calls, no writes: at most reads
          if (K.Events.size() != Ev) {
            K.Events.resize(Ev); // a memory read: not invariant
            continue;
          }
        }
        ExprRef Start = frame().Vars[VD].E;
        if (!Start || !Stride || Stride->hasOpaque() ||
            Stride->mentions("polled") || Start->hasOpaque())
          continue;
        if (Sub)
          Stride = Stride->Op == ExprOp::Const
                       ? Expr::constant(-Stride->Value)
                       : Expr::unary(ExprOp::Neg, Stride);
        Carries.push_back({VD, Start, Stride});
      }
    }
    for (const Carry &C : Carries)
      Written.erase(std::find(Written.begin(), Written.end(), C.VD));
    havoc(Written);
    LoopScope LS(*this, S);
    unsigned Id = LS.Id;
    for (const Carry &C : Carries)
      frame().Vars[C.VD].E = trackedValue(
          C.VD,
          mkAdd(C.Start,
                mkMul(mkSub(Expr::var("loop:" + std::to_string(Id)), InitV),
                      C.Stride)));
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
      bool L0 = Cond->Ops[0]->Op == ExprOp::Var && Cond->Ops[0]->Name == LV;
      bool L1 = Cond->Ops[1]->Op == ExprOp::Var && Cond->Ops[1]->Name == LV;
      ExprRef Other = L0 ? Cond->Ops[1] : L1 ? Cond->Ops[0] : nullptr;
      // `i + c < b` bounds i by b - c (`i - c < b`: b + c).
      for (int Side = 0; Side < 2 && !Other; ++Side)
        if (ExprRef Off = offsetFrom(Cond->Ops[Side], LV);
            Off && !Cond->Ops[1 - Side]->mentions(LV)) {
          Other = mkSub(Cond->Ops[1 - Side], Off);
          L0 = Side == 0;
          L1 = Side == 1;
        }
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
          break;
        case ExprOp::Le:
          L.Bound = mkAdd(Other, Expr::constant(1));
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
      frame().Vars[Sh.Var] = Val{localName(Sh.Var)};
      if (isTracked(Sh.Var)) {
        // The exit value of an ascending loop that only its condition
        // leaves: init + step * max(0, ceil((bound - init) / step)).
        const Loop &L = LS.loop();
        ExprRef Exit;
        if (L.Ascending && L.Init && L.Bound && L.Step &&
            !leavesLoop(F->getBody()) && !L.Init->hasOpaque() &&
            !L.Bound->hasOpaque() && !L.Step->hasOpaque() &&
            !L.Bound->mentions("loop:" + std::to_string(Id)) &&
            !L.Step->mentions("loop:" + std::to_string(Id))) {
          ExprRef N = Expr::binary(
              ExprOp::Div,
              mkSub(mkAdd(mkSub(L.Bound, L.Init), L.Step), Expr::constant(1)),
              L.Step);
          Exit = mkAdd(
              L.Init,
              mkMul(L.Step, Expr::binary(ExprOp::Max, Expr::constant(0), N)));
        }
        frame().Vars[Sh.Var].E = Before ? Before : localName(Sh.Var);
        if (Exit)
          assignTracked(Sh.Var, Exit);
        else
          havoc({Sh.Var});
      }
    } else if (F->getInc()) {
      eval(F->getInc());
    }
    havoc(Written);
    for (const Carry &C : Carries) {
      // After the loop: start + trip count * stride.
      const Loop &L = LS.loop();
      frame().Vars[C.VD].E = C.Start;
      if (L.Ascending && L.Bound && !L.Bound->hasOpaque() &&
          !L.Bound->mentions("loop:" + std::to_string(Id)))
        assignTracked(
            C.VD,
            mkAdd(C.Start, mkMul(Expr::binary(ExprOp::Max, Expr::constant(0),
                                              mkSub(L.Bound, InitV)),
                                 C.Stride)));
      else
        havoc({C.VD});
    }
    return;
  }
  if (const auto *W = dyn_cast<WhileStmt>(S)) {
    std::vector<const VarDecl *> Written = trackedWrittenIn(S);
    havoc(Written);
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
    havoc(Written);
    return;
  }
  if (const auto *D = dyn_cast<DoStmt>(S)) {
    std::vector<const VarDecl *> Written = trackedWrittenIn(S);
    havoc(Written);
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
    havoc(Written);
    return;
  }
  if (const auto *FR = dyn_cast<CXXForRangeStmt>(S)) {
    if (FR->getRangeInit())
      eval(FR->getRangeInit());
    std::vector<const VarDecl *> Written = trackedWrittenIn(FR->getBody());
    havoc(Written);
    LoopScope LS(*this, S);
    if (const VarDecl *LV = FR->getLoopVariable())
      frame().Vars[LV] =
          Val{Expr::var("local:" + LV->getName().str() + "@" +
                        std::to_string(Map.map(LV->getLocation()).Line))};
    stmt(FR->getBody());
    Jumped = false;
    havoc(Written);
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
    // Case guards are not modeled: followed locals the body writes are
    // unknown inside it and after it.
    std::vector<const VarDecl *> Written = trackedWrittenIn(SW->getBody());
    havoc(Written);
    Jumps.push_back({Guards.size(), true, {}});
    stmt(SW->getBody());
    Jumps.pop_back();
    havoc(Written);
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
  if (!S)
    return false;
  if (isa<ForStmt>(S) || isa<WhileStmt>(S) || isa<DoStmt>(S) ||
      isa<CXXForRangeStmt>(S))
    return true;
  for (const Stmt *C : S->children())
    if (hasLoop(C))
      return true;
  return false;
}

Val Builder::callUser(const CallExpr *CE, const FunctionDecl *Callee) {
  std::string Name = kernelName(Callee);
  bool Recursive = false;
  for (const Frame &F : Frames)
    Recursive |= F.FD == Callee;
  unsigned ArgBase =
      isa<CXXOperatorCallExpr>(CE) && isa<CXXMethodDecl>(Callee) ? 1 : 0;
  if (const auto *MC = dyn_cast<CXXMemberCallExpr>(CE))
    eval(MC->getImplicitObjectArgument());
  std::vector<Val> Args;
  unsigned NP = Callee->getNumParams();
  // By-reference parameters bound to a followed local of the caller
  // (LocalFlow.cpp): parameter index -> the caller's local.
  std::map<unsigned, const VarDecl *> RefOut;
  for (unsigned I = ArgBase; I < CE->getNumArgs(); ++I) {
    const clang::Expr *A = CE->getArg(I);
    unsigned PI = I - ArgBase;
    const ParmVarDecl *P = PI < NP ? Callee->getParamDecl(PI) : nullptr;
    Val V;
    if (P && P->getType()->isReferenceType() &&
        !P->getType().getNonReferenceType().isConstQualified()) {
      const auto *DR = dyn_cast<DeclRefExpr>(A->IgnoreParenImpCasts());
      const auto *AVD = DR ? dyn_cast<VarDecl>(DR->getDecl()) : nullptr;
      if (AVD && isTracked(AVD)) {
        V = eval(A); // the followed local's value; flows back after the call
        RefOut[PI] = AVD;
      } else if (DR && !isa<ParmVarDecl>(DR->getDecl()) &&
                 !dyn_cast<VarDecl>(DR->getDecl())->hasGlobalStorage())
        V = eval(A); // a local passed by reference: its value
      else
        V.P = lvalue(A);
      if (!V.E)
        V.E = Expr::opaque(text(A));
    } else {
      V = eval(A);
      if (!V.Arr)
        V.Arr = ptrArrayOf(A);
      if (const auto *DR = dyn_cast<DeclRefExpr>(A->IgnoreParenImpCasts()))
        if (const auto *RD = A->getType()->getAsRecordDecl()) {
          (void)RD;
          auto It = frame().Vars.find(DR->getDecl());
          if (It != frame().Vars.end() && !It->second.Record.empty())
            V.Record = It->second.Record;
        }
    }
    Args.push_back(std::move(V));
  }
  if (Recursive || InlineStack.size() >= Opts.InlineDepth) {
    Event &E = emit(EventKind::Call, CE);
    E.Text = Name;
    K.Notes.push_back((Recursive ? "recursive call to "
                                 : "inline depth " +
                                       std::to_string(Opts.InlineDepth) +
                                       " reached at ") +
                      Name + " (line " + std::to_string(E.Loc.Line) + ")");
    for (auto &[PI, VD] : RefOut)
      assignTracked(VD, localName(VD)); // written by code not inlined
    return {Expr::opaque(text(CE))};
  }
  std::vector<ExprRef> EntryGuard = currentGuard();
  Frame F;
  F.FD = Callee;
  F.GuardBase = Guards.size();
  for (unsigned I = 0; I < NP && I < Args.size(); ++I) {
    const ParmVarDecl *P = Callee->getParamDecl(I);
    Val V = Args[I];
    if (V.P && !V.P->Choice && TableParms.count(P))
      V.P->IsTable = true;
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
  // Parameters the callee assigns are followed from here (by-reference
  // ones bound to a followed local of the caller, and by-value ones).
  for (unsigned I = 0; I < NP && I < Args.size(); ++I) {
    const ParmVarDecl *P = Callee->getParamDecl(I);
    bool Ref = P->getType()->isReferenceType();
    if ((Ref ? RefOut.count(I) > 0 : !Args[I].P) && trackable(P)) {
      frame().Tracked[P] = EntryGuard;
      frame().Vars[P].E = trackedValue(P, frame().Vars[P].E);
    }
  }
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
  // Values of by-reference parameters flow back to the caller's locals.
  std::vector<std::pair<const VarDecl *, ExprRef>> Back;
  for (auto &[PI, VD] : RefOut) {
    const ParmVarDecl *P = Callee->getParamDecl(PI);
    auto T = Frames.back().Tracked.find(P);
    ExprRef Out =
        T == Frames.back().Tracked.end() ? nullptr : Frames.back().Vars[P].E;
    Back.emplace_back(VD, Out);
  }
  Frames.pop_back();
  for (auto &[VD, Out] : Back)
    assignTracked(VD, Out); // null (not followed in the callee): unknown
  if (!R.E)
    R.E = Expr::opaque(text(CE));
  return R;
}

//===----------------------------------------------------------------------===//
// Entry point.
//===----------------------------------------------------------------------===//

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
