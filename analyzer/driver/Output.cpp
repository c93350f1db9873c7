//===- Output.cpp - Text, JSON and SARIF reports --------------------------===//
//
// SARIF follows the OASIS SARIF 2.1.0 standard (sarif-schema-2.1.0.json):
// one run, tool.driver.rules from the checker registry (id, name,
// shortDescription, fullDescription, helpUri, help), results with ruleId,
// ruleIndex, level, message, locations and relatedLocations, and tool
// diagnostics as invocations[0].toolExecutionNotifications.
//
//===----------------------------------------------------------------------===//

#include "Output.h"

#include "pkb/ModelJson.h"

#include <fmt/format.h>

#include <filesystem>
#include <map>

using nlohmann::json;

namespace pkb {

namespace {

/// J as one line of JSON. File names and messages may hold invalid UTF-8
/// (paths are bytes): it is replaced by U+FFFD instead of making dump()
/// throw (type_error 316), so every report is valid JSON.
std::string dumpJson(const json &J) {
  return J.dump(-1, ' ', false, json::error_handler_t::replace);
}

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
      if (!F.FixHint.empty())
        OS << "    fix: " << F.FixHint << "\n";
    }
    OS.flush();
  }
  void end(const RunSummary &S) override {
    OS << fmt::format("pkbcheck: {} file(s), {} error(s), {} warning(s), "
                      "{} note(s); {} file(s) with errors, {} input "
                      "error(s); {:.2f} s\n",
                      S.Files, S.Errors, S.Warnings, S.Notes,
                      S.FilesWithErrors, S.InputErrors, S.Seconds);
    for (const std::string &F : S.FailedFiles)
      OS << "pkbcheck: not analyzed: " << F << "\n";
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
  void end(const RunSummary &S) override {
    OS << "\n],\n\"summary\":"
       << dumpJson(json{{"files", S.Files},
                        {"files_with_errors", S.FilesWithErrors},
                        {"input_errors", S.InputErrors},
                        {"errors", S.Errors},
                        {"warnings", S.Warnings},
                        {"notes", S.Notes},
                        {"seconds", S.Seconds},
                        {"not_analyzed", S.FailedFiles}})
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

json sarifLocation(const SourceLoc &L, const std::string &Msg = "") {
  std::string Uri = L.File;
  std::filesystem::path P(L.File);
  if (P.is_relative())
    Uri = P.lexically_normal().generic_string();
  json Region{{"startLine", L.Line ? L.Line : 1}};
  if (L.Col)
    Region["startColumn"] = L.Col;
  json Loc{{"physicalLocation",
            {{"artifactLocation", {{"uri", Uri}}}, {"region", Region}}}};
  if (!Msg.empty())
    Loc["message"] = {{"text", Msg}};
  return Loc;
}

class SarifWriter : public ReportWriter {
public:
  SarifWriter(std::ostream &OS, std::vector<CheckInfo> Rules)
      : OS(OS), Rules(std::move(Rules)) {}
  void begin() override {
    json RuleArr = json::array();
    for (size_t I = 0; I < Rules.size(); ++I) {
      const CheckInfo &R = Rules[I];
      RuleIndex[R.Id] = I;
      RuleArr.push_back(
          {{"id", R.Id},
           {"name", R.Name},
           {"shortDescription", {{"text", R.Summary}}},
           {"fullDescription", {{"text", R.Summary}}},
           {"helpUri", R.HelpUri},
           {"help",
            {{"text", R.Summary + " See " + R.HelpUri},
             {"markdown",
              R.Summary + " See [" + R.Id + "](" + R.HelpUri + ")."}}}});
    }
    json Tool{{"driver",
               {{"name", "pkbcheck"},
                {"version", PKB_VERSION},
                {"semanticVersion", PKB_VERSION},
                {"rules", RuleArr}}}};
    OS << "{\"$schema\":\"https://json.schemastore.org/sarif-2.1.0.json\","
          "\"version\":\"2.1.0\",\"runs\":[{\"tool\":"
       << dumpJson(Tool) << ",\n\"results\":[\n";
    OS.flush();
  }
  void file(const FileReport &R) override {
    for (const Finding &F : R.Findings) {
      json Res{{"ruleId", F.CheckId},
               {"level", sarifLevel(F.Sev)},
               {"message",
                {{"text", F.Message + (F.FixHint.empty()
                                           ? ""
                                           : " Fix: " + F.FixHint)}}},
               {"locations", json::array({sarifLocation(F.Loc)})}};
      auto It = RuleIndex.find(F.CheckId);
      if (It != RuleIndex.end())
        Res["ruleIndex"] = It->second;
      json Rel = json::array();
      for (size_t I = 0; I < F.Related.size(); ++I) {
        json L = sarifLocation(F.Related[I].Loc,
                               F.Related[I].Role +
                                   (F.Related[I].Text.empty()
                                        ? ""
                                        : ": " + F.Related[I].Text));
        L["id"] = I;
        Rel.push_back(L);
      }
      if (!Rel.empty())
        Res["relatedLocations"] = Rel;
      if (!F.Witness.empty())
        Res["properties"] = {{"witness", F.Witness}, {"kernel", F.Kernel}};
      OS << (First ? "" : ",\n") << dumpJson(Res);
      First = false;
    }
    for (const Diagnostic &D : R.Diags)
      Notifications.push_back(
          {{"level", sarifLevel(D.Sev)},
           {"message", {{"text", D.Message}}},
           {"descriptor", {{"id", D.Code}}},
           {"locations", json::array({sarifLocation(D.Loc)})}});
    OS.flush();
  }
  void end(const RunSummary &S) override {
    json Inv{{"executionSuccessful", S.InputErrors == 0},
             {"toolExecutionNotifications", Notifications}};
    OS << "\n],\n\"invocations\":[" << dumpJson(Inv) << "]}]}\n";
    OS.flush();
  }

private:
  std::ostream &OS;
  std::vector<CheckInfo> Rules;
  std::map<std::string, size_t> RuleIndex;
  json Notifications = json::array();
  bool First = true;
};

} // namespace

std::unique_ptr<ReportWriter> makeWriter(const std::string &Format,
                                         std::ostream &OS,
                                         std::vector<CheckInfo> Rules,
                                         bool Color) {
  if (Format == "text")
    return std::make_unique<TextWriter>(OS, Color);
  if (Format == "json")
    return std::make_unique<JsonWriter>(OS);
  if (Format == "sarif")
    return std::make_unique<SarifWriter>(OS, std::move(Rules));
  return nullptr;
}

} // namespace pkb
