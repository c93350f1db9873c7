//===- OutputTest.cpp - SARIF structure and atomic result files -----------===//
//
// The SARIF of `check` is parsed back and its structure asserted: absolute
// helpUri, relatedLocations ids that the message links to, codeFlows in
// write -> signal -> wait -> read order, percent-encoded artifact URIs,
// notifications and executionSuccessful, also after an interruption.
// OutputFile: complete-or-untouched result files, write errors reported.
//
//===----------------------------------------------------------------------===//

#include "Output.h"
#include "OutputFile.h"

#include "TestUtil.h"

#include <gtest/gtest.h>

#include <csignal>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <regex>
#include <set>
#include <sstream>
#include <sys/stat.h>

namespace fs = std::filesystem;
using nlohmann::json;
using namespace pkb;
using pkb::test::ok;

namespace {

const CheckInfo Ord001{"ORD-001", "missing-release-before-signal",
                       "A signal is not ordered after the data it publishes",
                       "docs/checkers.md#ord-001"};

/// A finding whose related events come in checker order read, signal, write.
FileReport orderingReport(const std::string &Path) {
  FileReport R;
  R.Path = Path;
  R.Kernels = 1;
  Finding F;
  F.CheckId = "ORD-001";
  F.Sev = Severity::Error;
  F.Kernel = "k";
  F.Loc = SourceLoc{Path, 42, 5};
  F.Message = "signal of flag[peer] is not ordered after the data write";
  F.FixHint = "add __threadfence_system() before the signal";
  F.Related.push_back({"read", SourceLoc{Path, 50, 3}, "buf[i]"});
  F.Related.push_back({"signal", SourceLoc{Path, 42, 5}, "flag[peer] = 1"});
  F.Related.push_back({"write", SourceLoc{Path, 40, 3}, "peer_buf[i] = x"});
  F.Related.push_back({"wait", SourceLoc{"other dir/w.cu", 45, 3}, "spin"});
  F.Witness["W"] = "2";
  R.Findings.push_back(F);
  return R;
}

json writeSarif(const std::vector<FileReport> &Reports, const CheckSummary &S,
                const std::string &DocsUrl = "https://example.org/d/c.md") {
  std::ostringstream OS;
  WriterOptions WO;
  WO.DocsUrl = DocsUrl;
  auto W = makeWriter("sarif", OS, {Ord001}, WO);
  EXPECT_TRUE(W);
  W->begin();
  for (const FileReport &R : Reports)
    W->file(R);
  W->end(S);
  return json::parse(OS.str());
}

/// Embedded links "[text](N)" of a SARIF plain-text message (not escaped).
std::vector<std::pair<std::string, int>> links(const std::string &Text) {
  std::vector<std::pair<std::string, int>> Out;
  std::regex Link(R"((^|[^\\])\[((?:[^\]\\]|\\.)*)\]\((\d+)\))");
  for (std::sregex_iterator It(Text.begin(), Text.end(), Link), End; It != End;
       ++It)
    Out.push_back({(*It)[2].str(), std::stoi((*It)[3].str())});
  return Out;
}

fs::path freshDir(const std::string &Name) {
  fs::path D =
      fs::temp_directory_path() / (Name + "-" + std::to_string(::getpid()));
  fs::remove_all(D);
  fs::create_directories(D);
  return D;
}

} // namespace

TEST(Sarif, HelpUriIsAbsoluteAndKeepsTheAnchor) {
  CheckSummary S;
  json J = writeSarif({}, S);
  const json &Rule = J["runs"][0]["tool"]["driver"]["rules"][0];
  EXPECT_EQ(Rule["helpUri"], "https://example.org/d/c.md#ord-001");
  EXPECT_NE(Rule["help"]["text"].get<std::string>().find(
                "https://example.org/d/c.md#ord-001"),
            std::string::npos);
  EXPECT_EQ(ruleHelpUri("file:///x/checkers.md#old", Ord001),
            "file:///x/checkers.md#ord-001");
  CheckInfo NoAnchor{"BAR-002", "n", "s", "docs/checkers.md"};
  EXPECT_EQ(ruleHelpUri("https://h/c.md", NoAnchor), "https://h/c.md#bar-002");
}

