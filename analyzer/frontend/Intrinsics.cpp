//===- Intrinsics.cpp - CUDA intrinsics, atomics and calls ----------------===//
//
// Maps calls to events (CUDA C++ Programming Guide, "Atomic Functions",
// "Memory Fence Functions", "Synchronization Functions"; libcu++
// cuda::atomic_ref; Cooperative Groups):
//   atomicOp[_block|_system]  -> Atomic, relaxed, scope CTA / GPU / System
//   atomic_ref<T, S>.op(order) -> Load/Store/Atomic with order and scope S
//   __atomic_* builtins        -> system scope (Clang's CUDA default)
//   __threadfence[_block|_system], atomic_thread_fence -> Fence
//   __syncthreads, __syncwarp, cg grid/block/tile .sync() -> Barrier
// User functions with a body are inlined (EventBuilder.cpp); functions of
// system headers without a recognized meaning are treated as pure.
//
//===----------------------------------------------------------------------===//

#include "Builder.h"

#include "clang/AST/DeclTemplate.h"
#include "clang/AST/ExprCXX.h"

namespace pkb::fe {

using namespace clang;

static const clang::Expr *strip(const clang::Expr *E) {
  return E ? E->IgnoreParenImpCasts() : nullptr;
}

/// std::memory_order value (relaxed=0 ... seq_cst=5) to MemOrder.
static MemOrder orderOf(std::optional<int64_t> V, MemOrder Default) {
  if (!V)
    return Default;
  switch (*V) {
  case 0:
    return MemOrder::Relaxed;
  case 1:
  case 2:
    return MemOrder::Acquire;
  case 3:
    return MemOrder::Release;
  case 4:
    return MemOrder::AcqRel;
  default:
    return MemOrder::SeqCst;
  }
}

/// Scope from the name of a cuda::thread_scope enumerator.
static Scope scopeFromName(llvm::StringRef N) {
  if (N.contains("system"))
    return Scope::System;
  if (N.contains("device"))
    return Scope::GPU;
  if (N.contains("cluster"))
    return Scope::Cluster;
  if (N.contains("block"))
    return Scope::CTA;
  if (N.contains("thread"))
    return Scope::CTA; // thread scope: no inter-thread ordering; closest.
  return Scope::System;
}

/// Scope of a thread_scope-typed expression or template argument.
static Scope scopeOfEnumValue(QualType T, int64_t V) {
  if (const auto *ET = T.isNull() ? nullptr : T->getAs<EnumType>())
    for (const EnumConstantDecl *C : ET->getDecl()->enumerators())
      if (C->getInitVal().getExtValue() == V)
        return scopeFromName(C->getName());
  return Scope::System;
}

bool Builder::atomicRefInfo(QualType T, Scope &S, unsigned &Width) const {
  if (T.isNull())
    return false;
  T = T.getNonReferenceType();
  const CXXRecordDecl *RD = T->getAsCXXRecordDecl();
  bool Found = false;
  S = Scope::System;
  for (unsigned Depth = 0; RD && Depth < 6; ++Depth) {
    llvm::StringRef N = RD->getName();
    if (N == "atomic_ref" || N.contains("atomic_ref_impl") ||
        N == "atomic_ref_base") {
      if (!Found)
        if (const auto *CT = dyn_cast<ClassTemplateSpecializationDecl>(RD)) {
          const TemplateArgumentList &A = CT->getTemplateArgs();
          if (A.size() >= 1 && A[0].getKind() == TemplateArgument::Type)
            Width = sizeOf(A[0].getAsType());
        }
      Found = true;
    }
    if (const auto *CT = dyn_cast<ClassTemplateSpecializationDecl>(RD)) {
      const TemplateArgumentList &A = CT->getTemplateArgs();
      for (unsigned I = 0; I < A.size(); ++I)
        if (A[I].getKind() == TemplateArgument::Integral) {
          QualType IT = A[I].getIntegralType();
          if (const auto *ET = IT->getAs<EnumType>())
            if (ET->getDecl()->getName().contains("thread_scope")) {
              S = scopeOfEnumValue(IT, A[I].getAsIntegral().getExtValue());
              if (Found)
                return true;
            }
        }
    }
    if (!RD->hasDefinition() || RD->getNumBases() == 0)
      break;
    QualType BT = RD->bases_begin()->getType();
    RD = BT->getAsCXXRecordDecl();
  }
  return Found;
}

/// Name of the callee, also for unresolved (dependent) calls.
static std::string calleeName(const CallExpr *CE, const FunctionDecl *&FD) {
  FD = CE->getDirectCallee();
  if (FD) {
    if (FD->getIdentifier())
      return FD->getName().str();
    return FD->getNameAsString();
  }
  const clang::Expr *C = strip(CE->getCallee());
  if (const auto *UL = dyn_cast_or_null<UnresolvedLookupExpr>(C))
    return UL->getName().getAsString();
  if (const auto *DR = dyn_cast_or_null<DeclRefExpr>(C))
    return DR->getDecl()->getNameAsString();
  if (const auto *UM = dyn_cast_or_null<UnresolvedMemberExpr>(C))
    return UM->getMemberName().getAsString();
  if (const auto *DM = dyn_cast_or_null<CXXDependentScopeMemberExpr>(C))
    return DM->getMember().getAsString();
  if (const auto *ME = dyn_cast_or_null<MemberExpr>(C))
    return ME->getMemberDecl()->getNameAsString();
  return "";
}

bool inSystemHeader(const ASTContext &Ctx, const Decl *D) {
  if (!D)
    return true;
  const SourceManager &SM = Ctx.getSourceManager();
  SourceLocation L = D->getLocation();
  return L.isInvalid() || SM.isInSystemHeader(SM.getExpansionLoc(L));
}

/// Barrier kind of a cooperative-groups object type by class name.
static BarrierKind cgBarrier(QualType T) {
  if (T.isNull())
    return BarrierKind::None;
  T = T.getNonReferenceType();
  if (const auto *PT = T->getAs<PointerType>())
    T = PT->getPointeeType();
  const CXXRecordDecl *RD = T->getAsCXXRecordDecl();
  std::string N = RD ? RD->getName().str() : T.getAsString();
  llvm::StringRef S(N);
  if (S.contains("grid_group"))
    return BarrierKind::Grid;
  if (S.contains("cluster_group"))
    return BarrierKind::Cluster;
  if (S.contains("thread_block_tile") || S.contains("coalesced_group") ||
      S.contains("tiled_partition"))
    return BarrierKind::Warp;
  if (S.contains("thread_block") || S.contains("thread_group"))
    return BarrierKind::Block;
  return BarrierKind::None;
}

/// Values of cooperative-groups queries on a grid or block group:
/// `thread_rank()`, `size()`/`num_threads()`, `block_rank()`, `num_blocks()`
/// (CUDA Guide, "Cooperative Groups": row-major over x, y, z).
static std::optional<ExprRef> cgQuery(BarrierKind G, llvm::StringRef M) {
  if (G != BarrierKind::Grid && G != BarrierKind::Block)
    return std::nullopt;
  auto V = [](const char *Name) { return Expr::var(Name); };
  auto Linear = [&](const char *I, const char *D) { // I.x + D.x*(I.y + D.y*I.z)
    std::string Ix = I, Dx = D;
    return mkAdd(
        V((Ix + ".x").c_str()),
        mkMul(V((Dx + ".x").c_str()),
              mkAdd(V((Ix + ".y").c_str()),
                    mkMul(V((Dx + ".y").c_str()), V((Ix + ".z").c_str())))));
  };
  auto Count = [&](const char *D) {
    std::string Dx = D;
    return mkMul(mkMul(V((Dx + ".x").c_str()), V((Dx + ".y").c_str())),
                 V((Dx + ".z").c_str()));
  };
  bool Grid = G == BarrierKind::Grid;
  if (M == "thread_rank")
    return Grid ? mkAdd(mkMul(Linear("bid", "gdim"), Count("bdim")),
                        Linear("tid", "bdim"))
                : Linear("tid", "bdim");
  if (M == "size" || M == "num_threads")
    return Grid ? mkMul(Count("gdim"), Count("bdim")) : Count("bdim");
  if (Grid && M == "block_rank")
    return Linear("bid", "gdim");
  if (Grid && M == "num_blocks")
    return Count("gdim");
  return std::nullopt;
}

/// True if \p Arg, the right side of a copy assignment to \p Obj, is an
/// object in memory of the same type (no temporary, no conversion).
static bool copiesObject(const clang::Expr *Arg, const clang::Expr *Obj) {
  const clang::Expr *X = Arg->IgnoreParenImpCasts();
  if (isa<MaterializeTemporaryExpr>(X) || !X->isGLValue())
    return false;
  return X->getType().getCanonicalType().getUnqualifiedType() ==
         Obj->IgnoreParenImpCasts()
             ->getType()
             .getCanonicalType()
             .getUnqualifiedType();
}

Val Builder::atomicBuiltin(const AtomicExpr *AE) {
  std::string Spelled = text(AE);
  llvm::StringRef N(Spelled);
  N = N.take_until([](char C) { return C == '(' || C == ' '; });
  Scope S = Scope::System;
  if (N.consume_front("__scoped_atomic_")) {
    if (std::optional<int64_t> V = constant(AE->getScope()))
      S = *V == 0   ? Scope::System
          : *V == 1 ? Scope::GPU
          : *V == 2 ? Scope::CTA
                    : Scope::CTA;
  } else if (!N.consume_front("__atomic_") && !N.consume_front("__c11_atomic_"))
    N.consume_front("__hip_atomic_");
  N.consume_back("_n");
  std::optional<PtrVal> P = pointer(AE->getPtr());
  ExprRef V;
  bool IsLoad = N == "load";
  if (!IsLoad && AE->getNumSubExprs() > 2 && !N.starts_with("compare"))
    V = rv(AE->getVal1());
  MemOrder O = orderOf(constant(AE->getOrder()), MemOrder::SeqCst);
  EventKind Kind = IsLoad         ? EventKind::Load
                   : N == "store" ? EventKind::Store
                                  : EventKind::Atomic;
  Event &E = emit(Kind, AE);
  if (P)
    E.Addr = toAddress(*P);
  E.Width = pointeeSize(AE->getPtr()->getType());
  E.Order = O;
  E.Scp = S;
  E.Value = V;
  E.Text = Spelled;
  if (Kind == EventKind::Atomic) {
    llvm::StringRef Op = N;
    Op.consume_front("fetch_");
    Op.consume_back("_fetch");
    E.AtomicOp = Op.starts_with("compare") ? "cas"
                 : Op == "exchange"        ? "exch"
                                           : Op.str();
  }
  int Idx = static_cast<int>(K.Events.size()) - 1;
  if (Kind == EventKind::Store)
    return {Expr::opaque(Spelled)};
  LastLoad = Idx;
  return {loadValue(AE, Idx)};
}

Val Builder::call(const CallExpr *CE) {
  Val R = callImpl(CE);
  // A callee that was not inlined may assign what it takes by reference.
  if (!Inlined.count(CE))
    forgetRefArgs(CE);
  return R;
}

Val Builder::callImpl(const CallExpr *CE) {
  const FunctionDecl *FD = nullptr;
  std::string Name = calleeName(CE, FD);
  llvm::StringRef N(Name);
  unsigned NArgs = CE->getNumArgs();
  auto Arg = [&](unsigned I) -> const clang::Expr * {
    return I < NArgs ? CE->getArg(I) : nullptr;
  };

  // Member calls: atomic_ref operations, cooperative-groups sync().
  const clang::Expr *Obj = nullptr;
  unsigned ArgBase = 0;
  if (const auto *MC = dyn_cast<CXXMemberCallExpr>(CE)) {
    Obj = MC->getImplicitObjectArgument();
  } else if (const auto *OC = dyn_cast<CXXOperatorCallExpr>(CE)) {
    if (FD && isa<CXXMethodDecl>(FD) && NArgs >= 1) {
      Obj = OC->getArg(0);
      ArgBase = 1;
    }
  } else if (const auto *SM = dyn_cast_or_null<MemberExpr>(
                 FD && isa<CXXMethodDecl>(FD) ? strip(CE->getCallee())
                                              : nullptr)) {
    // A static member function called through an object (the toolkit's
    // `grid.thread_rank()` is static).
    Obj = SM->getBase();
  } else if (!FD) {
    if (const auto *DM = dyn_cast_or_null<CXXDependentScopeMemberExpr>(
            strip(CE->getCallee())))
      if (!DM->isImplicitAccess())
        Obj = DM->getBase();
  }
  if (Obj) {
    Scope S;
    unsigned W = 0;
    if (atomicRefInfo(strip(Obj)->getType(), S, W)) {
      Val Ref;
      const clang::Expr *OS = strip(Obj);
      if (const auto *DR = dyn_cast<DeclRefExpr>(OS))
        Ref = declRef(DR->getDecl(), OS);
      else
        Ref = eval(Obj);
      std::string M = Name;
      if (FD && isa<CXXConversionDecl>(FD))
        M = "load";
      else if (FD && FD->isOverloadedOperator()) {
        switch (FD->getOverloadedOperator()) {
        case OO_Equal:
          M = "store";
          break;
        case OO_PlusPlus:
        case OO_PlusEqual:
          M = "fetch_add";
          break;
        case OO_MinusMinus:
        case OO_MinusEqual:
          M = "fetch_sub";
          break;
        case OO_AmpEqual:
          M = "fetch_and";
          break;
        case OO_PipeEqual:
          M = "fetch_or";
          break;
        case OO_CaretEqual:
          M = "fetch_xor";
          break;
        default:
          break;
        }
      }
      llvm::StringRef MR(M);
      bool IsCas = MR.starts_with("compare_exchange");
      std::vector<const clang::Expr *> Args;
      for (unsigned I = ArgBase; I < NArgs; ++I)
        if (!isa<CXXDefaultArgExpr>(CE->getArg(I)))
          Args.push_back(CE->getArg(I));
      // Order argument position: load(o); store(v,o); cas(e,d,o[,o2]);
      // fetch_*(v,o); wait(v,o).
      size_t OrderPos = MR == "load" ? 0 : IsCas ? 2 : 1;
      ExprRef Value, Expected;
      if (IsCas) {
        if (Args.size() > 0)
          Expected = rv(Args[0]);
        if (Args.size() > 1)
          Value = rv(Args[1]);
      } else if (MR != "load" && !Args.empty()) {
        Value = rv(Args[0]);
      } else if (MR.starts_with("operator") || MR == "fetch_add") {
        Value = Expr::constant(1);
      }
      if ((M == "fetch_add" || M == "fetch_sub") && !Value)
        Value = Expr::constant(1);
      MemOrder O = MemOrder::SeqCst;
      if (OrderPos < Args.size())
        O = orderOf(constant(Args[OrderPos]), MemOrder::SeqCst);
      if (MR == "notify_one" || MR == "notify_all" || MR == "is_lock_free")
        return {Expr::opaque(text(CE))};
      if (MR == "wait") {
        Event &E = emit(EventKind::SpinWait, CE);
        if (Ref.P)
          E.Addr = toAddress(*Ref.P);
        E.Width = W;
        E.Order = O;
        E.Scp = Ref.IsAtomicRef ? Ref.RefScope : S;
        E.CompareOp = "!=";
        E.Value = Value;
        E.ExitCond = Expr::binary(ExprOp::Ne, Expr::var("polled"), Value);
        E.Text = text(CE);
        return {Expr::opaque(text(CE))};
      }
      EventKind Kind = MR == "load"    ? EventKind::Load
                       : MR == "store" ? EventKind::Store
                                       : EventKind::Atomic;
      Event &E = emit(Kind, CE);
      if (Ref.P)
        E.Addr = toAddress(*Ref.P);
      E.Width = W;
      E.Order = O;
      E.Scp = Ref.IsAtomicRef ? Ref.RefScope : S;
      E.Value = Value;
      E.Text = text(CE);
      if (Kind == EventKind::Atomic) {
        llvm::StringRef Op = MR;
        Op.consume_front("fetch_");
        E.AtomicOp = IsCas ? "cas" : Op == "exchange" ? "exch" : Op.str();
      }
      int Idx = static_cast<int>(K.Events.size()) - 1;
      if (Kind == EventKind::Store)
        return {Value ? Value : Expr::opaque(text(CE))};
      LastLoad = Idx;
      ExprRef R = loadValue(CE, Idx);
      if (IsCas && Expected)
        return {Expr::binary(ExprOp::Eq, R, Expected)};
      return {R};
    }
    if (std::optional<ExprRef> V = cgQuery(cgBarrier(Obj->getType()), N)) {
      eval(Obj);
      return {*V};
    }
    if (N == "sync" || N == "barrier_wait") {
      BarrierKind B = cgBarrier(Obj->getType());
      if (B != BarrierKind::None) {
        eval(Obj);
        Event &E = emit(EventKind::Barrier, CE);
        E.Barrier = B;
        E.Text = text(CE);
        return {Expr::opaque(text(CE))};
      }
    }
  }

  // Free functions recognized by name.
  if (N == "__syncthreads" || N == "__syncthreads_count" ||
      N == "__syncthreads_and" || N == "__syncthreads_or" ||
      N == "__barrier_sync" || N == "__syncwarp" ||
      (N == "sync" && NArgs == 1 &&
       cgBarrier(Arg(0)->getType()) != BarrierKind::None)) {
    for (unsigned I = 0; I < NArgs; ++I)
      eval(Arg(I));
    Event &E = emit(EventKind::Barrier, CE);
    E.Barrier = N == "__syncwarp"       ? BarrierKind::Warp
                : N == "__barrier_sync" ? BarrierKind::Named
                : N == "sync"           ? cgBarrier(Arg(0)->getType())
                                        : BarrierKind::Block;
    E.Text = text(CE);
    return {Expr::opaque(text(CE))};
  }
  if (N == "__threadfence_block" || N == "__threadfence" ||
      N == "__threadfence_system" || N == "atomic_thread_fence" ||
      N == "__atomic_thread_fence") {
    Event &E = emit(EventKind::Fence, CE);
    E.Text = text(CE);
    E.Order = MemOrder::SeqCst;
    E.Scp = N == "__threadfence_block" ? Scope::CTA
            : N == "__threadfence"     ? Scope::GPU
                                       : Scope::System;
    if (N == "atomic_thread_fence" || N == "__atomic_thread_fence") {
      if (NArgs >= 1)
        E.Order = orderOf(constant(Arg(0)), MemOrder::SeqCst);
      if (NArgs >= 2)
        if (std::optional<int64_t> V = constant(Arg(1)))
          E.Scp = scopeOfEnumValue(Arg(1)->getType(), *V);
    }
    return {Expr::opaque(text(CE))};
  }
  if (N.starts_with("atomic") && NArgs >= 2 && !N.starts_with("atomic_")) {
    llvm::StringRef Op = N.drop_front(6);
    Scope S = Scope::GPU;
    if (Op.consume_back("_system"))
      S = Scope::System;
    else if (Op.consume_back("_block"))
      S = Scope::CTA;
    std::string Lower = Op.lower();
    static const char *Ops[] = {"add", "sub", "exch", "min", "max", "inc",
                                "dec", "and", "or",   "xor", "cas"};
    bool Known = false;
    for (const char *O : Ops)
      Known |= Lower == O;
    if (Known) {
      std::optional<PtrVal> P = pointer(Arg(0));
      ExprRef V = rv(Arg(1));
      ExprRef Cmp;
      if (Lower == "cas" && NArgs >= 3) {
        Cmp = V;
        V = rv(Arg(2));
      }
      Event &E = emit(EventKind::Atomic, CE);
      if (P)
        E.Addr = toAddress(*P);
      E.Width = pointeeSize(Arg(0)->getType());
      E.Order = MemOrder::Relaxed;
      E.Scp = S;
      E.AtomicOp = Lower;
      E.Value = V;
      E.Text = text(CE);
      int Idx = static_cast<int>(K.Events.size()) - 1;
      LastLoad = Idx;
      return {loadValue(CE, Idx)};
    }
  }
  if (N.starts_with("__ld") && NArgs == 1 &&
      (N == "__ldg" || N == "__ldcg" || N == "__ldca" || N == "__ldcs" ||
       N == "__ldlu" || N == "__ldcv")) {
    std::optional<PtrVal> P = pointer(Arg(0));
    Event &E = emit(EventKind::Load, CE);
    if (P)
      E.Addr = toAddress(*P);
    E.Width = pointeeSize(Arg(0)->getType());
    if (N == "__ldcv") {
      E.Order = MemOrder::Volatile;
      E.Scp = Scope::System;
    }
    E.Text = text(CE);
    int Idx = static_cast<int>(K.Events.size()) - 1;
    LastLoad = Idx;
    return {loadValue(CE, Idx)};
  }
  if ((N == "__stcg" || N == "__stcs" || N == "__stwb" || N == "__stwt") &&
      NArgs == 2) {
    std::optional<PtrVal> P = pointer(Arg(0));
    ExprRef V = rv(Arg(1));
    if (P)
      emitAccess(EventKind::Store, *P, Arg(0)->getType()->getPointeeType(), CE,
                 V);
    return {Expr::opaque(text(CE))};
  }
  if ((N == "min" || N == "max" || N == "umin" || N == "umax" || N == "llmin" ||
       N == "llmax" || N == "ullmin" || N == "ullmax") &&
      NArgs == 2 && CE->getType()->isIntegerType()) {
    ExprRef A = rv(Arg(0)), B = rv(Arg(1));
    return {Expr::binary(N.ends_with("min") ? ExprOp::Min : ExprOp::Max, A, B)};
  }

  // Assignments of class values (int4, __nv_bfloat16, user structs): a
  // store of the whole object, after reading the right-hand side.
  if (const auto *MD = dyn_cast_or_null<CXXMethodDecl>(FD))
    if (Obj &&
        (MD->isCopyAssignmentOperator() || MD->isMoveAssignmentOperator() ||
         (FD->getOverloadedOperator() != OO_None && inSystemHeader(Ctx, FD) &&
          FD->getOverloadedOperator() >= OO_Equal &&
          FD->getOverloadedOperator() <= OO_GreaterGreaterEqual))) {
      bool Plain = FD->getOverloadedOperator() == OO_Equal;
      size_t Before = K.Events.size();
      Val R = NArgs > ArgBase ? recordRead(CE->getArg(ArgBase)) : Val{};
      std::optional<PtrVal> P = lvalue(Obj);
      if (P) {
        if (!Plain)
          emitAccess(EventKind::Load, *P, strip(Obj)->getType(), CE);
        emitAccess(EventKind::Store, *P, strip(Obj)->getType(), CE,
                   Plain ? R.E : nullptr);
        // `y[i] = x[j]` of a whole object read from memory: a plain copy.
        Event &St = K.Events.back();
        if (Plain && NArgs > ArgBase && K.Events.size() == Before + 2 &&
            K.Events[Before].Kind == EventKind::Load &&
            K.Events[Before].Width == St.Width && St.Width &&
            copiesObject(CE->getArg(ArgBase), Obj))
          St.CopyOf = std::make_shared<const Address>(K.Events[Before].Addr);
      }
      return R;
    }

  // User functions: inline; system-header functions: pure.
  const FunctionDecl *Def = nullptr;
  if (FD && FD->hasBody(Def) && Def && !inSystemHeader(Ctx, Def))
    return callUser(CE, Def);
  if (FD && inSystemHeader(Ctx, FD)) {
    if (Obj)
      recordRead(Obj);
    Val R{Expr::opaque(text(CE))};
    for (unsigned I = ArgBase; I < NArgs; ++I) {
      Val A = recordRead(Arg(I));
      // Pointer-returning helpers of the headers (e.g. cvta) keep the first
      // pointer argument.
      if (!R.P && A.P && CE->getType()->isPointerType())
        R.P = A.P;
    }
    return R;
  }
  if (Obj)
    eval(Obj);
  for (unsigned I = ArgBase; I < NArgs; ++I)
    eval(Arg(I));
  if (!FD && Name.empty())
    return {Expr::opaque(text(CE))};
  Event &E = emit(EventKind::Call, CE);
  E.Text = Name.empty() ? text(CE) : Name;
  return {Expr::opaque(text(CE))};
}

} // namespace pkb::fe
