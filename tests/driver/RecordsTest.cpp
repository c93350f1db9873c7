//===- RecordsTest.cpp - Robust reading and appending of eval records -----===//
//
// Results files (JSONL, schema pkbcheck-eval/1) must never take a reader
// down: wrong-typed fields are skipped with FILE:LINE warnings, and a
// truncated last line never swallows the next record.
//
//===----------------------------------------------------------------------===//

#include "Records.h"
#include "Eval.h"
#include "Report.h"
#include "TestUtil.h"

#include <gtest/gtest.h>

#include <array>
#include <csignal>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

namespace fs = std::filesystem;
using namespace pkb;
using nlohmann::json;
using pkb::test::errorOf;

namespace {

/// A complete, valid record as `eval` writes it.
json goodRecord(const std::string &Cand = "outs/m/1_allreduce_cuda.cu") {
  return {{"schema", "pkbcheck-eval/1"},
          {"candidate", Cand},
          {"set", "m"},
          {"problem", {{"id", 1}, {"name", "allreduce"}}},
          {"static",
           {{"status", "ok"},
            {"kernels", 1},
            {"seconds", 0.4},
            {"errors", 1},
            {"warnings", 0},
            {"findings",
             json::array({{{"check", "BAR-004"},
                           {"severity", "error"},
                           {"line", 12},
                           {"col", 3},
                           {"related",
                            json::array({{{"role", "signal"}, {"line", 10}}})},
                           {"witness", {{"W", "2"}}}}})},
            {"diagnostics", json::array()}}},
          {"gate", "flagged"},
          {"dynamic",
           {{"ran", true},
            {"verdict", "wrong-output"},
            {"speedup", nullptr}, // NaN is written as null
            {"seconds", 3.5},
            {"first_failing_call", 1}}},
          {"stage", "final"},
          {"class", "cross-call-race"},
          {"explained_by", json::array({"BAR-004@12"})}};
}

/// A unique empty temporary directory for one test.
fs::path tempDir(const std::string &Name) {
  return test::freshTempDir("pkb_records_" + Name);
}

} // namespace

TEST(EvalRecord, JsonRoundTrip) {
  // A record as eval writes it comes back field for field.
  json J = goodRecord();
  EvalRecord R = evalRecordFromJson(J);
  EXPECT_EQ(R.Candidate, "outs/m/1_allreduce_cuda.cu");
  EXPECT_EQ(R.Set, "m");
  ASSERT_TRUE(R.Problem);
  EXPECT_EQ(R.Problem->Id, 1);
  EXPECT_EQ(R.Problem->Name, "allreduce");
  EXPECT_EQ(R.Gate, "flagged");
  EXPECT_EQ(R.Stage, "final");
  EXPECT_EQ(R.Class, "cross-call-race");
  EXPECT_EQ(R.ExplainedBy, std::vector<std::string>{"BAR-004@12"});
  EXPECT_TRUE(R.Dynamic.Ran);
  EXPECT_EQ(R.Dynamic.Verdict, "wrong-output");
  EXPECT_FALSE(R.Dynamic.Speedup); // null: NaN
  EXPECT_EQ(R.Dynamic.Seconds, 3.5);
  EXPECT_EQ(R.Dynamic.FirstFailingCall, 1);
  EXPECT_EQ(R.Static["errors"], 1);
  EXPECT_EQ(toJson(R), J);

  // Unknown fields, empty strings and a pending dynamic part survive too.
  J["extra_field"] = {{"a", 1}};
  J["problem"] = nullptr;
  J["dynamic"] = {
      {"ran", false}, {"reason", "pending"}, {"detail", ""}, {"future", true}};
  R = evalRecordFromJson(J);
  EXPECT_FALSE(R.Problem);
  EXPECT_FALSE(R.Dynamic.Ran);
  EXPECT_EQ(R.Dynamic.Reason, "pending");
  EXPECT_EQ(toJson(R), J);

  // Built from fields: the JSON validates and reads back the same.
  EvalRecord B;
  B.Candidate = "x/2_allgather.cu";
  B.Problem = ProblemRef{2, "allgather"};
  B.Gate = "pass";
  B.Stage = "final";
  B.Class = "correct-faster";
  B.Dynamic.Ran = true;
  B.Dynamic.Verdict = "pass";
  B.Dynamic.FailureKind = "none";
  B.Dynamic.Speedup = 1.25;
  B.Dynamic.Cases = json::array({{{"size", 1024}, {"verdict", "pass"}}});
  json BJ = toJson(B);
  auto Valid = validateEvalRecord(BJ);
  EXPECT_TRUE(Valid) << errorOf(Valid);
  EXPECT_EQ(BJ["schema"], "pkbcheck-eval/1");
  EXPECT_EQ(BJ["dynamic"]["speedup"], 1.25);
  EXPECT_EQ(toJson(evalRecordFromJson(BJ)), BJ);
  EXPECT_EQ(classifyRun(B.Dynamic), EvalClass::CorrectFaster);
}

