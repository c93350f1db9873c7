//===- EvalTest.cpp - Tests of pkbcheck eval and report -------------------===//

#include "Eval.h"
#include "Report.h"
#include "pkb/ProblemCatalogue.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>

namespace fs = std::filesystem;
using namespace pkb;
using nlohmann::json;

TEST(Eval, ProblemFromFileName) {
  auto P = problemFromFileName("outs/modelA/1_allreduce_cuda.py");
  ASSERT_TRUE(P);
  EXPECT_EQ(P->Id, 1);
  EXPECT_EQ(P->Name, "allreduce");
  P = problemFromFileName("73_whatever.cu");
  ASSERT_TRUE(P);
  EXPECT_EQ(P->Name, "vocab_parallel_cross_entropy");
  P = problemFromFileName("50_my_op_cuda.py");
  ASSERT_TRUE(P);
  EXPECT_EQ(P->Id, 50);
  EXPECT_EQ(P->Name, "my_op");
  EXPECT_FALSE(problemFromFileName("allreduce.cu"));
  EXPECT_FALSE(problemFromFileName("12.cu"));
}

TEST(ProblemCatalogue, AllParallelKernelBenchProblems) {
  auto All = problemCatalogue();
  ASSERT_EQ(All.size(), 87u);
  for (size_t I = 0; I < All.size(); ++I)
    EXPECT_EQ(All[I].Id, static_cast<int>(I) + 1);
  const CatalogueEntry *E = findCatalogueEntry("73");
  ASSERT_NE(E, nullptr);
  EXPECT_EQ(E->PkbName, "vocab_parallel_cross_entropy_loss");
  EXPECT_EQ(E->name(), "vocab_parallel_cross_entropy");
  EXPECT_FALSE(E->HasSpec);
  EXPECT_EQ(findCatalogueEntry("vocab_parallel_cross_entropy_loss"), E);
  EXPECT_EQ(findCatalogueEntry("vocab_parallel_cross_entropy"), E);
  EXPECT_TRUE(findCatalogueEntry(1)->HasSpec);
  EXPECT_EQ(findCatalogueEntry(50)->name(), "moe_ep_wide");
  EXPECT_EQ(knownProblemName(50), ""); // not ported: file names keep theirs
  EXPECT_EQ(findCatalogueEntry(0), nullptr);
  EXPECT_EQ(findCatalogueEntry(88), nullptr);
  EXPECT_EQ(findCatalogueEntry("no_such_problem"), nullptr);
}

TEST(Eval, Shard) {
  auto S = parseShard("2/4");
  ASSERT_TRUE(S);
  EXPECT_EQ(S->Index0, 1u);
  EXPECT_EQ(S->Count, 4u);
  EXPECT_FALSE(parseShard("0/4"));
  EXPECT_FALSE(parseShard("5/4"));
  EXPECT_FALSE(parseShard("x"));
}

TEST(Eval, CandidateSet) {
  EXPECT_EQ(candidateSet("outs", "outs/modelA/1_x.py"), "modelA");
  EXPECT_EQ(candidateSet("outs/", "outs/modelB/sub/2_y.cu"), "modelB");
  EXPECT_EQ(candidateSet("outs", "outs/3_z.cu"), "outs");
  EXPECT_EQ(candidateSet("dir/k.cu", "dir/k.cu"), "dir");
}

TEST(Eval, ClassifiesRuntimeVerdicts) {
  EXPECT_EQ(classifyDynamic({{"verdict", "compile-error"}}),
            EvalClass::CompileError);
  EXPECT_EQ(classifyDynamic({{"verdict", "setup-error"},
                             {"failure_kind", "load"},
                             {"detail", "undefined symbol pkb_candidate_run"}}),
            EvalClass::ApiError);
  // The class comes from the typed failure kind, never from the detail.
  EXPECT_EQ(classifyDynamic({{"verdict", "setup-error"},
                             {"failure_kind", "setup"},
                             {"detail", "dlopen symbol undefined"}}),
            EvalClass::ShapeError);
  EXPECT_EQ(classifyDynamic(
                {{"verdict", "setup-error"}, {"detail", "query returned 3"}}),
            EvalClass::ShapeError);
  EXPECT_EQ(classifyDynamic({{"verdict", "deadlock"}}), EvalClass::Deadlock);
  EXPECT_EQ(classifyDynamic({{"verdict", "api-error"}}), EvalClass::ApiError);
  EXPECT_EQ(
      classifyDynamic({{"verdict", "wrong-output"}, {"first_failing_call", 0}}),
      EvalClass::OutputMismatch);
  EXPECT_EQ(
      classifyDynamic({{"verdict", "wrong-output"}, {"first_failing_call", 2}}),
      EvalClass::CrossCallRace);
  EXPECT_EQ(classifyDynamic({{"verdict", "unwritten-output"}}),
            EvalClass::UnwrittenOutput);
  EXPECT_EQ(classifyDynamic({{"verdict", "pass"}, {"speedup", 1.5}}),
            EvalClass::CorrectFaster);
  EXPECT_EQ(classifyDynamic({{"verdict", "pass"}, {"speedup", 0.7}}),
            EvalClass::CorrectSlower);
  // A correctness-only (oversubscribed) GPU stage measures no speedup.
  EXPECT_EQ(
      classifyDynamic({{"verdict", "pass"}, {"mode", "correctness-only"}}),
      EvalClass::CorrectUntimed);
  EXPECT_EQ(classifyDynamic({{"verdict", "runtime-error"}}),
            EvalClass::RuntimeError);
  for (EvalClass C : {EvalClass::Deadlock, EvalClass::CorrectFaster})
    EXPECT_EQ(parseEvalClass(toString(C)), C);
}

