//===- DiagCodeTest.cpp - Diagnostic codes: table, docs, sources ----------===//
//
// docs/diagnostics.md holds the table generated from pkb/DiagCode.h (run
// this test with PKB_UPDATE_DOCS=1 to rewrite it), and the sources name
// diagnostic codes by their DiagCode value, never as string literals (so a
// misspelt code does not compile).
//
//===----------------------------------------------------------------------===//
#include "pkb/DiagCode.h"
#include "TestUtil.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <regex>
#include <set>

using namespace pkb;
using pkb::test::slurp;
namespace fs = std::filesystem;

TEST(DiagCodes, TableMatchesEnumAndNamesRoundTrip) {
  auto All = diagCodes();
  for (size_t I = 0; I < All.size(); ++I) {
    EXPECT_EQ(static_cast<size_t>(All[I].Code), I) << All[I].Name;
    EXPECT_EQ(parseDiagCode(All[I].Name), All[I].Code);
    EXPECT_EQ(toString(All[I].Code), All[I].Name);
    EXPECT_FALSE(All[I].Meaning.empty()) << All[I].Name;
  }
  EXPECT_FALSE(parseDiagCode("no-such-code"));
}

TEST(DiagCodes, DocsAreGeneratedFromTheTable) {
  fs::path Doc = fs::path(PKB_SOURCE_DIR) / "docs" / "diagnostics.md";
  const std::string Begin = "<!-- BEGIN GENERATED: diagCodesMarkdown -->\n";
  const std::string End = "<!-- END GENERATED -->";
  std::string Text = slurp(Doc);
  size_t B = Text.find(Begin), E = Text.find(End);
  ASSERT_NE(B, std::string::npos) << Doc;
  ASSERT_NE(E, std::string::npos) << Doc;
  std::string Want = diagCodesMarkdown();
  std::string Have = Text.substr(B + Begin.size(), E - B - Begin.size());
  if (Have != Want && std::getenv("PKB_UPDATE_DOCS")) {
    Text.replace(B + Begin.size(), E - B - Begin.size(), Want);
    std::ofstream(Doc, std::ios::binary) << Text;
    Have = Want;
  }
  EXPECT_EQ(Have, Want) << "run with PKB_UPDATE_DOCS=1 to regenerate " << Doc;
}

TEST(DiagCodes, SourcesNameCodesByEnumNotByLiteral) {
  // Where a code is set, compared or passed: D.Code = "x", D.Code == "x",
  // makeDiag(P, "x", ...), FileDiag("x", ...), fileDiag(P, "x", ...),
  // failedReport(P, S, "x", ...), stoppedReport(P, S, "x", ...),
  // UnknownInstructionCode = "x". None of these may be a literal; the
  // emitters take a DiagCode.
  const std::regex Literal(
      R"re((?:Code\s*==?\s*|makeDiag\([^,]+,\s*|FileDiag\(\s*|fileDiag\([^,]+,\s*|(?:failed|stopped)Report\([^,]+,[^,]+,\s*)"([a-z0-9-]+)")re");
  const std::regex Enum(R"re(DiagCode::([A-Za-z]+))re");
  // The pattern still recognizes the forms it looks for.
  for (const char *Sample :
       {R"(D.Code = "parse-error")", R"(if (D.Code == "note"))",
        R"(makeDiag(Path, "input-empty", Severity::Warning)",
        R"(FileDiag("note", Severity::Note, N))",
        R"(failedReport(Path, "crash", "timeout", Msg, 0))"})
    EXPECT_TRUE(std::regex_search(Sample, Literal)) << Sample;
  std::set<std::string> Literals;
  size_t EnumUses = 0;
  for (const char *Dir :
       {"analyzer", "checkers", "runtime", "support", "app"}) {
    fs::path Root = fs::path(PKB_SOURCE_DIR) / Dir;
    if (!fs::exists(Root))
      continue;
    for (const auto &F : fs::recursive_directory_iterator(Root)) {
      std::string Ext = F.path().extension().string();
      if (Ext != ".cpp" && Ext != ".h")
        continue;
      std::string Text = slurp(F.path());
      for (auto It = std::sregex_iterator(Text.begin(), Text.end(), Literal);
           It != std::sregex_iterator(); ++It)
        Literals.insert((*It)[1].str() + " in " + F.path().string());
      if (F.path().stem() != "DiagCode") // the table itself does not count
        EnumUses +=
            std::distance(std::sregex_iterator(Text.begin(), Text.end(), Enum),
                          std::sregex_iterator());
    }
  }
  EXPECT_GT(EnumUses, 10u); // the sources still name their codes
  for (const std::string &L : Literals)
    ADD_FAILURE() << "diagnostic code spelled as a literal (use DiagCode): "
                  << L;
}