namespace {

std::string why(const json &Record) {
  auto P = parseEvalRecord(Record.dump());
  EXPECT_FALSE(P) << Record.dump();
  return errorOf(P);
}

} // namespace

TEST(Records, ValidRecordRoundTrips) {
  json R = goodRecord();
  auto P = parseEvalRecord(R.dump());
  ASSERT_TRUE(P) << errorOf(P);
  EXPECT_EQ(*P, R);

  fs::path D = tempDir("roundtrip");
  fs::path F = D / "r.jsonl";
  {
    JsonlAppender A;
    auto Opened = A.open(F.string());
    ASSERT_TRUE(Opened) << errorOf(Opened);
    auto First = A.append(R);
    ASSERT_TRUE(First) << errorOf(First);
    auto Second = A.append(goodRecord("b.cu"));
    ASSERT_TRUE(Second) << errorOf(Second);
  }
  std::vector<json> Out;
  std::ostringstream Log;
  ASSERT_TRUE(readEvalRecords(F.string(), Out, Log));
  EXPECT_EQ(Log.str(), "");
  ASSERT_EQ(Out.size(), 2u);
  EXPECT_EQ(Out[0], R);
  EXPECT_EQ(Out[1]["candidate"], "b.cu");
  fs::remove_all(D);
}

TEST(Records, WrongTypesNameTheField) {
  json R = goodRecord();
  R["class"] = 3;
  EXPECT_EQ(why(R), "field 'class' is an integer, expected a string");
  R = goodRecord();
  R["candidate"] = 5;
  EXPECT_EQ(why(R), "field 'candidate' is an integer, expected a string");
  R = goodRecord();
  R["dynamic"] = "x";
  EXPECT_EQ(why(R), "field 'dynamic' is a string, expected an object");
  R = goodRecord();
  R["static"]["findings"] = 7;
  EXPECT_EQ(why(R), "field 'static.findings' is an integer, expected an array");
  R = goodRecord();
  R["problem"] = {{"id", "a"}};
  EXPECT_EQ(why(R), "field 'problem.id' is a string, expected an integer");
  R = goodRecord();
  R["problem"] = {{"id", 4}};
  EXPECT_EQ(why(R), "field 'problem.name' is missing");
  R = goodRecord();
  R["dynamic"]["speedup"] = "fast";
  EXPECT_EQ(why(R), "field 'dynamic.speedup' is a string, expected a number "
                    "or null");
  R = goodRecord();
  R["static"]["findings"][0]["line"] = 1e300;
  EXPECT_EQ(why(R), "field 'static.findings[0].line' is a fractional number, "
                    "expected an integer");
  R = goodRecord();
  R["static"]["findings"][0]["related"][0]["line"] = 1ll << 40;
  EXPECT_EQ(why(R).rfind("field 'static.findings[0].related[0].line' is an "
                         "integer out of range",
                         0),
            0u);
  R = goodRecord();
  R["explained_by"] = json::array({"A@1", 2});
  EXPECT_EQ(why(R), "field 'explained_by[1]' is an integer, expected a string");
  R = goodRecord();
  R.erase("static");
  EXPECT_EQ(why(R), "field 'static' is missing");
  R = goodRecord();
  R["schema"] = "pkbcheck-eval/2";
  EXPECT_EQ(why(R), "schema 'pkbcheck-eval/2' is not pkbcheck-eval/1");

  auto P = parseEvalRecord("[1, 2]");
  EXPECT_FALSE(P);
  EXPECT_EQ(errorOf(P), "not a JSON object");
  P = parseEvalRecord("{\"candidate\": \"a.cu\", \"sta");
  EXPECT_FALSE(P);
  EXPECT_NE(errorOf(P).find("truncated"), std::string::npos) << errorOf(P);
  P = parseEvalRecord(std::string(100000, '['));
  EXPECT_FALSE(P);
  EXPECT_EQ(errorOf(P), "JSON nested deeper than 128 levels");
  // Unknown fields are allowed, null problem too.
  R = goodRecord();
  R["extra"] = {{"anything", json::array({1, "x"})}};
  R["problem"] = nullptr;
  P = parseEvalRecord(R.dump());
  EXPECT_TRUE(P) << errorOf(P);
}