TEST(Sarif, DefaultDocsUrlIsThisTreesCheckersMd) {
  std::string U = defaultDocsUrl();
  EXPECT_EQ(U, "file://" + std::string(PKB_SOURCE_DIR) + "/docs/checkers.md");
  EXPECT_TRUE(fs::exists(std::string(PKB_SOURCE_DIR) + "/docs/checkers.md"));
  CheckSummary S;
  json J = writeSarif({}, S, "");
  EXPECT_EQ(J["runs"][0]["tool"]["driver"]["rules"][0]["helpUri"],
            U + "#ord-001");
}

TEST(Sarif, DocsUrlFromOptionEnvOrDefault) {
  std::string Out, Err;
  ::unsetenv("PKBCHECK_DOCS_URL");
  ASSERT_TRUE(ok(resolveDocsUrl(""), Out, Err));
  EXPECT_EQ(Out, defaultDocsUrl());
  ::setenv("PKBCHECK_DOCS_URL", "https://env.example/checkers.md#x", 1);
  ASSERT_TRUE(ok(resolveDocsUrl(""), Out, Err));
  EXPECT_EQ(Out, "https://env.example/checkers.md");
  ASSERT_TRUE(ok(resolveDocsUrl("https://opt.example/c.md"), Out, Err));
  EXPECT_EQ(Out, "https://opt.example/c.md");
  EXPECT_FALSE(ok(resolveDocsUrl("docs/checkers.md"), Out, Err));
  EXPECT_NE(Err.find("--docs-url 'docs/checkers.md' is not an absolute URI"),
            std::string::npos);
  ::setenv("PKBCHECK_DOCS_URL", "relative/c.md", 1);
  EXPECT_FALSE(ok(resolveDocsUrl(""), Out, Err));
  EXPECT_NE(Err.find("PKBCHECK_DOCS_URL"), std::string::npos);
  ::unsetenv("PKBCHECK_DOCS_URL");
}

TEST(Sarif, MessageLinksEveryRelatedLocationById) {
  CheckSummary S;
  S.Files = 1;
  S.Errors = 1;
  json J = writeSarif({orderingReport("k.cu")}, S);
  const json &Res = J["runs"][0]["results"][0];
  const json &Rel = Res["relatedLocations"];
  ASSERT_EQ(Rel.size(), 4u);
  std::set<int> Ids;
  for (size_t I = 0; I < Rel.size(); ++I) {
    EXPECT_EQ(Rel[I]["id"], I);
    Ids.insert(Rel[I]["id"].get<int>());
  }
  EXPECT_EQ(Rel[2]["message"]["text"], "write: peer_buf\\[i\\] = x");
  std::string Text = Res["message"]["text"];
  // Brackets of the checker's message are escaped; the links are not.
  EXPECT_EQ(Text.rfind("signal of flag\\[peer\\] is not ordered", 0), 0u)
      << Text;
  auto L = links(Text);
  ASSERT_EQ(L.size(), 4u) << Text;
  // Story order: write, signal, wait, read; each link names its event.
  EXPECT_EQ(L[0], (std::pair<std::string, int>{"write at line 40", 2}));
  EXPECT_EQ(L[1], (std::pair<std::string, int>{"signal at line 42", 1}));
  EXPECT_EQ(L[2], (std::pair<std::string, int>{"wait at w.cu:45", 3}));
  EXPECT_EQ(L[3], (std::pair<std::string, int>{"read at line 50", 0}));
  for (const auto &[T, Id] : L) {
    EXPECT_TRUE(Ids.count(Id)) << Id;
    int Line = Rel[Id]["physicalLocation"]["region"]["startLine"];
    EXPECT_NE(T.find(std::to_string(Line)), std::string::npos) << T;
  }
  EXPECT_NE(Text.find(" Fix: add __threadfence_system() before the signal"),
            std::string::npos);
}

