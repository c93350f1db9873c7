//===- Diagnostic.cpp - Finding and diagnostic helpers --------------------===//

#include "pkb/Diagnostic.h"

#include <algorithm>
#include <map>
#include <set>
#include <tuple>

namespace pkb {

void mergeInstantiations(std::vector<Finding> &Findings) {
  using Key = std::tuple<std::string, std::string, unsigned, unsigned>;
  std::map<Key, size_t> First;
  std::vector<Finding> Out;
  Out.reserve(Findings.size());
  for (Finding &F : Findings) {
    Key K{F.CheckId, F.Loc.File, F.Loc.Line, F.Loc.Col};
    auto [It, Inserted] = First.try_emplace(K, Out.size());
    if (Inserted) {
      Out.push_back(std::move(F));
      continue;
    }
    Finding &M = Out[It->second];
    if (F.Sev > M.Sev) {
      // Keep the strongest verdict's message and witness; the kernel that
      // had it becomes the primary one.
      std::vector<std::string> Also = std::move(M.AlsoIn);
      Also.push_back(M.Kernel);
      std::string Kernel = F.Kernel;
      M = std::move(F);
      M.Kernel = std::move(Kernel);
      M.AlsoIn = std::move(Also);
    } else if (F.Kernel != M.Kernel &&
               std::find(M.AlsoIn.begin(), M.AlsoIn.end(), F.Kernel) ==
                   M.AlsoIn.end()) {
      M.AlsoIn.push_back(F.Kernel);
    }
    for (const std::string &K2 : F.AlsoIn)
      if (K2 != M.Kernel &&
          std::find(M.AlsoIn.begin(), M.AlsoIn.end(), K2) == M.AlsoIn.end())
        M.AlsoIn.push_back(K2);
  }
  for (Finding &M : Out)
    std::erase(M.AlsoIn, M.Kernel);
  Findings = std::move(Out);
}

void dedupeDiagnostics(std::vector<Diagnostic> &Diags) {
  std::set<std::tuple<std::string, int, std::string, unsigned, unsigned,
                      std::string>>
      Seen;
  std::vector<Diagnostic> Out;
  for (Diagnostic &D : Diags)
    if (Seen.emplace(D.Code, static_cast<int>(D.Sev), D.Loc.File, D.Loc.Line,
                     D.Loc.Col, D.Message)
            .second)
      Out.push_back(std::move(D));
  Diags = std::move(Out);
}

} // namespace pkb
