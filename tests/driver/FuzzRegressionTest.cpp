//===- FuzzRegressionTest.cpp - Driver inputs found by the fuzzers --------===//
//
// Each test replays, in readable form, an input that crashed a fuzz target
// of tests/fuzz (docs/reliability.md lists them) and checks that it now gives
// a sensible result instead.
//
//===----------------------------------------------------------------------===//

#include "Output.h"
#include "ProcessPool.h"

#include <gtest/gtest.h>

#include <sstream>

using namespace pkb;
using nlohmann::json;

namespace {

/// A report whose strings hold invalid UTF-8, as a file name may (paths
/// are bytes on Linux), and as fuzz_writers generated.
FileReport invalidUtf8Report() {
  FileReport R;
  R.Path = "k\xff.cu";
  Finding F;
  F.CheckId = "ORD-001";
  F.Sev = Severity::Error;
  F.Loc = SourceLoc{R.Path, 3, 1};
  F.Message = "store to \xc3 buf";
  F.Related.push_back(RelatedEvent{"signal", F.Loc, "st \xfe"});
  F.Witness["W\x80"] = "2";
  R.Findings.push_back(F);
  R.Diags.push_back(Diagnostic{"note", Severity::Note, F.Loc, "\xed\xa0\x80"});
  return R;
}

} // namespace

// fuzz_writers, crash 1: json and sarif writers threw nlohmann type_error 316
// ("invalid UTF-8 byte") from dump(), so `pkbcheck check $'k\xff.cu'
// --format json` aborted. Invalid bytes are now written as U+FFFD.
TEST(FuzzRegression, WritersAcceptInvalidUtf8) {
  for (const char *Format : {"text", "json", "sarif"}) {
    std::ostringstream OS;
    auto W = makeWriter(Format, OS, {CheckInfo{"ORD-001", "n\xff", "s", "u"}},
                        WriterOptions{});
    ASSERT_NE(W, nullptr);
    CheckSummary S;
    S.Files = 1;
    S.FailedFiles = {"bad\xff.cu"};
    ASSERT_NO_THROW({
      W->begin();
      W->file(invalidUtf8Report());
      W->end(S);
    }) << Format;
    if (std::string(Format) == "text")
      continue;
    json J = json::parse(OS.str(), nullptr, false);
    ASSERT_FALSE(J.is_discarded()) << Format << ": " << OS.str();
    // JSON replaces the byte with U+FFFD; SARIF percent-encodes it in the
    // artifact URI (RFC 3986), which keeps the file name exact.
    const char *Expected =
        std::string(Format) == "sarif" ? "k%FF.cu" : "k\xef\xbf\xbd.cu";
    EXPECT_NE(OS.str().find(Expected), std::string::npos) << Format;
  }
}

// The same report produced in an analysis child: the child serialized it
// with dump(), threw, and the file was reported as a crash.
TEST(FuzzRegression, ChildReportWithInvalidUtf8IsNoCrash) {
  std::vector<FileReport> Got;
  runInChildren(
      {"k\xff.cu"}, PoolOptions{},
      [](const std::string &) { return invalidUtf8Report(); },
      [&](size_t, FileReport R) { Got.push_back(std::move(R)); });
  ASSERT_EQ(Got.size(), 1u);
  EXPECT_EQ(Got[0].Status, "ok");
  ASSERT_EQ(Got[0].Findings.size(), 1u);
  EXPECT_EQ(Got[0].Findings[0].CheckId, "ORD-001");
  EXPECT_EQ(Got[0].Findings[0].Message, "store to \xef\xbf\xbd buf");
}
