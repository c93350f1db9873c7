//===- RoleInference.cpp - Roles of kernel parameters ---------------------===//
//
// Infers what each kernel parameter is for, without annotations:
//   * types: T** / void** tables, int64/uint64 address tables (subscripted
//     and cast to a pointer anywhere in the kernel or its callees), the
//     candidate ABI's pkb_peer_view (flattened as view.rank, view.world_size,
//     view.peers, view.signal_pads) and pkb_context, structs whose fields are
//     arrays of pointers;
//   * names: rank/my_rank/local_rank -> Rank, world_size/nranks/npes ->
//     WorldSize, *signal*/*flag*/*pad* -> SignalPad(Table), n/numel/count ->
//     ElementCount;
//   * use (after the walk): a pointer polled in a spin loop is a SignalPad,
//     a table whose entries are polled is a SignalPadTable, a pointer used by
//     multimem instructions is Multicast.
//
//===----------------------------------------------------------------------===//

#include "Builder.h"

#include "clang/AST/RecursiveASTVisitor.h"

#include <cctype>

namespace pkb::fe {

using namespace clang;

static std::string norm(llvm::StringRef N) {
  std::string S;
  for (char C : N)
    if (C != '_')
      S += static_cast<char>(std::tolower(static_cast<unsigned char>(C)));
  return S;
}

bool isRankName(llvm::StringRef N) {
  std::string S = norm(N);
  for (const char *R :
       {"rank", "myrank", "rankid", "localrank", "rankidx", "selfrank", "mype",
        "currank", "thisrank", "globalrank", "devrank"})
    if (S == R)
      return true;
  return false;
}

bool isWorldName(llvm::StringRef N) {
  std::string S = norm(N);
  for (const char *W : {"worldsize", "ws", "nranks", "numranks", "world",
                        "npes", "nrank", "ngpus", "numgpus", "worldsz",
                        "numdevices", "ndevices", "rankspernode"})
    if (S == W)
      return true;
  return false;
}

static bool isSignalName(llvm::StringRef N) {
  std::string S = norm(N);
  for (const char *W : {"signal", "flag", "pad", "sem", "barrier", "sync",
                        "lock", "counter", "ready", "doorbell"})
    if (S.find(W) != std::string::npos)
      return true;
  return false;
}

static bool isCountName(llvm::StringRef N) {
  std::string S = norm(N);
  for (const char *W : {"n",     "numel",  "count",       "len",   "length",
                        "nelem", "nelems", "numelements", "elems", "chunk",
                        "bytes", "nbytes", "numbytes",    "size",  "total",
                        "m",     "k",      "rows",        "cols",  "dim"})
    if (S == W)
      return true;
  for (const char *W : {"numel", "count", "elems", "bytes", "size", "len"})
    if (S.find(W) != std::string::npos)
      return true;
  return false;
}

static bool isAddrName(llvm::StringRef N) {
  std::string S = norm(N);
  for (const char *W : {"ptr", "addr", "peer", "buffer", "buf", "handle"})
    if (S.find(W) != std::string::npos)
      return true;
  return false;
}

static bool isAddrInt(QualType T) {
  if (T.isNull() || !T->isIntegerType() || T->isDependentType())
    return false;
  return T->isSpecificBuiltinType(BuiltinType::Long) ||
         T->isSpecificBuiltinType(BuiltinType::ULong) ||
         T->isSpecificBuiltinType(BuiltinType::LongLong) ||
         T->isSpecificBuiltinType(BuiltinType::ULongLong);
}

static std::string typeName(const ASTContext &Ctx, QualType T) {
  PrintingPolicy PP(Ctx.getLangOpts());
  PP.SuppressTagKeyword = true;
  return T.getAsString(PP);
}

void Builder::scanTables(const Stmt *S, unsigned Depth,
                         std::set<const FunctionDecl *> &Seen) {
  if (!S || Depth > Opts.InlineDepth)
    return;
  if (const auto *CE = dyn_cast<CastExpr>(S)) {
    if (CE->getCastKind() == CK_IntegralToPointer) {
      const auto *AS =
          dyn_cast<ArraySubscriptExpr>(CE->getSubExpr()->IgnoreParenImpCasts());
      if (AS)
        if (const auto *DR =
                dyn_cast<DeclRefExpr>(AS->getBase()->IgnoreParenImpCasts()))
          if (const auto *P = dyn_cast<ParmVarDecl>(DR->getDecl()))
            TableParms.insert(P);
    }
  }
  if (const auto *Call = dyn_cast<CallExpr>(S)) {
    const FunctionDecl *Def = nullptr;
    if (const FunctionDecl *FD = Call->getDirectCallee())
      if (FD->hasBody(Def) && Def && Seen.insert(Def).second) {
        const SourceManager &SM = Ctx.getSourceManager();
        if (!SM.isInSystemHeader(SM.getExpansionLoc(Def->getLocation())))
          scanTables(Def->getBody(), Depth + 1, Seen);
      }
  }
  for (const Stmt *C : S->children())
    scanTables(C, Depth, Seen);
}

namespace {

/// The candidate ABI field (docs/candidate-abi.md) that an argument
/// expression reads, through parentheses and casts: "rank" for
/// `ctx->rank`, "peers" for `ctx->symm[0].peers`; empty otherwise.
std::string abiField(const clang::Expr *E) {
  const auto *ME = dyn_cast<MemberExpr>(E->IgnoreParenCasts());
  if (!ME)
    return {};
  const auto *F = dyn_cast<FieldDecl>(ME->getMemberDecl());
  if (!F)
    return {};
  llvm::StringRef RN = F->getParent()->getName();
  if (RN != "pkb_context" && RN != "pkb_peer_view" && RN != "pkb_symm_buffer")
    return {};
  return F->getName().str();
}

/// Collects, per parameter of one kernel, the ABI field that every visible
/// `<<<>>>` launch of it in the main file passes (empty where a launch
/// passes something else or where there is no launch).
class LaunchArgScan : public RecursiveASTVisitor<LaunchArgScan> {
public:
  LaunchArgScan(const FunctionDecl *K) : K(canon(K)) {}
  bool shouldVisitTemplateInstantiations() const { return true; }

