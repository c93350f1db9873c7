//===- EngineEncode.cpp - Expr to Z3 encoding -----------------------------===//
//
// Part of the checker engine (Engine.h); see docs/checkers.md ("Method").
//
//===----------------------------------------------------------------------===//
#include "Engine.h"

#include <algorithm>

namespace pkb::chk {

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

Encoded Analysis::toInt(const ExprRef &E, int A) {
  bool Approx = false;
  z3::expr T = tr(E, A, Approx);
  return {T, Approx};
}

std::vector<z3::expr> Analysis::agentVars(int A) const {
  std::vector<z3::expr> R;
  std::string Suffix = "#" + std::to_string(A);
  for (const auto &[Key, V] : Vars)
    if (Key.size() > Suffix.size() &&
        Key.compare(Key.size() - Suffix.size(), Suffix.size(), Suffix) == 0)
      R.push_back(V);
  return R;
}

/// The agent whose variables hold a host expression before hostTerm()
/// replaces them.
static constexpr int HostAgent = 98;

/// The replacements of hostTerm() for problem \p PS.
static void hostNames(Analysis &An, const ProblemSizes &PS,
                      const z3::expr &Size, const z3::expr &Rank, unsigned W,
                      z3::expr_vector &From, z3::expr_vector &To) {
  z3::expr Wv = An.Z.int_val(W);
  z3::expr InN = PS.InputTimesW ? Wv * Size : Size;
  z3::expr OutN = PS.OutputTimesW ? Wv * Size : Size;
  for (const char *N : {"host:In[0].shape[0]", "host:In[0].numel"}) {
    From.push_back(An.var(N, HostAgent));
    To.push_back(InN);
  }
  for (const char *N : {"host:Out[0].shape[0]", "host:Out[0].numel"}) {
    From.push_back(An.var(N, HostAgent));
    To.push_back(OutN);
  }
  From.push_back(An.rank(HostAgent));
  To.push_back(Rank);
  From.push_back(An.var("world_size", HostAgent));
  To.push_back(Wv);
}

bool onlyHostNames(const ExprRef &E) {
  return !anyVar(
      E,
      [](const std::string &N) {
        return N != "rank" && N != "world_size" && N != "host:In[0].shape[0]" &&
               N != "host:In[0].numel" && N != "host:Out[0].shape[0]" &&
               N != "host:Out[0].numel";
      },
      /*OpaqueCounts=*/true);
}

/// \p T, the term of host expression \p E for HostAgent, with the names
/// of hostNames() replaced.
static Encoded hostReplaced(Analysis &An, const Encoded &T, const ExprRef &E,
                            const ProblemSizes &PS, const z3::expr &Size,
                            const z3::expr &Rank, unsigned W) {
  z3::expr_vector From(An.Z), To(An.Z);
  hostNames(An, PS, Size, Rank, W, From, To);
  return T.substitute(From, To).orApprox(!onlyHostNames(E));
}

Encoded Analysis::hostTerm(const ExprRef &E, const ProblemSizes &PS,
                           const z3::expr &Size, const z3::expr &Rank,
                           unsigned W) {
  return hostReplaced(*this, toInt(E, HostAgent), E, PS, Size, Rank, W);
}

Encoded Analysis::hostCond(const ExprRef &E, const ProblemSizes &PS,
                           const z3::expr &Size, const z3::expr &Rank,
                           unsigned W) {
  return hostReplaced(*this, toBool(E, HostAgent), E, PS, Size, Rank, W);
}

z3::expr Analysis::problemSize(const ProblemSizes &PS, const z3::expr &Size) {
  z3::expr R = Z.bool_val(false);
  for (int64_t N : PS.Sizes)
    R = R || Size == Z.int_val(N);
  return R;
}

Encoded Analysis::toBool(const ExprRef &E, int A) {
  bool Approx = false;
  z3::expr T = trBool(E, A, Approx);
  return {T, Approx};
}

static z3::expr boolToInt(const z3::expr &B) {
  z3::context &C = B.ctx();
  return z3::ite(B, C.int_val(1), C.int_val(0));
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

z3::expr Analysis::tr(const ExprRef &E, int A, bool &Approx) {
  if (!E) {
    Approx = true;
    static unsigned Fresh = 0;
    return Z.int_const(("unknown!" + std::to_string(Fresh++)).c_str());
  }
  auto Op = [&](size_t I) { return tr(E->Ops[I], A, Approx); };
  auto BitVec = [&](const z3::expr &X) { return z3::int2bv(64, X); };
  auto FromBV = [&](const z3::expr &X) { return z3::bv2int(X, true); };
  switch (E->Op) {
  case ExprOp::Const:
    return Z.int_val(E->Value);
  case ExprOp::Var: {
    const std::string &N = E->Name;
    if (startsWith(N, "local:")) {
      auto D = K.LocalDefs.find(N);
      if (D != K.LocalDefs.end()) {
        ReadDefinedLocal = true;
        if (ExactLocals)
          return tr(D->second, A, Approx);
      }
    }
    if (startsWith(N, "local:") ||
        !(startsWith(N, "tid.") || startsWith(N, "bid.") ||
          startsWith(N, "bdim.") || startsWith(N, "gdim.") || N == "lane" ||
          N == "rank" || N == "world_size" || startsWith(N, "param:") ||
          startsWith(N, "loop:") || N == "epoch" || N == "call" ||
          N == "polled" || startsWith(N, "host:")))
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
        z3::expr X = Op(1 - S), Y = tr(M->Ops[0]->Ops[1], A, Approx);
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
        z3::expr X = Op(1 - S), Y = tr(M->Ops[0]->Ops[1], A, Approx);
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
    if (!CaseSplit.empty()) {
      auto It = CaseSplit.find(E->Ops[0]->str());
      if (It != CaseSplit.end()) {
        SplitUsed = true;
        return It->second ? Op(1) : Op(2);
      }
    }
    return z3::ite(trBool(E->Ops[0], A, Approx), Op(1), Op(2));
  case ExprOp::LNot:
  case ExprOp::LAnd:
  case ExprOp::LOr:
  case ExprOp::Eq:
  case ExprOp::Ne:
  case ExprOp::Lt:
  case ExprOp::Le:
  case ExprOp::Gt:
  case ExprOp::Ge:
    return boolToInt(trBool(E, A, Approx));
  }
  Approx = true;
  return var("opaque:?", A);
}

z3::expr Analysis::trBool(const ExprRef &E, int A, bool &Approx) {
  if (!E) {
    Approx = true;
    static unsigned Fresh = 0;
    return Z.bool_const(("unknownb!" + std::to_string(Fresh++)).c_str());
  }
  auto Op = [&](size_t I) { return tr(E->Ops[I], A, Approx); };
  switch (E->Op) {
  case ExprOp::LNot:
    return !trBool(E->Ops[0], A, Approx);
  case ExprOp::LAnd:
    return trBool(E->Ops[0], A, Approx) && trBool(E->Ops[1], A, Approx);
  case ExprOp::LOr:
    return trBool(E->Ops[0], A, Approx) || trBool(E->Ops[1], A, Approx);
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
    return tr(E, A, Approx) != 0;
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

Encoded Analysis::loopDef(unsigned Id, int A) {
  const Loop *L = K.findLoop(Id);
  z3::expr V = var("loop:" + std::to_string(Id), A);
  z3::expr N = iterVar(Id, A);
  z3::expr R = N >= 0;
  bool Approx = false;
  if (!L)
    return {R, true};
  if (L->Init && L->Step) {
    z3::expr S = tr(L->Step, A, Approx);
    R = R && S > 0 &&
        (L->Ascending ? V == tr(L->Init, A, Approx) + N * S
                      : V == tr(L->Init, A, Approx) - N * S);
    // Grid-/block-stride loops: the start is the thread's offset within
    // one stride, so the loop variable determines it (v mod S == start).
    bool Grid = L->Init->mentions("tid.x") && L->Step->mentions("bdim.x") &&
                (L->Init->mentions("bid.x") == L->Step->mentions("gdim.x"));
    if (Grid && L->Ascending)
      R = R && z3::mod(V, S) == tr(L->Init, A, Approx) && V / S == N;
  } else if (L->Init) {
    R = R && (L->Ascending ? V >= tr(L->Init, A, Approx)
                           : V <= tr(L->Init, A, Approx));
  }
  return {R, Approx};
}

Encoded Analysis::loopBound(unsigned Id, int A) {
  const Loop *L = K.findLoop(Id);
  if (!L || !L->Bound)
    return Z.bool_val(true);
  z3::expr V = var("loop:" + std::to_string(Id), A);
  bool Approx = false;
  z3::expr B =
      L->Ascending ? V < tr(L->Bound, A, Approx) : V > tr(L->Bound, A, Approx);
  return {B, Approx};
}

Encoded Analysis::loopCons(unsigned Id, int A) {
  return loopDef(Id, A) && loopBound(Id, A);
}

std::vector<ExprRef> Analysis::eventExprs(size_t I) const {
  const Event &E = ev(I);
  std::vector<ExprRef> Es = E.Guard;
  Es.insert(Es.end(), {E.Addr.Index, E.Addr.ByteOffset, E.Addr.Peer});
  for (unsigned Id : E.Loops)
    if (const Loop *L = K.findLoop(Id))
      Es.insert(Es.end(), {L->Init, L->Bound, L->Step});
  return Es;
}

z3::expr Analysis::oneThread(int A, int B, const std::vector<size_t> &Events) {
  z3::expr R = sameRank(A, B) && sameBlock(A, B) && sameThread(A, B);
  if (Events.empty())
    return R;
  for (unsigned L : ev(Events[0]).Loops)
    if (std::all_of(Events.begin(), Events.end(), [&](size_t I) {
          const std::vector<unsigned> &Ls = ev(I).Loops;
          return std::find(Ls.begin(), Ls.end(), L) != Ls.end();
        }))
      R = R && iterVar(L, A) == iterVar(L, B);
  return R;
}

void addends(const ExprRef &E, std::vector<ExprRef> &Out) {
  if (E && E->Op == ExprOp::Add) {
    addends(E->Ops[0], Out);
    addends(E->Ops[1], Out);
    return;
  }
  Out.push_back(E);
}

std::vector<std::map<std::string, bool>>
caseSplit(const std::vector<std::string> &Conds) {
  std::vector<std::map<std::string, bool>> R(size_t(1) << Conds.size());
  for (size_t I = 0; I < R.size(); ++I)
    for (size_t C = 0; C < Conds.size(); ++C)
      R[I][Conds[C]] = (I >> C) & 1;
  return R;
}

std::optional<std::vector<std::string>>
Analysis::unknownConditions(const std::vector<ExprRef> &Es, size_t Max) const {
  std::vector<std::string> Out;
  std::set<std::string> Seen; // LocalDefs names already followed
  bool Over = false;
  // True if \p C reads a local without an exact value and nothing but
  // constants besides.
  std::function<bool(const ExprRef &, bool &)> OnlyUnknown =
      [&](const ExprRef &C, bool &Any) -> bool {
    if (!C || C->Op == ExprOp::Opaque)
      return false;
    if (C->Op == ExprOp::Var) {
      bool Unknown =
          startsWith(C->Name, "local:") && !K.LocalDefs.count(C->Name);
      Any = Any || Unknown;
      return Unknown;
    }
    return std::all_of(C->Ops.begin(), C->Ops.end(),
                       [&](const ExprRef &X) { return OnlyUnknown(X, Any); });
  };
  std::function<void(const ExprRef &)> Walk = [&](const ExprRef &E) {
    if (!E || Over)
      return;
    if (E->Op == ExprOp::Var) {
      auto D = K.LocalDefs.find(E->Name);
      if (D != K.LocalDefs.end() && Seen.insert(E->Name).second)
        Walk(D->second);
      return;
    }
    if (E->Op == ExprOp::Select) {
      bool Any = false;
      if (OnlyUnknown(E->Ops[0], Any) && Any) {
        std::string S = E->Ops[0]->str();
        if (std::find(Out.begin(), Out.end(), S) == Out.end()) {
          if (Out.size() == Max) {
            Over = true;
            return;
          }
          Out.push_back(S);
        }
      }
    }
    for (const ExprRef &X : E->Ops)
      Walk(X);
  };
  for (const ExprRef &E : Es)
    Walk(E);
  if (Over)
    return std::nullopt;
  return Out;
}

Encoded Analysis::exec(size_t I, int A) {
  const Event &E = ev(I);
  z3::expr R = agentRange(A);
  bool Approx = false;
  for (const ExprRef &G : E.Guard)
    R = R && trBool(G, A, Approx);
  Encoded Ex{R, Approx};
  for (unsigned L : E.Loops)
    Ex = Ex && loopCons(L, A);
  return Ex;
}

Encoded Analysis::guardOf(size_t I, int A) {
  z3::expr R = Z.bool_val(true);
  bool Approx = false;
  for (const ExprRef &G : ev(I).Guard)
    R = R && trBool(G, A, Approx);
  return {R, Approx};
}

Encoded Analysis::blockGuard(size_t I, int A) {
  const Event &E = ev(I);
  z3::expr R = agentRange(A);
  bool Approx = false;
  for (const ExprRef &G : E.Guard) {
    std::vector<ExprRef> Cs;
    splitConj(G, Cs);
    for (const ExprRef &C : Cs)
      if (!isThreadVarying(C))
        R = R && trBool(C, A, Approx);
  }
  return {R, Approx};
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
  bool OwnerApprox = false, Approx = false;
  z3::expr Owner = Z.int_val(0);
  if (isShared(I) || E.Addr.Space == AddrSpace::Multicast)
    Owner = Z.int_val(0);
  else if (E.Addr.Peer)
    Owner = tr(E.Addr.Peer, A, OwnerApprox);
  else
    Owner = rank(A);
  unsigned U = unitOf(I);
  z3::expr Lo = E.Addr.Index ? tr(E.Addr.Index, A, Approx) * Z.int_val(U)
                             : tr(nullptr, A, Approx);
  if (E.Addr.ByteOffset && DroppedAddends.empty()) {
    Lo = Lo + tr(E.Addr.ByteOffset, A, Approx);
  } else if (E.Addr.ByteOffset) {
    std::vector<ExprRef> Terms;
    addends(E.Addr.ByteOffset, Terms);
    for (const ExprRef &T : Terms)
      if (!DroppedAddends.count(T->str()))
        Lo = Lo + tr(T, A, Approx);
  }
  z3::expr Hi = Lo + Z.int_val(std::max(1u, E.Width));
  return {{Owner, OwnerApprox}, {Lo, Approx}, {Hi, Approx}};
}

std::optional<std::pair<int64_t, int64_t>>
Analysis::byteRange(size_t I, unsigned W, const LaunchDims &L) {
  const Event &E = ev(I);
  if (!E.Addr.Index)
    return std::nullopt;
  auto X = valueRange(E.Addr.Index, W, L);
  auto B = E.Addr.ByteOffset
               ? valueRange(E.Addr.ByteOffset, W, L)
               : std::optional(std::make_pair(int64_t(0), int64_t(0)));
  if (!X || !B)
    return std::nullopt;
  // The ends are below 2^40 in size and the unit is small: no overflow.
  const int64_t U = unitOf(I);
  return std::make_pair(X->first * U + B->first,
                        X->second * U + B->second +
                            std::max<int64_t>(1, E.Width));
}

Encoded Analysis::conflict(size_t I, int A, size_t J, int B) {
  const Event &E1 = ev(I), &E2 = ev(J);
  if (E1.Addr.Base.empty() || E1.Addr.Base != E2.Addr.Base)
    return Z.bool_val(false);
  if (isShared(I) != isShared(J))
    return Z.bool_val(false);
  Range R1 = range(I, A), R2 = range(J, B);
  // Accesses before the start of a buffer are out of bounds (another bug);
  // conflicts are looked for among in-bounds offsets only.
  Encoded C = R1.Owner == R2.Owner && R1.Lo < R2.Hi && R2.Lo < R1.Hi &&
              R1.Lo >= 0 && R2.Lo >= 0;
  if (isShared(I))
    C = C && sameRank(A, B) && sameBlock(A, B);
  return C;
}

} // namespace pkb::chk