namespace {
json staticRecord(const std::string &Cand, const std::string &Set,
                  const std::string &Gate, int Errors,
                  const std::string &Check = "") {
  json Findings = json::array();
  if (!Check.empty())
    Findings.push_back({{"check", Check}, {"line", 12}, {"severity", "error"}});
  return {{"schema", "pkbcheck-eval/1"},
          {"candidate", Cand},
          {"set", Set},
          {"problem", {{"id", 1}, {"name", "allreduce"}}},
          {"static",
           {{"status", "ok"}, {"errors", Errors}, {"findings", Findings}}},
          {"gate", Gate},
          {"dynamic", {{"ran", false}, {"reason", "pending"}}},
          {"stage", "static"},
          {"class", Gate == "flagged" ? "static-flagged" : "static-clean"}};
}
} // namespace

TEST(Eval, ResumeCompletesStaticRecords) {
  fs::path F = fs::temp_directory_path() / "pkb_eval_resume.jsonl";
  {
    std::ofstream O(F);
    O << staticRecord("a.cu", "m1", "pass", 0).dump() << "\n";
    O << staticRecord("b.cu", "m1", "flagged", 1, "BAR-004").dump() << "\n";
    O << "not json\n";
    O << staticRecord("c.cu", "m2", "pass", 0).dump() << "\n";
  }
  EvalOptions Opts;
  Opts.Results = F.string();
  Opts.Resume = true;
  Opts.RunAll = true;
  std::vector<std::string> Ran;
  DynamicRunner Runner = [&](const std::string &C, const ProblemRef &P) {
    Ran.push_back(C);
    EXPECT_EQ(P.Id, 1);
    if (C == "b.cu")
      return json{{"ran", true},
                  {"verdict", "wrong-output"},
                  {"first_failing_call", 1},
                  {"seconds", 4.0}};
    if (C == "a.cu")
      return json{{"ran", true},
                  {"verdict", "pass"},
                  {"speedup", 2.5},
                  {"roofline_fraction", 0.8},
                  {"seconds", 2.0}};
    return json{{"ran", true}, {"verdict", "deadlock"}, {"seconds", 12.0}};
  };
  std::ostringstream Log;
  ASSERT_EQ(runEval(Opts, Runner, "", Log), 0);
  EXPECT_EQ(Ran, (std::vector<std::string>{"a.cu", "b.cu", "c.cu"}));
  EXPECT_NE(Log.str().find(":3: warning: invalid JSON at byte "),
            std::string::npos);

  ReportData D;
  std::ostringstream RLog;
  ASSERT_TRUE(loadReport({F.string()}, D, RLog));
  ASSERT_EQ(D.Records.size(), 3u);
  EXPECT_EQ(D.Records[0].Class, "correct-faster");
  EXPECT_EQ(D.Records[1].Class, "cross-call-race");
  EXPECT_EQ(D.Records[1].ExplainedBy, std::vector<std::string>{"BAR-004@12"});
  EXPECT_EQ(D.Records[2].Class, "deadlock");
  EXPECT_EQ(D.TP, 1u); // b: flagged, failed
  EXPECT_EQ(D.FN, 1u); // c: passed gate, deadlocked
  EXPECT_EQ(D.TN, 1u); // a: passed gate, correct
  EXPECT_EQ(D.FP, 0u);
  EXPECT_DOUBLE_EQ(D.MeanRunSeconds, 6.0);
  // fast_p over all 3: only a.cu is correct, speedup 2.5.
  EXPECT_DOUBLE_EQ(D.FastP["all"][0], 1.0 / 3); // p = 0
  EXPECT_DOUBLE_EQ(D.FastP["all"][10], 0.0);    // p = 2.5
  EXPECT_DOUBLE_EQ(D.FastP["m1"][8], 0.5);      // p = 2
  EXPECT_EQ(D.Roofline["1 allreduce"], std::vector<double>{0.8});

  // A second resume has nothing left to do.
  Ran.clear();
  ASSERT_EQ(runEval(Opts, Runner, "", Log), 0);
  EXPECT_TRUE(Ran.empty());
  fs::remove(F);
}

