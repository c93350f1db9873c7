//===- EngineLaunches.cpp - Launch configurations -------------------------===//
//
// Part of the checker engine (Engine.h); see docs/checkers.md ("Method").
//
//===----------------------------------------------------------------------===//
#include "Engine.h"

namespace pkb::chk {

//===----------------------------------------------------------------------===//
// Analysis: launch configurations.
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

} // namespace pkb::chk