TEST(Sarif, CodeFlowWalksTheEventsInOrder) {
  CheckSummary S;
  json J = writeSarif({orderingReport("k.cu")}, S);
  const json &Res = J["runs"][0]["results"][0];
  ASSERT_EQ(Res["codeFlows"].size(), 1u);
  const json &TF = Res["codeFlows"][0]["threadFlows"];
  ASSERT_EQ(TF.size(), 1u);
  const json &Locs = TF[0]["locations"];
  ASSERT_EQ(Locs.size(), 4u);
  std::vector<std::string> Msgs;
  std::vector<int> Lines;
  for (const json &L : Locs) {
    Msgs.push_back(L["location"]["message"]["text"]);
    Lines.push_back(L["location"]["physicalLocation"]["region"]["startLine"]);
  }
  EXPECT_EQ(Msgs, (std::vector<std::string>{"write: peer_buf\\[i\\] = x",
                                            "signal: flag\\[peer\\] = 1",
                                            "wait: spin", "read: buf\\[i\\]"}));
  EXPECT_EQ(Lines, (std::vector<int>{40, 42, 45, 50}));

  // One related event: linked, but no code flow.
  FileReport R = orderingReport("k.cu");
  R.Findings[0].Related.resize(1);
  json J1 = writeSarif({R}, S);
  const json &R1 = J1["runs"][0]["results"][0];
  EXPECT_FALSE(R1.contains("codeFlows"));
  EXPECT_EQ(links(R1["message"]["text"]).size(), 1u);
}

TEST(Sarif, ArtifactUrisArePercentEncoded) {
  EXPECT_EQ(sarifArtifactUri("./dir a/k#1?.cu"), "dir%20a/k%231%3F.cu");
  EXPECT_EQ(sarifArtifactUri("50%/k\xC3\xA9.cu"), "50%25/k%C3%A9.cu");
  EXPECT_EQ(sarifArtifactUri("a:b.cu"), "a%3Ab.cu");
  EXPECT_EQ(sarifArtifactUri("../up/x.cu"), "../up/x.cu");
  EXPECT_EQ(sarifArtifactUri("/tmp/a b/../k.cu"), "file:///tmp/k.cu");
  EXPECT_EQ(sarifArtifactUri("/srv/x y/k.cu"), "file:///srv/x%20y/k.cu");

  CheckSummary S;
  json J = writeSarif(
      {orderingReport("./my dir/k#2.cu"), orderingReport("/abs path/k.cu")}, S);
  const json &Run = J["runs"][0];
  const json &Rel =
      Run["results"][0]["locations"][0]["physicalLocation"]["artifactLocation"];
  EXPECT_EQ(Rel["uri"], "my%20dir/k%232.cu");
  EXPECT_EQ(Rel["uriBaseId"], "%SRCROOT%");
  const json &Abs =
      Run["results"][1]["locations"][0]["physicalLocation"]["artifactLocation"];
  EXPECT_EQ(Abs["uri"], "file:///abs%20path/k.cu");
  EXPECT_FALSE(Abs.contains("uriBaseId"));
  std::string Root = Run["originalUriBaseIds"]["%SRCROOT%"]["uri"];
  EXPECT_EQ(Root.rfind("file:///", 0), 0u);
  EXPECT_EQ(Root.back(), '/');
}

TEST(Sarif, ToolErrorsAreNotificationsAndFailTheExecution) {
  FileReport Bad;
  Bad.Path = "bad.cu";
  Bad.Status = "input-error";
  Bad.Diags.push_back({"parse-error", Severity::Error,
                       SourceLoc{"bad.cu", 3, 1}, "expected ';' [x]"});
  CheckSummary S;
  S.Files = 1;
  S.InputErrors = 1;
  json J = writeSarif({Bad}, S);
  const json &Inv = J["runs"][0]["invocations"][0];
  EXPECT_EQ(Inv["executionSuccessful"], false);
  EXPECT_EQ(Inv["exitCode"], 2);
  const json &N = Inv["toolExecutionNotifications"];
  ASSERT_EQ(N.size(), 1u);
  EXPECT_EQ(N[0]["level"], "error");
  EXPECT_EQ(N[0]["descriptor"]["id"], "parse-error");
  EXPECT_EQ(N[0]["message"]["text"], "expected ';' \\[x\\]");
  EXPECT_EQ(J["runs"][0]["results"].size(), 0u);

  CheckSummary Ok;
  Ok.Files = 1;
  json J2 = writeSarif({orderingReport("k.cu")}, Ok);
  EXPECT_EQ(J2["runs"][0]["invocations"][0]["executionSuccessful"], true);
}

