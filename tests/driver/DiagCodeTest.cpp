//===- DiagCodeTest.cpp - Diagnostic codes: table, docs, sources ----------===//
//
// docs/diagnostics.md holds the table generated from pkb/DiagCode.h (run
// this test with PKB_UPDATE_DOCS=1 to rewrite it), and every diagnostic
// code spelled as a literal in the sources must be in the table.
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

TEST(DiagCodes, EveryCodeLiteralInTheSourcesIsDeclared) {
  // Assignments and arguments that carry a code: D.Code = "x",
  // makeDiag(P, "x", ...), FileDiag("x", ...), UnknownInstructionCode = "x".
  const std::regex Re(
      R"re((?:Code\s*=\s*|makeDiag\([^,]+,\s*|FileDiag\(\s*)"([a-z0-9-]+)")re");
  std::set<std::string> Unknown;
  size_t Seen = 0;
  for (const char *Dir : {"analyzer", "checkers", "runtime", "support"}) {
    fs::path Root = fs::path(PKB_SOURCE_DIR) / Dir;
    if (!fs::exists(Root))
      continue;
    for (const auto &F : fs::recursive_directory_iterator(Root)) {
      std::string Ext = F.path().extension().string();
      if (Ext != ".cpp" && Ext != ".h")
        continue;
      std::string Text = slurp(F.path());
      for (auto It = std::sregex_iterator(Text.begin(), Text.end(), Re);
           It != std::sregex_iterator(); ++It) {
        ++Seen;
        if (!parseDiagCode((*It)[1].str()))
          Unknown.insert((*It)[1].str() + " in " + F.path().string());
      }
    }
  }
  EXPECT_GT(Seen, 10u); // the pattern still finds the emitters
  for (const std::string &U : Unknown)
    ADD_FAILURE() << "undeclared diagnostic code " << U;
}
