//===- DriverTest.cpp - Tests of the pkbcheck driver pieces ---------------===//

#include "Commands.h"
#include "CompileDb.h"
#include "Output.h"
#include "ProcessPool.h"
#include "TestUtil.h"

#include <gtest/gtest.h>

#include <csignal>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <thread>

namespace fs = std::filesystem;
using namespace pkb;
using pkb::test::ok;

TEST(WorldSizes, ParsesSingleListAndRange) {
  std::vector<unsigned> W;
  std::string E;
  ASSERT_TRUE(ok(parseWorldSizes("4"), W, E));
  EXPECT_EQ(W, (std::vector<unsigned>{4}));
  ASSERT_TRUE(ok(parseWorldSizes("2,4,8"), W, E));
  EXPECT_EQ(W, (std::vector<unsigned>{2, 4, 8}));
  ASSERT_TRUE(ok(parseWorldSizes("2-5"), W, E));
  EXPECT_EQ(W, (std::vector<unsigned>{2, 3, 4, 5}));
  ASSERT_TRUE(ok(parseWorldSizes("2,6-7"), W, E));
  EXPECT_EQ(W, (std::vector<unsigned>{2, 6, 7}));
}

TEST(WorldSizes, RejectsMalformed) {
  std::vector<unsigned> W;
  std::string E;
  EXPECT_FALSE(ok(parseWorldSizes(""), W, E));
  EXPECT_FALSE(ok(parseWorldSizes("0"), W, E));
  EXPECT_FALSE(ok(parseWorldSizes("8-2"), W, E));
  EXPECT_FALSE(ok(parseWorldSizes("two"), W, E));
  EXPECT_FALSE(ok(parseWorldSizes("4,"), W, E));
  EXPECT_NE(E.find("invalid world size"), std::string::npos);
}

TEST(CompileDb, SplitsShellCommands) {
  EXPECT_EQ(
      CompileDb::splitCommand("nvcc -I a -DX=\"1 2\" 'b c' d\\ e"),
      (std::vector<std::string>{"nvcc", "-I", "a", "-DX=1 2", "b c", "d e"}));
}

TEST(CompileDb, KeepsParserFlagsOnly) {
  auto F = CompileDb::filterFlags(
      {"/usr/local/cuda/bin/nvcc", "-I", "inc", "-Iabs/x", "-isystem", "/sys",
       "-DFOO=1", "-D", "BAR", "--define-macro=BAZ", "-O3", "-std=c++17",
       "-arch=sm_90a", "-c", "k.cu", "-o", "k.o", "--include-path=p2"},
      "/build");
  EXPECT_EQ(
      F, (std::vector<std::string>{"-I", "/build/inc", "-I", "/build/abs/x",
                                   "-isystem", "/sys", "-DFOO=1", "-DBAR",
                                   "-DBAZ", "-std=c++17", "-I", "/build/p2"}));
}

TEST(CompileDb, LoadsEntriesAndReportsBadJson) {
  fs::path Dir = fs::temp_directory_path() / "pkb_cdb_test";
  fs::create_directories(Dir);
  {
    std::ofstream(Dir / "compile_commands.json")
        << R"([{"directory": ")" << Dir.string()
        << R"(", "file": "k.cu", "command": "nvcc -Iinc -DX -c k.cu"}])";
  }
  std::vector<Diagnostic> Diags;
  auto Db = CompileDb::load(Dir.string(), Diags);
  ASSERT_TRUE(Db.has_value());
  auto Flags = Db->flagsFor((Dir / "k.cu").string());
  ASSERT_TRUE(Flags.has_value());
  EXPECT_EQ(*Flags,
            (std::vector<std::string>{"-I", (Dir / "inc").string(), "-DX"}));
  EXPECT_FALSE(Db->flagsFor((Dir / "other.cu").string()).has_value());

  {
    std::ofstream(Dir / "compile_commands.json") << "[\n{\"file\": \n";
  }
  Diags.clear();
  EXPECT_FALSE(CompileDb::load(Dir.string(), Diags).has_value());
  ASSERT_EQ(Diags.size(), 1u);
  EXPECT_EQ(Diags[0].Loc.Line, 3u);
  fs::remove_all(Dir);
}

namespace {
FileReport okReport(const std::string &P) {
  FileReport R;
  R.Path = P;
  R.Kernels = 1;
  Finding F;
  F.CheckId = "ORD-001";
  F.Sev = Severity::Error;
  F.Loc = SourceLoc{P, 7, 3};
  F.Message = "m";
  F.Witness["W"] = "2";
  R.Findings.push_back(F);
  return R;
}
} // namespace