TEST(Sarif, InterruptedRunIsValidAndUnsuccessful) {
  CheckSummary S;
  S.Files = 1;
  S.Planned = 5;
  S.Errors = 1;
  S.Interrupted = SIGINT;
  json J = writeSarif({orderingReport("k.cu")}, S);
  const json &Inv = J["runs"][0]["invocations"][0];
  EXPECT_EQ(Inv["executionSuccessful"], false);
  EXPECT_EQ(Inv["exitCode"], 130);
  const json &N = Inv["toolExecutionNotifications"];
  ASSERT_EQ(N.size(), 1u);
  EXPECT_EQ(N[0]["descriptor"]["id"], "interrupted");
  EXPECT_EQ(N[0]["level"], "error");
  EXPECT_NE(
      N[0]["message"]["text"].get<std::string>().find("SIGINT: 1 of 5 file(s)"),
      std::string::npos);
  EXPECT_EQ(J["runs"][0]["results"].size(), 1u);
  S.Interrupted = SIGTERM;
  EXPECT_EQ(exitStatus(S), 143);
}

TEST(Output, JsonAndTextSayInterrupted) {
  CheckSummary S;
  S.Files = 2;
  S.Planned = 9;
  S.Interrupted = SIGTERM;
  std::ostringstream OS;
  auto W = makeWriter("json", OS, {});
  W->begin();
  W->end(S);
  json J = json::parse(OS.str());
  EXPECT_EQ(J["summary"]["interrupted"], true);
  EXPECT_EQ(J["summary"]["planned_files"], 9);
  EXPECT_EQ(J["summary"]["exit_status"], 143);
  std::ostringstream TS;
  auto T = makeWriter("text", TS, {});
  T->begin();
  T->end(S);
  EXPECT_NE(TS.str().find("interrupted by SIGTERM: 2 of 9 file(s)"),
            std::string::npos)
      << TS.str();
}

TEST(OutputFile, ReplacesTheFileOnlyAtCommit) {
  fs::path D = freshDir("pkb_outfile");
  fs::path F = D / "r.sarif";
  std::ofstream(F) << "old";
  ::chmod(F.c_str(), 0640);
  {
    OutputFile O;
    std::string Err;
    ASSERT_TRUE(ok(O.open(F.string()), Err)) << Err;
    EXPECT_TRUE(O.atomic());
    O.stream() << std::string(200000, 'x'); // more than one buffer
    O.stream().flush();
    EXPECT_EQ(pkb::test::slurp(F), "old"); // not replaced yet
    ASSERT_TRUE(ok(O.commit(), Err)) << Err;
  }
  EXPECT_EQ(pkb::test::slurp(F), std::string(200000, 'x'));
  struct stat St{};
  ASSERT_EQ(::stat(F.c_str(), &St), 0);
  EXPECT_EQ(St.st_mode & 0777, 0640u);
  {
    OutputFile O;
    std::string Err;
    ASSERT_TRUE(ok(O.open(F.string()), Err)) << Err;
    O.stream() << "half";
    O.stream().flush();
  } // no commit: as if the run died
  EXPECT_EQ(pkb::test::slurp(F), std::string(200000, 'x'));
  size_t Entries = 0;
  for (const auto &E : fs::directory_iterator(D)) {
    (void)E;
    ++Entries;
  }
  EXPECT_EQ(Entries, 1u) << "temporary file left behind";
  fs::remove_all(D);
}

