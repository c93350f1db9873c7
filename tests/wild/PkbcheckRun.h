//===- PkbcheckRun.h - Run the pkbcheck binary on one file, read its JSON -===//
//
// Shared by the production-code test (WildSetTest.cpp) and the
// static-against-GPU test (CandidateVerdictTest.cpp): both run
// `pkbcheck check FILE --format json` with default options, exactly as a
// user would, and read the one file record of the report.
//
//===----------------------------------------------------------------------===//
#pragma once

#include <nlohmann/json.hpp>

#include <cctype>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include <unistd.h>

namespace pkb::wildtest {

/// One finding of the report.
struct Finding {
  std::string Id, Severity, Message;
  unsigned Line = 0;
};

/// The file record of one `pkbcheck check` run.
struct FileReport {
  bool Ran = false;     ///< the binary produced a readable report
  std::string Status;   ///< "ok", "parse-error", ...
  unsigned Kernels = 0; ///< kernels analyzed
  double Seconds = 0;   ///< analysis time of the file
  std::vector<Finding> Findings;
  std::string Raw; ///< the whole JSON report, for failure messages

  std::vector<Finding> errors() const {
    std::vector<Finding> R;
    for (const Finding &F : Findings)
      if (F.Severity == "error")
        R.push_back(F);
    return R;
  }
};

inline std::string slurp(const std::filesystem::path &P) {
  std::ifstream In(P, std::ios::binary);
  std::ostringstream S;
  S << In.rdbuf();
  return S.str();
}

/// Runs `pkbcheck check Path --format json -o TMP` (default options, plus
/// `--problem Problem` when given and \p Extra, e.g. "--timeout 900").
inline FileReport runCheck(const std::filesystem::path &Path,
                           const std::string &Tag,
                           const std::string &Problem = "",
                           const std::string &Extra = "") {
  namespace fs = std::filesystem;
  fs::path Json =
      fs::temp_directory_path() /
      ("pkb_wild_" + std::to_string(::getpid()) + "_" + Tag + ".json");
  fs::path Log = Json;
  Log.replace_extension(".log");
  std::string Cmd = std::string(PKBCHECK_BIN) + " check '" + Path.string() +
                    "' --format json -o '" + Json.string() + "'" +
                    (Problem.empty() ? "" : " --problem '" + Problem + "'") +
                    (Extra.empty() ? "" : " " + Extra) +
                    " > '" + Log.string() + "' 2>&1";
  (void)std::system(Cmd.c_str());
  FileReport R;
  R.Raw = slurp(Json);
  std::error_code Ec;
  fs::remove(Json, Ec);
  fs::remove(Log, Ec);
  nlohmann::json J = nlohmann::json::parse(R.Raw, nullptr, false);
  if (J.is_discarded() || !J.contains("files") || J["files"].empty())
    return R;
  const nlohmann::json &F = J["files"][0];
  R.Ran = true;
  R.Status = F.value("status", "");
  R.Kernels = F.value("kernels", 0u);
  R.Seconds = F.value("seconds", 0.0);
  for (const nlohmann::json &X : F.value("findings", nlohmann::json::array()))
    R.Findings.push_back({X.value("check", ""), X.value("severity", ""),
                          X.value("message", ""), X.value("line", 0u)});
  return R;
}

/// Splits a table line into its first N whitespace-separated fields and the
/// rest of the line (the judgement or reason text).
inline std::vector<std::string> fields(const std::string &Line, size_t N,
                                       std::string &Rest) {
  std::istringstream S(Line);
  std::vector<std::string> R;
  std::string W;
  while (R.size() < N && S >> W)
    R.push_back(W);
  std::getline(S, Rest);
  size_t B = Rest.find_first_not_of(" \t");
  Rest = B == std::string::npos ? "" : Rest.substr(B);
  return R;
}

/// A path as a gtest name or file tag: every non-alphanumeric becomes '_'.
inline std::string identifier(std::string S) {
  for (char &C : S)
    if (!std::isalnum(static_cast<unsigned char>(C)))
      C = '_';
  return S;
}

/// Non-comment, non-blank lines of a committed table.
inline std::vector<std::string> tableLines(const std::filesystem::path &P) {
  std::vector<std::string> R;
  std::ifstream In(P);
  std::string L;
  while (std::getline(In, L))
    if (!L.empty() && L[0] != '#' &&
        L.find_first_not_of(" \t") != std::string::npos)
      R.push_back(L);
  return R;
}

} // namespace pkb::wildtest
