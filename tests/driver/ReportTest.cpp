//===- ReportTest.cpp - pkbcheck report: models side by side --------------===//
//
// Two synthetic models' eval records (written with the typed EvalRecord
// writer) are read back by loadReport, and the model comparison's numbers
// (correct rate, fast_p at KernelBench's thresholds, failure classes with
// their explaining checks, the per-problem rows) are asserted in ReportData
// and in the Markdown, HTML and JSON outputs.
//
//===----------------------------------------------------------------------===//

#include "Report.h"
#include "Records.h"
#include "TestUtil.h"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>

namespace fs = std::filesystem;
using nlohmann::json;
using namespace pkb;

namespace {

fs::path tempDir(const std::string &Name) {
  return test::freshTempDir("pkb_report_" + Name);
}

/// A final record of problem \p Id for model \p Set.
EvalRecord record(const std::string &Set, int Id, const std::string &Name,
                  const std::string &Class, std::optional<double> Speedup,
                  std::vector<std::string> ExplainedBy = {}) {
  EvalRecord R;
  R.Candidate = fmt::format("{}_{}_cuda.py", Id, Name);
  R.Set = Set;
  R.Problem = ProblemRef{Id, Name};
  R.Gate = ExplainedBy.empty() ? "pass" : "flagged";
  R.Stage = "final";
  R.Class = Class;
  R.ExplainedBy = std::move(ExplainedBy);
  R.Dynamic.Ran = Class != "static-flagged";
  R.Dynamic.Speedup = Speedup;
  return R;
}

std::vector<EvalRecord> modelA() {
  return {record("solutions_modelA", 1, "allreduce", "correct-faster", 1.6),
          record("solutions_modelA", 2, "allgather", "correct-slower", 0.9),
          record("solutions_modelA", 3, "broadcast", "cross-call-race",
                 std::nullopt, {"BAR-004@12"}),
          record("solutions_modelA", 4, "alltoall", "correct-faster", 2.5)};
}

std::vector<EvalRecord> modelB() {
  return {
      record("solutions_modelB", 1, "allreduce", "deadlock", std::nullopt,
             {"SYNC-001@5", "SYNC-001@9", "BAR-004@3"}),
      record("solutions_modelB", 2, "allgather", "correct-faster", 1.2),
      record("solutions_modelB", 3, "broadcast", "static-flagged", std::nullopt,
             {"ORD-001@7"}),
      record("solutions_modelB", 5, "reduce", "correct-untimed", std::nullopt)};
}

void writeJsonl(const fs::path &F, const std::vector<EvalRecord> &Records) {
  std::ofstream O(F);
  for (const EvalRecord &R : Records)
    O << toJson(R).dump() << "\n";
}

const ModelSummary *model(const ReportData &D, const std::string &Name) {
  for (const ModelSummary &M : D.Models)
    if (M.Name == Name)
      return &M;
  return nullptr;
}

/// The numbers of the two models, whatever way they were read.
void expectTwoModels(const ReportData &D, const std::string &A,
                     const std::string &B) {
  ASSERT_EQ(D.Models.size(), 2u);
  ASSERT_EQ(D.ModelP, (std::vector<double>{0, 0.5, 0.8, 1, 1.5, 2}));
  const ModelSummary *MA = model(D, A), *MB = model(D, B);
  ASSERT_TRUE(MA && MB);
  EXPECT_EQ(MA->Candidates, 4u);
  EXPECT_EQ(MA->Correct, 3u);
  EXPECT_DOUBLE_EQ(MA->CorrectRate, 0.75);
  // Speedups 1.6, 0.9, 2.5 of 4 candidates.
  EXPECT_EQ(MA->FastP, (std::vector<double>{0.75, 0.75, 0.75, 0.5, 0.5, 0.25}));
  EXPECT_EQ(MB->Candidates, 4u);
  EXPECT_EQ(MB->Correct, 2u); // correct-untimed counts as correct ...
  EXPECT_DOUBLE_EQ(MB->CorrectRate, 0.5);
  // ... but has no speedup, so only the 1.2x one is fast.
  EXPECT_EQ(MB->FastP, (std::vector<double>{0.25, 0.25, 0.25, 0.25, 0, 0}));
  EXPECT_EQ(MA->Classes.at("cross-call-race"), 1u);
  EXPECT_EQ(MA->ExplainedBy.at("cross-call-race").at("BAR-004"), 1u);
  EXPECT_EQ(MB->Classes.at("deadlock"), 1u);
  // One count per candidate and check, however many findings it has.
  EXPECT_EQ(MB->ExplainedBy.at("deadlock"),
            (std::map<std::string, unsigned>{{"BAR-004", 1}, {"SYNC-001", 1}}));
  EXPECT_EQ(MB->ExplainedBy.at("static-flagged").at("ORD-001"), 1u);
  EXPECT_EQ(MA->ExplainedBy.count("correct-faster"), 0u);

  // One row per problem, ordered by id; problem 1 of both models although
  // the candidates share a file name.
  ASSERT_EQ(D.ProblemsByModel.size(), 5u);
  auto It = D.ProblemsByModel.begin();
  EXPECT_EQ(It->first.Id, 1);
  EXPECT_EQ(It->second.at(A).at(0).Class, "correct-faster");
  EXPECT_EQ(It->second.at(A).at(0).Speedup, 1.6);
  EXPECT_EQ(It->second.at(B).at(0).Class, "deadlock");
  EXPECT_EQ(std::prev(D.ProblemsByModel.end())->first.Id, 5);
  EXPECT_EQ(D.ProblemsByModel.at(ProblemKey{4, "alltoall"}).count(B), 0u);
}

} // namespace

