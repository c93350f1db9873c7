//===- FeDump.cpp - Print kernel models of files (development aid) --------===//
//
// Usage: pkb_fe_dump [--json] [--toolkit] FILE...
// Prints every kernel's params, loops and events (one line each), or the
// JSON of `pkbcheck dump` with --json.
//
//===----------------------------------------------------------------------===//
#include "FrontendTestUtil.h"
#include "pkb/ModelJson.h"

#include <cstring>
#include <iostream>

int main(int Argc, char **Argv) {
  bool Json = false, Toolkit = false, Mem = false;
  for (int I = 1; I < Argc; ++I) {
    if (!std::strcmp(Argv[I], "--json")) {
      Json = true;
      continue;
    }
    if (!std::strcmp(Argv[I], "--mem")) {
      Mem = true;
      continue;
    }
    if (!std::strcmp(Argv[I], "--toolkit")) {
      Toolkit = true;
      continue;
    }
    pkb::Input In = pkb::readInput(Argv[I]);
    if (Mem && !In.Units.empty())
      In.Units[0] = pkb::test::cudaUnit(In.Units[0].Text, Argv[I]);
    for (const pkb::Diagnostic &D : In.Diags)
      std::cout << "ingest: " << D.Code << " " << D.Message << "\n";
    pkb::FrontendOptions O = pkb::test::shimOptions();
    O.ForceShims = !Toolkit;
    for (const pkb::CudaUnit &U : In.Units) {
      pkb::FrontendResult R = pkb::buildModels(U, O);
      std::cout << "== " << U.Name << " parsed=" << R.Parsed << "\n";
      for (const pkb::Diagnostic &D : R.Diags)
        std::cout << "diag " << D.Code << " " << D.Loc.File << ":" << D.Loc.Line
                  << " " << D.Message << "\n";
      if (Json) {
        std::cout << pkb::toJson(R.Module).dump(1) << "\n";
        continue;
      }
      for (const pkb::KernelModel &K : R.Module.Kernels) {
        std::cout << "kernel " << K.Name << " L" << K.Loc.Line << "\n";
        for (const pkb::Param &P : K.Params)
          std::cout << "  param " << P.Name << " : " << P.Type << " -> "
                    << pkb::toString(P.Role) << " (" << P.Why << ")\n";
        for (const pkb::Loop &L : K.Loops)
          std::cout << "  loop " << L.Id << " " << L.InductionVar
                    << " init=" << (L.Init ? L.Init->str() : "-")
                    << " bound=" << (L.Bound ? L.Bound->str() : "-")
                    << " step=" << (L.Step ? L.Step->str() : "-") << "\n";
        for (const pkb::Event &E : K.Events) {
          std::cout << "  " << pkb::test::summary(E);
          if (!E.Guard.empty()) {
            std::cout << " if";
            for (auto &G : E.Guard)
              std::cout << " [" << G->str() << "]";
          }
          if (!E.Loops.empty()) {
            std::cout << " loops";
            for (unsigned L : E.Loops)
              std::cout << " " << L;
          }
          std::cout << "\n";
        }
        for (const pkb::LaunchSite &L : K.Launches)
          std::cout << "  launch L" << L.Loc.Line
                    << " grid=" << (L.GridX ? L.GridX->str() : "-")
                    << " block=" << (L.BlockX ? L.BlockX->str() : "-")
                    << (L.Cooperative ? " coop" : "") << "\n";
        for (const std::string &N : K.Notes)
          std::cout << "  note " << N << "\n";
      }
    }
  }
  return 0;
}
