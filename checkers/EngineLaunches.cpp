//===- EngineLaunches.cpp - Launch configurations -------------------------===//
//
// Part of the checker engine (Engine.h); see docs/checkers.md ("Method").
//
//===----------------------------------------------------------------------===//
#include "Engine.h"

#include <algorithm>
#include <limits>
#include <map>

namespace pkb::chk {

//===----------------------------------------------------------------------===//
// Pruning by the top-level bounds.
//===----------------------------------------------------------------------===//

namespace {
/// Closed interval of an integer constant; the extremes stand for no bound.
struct Interval {
  int64_t Lo = std::numeric_limits<int64_t>::min();
  int64_t Hi = std::numeric_limits<int64_t>::max();
};

/// True for an uninterpreted integer constant (a variable of the query).
bool isIntVar(const z3::expr &E) {
  return E.is_const() && E.is_int() && !E.is_numeral() &&
         E.decl().decl_kind() == Z3_OP_UNINTERPRETED;
}

/// Adds the conjuncts of \p F, with nested conjunctions flattened, to
/// \p Out.
void conjuncts(const z3::expr &F, std::vector<z3::expr> &Out) {
  if (F.is_app() && F.decl().decl_kind() == Z3_OP_AND) {
    for (unsigned I = 0; I < F.num_args(); ++I)
      conjuncts(F.arg(I), Out);
    return;
  }
  Out.push_back(F);
}

/// Narrows \p Bounds by conjunct \p C when it compares a variable with a
/// constant (`x < 8`, `0 <= x`, `not (x >= 8)`, `x == 3`); other conjuncts
/// are ignored.
void narrow(const z3::expr &C, std::map<unsigned, Interval> &Bounds) {
  bool Neg = false;
  z3::expr X = C;
  if (X.is_app() && X.decl().decl_kind() == Z3_OP_NOT) {
    Neg = true;
    X = X.arg(0);
  }
  if (!X.is_app() || X.num_args() != 2)
    return;
  Z3_decl_kind Kd = X.decl().decl_kind();
  if (Kd != Z3_OP_LE && Kd != Z3_OP_GE && Kd != Z3_OP_LT && Kd != Z3_OP_GT &&
      Kd != Z3_OP_EQ)
    return;
  z3::expr V = X.arg(0), N = X.arg(1);
  int64_t K = 0;
  if (!isIntVar(V) || !N.is_numeral_i64(K)) {
    std::swap(V, N);
    if (!isIntVar(V) || !N.is_numeral_i64(K))
      return;
    // The constant on the left: `k <= x` is `x >= k`.
    Kd = Kd == Z3_OP_LE   ? Z3_OP_GE
         : Kd == Z3_OP_GE ? Z3_OP_LE
         : Kd == Z3_OP_LT ? Z3_OP_GT
         : Kd == Z3_OP_GT ? Z3_OP_LT
                          : Kd;
  }
  if (Neg) {
    if (Kd == Z3_OP_EQ)
      return;
    Kd = Kd == Z3_OP_LE   ? Z3_OP_GT
         : Kd == Z3_OP_GE ? Z3_OP_LT
         : Kd == Z3_OP_LT ? Z3_OP_GE
                          : Z3_OP_LE;
  }
  // Constants near the int64 limits are left alone (no overflow below).
  if (K <= std::numeric_limits<int64_t>::min() + 1 ||
      K >= std::numeric_limits<int64_t>::max() - 1)
    return;
  Interval &B = Bounds[V.id()];
  if (Kd == Z3_OP_LE || Kd == Z3_OP_EQ)
    B.Hi = std::min(B.Hi, K);
  if (Kd == Z3_OP_LT)
    B.Hi = std::min(B.Hi, K - 1);
  if (Kd == Z3_OP_GE || Kd == Z3_OP_EQ)
    B.Lo = std::max(B.Lo, K);
  if (Kd == Z3_OP_GT)
    B.Lo = std::max(B.Lo, K + 1);
}

/// \p E with every equality of a bounded variable and a constant outside
/// its bounds replaced by false.
z3::expr pruneRec(const z3::expr &E, const std::map<unsigned, Interval> &Bounds,
                  std::map<unsigned, z3::expr> &Memo) {
  if (auto It = Memo.find(E.id()); It != Memo.end())
    return It->second;
  z3::expr R = E;
  if (E.is_app() && E.num_args() > 0) {
    int64_t K = 0;
    if (E.decl().decl_kind() == Z3_OP_EQ && E.num_args() == 2) {
      for (int S = 0; S < 2; ++S) {
        z3::expr V = E.arg(S), N = E.arg(1 - S);
        auto B = Bounds.find(V.id());
        if (B != Bounds.end() && isIntVar(V) && N.is_numeral_i64(K) &&
            (K < B->second.Lo || K > B->second.Hi)) {
          R = E.ctx().bool_val(false);
          Memo.emplace(E.id(), R);
          return R;
        }
      }
    }
    z3::expr_vector Args(E.ctx());
    bool Changed = false;
    for (unsigned I = 0; I < E.num_args(); ++I) {
      z3::expr A = pruneRec(E.arg(I), Bounds, Memo);
      Changed |= !z3::eq(A, E.arg(I));
      Args.push_back(A);
    }
    if (Changed)
      R = E.decl()(Args);
  }
  Memo.emplace(E.id(), R);
  return R;
}

/// The bounds of the variables of \p F from its top-level conjuncts, by
/// AST id.
std::map<unsigned, Interval> boundsOf(const z3::expr &F) {
  std::vector<z3::expr> Cs;
  conjuncts(F, Cs);
  std::map<unsigned, Interval> Bounds;
  for (const z3::expr &C : Cs)
    narrow(C, Bounds);
  return Bounds;
}
} // namespace

std::map<unsigned, std::pair<int64_t, int64_t>>
topLevelBounds(const z3::expr &F) {
  std::map<unsigned, std::pair<int64_t, int64_t>> Out;
  for (const auto &[Id, B] : boundsOf(F))
    Out[Id] = {B.Lo, B.Hi};
  return Out;
}

z3::expr pruneByBounds(const z3::expr &F) {
  std::map<unsigned, Interval> Bounds = boundsOf(F);
  bool Any = false;
  for (const auto &[Id, B] : Bounds) {
    if (B.Lo > B.Hi)
      return F.ctx().bool_val(false);
    Any = Any || B.Lo != std::numeric_limits<int64_t>::min() ||
          B.Hi != std::numeric_limits<int64_t>::max();
  }
  if (!Any)
    return F;
  std::map<unsigned, z3::expr> Memo;
  z3::expr R = pruneRec(F, Bounds, Memo);
  return z3::eq(R, F) ? F : R.simplify();
}

//===----------------------------------------------------------------------===//
// Analysis: launch configurations.
//===----------------------------------------------------------------------===//

/// The parameters that launch \p L binds to constants: "param:Name" ->
/// value. Rank and world-size parameters are coordinates, not bindings.
static std::map<std::string, int64_t> bindingsOf(const KernelModel &K,
                                                 const LaunchSite &L) {
  std::map<std::string, int64_t> B;
  for (const LaunchSite::Arg &A : L.Args) {
    const Param *P = K.findParam(A.Param);
    if (!P || P->Role == ParamRole::Rank || P->Role == ParamRole::WorldSize)
      continue;
    if (std::optional<int64_t> V = constOf(A.Value))
      B["param:" + P->Name] = *V;
  }
  return B;
}

const std::vector<LaunchDims> &Analysis::launches() {
  if (LaunchesDone)
    return Launches;
  LaunchesDone = true;
  // Launch-site specialization (docs/checkers.md): one configuration per
  // distinct (dimensions, bindings); a site whose dimensions do not fold
  // keeps its bindings with the representative dimensions, used only when
  // no site has constant dimensions.
  std::vector<const LaunchSite *> Unsized;
  auto Same = [](const LaunchDims &A, const LaunchDims &B) {
    auto GuardText = [](const LaunchDims &D) {
      return D.Guard ? D.Guard->str() : std::string();
    };
    return std::equal(A.B, A.B + 3, B.B) && std::equal(A.G, A.G + 3, B.G) &&
           A.Bind == B.Bind && A.FromSite == B.FromSite &&
           GuardText(A) == GuardText(B);
  };
  auto Add = [&](const LaunchDims &D) {
    for (const LaunchDims &E : Launches)
      if (Same(E, D))
        return;
    Launches.push_back(D);
  };
  for (const LaunchSite &L : K.Launches) {
    LaunchDims D;
    D.FromSite = true;
    D.Site = &L;
    D.Bind = bindingsOf(K, L);
    D.Guard = L.Guard;
    const ExprRef *Es[6] = {&L.BlockX, &L.BlockY, &L.BlockZ,
                            &L.GridX,  &L.GridY,  &L.GridZ};
    bool Ok = true;
    for (int I = 0; I < 6; ++I) {
      int64_t V = 1;
      if (*Es[I]) {
        // Only constant dimensions are used: the flag does not matter.
        bool Approx = false;
        z3::expr X = tr(*Es[I], 0, Approx).simplify();
        if (!X.is_numeral() || !X.is_numeral_i64(V) || V < 1) {
          Ok = false;
          break;
        }
      }
      (I < 3 ? D.B[I] : D.G[I - 3]) = V;
    }
    if (Ok && D.B[0] * D.B[1] * D.B[2] <= 1024)
      Add(D);
    else if (!Ok)
      Unsized.push_back(&L);
  }
  if (Launches.empty()) {
    // Representative configurations (docs/checkers.md, "Assumptions").
    LaunchDims A, B;
    A.B[0] = 256;
    A.G[0] = 4;
    B.B[0] = 128;
    B.G[0] = 3;
    if (Unsized.empty()) {
      Launches = {A, B};
    } else {
      for (const LaunchSite *L : Unsized)
        for (LaunchDims D : {A, B}) {
          D.Bind = bindingsOf(K, *L);
          D.Site = L;
          D.Guard = L->Guard;
          Add(D);
        }
    }
  }
  return Launches;
}

bool Analysis::boundInEveryLaunch(const std::string &Var) {
  const std::vector<LaunchDims> &Ls = launches();
  return !K.Launches.empty() &&
         std::all_of(Ls.begin(), Ls.end(), [&](const LaunchDims &L) {
           return L.Bind.count(Var) != 0;
         });
}

z3::expr Analysis::specialize(const z3::expr &F, unsigned W,
                              const LaunchDims &L) {
  z3::expr_vector From(Z), To(Z);
  concreteValues(W, L, From, To);
  return pruneByBounds(z3::expr(F).substitute(From, To).simplify());
}

void Analysis::concreteValues(std::optional<unsigned> W, const LaunchDims &L,
                              z3::expr_vector &From, z3::expr_vector &To) {
  if (W) {
    From.push_back(var("world_size", 0));
    To.push_back(Z.int_val(*W));
  }
  const char *Dims[3] = {"x", "y", "z"};
  for (int D = 0; D < 3; ++D) {
    From.push_back(var(std::string("bdim.") + Dims[D], 0));
    To.push_back(Z.int_val(L.B[D]));
    From.push_back(var(std::string("gdim.") + Dims[D], 0));
    To.push_back(Z.int_val(L.G[D]));
  }
  for (const auto &[Name, V] : L.Bind) {
    From.push_back(var(Name, 0));
    To.push_back(Z.int_val(V));
  }
}

z3::expr Analysis::concretizeAcross(const z3::expr &F, const LaunchDims &L) {
  z3::expr_vector From(Z), To(Z);
  concreteValues(std::nullopt, L, From, To);
  z3::expr Wv = var("world_size", 0);
  std::vector<unsigned> Ws = O.WorldSizes;
  if (Ws.empty())
    return Z.bool_val(false); // no world size to check: nothing runs
  std::sort(Ws.begin(), Ws.end());
  z3::expr InSet = Z.bool_val(false);
  for (unsigned W : Ws)
    InSet = InSet || Wv == Z.int_val(W);
  // The range first, as top-level bounds that prune the chains over W;
  // every rank below the largest W (implied by `rank < W`) prunes those
  // over ranks.
  z3::expr R =
      Wv >= Z.int_val(Ws.front()) && Wv <= Z.int_val(Ws.back()) && InSet;
  for (const auto &[Key, V] : Vars)
    if (startsWith(Key, "rank#"))
      R = R && V < Z.int_val(Ws.back());
  R = R && z3::expr(F).substitute(From, To).simplify();
  R = pruneByBounds(R);
  for (unsigned X = 0; X < From.size(); ++X)
    R = R && From[X] == To[X];
  return R;
}

z3::expr Analysis::concretize(const z3::expr &F, unsigned W,
                              const LaunchDims &L) {
  z3::expr_vector From(Z), To(Z);
  concreteValues(W, L, From, To);
  // Pruned by the bounds that the query itself asserts: an agent's
  // coordinates lie in the launch, a rank below W, a guard's `t < W`
  // bounds its thread; the if-then-else chains of variable shifts
  // (`1 << rank`, `mask >> t`, 62 cases each) keep only the cases in range.
  z3::expr R = pruneByBounds(z3::expr(F).substitute(From, To).simplify());
  for (unsigned X = 0; X < From.size(); ++X)
    R = R && From[X] == To[X];
  if (L.Guard) {
    // Rank- and world-size-conditional launch (docs/checkers.md): every
    // agent of the query runs this launch, so its rank satisfies the
    // launch's host guard; a guard false for W leaves no agent.
    std::vector<int> Agents;
    for (const auto &[Key, V] : Vars)
      if (startsWith(Key, "rank#"))
        Agents.push_back(std::stoi(Key.substr(5)));
    if (Agents.empty())
      Agents.push_back(1);
    // The guard restricts the ranks of a launch the host code names; its
    // flag is not the query's (Outcome::Approx is the formula's).
    bool GuardApprox = false;
    for (int Ag : Agents) {
      z3::expr G =
          z3::expr(trBool(L.Guard, Ag, GuardApprox)).substitute(From, To);
      G = G.simplify();
      if (G.is_false())
        return Z.bool_val(false); // no rank runs this launch at this W
      R = R && G;
    }
  }
  return R;
}

} // namespace pkb::chk
