//===- CandidateVerdictTest.cpp - Static findings against GPU verdicts ----===//
//
// The "static against GPU verdicts" measurement of docs/accuracy.md. Every
// .cu file of kernels/candidates/, kernels/candidates/buggy/,
// runtime/testdata/ and of the blind set tests/blind/ (with buggy/;
// tests/blind/README.md) has a row in tests/wild/gpu-verdicts.tsv: its GPU
// class (the classes of `pkbcheck eval`, app/Eval.cpp) and the
// run that produced it. One test per row runs `pkbcheck check FILE
// --format json` with default options (plus `--problem P` where the row
// names the problem its GPU run was given, and `--timeout 900`: the outcome
// must not depend on the machine's load):
//   * pass            -> no Error-level finding;
//   * compile-error   -> an input error (status not ok);
//   * a failure class -> at least one Error-level finding whose ID explains
//                        it, with the same ID prefixes `eval` uses for
//                        `explained_by` (explainingPrefixes in Eval.cpp).
// A file in tests/wild/expected-disagreements.txt is skipped with its
// reason while it still disagrees and fails once it agrees ("remove it"):
// the list may only shrink. Any other disagreement fails.
//
//===----------------------------------------------------------------------===//
#include "PkbcheckRun.h"

#include <gtest/gtest.h>

#include <map>
#include <set>

using namespace pkb::wildtest;
namespace fs = std::filesystem;

namespace {

struct Row {
  std::string File;                 ///< relative to the source root
  std::vector<std::string> Classes; ///< one or more, '+'-joined in the table
  std::string Source;
  std::string Problem; ///< optional 4th column; "" = from the file name
};

const std::vector<Row> &rows() {
  static const std::vector<Row> R = [] {
    std::vector<Row> Out;
    for (const std::string &L :
         tableLines(fs::path(PKB_SOURCE_DIR) / "tests/wild/gpu-verdicts.tsv")) {
      std::string Rest;
      std::vector<std::string> F = fields(L, 3, Rest);
      if (F.size() < 3)
        continue;
      Row X{F[0], {}, F[2], Rest};
      size_t B = 0;
      while (B <= F[1].size()) {
        size_t E = F[1].find('+', B);
        if (E == std::string::npos)
          E = F[1].size();
        X.Classes.push_back(F[1].substr(B, E - B));
        B = E + 1;
      }
      Out.push_back(X);
    }
    return Out;
  }();
  return R;
}

std::map<std::string, std::string> disagreements() {
  std::map<std::string, std::string> R;
  for (const std::string &L :
       tableLines(fs::path(PKB_SOURCE_DIR) /
                  "tests/wild/expected-disagreements.txt")) {
    std::string Rest;
    std::vector<std::string> F = fields(L, 1, Rest);
    if (!F.empty())
      R[F[0]] = Rest;
  }
  return R;
}

/// Check-ID prefixes that explain a failure class: the mapping of
/// explainingPrefixes() in app/Eval.cpp (keep them equal).
std::vector<std::string> explaining(const std::string &Class) {
  if (Class == "deadlock")
    return {"BAR-001", "BAR-002", "BAR-005", "SIG-001",
            "SIG-002", "ORD-004", "PART-001"};
  if (Class == "cross-call-race")
    return {"BAR-004", "SIG-002", "HOST-001"};
  if (Class == "output-mismatch")
    return {"ORD-", "RACE-", "PART-", "SIG-", "BAR-003", "BAR-004", "HOST-"};
  if (Class == "unwritten-output")
    return {"PART-003", "PART-001", "BAR-001"};
  if (Class == "runtime-error")
    return {"PART-001", "SIG-001", "TOPO-001"};
  return {};
}

/// Empty when the static result agrees with the GPU class, else why not.
std::string disagreement(const Row &X, const FileReport &R) {
  std::vector<Finding> Errors = R.errors();
  std::string Ids;
  for (const Finding &F : Errors)
    Ids += " " + F.Id + "@" + std::to_string(F.Line);
  if (X.Classes.size() == 1 && X.Classes[0] == "compile-error")
    return R.Status != "ok" ? "" : "compiles for the analyzer (status ok)";
  if (R.Status != "ok")
    return "input error (status " + R.Status + ")";
  if (X.Classes.size() == 1 && X.Classes[0] == "pass")
    return Errors.empty() ? "" : "passes on the GPU but has Errors:" + Ids;
  for (const std::string &C : X.Classes)
    for (const Finding &F : Errors)
      for (const std::string &P : explaining(C))
        if (F.Id.rfind(P, 0) == 0)
          return "";
  return "fails on the GPU but no Error explains it (Errors:" +
         (Ids.empty() ? std::string(" none") : Ids) + ")";
}

/// gtest prints parameters in test names and failures: the file is enough.
void PrintTo(const Row &X, std::ostream *OS) { *OS << X.File; }

class CandidateVerdict : public ::testing::TestWithParam<Row> {};

TEST_P(CandidateVerdict, StaticAgreesWithGpu) {
  const Row &X = GetParam();
  // Findings, not speed, are measured here: a per-file limit far above the
  // default 120 s keeps the outcome independent of the machine's load (the
  // solver's own limits are deterministic resource counts). The slowest
  // files (tests/blind) take about two minutes; docs/performance.md has
  // their times under the default limit.
  FileReport R = runCheck(fs::path(PKB_SOURCE_DIR) / X.File, identifier(X.File),
                          X.Problem, "--timeout 900");
  ASSERT_TRUE(R.Ran) << "no readable report for " << X.File;
  std::string Why = disagreement(X, R);
  auto Known = disagreements();
  auto It = Known.find(X.File);
  if (It != Known.end()) {
    EXPECT_FALSE(Why.empty())
        << X.File << " agrees now: remove it from expected-disagreements.txt";
    if (!Why.empty())
      GTEST_SKIP() << "expected disagreement: " << It->second << " [" << Why
                   << "]";
    return;
  }
  EXPECT_TRUE(Why.empty()) << X.File << ": " << Why << "\n" << R.Raw;
}

std::string testName(const ::testing::TestParamInfo<Row> &I) {
  return identifier(I.param.File);
}

INSTANTIATE_TEST_SUITE_P(Files, CandidateVerdict, ::testing::ValuesIn(rows()),
                         testName);

TEST(CandidateVerdictTable, EveryCandidateHasARow) {
  std::set<std::string> InTable, OnDisk;
  for (const Row &X : rows()) {
    InTable.insert(X.File);
    EXPECT_TRUE(fs::exists(fs::path(PKB_SOURCE_DIR) / X.File))
        << "row for a missing file " << X.File;
    for (const std::string &C : X.Classes)
      EXPECT_TRUE(C == "pass" || C == "compile-error" || !explaining(C).empty())
          << "unknown class " << C << " for " << X.File;
  }
  for (const char *Dir :
       {"kernels/candidates", "kernels/candidates/buggy", "runtime/testdata",
        "tests/blind", "tests/blind/buggy"})
    for (const auto &E : fs::directory_iterator(fs::path(PKB_SOURCE_DIR) / Dir))
      if (E.path().extension() == ".cu")
        OnDisk.insert(std::string(Dir) + "/" + E.path().filename().string());
  for (const std::string &F : OnDisk)
    EXPECT_TRUE(InTable.count(F)) << F << " has no GPU verdict row";
  for (const auto &[F, Reason] : disagreements())
    EXPECT_TRUE(InTable.count(F)) << "disagreement listed for unknown " << F;
}

} // namespace
