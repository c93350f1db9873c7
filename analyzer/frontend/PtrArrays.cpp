//===- PtrArrays.cpp - Local arrays of pointers ---------------------------===//
//
// Kernels often collect the destinations of a copy in a local array and hand
// it to a helper: `T *Dst[8]; int n = 0; Dst[n++] = y; for (p...) if (p !=
// r) Dst[n++] = peers[p] + off; move(Dst, n, ...)`, where the helper writes
// `Dst[d][i]` for d < n. The front end records the pointers stored into such
// an array (PtrArray entries, with the guard and loops of each store) and
// resolves a read `Dst[i]` to them when the index selects known entries:
//   * a constant index below every entry of unknown position;
//   * the variable of a loop `for (d = 0; d < n; ++d)` whose bound is the
//     append counter n (every change of n is an append `Dst[n++]`, n starts
//     at 0), or a constant bound when every position is known.
// The read yields a PtrChoice; each access through it becomes one event per
// entry (expandChoices), under the entry's guard, iterating over copies of
// the loops the entry was stored in, and without the enumerating loop d
// (each entry is visited in exactly one of its iterations). Other reads of
// such an array stay unknown, as before. See docs/frontend.md.
//
//===----------------------------------------------------------------------===//

#include "Builder.h"

#include "clang/AST/RecursiveASTVisitor.h"

#include <algorithm>

namespace pkb::fe {

using namespace clang;

/// Address base tag of an event whose pointer is a PtrChoice.
const char ChoiceTag[] = "\x01choice:";

/// Most entries one read of a PtrArray may stand for (larger: unknown).
constexpr size_t kMaxAlternatives = 16;

bool Builder::isPtrArrayType(QualType T) {
  if (T.isNull())
    return false;
  const clang::ArrayType *AT = T->getAsArrayTypeUnsafe();
  return AT && !AT->getElementType()->isDependentType() &&
         AT->getElementType()->isPointerType();
}

/// \p E with the variables named in \p M renamed.
static ExprRef rename(const ExprRef &E,
                      const std::map<std::string, std::string> &M) {
  if (!E || M.empty())
    return E;
  if (E->Op == ExprOp::Var) {
    auto It = M.find(E->Name);
    return It == M.end() ? E : Expr::var(It->second);
  }
  bool Changed = false;
  std::vector<ExprRef> Ops;
  for (const ExprRef &O : E->Ops) {
    Ops.push_back(rename(O, M));
    Changed |= Ops.back() != O;
  }
  if (!Changed)
    return E;
  auto N = std::make_shared<Expr>(*E);
  N->Ops = std::move(Ops);
  return N;
}

namespace {
/// Counts the changes of a counter local and those that are appends
/// `Arr[Cnt++]` to one array.
class CounterScan : public RecursiveASTVisitor<CounterScan> {
public:
  CounterScan(const VarDecl *Cnt, const VarDecl *Arr) : Cnt(Cnt), Arr(Arr) {}
  unsigned Mods = 0, Appends = 0;

