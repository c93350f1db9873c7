//===- RenderTest.cpp - The HTML report renders in headless Chromium ------===//
//
// Renders a report with Debian's chromium (--headless --dump-dom) and checks
// that the rendered DOM holds the charts and that their numbers match the
// JSONL records. Skipped when no chromium binary is installed.
//
//===----------------------------------------------------------------------===//

#include "Eval.h"
#include "Report.h"

#include <gtest/gtest.h>

#include <array>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>

namespace fs = std::filesystem;
using nlohmann::json;
using namespace pkb;

static std::string findChromium() {
  for (const char *P : {"/usr/bin/chromium", "/usr/bin/chromium-browser",
                        "/usr/bin/google-chrome"})
    if (fs::exists(P))
      return P;
  return "";
}

static std::string runCommand(const std::string &Cmd) {
  std::string Out;
  FILE *F = ::popen(Cmd.c_str(), "r");
  if (!F)
    return Out;
  std::array<char, 4096> Buf;
  size_t N;
  while ((N = std::fread(Buf.data(), 1, Buf.size(), F)) > 0)
    Out.append(Buf.data(), N);
  ::pclose(F);
  return Out;
}

TEST(Report, HtmlRendersInHeadlessChromium) {
  std::string Chromium = findChromium();
  if (Chromium.empty())
    GTEST_SKIP() << "chromium not installed";
  fs::path Dir = fs::temp_directory_path() / "pkb_render_test";
  fs::create_directories(Dir);
  fs::path Jsonl = Dir / "r.jsonl";
  {
    std::ofstream O(Jsonl);
    auto Rec = [](const std::string &C, const std::string &Set,
                  const std::string &Cls, double Speedup) {
      json D = Speedup > 0 ? json{{"ran", true},
                                  {"verdict", "pass"},
                                  {"speedup", Speedup},
                                  {"roofline_fraction", 0.5}}
                           : json{{"ran", false}};
      return json{{"candidate", C},
                  {"set", Set},
                  {"problem", {{"id", 1}, {"name", "allreduce"}}},
                  {"gate", "pass"},
                  {"static", {{"errors", 0}}},
                  {"dynamic", D},
                  {"class", Cls}}
          .dump();
    };
    O << Rec("a.cu", "m1", "correct-faster", 2.0) << "\n"
      << Rec("b.cu", "m1", "static-flagged", 0) << "\n"
      << Rec("c.cu", "m2", "static-flagged", 0) << "\n"
      << Rec("d.cu", "m2", "correct-slower", 0.9) << "\n";
  }
  ReportData D;
  std::ostringstream Log;
  ASSERT_TRUE(loadReport({Jsonl.string()}, D, Log));
  fs::path Html = Dir / "report.html";
  {
    std::ofstream O(Html);
    writeHtml(D, O);
  }
  std::string Dom = runCommand(
      Chromium + " --headless --no-sandbox --disable-gpu --disable-quic "
                 "--no-first-run --disable-background-networking "
                 "--disable-component-update --disable-sync --user-data-dir=" +
      (Dir / "profile").string() + " --dump-dom file://" + Html.string() +
      " 2>/dev/null");
  ASSERT_NE(Dom.find("pkbcheck evaluation report"), std::string::npos)
      << "chromium produced no DOM";
  // The rendered charts carry the JSONL's numbers.
  EXPECT_NE(Dom.find("<svg id=\"classbars\""), std::string::npos);
  EXPECT_NE(Dom.find("<svg id=\"fastp\""), std::string::npos);
  EXPECT_NE(Dom.find("<svg id=\"roofline\""), std::string::npos);
  std::regex Bar("data-set=\"(m[12])\" data-class=\"([a-z-]+)\" "
                 "data-count=\"([0-9]+)\"");
  unsigned Bars = 0;
  for (auto It = std::sregex_iterator(Dom.begin(), Dom.end(), Bar);
       It != std::sregex_iterator(); ++It) {
    EXPECT_EQ(D.BySet[(*It)[1]][(*It)[2]],
              static_cast<unsigned>(std::stoul((*It)[3])));
    ++Bars;
  }
  EXPECT_EQ(Bars, 4u);
  EXPECT_NE(Dom.find("data-candidates=\"4\" data-runs=\"2\""),
            std::string::npos);
  // fast_p at p = 0 for m1: a.cu correct and faster (1 of 2).
  EXPECT_NE(Dom.find("data-set=\"m1\" data-fast0=\"0.5000\""),
            std::string::npos);
  fs::remove_all(Dir);
}