  bool VisitCUDAKernelCallExpr(CUDAKernelCallExpr *CE) {
    const FunctionDecl *Callee = CE->getDirectCallee();
    if (!Callee || canon(Callee) != K)
      return true;
    std::vector<std::string> Args;
    for (const clang::Expr *A : CE->arguments())
      Args.push_back(abiField(A));
    if (!Seen) {
      Fields = std::move(Args);
      Seen = true;
      return true;
    }
    for (size_t I = 0; I < Fields.size(); ++I)
      if (I >= Args.size() || Args[I] != Fields[I])
        Fields[I].clear();
    return true;
  }

  /// Field per parameter index ("" = none agreed on).
  std::vector<std::string> Fields;

private:
  static const FunctionDecl *canon(const FunctionDecl *F) {
    if (const FunctionDecl *P = F->getTemplateInstantiationPattern())
      F = P;
    return F->getCanonicalDecl();
  }
  const FunctionDecl *K;
  bool Seen = false;
};

} // namespace

/// Lists the fields of struct \p Def (a parameter passed by value, or a
/// struct field of one) as parameters `Owner.Name.FIELD` with the roles
/// their types and names give: arrays or tables of pointers (peer or
/// signal-pad tables), rank and world-size integers, pointers; a field that
/// is itself a struct (`pkb_peer_view view` in an argument struct) is
/// listed the same way, one level down. \p What names the struct in the
/// reasons.
void Builder::addFieldParams(const Param &Owner, const RecordDecl *Def,
                             const std::string &What, unsigned Depth) {
  for (const FieldDecl *F : Def->fields()) {
    Param Fp;
    Fp.Name = Owner.Name + "." + F->getName().str();
    Fp.Type = typeName(Ctx, F->getType());
    Fp.Loc = Owner.Loc;
    QualType FT = F->getType();
    if (const RecordDecl *Inner =
            FT->isRecordType() ? FT->getAsRecordDecl() : nullptr) {
      const RecordDecl *InnerDef = Inner->getDefinition();
      if (Depth > 0 || !InnerDef)
        continue;
      llvm::StringRef IN = Inner->getName();
      bool Abi = IN == "pkb_peer_view" || IN == "pkb_context";
      Fp.Role = Abi ? ParamRole::Context : ParamRole::Scalar;
      Fp.Why = "struct field of " + What + (Abi ? " (" + IN.str() + ")" : "");
      K.Params.push_back(Fp);
      addFieldParams(Fp, InnerDef, Abi ? IN.str() : "struct", Depth + 1);
      continue;
    }
    QualType Elem;
    if (const ArrayType *AT = FT->getAsArrayTypeUnsafe())
      Elem = AT->getElementType();
    else if (FT->isPointerType() && FT->getPointeeType()->isPointerType())
      Elem = FT->getPointeeType();
    llvm::StringRef FN = F->getName();
    if (!Elem.isNull() && Elem->isPointerType()) {
      bool Sig = isSignalName(FN);
      Fp.Role = Sig ? ParamRole::SignalPadTable : ParamRole::PeerTable;
      Fp.ElemBytes = sizeOf(Elem->getPointeeType());
      Fp.Why = "field of " + What + ": array of pointers" +
               (Sig ? " named like a signal pad" : "");
    } else if (FT->isIntegerType() && isRankName(FN)) {
      Fp.Role = ParamRole::Rank;
      Fp.Why = "field named like a rank";
    } else if (FT->isIntegerType() && isWorldName(FN)) {
      Fp.Role = ParamRole::WorldSize;
      Fp.Why = "field named like a world size";
    } else if (FT->isPointerType()) {
      bool Sig = isSignalName(FN);
      Fp.Role = Sig ? ParamRole::SignalPad : ParamRole::LocalBuffer;
      Fp.ElemBytes = sizeOf(FT->getPointeeType());
      Fp.Why = Sig ? "pointer field named like a signal pad" : "pointer field";
    } else if (FT->isIntegralOrEnumerationType()) {
      // Listed like scalar parameters: launches bind them (Launches.cpp,
      // bindFields()) and the engine's unbound-parameter rule names them.
      bool Count = FT->isIntegerType() && isCountName(FN);
      Fp.Role = Count ? ParamRole::ElementCount : ParamRole::Scalar;
      Fp.Why = Count ? "integer field named like an element count"
                     : "scalar field of " + What;
    } else {
      continue; // floating-point and other fields are not listed
    }
    K.Params.push_back(Fp);
  }
}

void Builder::inferRoles(const FunctionDecl *FD) {
  // Values that flow into the launches decide a role before names do: a
  // parameter that receives `ctx->rank` is the rank whatever it is called.
  LaunchArgScan Launches(FD);
  for (Decl *D : Ctx.getTranslationUnitDecl()->decls())
    if (D->getLocation().isValid() && Map.inMainFile(D->getLocation()))
      Launches.TraverseDecl(D);
  auto LaunchField = [&](const ParmVarDecl *P) -> llvm::StringRef {
    unsigned I = P->getFunctionScopeIndex();
    return I < Launches.Fields.size() ? llvm::StringRef(Launches.Fields[I])
                                      : llvm::StringRef();
  };
  for (const ParmVarDecl *P : FD->parameters()) {
    Param Pm;
    Pm.Name = P->getName().str();
    Pm.Type = typeName(Ctx, P->getType());
    Pm.Loc = Map.map(P->getLocation());
    QualType T = P->getType().getNonReferenceType();
    Val V{Expr::var("param:" + Pm.Name)};
    llvm::StringRef N(Pm.Name);
    const RecordDecl *RD = T->isRecordType() ? T->getAsRecordDecl() : nullptr;
    if (RD) {
      llvm::StringRef RN = RD->getName();
      bool Abi = RN == "pkb_peer_view" || RN == "pkb_context";
      Pm.Role = Abi ? ParamRole::Context : ParamRole::Scalar;
      Pm.Why = Abi ? "candidate ABI type " + RN.str() + " passed by value"
                   : "struct passed by value";
      V.Record = Pm.Name;
      K.Params.push_back(Pm);
      if (const RecordDecl *Def = RD->getDefinition())
        addFieldParams(Pm, Def, Abi ? RN.str() : "struct", /*Depth=*/0);
      frame().Vars[P] = V;
      continue;
    }
    if (T->isPointerType() || T->isArrayType()) {
      QualType Pointee = T->isPointerType()
                             ? T->getPointeeType()
                             : T->getAsArrayTypeUnsafe()->getElementType();
      PtrVal PV;
      PV.Base = Pm.Name;
      PV.Index = Expr::constant(0);
      PV.Space = AddrSpace::Global;
      const RecordDecl *PR =
          Pointee->isRecordType() ? Pointee->getAsRecordDecl() : nullptr;
      if (PR && (PR->getName() == "pkb_context" ||
                 PR->getName() == "pkb_peer_view")) {
        Pm.Role = ParamRole::Context;
        Pm.Why = "pointer to candidate ABI type " + PR->getName().str();
        V.Record = Pm.Name;
      } else if (Pointee->isPointerType()) {
        llvm::StringRef LF = LaunchField(P);
        bool Sig = LF == "signal_pads" || (LF != "peers" && isSignalName(N));
        Pm.Role = Sig ? ParamRole::SignalPadTable : ParamRole::PeerTable;
        Pm.ElemBytes = sizeOf(Pointee->getPointeeType());
        Pm.Why = !LF.empty() ? "table of pointers; every launch passes the "
                               "candidate ABI's " +
                                   LF.str()
                 : Sig ? "table of pointers named like signal pads"
                       : "table of pointers (pointer to pointer)";
        PV.IsTable = true;
        PV.ElemBytes = Pm.ElemBytes;
      } else if (isAddrInt(Pointee) && (TableParms.count(P) || isAddrName(N))) {
        bool Sig = isSignalName(N);
        Pm.Role = Sig ? ParamRole::SignalPadTable : ParamRole::PeerTable;
        Pm.Why = TableParms.count(P)
                     ? "64-bit address table indexed and cast to a pointer"
                     : "64-bit integer table named like addresses";
        TableParms.insert(P);
        PV.IsTable = true;
      } else if (isSignalName(N)) {
        Pm.Role = ParamRole::SignalPad;
        Pm.ElemBytes = sizeOf(Pointee);
        Pm.Why = "pointer named like a signal pad";
        PV.ElemBytes = Pm.ElemBytes;
      } else {
        Pm.Role = ParamRole::LocalBuffer;
        Pm.ElemBytes = sizeOf(Pointee);
        Pm.Why = "pointer to this rank's memory";
        PV.ElemBytes = Pm.ElemBytes;
      }
      V.P = PV;
    } else if (T->isIntegerType() || T->isDependentType()) {
      llvm::StringRef LF = LaunchField(P);
      if (LF == "rank") {
        Pm.Role = ParamRole::Rank;
        Pm.Why = "integer; every launch passes the candidate ABI's rank";
        V.E = Expr::var("rank");
      } else if (LF == "world_size") {
        Pm.Role = ParamRole::WorldSize;
        Pm.Why = "integer; every launch passes the candidate ABI's world_size";
        V.E = Expr::var("world_size");
      } else if (isRankName(N)) {
        Pm.Role = ParamRole::Rank;
        Pm.Why = "integer named like a rank";
        V.E = Expr::var("rank");
      } else if (isWorldName(N)) {
        Pm.Role = ParamRole::WorldSize;
        Pm.Why = "integer named like a world size";
        V.E = Expr::var("world_size");
      } else if (isCountName(N)) {
        Pm.Role = ParamRole::ElementCount;
        Pm.Why = "integer named like an element count";
      } else {
        Pm.Role = ParamRole::Scalar;
        Pm.Why = "scalar";
      }
    } else {
      Pm.Role = ParamRole::Scalar;
      Pm.Why = "scalar";
    }
    KernelRoles[P] = Pm.Role;
    K.Params.push_back(Pm);
    frame().Vars[P] = V;
  }
}

ExprRef Builder::paramValue(const ParmVarDecl *P) const {
  auto It = KernelRoles.find(P);
  if (It != KernelRoles.end()) {
    if (It->second == ParamRole::Rank)
      return Expr::var("rank");
    if (It->second == ParamRole::WorldSize)
      return Expr::var("world_size");
  }
  return Expr::var("param:" + P->getName().str());
}

std::optional<std::string> Builder::recordRoot(const clang::Expr *E) {
  E = E ? E->IgnoreParenImpCasts() : nullptr;
  // `this` of a member function called on a flattened struct (`A.f()`).
  if (isa_and_nonnull<CXXThisExpr>(E)) {
    if (frame().ThisRecord.empty())
      return std::nullopt;
    return frame().ThisRecord;
  }
  if (const auto *DR = dyn_cast_or_null<DeclRefExpr>(E)) {
    auto It = frame().Vars.find(DR->getDecl());
    if (It == frame().Vars.end() || It->second.Record.empty())
      return std::nullopt;
    return It->second.Record;
  }
  // A struct field of such a record, by value (`args.view`); one level,
  // like the parameters addFieldParams() lists.
  const auto *ME = dyn_cast_or_null<MemberExpr>(E);
  const auto *F = ME ? dyn_cast<FieldDecl>(ME->getMemberDecl()) : nullptr;
  if (!F || ME->isArrow() || !F->getType()->isRecordType() ||
      !isa<DeclRefExpr>(ME->getBase()->IgnoreParenImpCasts()))
    return std::nullopt;
  std::optional<std::string> R = recordRoot(ME->getBase());
  if (!R)
    return std::nullopt;
  return *R + "." + F->getName().str();
}

std::shared_ptr<ObjFields> Builder::objectOf(const clang::Expr *Base,
                                             bool Create) {
  Base = Base ? Base->IgnoreParenImpCasts() : nullptr;
  if (isa_and_nonnull<CXXThisExpr>(Base))
    return frame().This;
  const auto *DR = dyn_cast_or_null<DeclRefExpr>(Base);
  const auto *VD = DR ? dyn_cast<VarDecl>(DR->getDecl()) : nullptr;
  if (!VD || VD->hasGlobalStorage() ||
      !VD->getType().getNonReferenceType()->isRecordType() ||
      VD->hasAttr<CUDASharedAttr>())
    return nullptr;
  auto It = frame().Vars.find(VD);
  if (It != frame().Vars.end() && (It->second.Obj || !Create))
    return It->second.Obj;
  // A by-value struct parameter (or a copy of one) is flattened instead.
  if (!Create || isa<ParmVarDecl>(VD) ||
      (It != frame().Vars.end() && !It->second.Record.empty()))
    return nullptr;
  Val &V = frame().Vars[VD];
  V.Obj = std::make_shared<ObjFields>();
  return V.Obj;
}

/// The number of assignments (plain or compound) `B.F = e` in \p S whose
/// base B is \p VD (or `this` when \p VD is null).
static unsigned fieldAssignments(const Stmt *S, const ValueDecl *VD,
                                 const FieldDecl *F) {
  if (!S)
    return 0;
  unsigned N = 0;
  if (const auto *BO = dyn_cast<BinaryOperator>(S))
    if (BO->isAssignmentOp())
      if (const auto *ME =
              dyn_cast<MemberExpr>(BO->getLHS()->IgnoreParenImpCasts());
          ME && ME->getMemberDecl() == F) {
        const clang::Expr *B = ME->getBase()->IgnoreParenImpCasts();
        const auto *DR = dyn_cast<DeclRefExpr>(B);
        if (VD ? DR && DR->getDecl() == VD : isa<CXXThisExpr>(B))
          ++N;
      }
  for (const Stmt *C : S->children())
    N += fieldAssignments(C, VD, F);
  return N;
}

bool Builder::setField(const clang::Expr *L, BinaryOperatorKind Op,
                       const Val &R) {
  const auto *ME = dyn_cast_or_null<MemberExpr>(L);
  const auto *F = ME ? dyn_cast<FieldDecl>(ME->getMemberDecl()) : nullptr;
  if (!F || (ME->isArrow() &&
             !isa<CXXThisExpr>(ME->getBase()->IgnoreParenImpCasts())))
    return false;
  std::shared_ptr<ObjFields> O = objectOf(ME->getBase(), /*Create=*/true);
  if (!O)
    return false;
  std::string Local = "local:" + text(ME) + "@" +
                      std::to_string(Map.map(ME->getBeginLoc()).Line);
  Val V;
  if (Op == BO_Assign) {
    V = R;
  } else {
    // `f += v`: a new value the model does not fold; a pointer field keeps
    // its base with an unknown index.
    auto It = O->F.find(F);
    if (It != O->F.end() && It->second.P) {
      V.P = It->second.P;
      V.P->Index = nullptr;
    }
  }
  // Assigned more than once in this function (in branches or a loop): the
  // integer value is not the last one walked; a pointer keeps its last
  // value, as a local pointer does.
  const auto *DR = dyn_cast<DeclRefExpr>(ME->getBase()->IgnoreParenImpCasts());
  const FunctionDecl *FD = frame().FD;
  bool Multi =
      FD && FD->getBody() &&
      fieldAssignments(FD->getBody(), DR ? DR->getDecl() : nullptr, F) > 1;
  if (!V.E || V.E->hasOpaque() || V.E->mentions("polled") || Op != BO_Assign ||
      Multi)
    V.E = Expr::var(Local);
  O->F[F] = std::move(V);
  return true;
}

std::optional<Val> Builder::fieldValue(const MemberExpr *ME) {
  if (!ME)
    return std::nullopt;
  if (const auto *F = dyn_cast<FieldDecl>(ME->getMemberDecl()))
    if (!ME->isArrow() ||
        isa<CXXThisExpr>(ME->getBase()->IgnoreParenImpCasts()))
      if (std::shared_ptr<ObjFields> O =
              objectOf(ME->getBase(), /*Create=*/false)) {
        auto It = O->F.find(F);
        if (It != O->F.end())
          return It->second;
      }
  std::optional<std::string> RootOf = recordRoot(ME->getBase());
  if (!RootOf)
    return std::nullopt;
  const auto *F = dyn_cast<FieldDecl>(ME->getMemberDecl());
  if (!F)
    return std::nullopt;
  std::string Root = *RootOf;
  llvm::StringRef FN = F->getName();
  std::string Name = Root + "." + FN.str();
  QualType FT = F->getType();
  Val V{Expr::var("param:" + Name)};
  if (FT->isIntegerType()) {
    if (isRankName(FN))
      V.E = Expr::var("rank");
    else if (isWorldName(FN))
      V.E = Expr::var("world_size");
    return V;
  }
  QualType Elem;
  if (const ArrayType *AT = FT->getAsArrayTypeUnsafe())
    Elem = AT->getElementType();
  else if (FT->isPointerType())
    Elem = FT->getPointeeType();
  if (Elem.isNull())
    return V;
  PtrVal P;
  P.Base = Name;
  P.Index = Expr::constant(0);
  P.Space = AddrSpace::Global;
  if (Elem->isPointerType()) {
    P.IsTable = true;
    P.ElemBytes = sizeOf(Elem->getPointeeType());
  } else {
    P.ElemBytes = sizeOf(Elem);
  }
  V.P = P;
  return V;
}

void Builder::refineRoles() {
  for (Param &P : K.Params) {
    for (const Event &E : K.Events) {
      if (E.Addr.Base != P.Name)
        continue;
      std::string Line = std::to_string(E.Loc.Line);
      if (E.Kind == EventKind::SpinWait) {
        if (P.Role == ParamRole::LocalBuffer) {
          P.Role = ParamRole::SignalPad;
          P.Why = "polled in a spin loop (line " + Line + ")";
        } else if (P.Role == ParamRole::PeerTable && E.Width <= 8) {
          P.Role = ParamRole::SignalPadTable;
          P.Why += "; entries polled in a spin loop (line " + Line + ")";
        }
      }
      if (E.Addr.Space == AddrSpace::Multicast &&
          (P.Role == ParamRole::LocalBuffer || P.Role == ParamRole::Unknown)) {
        P.Role = ParamRole::Multicast;
        P.Why = "used by multimem instructions (line " + Line + ")";
      }
    }
    if (AddrTables.count(P.Name) &&
        (P.Role == ParamRole::LocalBuffer || P.Role == ParamRole::Unknown)) {
      P.Role = isSignalName(P.Name) ? ParamRole::SignalPadTable
                                    : ParamRole::PeerTable;
      P.Why = "64-bit address table indexed and cast to a pointer";
    }
  }
}

} // namespace pkb::fe
