//===- WildSetTest.cpp - pkbcheck on unmodified production kernel files ---===//
//
// The "real production code" measurement of docs/accuracy.md: the files
// listed in ../shared/wild/SOURCES.md, kept byte-exact and uncommitted in
// .wild/<project>/<file name> (git-ignored). One test per `file` row of
// tests/wild/wild-expectations.txt; every test is skipped (GTEST_SKIP) when
// .wild/ or the file is absent. Each file goes through
// `pkbcheck check FILE --format json` with default options and must
//   * be analyzed: status ok, unless an `input-error` row lists it;
//   * yield kernels where the file has kernels (`yes` in its row), unless a
//     `no-kernels` row lists it;
//   * raise no Error-level finding except the `error ID@LINE` rows of the
//     file, each of which carries its judgement (a real bug argued from the
//     PTX memory model, or a known false alarm and the issue item that will
//     fix it);
//   * raise no Warning-level finding except the `warning ID@LINE VERDICT`
//     rows of the file, each judged in one line: `real` (a real issue),
//     `benign` (true but harmless), `precondition` (a launch precondition
//     the file cannot show) or `imprecision` (a known false alarm and why).
// A listed input error, missing kernels, Error or Warning that no longer
// occurs fails too ("remove it"): the list may only shrink.
//
//===----------------------------------------------------------------------===//
#include "PkbcheckRun.h"

#include <gtest/gtest.h>

#include <map>
#include <set>

using namespace pkb::wildtest;
namespace fs = std::filesystem;