TEST(ProcessPool, ContainsCrashesAndTimeouts) {
  std::vector<std::string> Paths = {"ok.cu", "crash.cu", "hang.cu", "ok2.cu"};
  PoolOptions PO;
  PO.Jobs = 2;
  PO.TimeoutSeconds = 1.0;
  std::map<std::string, FileReport> Got;
  runInChildren(
      Paths, PO,
      [](const std::string &P) -> FileReport {
        if (P == "crash.cu")
          std::raise(SIGSEGV);
        if (P == "hang.cu")
          std::this_thread::sleep_for(std::chrono::seconds(30));
        return okReport(P);
      },
      [&](size_t I, FileReport R) { Got[Paths[I]] = std::move(R); });
  ASSERT_EQ(Got.size(), 4u);
  EXPECT_EQ(Got["ok.cu"].Status, "ok");
  ASSERT_EQ(Got["ok.cu"].Findings.size(), 1u);
  EXPECT_EQ(Got["ok.cu"].Findings[0].Loc.Line, 7u);
  EXPECT_EQ(Got["ok.cu"].Findings[0].Witness.at("W"), "2");
  EXPECT_EQ(Got["crash.cu"].Status, "crash");
  EXPECT_EQ(Got["crash.cu"].Diags.at(0).Code, "frontend-crash");
  EXPECT_EQ(Got["hang.cu"].Status, "timeout");
  EXPECT_EQ(Got["hang.cu"].Diags.at(0).Code, "timeout");
  EXPECT_EQ(Got["ok2.cu"].Status, "ok");
}

TEST(Output, SarifNamesRulesAndResults) {
  std::ostringstream OS;
  auto W = makeWriter("sarif", OS,
                      {CheckInfo{"ORD-001", "missing-release", "summary",
                                 "docs/checkers.md#ord-001"}});
  ASSERT_TRUE(W);
  W->begin();
  W->file(okReport("k.cu"));
  CheckSummary S;
  S.Files = 1;
  W->end(S);
  auto J = nlohmann::json::parse(OS.str());
  EXPECT_EQ(J["version"], "2.1.0");
  const auto &Run = J["runs"][0];
  EXPECT_EQ(Run["tool"]["driver"]["rules"][0]["id"], "ORD-001");
  EXPECT_EQ(Run["tool"]["driver"]["rules"][0]["helpUri"],
            defaultDocsUrl() + "#ord-001");
  EXPECT_EQ(Run["results"][0]["ruleId"], "ORD-001");
  EXPECT_EQ(Run["results"][0]["ruleIndex"], 0);
  EXPECT_EQ(Run["results"][0]["level"], "error");
  EXPECT_EQ(Run["results"][0]["locations"][0]["physicalLocation"]["region"]
               ["startLine"],
            7);
}

TEST(Output, JsonIsValidAndCounts) {
  std::ostringstream OS;
  auto W = makeWriter("json", OS, {});
  W->begin();
  W->file(okReport("a.cu"));
  W->file(okReport("b.cu"));
  CheckSummary S;
  S.Files = 2;
  S.Errors = 2;
  W->end(S);
  auto J = nlohmann::json::parse(OS.str());
  EXPECT_EQ(J["files"].size(), 2u);
  EXPECT_EQ(J["summary"]["errors"], 2);
  EXPECT_EQ(J["files"][1]["file"], "b.cu");
  EXPECT_EQ(makeWriter("xml", OS, {}), nullptr);
}

TEST(Findings, MergeInstantiationsKeepsOnePerLocation) {
  auto Make = [](const char *Kernel, unsigned Line, Severity Sev) {
    Finding F;
    F.CheckId = "PART-001";
    F.Kernel = Kernel;
    F.Loc = SourceLoc{"k.cu", Line, 3};
    F.Sev = Sev;
    F.Message = std::string("in ") + Kernel;
    return F;
  };
  std::vector<Finding> Fs = {
      Make("f<1>", 10, Severity::Warning), Make("f<2>", 10, Severity::Error),
      Make("f<1>", 12, Severity::Warning), Make("f<4>", 10, Severity::Warning)};
  mergeInstantiations(Fs);
  ASSERT_EQ(Fs.size(), 2u);
  EXPECT_EQ(Fs[0].Loc.Line, 10u);
  EXPECT_EQ(Fs[0].Sev, Severity::Error) << "the strongest verdict is kept";
  EXPECT_EQ(Fs[0].Kernel, "f<2>");
  EXPECT_EQ(Fs[0].AlsoIn, (std::vector<std::string>{"f<1>", "f<4>"}));
  EXPECT_EQ(Fs[1].Loc.Line, 12u);
  EXPECT_TRUE(Fs[1].AlsoIn.empty());
}