  bool is(const clang::Expr *E, const VarDecl *VD) const {
    const auto *DR =
        dyn_cast_or_null<DeclRefExpr>(E ? E->IgnoreParenImpCasts() : nullptr);
    return DR && DR->getDecl() == VD;
  }
  bool VisitArraySubscriptExpr(ArraySubscriptExpr *AS) {
    const auto *U =
        dyn_cast<UnaryOperator>(AS->getIdx()->IgnoreParenImpCasts());
    if (U && U->getOpcode() == UO_PostInc && is(U->getSubExpr(), Cnt) &&
        is(AS->getBase(), Arr))
      ++Appends;
    return true;
  }
  bool VisitUnaryOperator(UnaryOperator *U) {
    if ((U->isIncrementDecrementOp() || U->getOpcode() == UO_AddrOf) &&
        is(U->getSubExpr(), Cnt))
      ++Mods;
    return true;
  }
  bool VisitBinaryOperator(BinaryOperator *BO) {
    if (BO->isAssignmentOp() && is(BO->getLHS(), Cnt))
      ++Mods;
    return true;
  }
  bool VisitCallExpr(CallExpr *CE) {
    const FunctionDecl *FD = CE->getDirectCallee();
    for (unsigned I = 0; I < CE->getNumArgs(); ++I) {
      if (!is(CE->getArg(I), Cnt))
        continue;
      const ParmVarDecl *P =
          FD && I < FD->getNumParams() ? FD->getParamDecl(I) : nullptr;
      if (!P || (P->getType()->isReferenceType() &&
                 !P->getType().getNonReferenceType().isConstQualified()))
        ++Mods;
    }
    return true;
  }

private:
  const VarDecl *Cnt, *Arr;
};
} // namespace

std::shared_ptr<PtrArray> Builder::ptrArrayOf(const clang::Expr *Base) {
  if (!Base || Frames.empty())
    return nullptr;
  const auto *DR = dyn_cast<DeclRefExpr>(Base->IgnoreParenCasts());
  if (!DR)
    return nullptr;
  auto It = frame().Vars.find(DR->getDecl());
  return It == frame().Vars.end() ? nullptr : It->second.Arr;
}

/// Records the pointer(s) \p E stores into \p A at \p Pos (both arms of a
/// conditional pointer, each under its condition).
static void addEntries(Builder &B, PtrArray &A, std::optional<int64_t> Pos,
                       const clang::Expr *E, bool &Unknown) {
  const clang::Expr *S = E->IgnoreParenImpCasts();
  if (const auto *CO = dyn_cast<ConditionalOperator>(S)) {
    ExprRef C = B.rv(CO->getCond());
    B.Guards.push_back(C);
    addEntries(B, A, Pos, CO->getTrueExpr(), Unknown);
    B.Guards.back() = mkNot(C);
    addEntries(B, A, Pos, CO->getFalseExpr(), Unknown);
    B.Guards.pop_back();
    return;
  }
  if (S->isNullPointerConstant(B.Ctx, clang::Expr::NPC_ValueDependentIsNull))
    return; // a null entry is never accessed
  // The arms of a glvalue conditional carry no lvalue-to-rvalue cast.
  Val V = S->isGLValue() && S->getType()->isPointerType()
              ? Val{nullptr, B.readPointer(S)}
              : B.eval(E);
  if (!V.P || V.P->Choice || V.P->IsTable) {
    Unknown = true;
    return;
  }
  PtrArray::Entry En;
  En.Pos = Pos;
  En.P = *V.P;
  En.Guard = B.currentGuard();
  En.Loops = B.LoopStack;
  A.Entries.push_back(std::move(En));
}

Val Builder::declarePtrArray(const VarDecl *VD) {
  Val V;
  V.Arr = std::make_shared<PtrArray>();
  PtrArray &A = *V.Arr;
  A.DeclLoops = LoopStack.size();
  A.DeclGuards = currentGuard().size();
  const auto *IL =
      dyn_cast_or_null<InitListExpr>(VD->getInit() ? VD->getInit() : nullptr);
  if (IL) {
    bool Unknown = false;
    for (unsigned I = 0; I < IL->getNumInits(); ++I)
      if (!isa<ImplicitValueInitExpr>(IL->getInit(I)))
        addEntries(*this, A, int64_t(I), IL->getInit(I), Unknown);
    A.Next = int64_t(IL->getNumInits());
    if (Unknown)
      A.ExactBelow = 0;
  } else if (VD->getInit()) {
    eval(VD->getInit());
    A.ExactBelow = 0; // initialized some other way: positions unknown
    A.Next.reset();
  }
  return V;
}

bool Builder::storePtrArray(const clang::Expr *Lhs, const clang::Expr *Rhs) {
  const auto *AS = dyn_cast<ArraySubscriptExpr>(Lhs);
  if (!AS)
    return false;
  std::shared_ptr<PtrArray> AP = ptrArrayOf(AS->getBase());
  if (!AP)
    return false;
  PtrArray &A = *AP;
  const clang::Expr *Idx = AS->getIdx()->IgnoreParenImpCasts();
  bool InLoop = LoopStack.size() > A.DeclLoops;
  bool Cond = currentGuard().size() != A.DeclGuards;
  std::optional<int64_t> Pos;
  const auto *U = dyn_cast<UnaryOperator>(Idx);
  const auto *CntRef =
      U && U->getOpcode() == UO_PostInc
          ? dyn_cast<DeclRefExpr>(U->getSubExpr()->IgnoreParenImpCasts())
          : nullptr;
  const auto *Cnt = CntRef ? dyn_cast<VarDecl>(CntRef->getDecl()) : nullptr;
  if (Cnt && !Cnt->hasGlobalStorage()) {
    // An append `Arr[n++] = p`.
    const auto *ArrRef =
        dyn_cast<DeclRefExpr>(AS->getBase()->IgnoreParenImpCasts());
    const auto *ArrVD = ArrRef ? dyn_cast<VarDecl>(ArrRef->getDecl()) : nullptr;
    bool Valid = false;
    if (ArrVD && !isa<ParmVarDecl>(ArrVD) && frame().FD &&
        frame().FD->getBody() && Cnt->getInit() &&
        constant(Cnt->getInit()) == 0) {
      CounterScan CS(Cnt, ArrVD);
      CS.TraverseStmt(const_cast<Stmt *>(frame().FD->getBody()));
      Valid = CS.Mods == CS.Appends;
    }
    // The counter's unknown (not the exact value of `n = 0` before the
    // first append): the name the loop bound `d < n` reads after appends.
    ExprRef CV = localUnknown(Cnt);
    std::string Name = Valid && CV->Op == ExprOp::Var ? CV->Name : "\x02";
    if (A.Counter.empty() && A.Entries.empty())
      A.Counter = Name;
    else if (A.Counter != Name)
      A.Counter = "\x02"; // two counters: enumerations stay unknown
    if (!InLoop && A.Next)
      Pos = A.Next;
    else
      A.ExactBelow = std::min(A.ExactBelow, A.Next.value_or(A.ExactBelow));
    if (InLoop || Cond)
      A.Next.reset();
    else if (A.Next)
      A.Next = *A.Next + 1;
    rv(Idx); // the counter's own update
  } else if (std::optional<int64_t> C = constant(Idx)) {
    Pos = C;
    if (!InLoop && !Cond)
      llvm::erase_if(A.Entries,
                     [&](const PtrArray::Entry &E) { return E.Pos == C; });
  } else {
    rv(Idx);
    A.ExactBelow = 0;
    A.Counter = "\x02";
  }
  bool Unknown = false;
  addEntries(*this, A, Pos, Rhs, Unknown);
  if (Unknown) {
    A.ExactBelow = 0;
    A.Counter = "\x02";
  }
  return true;
}

std::optional<PtrVal>
Builder::readPtrArray(const clang::ArraySubscriptExpr *AS) {
  std::shared_ptr<PtrArray> AP = ptrArrayOf(AS->getBase());
  if (!AP)
    return std::nullopt;
  const PtrArray &A = *AP;
  std::vector<const PtrArray::Entry *> Sel;
  int Drop = -1;
  if (std::optional<int64_t> C = constant(AS->getIdx())) {
    if (*C < 0 || *C >= A.ExactBelow)
      return std::nullopt;
    for (const PtrArray::Entry &E : A.Entries)
      if (E.Pos == C)
        Sel.push_back(&E);
  } else {
    ExprRef I = rv(AS->getIdx());
    if (!I || I->Op != ExprOp::Var || I->Name.rfind("loop:", 0) != 0)
      return std::nullopt;
    unsigned Id = unsigned(std::atoi(I->Name.c_str() + 5));
    if (Id >= K.Loops.size())
      return std::nullopt;
    const Loop &L = K.Loops[Id];
    auto IsConst = [](const ExprRef &E, int64_t V) {
      return E && E->Op == ExprOp::Const && E->Value == V;
    };
    if (!L.Ascending || !IsConst(L.Init, 0) || !IsConst(L.Step, 1) || !L.Bound)
      return std::nullopt;
    if (L.Bound->Op == ExprOp::Var && !A.Counter.empty() &&
        L.Bound->Name == A.Counter) {
      for (const PtrArray::Entry &E : A.Entries)
        Sel.push_back(&E);
    } else if (L.Bound->Op == ExprOp::Const && A.ExactBelow == INT64_MAX) {
      for (const PtrArray::Entry &E : A.Entries)
        if (E.Pos && *E.Pos < L.Bound->Value)
          Sel.push_back(&E);
    } else {
      return std::nullopt;
    }
    Drop = int(Id);
  }
  // Every access through the read is copied per entry: keep it bounded.
  if (Sel.empty() || Sel.size() > kMaxAlternatives)
    return std::nullopt;
  std::vector<ExprRef> Now = currentGuard();
  auto Choice = std::make_shared<PtrChoice>();
  Choice->DropLoop = Drop;
  int Parent = Drop >= 0           ? K.Loops[unsigned(Drop)].ParentId
               : LoopStack.empty() ? -1
                                   : int(LoopStack.back());
  for (const PtrArray::Entry *E : Sel) {
    PtrAlt Alt;
    Alt.P = E->P;
    // Copies of the loops the entry was stored in (beyond those around the
    // array's declaration, which the read shares).
    std::map<std::string, std::string> Ren;
    int Up = Parent;
    for (size_t J = A.DeclLoops; J < E->Loops.size(); ++J) {
      Loop C = K.Loops[E->Loops[J]];
      C.Id = unsigned(K.Loops.size());
      C.ParentId = Up;
      C.Init = rename(C.Init, Ren);
      C.Bound = rename(C.Bound, Ren);
      C.Step = rename(C.Step, Ren);
      Ren["loop:" + std::to_string(E->Loops[J])] =
          "loop:" + std::to_string(C.Id);
      Up = int(C.Id);
      Alt.AddLoops.push_back(C.Id);
      K.Loops.push_back(std::move(C));
    }
    Alt.P.Peer = rename(Alt.P.Peer, Ren);
    Alt.P.Index = rename(Alt.P.Index, Ren);
    Alt.P.ByteOffset = rename(Alt.P.ByteOffset, Ren);
    for (const ExprRef &G : E->Guard)
      if (std::find(Now.begin(), Now.end(), G) == Now.end())
        Alt.Guard.push_back(rename(G, Ren));
    Choice->Alts.push_back(std::move(Alt));
  }
  PtrVal R;
  R.ElemBytes = pointeeSize(AS->getType());
  if (Choice->Alts.size() == 1 && Drop < 0 && Choice->Alts[0].Guard.empty() &&
      Choice->Alts[0].AddLoops.empty()) {
    return Choice->Alts[0].P;
  }
  R.Index = Expr::constant(0);
  R.Choice = std::move(Choice);
  return R;
}

/// The absolute pointer of alternative \p A offset by the relative pointer
/// \p Rel (Index in units of Rel.ElemBytes, plus Rel.ByteOffset bytes).
static PtrVal compose(const PtrVal &A, const ExprRef &RelIndex,
                      const ExprRef &RelBytes, unsigned RelElem) {
  PtrVal R = A;
  R.Choice.reset();
  auto AddBytes = [](ExprRef X, ExprRef Y) {
    return !X ? Y : !Y ? X : mkAdd(X, Y);
  };
  if (A.ElemBytes == RelElem && A.Index && RelIndex) {
    R.Index = mkAdd(A.Index, RelIndex);
    R.ByteOffset = AddBytes(A.ByteOffset, RelBytes);
    return R;
  }
  ExprRef AB = !A.Index ? nullptr
               : A.Index->Op == ExprOp::Const && !A.Index->Value
                   ? Expr::constant(0)
               : A.ElemBytes ? mkMul(A.Index, Expr::constant(A.ElemBytes))
                             : nullptr;
  R.ElemBytes = RelElem;
  R.Index = AB ? RelIndex : nullptr;
  R.ByteOffset = AB ? AddBytes(AddBytes(AB, A.ByteOffset), RelBytes) : nullptr;
  if (R.ByteOffset && R.ByteOffset->Op == ExprOp::Const && !R.ByteOffset->Value)
    R.ByteOffset = nullptr;
  return R;
}

/// True if \p G is false whatever the agent: the constant 0, or a
/// comparison of two constants that fails (`1 != 1` after inlining a helper
/// with a constant argument).
static bool constFalse(const ExprRef &G) {
  if (!G)
    return false;
  if (G->Op == ExprOp::Const)
    return G->Value == 0;
  if (G->Op == ExprOp::LAnd)
    return constFalse(G->Ops[0]) || constFalse(G->Ops[1]);
  if (G->Ops.size() != 2 || G->Ops[0]->Op != ExprOp::Const ||
      G->Ops[1]->Op != ExprOp::Const)
    return false;
  int64_t A = G->Ops[0]->Value, B = G->Ops[1]->Value;
  switch (G->Op) {
  case ExprOp::Eq:
    return A != B;
  case ExprOp::Ne:
    return A == B;
  case ExprOp::Lt:
    return A >= B;
  case ExprOp::Le:
    return A > B;
  case ExprOp::Gt:
    return A <= B;
  case ExprOp::Ge:
    return A < B;
  default:
    return false;
  }
}

void Builder::expandChoices() {
  if (Choices.empty())
    return;
  std::vector<Event> Out;
  Out.reserve(K.Events.size());
  const size_t TagLen = sizeof(ChoiceTag) - 1;
  for (Event &E : K.Events) {
    if (E.Addr.Base.compare(0, TagLen, ChoiceTag) != 0) {
      Out.push_back(std::move(E));
      continue;
    }
    size_t N = size_t(std::atoi(E.Addr.Base.c_str() + TagLen));
    const PtrChoice &C = *Choices[N].first;
    unsigned RelElem = Choices[N].second;
    // Drop the enumerating loop unless something still depends on it.
    bool Drop = C.DropLoop >= 0;
    std::string DV = "loop:" + std::to_string(C.DropLoop);
    if (Drop) {
      for (const ExprRef &G : E.Guard)
        Drop &= !G->mentions(DV);
      // Loops nested in the enumerating one stay (the engine reads no
      // parent links) unless their shape depends on its variable.
      for (unsigned L : E.Loops) {
        const Loop &Lp = K.Loops[L];
        for (const ExprRef *X : {&Lp.Init, &Lp.Bound, &Lp.Step})
          Drop &= L == unsigned(C.DropLoop) || !*X || !(*X)->mentions(DV);
      }
      Drop &= !(E.Addr.Index && E.Addr.Index->mentions(DV)) &&
              !(E.Addr.ByteOffset && E.Addr.ByteOffset->mentions(DV));
    }
    // A copy per entry multiplies the cost of an access: none for an access
    // on a branch that the constant arguments of a helper rule out.
    if (std::any_of(E.Guard.begin(), E.Guard.end(), constFalse))
      continue;
    for (const PtrAlt &A : C.Alts) {
      Event X = E;
      PtrVal P = compose(A.P, E.Addr.Index, E.Addr.ByteOffset, RelElem);
      AddrSpace Space = E.Addr.Space;
      X.Addr = toAddress(P);
      if (Space == AddrSpace::Multicast)
        X.Addr.Space = Space;
      for (const ExprRef &G : A.Guard)
        X.Guard.push_back(G);
      if (Drop)
        llvm::erase(X.Loops, unsigned(C.DropLoop));
      for (unsigned L : A.AddLoops)
        X.Loops.push_back(L);
      Out.push_back(std::move(X));
    }
  }
  K.Events = std::move(Out);
}

} // namespace pkb::fe
