//===- CorpusCheckTest.cpp - Checkers against the labelled corpus ---------===//
//
// One test per corpus file: the set of (line, check ID) findings at Error or
// Warning level must equal the set of `// expect: ID` / `# expect: ID`
// annotations exactly; correct files (no annotation) must have no Error.
// Corpus-wide true/false positives and misses are printed at the end as
// precision and recall. Files listed in tests/corpus/known-misses.txt are
// skipped (with the reason); KnownMisses.StillMiss fails once one matches.
//
//===----------------------------------------------------------------------===//
#include "pkb/Checker.h"
#include "pkb/Enrich.h"
#include "pkb/Frontend.h"
#include "pkb/Ingest.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <regex>
#include <set>

using namespace pkb;

namespace {

using Key = std::pair<unsigned, std::string>;

struct Totals {
  size_t Tp = 0, Fp = 0, Fn = 0, Files = 0, Exact = 0;
};
Totals &totals() {
  static Totals T;
  return T;
}

std::vector<std::string> corpusFiles() {
  std::vector<std::string> R;
  for (const char *Dir : {"buggy", "correct"}) {
    std::filesystem::path P =
        std::filesystem::path(PKB_SOURCE_DIR) / "kernels/corpus" / Dir;
    if (!std::filesystem::exists(P))
      continue;
    for (const auto &E : std::filesystem::directory_iterator(P)) {
      std::string Ext = E.path().extension().string();
      if (Ext == ".cu" || Ext == ".py")
        R.push_back(E.path().string());
    }
  }
  std::sort(R.begin(), R.end());
  return R;
}

std::set<Key> expected(const std::string &Path) {
  std::set<Key> R;
  std::ifstream In(Path);
  std::string Line;
  std::regex Re(R"((//|#)\s*expect:\s*([A-Z]+-\d{3})\s*$)");
  unsigned N = 0;
  while (std::getline(In, Line)) {
    ++N;
    std::smatch M;
    if (std::regex_search(Line, M, Re))
      R.insert({N, M[2].str()});
  }
  return R;
}

/// Findings of one corpus file against its annotations.
struct FileResult {
  std::set<Key> Got, Want;
  bool AnyError = false;
  std::string Dump;
  /// The test's criterion: findings equal annotations, and a correct file
  /// has no Error.
  bool matches() const { return Got == Want && (!Want.empty() || !AnyError); }
};

FileResult analyze(const std::string &Path) {
  Input In = readInput(Path);
  ModuleModel M;
  M.File = Path;
  M.HostOps = In.HostOps;
  FrontendOptions FO;
  FO.ForceShims = true;
  // With the precompiled shim headers (the same models as without them,
  // tests/frontend/PrecompiledTest.cpp), as `pkbcheck check` parses.
  FO.PchDir = std::string(PKB_BINARY_DIR) + "/test-pch";
  for (const CudaUnit &U : In.Units) {
    FrontendResult R = buildModels(U, FO);
    EXPECT_TRUE(R.UsedPch) << Path;
    for (KernelModel &K : R.Module.Kernels)
      M.Kernels.push_back(std::move(K));
    for (HostOp &H : R.Module.HostOps) // a candidate's pkb_candidate_run
      M.HostOps.push_back(std::move(H));
  }
  enrich(M);
  // The corpus labels TOPO-001 against the two-GPU NVLink machine.
  CheckOptions O;
  O.Target = *resolveTopology("h200x2-nvlink");
  // As the driver runs them: one shared check context per kernel.
  O.Contexts = makeCheckContexts();
  std::vector<Finding> Out;
  std::vector<Diagnostic> Diags;
  // As the driver does: checkers whose preconditions are absent are skipped.
  const unsigned Features = modelFeatures(M);
  for (const auto &C : allCheckers())
    if (C->appliesTo(Features))
      C->check(M, O, Out, Diags);
  FileResult R;
  for (const Finding &F : Out) {
    if (F.Sev == Severity::Note)
      continue;
    R.Got.insert({F.Loc.Line, F.CheckId});
    R.AnyError = R.AnyError || F.Sev == Severity::Error;
    R.Dump += "  " + F.CheckId + " line " + std::to_string(F.Loc.Line) + " [" +
              toString(F.Sev) + "] " + F.Message + "\n";
  }
  R.Want = expected(Path);
  return R;
}

/// tests/corpus/known-misses.txt: `<file stem> <reason>` per line (`#`
/// comments). A listed file's test is skipped with the reason; the
/// KnownMisses test fails once a listed file matches, so the list shrinks.
std::map<std::string, std::string> knownMisses() {
  std::map<std::string, std::string> R;
  std::ifstream In(std::filesystem::path(PKB_SOURCE_DIR) /
                   "tests/corpus/known-misses.txt");
  std::string Line;
  while (std::getline(In, Line)) {
    size_t B = Line.find_first_not_of(" \t");
    if (B == std::string::npos || Line[B] == '#')
      continue;
    size_t E = Line.find_first_of(" \t", B);
    std::string Stem = Line.substr(B, E == std::string::npos ? E : E - B);
    std::string Why;
    if (E != std::string::npos) {
      size_t W = Line.find_first_not_of(" \t", E);
      if (W != std::string::npos)
        Why = Line.substr(W);
    }
    R[Stem] = Why;
  }
  return R;
}

std::string stemOf(const std::string &Path) {
  return std::filesystem::path(Path).stem().string();
}

class Corpus : public ::testing::TestWithParam<std::string> {};

TEST_P(Corpus, FindingsMatchAnnotations) {
  const std::string &Path = GetParam();
  auto Misses = knownMisses();
  if (auto It = Misses.find(stemOf(Path)); It != Misses.end())
    GTEST_SKIP() << "known miss (tests/corpus/known-misses.txt): "
                 << It->second;
  FileResult R = analyze(Path);
  Totals &T = totals();
  ++T.Files;
  for (const Key &K : R.Got)
    (R.Want.count(K) ? T.Tp : T.Fp)++;
  for (const Key &K : R.Want)
    if (!R.Got.count(K))
      ++T.Fn;
  if (R.Got == R.Want)
    ++T.Exact;
  EXPECT_EQ(R.Got, R.Want) << Path << "\n" << R.Dump;
  if (R.Want.empty()) {
    EXPECT_FALSE(R.AnyError) << Path << "\n" << R.Dump;
  }
}

// Every listed known miss must name a corpus file and must still miss.
TEST(KnownMisses, StillMiss) {
  std::map<std::string, std::string> Paths;
  for (const std::string &P : corpusFiles())
    Paths[stemOf(P)] = P;
  for (const auto &[Stem, Why] : knownMisses()) {
    auto It = Paths.find(Stem);
    if (It == Paths.end()) {
      ADD_FAILURE() << "known-misses.txt lists " << Stem
                    << ", which is not a corpus file";
      continue;
    }
    FileResult R = analyze(It->second);
    EXPECT_FALSE(R.matches())
        << Stem << " now matches its annotations: remove it from "
        << "tests/corpus/known-misses.txt";
  }
}

std::string testName(const ::testing::TestParamInfo<std::string> &I) {
  std::string N = std::filesystem::path(I.param).stem().string();
  for (char &C : N)
    if (!isalnum(static_cast<unsigned char>(C)))
      C = '_';
  return N;
}

INSTANTIATE_TEST_SUITE_P(Files, Corpus, ::testing::ValuesIn(corpusFiles()),
                         testName);

class Summary : public ::testing::Environment {
public:
  void TearDown() override {
    const Totals &T = totals();
    if (!T.Files)
      return;
    double P = T.Tp + T.Fp ? double(T.Tp) / double(T.Tp + T.Fp) : 1.0;
    double R = T.Tp + T.Fn ? double(T.Tp) / double(T.Tp + T.Fn) : 1.0;
    std::printf("corpus: %zu files, %zu exact; TP %zu FP %zu FN %zu; "
                "precision %.3f recall %.3f\n",
                T.Files, T.Exact, T.Tp, T.Fp, T.Fn, P, R);
  }
};

const auto *Env = ::testing::AddGlobalTestEnvironment(new Summary);

} // namespace