TEST(Eval, GateKeepsFlaggedOffGpusAndCountsSavedTime) {
  fs::path F = fs::temp_directory_path() / "pkb_eval_gate.jsonl";
  {
    std::ofstream O(F);
    O << staticRecord("a.cu", "m", "pass", 0).dump() << "\n";
    O << staticRecord("b.cu", "m", "flagged", 2, "ORD-001").dump() << "\n";
  }
  EvalOptions Opts;
  Opts.Results = F.string();
  Opts.Resume = true;
  unsigned Runs = 0;
  DynamicRunner Runner = [&](const std::string &, const ProblemRef &) {
    ++Runs;
    return json{
        {"ran", true}, {"verdict", "pass"}, {"speedup", 0.5}, {"seconds", 3.0}};
  };
  std::ostringstream Log;
  ASSERT_EQ(runEval(Opts, Runner, "", Log), 0);
  EXPECT_EQ(Runs, 1u);
  ReportData D;
  ASSERT_TRUE(loadReport({F.string()}, D, Log));
  EXPECT_EQ(D.Records[0].Class, "correct-slower");
  EXPECT_EQ(D.Records[1].Class, "static-flagged");
  EXPECT_EQ(D.Gated, 1u);
  EXPECT_DOUBLE_EQ(D.GpuSecondsSaved, 3.0);

  std::ostringstream Html, Csv, Md;
  writeHtml(D, Html);
  writeCsv(D, Csv);
  writeMarkdown(D, Md);
  EXPECT_NE(Html.str().find("data-class=\"static-flagged\" data-count=\"1\""),
            std::string::npos);
  EXPECT_NE(Html.str().find("<svg id=\"fastp\""), std::string::npos);
  EXPECT_EQ(Html.str().find("http://"), Html.str().find("http://www.w3.org"));
  EXPECT_NE(Csv.str().find("a.cu,m,1,allreduce,correct-slower,pass,0,0,"
                           "0.5000,,"),
            std::string::npos);
  EXPECT_NE(Md.str().find("| static-flagged | 1 | 50.0% |"), std::string::npos);
  fs::remove(F);
}

TEST(Eval, PyCandidatesGoToThePkbRunner) {
  fs::path F = fs::temp_directory_path() / "pkb_eval_py_runner.jsonl";
  {
    std::ofstream O(F);
    O << staticRecord("1_a.py", "m1", "pass", 0).dump() << "\n";
    O << staticRecord("1_b.py", "m1", "pass", 0).dump() << "\n";
    O << staticRecord("c.cu", "m1", "pass", 0).dump() << "\n";
  }
  EvalOptions Opts;
  Opts.Results = F.string();
  Opts.Resume = true;
  std::vector<std::string> CuRan, PyRan;
  DynamicRunner Runner = [&](const std::string &C, const ProblemRef &) {
    CuRan.push_back(C);
    return json{{"ran", true}, {"verdict", "pass"}, {"seconds", 1.0}};
  };
  Opts.PkbRunner = [&](const std::string &C, const ProblemRef &P) {
    PyRan.push_back(C);
    EXPECT_EQ(P.Id, 1);
    if (C == "1_a.py")
      return json{{"ran", true}, {"verdict", "api-error"}, {"seconds", 3.0}};
    return json{{"ran", true},
                {"verdict", "wrong-output"},
                {"first_failing_call", 1},
                {"seconds", 3.0}};
  };
  std::ostringstream Log;
  ASSERT_EQ(runEval(Opts, Runner, "", Log), 0);
  EXPECT_EQ(PyRan, (std::vector<std::string>{"1_a.py", "1_b.py"}));
  EXPECT_EQ(CuRan, (std::vector<std::string>{"c.cu"}));
  ReportData D;
  std::ostringstream RLog;
  ASSERT_TRUE(loadReport({F.string()}, D, RLog));
  ASSERT_EQ(D.Records.size(), 3u);
  EXPECT_EQ(D.Records[0].Class, "api-error");
  EXPECT_EQ(D.Records[1].Class, "cross-call-race");
  fs::remove(F);
}
