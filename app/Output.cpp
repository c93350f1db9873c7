//===- Output.cpp - Text, JSON and SARIF reports --------------------------===//
//
// SARIF follows the OASIS SARIF 2.1.0 standard (sarif-schema-2.1.0.json):
// one run, tool.driver.rules from the checker registry (id, name,
// shortDescription, fullDescription, absolute helpUri, help), results with
// ruleId, ruleIndex, level, message, locations, relatedLocations (with ids
// that the message links to as "[text](id)") and, for findings with several
// events, a codeFlow through them; tool diagnostics are
// invocations[0].toolExecutionNotifications. Relative artifact URIs are
// relative to %SRCROOT%, the working directory of the run.
//
//===----------------------------------------------------------------------===//

#include "Output.h"

#include "ProcessPool.h"
#include "Report.h"
#include "pkb/ModelJson.h"

#include <fmt/format.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <map>

using nlohmann::json;

namespace pkb {

int exitStatus(const CheckSummary &S) {
  if (S.Interrupted)
    return interruptExitStatus(S.Interrupted);
  if (S.InputErrors)
    return 2;
  if (S.Errors)
    return 1;
  return S.NotChecked ? 3 : 0;
}

namespace {

std::string percentEncode(const std::string &S) {
  static const char *Hex = "0123456789ABCDEF";
  std::string Out;
  for (unsigned char C : S) {
    bool Keep = (C >= 'A' && C <= 'Z') || (C >= 'a' && C <= 'z') ||
                (C >= '0' && C <= '9') || C == '-' || C == '.' || C == '_' ||
                C == '~' || C == '/';
    if (Keep) {
      Out += static_cast<char>(C);
    } else {
      Out += '%';
      Out += Hex[C >> 4];
      Out += Hex[C & 15];
    }
  }
  return Out;
}

bool isAbsoluteUri(const std::string &U) {
  size_t Colon = U.find(':');
  if (Colon == 0 || Colon == std::string::npos || Colon + 1 == U.size() ||
      !std::isalpha(static_cast<unsigned char>(U[0])))
    return false;
  for (size_t I = 1; I < Colon; ++I) {
    char C = U[I];
    if (!std::isalnum(static_cast<unsigned char>(C)) && C != '+' && C != '-' &&
        C != '.')
      return false;
  }
  return true;
}

} // namespace

std::string sarifArtifactUri(const std::string &Path) {
  std::filesystem::path P(Path);
  if (P.is_absolute())
    return "file://" + percentEncode(P.lexically_normal().generic_string());
  std::string Rel = P.lexically_normal().generic_string();
  return percentEncode(Rel.empty() ? Path : Rel);
}

std::string sarifEscape(const std::string &Text) {
  std::string Out;
  for (char C : Text) {
    if (C == '\\' || C == '[' || C == ']')
      Out += '\\';
    Out += C;
  }
  return Out;
}

std::string defaultDocsUrl() {
  return sarifArtifactUri(PKB_DOCS_DIR "/checkers.md");
}

support::Expected<std::string> resolveDocsUrl(const std::string &Option) {
  const char *Env = std::getenv("PKBCHECK_DOCS_URL");
  std::string What = "--docs-url";
  std::string Out = Option;
  if (Out.empty() && Env && *Env) {
    Out = Env;
    What = "PKBCHECK_DOCS_URL";
  }
  if (Out.empty())
    return defaultDocsUrl();
  Out = Out.substr(0, Out.find('#'));
  if (!isAbsoluteUri(Out))
    return support::fail(
        What + " '" + Out +
        "' is not an absolute URI (e.g. https://github.com/OWNER/REPO/"
        "blob/main/docs/checkers.md or file:///path/to/checkers.md)");
  return Out;
}

std::string ruleHelpUri(const std::string &DocsUrl, const CheckInfo &R) {
  size_t Hash = R.HelpUri.find('#');
  std::string Anchor;
  if (Hash != std::string::npos) {
    Anchor = R.HelpUri.substr(Hash + 1);
  } else {
    Anchor = R.Id;
    std::transform(Anchor.begin(), Anchor.end(), Anchor.begin(), [](char C) {
      return static_cast<char>(std::tolower(static_cast<unsigned char>(C)));
    });
  }
  std::string Base = DocsUrl.empty() ? defaultDocsUrl() : DocsUrl;
  return Base.substr(0, Base.find('#')) + "#" + Anchor;
}

namespace {

const char *sevColor(Severity S) {
  switch (S) {
  case Severity::Error:
    return "\033[1;31m";
  case Severity::Warning:
    return "\033[1;35m";
  case Severity::Note:
    return "\033[1;36m";
  }
  return "";
}

class TextWriter : public ReportWriter {
public:
  TextWriter(std::ostream &OS, bool Color) : OS(OS), Color(Color) {}
  void begin() override {}
  void file(const FileReport &R) override {
    for (const Diagnostic &D : R.Diags)
      line(D.Loc, D.Sev, D.Message, "[" + D.Code + "]");
    for (const Finding &F : R.Findings) {
      line(F.Loc, F.Sev, F.Message, "[" + F.CheckId + "]");
      for (const RelatedEvent &E : F.Related)
        OS << fmt::format("{}:{}:{}: note: {}{}{}\n", E.Loc.File, E.Loc.Line,
                          E.Loc.Col, E.Role, E.Text.empty() ? "" : ": ",
                          E.Text);
      if (!F.Witness.empty()) {
        std::string W;
        for (const auto &[K, V] : F.Witness)
          W += (W.empty() ? "" : ", ") + K + "=" + V;
        OS << "    witness: " << W << "\n";
      }
      if (!F.AlsoIn.empty()) {
        std::string K;
        for (const std::string &X : F.AlsoIn)
          K += (K.empty() ? "" : ", ") + X;
        OS << "    also in: " << K << "\n";
      }
      if (!F.FixHint.empty())
        OS << "    fix: " << F.FixHint << "\n";
    }
    OS.flush();
  }
  void end(const CheckSummary &S) override {
    OS << fmt::format("pkbcheck: {} file(s), {} error(s), {} warning(s), "
                      "{} note(s); {} file(s) with errors, {} input "
                      "error(s), {} not fully checked; {:.2f} s\n",
                      S.Files, S.Errors, S.Warnings, S.Notes, S.FilesWithErrors,
                      S.InputErrors, S.NotChecked, S.Seconds);
    for (const std::string &F : S.FailedFiles)
      OS << "pkbcheck: input error: " << F << "\n";
    for (const std::string &F : S.NotCheckedFiles)
      OS << "pkbcheck: not checked (solver limit; raise --solver-timeout): "
         << F << "\n";
    if (S.Interrupted)
      OS << fmt::format("pkbcheck: interrupted by {}: {} of {} file(s) "
                        "analyzed, the rest was not\n",
                        signalName(S.Interrupted), S.Files,
                        std::max(S.Planned, S.Files));
    OS.flush();
  }

private:
  void line(const SourceLoc &L, Severity S, const std::string &Msg,
            const std::string &Tag) {
    std::string Sev = toString(S);
    if (Color)
      Sev = std::string(sevColor(S)) + Sev + "\033[0m";
    OS << fmt::format("{}:{}:{}: {}: {} {}\n", L.File, L.Line, L.Col, Sev, Msg,
                      Tag);
  }
  std::ostream &OS;
  bool Color;
};

/// {"tool": ..., "files": [...], "summary": {...}}, written incrementally.
class JsonWriter : public ReportWriter {
public:
  explicit JsonWriter(std::ostream &OS) : OS(OS) {}
  void begin() override {
    OS << "{\"tool\":" << json{{"name", "pkbcheck"}, {"version", PKB_VERSION}}
       << ",\n\"files\":[\n";
    OS.flush();
  }
  void file(const FileReport &R) override {
    OS << (First ? "" : ",\n") << dumpJson(toJson(R));
    First = false;
    OS.flush();
  }
  void end(const CheckSummary &S) override {
    OS << "\n],\n\"summary\":"
       << dumpJson(json{{"files", S.Files},
                        {"files_with_errors", S.FilesWithErrors},
                        {"input_errors", S.InputErrors},
                        {"errors", S.Errors},
                        {"warnings", S.Warnings},
                        {"notes", S.Notes},
                        {"not_fully_checked", S.NotChecked},
                        {"seconds", S.Seconds},
                        {"not_analyzed", S.FailedFiles},
                        {"not_checked", S.NotCheckedFiles},
                        {"planned_files", std::max(S.Planned, S.Files)},
                        {"interrupted", S.Interrupted != 0},
                        {"exit_status", exitStatus(S)}})
       << "}\n";
    OS.flush();
  }

private:
  std::ostream &OS;
  bool First = true;
};

const char *sarifLevel(Severity S) {
  switch (S) {
  case Severity::Error:
    return "error";
  case Severity::Warning:
    return "warning";
  case Severity::Note:
    return "note";
  }
  return "none";
}

/// A SARIF location; relative paths are resolved against %SRCROOT%.
json sarifLocation(const SourceLoc &L, const std::string &Msg = "") {
  json Artifact{{"uri", sarifArtifactUri(L.File)}};
  if (!std::filesystem::path(L.File).is_absolute())
    Artifact["uriBaseId"] = "%SRCROOT%";
  json Region{{"startLine", L.Line ? L.Line : 1}};
  if (L.Col)
    Region["startColumn"] = L.Col;
  json Loc{{"physicalLocation",
            {{"artifactLocation", Artifact}, {"region", Region}}}};
  if (!Msg.empty())
    Loc["message"] = {{"text", sarifEscape(Msg)}};
  return Loc;
}

/// Position of a related event's role in the story of a synchronization bug:
/// the data write, its fence, the signal, the wait (or barrier), the read.
int roleRank(const std::string &Role) {
  static const std::map<std::string, int> Rank = {
      {"write", 0},     {"fence", 1},  {"sync", 1},    {"signal", 2},
      {"multicast", 2}, {"launch", 2}, {"barrier", 3}, {"wait", 3},
      {"read", 4},      {"reset", 5},  {"return", 5},
  };
  auto It = Rank.find(Role);
  return It == Rank.end() ? 5 : It->second;
}

/// Related events in the order write -> signal -> wait -> read (stable, so
/// events of one role keep the checker's order); returns their indices.
std::vector<size_t> storyOrder(const std::vector<RelatedEvent> &Related) {
  std::vector<size_t> Order(Related.size());
  for (size_t I = 0; I < Order.size(); ++I)
    Order[I] = I;
  std::stable_sort(Order.begin(), Order.end(), [&](size_t A, size_t B) {
    return roleRank(Related[A].Role) < roleRank(Related[B].Role);
  });
  return Order;
}

std::string eventText(const RelatedEvent &E) {
  return E.Role + (E.Text.empty() ? "" : ": " + E.Text);
}

class SarifWriter : public ReportWriter {
public:
  SarifWriter(std::ostream &OS, std::vector<CheckInfo> Rules,
              std::string DocsUrl)
      : OS(OS), Rules(std::move(Rules)), DocsUrl(std::move(DocsUrl)) {}
  void begin() override {
    json RuleArr = json::array();
    for (size_t I = 0; I < Rules.size(); ++I) {
      const CheckInfo &R = Rules[I];
      RuleIndex[R.Id] = I;
      std::string Uri = ruleHelpUri(DocsUrl, R);
      RuleArr.push_back(
          {{"id", R.Id},
           {"name", R.Name},
           {"shortDescription", {{"text", sarifEscape(R.Summary)}}},
           {"fullDescription", {{"text", sarifEscape(R.Summary)}}},
           {"helpUri", Uri},
           {"help",
            {{"text", sarifEscape(R.Summary) + " See " + Uri},
             {"markdown", R.Summary + " See [" + R.Id + "](" + Uri + ")."}}}});
    }
    json Tool{{"driver",
               {{"name", "pkbcheck"},
                {"version", PKB_VERSION},
                {"semanticVersion", PKB_VERSION},
                {"rules", RuleArr}}}};
    std::error_code EC;
    std::string Cwd = std::filesystem::current_path(EC).generic_string();
    json BaseIds = json::object();
    if (!EC)
      BaseIds["%SRCROOT%"] = {
          {"uri", sarifArtifactUri(Cwd + (Cwd.ends_with('/') ? "" : "/"))}};
    OS << "{\"$schema\":\"https://json.schemastore.org/sarif-2.1.0.json\","
          "\"version\":\"2.1.0\",\"runs\":[{\"tool\":"
       << dumpJson(Tool) << ",\n\"originalUriBaseIds\":" << dumpJson(BaseIds)
       << ",\n\"results\":[\n";
    OS.flush();
  }
  void file(const FileReport &R) override {
    for (const Finding &F : R.Findings) {
      OS << (First ? "" : ",\n") << dumpJson(result(F));
      First = false;
    }
    for (const Diagnostic &D : R.Diags) {
      json N{{"level", sarifLevel(D.Sev)},
             {"message", {{"text", sarifEscape(D.Message)}}},
             {"descriptor", {{"id", D.Code}}}};
      if (!D.Loc.File.empty())
        N["locations"] = json::array({sarifLocation(D.Loc)});
      Notifications.push_back(N);
    }
    OS.flush();
  }
  void end(const CheckSummary &S) override {
    if (S.Interrupted)
      Notifications.push_back(
          {{"level", "error"},
           {"message",
            {{"text", fmt::format("pkbcheck was interrupted by {}: {} of {} "
                                  "file(s) analyzed; the results are "
                                  "incomplete",
                                  signalName(S.Interrupted), S.Files,
                                  std::max(S.Planned, S.Files))}}},
           {"descriptor", {{"id", "interrupted"}}}});
    json Inv{{"executionSuccessful", S.InputErrors == 0 && !S.Interrupted},
             {"exitCode", exitStatus(S)},
             {"toolExecutionNotifications", Notifications}};
    OS << "\n],\n\"invocations\":[" << dumpJson(Inv) << "]}]}\n";
    OS.flush();
  }

private:
  /// One result: the message ends with embedded links to the related
  /// locations ("Related: [write at line 40](0), [signal at line 42](1).");
  /// with more than one event, a codeFlow walks them in story order.
  json result(const Finding &F) const {
    std::vector<size_t> Order = storyOrder(F.Related);
    std::string Text = sarifEscape(F.Message);
    if (!F.Related.empty()) {
      std::string Links;
      for (size_t I : Order) {
        const RelatedEvent &E = F.Related[I];
        std::string Where =
            E.Loc.File == F.Loc.File
                ? fmt::format("line {}", E.Loc.Line)
                : fmt::format(
                      "{}:{}",
                      std::filesystem::path(E.Loc.File).filename().string(),
                      E.Loc.Line);
        Links += fmt::format("{}[{} at {}]({})", Links.empty() ? "" : ", ",
                             sarifEscape(E.Role), sarifEscape(Where), I);
      }
      if (!Text.empty() && Text.back() != '.')
        Text += '.';
      Text += " Related: " + Links + ".";
    }
    if (!F.FixHint.empty())
      Text += " Fix: " + sarifEscape(F.FixHint);
    json Res{{"ruleId", F.CheckId},
             {"level", sarifLevel(F.Sev)},
             {"message", {{"text", Text}}},
             {"locations", json::array({sarifLocation(F.Loc)})}};
    auto It = RuleIndex.find(F.CheckId);
    if (It != RuleIndex.end())
      Res["ruleIndex"] = It->second;
    if (!F.Related.empty()) {
      json Rel = json::array();
      for (size_t I = 0; I < F.Related.size(); ++I) {
        json L = sarifLocation(F.Related[I].Loc, eventText(F.Related[I]));
        L["id"] = I;
        Rel.push_back(L);
      }
      Res["relatedLocations"] = Rel;
    }
    if (F.Related.size() > 1) {
      json Steps = json::array();
      for (size_t I : Order)
        Steps.push_back({{"location", sarifLocation(F.Related[I].Loc,
                                                    eventText(F.Related[I]))}});
      Res["codeFlows"] = json::array(
          {{{"threadFlows", json::array({{{"locations", Steps}}})}}});
    }
    json Props{{"kernel", F.Kernel}};
    if (!F.Witness.empty())
      Props["witness"] = F.Witness;
    if (!F.AlsoIn.empty())
      Props["also_in"] = F.AlsoIn; // other template instantiations
    Res["properties"] = Props;
    return Res;
  }

