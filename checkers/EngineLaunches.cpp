//===- EngineLaunches.cpp - Launch configurations -------------------------===//
//
// Part of the checker engine (Engine.h); see docs/checkers.md ("Method").
//
//===----------------------------------------------------------------------===//
#include "Engine.h"

#include <algorithm>

namespace pkb::chk {

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
  for (const auto &[Name, V] : L.Bind) {
    From.push_back(var(Name, 0));
    To.push_back(Z.int_val(V));
  }
  z3::expr R = z3::expr(F).substitute(From, To).simplify();
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