TEST(Findings, DedupeDiagnostics) {
  Diagnostic D{"solver-unknown", Severity::Note, SourceLoc{"k.cu", 3, 1}, "m"};
  std::vector<Diagnostic> Ds = {D, D, D};
  Ds[2].Loc.Line = 4;
  dedupeDiagnostics(Ds);
  EXPECT_EQ(Ds.size(), 2u);
}

TEST(ExitStatus, InputErrorsThenFindingsThenUndecided) {
  CheckSummary S;
  EXPECT_EQ(exitStatus(S), 0);
  S.NotChecked = 1;
  EXPECT_EQ(exitStatus(S), 3);
  S.Errors = 1;
  EXPECT_EQ(exitStatus(S), 1);
  S.InputErrors = 1;
  EXPECT_EQ(exitStatus(S), 2);
}

TEST(ProcessPool, TimeoutKeepsTheFindingsOfFinishedChecks) {
  PoolOptions PO;
  PO.TimeoutSeconds = 1;
  std::vector<FileReport> Got;
  runInChildren(
      {"slow.cu"}, PO,
      [](const std::string &P) {
        FileReport Part;
        Part.Path = P;
        Part.Kernels = 2;
        Finding F;
        F.CheckId = "ORD-001";
        F.Sev = Severity::Error;
        F.Kernel = "k1";
        F.Loc = SourceLoc{P, 7, 3};
        F.Message = "signal before write";
        Part.Findings.push_back(F);
        emitAnalysisProgress({{"kind", "progress"}, {"phase", "frontend"}});
        emitAnalysisProgress({{"kind", "partial"},
                              {"checks_done", 3},
                              {"report", toJson(Part)}});
        emitAnalysisProgress({{"kind", "progress"},
                              {"phase", "check"},
                              {"check", "BAR-002"},
                              {"kernel", "k2"}});
        std::this_thread::sleep_for(std::chrono::seconds(30));
        return Part;
      },
      [&](size_t, FileReport R) { Got.push_back(std::move(R)); });
  ASSERT_EQ(Got.size(), 1u);
  const FileReport &R = Got[0];
  EXPECT_EQ(R.Status, "timeout");
  ASSERT_EQ(R.Findings.size(), 1u);
  EXPECT_EQ(R.Findings[0].CheckId, "ORD-001");
  EXPECT_EQ(R.Findings[0].Loc.Line, 7u);
  EXPECT_EQ(R.Kernels, 2u);
  ASSERT_FALSE(R.Diags.empty());
  EXPECT_EQ(R.Diags[0].Code, "timeout");
  EXPECT_NE(R.Diags[0].Message.find("while BAR-002 checked kernel 'k2'"),
            std::string::npos)
      << R.Diags[0].Message;
  EXPECT_NE(R.Diags[0].Message.find("the findings of the 3 check(s)"),
            std::string::npos)
      << R.Diags[0].Message;
}

TEST(ProcessPool, WorkersThatKeepTheirSolverContextsReportTheSame) {
  // runInChildren's workers leave the check contexts to their exit
  // (keepCheckContextsUntilExit); the report must be the one an analysis
  // in this process gives, which destroys them.
  const std::string File =
      PKB_SOURCE_DIR "/kernels/corpus/buggy/sig001_02_rawptr.cu";
  AnalyzeOptions O;
  O.WorldSizes = {2, 3};
  auto Stable = [](const FileReport &R) {
    nlohmann::json J = toJson(R);
    for (const char *K : {"seconds", "phases", "peak_rss_mib"})
      J.erase(K);
    return J;
  };
  FileReport Here = analyzeFile(File, O);
  ASSERT_EQ(Here.Status, "ok");
  ASSERT_FALSE(Here.Findings.empty());
  std::vector<FileReport> Got;
  runInChildren(
      {File}, PoolOptions{},
      [&](const std::string &P) { return analyzeFile(P, O); },
      [&](size_t, FileReport R) { Got.push_back(std::move(R)); });
  ASSERT_EQ(Got.size(), 1u);
  EXPECT_EQ(Stable(Got[0]), Stable(Here));
}
