//===- CorpusCheckTest.cpp - Checkers against the labelled corpus ---------===//
//
// One test per corpus file: the set of (line, check ID) findings at Error or
// Warning level must equal the set of `// expect: ID` / `# expect: ID`
// annotations exactly; correct files (no annotation) must have no Error.
// Corpus-wide true/false positives and misses are printed at the end as
// precision and recall.
//
//===----------------------------------------------------------------------===//
#include "pkb/Checker.h"
#include "pkb/Frontend.h"
#include "pkb/Ingest.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
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

class Corpus : public ::testing::TestWithParam<std::string> {};

TEST_P(Corpus, FindingsMatchAnnotations) {
  const std::string &Path = GetParam();
  Input In = readInput(Path);
  ModuleModel M;
  M.File = Path;
  M.HostOps = In.HostOps;
  FrontendOptions FO;
  FO.ForceShims = true;
  for (const CudaUnit &U : In.Units) {
    FrontendResult R = buildModels(U, FO);
    for (KernelModel &K : R.Module.Kernels)
      M.Kernels.push_back(std::move(K));
  }
  CheckOptions O;
  std::vector<Finding> Out;
  std::vector<Diagnostic> Diags;
  for (const auto &C : allCheckers())
    C->check(M, O, Out, Diags);
  std::set<Key> Got;
  std::string Dump;
  bool AnyError = false;
  for (const Finding &F : Out) {
    if (F.Sev == Severity::Note)
      continue;
    Got.insert({F.Loc.Line, F.CheckId});
    AnyError = AnyError || F.Sev == Severity::Error;
    Dump += "  " + F.CheckId + " line " + std::to_string(F.Loc.Line) + " [" +
            toString(F.Sev) + "] " + F.Message + "\n";
  }
  std::set<Key> Want = expected(Path);
  Totals &T = totals();
  ++T.Files;
  for (const Key &K : Got)
    (Want.count(K) ? T.Tp : T.Fp)++;
  for (const Key &K : Want)
    if (!Got.count(K))
      ++T.Fn;
  if (Got == Want)
    ++T.Exact;
  EXPECT_EQ(Got, Want) << Path << "\n" << Dump;
  if (Want.empty()) {
    EXPECT_FALSE(AnyError) << Path << "\n" << Dump;
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