TEST(Records, TruncatedLastLineIsSkippedAndNextAppendSurvives) {
  fs::path D = tempDir("truncated");
  fs::path F = D / "r.jsonl";
  std::string Full = goodRecord("a.cu").dump();
  {
    std::ofstream O(F, std::ios::binary);
    O << Full << "\n" << Full.substr(0, Full.size() / 2); // killed mid-line
  }
  {
    JsonlAppender A;
    auto Opened = A.open(F.string());
    ASSERT_TRUE(Opened) << errorOf(Opened);
    auto Appended = A.append(goodRecord("b.cu"));
    ASSERT_TRUE(Appended) << errorOf(Appended);
  }
  std::vector<json> Out;
  std::ostringstream Log;
  ASSERT_TRUE(readEvalRecords(F.string(), Out, Log));
  ASSERT_EQ(Out.size(), 2u);
  EXPECT_EQ(Out[0]["candidate"], "a.cu");
  EXPECT_EQ(Out[1]["candidate"], "b.cu");
  EXPECT_EQ(Log.str(), F.string() +
                           ":2: warning: invalid JSON: the line ends inside a "
                           "value (truncated?); record skipped\n");
  // A file that ends with a newline gets no extra blank line.
  auto Size = fs::file_size(F);
  {
    JsonlAppender A;
    ASSERT_TRUE(A.open(F.string()));
  }
  EXPECT_EQ(fs::file_size(F), Size);
  fs::remove_all(D);
}

TEST(Records, ReadErrors) {
  std::vector<json> Out;
  std::ostringstream Log;
  EXPECT_FALSE(readEvalRecords("/nonexistent/r.jsonl", Out, Log));
  EXPECT_EQ(Log.str(), "pkbcheck: error: cannot read '/nonexistent/r.jsonl': "
                       "No such file or directory\n");
  JsonlAppender A;
  auto Opened = A.open("/nonexistent/r.jsonl");
  EXPECT_FALSE(Opened);
  EXPECT_EQ(errorOf(Opened), "No such file or directory");
  EXPECT_FALSE(A.append(goodRecord()));
}

TEST(Records, BundledResultsFileIsValid) {
  std::vector<json> Out;
  std::ostringstream Log;
  ASSERT_TRUE(readEvalRecords(std::string(PKB_SOURCE_DIR) +
                                  "/docs/img/eval-h100-oversubscribed.jsonl",
                              Out, Log));
  EXPECT_EQ(Log.str(), "");
  EXPECT_EQ(Out.size(), 40u);
}

namespace {
/// Writes the five wrong-typed records of the issue plus two good ones.
void writeBadFile(const fs::path &F) {
  std::ofstream O(F);
  O << goodRecord("good1.cu").dump() << "\n";
  json R = goodRecord("c.cu");
  R["class"] = 3;
  O << R.dump() << "\n";
  R = goodRecord();
  R["candidate"] = 5;
  O << R.dump() << "\n";
  R = goodRecord("d.cu");
  R["dynamic"] = "x";
  O << R.dump() << "\n";
  R = goodRecord("s.cu");
  R["static"] = {{"findings", 7}};
  O << R.dump() << "\n";
  R = goodRecord("p.cu");
  R["problem"] = {{"id", "a"}};
  O << R.dump() << "\n";
  O << goodRecord("good2.cu").dump() << "\n";
}
} // namespace

