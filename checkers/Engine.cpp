//===- Engine.cpp - Shared analysis engine of the checkers ----------------===//
//
// See Engine.h and docs/checkers.md ("Method").
//
//===----------------------------------------------------------------------===//
#include "Engine.h"

#include "pkb/Enrich.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>

namespace pkb::chk {

//===----------------------------------------------------------------------===//
// Classification helpers.
//===----------------------------------------------------------------------===//

bool isMemEvent(const Event &E) { return accessesMemory(E.Kind); }

bool isWriteEvent(const Event &E) { return writesMemory(E.Kind); }

bool isReadEvent(const Event &E) {
  return E.Kind == EventKind::Load || E.Kind == EventKind::Atomic ||
         E.Kind == EventKind::SpinWait || E.Kind == EventKind::BulkCopy;
}

bool isRmwEvent(const Event &E) {
  return E.Kind == EventKind::Atomic || E.Kind == EventKind::Reduction;
}

bool isReleaseOrder(MemOrder O) {
  return O == MemOrder::Release || O == MemOrder::AcqRel ||
         O == MemOrder::SeqCst;
}

bool isAcquireOrder(MemOrder O) {
  return O == MemOrder::Acquire || O == MemOrder::AcqRel ||
         O == MemOrder::SeqCst;
}

bool isStrongOrder(MemOrder O) { return O != MemOrder::Plain; }

Scope effectiveScope(const Event &E) {
  if (E.Scp != Scope::None)
    return E.Scp;
  if (E.Order == MemOrder::Volatile)
    return Scope::System;
  if (isRmwEvent(E))
    return Scope::GPU; // atomicAdd & co: device scope.
  return Scope::None;
}

bool anyVar(const ExprRef &E,
            const std::function<bool(const std::string &)> &Pred,
            bool OpaqueCounts) {
  if (!E)
    return false;
  if (E->Op == ExprOp::Var && Pred(E->Name))
    return true;
  if (E->Op == ExprOp::Opaque && OpaqueCounts)
    return true;
  for (const ExprRef &Op : E->Ops)
    if (anyVar(Op, Pred, OpaqueCounts))
      return true;
  return false;
}

static bool startsWith(const std::string &S, const char *P) {
  return S.rfind(P, 0) == 0;
}

bool isThreadVarying(const ExprRef &E) {
  return anyVar(
      E,
      [](const std::string &N) {
        return startsWith(N, "tid.") || N == "lane" || startsWith(N, "loop:") ||
               startsWith(N, "local:") || N == "polled" ||
               startsWith(N, "iter:");
      },
      /*OpaqueCounts=*/true);
}

void splitConj(const ExprRef &E, std::vector<ExprRef> &Out) {
  if (!E)
    return;
  if (E->Op == ExprOp::LAnd && E->Ops.size() == 2) {
    splitConj(E->Ops[0], Out);
    splitConj(E->Ops[1], Out);
    return;
  }
  Out.push_back(E);
}

std::string describe(const Event &E) {
  std::string S = toString(E.Kind);
  if (isMemEvent(E)) {
    S += " " + E.Addr.Base;
    if (E.Addr.Peer)
      S += "[" + E.Addr.Peer->str() + "]";
    S += "[" + (E.Addr.Index ? E.Addr.Index->str() : std::string("?")) + "]";
  }
  if (!E.Text.empty())
    S += " (" + E.Text + ")";
  return S;
}

//===----------------------------------------------------------------------===//
// Analysis: classification.
//===----------------------------------------------------------------------===//

/// \p K itself when enrich() has run on it, else an enriched copy kept in
/// \p Own (hand-built models that skipped the pass).
static const KernelModel &enriched(const KernelModel &K,
                                   std::unique_ptr<KernelModel> &Own) {
  if (K.Facts.Done)
    return K;
  Own = std::make_unique<KernelModel>(K);
  enrichKernel(*Own);
  return *Own;
}

Analysis::Analysis(const ModuleModel &M, const KernelModel &Kernel,
                   const CheckOptions &O)
    : M(M), K(enriched(Kernel, OwnK)), O(O) {
  // docs/checkers.md, "Solver strategy and limits".
  KernelBudget = queryLimit() * KernelBudgetQueries;
  const KernelFacts &F = K.Facts;
  FlagBases.insert(F.FlagBases.begin(), F.FlagBases.end());
  SymBases.insert(F.SymBases.begin(), F.SymBases.end());
  CrossRankFlags.insert(F.CrossRankFlags.begin(), F.CrossRankFlags.end());
  SoftGridBarriers.insert(F.SoftGridBarriers.begin(), F.SoftGridBarriers.end());
  Signals = F.Signals;
  Waits = F.Waits;
  for (const RmwPair &P : F.RmwPairs)
    RmwStores[P.Store] = P.Load;
  for (size_t I = 0; I < K.Events.size(); ++I)
    for (unsigned L : K.Events[I].Loops) {
      if (!LoopFirst.count(L))
        LoopFirst[L] = I;
      LoopLast[L] = I;
    }
}

const Param *Analysis::paramOf(const std::string &Base) const {
  return K.paramOf(Base);
}

bool Analysis::isShared(size_t I) const { return K.isSharedAccess(ev(I)); }

bool Analysis::isFlagAccess(size_t I) const {
  const Event &E = ev(I);
  return isMemEvent(E) && FlagBases.count(E.Addr.Base) && !isShared(I);
}

bool Analysis::isSignal(size_t I) const {
  return std::binary_search(Signals.begin(), Signals.end(), I);
}

bool Analysis::isData(size_t I) const {
  const Event &E = ev(I);
  return isMemEvent(E) && E.Kind != EventKind::SpinWait &&
         E.Addr.Space != AddrSpace::Local && !E.Addr.Base.empty() &&
         !isFlagAccess(I);
}

bool Analysis::isPeerVisible(size_t I) const {
  const Event &E = ev(I);
  if (!isData(I) || isShared(I))
    return false;
  return E.Addr.Peer || E.Addr.Space == AddrSpace::Peer ||
         SymBases.count(E.Addr.Base);
}

bool Analysis::isCrossRankFlag(const std::string &Base) const {
  return CrossRankFlags.count(Base) != 0;
}

bool Analysis::isSoftGridBarrier(size_t I) const {
  return SoftGridBarriers.count(I) != 0;
}

bool Analysis::isBlockBarrier(size_t I) const {
  const Event &E = ev(I);
  return E.Kind == EventKind::Barrier &&
         (E.Barrier == BarrierKind::Block || E.Barrier == BarrierKind::Grid ||
          E.Barrier == BarrierKind::Cluster || E.Barrier == BarrierKind::Named);
}

bool Analysis::isGridBarrier(size_t I) const {
  return ev(I).Kind == EventKind::Barrier && ev(I).Barrier == BarrierKind::Grid;
}

//===----------------------------------------------------------------------===//
// Analysis: encoding.
//===----------------------------------------------------------------------===//

static bool isSharedName(const std::string &N) {
  return startsWith(N, "bdim.") || startsWith(N, "gdim.") ||
         N == "world_size" || startsWith(N, "param:") || N == "epoch" ||
         N == "call" || startsWith(N, "host:");
}

z3::expr Analysis::var(const std::string &Name, int A) {
  std::string N = Name;
  // Parameters with rank / world-size roles are the coordinates themselves.
  if (startsWith(N, "param:")) {
    if (const Param *P = K.findParam(N.substr(6))) {
      if (P->Role == ParamRole::Rank)
        N = "rank";
      else if (P->Role == ParamRole::WorldSize)
        N = "world_size";
    }
  }
  std::string Key = isSharedName(N) || A == 0 ? N : N + "#" + std::to_string(A);
  auto It = Vars.find(Key);
  if (It != Vars.end())
    return It->second;
  z3::expr V = Z.int_const(Key.c_str());
  Vars.emplace(Key, V);
  if (startsWith(N, "param:"))
    ParamVars.insert(Key);
  return V;
}

z3::expr Analysis::toInt(const ExprRef &E, int A) { return tr(E, A); }

std::vector<z3::expr> Analysis::agentVars(int A) const {
  std::vector<z3::expr> R;
  std::string Suffix = "#" + std::to_string(A);
  for (const auto &[Key, V] : Vars)
    if (Key.size() > Suffix.size() &&
        Key.compare(Key.size() - Suffix.size(), Suffix.size(), Suffix) == 0)
      R.push_back(V);
  return R;
}

z3::expr Analysis::toBool(const ExprRef &E, int A) { return trBool(E, A); }

static z3::expr boolToInt(const z3::expr &B) {
  z3::context &C = B.ctx();
  return z3::ite(B, C.int_val(1), C.int_val(0));
}

static std::optional<int64_t> constOf(const ExprRef &E) {
  if (E && E->Op == ExprOp::Const)
    return E->Value;
  return std::nullopt;
}

// C truncating division and remainder.
static z3::expr cDiv(const z3::expr &X, const z3::expr &Y) {
  z3::expr Q = X / Y; // Euclidean in Z3
  z3::expr AbsX = z3::ite(X >= 0, X, -X);
  z3::expr AbsY = z3::ite(Y >= 0, Y, -Y);
  z3::expr QA = AbsX / AbsY;
  z3::expr SameSign = (X >= 0) == (Y >= 0);
  return z3::ite(X >= 0 && Y > 0, Q, z3::ite(SameSign, QA, -QA));
}

z3::expr Analysis::tr(const ExprRef &E, int A) {
  if (!E) {
    Approx = true;
    static unsigned Fresh = 0;
    return Z.int_const(("unknown!" + std::to_string(Fresh++)).c_str());
  }
  auto Op = [&](size_t I) { return tr(E->Ops[I], A); };
  auto BitVec = [&](const z3::expr &X) { return z3::int2bv(64, X); };
  auto FromBV = [&](const z3::expr &X) { return z3::bv2int(X, true); };
  switch (E->Op) {
  case ExprOp::Const:
    return Z.int_val(E->Value);
  case ExprOp::Var: {
    const std::string &N = E->Name;
    if (startsWith(N, "local:") ||
        !(startsWith(N, "tid.") || startsWith(N, "bid.") ||
          startsWith(N, "bdim.") || startsWith(N, "gdim.") || N == "lane" ||
          N == "rank" || N == "world_size" || startsWith(N, "param:") ||
          startsWith(N, "loop:") || N == "epoch" || N == "call" ||
          N == "polled"))
      Approx = true;
    if (startsWith(N, "local:")) {
      // A local declared on a loop header (e.g. `for (w = bdim / 2; w > 0;
      // w >>= 1)`) is treated as uniform per iteration: a function of the
      // loop's iteration counter shared by all agents.
      size_t At = N.rfind('@');
      unsigned Line =
          At == std::string::npos ? 0 : unsigned(std::atoi(N.c_str() + At + 1));
      for (const Loop &L : K.Loops)
        if (Line && L.Loc.Line == Line) {
          z3::func_decl F =
              Z.function(("uniform:" + N).c_str(), Z.int_sort(), Z.int_sort());
          return F(iterVar(L.Id, A));
        }
    }
    return var(N, A);
  }
  case ExprOp::Opaque:
    Approx = true;
    return var("opaque:" + E->Name, A);
  case ExprOp::Add:
    return Op(0) + Op(1);
  case ExprOp::Sub:
    return Op(0) - Op(1);
  case ExprOp::Mul:
    return Op(0) * Op(1);
  case ExprOp::Div: {
    z3::expr Y = Op(1);
    return z3::ite(Y == 0, Z.int_val(0), cDiv(Op(0), Y));
  }
  case ExprOp::Rem: {
    z3::expr X = Op(0), Y = Op(1);
    return z3::ite(Y == 0, Z.int_val(0), X - Y * cDiv(X, Y));
  }
  case ExprOp::Shl: {
    if (auto C = constOf(E->Ops[1]); C && *C >= 0 && *C < 62)
      return Op(0) * Z.int_val(int64_t(1) << *C);
    // A variable shift amount: a case split over the amounts keeps the
    // term in linear integer arithmetic (int2bv/bv2int terms are very
    // expensive for Z3); amounts outside [0, 62) shift every bit out.
    z3::expr X = Op(0), Y = Op(1);
    z3::expr R = Z.int_val(0);
    for (int64_t K2 = 61; K2 >= 0; --K2)
      R = z3::ite(Y == Z.int_val(K2), X * Z.int_val(int64_t(1) << K2), R);
    return R;
  }
  case ExprOp::Shr: {
    if (auto C = constOf(E->Ops[1]); C && *C >= 0 && *C < 62)
      return Op(0) / Z.int_val(int64_t(1) << *C); // floor = arithmetic shift
    // As for Shl: floor division per amount; past 62 only the sign remains.
    z3::expr X = Op(0), Y = Op(1);
    z3::expr R = z3::ite(X < 0, Z.int_val(-1), Z.int_val(0));
    for (int64_t K2 = 61; K2 >= 0; --K2)
      R = z3::ite(Y == Z.int_val(K2), X / Z.int_val(int64_t(1) << K2), R);
    return R;
  }
  case ExprOp::And: {
    for (int S = 0; S < 2; ++S)
      if (auto C = constOf(E->Ops[S]); C && *C > 0 && ((*C + 1) & *C) == 0)
        return z3::mod(Op(1 - S), Z.int_val(*C + 1));
    // x & ((1 << e) - 1) == x mod 2^e, for every amount e in [0, 62).
    for (int S = 0; S < 2; ++S) {
      const ExprRef &M = E->Ops[S];
      if (M && M->Op == ExprOp::Sub && M->Ops.size() == 2 &&
          constOf(M->Ops[1]) == 1 && M->Ops[0] &&
          M->Ops[0]->Op == ExprOp::Shl && constOf(M->Ops[0]->Ops[0]) == 1) {
        z3::expr X = Op(1 - S), Y = tr(M->Ops[0]->Ops[1], A);
        z3::expr R = X; // the mask is -1 for other amounts (see Shl)
        for (int64_t K2 = 61; K2 >= 0; --K2)
          R = z3::ite(Y == Z.int_val(K2),
                      z3::mod(X, Z.int_val(int64_t(1) << K2)), R);
        return R;
      }
    }
    // x & ~(1 << e) clears bit e of x.
    for (int S = 0; S < 2; ++S) {
      const ExprRef &M = E->Ops[S];
      if (M && M->Op == ExprOp::Not && M->Ops.size() == 1 && M->Ops[0] &&
          M->Ops[0]->Op == ExprOp::Shl && constOf(M->Ops[0]->Ops[0]) == 1) {
        z3::expr X = Op(1 - S), Y = tr(M->Ops[0]->Ops[1], A);
        z3::expr R = X;
        for (int64_t K2 = 61; K2 >= 0; --K2) {
          z3::expr P = Z.int_val(int64_t(1) << K2);
          R = z3::ite(
              Y == Z.int_val(K2),
              X - z3::ite(z3::mod(X / P, Z.int_val(2)) == 1, P, Z.int_val(0)),
              R);
        }
        return R;
      }
    }
    return FromBV(BitVec(Op(0)) & BitVec(Op(1)));
  }
  case ExprOp::Or:
    return FromBV(BitVec(Op(0)) | BitVec(Op(1)));
  case ExprOp::Xor:
    return FromBV(BitVec(Op(0)) ^ BitVec(Op(1)));
  case ExprOp::Min: {
    z3::expr X = Op(0), Y = Op(1);
    return z3::ite(X <= Y, X, Y);
  }
  case ExprOp::Max: {
    z3::expr X = Op(0), Y = Op(1);
    return z3::ite(X >= Y, X, Y);
  }
  case ExprOp::Neg:
    return -Op(0);
  case ExprOp::Not:
    return -Op(0) - 1;
  case ExprOp::Select:
    return z3::ite(trBool(E->Ops[0], A), Op(1), Op(2));
  case ExprOp::LNot:
  case ExprOp::LAnd:
  case ExprOp::LOr:
  case ExprOp::Eq:
  case ExprOp::Ne:
  case ExprOp::Lt:
  case ExprOp::Le:
  case ExprOp::Gt:
  case ExprOp::Ge:
    return boolToInt(trBool(E, A));
  }
  Approx = true;
  return var("opaque:?", A);
}

z3::expr Analysis::trBool(const ExprRef &E, int A) {
  if (!E) {
    Approx = true;
    static unsigned Fresh = 0;
    return Z.bool_const(("unknownb!" + std::to_string(Fresh++)).c_str());
  }
  auto Op = [&](size_t I) { return tr(E->Ops[I], A); };
  switch (E->Op) {
  case ExprOp::LNot:
    return !trBool(E->Ops[0], A);
  case ExprOp::LAnd:
    return trBool(E->Ops[0], A) && trBool(E->Ops[1], A);
  case ExprOp::LOr:
    return trBool(E->Ops[0], A) || trBool(E->Ops[1], A);
  case ExprOp::Eq:
    return Op(0) == Op(1);
  case ExprOp::Ne:
    return Op(0) != Op(1);
  case ExprOp::Lt:
    return Op(0) < Op(1);
  case ExprOp::Le:
    return Op(0) <= Op(1);
  case ExprOp::Gt:
    return Op(0) > Op(1);
  case ExprOp::Ge:
    return Op(0) >= Op(1);
  case ExprOp::Const:
    return Z.bool_val(E->Value != 0);
  default:
    return tr(E, A) != 0;
  }
}

z3::expr Analysis::agentRange(int A) {
  z3::expr R = Z.bool_val(true);
  const char *Dims[3] = {"x", "y", "z"};
  for (const char *D : Dims) {
    z3::expr T = var(std::string("tid.") + D, A);
    z3::expr Bk = var(std::string("bid.") + D, A);
    R = R && T >= 0 && T < var(std::string("bdim.") + D, A) && Bk >= 0 &&
        Bk < var(std::string("gdim.") + D, A);
  }
  z3::expr Rk = rank(A);
  R = R && Rk >= 0 && Rk < var("world_size", A);
  R = R && var("lane", A) == z3::mod(var("tid.x", A), Z.int_val(32));
  return R;
}

z3::expr Analysis::sameBlock(int A, int B) {
  return var("bid.x", A) == var("bid.x", B) &&
         var("bid.y", A) == var("bid.y", B) &&
         var("bid.z", A) == var("bid.z", B);
}

z3::expr Analysis::sameThread(int A, int B) {
  return var("tid.x", A) == var("tid.x", B) &&
         var("tid.y", A) == var("tid.y", B) &&
         var("tid.z", A) == var("tid.z", B);
}

z3::expr Analysis::loopDef(unsigned Id, int A) {
  const Loop *L = K.findLoop(Id);
  z3::expr V = var("loop:" + std::to_string(Id), A);
  z3::expr N = iterVar(Id, A);
  z3::expr R = N >= 0;
  if (!L) {
    Approx = true;
    return R;
  }
  if (L->Init && L->Step) {
    z3::expr S = tr(L->Step, A);
    R = R && S > 0 &&
        (L->Ascending ? V == tr(L->Init, A) + N * S
                      : V == tr(L->Init, A) - N * S);
    // Grid-/block-stride loops: the start is the thread's offset within
    // one stride, so the loop variable determines it (v mod S == start).
    bool Grid = L->Init->mentions("tid.x") && L->Step->mentions("bdim.x") &&
                (L->Init->mentions("bid.x") == L->Step->mentions("gdim.x"));
    if (Grid && L->Ascending)
      R = R && z3::mod(V, S) == tr(L->Init, A) && V / S == N;
  } else if (L->Init) {
    R = R && (L->Ascending ? V >= tr(L->Init, A) : V <= tr(L->Init, A));
  }
  return R;
}

z3::expr Analysis::loopBound(unsigned Id, int A) {
  const Loop *L = K.findLoop(Id);
  if (!L || !L->Bound)
    return Z.bool_val(true);
  z3::expr V = var("loop:" + std::to_string(Id), A);
  return L->Ascending ? V < tr(L->Bound, A) : V > tr(L->Bound, A);
}

z3::expr Analysis::loopCons(unsigned Id, int A) {
  return loopDef(Id, A) && loopBound(Id, A);
}

z3::expr Analysis::exec(size_t I, int A) {
  const Event &E = ev(I);
  z3::expr R = agentRange(A);
  for (const ExprRef &G : E.Guard)
    R = R && trBool(G, A);
  for (unsigned L : E.Loops)
    R = R && loopCons(L, A);
  return R;
}

z3::expr Analysis::guardOf(size_t I, int A) {
  z3::expr R = Z.bool_val(true);
  for (const ExprRef &G : ev(I).Guard)
    R = R && trBool(G, A);
  return R;
}

z3::expr Analysis::blockGuard(size_t I, int A) {
  const Event &E = ev(I);
  z3::expr R = agentRange(A);
  for (const ExprRef &G : E.Guard) {
    std::vector<ExprRef> Cs;
    splitConj(G, Cs);
    for (const ExprRef &C : Cs)
      if (!isThreadVarying(C))
        R = R && trBool(C, A);
  }
  return R;
}

unsigned Analysis::unitOf(size_t I) const {
  const Event &E = ev(I);
  if (E.Width)
    return E.Width;
  if (const Param *P = paramOf(E.Addr.Base))
    if (P->ElemBytes)
      return P->ElemBytes;
  return 1;
}

Analysis::Range Analysis::range(size_t I, int A) {
  const Event &E = ev(I);
  z3::expr Owner = Z.int_val(0);
  if (isShared(I) || E.Addr.Space == AddrSpace::Multicast)
    Owner = Z.int_val(0);
  else if (E.Addr.Peer)
    Owner = tr(E.Addr.Peer, A);
  else
    Owner = rank(A);
  unsigned U = unitOf(I);
  z3::expr Lo =
      E.Addr.Index ? tr(E.Addr.Index, A) * Z.int_val(U) : tr(nullptr, A);
  if (E.Addr.ByteOffset)
    Lo = Lo + tr(E.Addr.ByteOffset, A);
  z3::expr Hi = Lo + Z.int_val(std::max(1u, E.Width));
  return {Owner, Lo, Hi};
}

z3::expr Analysis::conflict(size_t I, int A, size_t J, int B) {
  const Event &E1 = ev(I), &E2 = ev(J);
  if (E1.Addr.Base.empty() || E1.Addr.Base != E2.Addr.Base)
    return Z.bool_val(false);
  if (isShared(I) != isShared(J))
    return Z.bool_val(false);
  Range R1 = range(I, A), R2 = range(J, B);
  // Accesses before the start of a buffer are out of bounds (another bug);
  // conflicts are looked for among in-bounds offsets only.
  z3::expr C = R1.Owner == R2.Owner && R1.Lo < R2.Hi && R2.Lo < R1.Hi &&
               R1.Lo >= 0 && R2.Lo >= 0;
  if (isShared(I))
    C = C && sameRank(A, B) && sameBlock(A, B);
  return C;
}

//===----------------------------------------------------------------------===//
// Analysis: phases.
//===----------------------------------------------------------------------===//

z3::expr Analysis::interval(size_t I, int A, size_t J, int B,
                            const std::function<bool(size_t)> &IsBoundary,
                            const SepFn &Sep) {
  const Event &E1 = ev(I), &E2 = ev(J);
  std::vector<unsigned> Common;
  for (size_t D = 0; D < E1.Loops.size() && D < E2.Loops.size(); ++D) {
    if (E1.Loops[D] != E2.Loops[D])
      break;
    Common.push_back(E1.Loops[D]);
  }
  auto Collect = [&](size_t From, size_t To) { // boundaries in (From, To)
    std::vector<size_t> S;
    for (size_t K2 = From + 1; K2 < To; ++K2)
      if (IsBoundary(K2))
        S.push_back(K2);
    return S;
  };
  z3::expr Result = Z.bool_val(false);
  // Case A: same iteration of every common loop.
  {
    z3::expr Eq = Z.bool_val(true);
    for (unsigned L : Common)
      Eq = Eq && iterVar(L, A) == iterVar(L, B);
    size_t Lo = std::min(I, J), Hi = std::max(I, J);
    int Early = I <= J ? A : B, Late = I <= J ? B : A;
    std::vector<size_t> Between =
        I == J ? std::vector<size_t>{} : Collect(Lo, Hi);
    z3::expr S =
        Between.empty() ? Z.bool_val(false) : Sep(Between, Early, Late);
    Result = Result || (Eq && !S);
  }
  // Case B: first difference at common loop depth D.
  for (size_t D = 0; D < Common.size(); ++D) {
    unsigned L = Common[D];
    z3::expr Prefix = Z.bool_val(true);
    for (size_t P = 0; P < D; ++P)
      Prefix = Prefix && iterVar(Common[P], A) == iterVar(Common[P], B);
    size_t First = LoopFirst.count(L) ? LoopFirst[L] : 0;
    size_t Last = LoopLast.count(L) ? LoopLast[L] : 0;
    bool HasBoundary = false;
    for (size_t K2 = First; K2 <= Last && K2 < size(); ++K2)
      if (IsBoundary(K2))
        HasBoundary = true;
    if (!HasBoundary) {
      Result = Result || (Prefix && iterVar(L, A) != iterVar(L, B));
      continue;
    }
    // X runs the earlier iteration, Y the next one.
    for (int Order = 0; Order < 2; ++Order) {
      size_t EX = Order == 0 ? I : J, EY = Order == 0 ? J : I;
      int AX = Order == 0 ? A : B, AY = Order == 0 ? B : A;
      std::vector<size_t> Set = Collect(EX, Last + 1);
      std::vector<size_t> Before = Collect(First == 0 ? 0 : First - 1, EY);
      if (First == 0 && IsBoundary(0) && EY > 0)
        Before.insert(Before.begin(), 0);
      Set.insert(Set.end(), Before.begin(), Before.end());
      z3::expr S = Set.empty() ? Z.bool_val(false) : Sep(Set, AX, AY);
      Result = Result || (Prefix && iterVar(L, AY) == iterVar(L, AX) + 1 && !S);
    }
  }
  return Result;
}

z3::expr Analysis::crossSep(const std::vector<size_t> &Between, int Early,
                            int Late) {
  z3::expr HasSignal = Z.bool_val(false), HasWait = Z.bool_val(false);
  bool Grid = false;
  // Participation of the agents' blocks and threads is not required here:
  // rank-divergent barriers are BAR-002, partial ones BAR-003.
  for (size_t S : Between) {
    if (isSoftGridBarrier(S) || isGridBarrier(S))
      Grid = true;
    else if (isSignal(S) && isCrossRankFlag(ev(S).Addr.Base))
      HasSignal = Z.bool_val(true);
    else if (isWait(S))
      HasWait = Z.bool_val(true);
  }
  (void)Early;
  (void)Late;
  z3::expr R = HasSignal && HasWait;
  if (perBlockSync() && !Grid)
    R = R && sameBlock(Early, Late);
  return R;
}

z3::expr Analysis::sameCrossPhase(size_t I, int A, size_t J, int B) {
  return interval(
      I, A, J, B,
      [this](size_t X) { return isSignal(X) || isWait(X) || isGridBarrier(X); },
      [this](const std::vector<size_t> &S, int E, int L) {
        return crossSep(S, E, L);
      });
}

z3::expr Analysis::samePhase(size_t I, int A, size_t J, int B) {
  auto Any = [this](const std::vector<size_t> &, int, int) {
    return Z.bool_val(true);
  };
  z3::expr Block =
      interval(I, A, J, B, [this](size_t X) { return isBlockBarrier(X); }, Any);
  z3::expr Grid = interval(
      I, A, J, B,
      [this](size_t X) { return isGridBarrier(X) || isSoftGridBarrier(X); },
      Any);
  return z3::ite(sameRank(A, B), z3::ite(sameBlock(A, B), Block, Grid),
                 sameCrossPhase(I, A, J, B));
}

bool Analysis::perBlockSync() {
  if (PerBlock)
    return *PerBlock;
  bool AnyMatch = false, Cross = false;
  for (size_t S : Signals)
    for (size_t W : Waits) {
      if (ev(S).Addr.Base != ev(W).Addr.Base)
        continue;
      bool SavedApprox = Approx;
      z3::expr F = exec(S, 1) && exec(W, 2) && conflict(S, 1, W, 2);
      Outcome Any =
          solve(F, {}, {O.WorldSizes.empty() ? 2u : O.WorldSizes.front()});
      if (Any.sat()) {
        AnyMatch = true;
        Outcome Diff =
            solve(F && !sameBlock(1, 2), {},
                  {O.WorldSizes.empty() ? 2u : O.WorldSizes.front()});
        if (!Diff.unknown() && Diff.sat())
          Cross = true;
      }
      Approx = SavedApprox;
    }
  PerBlock = AnyMatch && !Cross;
  return *PerBlock;
}

//===----------------------------------------------------------------------===//
// Analysis: solving.
//===----------------------------------------------------------------------===//

const std::vector<LaunchDims> &Analysis::launches() {
  if (LaunchesDone)
    return Launches;
  LaunchesDone = true;
  for (const LaunchSite &L : K.Launches) {
    LaunchDims D;
    D.FromSite = true;
    const ExprRef *Es[6] = {&L.BlockX, &L.BlockY, &L.BlockZ,
                            &L.GridX,  &L.GridY,  &L.GridZ};
    bool Ok = true;
    for (int I = 0; I < 6; ++I) {
      int64_t V = 1;
      if (*Es[I]) {
        bool Saved = Approx;
        z3::expr X = tr(*Es[I], 0).simplify();
        Approx = Saved;
        if (!X.is_numeral() || !X.is_numeral_i64(V) || V < 1) {
          Ok = false;
          break;
        }
      }
      (I < 3 ? D.B[I] : D.G[I - 3]) = V;
    }
    if (Ok && D.B[0] * D.B[1] * D.B[2] <= 1024)
      Launches.push_back(D);
  }
  if (Launches.empty()) {
    // Representative configurations (docs/checkers.md, "Assumptions").
    LaunchDims A, B;
    A.B[0] = 256;
    A.G[0] = 4;
    B.B[0] = 128;
    B.G[0] = 3;
    Launches = {A, B};
  }
  return Launches;
}

WitnessSpec Analysis::agentWitness(std::initializer_list<int> Agents) {
  WitnessSpec W;
  W.push_back({"W", var("world_size", 0)});
  for (int A : Agents) {
    std::string S = std::to_string(A);
    W.push_back({"r" + S, rank(A)});
    W.push_back({"b" + S, var("bid.x", A)});
    W.push_back({"t" + S, var("tid.x", A)});
  }
  return W;
}

z3::expr Analysis::concretize(const z3::expr &F, unsigned W,
                              const LaunchDims &L) {
  z3::expr_vector From(Z), To(Z);
  From.push_back(var("world_size", 0));
  To.push_back(Z.int_val(W));
  const char *Dims[3] = {"x", "y", "z"};
  for (int D = 0; D < 3; ++D) {
    From.push_back(var(std::string("bdim.") + Dims[D], 0));
    To.push_back(Z.int_val(L.B[D]));
    From.push_back(var(std::string("gdim.") + Dims[D], 0));
    To.push_back(Z.int_val(L.G[D]));
  }
  z3::expr R = z3::expr(F).substitute(From, To).simplify();
  for (unsigned X = 0; X < From.size(); ++X)
    R = R && From[X] == To[X];
  return R;
}

namespace {
/// Collects the names of the uninterpreted constants of \p E.
void collectConsts(const z3::expr &E, std::set<unsigned> &Seen,
                   std::set<std::string> &Out) {
  if (!Seen.insert(E.id()).second)
    return;
  if (E.is_const() && !E.is_numeral() && E.is_int()) {
    Out.insert(E.decl().name().str());
    return;
  }
  if (E.is_app())
    for (unsigned I = 0; I < E.num_args(); ++I)
      collectConsts(E.arg(I), Seen, Out);
  else if (E.is_quantifier())
    collectConsts(E.body(), Seen, Out);
}

/// Names of the integer constants that occur as factors of a non-linear
/// product in \p E.
void collectProductFactors(const z3::expr &E, std::set<unsigned> &Seen,
                           std::set<std::string> &Out) {
  if (!Seen.insert(E.id()).second)
    return;
  if (E.is_app()) {
    if (E.decl().decl_kind() == Z3_OP_MUL) {
      unsigned NonNum = 0;
      for (unsigned I = 0; I < E.num_args(); ++I)
        NonNum += !E.arg(I).is_numeral();
      if (NonNum >= 2)
        for (unsigned I = 0; I < E.num_args(); ++I)
          if (E.arg(I).is_const() && !E.arg(I).is_numeral())
            Out.insert(E.arg(I).decl().name().str());
    }
    for (unsigned I = 0; I < E.num_args(); ++I)
      collectProductFactors(E.arg(I), Seen, Out);
  } else if (E.is_quantifier())
    collectProductFactors(E.body(), Seen, Out);
}

/// The "rlimit count" statistic of \p S (0 when absent).
uint64_t rlimitCount(z3::solver &S) {
  try {
    z3::stats St = S.statistics();
    for (unsigned I = 0; I < St.size(); ++I)
      if (St.key(I) == "rlimit count")
        return St.is_uint(I) ? St.uint_value(I)
                             : static_cast<uint64_t>(St.double_value(I));
  } catch (const z3::exception &) {
  }
  return 0;
}

z3::check_result runSolver(z3::solver &S, std::string &Reason) {
  try {
    return S.check();
  } catch (const z3::exception &E) {
    Reason = E.msg();
    return z3::unknown;
  }
}
} // namespace

std::vector<std::vector<int64_t>>
Analysis::enumerate(const z3::expr &F, const std::vector<z3::expr> &Xs,
                    unsigned W, const LaunchDims &L, size_t Cap,
                    bool &Complete) {
  std::vector<std::vector<int64_t>> R;
  Complete = true;
  z3::solver S(Z);
  S.add(concretize(F, W, L));
  std::string Reason;
  while (true) {
    z3::check_result C = runLimited(S, queryLimit(), Reason);
    if (C == z3::unsat)
      return R;
    if (C == z3::unknown || R.size() >= Cap) {
      Complete = false;
      return R;
    }
    z3::model M = S.get_model();
    std::vector<int64_t> Row;
    z3::expr Block = Z.bool_val(false);
    for (const z3::expr &X : Xs) {
      int64_t V = 0;
      z3::expr E = M.eval(X, true);
      if (!E.is_numeral_i64(V)) {
        Complete = false;
        return R;
      }
      Row.push_back(V);
      Block = Block || X != Z.int_val(V);
    }
    R.push_back(Row);
    if (Xs.empty())
      return R;
    S.add(Block);
  }
}

uint64_t Analysis::queryLimit() const {
  return uint64_t(O.SolverTimeoutMs) * 2500;
}

z3::check_result Analysis::runLimited(z3::solver &S, uint64_t Limit,
                                      std::string &Reason) {
  uint64_t Left = KernelBudget > Spent ? KernelBudget - Spent : 0;
  if (Left == 0) {
    Reason = "solver budget of the kernel exhausted";
    BudgetHit = true;
    return z3::unknown;
  }
  Limit = std::clamp<uint64_t>(std::min(Limit, Left), 1, 4000000000u);
  z3::params P(Z);
  P.set("rlimit", static_cast<unsigned>(Limit));
  S.set(P);
  ++Queries;
  uint64_t Before = rlimitCount(S);
  z3::check_result C = runSolver(S, Reason);
  // The resource counter is deterministic, unlike wall time: charging it
  // keeps the outcome of every query reproducible.
  uint64_t After = rlimitCount(S);
  Spent += After > Before ? std::min(After - Before, Limit) : Limit;
  if (C == z3::unknown && Reason.empty())
    Reason = Spent >= KernelBudget ? "solver budget of the kernel exhausted"
                                   : "resource limit";
  return C;
}

z3::check_result Analysis::decide(const z3::expr &FC, unsigned W,
                                  std::optional<z3::model> &Model,
                                  std::string &Reason) {
  // Identical formulas are one AST in a context (hash-consing): the cache
  // answers queries repeated across event pairs and checker passes.
  auto &Bucket = Cache[FC.hash()];
  for (const CacheEntry &E : Bucket)
    if (z3::eq(E.F, FC)) {
      Model = E.Model;
      if (E.C == z3::unknown)
        Reason = E.Reason;
      ++CacheHits;
      return E.C;
    }
  uint64_t Budget = queryLimit();
  z3::check_result C = z3::unknown;
  {
    z3::solver S(Z);
    S.add(FC);
    C = runLimited(S, Budget / 16, Reason);
    if (C == z3::sat)
      Model = S.get_model();
  }
  if (C == z3::unknown && !BudgetHit) {
    // Case split on the (few) rank values: the products rank * chunk
    // become linear.
    std::set<unsigned> Seen;
    std::set<std::string> Names;
    collectProductFactors(FC, Seen, Names);
    // Split variables: ranks in [0, W) and variables of small loops
    // (constant start, bound W or a small constant).
    std::vector<std::pair<z3::expr, std::pair<int64_t, int64_t>>> Split;
    size_t Cases = 1;
    for (const std::string &N : Names) {
      std::optional<std::pair<int64_t, int64_t>> Rg;
      if (N.rfind("rank#", 0) == 0)
        Rg = {0, int64_t(W)};
      else if (N.rfind("loop:", 0) == 0) {
        unsigned Id = unsigned(std::atoi(N.c_str() + 5));
        if (const Loop *Lp = K.findLoop(Id)) {
          auto Init = constOf(Lp->Init);
          int64_t B = -1;
          if (auto C2 = constOf(Lp->Bound))
            B = *C2;
          else if (Lp->Bound && Lp->Bound->Op == ExprOp::Var &&
                   (Lp->Bound->Name == "world_size" ||
                    var(Lp->Bound->Name, 0).to_string() == "world_size"))
            B = W;
          auto St = constOf(Lp->Step);
          if (Init && Lp->Ascending && St && *St == 1 && B >= *Init &&
              B - *Init <= 16)
            Rg = {*Init, B};
        }
      }
      if (!Rg || Rg->second <= Rg->first)
        continue;
      size_t Width = size_t(Rg->second - Rg->first);
      if (Cases * Width > 256)
        continue;
      Cases *= Width;
      Split.push_back({Vars.at(N), *Rg});
    }
    static const bool Trace = std::getenv("PKB_CHECKERS_TRACE") != nullptr;
    if (Trace)
      std::fprintf(stderr, "(split %zu over %zu vars) ", Cases, Split.size());
    if (!Split.empty()) {
      bool AllUnsat = true;
      uint64_t Each = std::max<uint64_t>(Budget * 2 / Cases, 20000);
      for (size_t Case = 0; Case < Cases && !Model; ++Case) {
        z3::solver S2(Z);
        size_t X = Case;
        z3::expr_vector From(Z), To(Z);
        for (const auto &[V, Rg] : Split) {
          size_t Wd = size_t(Rg.second - Rg.first);
          From.push_back(V);
          To.push_back(Z.int_val(Rg.first + int64_t(X % Wd)));
          X /= Wd;
        }
        S2.add(z3::expr(FC).substitute(From, To).simplify());
        for (unsigned I = 0; I < From.size(); ++I)
          S2.add(From[I] == To[I]);
        z3::check_result C2 = runLimited(S2, Each, Reason);
        if (C2 == z3::sat)
          Model = S2.get_model();
        else if (C2 == z3::unknown) {
          AllUnsat = false;
          if (BudgetHit)
            break;
        }
      }
      if (Model)
        C = z3::sat;
      else if (AllUnsat)
        C = z3::unsat;
    } else {
      z3::solver S3(Z);
      S3.add(FC);
      C = runLimited(S3, Budget, Reason);
      if (C == z3::sat)
        Model = S3.get_model();
    }
  }
  if (C == z3::unknown && Reason.empty())
    Reason = "resource limit";
  // Answers cut short by the kernel budget are not cached: a later pass
  // may still decide them when given a fresh budget.
  if (!(C == z3::unknown && BudgetHit))
    Bucket.push_back({FC, C, Model, Reason});
  return C;
}

Outcome Analysis::solve(const z3::expr &F, const WitnessSpec &Wit,
                        const std::vector<unsigned> &OnlyW,
                        const LaunchDims *OnlyLaunch) {
  Outcome R;
  R.Approx = Approx;
  std::vector<unsigned> Ws = OnlyW.empty() ? O.WorldSizes : OnlyW;
  std::sort(Ws.begin(), Ws.end());
  Ws.erase(std::unique(Ws.begin(), Ws.end()), Ws.end());
  bool AnyUnknown = false;
  std::string Reason;
  z3::expr Params = Z.bool_val(true);
  for (const std::string &P : ParamVars)
    Params = Params && Vars.at(P) >= 0;
  std::vector<LaunchDims> Ls =
      OnlyLaunch ? std::vector<LaunchDims>{*OnlyLaunch} : launches();
  static const bool Trace = std::getenv("PKB_CHECKERS_TRACE") != nullptr;
  for (unsigned W : Ws) {
    for (const LaunchDims &L : Ls) {
      if (Trace)
        std::fprintf(stderr, "  [solve %s W=%u] ", K.Name.c_str(), W);
      auto T1 = std::chrono::steady_clock::now();
      unsigned Hits = CacheHits;
      z3::expr FC = concretize(F, W, L) && Params;
      std::optional<z3::model> Mo;
      std::string Why;
      z3::check_result C = decide(FC, W, Mo, Why);
      if (Trace)
        std::fprintf(
            stderr, "%s %.3fs%s\n",
            C == z3::sat     ? "sat"
            : C == z3::unsat ? "unsat"
                             : "unknown",
            std::chrono::duration<double>(std::chrono::steady_clock::now() - T1)
                .count(),
            CacheHits != Hits ? " (cached)" : "");
      if (C == z3::sat && Mo) {
        R.K = Outcome::Sat;
        R.W = W;
        R.AssumedLaunch = !L.FromSite;
        for (const auto &[Name, T] : Wit) {
          z3::expr V = Mo->eval(T, true);
          int64_t X = 0;
          R.Witness[Name] =
              V.is_numeral_i64(X) ? std::to_string(X) : V.to_string();
        }
        R.Witness["W"] = std::to_string(W);
        R.Witness["bdim"] = std::to_string(L.B[0]);
        R.Witness["gdim"] = std::to_string(L.G[0]);
        return R;
      }
      if (C == z3::unknown) {
        if (const char *D = std::getenv("PKB_CHECKERS_DUMP_UNKNOWN")) {
          z3::solver SD(Z);
          SD.add(FC);
          std::ofstream(std::string(D) + "/q" + std::to_string(Queries) +
                        ".smt2")
              << SD.to_smt2();
        }
        AnyUnknown = true;
        if (Reason.empty())
          Reason = Why;
      }
    }
  }
  R.K = AnyUnknown ? Outcome::Unknown : Outcome::Unsat;
  R.Reason = Reason;
  return R;
}

//===----------------------------------------------------------------------===//
// Findings.
//===----------------------------------------------------------------------===//

Finding makeFinding(const std::string &Id, const KernelModel &K,
                    const SourceLoc &Loc, const std::string &Msg,
                    const std::string &Fix) {
  Finding F;
  F.CheckId = Id;
  F.Sev = Severity::Error;
  F.Kernel = K.Name;
  F.Loc = Loc;
  F.Message = Msg;
  F.FixHint = Fix;
  return F;
}

void relate(Finding &F, const std::string &Role, const Event &E) {
  F.Related.push_back({Role, E.Loc, describe(E)});
}

void applyOutcome(Finding &F, const Outcome &R) {
  for (const auto &[K, V] : R.Witness)
    F.Witness[K] = V;
  if (R.Approx || R.unknown())
    F.Sev = Severity::Warning;
}

void emit(std::vector<Finding> &Out, Finding F) {
  for (const Finding &G : Out)
    if (G.CheckId == F.CheckId && G.Kernel == F.Kernel &&
        G.Loc.Line == F.Loc.Line && G.Loc.File == F.Loc.File)
      return;
  Out.push_back(std::move(F));
}

void emitUnknown(const std::string &Id, const KernelModel &K, const Event &E,
                 const std::string &What, const Outcome &R,
                 std::vector<Finding> &Out, std::vector<Diagnostic> &Diags) {
  Diagnostic D;
  D.Code = "solver-unknown";
  D.Sev = Severity::Note;
  D.Loc = E.Loc;
  D.Message = Id + ": could not decide " + What + " in kernel '" + K.Name +
              "' within the solver limit" +
              (R.Reason.empty() ? "" : " (" + R.Reason + ")");
  Diags.push_back(D);
  Finding F = makeFinding(Id, K, E.Loc,
                          "could not be discharged: " + What +
                              " (solver returned unknown)",
                          "simplify the index arithmetic or raise "
                          "--solver-timeout");
  F.Sev = Severity::Warning;
  relate(F, "event", E);
  emit(Out, std::move(F));
}

void KernelChecker::check(const ModuleModel &M, const CheckOptions &Opts,
                          std::vector<Finding> &Out,
                          std::vector<Diagnostic> &Diags) const {
  for (const KernelModel &K : M.Kernels) {
    if (Opts.OnProgress)
      Opts.OnProgress(info().Id, K.Name);
    Analysis A(M, K, Opts);
    static const bool Trace = std::getenv("PKB_CHECKERS_TRACE") != nullptr;
    auto T0 = std::chrono::steady_clock::now();
    try {
      checkKernel(A, Out, Diags);
      if (Trace)
        std::fprintf(
            stderr, "[%s %s] %u queries, %u cached, %llu units%s, %.3fs\n",
            info().Id.c_str(), K.Name.c_str(), A.Queries, A.CacheHits,
            static_cast<unsigned long long>(A.Spent),
            A.BudgetHit ? " (budget exhausted)" : "",
            std::chrono::duration<double>(std::chrono::steady_clock::now() - T0)
                .count());
    } catch (const z3::exception &E) {
      Diagnostic D;
      D.Code = "solver-unknown";
      D.Sev = Severity::Note;
      D.Loc = K.Loc;
      D.Message =
          info().Id + ": solver error in kernel '" + K.Name + "': " + E.msg();
      Diags.push_back(D);
    }
  }
}

} // namespace pkb::chk
