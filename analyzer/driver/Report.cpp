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
#include <fstream>
#include <limits>
#include <optional>
#include <set>

using nlohmann::json;

namespace pkb {

namespace {

// Type-tolerant field reads. Records are validated when loaded
// (readEvalRecords), but ReportData can also be filled by hand: none of
// these throws, whatever the record holds.

/// The member \p Key of \p R, or null if R is no object or lacks it.
const json *field(const json &R, const char *Key) {
  if (!R.is_object())
    return nullptr;
  auto It = R.find(Key);
  return It == R.end() ? nullptr : &*It;
}

/// R[Key] if it is a string, else \p Default.
std::string stringOr(const json &R, const char *Key,
                     const std::string &Default = "") {
  const json *F = field(R, Key);
  return F && F->is_string() ? F->get<std::string>() : Default;
}

/// R[Key] if it is a number, else \p Default (NaN is written as null).
double numberOr(const json &R, const char *Key, double Default) {
  const json *F = field(R, Key);
  return F && F->is_number() ? F->get<double>() : Default;
}

/// R[Key] if it is an integer, else \p Default.
long long integerOr(const json &R, const char *Key, long long Default) {
  const json *F = field(R, Key);
  if (F && F->is_number_integer())
    return F->is_number_unsigned()
               ? static_cast<long long>(std::min<uint64_t>(
                     F->get<uint64_t>(), std::numeric_limits<long long>::max()))
               : F->get<long long>();
  return Default;
}

/// R[Key] if it is an object, else an empty object.
const json &objectOr(const json &R, const char *Key) {
  static const json Empty = json::object();
  const json *F = field(R, Key);
  return F && F->is_object() ? *F : Empty;
}

/// The record's explained_by list joined by spaces (non-strings skipped).
std::string explainedBy(const json &R) {
  std::string Out;
  const json *E = field(R, "explained_by");
  if (E && E->is_array())
    for (const json &X : *E)
      if (X.is_string())
        Out += (Out.empty() ? "" : " ") + X.get<std::string>();
  return Out;
}

bool isCorrect(const json &R) {
  std::string C = stringOr(R, "class");
  return C == "correct-faster" || C == "correct-slower" ||
         C == "correct-untimed";
}

double speedupOf(const json &R) {
  return numberOr(objectOr(R, "dynamic"), "speedup", 0);
}

bool hasProblem(const json &R) {
  const json *P = field(R, "problem");
  return P && P->is_object();
}

std::string problemKey(const json &R) {
  if (!hasProblem(R))
    return "(unknown)";
  const json &P = objectOr(R, "problem");
  return fmt::format("{} {}", integerOr(P, "id", 0), stringOr(P, "name"));
}

/// Roofline fraction of a run: "roofline_fraction" or roofline.fraction.
std::optional<double> rooflineOf(const json &R) {
  const json &D = objectOr(R, "dynamic");
  const json *F = field(D, "roofline_fraction");
  if (F && F->is_number())
    return F->get<double>();
  F = field(objectOr(D, "roofline"), "fraction");
  if (F && F->is_number())
    return F->get<double>();
  return std::nullopt;
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

} // namespace

double fastP(const std::vector<const json *> &Records, double P) {
  if (Records.empty())
    return 0;
  unsigned N = 0;
  for (const json *R : Records)
    if (isCorrect(*R) && speedupOf(*R) > P)
      ++N;
  return double(N) / Records.size();
}

bool loadReport(const std::vector<std::string> &Files, ReportData &Out,
                std::ostream &Log) {
  std::map<std::string, json> Last;
  for (const std::string &F : Files) {
    // Records are validated (Records.h), so the reads below cannot throw.
    std::vector<json> Records;
    if (!readEvalRecords(F, Records, Log))
      return false;
    for (json &J : Records) {
      std::string Candidate = J["candidate"].get<std::string>();
      Last[Candidate] = std::move(J);
    }
  }
  for (auto &[K, R] : Last)
    Out.Records.push_back(R);
  for (EvalClass C :
       {EvalClass::CompileError, EvalClass::ShapeError, EvalClass::ApiError,
        EvalClass::RuntimeError, EvalClass::OutputMismatch, EvalClass::Deadlock,
        EvalClass::CrossCallRace, EvalClass::UnwrittenOutput,
        EvalClass::CorrectSlower, EvalClass::CorrectFaster,
        EvalClass::CorrectUntimed, EvalClass::StaticFlagged,
        EvalClass::StaticClean, EvalClass::StaticIncomplete,
        EvalClass::NotAnalyzed})
    Out.Classes.push_back(toString(C));

  std::map<std::string, std::vector<const json *>> PerSet;
  double RunSeconds = 0;
  for (const json &R : Out.Records) {
    std::string C = stringOr(R, "class", "not-analyzed");
    std::string Set = stringOr(R, "set", "default");
    ++Out.ByClass[C];
    ++Out.BySet[Set][C];
    ++Out.ByProblem[problemKey(R)][C];
    PerSet[Set].push_back(&R);
    PerSet["all"].push_back(&R);
    if (isCorrect(R))
      if (auto F = rooflineOf(R))
        Out.Roofline[problemKey(R)].push_back(*F);
    const json &Dyn = objectOr(R, "dynamic");
    const json *RanField = field(Dyn, "ran");
    bool Ran = RanField && RanField->is_boolean() && RanField->get<bool>();
    std::string Gate = stringOr(R, "gate");
    if (Ran) {
      ++Out.Runs;
      RunSeconds += numberOr(Dyn, "seconds", 0.0);
      auto Cls = parseEvalClass(C);
      bool Failed = Cls && isDynamicFailure(*Cls);
      if (Gate == "flagged")
        ++(Failed ? Out.TP : Out.FP);
      else if (Gate == "pass" || Gate == "incomplete")
        ++(Failed ? Out.FN : Out.TN);
    } else if (Gate == "flagged") {
      ++Out.Gated;
    }
  }
  Out.MeanRunSeconds = Out.Runs ? RunSeconds / Out.Runs : 0;
  Out.GpuSecondsSaved = Out.Gated * Out.MeanRunSeconds;
  for (int I = 0; I <= 16; ++I)
    Out.P.push_back(I * 0.25);
  for (const auto &[Set, Recs] : PerSet)
    for (double P : Out.P)
      Out.FastP[Set].push_back(fastP(Recs, P));
  return true;
}

void writeMarkdown(const ReportData &D, std::ostream &OS) {
  OS << "# pkbcheck evaluation report\n\n";
  OS << fmt::format("{} candidate(s), {} run on GPUs.\n\n", D.Records.size(),
                    D.Runs);
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
        OS << "\n| --- | ---: |";
        for (size_t I = 0; I < Cols.size(); ++I)
          OS << " ---: |";
        OS << "\n";
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
  OS << "\n| --- |";
  for (size_t I = 0; I < D.P.size(); ++I)
    OS << " ---: |";
  OS << "\n";
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
  for (const json &R : D.Records) {
    const json &Static = objectOr(R, "static");
    const json &Problem = objectOr(R, "problem");
    auto Roof = rooflineOf(R);
    bool HasProblem = hasProblem(R);
    OS << csvField(stringOr(R, "candidate")) << ","
       << csvField(stringOr(R, "set")) << ","
       << (HasProblem ? std::to_string(integerOr(Problem, "id", 0)) : "") << ","
       << csvField(stringOr(Problem, "name")) << ","
       << csvField(stringOr(R, "class")) << "," << csvField(stringOr(R, "gate"))
       << "," << integerOr(Static, "errors", 0) << ","
       << integerOr(Static, "warnings", 0) << ","
       << (speedupOf(R) > 0 ? fmt::format("{:.4f}", speedupOf(R)) : "") << ","
       << (Roof ? fmt::format("{:.4f}", *Roof) : "") << ","
       << csvField(explainedBy(R)) << "\n";
  }
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
  for (const json &R : D.Records) {
    auto F = rooflineOf(R);
    if (!isCorrect(R) || !F)
      continue;
    double X = PL + PW * std::min(speedupOf(R), 4.0) / 4.0;
    double Yv = 10 + PH * (1.0 - std::clamp(*F, 0.0, 1.0));
    OS << fmt::format("<circle cx=\"{:.1f}\" cy=\"{:.1f}\" r=\"4\" "
                      "fill=\"#1f77b4\"><title>{}: speedup {:.2f}, roofline "
                      "{:.2f}</title></circle>",
                      X, Yv, escapeHtml(stringOr(R, "candidate")), speedupOf(R),
                      *F);
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
      if (C == "correct-faster" || C == "correct-slower" ||
          C == "correct-untimed")
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
  OS << "</table>\n<h2>Screening quality</h2>\n";
  OS << fmt::format("<p id=\"screening\">TP {} &middot; FP {} &middot; FN {} "
                    "&middot; TN {} &middot; precision {} &middot; recall {}"
                    " &middot; {} flagged candidate(s) not run, {:.1f} "
                    "GPU-seconds saved.</p>\n",
                    D.TP, D.FP, D.FN, D.TN, ratio(D.TP, D.FP),
                    ratio(D.TP, D.FN), D.Gated, D.GpuSecondsSaved);
  OS << "<h2>Candidates</h2>\n<table><tr><th>candidate</th><th>set</th>"
        "<th>problem</th><th>class</th><th>static errors</th><th>speedup</th>"
        "<th>explained by</th></tr>\n";
  for (const json &R : D.Records) {
    OS << fmt::format(
        "<tr><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}"
        "</td><td>{}</td></tr>\n",
        escapeHtml(stringOr(R, "candidate")), escapeHtml(stringOr(R, "set")),
        escapeHtml(problemKey(R)), escapeHtml(stringOr(R, "class")),
        integerOr(objectOr(R, "static"), "errors", 0),
        speedupOf(R) > 0 ? fmt::format("{:.2f}", speedupOf(R)) : "",
        escapeHtml(explainedBy(R)));
  }
  OS << "</table>\n</body></html>\n";
}

} // namespace pkb
