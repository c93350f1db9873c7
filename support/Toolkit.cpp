//===- Toolkit.cpp - Finding the CUDA toolkit -----------------------------===//
#include "pkb/support/Toolkit.h"

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <sstream>
#include <unistd.h>

namespace pkb::support {
namespace fs = std::filesystem;

namespace {
bool isExecutable(const fs::path &P) {
  std::error_code Ec;
  return fs::is_regular_file(P, Ec) && ::access(P.c_str(), X_OK) == 0;
}

/// Directories of PATH, in order.
std::vector<std::string> pathDirs() {
  std::vector<std::string> Out;
  std::stringstream S(envOr("PATH"));
  std::string Dir;
  while (std::getline(S, Dir, ':'))
    if (!Dir.empty())
      Out.push_back(Dir);
  return Out;
}
} // namespace

std::string envOr(const char *Name) {
  const char *V = std::getenv(Name);
  return V ? V : "";
}

std::vector<std::string> toolkitRootCandidates(const std::string &Explicit) {
  std::vector<std::string> Out;
  auto Add = [&](const std::string &P) {
    if (!P.empty() && std::find(Out.begin(), Out.end(), P) == Out.end())
      Out.push_back(P);
  };
  Add(Explicit);
  Add(envOr("CUDA_PATH"));
  Add(envOr("CUDA_HOME"));
  Add("/usr/local/cuda");
  for (const std::string &Dir : pathDirs())
    if (isExecutable(fs::path(Dir) / "nvcc"))
      Add(fs::path(Dir).parent_path().string());
  return Out;
}

std::string
findToolkitRoot(const std::string &Explicit,
                const std::function<bool(const std::string &)> &Usable) {
  for (const std::string &R : toolkitRootCandidates(Explicit))
    if (Usable(R))
      return R;
  return "";
}

std::string findToolkitTool(const std::string &Tool,
                            const std::string &Explicit,
                            const std::string &Override) {
  if (!Override.empty() && isExecutable(Override))
    return Override;
  for (const std::string &R : toolkitRootCandidates(Explicit))
    if (fs::path P = fs::path(R) / "bin" / Tool; isExecutable(P))
      return P.string();
  for (const std::string &Dir : pathDirs())
    if (fs::path P = fs::path(Dir) / Tool; isExecutable(P))
      return P.string();
  return "";
}

} // namespace pkb::support
