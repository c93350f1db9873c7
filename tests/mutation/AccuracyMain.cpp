//===- AccuracyMain.cpp - pkb_accuracy: corpus accuracy and mutation score ===//
//
//   pkb_accuracy corpus [--json FILE] [-j N] [--timeout S] PATH...
//   pkb_accuracy mutate [--json FILE] [-j N] [--timeout S]
//                       [--operators LIST] [--equivalent FILE] PATH...
//
// Runs the pipeline of tests/corpus/CorpusCheckTest.cpp (readInput ->
// buildModels with the bundled shims -> every checker) on each file in its own
// forked child (app/ProcessPool.h), then prints precision and
// recall against the `expect:` annotations (corpus) or the mutation score of
// the correct files (mutate). See docs/accuracy.md.
//
//===----------------------------------------------------------------------===//
#include "Analyze.h"
#include "Mutation.h"
#include "ProcessPool.h"
#include "Scoring.h"
#include "pkb/Ingest.h"

#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <iostream>
#include <sstream>

using namespace pkb;
using namespace pkb::accuracy;
namespace fs = std::filesystem;
namespace mut = pkb::mutation;

namespace {

struct CommonOptions {
  std::vector<std::string> Paths;
  std::string Json;
  unsigned Jobs = 1;
  double Timeout = 300;
};

std::string readText(const std::string &Path) {
  std::ifstream In(Path, std::ios::binary);
  std::ostringstream S;
  S << In.rdbuf();
  return S.str();
}

bool writeText(const std::string &Path, const std::string &Text) {
  std::ofstream Out(Path, std::ios::binary);
  Out << Text;
  return static_cast<bool>(Out);
}

/// Corpus files (.cu, .py) under the given files and directories, sorted.
std::vector<std::string> inputFiles(const std::vector<std::string> &Paths) {
  std::vector<Diagnostic> Diags;
  std::vector<std::string> R;
  for (const std::string &P : expandInputs(Paths, Diags)) {
    std::string Ext = fs::path(P).extension().string();
    if (Ext == ".cu" || Ext == ".py")
      R.push_back(P);
  }
  for (const Diagnostic &D : Diags)
    std::fprintf(stderr, "pkb_accuracy: %s: %s\n", D.Loc.File.c_str(),
                 D.Message.c_str());
  return R;
}

/// Analyzes every path in forked children; reports progress on stderr and
/// calls \p Hook (if any) with each finished report.
std::vector<FileReport>
analyzeAll(const std::vector<std::string> &Paths, const CommonOptions &O,
           const std::vector<std::string> &Labels,
           const std::function<void(size_t, const FileReport &)> &Hook = {}) {
  AnalyzeOptions AO;
  AO.ForceShims = true; // as the corpus test: reproducible without a toolkit
  AO.Topology = "h200x2-nvlink"; // the corpus labels TOPO-001 against it
  PoolOptions PO;
  PO.Jobs = O.Jobs ? O.Jobs : 1;
  PO.TimeoutSeconds = O.Timeout;
  std::vector<FileReport> Reports(Paths.size());
  size_t Done = 0;
  runInChildren(
      Paths, PO, [&](const std::string &P) { return analyzeFile(P, AO); },
      [&](size_t I, FileReport R) {
        ++Done;
        std::fprintf(stderr, "[%zu/%zu] %6.2fs %-12s %s\n", Done, Paths.size(),
                     R.Seconds, R.Status.c_str(), Labels[I].c_str());
        Reports[I] = std::move(R);
        if (Hook)
          Hook(I, Reports[I]);
      });
  return Reports;
}

size_t parseErrors(const FileReport &R) {
  size_t N = 0;
  for (const Diagnostic &D : R.Diags)
    N += D.Code == "parse-error" && D.Sev == Severity::Error;
  return N;
}

std::string keysString(const std::set<Key> &Keys) {
  std::string S;
  for (const Key &K : Keys)
    S += (S.empty() ? "" : " ") + K.second + "@" + std::to_string(K.first);
  return S.empty() ? "-" : S;
}

bool writeJson(const std::string &Path, const nlohmann::json &J) {
  if (Path.empty())
    return true;
  if (!writeText(Path, J.dump(2) + "\n")) {
    std::fprintf(stderr, "pkb_accuracy: cannot write %s\n", Path.c_str());
    return false;
  }
  return true;
}

//===----------------------------------------------------------------------===//
// corpus
//===----------------------------------------------------------------------===//

int runCorpus(const CommonOptions &O) {
  std::vector<std::string> Files = inputFiles(O.Paths);
  if (Files.empty()) {
    std::fprintf(stderr, "pkb_accuracy: no .cu or .py files\n");
    return 2;
  }
  std::vector<std::string> Labels;
  for (const std::string &F : Files)
    Labels.push_back(fs::path(F).filename().string());
  std::vector<FileReport> Reports = analyzeAll(Files, O, Labels);
  std::vector<FileScore> Scores;
  for (size_t I = 0; I < Files.size(); ++I)
    Scores.push_back(scoreFile(Files[I], readAnnotations(readText(Files[I])),
                               Reports[I].Findings, Reports[I].Status,
                               Reports[I].Seconds));
  CorpusScore S = scoreCorpus(std::move(Scores));

  std::printf("%-40s %7s %-12s %3s %3s %3s  %s\n", "file", "seconds", "status",
              "TP", "FP", "FN", "exact / expected vs reported");
  for (const FileScore &F : S.Files) {
    std::string Detail = F.Exact ? "yes"
                                 : "NO  expected: " + keysString(F.Want) +
                                       "  reported: " + keysString(F.Got);
    std::printf("%-40s %7.2f %-12s %3zu %3zu %3zu  %s\n",
                fs::path(F.Path).filename().string().c_str(), F.Seconds,
                F.Status.c_str(), F.C.Tp, F.C.Fp, F.C.Fn, Detail.c_str());
  }
  std::printf("\n%-10s %4s %4s %4s %10s %8s\n", "ID", "TP", "FP", "FN",
              "precision", "recall");
  for (const auto &[Id, C] : S.PerId)
    std::printf("%-10s %4zu %4zu %4zu %10.3f %8.3f\n", Id.c_str(), C.Tp, C.Fp,
                C.Fn, C.precision(), C.recall());
  std::printf("%-10s %4zu %4zu %4zu %10.3f %8.3f\n", "overall", S.Total.Tp,
              S.Total.Fp, S.Total.Fn, S.Total.precision(), S.Total.recall());
  std::printf("\nfiles: %zu, exact match: %zu; correct files: %zu, with an "
              "error-level finding (false alarm): %zu (%zu findings); "
              "analysis time: %.1f s (sum over files)\n",
              S.Files.size(), S.Exact, S.CorrectFiles, S.CorrectFilesWithErrors,
              S.FalseAlarms, S.Seconds);
  std::printf("corpus: precision %.3f recall %.3f\n", S.Total.precision(),
              S.Total.recall());
  nlohmann::json J = toJson(S);
  for (size_t I = 0; I < Files.size(); ++I)
    J["files"][I]["parse_errors"] = parseErrors(Reports[I]);
  return writeJson(O.Json, J) ? 0 : 1;
}

//===----------------------------------------------------------------------===//
// mutate
//===----------------------------------------------------------------------===//

struct MutantRun {
  size_t Source = 0; ///< index into the source files
  mut::Mutant M;
  std::string Path; ///< the mutated copy
};

std::string oneLine(std::string S) {
  for (char &C : S)
    if (C == '\n' || C == '\t')
      C = ' ';
  size_t B = S.find_first_not_of(' ');
  if (B == std::string::npos)
    return S;
  S = S.substr(B);
  if (S.size() > 70)
    S = S.substr(0, 67) + "...";
  return S;
}

int runMutate(const CommonOptions &O, const std::string &OperatorList,
              const std::string &EquivalentPath,
              const std::string &BaselinePath, bool ListOnly) {
  std::vector<mut::Op> Ops;
  if (OperatorList.empty()) {
    for (const mut::OperatorInfo &I : mut::operators())
      Ops.push_back(I.Kind);
  } else {
    std::stringstream SS(OperatorList);
    std::string Name;
    while (std::getline(SS, Name, ',')) {
      std::optional<mut::Op> K = mut::parseOperator(Name);
      if (!K) {
        std::fprintf(stderr, "pkb_accuracy: unknown operator '%s'\n",
                     Name.c_str());
        return 2;
      }
      Ops.push_back(*K);
    }
  }
  std::set<std::string> Equivalent;
  if (!EquivalentPath.empty()) {
    std::vector<std::string> Errors;
    Equivalent = readEquivalentList(readText(EquivalentPath), Errors);
    for (const std::string &E : Errors)
      std::fprintf(stderr, "pkb_accuracy: %s: %s\n", EquivalentPath.c_str(),
                   E.c_str());
    if (!Errors.empty())
      return 2;
  }

  std::vector<std::string> Sources;
  std::vector<std::string> Texts;
  for (const std::string &F : inputFiles(O.Paths)) {
    std::string Text = readText(F);
    if (!readAnnotations(Text).empty()) {
      std::fprintf(stderr,
                   "pkb_accuracy: skipping %s (has expect: "
                   "annotations; mutate takes correct files)\n",
                   F.c_str());
      continue;
    }
    Sources.push_back(F);
    Texts.push_back(std::move(Text));
  }
  if (Sources.empty()) {
    std::fprintf(stderr, "pkb_accuracy: no correct .cu or .py files\n");
    return 2;
  }
  if (ListOnly) { // dry run: the mutants, without analysis
    size_t N = 0;
    for (size_t S = 0; S < Sources.size(); ++S) {
      bool Python = fs::path(Sources[S]).extension() == ".py";
      for (const mut::Mutant &M : mut::findMutants(Texts[S], Python, Ops)) {
        ++N;
        std::printf("%s:%u:%u:%s  `%s` -> `%s`\n",
                    fs::path(Sources[S]).filename().string().c_str(), M.Line,
                    M.Col, mut::info(M.Kind).Name.c_str(),
                    oneLine(M.Original).c_str(),
                    oneLine(M.Replacement).c_str());
      }
    }
    std::printf("%zu mutants\n", N);
    return 0;
  }

  std::error_code EC;
  std::string Tmpl =
      (fs::temp_directory_path() / "pkb_accuracy.XXXXXX").string();
  if (!::mkdtemp(Tmpl.data())) {
    std::fprintf(stderr, "pkb_accuracy: cannot create a temporary directory\n");
    return 1;
  }
  fs::path Tmp = Tmpl;

  // Mutants interleaved round-robin over the files, so that an interrupted
  // run (see the per-mutant lines on stderr) still samples every file.
  std::vector<std::vector<mut::Mutant>> PerFile;
  for (size_t S = 0; S < Sources.size(); ++S)
    PerFile.push_back(mut::findMutants(
        Texts[S], fs::path(Sources[S]).extension() == ".py", Ops));
  std::vector<MutantRun> Runs;
  for (size_t K = 0, Left = 1; Left; ++K) {
    Left = 0;
    for (size_t S = 0; S < Sources.size(); ++S) {
      if (K >= PerFile[S].size())
        continue;
      ++Left;
      fs::path Dir = Tmp / ("m" + std::to_string(Runs.size()));
      fs::create_directories(Dir, EC);
      fs::path P = Dir / fs::path(Sources[S]).filename();
      if (!writeText(P.string(), PerFile[S][K].apply(Texts[S]))) {
        std::fprintf(stderr, "pkb_accuracy: cannot write %s\n",
                     P.string().c_str());
        fs::remove_all(Tmp, EC);
        return 1;
      }
      Runs.push_back({S, PerFile[S][K], P.string()});
    }
  }

  // Baselines: the unmutated files, from --baseline (a `corpus --json`
  // result) or analyzed first.
  std::vector<FileReport> Base(Sources.size());
  std::vector<bool> HaveBase(Sources.size(), false);
  if (!BaselinePath.empty()) {
    nlohmann::json BJ =
        nlohmann::json::parse(readText(BaselinePath), nullptr, false);
    if (BJ.is_discarded() || !BJ.contains("files")) {
      std::fprintf(stderr, "pkb_accuracy: %s: not a `corpus --json` result\n",
                   BaselinePath.c_str());
      fs::remove_all(Tmp, EC);
      return 2;
    }
    for (const nlohmann::json &F : BJ["files"]) {
      std::string Name =
          fs::path(F.value("file", std::string())).filename().string();
      for (size_t S = 0; S < Sources.size(); ++S) {
        if (fs::path(Sources[S]).filename().string() != Name)
          continue;
        Base[S].Status = F.value("status", std::string("ok"));
        for (const nlohmann::json &K : F.value("reported", nlohmann::json()))
          Base[S].Findings.push_back(
              Finding{K.value("id", std::string()),
                      Severity::Warning,
                      "",
                      SourceLoc{"", K.value("line", 0u), 0},
                      "",
                      "",
                      {},
                      {},
                      {}});
        for (size_t E = 0; E < F.value("parse_errors", size_t(0)); ++E)
          Base[S].Diags.push_back(
              Diagnostic{"parse-error", Severity::Error, SourceLoc{}, ""});
        HaveBase[S] = true;
      }
    }
  }
  std::vector<std::string> Paths, Labels;
  std::vector<long> PathSource; // source index of an original, or -1
  for (size_t S = 0; S < Sources.size(); ++S)
    if (!HaveBase[S]) {
      Paths.push_back(Sources[S]);
      Labels.push_back(fs::path(Sources[S]).filename().string() +
                       " (original)");
      PathSource.push_back(static_cast<long>(S));
    }
  size_t FirstMutant = Paths.size();
  for (const MutantRun &R : Runs) {
    Paths.push_back(R.Path);
    Labels.push_back(fs::path(Sources[R.Source]).filename().string() + ":" +
                     std::to_string(R.M.Line) + ":" + mut::info(R.M.Kind).Name);
    PathSource.push_back(-1);
  }
  std::fprintf(stderr, "pkb_accuracy: %zu files, %zu mutants\n", Sources.size(),
               Runs.size());

  std::vector<Outcome> Outcomes(Runs.size(), Outcome::Failed);
  std::vector<std::vector<std::string>> NewIdsOf(Runs.size());
  std::vector<FileReport> MutantReports(Runs.size());
  std::vector<bool> MutantDone(Runs.size(), false);
  auto Classify = [&](size_t I) {
    const MutantRun &R = Runs[I];
    const FileReport &B = Base[R.Source], &Mr = MutantReports[I];
    const mut::OperatorInfo &OI = mut::info(R.M.Kind);
    std::string File = fs::path(Sources[R.Source]).filename().string();
    bool Stillborn = parseErrors(Mr) > parseErrors(B) ||
                     (Mr.Status == "input-error" && B.Status == "ok");
    bool Failed = Mr.Status == "crash" || Mr.Status == "timeout" ||
                  Mr.Status == "memory-limit";
    bool Equiv = Equivalent.count(equivalentKey(File, R.M.Line, OI.Name)) > 0;
    Outcomes[I] = classifyMutant(OI.Ids, reportedKeys(B.Findings),
                                 reportedKeys(Mr.Findings), Stillborn, Failed,
                                 Equiv, NewIdsOf[I]);
    std::string Ids;
    for (const std::string &Id : NewIdsOf[I])
      Ids += (Ids.empty() ? "" : ",") + Id;
    std::fprintf(stderr, "  => %s %s:%u:%s %s\n", toString(Outcomes[I]),
                 File.c_str(), R.M.Line, OI.Name.c_str(), Ids.c_str());
  };
  analyzeAll(Paths, O, Labels, [&](size_t P, const FileReport &Rep) {
    if (P < FirstMutant) {
      size_t S = static_cast<size_t>(PathSource[P]);
      Base[S] = Rep;
      HaveBase[S] = true;
      for (size_t I = 0; I < Runs.size(); ++I)
        if (Runs[I].Source == S && MutantDone[I])
          Classify(I);
      return;
    }
    size_t I = P - FirstMutant;
    MutantReports[I] = Rep;
    MutantDone[I] = true;
    if (HaveBase[Runs[I].Source])
      Classify(I);
  });
  fs::remove_all(Tmp, EC);

  std::map<mut::Op, OperatorScore> PerOp;
  OperatorScore Total;
  nlohmann::json JMutants = nlohmann::json::array();
  std::vector<std::string> SurvivorLines, OtherLines, StillbornLines;
  for (size_t I = 0; I < Runs.size(); ++I) {
    const MutantRun &R = Runs[I];
    const FileReport &Mr = MutantReports[I];
    const mut::OperatorInfo &OI = mut::info(R.M.Kind);
    std::string File = fs::path(Sources[R.Source]).filename().string();
    Outcome Out = Outcomes[I];
    const std::vector<std::string> &NewIds = NewIdsOf[I];
    PerOp[R.M.Kind].add(Out);
    Total.add(Out);
    std::string Ids;
    for (const std::string &Id : NewIds)
      Ids += (Ids.empty() ? "" : ",") + Id;
    std::string Line =
        fmt::format("  {}:{}:{}  `{}`{}", File, R.M.Line, OI.Name,
                    oneLine(R.M.Original) + " -> " + oneLine(R.M.Replacement),
                    Ids.empty() ? "" : "  new findings: " + Ids);
    if (Out == Outcome::Survived || Out == Outcome::Failed)
      SurvivorLines.push_back(
          Line + (Out == Outcome::Failed ? "  [" + Mr.Status + "]" : ""));
    else if (Out == Outcome::KilledOther)
      OtherLines.push_back(Line);
    else if (Out == Outcome::Stillborn)
      StillbornLines.push_back(Line);
    JMutants.push_back({{"file", Sources[R.Source]},
                        {"line", R.M.Line},
                        {"col", R.M.Col},
                        {"operator", OI.Name},
                        {"original", R.M.Original},
                        {"replacement", R.M.Replacement},
                        {"outcome", toString(Out)},
                        {"new_ids", NewIds},
                        {"status", Mr.Status},
                        {"seconds", Mr.Seconds}});
  }

  std::printf("%-22s %7s %9s %10s %6s %6s %12s %8s %6s %7s\n", "operator",
              "mutants", "stillborn", "equivalent", "failed", "killed",
              "killed-other", "survived", "scored", "score");
  auto Row = [](const std::string &Name, const OperatorScore &S) {
    std::printf("%-22s %7zu %9zu %10zu %6zu %6zu %12zu %8zu %6zu %7.3f\n",
                Name.c_str(), S.Mutants, S.Stillborn, S.Equivalent, S.Failed,
                S.Killed, S.KilledOther, S.Survived, S.scored(), S.score());
  };
  nlohmann::json JOps = nlohmann::json::object();
  for (mut::Op K : Ops) {
    const OperatorScore &S = PerOp[K];
    Row(mut::info(K).Name, S);
    JOps[mut::info(K).Name] = {{"ids", mut::info(K).Ids},
                               {"mutants", S.Mutants},
                               {"stillborn", S.Stillborn},
                               {"equivalent", S.Equivalent},
                               {"failed", S.Failed},
                               {"killed", S.Killed},
                               {"killed_other", S.KilledOther},
                               {"survived", S.Survived},
                               {"score", S.score()}};
  }
  Row("overall", Total);
  std::printf("\nmutation score: %.3f (%zu of %zu scored mutants killed with "
              "the operator's ID)\n",
              Total.score(), Total.Killed, Total.scored());
  auto List = [](const char *Title, const std::vector<std::string> &L) {
    std::printf("\n%s (%zu):\n", Title, L.size());
    for (const std::string &S : L)
      std::printf("%s\n", S.c_str());
  };
  List("surviving mutants (review; add reviewed equivalent ones to the "
       "equivalent list)",
       SurvivorLines);
  List("mutants flagged only with other IDs", OtherLines);
  List("stillborn mutants (do not parse)", StillbornLines);

  nlohmann::json J = {{"operators", JOps},
                      {"total",
                       {{"mutants", Total.Mutants},
                        {"stillborn", Total.Stillborn},
                        {"equivalent", Total.Equivalent},
                        {"failed", Total.Failed},
                        {"killed", Total.Killed},
                        {"killed_other", Total.KilledOther},
                        {"survived", Total.Survived},
                        {"score", Total.score()}}},
                      {"mutants", JMutants}};
  return writeJson(O.Json, J) ? 0 : 1;
}

void addCommon(CLI::App *A, CommonOptions &O) {
  A->add_option("--json", O.Json, "also write the results as JSON to FILE");
  A->add_option("-j,--jobs", O.Jobs, "files analyzed at once (forked children)")
      ->check(CLI::PositiveNumber);
  A->add_option("--timeout", O.Timeout,
                "wall-clock limit per file in seconds (0 = none)");
  A->add_option("paths", O.Paths, "corpus files or directories")->required();
}

} // namespace