TEST(OutputFile, WritesThroughSymlinksToTheTarget) {
  fs::path D = freshDir("pkb_outfile_link");
  std::ofstream(D / "target.json") << "old";
  fs::create_symlink("target.json", D / "link.json");
  OutputFile O;
  std::string Err;
  ASSERT_TRUE(ok(O.open((D / "link.json").string()), Err)) << Err;
  O.stream() << "new";
  ASSERT_TRUE(ok(O.commit(), Err)) << Err;
  EXPECT_TRUE(fs::is_symlink(D / "link.json"));
  EXPECT_EQ(pkb::test::slurp(D / "target.json"), "new");
  fs::remove_all(D);
}

TEST(OutputFile, ReportsWriteErrorsWithTheReason) {
  {
    OutputFile O;
    std::string Err;
    ASSERT_TRUE(ok(O.open("/dev/full"), Err)) << Err;
    EXPECT_FALSE(O.atomic());
    O.stream() << "{}";
    O.stream().flush();
    EXPECT_TRUE(O.failed());
    EXPECT_FALSE(ok(O.commit(), Err));
    EXPECT_EQ(Err, "cannot write '/dev/full': No space left on device");
  }
  {
    OutputFile O;
    std::string Err;
    EXPECT_FALSE(ok(O.open("/nonexistent-dir-pkb/x.sarif"), Err));
    EXPECT_EQ(Err, "cannot write '/nonexistent-dir-pkb/x.sarif': No such "
                   "file or directory");
  }
  {
    OutputFile O;
    std::string Err;
    EXPECT_FALSE(ok(O.open(fs::temp_directory_path().string()), Err));
    EXPECT_NE(Err.find("Is a directory"), std::string::npos) << Err;
  }
  {
    OutputFile O; // /dev/null is a character device: written directly
    std::string Err;
    ASSERT_TRUE(ok(O.open("/dev/null"), Err)) << Err;
    EXPECT_FALSE(O.atomic());
    O.stream() << "x";
    EXPECT_TRUE(ok(O.commit(), Err)) << Err;
  }
}

TEST(OutputFile, RecognizesAnInputUnderAnotherName) {
  fs::path D = freshDir("pkb_outfile_inputs");
  std::ofstream(D / "k.cu") << "__global__ void k() {}";
  fs::create_hard_link(D / "k.cu", D / "hard.cu");
  std::string Which;
  std::vector<std::string> Inputs = {(D / "k.cu").string()};
  EXPECT_TRUE(isOneOfInputs((D / "." / "k.cu").string(), Inputs, Which));
  EXPECT_TRUE(isOneOfInputs((D / "hard.cu").string(), Inputs, Which));
  EXPECT_EQ(Which, Inputs[0]);
  EXPECT_FALSE(isOneOfInputs((D / "new.sarif").string(), Inputs, Which));
  std::ofstream(D / "other.sarif") << "{}";
  EXPECT_FALSE(isOneOfInputs((D / "other.sarif").string(), Inputs, Which));
  fs::remove_all(D);
}

TEST(OutputRegistry, OneTableForCheckAndReport) {
  using pkb::findOutputFormat;
  using pkb::OutputKind;
  EXPECT_EQ(pkb::outputFormatNames(OutputKind::Check), "text, json, sarif");
  EXPECT_EQ(pkb::outputFormatNames(OutputKind::Report, ", ", " or "),
            "md, csv, html or json");
  for (const pkb::OutputFormat &F : pkb::outputFormats()) {
    EXPECT_EQ(findOutputFormat(F.Kind, F.Name), &F);
    EXPECT_EQ(F.Kind == OutputKind::Check, static_cast<bool>(F.MakeWriter))
        << F.Name;
    EXPECT_EQ(F.Kind == OutputKind::Report, static_cast<bool>(F.Write))
        << F.Name;
  }
  // A check format is no report format and the other way round.
  EXPECT_EQ(findOutputFormat(OutputKind::Report, "sarif"), nullptr);
  EXPECT_EQ(findOutputFormat(OutputKind::Check, "html"), nullptr);
  std::ostringstream OS;
  EXPECT_NE(pkb::makeWriter("json", OS, {}), nullptr);
  EXPECT_EQ(pkb::makeWriter("xml", OS, {}), nullptr);
}