TEST(Records, ReportSkipsWrongTypedRecords) {
  fs::path D = tempDir("report");
  fs::path F = D / "bad.jsonl";
  writeBadFile(F);
  ReportData Data;
  std::ostringstream Log;
  ASSERT_NO_THROW(ASSERT_TRUE(loadReport({F.string()}, Data, Log)));
  ASSERT_EQ(Data.Records.size(), 2u);
  EXPECT_EQ(Data.Records[0].Candidate, "good1.cu");
  EXPECT_EQ(Data.ByClass["cross-call-race"], 2u);
  EXPECT_EQ(Data.Runs, 2u);
  EXPECT_DOUBLE_EQ(Data.MeanRunSeconds, 3.5); // null speedup is no problem
  for (int Line = 2; Line <= 6; ++Line)
    EXPECT_NE(Log.str().find(F.string() + ":" + std::to_string(Line) +
                             ": warning: field '"),
              std::string::npos)
        << Log.str();
  EXPECT_NE(Log.str().find(":6: warning: field 'problem.id' is a string, "
                           "expected an integer; record skipped\n"),
            std::string::npos);
  std::ostringstream Md, Csv, Html;
  EXPECT_NO_THROW(writeMarkdown(Data, Md));
  EXPECT_NO_THROW(writeCsv(Data, Csv));
  EXPECT_NO_THROW(writeHtml(Data, Html));
  EXPECT_NE(Csv.str().find("good2.cu,m,1,allreduce,cross-call-race,flagged,1,"
                           "0,,,BAR-004@12"),
            std::string::npos)
      << Csv.str();

  // Report writers never throw, even on records that were not validated.
  ReportData Hand;
  for (const json &J : {json{{"class", 3},
                             {"static", 7},
                             {"problem", {{"id", "a"}}},
                             {"dynamic", {{"speedup", "x"}, {"seconds", "y"}}},
                             {"explained_by", json::array({1})}},
                        json("not an object")})
    Hand.Records.push_back(evalRecordFromJson(J));
  summarizeReport(Hand);
  EXPECT_NO_THROW(writeMarkdown(Hand, Md));
  EXPECT_NO_THROW(writeCsv(Hand, Csv));
  EXPECT_NO_THROW(writeHtml(Hand, Html));
  std::ostringstream Js;
  EXPECT_NO_THROW(writeJson(Hand, Js));
  fs::remove_all(D);
}

TEST(Records, ResumeSkipsWrongTypedRecordsAndAppendsOnANewLine) {
  fs::path D = tempDir("resume");
  fs::path F = D / "r.jsonl";
  writeBadFile(F);
  {
    // A killed run left half a record without a newline.
    std::ofstream O(F, std::ios::app | std::ios::binary);
    O << goodRecord("half.cu").dump().substr(0, 40);
  }
  json Pending = goodRecord("pending.cu");
  Pending["stage"] = "static";
  Pending["gate"] = "pass";
  Pending["dynamic"] = {{"ran", false}, {"reason", "pending"}};
  Pending["static"]["errors"] = 0;
  {
    std::ofstream O(F, std::ios::app | std::ios::binary);
    O << "\n" << Pending.dump(); // also without a trailing newline
  }
  EvalOptions Opts;
  Opts.Results = F.string();
  Opts.Resume = true;
  unsigned Runs = 0;
  DynamicRunner Runner = [&](const std::string &C, const ProblemRef &P) {
    ++Runs;
    EXPECT_EQ(C, "pending.cu");
    return json{
        {"ran", true}, {"verdict", "pass"}, {"speedup", 2.0}, {"seconds", 1}};
  };
  std::ostringstream Log;
  ASSERT_EQ(runEval(Opts, Runner, "", Log), 0) << Log.str();
  EXPECT_EQ(Runs, 1u);
  EXPECT_NE(Log.str().find(F.string() + ":8: warning: invalid JSON"),
            std::string::npos)
      << Log.str();
  std::vector<json> Out;
  std::ostringstream RLog;
  ASSERT_TRUE(readEvalRecords(F.string(), Out, RLog));
  ASSERT_EQ(Out.size(), 4u); // good1, good2, pending (static), pending (final)
  EXPECT_EQ(Out.back()["candidate"], "pending.cu");
  EXPECT_EQ(Out.back()["class"], "correct-faster");
  fs::remove_all(D);
}