TEST(ReportModels, OneModelPerInputFile) {
  fs::path D = tempDir("per-file");
  // Two models whose candidates have the same file names.
  writeJsonl(D / "solutions_modelA.jsonl", modelA());
  auto B = modelB();
  for (EvalRecord &R : B)
    R.Set = "default"; // replaced by the input's name
  writeJsonl(D / "solutions_modelB.eval.jsonl", B);
  ReportData Data;
  std::ostringstream Log;
  ASSERT_TRUE(loadReport({(D / "solutions_modelA.jsonl").string(),
                          (D / "solutions_modelB.eval.jsonl").string()},
                         Data, Log, ReportOptions{true}));
  EXPECT_EQ(Log.str(), "");
  EXPECT_EQ(Data.Records.size(), 8u);
  expectTwoModels(Data, "solutions_modelA", "solutions_modelB");

  // Merged (the default), the same-named candidates of the two files are one
  // candidate: the last record wins.
  ReportData Merged;
  ASSERT_TRUE(loadReport({(D / "solutions_modelA.jsonl").string(),
                          (D / "solutions_modelB.eval.jsonl").string()},
                         Merged, Log));
  EXPECT_EQ(Merged.Records.size(), 5u);
  fs::remove_all(D);
}

TEST(ReportModels, ModelIsTheCandidateSetOrTheDirectory) {
  fs::path D = tempDir("sets");
  // One eval over outputs/{solutions_modelA,solutions_modelB}: the sets.
  std::vector<EvalRecord> All = modelA();
  for (EvalRecord &R : modelB()) {
    R.Candidate = "solutions_modelB/" + R.Candidate;
    All.push_back(R);
  }
  for (EvalRecord &R : All)
    if (R.Set == "solutions_modelA")
      R.Candidate = "solutions_modelA/" + R.Candidate;
  fs::create_directories(D / "run1");
  writeJsonl(D / "run1" / "shard0.jsonl",
             std::vector<EvalRecord>(All.begin(), All.begin() + 3));
  writeJsonl(D / "run1" / "shard1.jsonl",
             std::vector<EvalRecord>(All.begin() + 3, All.end()));
  // Case logs next to the results are no eval records and are not read.
  std::ofstream(D / "run1" / "shard0.pkb-cases.jsonl") << "{\"x\": 1}\n";
  ReportData Data;
  std::ostringstream Log;
  ASSERT_TRUE(loadReport({(D / "run1").string()}, Data, Log));
  EXPECT_EQ(Log.str(), "");
  expectTwoModels(Data, "solutions_modelA", "solutions_modelB");

  // The directory as one model.
  ReportData One;
  ASSERT_TRUE(loadReport({(D / "run1/").string()}, One, Log, {true}));
  ASSERT_EQ(One.Models.size(), 1u);
  EXPECT_EQ(One.Models[0].Name, "run1");
  EXPECT_EQ(One.Models[0].Candidates, 8u);
  EXPECT_DOUBLE_EQ(One.Models[0].CorrectRate, 5.0 / 8);
  fs::remove_all(D);
}

