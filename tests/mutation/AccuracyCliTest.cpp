//===- AccuracyCliTest.cpp - pkb_accuracy on a tiny fixed corpus subset ---===//
//
// Runs `pkb_accuracy corpus --json` on three corpus files (two buggy, one
// correct) and checks that every number in the JSON is computed correctly
// from the annotations and the reported findings it lists. The checkers'
// verdicts themselves are not asserted (tests/corpus does that), nor are
// timings. Also checks `pkb_accuracy mutate --list` against findMutants.
//
//===----------------------------------------------------------------------===//
#include "Mutation.h"
#include "Scoring.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <unistd.h>

using namespace pkb::accuracy;
namespace fs = std::filesystem;

namespace {

std::string readText(const fs::path &P) {
  std::ifstream In(P, std::ios::binary);
  std::ostringstream S;
  S << In.rdbuf();
  return S.str();
}

fs::path corpus(const std::string &Rel) {
  return fs::path(PKB_SOURCE_DIR) / "kernels/corpus" / Rel;
}

std::set<Key> keys(const nlohmann::json &A) {
  std::set<Key> R;
  for (const nlohmann::json &K : A)
    R.insert({K.at("line").get<unsigned>(), K.at("id").get<std::string>()});
  return R;
}

fs::path tempPath(const std::string &Name) {
  return fs::temp_directory_path() /
         ("pkb_accuracy_test_" + std::to_string(::getpid()) + "_" + Name);
}

TEST(AccuracyCli, CorpusNumbersAreConsistent) {
  std::vector<fs::path> Files = {
      corpus("buggy/part001_01_rawptr.cu"), corpus("buggy/host001_01_pkb.py"),
      corpus("correct/c03_allgather_push_rawptr.cu")};
  fs::path Json = tempPath("corpus.json"), Log = tempPath("corpus.log");
  std::string Cmd =
      std::string(PKB_ACCURACY_BIN) + " corpus -j 2 --json " + Json.string();
  for (const fs::path &F : Files)
    Cmd += " " + F.string();
  Cmd += " > " + Log.string() + " 2>&1";
  ASSERT_EQ(std::system(Cmd.c_str()), 0) << readText(Log);
  nlohmann::json J = nlohmann::json::parse(readText(Json));
  std::string Out = readText(Log);
  fs::remove(Json);
  fs::remove(Log);

  ASSERT_EQ(J.at("file_count"), 3);
  ASSERT_EQ(J.at("files").size(), 3u);
  size_t Tp = 0, Fp = 0, Fn = 0, Exact = 0, Correct = 0, Alarms = 0;
  std::map<std::string, std::array<size_t, 3>> PerId;
  for (const nlohmann::json &F : J.at("files")) {
    fs::path P = F.at("file").get<std::string>();
    std::set<Key> Want = keys(F.at("expected")), Got = keys(F.at("reported"));
    EXPECT_EQ(Want, readAnnotations(readText(P))) << P;
    size_t T = 0, FP = 0, FN = 0;
    for (const Key &K : Got) {
      (Want.count(K) ? T : FP)++;
      PerId[K.second][Want.count(K) ? 0 : 1]++;
    }
    for (const Key &K : Want)
      if (!Got.count(K)) {
        ++FN;
        PerId[K.second][2]++;
      }
    EXPECT_EQ(F.at("counts").at("tp"), T) << P;
    EXPECT_EQ(F.at("counts").at("fp"), FP) << P;
    EXPECT_EQ(F.at("counts").at("fn"), FN) << P;
    EXPECT_EQ(F.at("exact").get<bool>(), Want == Got) << P;
    EXPECT_EQ(F.at("status"), "ok") << P;
    Tp += T;
    Fp += FP;
    Fn += FN;
    Exact += Want == Got;
    if (Want.empty()) {
      ++Correct;
      Alarms += F.at("error_findings").get<size_t>();
    }
  }
  EXPECT_EQ(Correct, 1u);
  EXPECT_EQ(J.at("correct_files"), Correct);
  EXPECT_EQ(J.at("false_alarms"), Alarms);
  EXPECT_EQ(J.at("exact"), Exact);
  const nlohmann::json &Tot = J.at("total");
  EXPECT_EQ(Tot.at("tp"), Tp);
  EXPECT_EQ(Tot.at("fp"), Fp);
  EXPECT_EQ(Tot.at("fn"), Fn);
  EXPECT_EQ(Tp + Fn, 2u); // the two buggy files carry one annotation each
  double Precision = Tp + Fp ? double(Tp) / double(Tp + Fp) : 1.0;
  double Recall = Tp + Fn ? double(Tp) / double(Tp + Fn) : 1.0;
  EXPECT_DOUBLE_EQ(Tot.at("precision").get<double>(), Precision);
  EXPECT_DOUBLE_EQ(Tot.at("recall").get<double>(), Recall);
  EXPECT_EQ(J.at("per_id").size(), PerId.size());
  for (const auto &[Id, C] : PerId) {
    const nlohmann::json &P = J.at("per_id").at(Id);
    EXPECT_EQ(P.at("tp"), C[0]) << Id;
    EXPECT_EQ(P.at("fp"), C[1]) << Id;
    EXPECT_EQ(P.at("fn"), C[2]) << Id;
  }
  // The printed summary carries the same totals.
  char Line[128];
  std::snprintf(Line, sizeof(Line), "corpus: precision %.3f recall %.3f",
                Precision, Recall);
  EXPECT_NE(Out.find(Line), std::string::npos) << Out;
}

TEST(AccuracyCli, MutateListMatchesFindMutants) {
  fs::path File = corpus("correct/c08_ring_shift_rawptr.cu");
  fs::path Log = tempPath("list.log");
  std::string Cmd = std::string(PKB_ACCURACY_BIN) +
                    " mutate --list --operators drop-fence,drop-mod-world " +
                    File.string() + " > " + Log.string() + " 2>&1";
  ASSERT_EQ(std::system(Cmd.c_str()), 0) << readText(Log);
  std::string Out = readText(Log);
  fs::remove(Log);
  auto Ms = pkb::mutation::findMutants(
      readText(File), false,
      {pkb::mutation::Op::DropFence, pkb::mutation::Op::DropModWorld});
  EXPECT_FALSE(Ms.empty());
  for (const pkb::mutation::Mutant &M : Ms) {
    std::string Key = "c08_ring_shift_rawptr.cu:" + std::to_string(M.Line) +
                      ":" + std::to_string(M.Col) + ":" +
                      pkb::mutation::info(M.Kind).Name;
    EXPECT_NE(Out.find(Key), std::string::npos) << Key << "\n" << Out;
  }
  EXPECT_NE(Out.find(std::to_string(Ms.size()) + " mutants"), std::string::npos)
      << Out;
}

} // namespace