TEST(Records, EvalStopsWithExit2WhenAWriteFails) {
  fs::path D = tempDir("efbig");
  fs::path F = D / "r.jsonl";
  json Pending = goodRecord("pending.cu");
  Pending["stage"] = "static";
  Pending["gate"] = "pass";
  Pending["dynamic"] = {{"ran", false}, {"reason", "pending"}};
  {
    std::ofstream O(F);
    O << Pending.dump() << "\n";
  }
  // In a child: a file-size limit just above the current size makes the
  // next append fail with EFBIG (also for root, unlike permissions).
  pid_t Pid = ::fork();
  ASSERT_GE(Pid, 0);
  if (Pid == 0) {
    std::signal(SIGXFSZ, SIG_IGN);
    rlimit L{};
    L.rlim_cur = L.rlim_max = fs::file_size(F) + 8;
    ::setrlimit(RLIMIT_FSIZE, &L);
    EvalOptions Opts;
    Opts.Results = F.string();
    Opts.Resume = true;
    DynamicRunner Runner = [](const std::string &, const ProblemRef &) {
      return json{{"ran", true}, {"verdict", "pass"}, {"speedup", 2.0}};
    };
    std::ostringstream Log;
    int Rc = runEval(Opts, Runner, "", Log);
    bool Said = Log.str().find("pkbcheck: error: cannot write '" + F.string() +
                               "': File too large\n") != std::string::npos;
    std::fputs(Log.str().c_str(), stderr);
    ::_exit(Rc == 2 && Said ? 0 : 1);
  }
  int Status = 0;
  ASSERT_EQ(::waitpid(Pid, &Status, 0), Pid);
  ASSERT_TRUE(WIFEXITED(Status));
  EXPECT_EQ(WEXITSTATUS(Status), 0);
  // What was written before the failure is intact and readable.
  std::vector<json> Out;
  std::ostringstream Log;
  ASSERT_TRUE(readEvalRecords(F.string(), Out, Log));
  ASSERT_EQ(Out.size(), 1u);
  EXPECT_EQ(Out[0]["stage"], "static");
  fs::remove_all(D);
}

TEST(Records, EvalReportsAFullDisk) {
  if (!fs::exists("/dev/full"))
    GTEST_SKIP() << "no /dev/full";
  // /dev/full accepts open() and fails every write with ENOSPC.
  JsonlAppender A;
  auto Opened = A.open("/dev/full");
  ASSERT_TRUE(Opened) << errorOf(Opened);
  auto Appended = A.append(goodRecord());
  EXPECT_FALSE(Appended);
  EXPECT_EQ(errorOf(Appended), "No space left on device");
}

TEST(Records, ReportCommandWarnsAndExitsZero) {
  fs::path Bin = fs::path(PKB_BINARY_DIR) / "bin" / "pkbcheck";
  if (!fs::exists(Bin))
    GTEST_SKIP() << Bin << " not built";
  fs::path D = tempDir("cli");
  fs::path F = D / "bad.jsonl";
  writeBadFile(F);
  std::string Cmd =
      Bin.string() + " report " + F.string() + " --format md 2>&1";
  std::string Out;
  FILE *P = ::popen(Cmd.c_str(), "r");
  ASSERT_NE(P, nullptr);
  std::array<char, 4096> Buf;
  size_t N;
  while ((N = std::fread(Buf.data(), 1, Buf.size(), P)) > 0)
    Out.append(Buf.data(), N);
  int Status = ::pclose(P);
  ASSERT_TRUE(WIFEXITED(Status)) << Out;
  EXPECT_EQ(WEXITSTATUS(Status), 0) << Out;
  EXPECT_NE(Out.find(F.string() + ":3: warning: field 'candidate' is "),
            std::string::npos)
      << Out;
  EXPECT_NE(Out.find(F.string() + ":4: warning: field 'dynamic' is a string, "
                                  "expected an object; record skipped"),
            std::string::npos)
      << Out;
  EXPECT_NE(Out.find("2 candidate(s)"), std::string::npos) << Out;
  fs::remove_all(D);
}