int main(int argc, char **argv) {
  CLI::App App{"pkb_accuracy: corpus precision/recall and mutation score of "
               "the pkbcheck checkers (docs/accuracy.md)"};
  App.require_subcommand(1);
  CommonOptions CorpusOpts, MutateOpts;
  CLI::App *Corpus = App.add_subcommand(
      "corpus", "per-ID and overall TP/FP/FN, precision and recall against "
                "the expect: annotations");
  addCommon(Corpus, CorpusOpts);
  CLI::App *Mutate = App.add_subcommand(
      "mutate", "mutation score of the correct files (files without expect: "
                "annotations)");
  addCommon(Mutate, MutateOpts);
  std::string OperatorList, EquivalentPath, BaselinePath;
  bool ListOnly = false;
  std::string OpHelp = "comma-separated operators (default: all):";
  for (const mut::OperatorInfo &I : mut::operators())
    OpHelp += " " + I.Name;
  Mutate->add_option("--operators", OperatorList, OpHelp);
  Mutate
      ->add_option("--equivalent", EquivalentPath,
                   "reviewed equivalent mutants, lines "
                   "`file:line:operator  # reason`")
      ->check(CLI::ExistingFile);
  Mutate
      ->add_option("--baseline", BaselinePath,
                   "findings of the unmutated files from an earlier "
                   "`corpus --json` run (otherwise they are analyzed first)")
      ->check(CLI::ExistingFile);
  Mutate->add_flag("--list", ListOnly,
                   "only list the mutants (file:line:col:operator), do not "
                   "analyze them");
  CLI11_PARSE(App, argc, argv);
  if (*Corpus)
    return runCorpus(CorpusOpts);
  return runMutate(MutateOpts, OperatorList, EquivalentPath, BaselinePath,
                   ListOnly);
}