namespace {

struct WildFile {
  std::string Path; ///< relative to .wild/
  bool HasKernels = false;
  /// At least this many analyzed kernels (template instantiations count
  /// one each); 0 = any number. Guards against a front-end change (e.g. a
  /// header-recovery guess) that silently drops kernels.
  unsigned MinKernels = 0;
};

struct Expectations {
  std::vector<WildFile> Files;
  /// path -> ID@line -> the row's judgement.
  using Rows = std::map<std::string, std::map<std::string, std::string>>;
  Rows Errors;
  /// path -> ID@line -> verdict (real, benign, precondition, imprecision).
  Rows Warnings;
  /// Judgements that are empty or have an unknown verdict ("path ID@line").
  std::vector<std::string> BadJudgements;
  std::set<std::string> InputErrors, NoKernels;
};

const Expectations &expectations() {
  static const Expectations E = [] {
    Expectations R;
    fs::path P = fs::path(PKB_SOURCE_DIR) / "tests/wild/wild-expectations.txt";
    for (const std::string &L : tableLines(P)) {
      std::string Rest;
      std::vector<std::string> F = fields(L, 4, Rest);
      if (F.size() >= 3 && F[0] == "file")
        R.Files.push_back({F[1], F[2] == "yes",
                           F.size() >= 4 ? unsigned(std::stoul(F[3])) : 0u});
      else if (F.size() >= 3 && F[0] == "error")
        R.Errors[F[1]][F[2]] = (F.size() >= 4 ? F[3] + " " : "") + Rest;
      else if (F.size() >= 3 && F[0] == "warning") {
        std::string Verdict = F.size() >= 4 ? F[3] : "";
        R.Warnings[F[1]][F[2]] = Verdict;
        static const std::set<std::string> Verdicts = {
            "real", "benign", "precondition", "imprecision"};
        if (!Verdicts.count(Verdict) || Rest.empty())
          R.BadJudgements.push_back(F[1] + " " + F[2]);
      } else if (F.size() >= 2 && F[0] == "input-error")
        R.InputErrors.insert(F[1]);
      else if (F.size() >= 2 && F[0] == "no-kernels")
        R.NoKernels.insert(F[1]);
    }
    return R;
  }();
  return E;
}

fs::path wildDir() { return fs::path(PKB_SOURCE_DIR) / ".wild"; }

/// gtest prints parameters in test names and failures: the path is enough.
void PrintTo(const WildFile &W, std::ostream *OS) { *OS << W.Path; }

/// The findings of \p Severity ("error", "warning") in report \p R of
/// \p Path are exactly the rows of \p Listed for that path: an unlisted
/// one fails (\p Hint says what to add), and so does a listed one that no
/// longer occurs.
void expectExactlyListed(const FileReport &R, const std::string &Path,
                         const std::string &Severity,
                         const Expectations::Rows &Listed,
                         const std::string &Hint) {
  std::map<std::string, std::string> Rows;
  if (auto It = Listed.find(Path); It != Listed.end())
    Rows = It->second;
  std::set<std::string> Got;
  for (const Finding &F : R.Findings) {
    if (F.Severity != Severity)
      continue;
    std::string Key = F.Id + "@" + std::to_string(F.Line);
    Got.insert(Key);
    EXPECT_TRUE(Rows.count(Key))
        << "unlisted " << Severity << " in " << Path << ":" << F.Line << " "
        << F.Id << ": " << F.Message << Hint;
  }
  for (const auto &[Key, Judgement] : Rows)
    EXPECT_TRUE(Got.count(Key))
        << "listed " << Severity << " " << Key << " (" << Judgement << ") in "
        << Path << " no longer occurs: remove its row";
}

class WildSet : public ::testing::TestWithParam<WildFile> {};

TEST_P(WildSet, AnalyzedWithoutUnlistedErrors) {
  const WildFile &W = GetParam();
  if (!fs::is_directory(wildDir()))
    GTEST_SKIP() << "no .wild/ folder (see ../shared/wild/SOURCES.md)";
  fs::path File = wildDir() / W.Path;
  if (!fs::exists(File))
    GTEST_SKIP() << ".wild/" << W.Path << " is absent";
  const Expectations &E = expectations();
  FileReport R = runCheck(File, identifier(W.Path));
  ASSERT_TRUE(R.Ran) << "no readable report for " << W.Path;
  RecordProperty("seconds", std::to_string(R.Seconds));

  bool ListedInput = E.InputErrors.count(W.Path) != 0;
  if (ListedInput) {
    EXPECT_NE(R.Status, "ok") << W.Path << " is analyzed now: remove its "
                              << "input-error row from wild-expectations.txt";
  } else {
    EXPECT_EQ(R.Status, "ok") << W.Path << " is an input error\n" << R.Raw;
  }

  if (W.HasKernels) {
    if (E.NoKernels.count(W.Path)) {
      EXPECT_EQ(R.Kernels, 0u)
          << W.Path << " yields kernels now: remove its no-kernels row";
    } else if (!ListedInput) {
      EXPECT_GT(R.Kernels, 0u) << W.Path << " has kernels but none was found";
      EXPECT_GE(R.Kernels, W.MinKernels)
          << W.Path << " yields fewer kernels than its file row states";
    }
  }

  expectExactlyListed(R, W.Path, "error", E.Errors, "");
  expectExactlyListed(R, W.Path, "warning", E.Warnings,
                      "\n(add a `warning` row with its judgement)");
}

std::string testName(const ::testing::TestParamInfo<WildFile> &I) {
  return identifier(I.param.Path);
}

INSTANTIATE_TEST_SUITE_P(Files, WildSet,
                         ::testing::ValuesIn(expectations().Files), testName);

TEST(WildSetTable, RowsNameListedFiles) {
  const Expectations &E = expectations();
  std::set<std::string> Files;
  for (const WildFile &W : E.Files)
    Files.insert(W.Path);
  EXPECT_EQ(Files.size(), 14u) << "SOURCES.md lists 14 files";
  for (const auto &[Path, Ids] : E.Errors)
    EXPECT_TRUE(Files.count(Path)) << "error row for unknown file " << Path;
  for (const std::string &P : E.InputErrors)
    EXPECT_TRUE(Files.count(P)) << "input-error row for unknown file " << P;
  for (const std::string &P : E.NoKernels)
    EXPECT_TRUE(Files.count(P)) << "no-kernels row for unknown file " << P;
  for (const auto &[Path, Rows] : E.Warnings)
    EXPECT_TRUE(Files.count(Path)) << "warning row for unknown file " << Path;
  EXPECT_TRUE(E.BadJudgements.empty())
      << "warning rows need a verdict (real, benign, precondition, "
         "imprecision) and a one-line judgement: "
      << ::testing::PrintToString(E.BadJudgements);
}

} // namespace