  std::ostream &OS;
  std::vector<CheckInfo> Rules;
  std::string DocsUrl;
  std::map<std::string, size_t> RuleIndex;
  json Notifications = json::array();
  bool First = true;
};

} // namespace

const std::vector<OutputFormat> &outputFormats() {
  using Rules = std::vector<CheckInfo>;
  static const std::vector<OutputFormat> All = {
      {"text", OutputKind::Check,
       [](std::ostream &OS, Rules, const WriterOptions &O) {
         return std::unique_ptr<ReportWriter>(
             std::make_unique<TextWriter>(OS, O.Color));
       },
       nullptr},
      {"json", OutputKind::Check,
       [](std::ostream &OS, Rules, const WriterOptions &) {
         return std::unique_ptr<ReportWriter>(std::make_unique<JsonWriter>(OS));
       },
       nullptr},
      {"sarif", OutputKind::Check,
       [](std::ostream &OS, Rules R, const WriterOptions &O) {
         return std::unique_ptr<ReportWriter>(
             std::make_unique<SarifWriter>(OS, std::move(R), O.DocsUrl));
       },
       nullptr},
      {"md", OutputKind::Report, nullptr, writeMarkdown},
      {"csv", OutputKind::Report, nullptr, writeCsv},
      {"html", OutputKind::Report, nullptr, writeHtml},
      {"json", OutputKind::Report, nullptr, writeJson},
  };
  return All;
}

const OutputFormat *findOutputFormat(OutputKind K, const std::string &Name) {
  for (const OutputFormat &F : outputFormats())
    if (F.Kind == K && F.Name == Name)
      return &F;
  return nullptr;
}

std::string outputFormatNames(OutputKind K, const std::string &Sep,
                              const std::string &Last) {
  std::vector<std::string> Names;
  for (const OutputFormat &F : outputFormats())
    if (F.Kind == K)
      Names.push_back(F.Name);
  std::string Out;
  for (size_t I = 0; I < Names.size(); ++I)
    Out += (I == 0 ? "" : I + 1 == Names.size() ? Last : Sep) + Names[I];
  return Out;
}

std::unique_ptr<ReportWriter> makeWriter(const std::string &Format,
                                         std::ostream &OS,
                                         std::vector<CheckInfo> Rules,
                                         const WriterOptions &Opts) {
  const OutputFormat *F = findOutputFormat(OutputKind::Check, Format);
  return F ? F->MakeWriter(OS, std::move(Rules), Opts) : nullptr;
}

} // namespace pkb