TEST(ReportModels, EveryFormatShowsTheComparison) {
  ReportData Data;
  for (auto *F : {&modelA, &modelB})
    for (EvalRecord &R : F())
      Data.Records.push_back(R);
  summarizeReport(Data);
  expectTwoModels(Data, "solutions_modelA", "solutions_modelB");

  std::ostringstream Md, Html, Js;
  writeMarkdown(Data, Md);
  writeHtml(Data, Html);
  writeJson(Data, Js);
  EXPECT_NE(Md.str().find("| solutions_modelA | 4 | 3 | 0.750 | 0.750 | "
                          "0.750 | 0.750 | 0.500 | 0.500 | 0.250 |"),
            std::string::npos)
      << Md.str();
  EXPECT_NE(Md.str().find("| deadlock | 0 | 1 (BAR-004: 1, SYNC-001: 1) |"),
            std::string::npos)
      << Md.str();
  EXPECT_NE(Md.str().find("| 1 allreduce | correct-faster 1.60x | deadlock |"),
            std::string::npos);
  EXPECT_NE(Md.str().find("| 4 alltoall | correct-faster 2.50x | - |"),
            std::string::npos);
  EXPECT_NE(Html.str().find("<tr data-model=\"solutions_modelB\"><td>"
                            "solutions_modelB</td><td>4</td><td>2</td><td "
                            "data-correct-rate=\"0.5000\">"),
            std::string::npos)
      << Html.str();
  EXPECT_NE(Html.str().find("data-p=\"0.8\" data-fast=\"0.7500\""),
            std::string::npos);
  EXPECT_NE(Html.str().find("data-model=\"solutions_modelA\" "
                            "data-class=\"cross-call-race\" data-count=\"1\">"
                            "1 (BAR-004: 1)</td>"),
            std::string::npos);

  json J = json::parse(Js.str());
  EXPECT_EQ(J["schema"], "pkbcheck-report/1");
  EXPECT_EQ(J["candidates"], 8);
  ASSERT_EQ(J["models"].size(), 2u);
  const json &A = J["models"][0];
  EXPECT_EQ(A["name"], "solutions_modelA");
  EXPECT_EQ(A["correct"], 3);
  EXPECT_DOUBLE_EQ(A["correct_rate"].get<double>(), 0.75);
  EXPECT_EQ(A["fast_p"][5], (json{{"p", 2.0}, {"fast", 0.25}}));
  EXPECT_EQ(J["models"][1]["classes"]["deadlock"],
            (json{{"count", 1},
                  {"explained_by", {{"BAR-004", 1}, {"SYNC-001", 1}}}}));
  ASSERT_EQ(J["problems"].size(), 5u);
  EXPECT_EQ(J["problems"][0]["id"], 1);
  EXPECT_EQ(J["problems"][0]["models"]["solutions_modelA"][0]["speedup"], 1.6);
  EXPECT_EQ(J["problems"][4]["models"].count("solutions_modelA"), 0u);
}
