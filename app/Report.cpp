//===- Report.cpp - pkbcheck report: tables and charts --------------------===//
//
// fast_p follows KernelBench (Ouyang et al., 2025, "KernelBench: Can LLMs
// Write Efficient GPU Kernels?"): the fraction of all candidates of a set
// that are correct AND faster than the reference by more than a factor p.
//
//===----------------------------------------------------------------------===//

#include "Report.h"

#include "Eval.h"
#include "Records.h"

#include <fmt/format.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <limits>
#include <optional>
#include <set>

using nlohmann::json;

namespace pkb {

namespace {

// Reads of the typed record. ReportData can also be filled by hand, so none
// of these assumes more than the types guarantee.

/// The record's explained_by list joined by spaces.
std::string explainedBy(const EvalRecord &R) {
  std::string Out;
  for (const std::string &X : R.ExplainedBy)
    Out += (Out.empty() ? "" : " ") + X;
  return Out;
}

double speedupOf(const EvalRecord &R) { return R.Dynamic.Speedup.value_or(0); }

ProblemKey problemOf(const EvalRecord &R) {
  if (!R.Problem)
    return {};
  return {R.Problem->Id, R.Problem->Name};
}

std::string problemKey(const EvalRecord &R) {
  if (!R.Problem)
    return "(unknown)";
  return fmt::format("{} {}", R.Problem->Id, R.Problem->Name);
}

std::string problemLabel(const ProblemKey &K) {
  return K.Id == INT_MAX ? K.Name : fmt::format("{} {}", K.Id, K.Name);
}

/// The check ID of an explained_by entry "ID@line".
std::string checkIdOf(const std::string &E) { return E.substr(0, E.find('@')); }

/// The model name of input \p Path: a directory's name, or a file's name
/// without ".jsonl" and then without ".eval" (`pkbcheck eval -o X.eval.jsonl`).
std::string modelNameOf(const std::filesystem::path &Path) {
  std::filesystem::path P = Path.lexically_normal();
  if (!P.has_filename())
    P = P.parent_path();
  std::string N = P.filename().string();
  for (std::string_view Suffix : {".jsonl", ".eval"})
    if (N.size() > Suffix.size() && N.ends_with(Suffix))
      N.resize(N.size() - Suffix.size());
  return N;
}

/// The JSONL files of input \p In: In itself, or a directory's `*.jsonl`
/// (without `*.pkb-cases.jsonl`) in name order.
std::vector<std::string> inputFiles(const std::string &In) {
  std::error_code EC;
  if (!std::filesystem::is_directory(In, EC))
    return {In};
  std::vector<std::string> Out;
  for (const auto &E : std::filesystem::directory_iterator(In, EC)) {
    std::string N = E.path().filename().string();
    if (E.is_regular_file(EC) && N.ends_with(".jsonl") &&
        !N.ends_with(".pkb-cases.jsonl"))
      Out.push_back(E.path().string());
  }
  std::sort(Out.begin(), Out.end());
  return Out;
}

std::string escapeHtml(const std::string &S) {
  std::string O;
  for (char C : S) {
    switch (C) {
    case '&':
      O += "&amp;";
      break;
    case '<':
      O += "&lt;";
      break;
    case '>':
      O += "&gt;";
      break;
    case '"':
      O += "&quot;";
      break;
    default:
      O += C;
    }
  }
  return O;
}

std::string csvField(const std::string &S) {
  if (S.find_first_of(",\"\n") == std::string::npos)
    return S;
  std::string O = "\"";
  for (char C : S)
    O += C == '"' ? std::string("\"\"") : std::string(1, C);
  return O + "\"";
}

std::string pct(unsigned N, unsigned Total) {
  return Total ? fmt::format("{:.1f}%", 100.0 * N / Total) : "-";
}

std::string ratio(unsigned A, unsigned B) {
  return A + B ? fmt::format("{:.3f}", double(A) / (A + B)) : "n/a";
}

const char *classColor(const std::string &C) {
  static const std::map<std::string, const char *> Colors = {
      {"compile-error", "#7f7f7f"},   {"shape-error", "#bcbd22"},
      {"api-error", "#8c564b"},       {"runtime-error", "#d62728"},
      {"output-mismatch", "#ff7f0e"}, {"deadlock", "#9467bd"},
      {"cross-call-race", "#e377c2"}, {"unwritten-output", "#17becf"},
      {"correct-slower", "#98df8a"},  {"correct-faster", "#2ca02c"},
      {"correct-untimed", "#c5e8b7"}, {"static-flagged", "#ff9896"},
      {"static-clean", "#aec7e8"},    {"static-incomplete", "#dbdb8d"},
      {"not-analyzed", "#c7c7c7"}};
  auto It = Colors.find(C);
  return It == Colors.end() ? "#000000" : It->second;
}

/// A per-problem cell: each candidate's class and speedup ("correct-faster
/// 1.23x"), joined by "; "; "-" when the model has none for the problem.
std::string cellText(const std::map<std::string, std::vector<ProblemCell>> &Row,
                     const std::string &Model) {
  auto It = Row.find(Model);
  if (It == Row.end())
    return "-";
  std::string Out;
  for (const ProblemCell &C : It->second) {
    Out += Out.empty() ? "" : "; ";
    Out += C.Class;
    if (C.Speedup)
      Out += fmt::format(" {:.2f}x", *C.Speedup);
  }
  return Out;
}

/// A model's count of class \p C with the checks that explain it:
/// "3 (BAR-004: 2, SYNC-001: 1)"; "0" when it has none.
std::string classText(const ModelSummary &M, const std::string &C) {
  auto It = M.Classes.find(C);
  if (It == M.Classes.end())
    return "0";
  std::string Out = std::to_string(It->second);
  auto E = M.ExplainedBy.find(C);
  if (E != M.ExplainedBy.end() && !E->second.empty()) {
    std::string Ids;
    for (const auto &[Id, N] : E->second)
      Ids += fmt::format("{}{}: {}", Ids.empty() ? "" : ", ", Id, N);
    Out += " (" + Ids + ")";
  }
  return Out;
}

/// The classes any model has, in taxonomy order.
std::vector<std::string> usedClasses(const ReportData &D) {
  std::vector<std::string> Out;
  for (const std::string &C : D.Classes)
    if (D.ByClass.count(C))
      Out.push_back(C);
  return Out;
}

/// Ends a Markdown header row: the separator "| --- |" + \p Fixed, then
/// \p N times \p Cell, and a newline.
void writeMdRule(std::ostream &OS, const char *Fixed, size_t N,
                 const char *Cell = " ---: |") {
  OS << "\n| --- |" << Fixed;
  for (size_t I = 0; I < N; ++I)
    OS << Cell;
  OS << "\n";
}

/// A Markdown table with one column per model: header \p Key, then each
/// row's label and cells (one per model, D.Models order).
void writeModelTable(
    const ReportData &D, const char *Key, const char *Cell,
    const std::vector<std::pair<std::string, std::vector<std::string>>> &Rows,
    std::ostream &OS) {
  OS << "| " << Key << " |";
  for (const ModelSummary &M : D.Models)
    OS << " " << M.Name << " |";
  writeMdRule(OS, "", D.Models.size(), Cell);
  for (const auto &[Label, Cells] : Rows) {
    OS << "| " << Label << " |";
    for (const std::string &X : Cells)
      OS << " " << X << " |";
    OS << "\n";
  }
  OS << "\n";
}

/// The model comparison in Markdown: models, failure classes, problems.
void writeModelsMarkdown(const ReportData &D, std::ostream &OS) {
  OS << "## Models side by side\n\nfast_p: the fraction of the model's "
        "candidates that are correct and faster than the reference by more "
        "than a factor p (KernelBench).\n\n| model | candidates | correct | "
        "correct rate |";
  for (double P : D.ModelP)
    OS << fmt::format(" fast_{:g} |", P);
  writeMdRule(OS, " ---: | ---: | ---: |", D.ModelP.size());
  for (const ModelSummary &M : D.Models) {
    OS << fmt::format("| {} | {} | {} | {:.3f} |", M.Name, M.Candidates,
                      M.Correct, M.CorrectRate);
    for (double X : M.FastP)
      OS << fmt::format(" {:.3f} |", X);
    OS << "\n";
  }
  OS << "\n## Failure classes by model (explaining static findings)\n\n";
  std::vector<std::pair<std::string, std::vector<std::string>>> Rows;
  for (const std::string &C : usedClasses(D)) {
    Rows.push_back({C, {}});
    for (const ModelSummary &M : D.Models)
      Rows.back().second.push_back(classText(M, C));
  }
  writeModelTable(D, "class", " ---: |", Rows, OS);
  OS << "## Problems by model (class and speedup)\n\n";
  Rows.clear();
  for (const auto &[K, Row] : D.ProblemsByModel) {
    Rows.push_back({problemLabel(K), {}});
    for (const ModelSummary &M : D.Models)
      Rows.back().second.push_back(cellText(Row, M.Name));
  }
  writeModelTable(D, "problem", " --- |", Rows, OS);
}

/// The model comparison in HTML, with data attributes carrying the numbers.
void writeModelsHtml(const ReportData &D, std::ostream &OS) {
  OS << "<h2>Models side by side</h2>\n<p>fast_p: the fraction of the "
        "model's candidates that are correct and faster than the reference "
        "by more than a factor p (KernelBench).</p>\n<table id=\"models\">"
        "<tr><th>model</th><th>candidates</th><th>correct</th><th>correct "
        "rate</th>";
  for (double P : D.ModelP)
    OS << fmt::format("<th>fast_{:g}</th>", P);
  OS << "</tr>\n";
  for (const ModelSummary &M : D.Models) {
    OS << fmt::format("<tr data-model=\"{}\"><td>{}</td><td>{}</td><td>{}"
                      "</td><td data-correct-rate=\"{:.4f}\">{:.3f}</td>",
                      escapeHtml(M.Name), escapeHtml(M.Name), M.Candidates,
                      M.Correct, M.CorrectRate, M.CorrectRate);
    for (size_t I = 0; I < M.FastP.size(); ++I)
      OS << fmt::format("<td data-p=\"{:g}\" data-fast=\"{:.4f}\">{:.3f}"
                        "</td>",
                        D.ModelP[I], M.FastP[I], M.FastP[I]);
    OS << "</tr>\n";
  }
  // The header row of a table with one column per model.
  auto ModelHeader = [&](const char *Key) {
    OS << "<tr><th>" << Key << "</th>";
    for (const ModelSummary &M : D.Models)
      OS << "<th>" << escapeHtml(M.Name) << "</th>";
    OS << "</tr>\n";
  };
  OS << "</table>\n<h2>Failure classes by model (explaining static "
        "findings)</h2>\n<table id=\"model-classes\">";
  ModelHeader("class");
  for (const std::string &C : usedClasses(D)) {
    OS << "<tr><td>" << C << "</td>";
    for (const ModelSummary &M : D.Models) {
      auto It = M.Classes.find(C);
      OS << fmt::format("<td data-model=\"{}\" data-class=\"{}\" "
                        "data-count=\"{}\">{}</td>",
                        escapeHtml(M.Name), C,
                        It == M.Classes.end() ? 0 : It->second,
                        escapeHtml(classText(M, C)));
    }
    OS << "</tr>\n";
  }
  OS << "</table>\n<h2>Problems by model (class and speedup)</h2>\n<table "
        "id=\"problems\">";
  ModelHeader("problem");
  for (const auto &[K, Row] : D.ProblemsByModel) {
    OS << "<tr><td>" << escapeHtml(problemLabel(K)) << "</td>";
    for (const ModelSummary &M : D.Models)
      OS << "<td>" << escapeHtml(cellText(Row, M.Name)) << "</td>";
    OS << "</tr>\n";
  }
  OS << "</table>\n";
}

} // namespace

bool isCorrectClass(const std::string &Class) {
  return Class == "correct-faster" || Class == "correct-slower" ||
         Class == "correct-untimed";
}

double fastP(const std::vector<const EvalRecord *> &Records, double P) {
  if (Records.empty())
    return 0;
  unsigned N = 0;
  for (const EvalRecord *R : Records)
    if (isCorrectClass(R->Class) && speedupOf(*R) > P)
      ++N;
  return double(N) / Records.size();
}

bool loadReport(const std::vector<std::string> &Inputs, ReportData &Out,
                std::ostream &Log, const ReportOptions &Opts) {
  // Key: the candidate (shards of one run are merged), or with one model per
  // input, the model and the candidate (two models may share file names).
  std::map<std::string, EvalRecord> Last;
  for (const std::string &In : Inputs) {
    std::string Model = modelNameOf(In);
    for (const std::string &F : inputFiles(In)) {
      std::vector<json> Records;
      if (!readEvalRecords(F, Records, Log))
        return false;
      for (const json &J : Records) {
        EvalRecord R = evalRecordFromJson(J);
        if (Opts.ModelPerInput)
          R.Set = Model;
        std::string Key =
            Opts.ModelPerInput ? R.Set + '\n' + R.Candidate : R.Candidate;
        Last[Key] = std::move(R);
      }
    }
  }
  for (auto &[K, R] : Last)
    Out.Records.push_back(std::move(R));
  summarizeReport(Out);
  return true;
}

void summarizeReport(ReportData &Out) {
  std::vector<EvalRecord> Records = std::move(Out.Records);
  Out = ReportData();
  Out.Records = std::move(Records);
  for (EvalClass C :
       {EvalClass::CompileError, EvalClass::ShapeError, EvalClass::ApiError,
        EvalClass::RuntimeError, EvalClass::OutputMismatch, EvalClass::Deadlock,
        EvalClass::CrossCallRace, EvalClass::UnwrittenOutput,
        EvalClass::CorrectSlower, EvalClass::CorrectFaster,
        EvalClass::CorrectUntimed, EvalClass::StaticFlagged,
        EvalClass::StaticClean, EvalClass::StaticIncomplete,
        EvalClass::NotAnalyzed})
    Out.Classes.push_back(toString(C));

  std::map<std::string, std::vector<const EvalRecord *>> PerSet;
  double RunSeconds = 0;
  for (const EvalRecord &R : Out.Records) {
    std::string C = R.Class.empty() ? "not-analyzed" : R.Class;
    ++Out.ByClass[C];
    ++Out.BySet[R.Set][C];
    ++Out.ByProblem[problemKey(R)][C];
    PerSet[R.Set].push_back(&R);
    PerSet["all"].push_back(&R);
    if (isCorrectClass(C))
      if (auto F = rooflineFraction(R.Dynamic))
        Out.Roofline[problemKey(R)].push_back(*F);
    if (R.Dynamic.Ran) {
      ++Out.Runs;
      RunSeconds += R.Dynamic.Seconds.value_or(0);
      auto Cls = parseEvalClass(C);
      bool Failed = Cls && isDynamicFailure(*Cls);
      if (R.Gate == "flagged")
        ++(Failed ? Out.TP : Out.FP);
      else if (R.Gate == "pass" || R.Gate == "incomplete")
        ++(Failed ? Out.FN : Out.TN);
    } else if (R.Gate == "flagged") {
      ++Out.Gated;
    }
    Out.ProblemsByModel[problemOf(R)][R.Set].push_back(
        ProblemCell{R.Candidate, C, R.Dynamic.Speedup});
  }
  Out.MeanRunSeconds = Out.Runs ? RunSeconds / Out.Runs : 0;
  Out.GpuSecondsSaved = Out.Gated * Out.MeanRunSeconds;
  Out.P.clear();
  for (int I = 0; I <= 16; ++I)
    Out.P.push_back(I * 0.25);
  for (const auto &[Set, Recs] : PerSet)
    for (double P : Out.P)
      Out.FastP[Set].push_back(fastP(Recs, P));

  // The model comparison (KernelBench's fast_p thresholds).
  Out.ModelP = {0, 0.5, 0.8, 1, 1.5, 2};
  for (const auto &[Set, Recs] : PerSet) {
    if (Set == "all" && !Out.BySet.count("all"))
      continue;
    ModelSummary M;
    M.Name = Set;
    M.Candidates = static_cast<unsigned>(Recs.size());
    for (const EvalRecord *R : Recs) {
      std::string C = R->Class.empty() ? "not-analyzed" : R->Class;
      ++M.Classes[C];
      if (isCorrectClass(C))
        ++M.Correct;
      std::set<std::string> Ids;
      for (const std::string &E : R->ExplainedBy)
        Ids.insert(checkIdOf(E));
      for (const std::string &Id : Ids)
        ++M.ExplainedBy[C][Id];
    }
    M.CorrectRate = M.Candidates ? double(M.Correct) / M.Candidates : 0;
    for (double P : Out.ModelP)
      M.FastP.push_back(fastP(Recs, P));
    Out.Models.push_back(std::move(M));
  }
}

void writeMarkdown(const ReportData &D, std::ostream &OS) {
  OS << "# pkbcheck evaluation report\n\n";
  OS << fmt::format("{} candidate(s), {} run on GPUs.\n\n", D.Records.size(),
                    D.Runs);
  writeModelsMarkdown(D, OS);
  auto Table =
      [&](const char *Title, const char *Key,
          const std::map<std::string, std::map<std::string, unsigned>> &Rows) {
        OS << "## " << Title << "\n\n| " << Key << " | total |";
        std::vector<std::string> Cols;
        for (const std::string &C : D.Classes)
          if (D.ByClass.count(C)) {
            Cols.push_back(C);
            OS << " " << C << " |";
          }
        writeMdRule(OS, " ---: |", Cols.size());
        for (const auto &[Name, Counts] : Rows) {
          unsigned Total = 0;
          for (const auto &[C, N] : Counts)
            Total += N;
          OS << "| " << Name << " | " << Total << " |";
          for (const std::string &C : Cols) {
            auto It = Counts.find(C);
            OS << " " << (It == Counts.end() ? 0 : It->second) << " |";
          }
          OS << "\n";
        }
        OS << "\n";
      };
  Table("By candidate set", "set", D.BySet);
  Table("By problem", "problem", D.ByProblem);
  OS << "## By failure class\n\n| class | count | share |\n| --- | ---: | "
        "---: |\n";
  for (const std::string &C : D.Classes)
    if (D.ByClass.count(C))
      OS << fmt::format("| {} | {} | {} |\n", C, D.ByClass.at(C),
                        pct(D.ByClass.at(C), D.Records.size()));
  OS << "\n## fast_p (correct and faster than NCCL by more than p)\n\n| set "
        "|";
  for (double P : D.P)
    OS << fmt::format(" p={:g} |", P);
  writeMdRule(OS, "", D.P.size());
  for (const auto &[Set, V] : D.FastP) {
    OS << "| " << Set << " |";
    for (double X : V)
      OS << fmt::format(" {:.3f} |", X);
    OS << "\n";
  }
  OS << "\n## Roofline fraction of correct runs\n\n";
  if (D.Roofline.empty())
    OS << "No correct GPU runs with a roofline.\n\n";
  else {
    OS << "| problem | runs | median | best |\n| --- | ---: | ---: | ---: "
          "|\n";
    for (auto [P, V] : D.Roofline) {
      std::sort(V.begin(), V.end());
      OS << fmt::format("| {} | {} | {:.3f} | {:.3f} |\n", P, V.size(),
                        V[V.size() / 2], V.back());
    }
    OS << "\n";
  }
  OS << "## Screening quality of the static gate\n\n";
  OS << fmt::format("Over candidates both screened and run: TP {} (flagged, "
                    "failed), FP {} (flagged, correct), FN {} (passed, "
                    "failed), TN {} (passed, correct). Precision {}, recall "
                    "{}.\n\n",
                    D.TP, D.FP, D.FN, D.TN, ratio(D.TP, D.FP),
                    ratio(D.TP, D.FN));
  OS << fmt::format("{} flagged candidate(s) were not sent to GPUs; at the "
                    "mean GPU-stage time of {:.2f} s per run that saved "
                    "{:.1f} GPU-seconds.\n",
                    D.Gated, D.MeanRunSeconds, D.GpuSecondsSaved);
}

void writeCsv(const ReportData &D, std::ostream &OS) {
  OS << "candidate,set,problem_id,problem,class,gate,static_errors,"
        "static_warnings,speedup,roofline_fraction,explained_by\n";
  for (const EvalRecord &R : D.Records) {
    auto Roof = rooflineFraction(R.Dynamic);
    OS << csvField(R.Candidate) << "," << csvField(R.Set) << ","
       << (R.Problem ? std::to_string(R.Problem->Id) : "") << ","
       << csvField(R.Problem ? R.Problem->Name : "") << "," << csvField(R.Class)
       << "," << csvField(R.Gate) << "," << staticCount(R, false) << ","
       << staticCount(R, true) << ","
       << (speedupOf(R) > 0 ? fmt::format("{:.4f}", speedupOf(R)) : "") << ","
       << (Roof ? fmt::format("{:.4f}", *Roof) : "") << ","
       << csvField(explainedBy(R)) << "\n";
  }
}

void writeJson(const ReportData &D, std::ostream &OS) {
  json J;
  J["schema"] = "pkbcheck-report/1";
  J["candidates"] = D.Records.size();
  J["runs"] = D.Runs;
  J["by_class"] = D.ByClass;
  json FastP = json::object();
  for (const auto &[Set, V] : D.FastP) {
    json Curve = json::array();
    for (size_t I = 0; I < V.size(); ++I)
      Curve.push_back({{"p", D.P[I]}, {"fast", V[I]}});
    FastP[Set] = Curve;
  }
  J["fast_p"] = FastP;
  J["models"] = json::array();
  for (const ModelSummary &M : D.Models) {
    json Classes = json::object();
    for (const auto &[C, N] : M.Classes) {
      auto E = M.ExplainedBy.find(C);
      Classes[C] = {{"count", N},
                    {"explained_by", E == M.ExplainedBy.end()
                                         ? json::object()
                                         : json(E->second)}};
    }
    json Fast = json::array();
    for (size_t I = 0; I < M.FastP.size(); ++I)
      Fast.push_back({{"p", D.ModelP[I]}, {"fast", M.FastP[I]}});
    J["models"].push_back({{"name", M.Name},
                           {"candidates", M.Candidates},
                           {"correct", M.Correct},
                           {"correct_rate", M.CorrectRate},
                           {"fast_p", Fast},
                           {"classes", Classes}});
  }
  J["problems"] = json::array();
  for (const auto &[K, Row] : D.ProblemsByModel) {
    json Models = json::object();
    for (const auto &[Model, Cells] : Row) {
      json A = json::array();
      for (const ProblemCell &C : Cells)
        A.push_back(
            {{"candidate", C.Candidate},
             {"class", C.Class},
             {"speedup", C.Speedup ? json(*C.Speedup) : json(nullptr)}});
      Models[Model] = A;
    }
    J["problems"].push_back(
        {{"id", K.Id == INT_MAX ? json(nullptr) : json(K.Id)},
         {"name", K.Name},
         {"models", Models}});
  }
  J["screening"] = {
      {"tp", D.TP},       {"fp", D.FP},
      {"fn", D.FN},       {"tn", D.TN},
      {"gated", D.Gated}, {"gpu_seconds_saved", D.GpuSecondsSaved}};
  // Invalid UTF-8 in candidate names is replaced, so dump() cannot throw.
  OS << J.dump(2, ' ', false, json::error_handler_t::replace) << "\n";
}

void writeHtml(const ReportData &D, std::ostream &OS) {
  OS << "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
        "<title>pkbcheck report</title><style>"
        "body{font-family:system-ui,sans-serif;margin:2em;color:#222}"
        "table{border-collapse:collapse;margin:1em 0}"
        "td,th{border:1px solid #ccc;padding:3px 8px;text-align:right}"
        "td:first-child,th:first-child{text-align:left}"
        "svg{background:#fafafa;border:1px solid #ddd;margin:0.5em 0}"
        ".legend span{display:inline-block;margin-right:1em}"
        ".sw{display:inline-block;width:12px;height:12px;margin-right:4px}"
        "</style></head><body>\n";
  OS << "<h1>pkbcheck evaluation report</h1>\n";
  OS << fmt::format("<p id=\"totals\" data-candidates=\"{}\" "
                    "data-runs=\"{}\">{} candidate(s), {} run on GPUs.</p>\n",
                    D.Records.size(), D.Runs, D.Records.size(), D.Runs);

  // Stacked failure-class bars, one per set.
  std::vector<std::string> Used;
  for (const std::string &C : D.Classes)
    if (D.ByClass.count(C))
      Used.push_back(C);
  const int BarH = 22, Left = 160, Width = 520;
  int H = static_cast<int>(D.BySet.size()) * (BarH + 8) + 20;
  OS << "<h2>Failure classes by candidate set</h2>\n<div class=\"legend\">";
  for (const std::string &C : Used)
    OS << fmt::format("<span><i class=\"sw\" style=\"background:{}\"></i>{}"
                      "</span>",
                      classColor(C), C);
  OS << fmt::format("</div>\n<svg id=\"classbars\" width=\"{}\" height=\"{}\" "
                    "xmlns=\"http://www.w3.org/2000/svg\">\n",
                    Left + Width + 20, H);
  int Y = 10;
  for (const auto &[Set, Counts] : D.BySet) {
    unsigned Total = 0;
    for (const auto &[C, N] : Counts)
      Total += N;
    OS << fmt::format("<text x=\"4\" y=\"{}\" font-size=\"12\">{} ({})</text>",
                      Y + 15, escapeHtml(Set), Total);
    double X = Left;
    for (const std::string &C : Used) {
      auto It = Counts.find(C);
      if (It == Counts.end())
        continue;
      double W = Total ? Width * double(It->second) / Total : 0;
      OS << fmt::format("<rect x=\"{:.1f}\" y=\"{}\" width=\"{:.1f}\" "
                        "height=\"{}\" fill=\"{}\" data-set=\"{}\" "
                        "data-class=\"{}\" data-count=\"{}\"><title>{}: {} "
                        "{}</title></rect>",
                        X, Y, W, BarH, classColor(C), escapeHtml(Set), C,
                        It->second, escapeHtml(Set), It->second, C);
      X += W;
    }
    OS << "\n";
    Y += BarH + 8;
  }
  OS << "</svg>\n";

  // fast_p curves.
  const int PW = 480, PH = 260, PL = 50, PB = 30;
  static const char *Palette[] = {"#1f77b4", "#ff7f0e", "#2ca02c", "#d62728",
                                  "#9467bd", "#8c564b", "#e377c2", "#7f7f7f"};
  OS << "<h2>fast_p</h2>\n<p>Fraction of candidates that are correct and "
        "faster than the NCCL reference by more than a factor p.</p>\n";
  OS << fmt::format("<svg id=\"fastp\" width=\"{}\" height=\"{}\" "
                    "xmlns=\"http://www.w3.org/2000/svg\">",
                    PL + PW + 120, PH + PB + 10);
  OS << fmt::format("<line x1=\"{}\" y1=\"{}\" x2=\"{}\" y2=\"{}\" "
                    "stroke=\"#333\"/><line x1=\"{}\" y1=\"10\" x2=\"{}\" "
                    "y2=\"{}\" stroke=\"#333\"/>",
                    PL, PH + 10, PL + PW, PH + 10, PL, PL, PH + 10);
  for (int I = 0; I <= 4; ++I)
    OS << fmt::format("<text x=\"{}\" y=\"{}\" font-size=\"11\">p={}</text>"
                      "<text x=\"10\" y=\"{}\" font-size=\"11\">{:.2f}"
                      "</text>",
                      PL + I * PW / 4 - 8, PH + 25, I, 10 + PH - I * PH / 4 + 4,
                      I / 4.0);
  size_t Ci = 0;
  for (const auto &[Set, V] : D.FastP) {
    std::string Pts;
    for (size_t I = 0; I < V.size(); ++I)
      Pts += fmt::format("{:.1f},{:.1f} ", PL + PW * D.P[I] / 4.0,
                         10 + PH * (1.0 - V[I]));
    const char *Col = Palette[Ci++ % 8];
    OS << fmt::format("<polyline fill=\"none\" stroke=\"{}\" "
                      "stroke-width=\"2\" points=\"{}\" data-set=\"{}\" "
                      "data-fast0=\"{:.4f}\"/>",
                      Col, Pts, escapeHtml(Set), V.empty() ? 0.0 : V[0]);
    OS << fmt::format("<text x=\"{}\" y=\"{}\" font-size=\"12\" "
                      "fill=\"{}\">{}</text>",
                      PL + PW + 10, 20 + 16 * (Ci - 1), Col, escapeHtml(Set));
  }
  OS << "</svg>\n";

  // Roofline scatter: speedup (x) vs roofline fraction (y).
  OS << "<h2>Roofline</h2>\n<p>Each dot is a correct GPU run: speedup over "
        "NCCL (x, 0 to 4) against the achieved fraction of the roofline "
        "floor time (y).</p>\n";
  OS << fmt::format("<svg id=\"roofline\" width=\"{}\" height=\"{}\" "
                    "xmlns=\"http://www.w3.org/2000/svg\">",
                    PL + PW + 20, PH + PB + 10);
  OS << fmt::format("<line x1=\"{}\" y1=\"{}\" x2=\"{}\" y2=\"{}\" "
                    "stroke=\"#333\"/><line x1=\"{}\" y1=\"10\" x2=\"{}\" "
                    "y2=\"{}\" stroke=\"#333\"/>",
                    PL, PH + 10, PL + PW, PH + 10, PL, PL, PH + 10);
  unsigned Dots = 0;
  for (const EvalRecord &R : D.Records) {
    auto F = rooflineFraction(R.Dynamic);
    if (!isCorrectClass(R.Class) || !F)
      continue;
    double X = PL + PW * std::min(speedupOf(R), 4.0) / 4.0;
    double Yv = 10 + PH * (1.0 - std::clamp(*F, 0.0, 1.0));
    OS << fmt::format("<circle cx=\"{:.1f}\" cy=\"{:.1f}\" r=\"4\" "
                      "fill=\"#1f77b4\"><title>{}: speedup {:.2f}, roofline "
                      "{:.2f}</title></circle>",
                      X, Yv, escapeHtml(R.Candidate), speedupOf(R), *F);
    ++Dots;
  }
  if (!Dots)
    OS << fmt::format("<text x=\"{}\" y=\"{}\" font-size=\"13\">no timed "
                      "correct GPU runs yet</text>",
                      PL + 20, PH / 2);
  OS << "</svg>\n";

  // Tables.
  OS << "<h2>By failure class</h2>\n<table id=\"classes\"><tr><th>class</th>"
        "<th>count</th><th>share</th></tr>\n";
  for (const std::string &C : Used)
    OS << fmt::format("<tr><td>{}</td><td data-class=\"{}\">{}</td><td>{}"
                      "</td></tr>\n",
                      C, C, D.ByClass.at(C),
                      pct(D.ByClass.at(C), D.Records.size()));
  OS << "</table>\n<h2>By problem</h2>\n<table><tr><th>problem</th>"
        "<th>total</th><th>correct</th><th>failed on GPU</th><th>flagged"
        "</th></tr>\n";
  for (const auto &[P, Counts] : D.ByProblem) {
    unsigned Total = 0, Correct = 0, Failed = 0, Flagged = 0;
    for (const auto &[C, N] : Counts) {
      Total += N;
      auto Cls = parseEvalClass(C);
      if (isCorrectClass(C))
        Correct += N;
      else if (Cls && isDynamicFailure(*Cls))
        Failed += N;
      else if (C == "static-flagged")
        Flagged += N;
    }
    OS << fmt::format("<tr><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>"
                      "{}</td></tr>\n",
                      escapeHtml(P), Total, Correct, Failed, Flagged);
  }
  OS << "</table>\n";
  writeModelsHtml(D, OS);
  OS << "<h2>Screening quality</h2>\n";
  OS << fmt::format("<p id=\"screening\">TP {} &middot; FP {} &middot; FN {} "
                    "&middot; TN {} &middot; precision {} &middot; recall {}"
                    " &middot; {} flagged candidate(s) not run, {:.1f} "
                    "GPU-seconds saved.</p>\n",
                    D.TP, D.FP, D.FN, D.TN, ratio(D.TP, D.FP),
                    ratio(D.TP, D.FN), D.Gated, D.GpuSecondsSaved);
  OS << "<h2>Candidates</h2>\n<table><tr><th>candidate</th><th>set</th>"
        "<th>problem</th><th>class</th><th>static errors</th><th>speedup</th>"
        "<th>explained by</th></tr>\n";
  for (const EvalRecord &R : D.Records) {
    OS << fmt::format(
        "<tr><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}"
        "</td><td>{}</td></tr>\n",
        escapeHtml(R.Candidate), escapeHtml(R.Set), escapeHtml(problemKey(R)),
        escapeHtml(R.Class), staticCount(R, false),
        speedupOf(R) > 0 ? fmt::format("{:.2f}", speedupOf(R)) : "",
        escapeHtml(explainedBy(R)));
  }
  OS << "</table>\n</body></html>\n";
}

} // namespace pkb
