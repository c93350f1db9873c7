//===- Commands.cpp - Analyzer subcommands --------------------------------===//

#include "Commands.h"

#include "Analyze.h"
#include "CompileDb.h"
#include "Eval.h"
#include "Output.h"
#include "OutputFile.h"
#include "ProcessPool.h"
#include "Report.h"

#include "pkb/Ingest.h"
#include "pkb/InputLanguage.h"
#include "pkb/ModelJson.h"
#include "pkb/ProblemCatalogue.h"

#ifdef PKB_HAVE_ANALYZER
#include "pkb/Checker.h"
#include "pkb/Frontend.h"
#include <z3.h>
#endif

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <fstream>
#include <iostream>
#include <map>
#include <memory>
#include <unistd.h>

namespace pkb {

std::string versionText() {
  std::string S = fmt::format("pkbcheck {}\n", PKB_VERSION);
#ifdef PKB_HAVE_ANALYZER
  unsigned Major = 0, Minor = 0, Build = 0, Rev = 0;
  Z3_get_version(&Major, &Minor, &Build, &Rev);
  S += fmt::format("LLVM/Clang {}\nZ3 {}.{}.{}\n", clangVersion(), Major, Minor,
                   Build);
#else
  S += "LLVM/Clang: analyzer not built\nZ3: analyzer not built\n";
#endif
#ifdef PKB_HAVE_RUNTIME
  S += "runtime: built (CUDA + NCCL)\n";
#else
  S += "runtime: not built\n";
#endif
  return S;
}

support::Expected<std::vector<unsigned>>
parseWorldSizes(const std::string &Spec) {
  std::vector<unsigned> Out;
  auto ParseNum = [&](const std::string &T, unsigned &V) {
    if (T.empty() || T.size() > 5 ||
        T.find_first_not_of("0123456789") != std::string::npos)
      return false;
    V = static_cast<unsigned>(std::stoul(T));
    return V >= 1 && V <= 1024;
  };
  size_t Pos = 0;
  while (Pos <= Spec.size()) {
    size_t Comma = Spec.find(',', Pos);
    std::string Item = Spec.substr(
        Pos, Comma == std::string::npos ? std::string::npos : Comma - Pos);
    size_t Dash = Item.find('-');
    unsigned Lo = 0, Hi = 0;
    bool Ok = Dash == std::string::npos
                  ? ParseNum(Item, Lo) && (Hi = Lo, true)
                  : ParseNum(Item.substr(0, Dash), Lo) &&
                        ParseNum(Item.substr(Dash + 1), Hi) && Lo <= Hi;
    if (!Ok)
      return support::fail("invalid world size '" + Item +
                           "' (expected N, N,M,... or N-M with 1 <= N <= "
                           "1024)");
    for (unsigned W = Lo; W <= Hi; ++W)
      Out.push_back(W);
    if (Comma == std::string::npos)
      break;
    Pos = Comma + 1;
  }
  return Out;
}

namespace {

struct CheckArgs {
  std::vector<std::string> Paths;
  std::string Format = "text";
  std::string OutFile;
  std::string DocsUrl;
  std::string WorldSize = "2-8";
  std::string CudaPath;
  bool Shims = false;
  bool NoPch = false; ///< --no-pch
  std::string PchDir; ///< --pch-dir; "" = the default
  std::string CompileDbDir;
  std::vector<std::string> ExtraArgs;
  unsigned Jobs = 1;
  double Timeout = 120;
  unsigned MaxMemory = 8192;
  std::string Checks;
  std::string Topology; ///< "" = no target named
  /// `check --problem`: the problem of every file (id, name or "none");
  /// empty: from each file's name (AnalyzeOptions::Problem).
  std::string Problem;
  unsigned SolverTimeoutMs = 2000;
  bool Progress = false;
  bool Profile = false; ///< --profile: time per phase and slowest files
  bool InProcess = false;
  bool TimeoutGiven = false;   ///< --timeout given explicitly
  bool MaxMemoryGiven = false; ///< --max-memory given explicitly
};

/// --timeout: a number of seconds in [0, 86400]; says what is wrong in words
/// ("'abc' is not a number of seconds") instead of CLI11's range message.
CLI::Validator secondsValidator() {
  return CLI::Validator(
      [](std::string &S) -> std::string {
        char *End = nullptr;
        double V = std::strtod(S.c_str(), &End);
        if (S.empty() || End == S.c_str() || *End != '\0' || V != V)
          return "'" + S + "' is not a number of seconds";
        if (V < 0 || V > 86400)
          return "'" + S + "' is outside 0..86400 seconds (0 = no limit)";
        return "";
      },
      "SECONDS");
}

/// --max-memory: MiB, 0 (no limit) or at least 512 (the analyzer's own
/// data at start, about 200 MiB, plus the 256 MiB analysis stack).
CLI::Validator memoryValidator() {
  return CLI::Validator(
      [](std::string &S) -> std::string {
        if (S.empty() ||
            S.find_first_not_of("0123456789") != std::string::npos ||
            S.size() > 9)
          return "'" + S + "' is not a number of MiB";
        unsigned long V = std::stoul(S);
        if (V != 0 && V < 512)
          return "'" + S +
                 "' MiB is too small to start the analyzer "
                 "(at least 512, or 0 for no limit)";
        return "";
      },
      "MiB");
}

void addCommonOptions(CLI::App *C, CheckArgs &A) {
  C->add_option("--cuda-path", A.CudaPath,
                "CUDA toolkit root (default: $CUDA_PATH, $CUDA_HOME, "
                "/usr/local/cuda, else bundled shim headers)");
  C->add_flag("--shims", A.Shims,
              "Use the bundled CUDA/PyTorch shim headers even if a toolkit "
              "is installed");
  C->add_flag("--no-pch", A.NoPch,
              "Parse the toolkit / shim headers for every file instead of "
              "loading them precompiled from the cache");
  C->add_option("--pch-dir", A.PchDir,
                "Cache directory of the precompiled toolkit headers "
                "(default: $PKBCHECK_PCH_DIR, $XDG_CACHE_HOME/pkbcheck/pch, "
                "~/.cache/pkbcheck/pch)");
  C->add_option("-p,--build-path", A.CompileDbDir,
                "Build directory holding compile_commands.json");
  // One value per occurrence: `--extra-arg -DX file.cu` must leave file.cu
  // to the positional paths.
  C->add_option("--extra-arg", A.ExtraArgs,
                "Extra compiler argument for every file (repeatable, one "
                "argument each: --extra-arg -DX --extra-arg -Iinc)")
      ->expected(1)
      ->allow_extra_args(false);
}

/// Prints a one-line progress bar on stderr: files done, files with errors,
/// files not analyzed, and the file most recently started.
class ProgressBar {
public:
  explicit ProgressBar(size_t Total) : Total(Total) {}
  void started(const std::string &Path) {
    Current = Path;
    draw();
  }
  void update(size_t Done, size_t Errors, size_t Failed) {
    this->Done = Done;
    this->Errors = Errors;
    this->Failed = Failed;
    draw();
  }
  void finish() { std::cerr << "\r\033[K" << line() << "\n"; }

private:
  std::string line() const {
    const size_t Width = 30;
    size_t Filled = Total ? Width * Done / Total : Width;
    return fmt::format("[{}{}] {}/{} files, {} with errors, {} not analyzed",
                       std::string(Filled, '#'),
                       std::string(Width - Filled, ' '), Done, Total, Errors,
                       Failed);
  }
  void draw() {
    std::string Tail = Current.empty() ? "" : "  " + Current;
    // Keep the line within a typical terminal: show the end of long paths.
    if (Tail.size() > 60)
      Tail = "  ..." + Tail.substr(Tail.size() - 55);
    std::cerr << "\r\033[K" << line() << Tail << std::flush;
  }
  size_t Total, Done = 0, Errors = 0, Failed = 0;
  std::string Current;
};

/// `check --profile`: wall seconds per analysis phase (the front end and each
/// check ID) summed over the files, slowest first with their share, then
/// the five slowest files and the largest peak memory of a file's worker
/// (\p PeakRss: MiB and file; omitted when 0, i.e. --in-process). Written
/// to \p OS (stderr) after the report.
void printProfile(const std::map<std::string, double> &PhaseTotal,
                  std::vector<std::pair<double, std::string>> FileTimes,
                  const std::pair<double, std::string> &PeakRss,
                  std::ostream &OS) {
  std::vector<std::pair<double, std::string>> Phases;
  double Sum = 0;
  for (const auto &[P, T] : PhaseTotal) {
    Phases.emplace_back(T, P);
    Sum += T;
  }
  std::sort(Phases.rbegin(), Phases.rend());
  OS << fmt::format("pkbcheck profile: {:.2f} s in {} phase(s) over {} "
                    "file(s)\n",
                    Sum, Phases.size(), FileTimes.size());
  for (const auto &[T, P] : Phases)
    OS << fmt::format("  {:<10} {:9.3f} s {:5.1f}%\n", P, T,
                      Sum > 0 ? 100 * T / Sum : 0.0);
  std::sort(FileTimes.rbegin(), FileTimes.rend());
  if (FileTimes.size() > 5)
    FileTimes.resize(5);
  OS << "pkbcheck profile: slowest files\n";
  for (const auto &[T, F] : FileTimes)
    OS << fmt::format("  {:9.3f} s  {}\n", T, F);
  if (PeakRss.first > 0)
    OS << fmt::format("pkbcheck profile: peak memory {:.0f} MiB ({})\n",
                      PeakRss.first, PeakRss.second);
}

/// The cache directory of the precompiled headers that \p A asks for ("" =
/// none: --no-pch, or no default directory).
std::string pchDirectory(const CheckArgs &A) {
  if (A.NoPch || !A.PchDir.empty())
    return A.PchDir;
#ifdef PKB_HAVE_ANALYZER
  return defaultPchDirectory();
#else
  return "";
#endif
}

/// Refuses option combinations that cannot mean what the user asked for.
/// Returns an Error naming the options.
support::Expected<void> checkOptionConflicts(const CheckArgs &A) {
  if (A.Shims && !A.CudaPath.empty())
    return support::fail("--shims and --cuda-path exclude each other "
                         "(--shims parses with the bundled headers instead "
                         "of a toolkit)");
  if (A.NoPch && !A.PchDir.empty())
    return support::fail("--no-pch and --pch-dir exclude each other");
  if (A.InProcess && A.Jobs > 1)
    return support::fail("--in-process analyzes one file at a time in this "
                         "process; it excludes -j/--jobs > 1");
  if (A.InProcess && (A.TimeoutGiven || A.MaxMemoryGiven))
    return support::fail("--in-process has no per-file time or memory "
                         "limit; it excludes --timeout and --max-memory");
  return {};
}

/// Prints "pkbcheck: error: MESSAGE" and returns exit status 2.
int usageError(const support::Error &E) {
  std::cerr << "pkbcheck: error: " << E.Message << "\n";
  return 2;
}

int runCheck(CheckArgs &A) {
  auto WorldSizes = parseWorldSizes(A.WorldSize);
  if (!WorldSizes)
    return usageError(WorldSizes.error());
  if (auto Compatible = checkOptionConflicts(A); !Compatible)
    return usageError(Compatible.error());
  if (!findOutputFormat(OutputKind::Check, A.Format)) {
    std::cerr << "pkbcheck: error: unknown --format '" << A.Format << "' ("
              << outputFormatNames(OutputKind::Check) << ")\n";
    return 2;
  }
#ifndef PKB_HAVE_ANALYZER
  std::cerr << "pkbcheck: error: this build has no analyzer: LLVM/Clang >= "
               "19 and Z3 were not found when it was configured\n";
  return 2;
#else
  AnalyzeOptions Opts;
  Opts.CudaPath = A.CudaPath;
  Opts.ForceShims = A.Shims;
  Opts.PchDir = pchDirectory(A);
  Opts.ExtraArgs = A.ExtraArgs;
  Opts.WorldSizes = *WorldSizes;
  Opts.Checks = A.Checks;
  Opts.Topology = A.Topology;
  Opts.SolverTimeoutMs = A.SolverTimeoutMs;
  Opts.Problem = A.Problem;
  if (!A.Problem.empty() && A.Problem != "none" &&
      !findCatalogueEntry(A.Problem)) {
    std::cerr << "pkbcheck: error: unknown --problem '" << A.Problem
              << "' (a PKB id or name, or none; see pkbcheck problems)\n";
    return 2;
  }
  if (auto T = resolveTopology(A.Topology); !T) {
    std::cerr << "pkbcheck: error: " << T.error().Message << "\n";
    return 2;
  }
  if (auto V = validateCheckGlobs(A.Checks); !V) {
    std::cerr << "pkbcheck: error: " << V.error().Message << "\n";
    return 2;
  }
  std::vector<Diagnostic> PreDiags;
  if (!A.CompileDbDir.empty()) {
    auto Db = CompileDb::load(A.CompileDbDir, PreDiags);
    if (!Db) {
      for (const Diagnostic &D : PreDiags)
        std::cerr << fmt::format("{}:{}: error: {}\n", D.Loc.File, D.Loc.Line,
                                 D.Message);
      return 2;
    }
    Opts.Db = std::make_shared<const CompileDb>(std::move(*Db));
  }
  std::vector<std::string> Files = expandInputs(A.Paths, PreDiags);

  // The report goes to a temporary file renamed over -o FILE at the end (so
  // FILE is complete or untouched); never over one of the inputs.
  WriterOptions WO;
  auto DocsUrl = resolveDocsUrl(A.DocsUrl);
  if (!DocsUrl)
    return usageError(DocsUrl.error());
  WO.DocsUrl = *DocsUrl;
  OutputFile Out;
  std::ostream *OS = &std::cout;
  if (!A.OutFile.empty()) {
    std::vector<std::string> Inputs = A.Paths;
    Inputs.insert(Inputs.end(), Files.begin(), Files.end());
    std::string Which;
    if (isOneOfInputs(A.OutFile, Inputs, Which)) {
      std::cerr << "pkbcheck: error: output '" << A.OutFile
                << "' is one of the inputs; refusing to overwrite it\n";
      return 2;
    }
    if (auto Opened = Out.open(A.OutFile); !Opened)
      return usageError(Opened.error());
    OS = &Out.stream();
  }
  std::vector<CheckInfo> Rules;
  for (const auto &C : allCheckers())
    Rules.push_back(C->info());
  WO.Color = A.OutFile.empty() && A.Format == "text" && ::isatty(1);
  auto Writer = makeWriter(A.Format, *OS, Rules, WO);
  auto Start = std::chrono::steady_clock::now();
  CheckSummary S;
  S.Planned = Files.size();
  Writer->begin();
  if (Out.failed()) { // e.g. -o /dev/full: stop before analyzing anything
    auto Committed = Out.commit();
    return usageError(Committed ? support::Error{} : Committed.error());
  }
  if (!PreDiags.empty()) {
    FileReport Pre;
    Pre.Path = "<inputs>";
    Pre.Diags = PreDiags;
    for (const Diagnostic &D : PreDiags)
      if (D.Sev == Severity::Error) {
        ++S.InputErrors;
        S.FailedFiles.push_back(D.Loc.File);
      }
    Writer->file(Pre);
  }
  bool ShowProgress = A.Progress && ::isatty(2) && Files.size() > 1;
  ProgressBar Bar(Files.size());
  std::map<std::string, double> PhaseTotal;
  std::vector<std::pair<double, std::string>> FileTimes;
  std::pair<double, std::string> PeakRss{0.0, ""};
  auto OnDone = [&](size_t, FileReport R) {
    for (const auto &[Phase, Secs] : R.PhaseSeconds)
      PhaseTotal[Phase] += Secs;
    FileTimes.emplace_back(R.Seconds, R.Path);
    if (R.PeakRssMiB > PeakRss.first)
      PeakRss = {R.PeakRssMiB, R.Path};
    ++S.Files;
    if (R.hasErrorFinding())
      ++S.FilesWithErrors;
    if (R.hasInputError()) {
      ++S.InputErrors;
      S.FailedFiles.push_back(R.Path + " (" + R.Status + ")");
    }
    if (R.notFullyChecked()) {
      ++S.NotChecked;
      S.NotCheckedFiles.push_back(R.Path);
    }
    for (const Finding &F : R.Findings)
      (F.Sev == Severity::Error     ? S.Errors
       : F.Sev == Severity::Warning ? S.Warnings
                                    : S.Notes)++;
    Writer->file(R);
    if (ShowProgress)
      Bar.update(S.Files, S.FilesWithErrors, S.InputErrors);
  };
  auto Work = [&](const std::string &Path) { return analyzeFile(Path, Opts); };
  if (A.InProcess) {
    for (size_t I = 0; I < Files.size(); ++I)
      OnDone(I, Work(Files[I]));
  } else {
    PoolOptions PO;
    PO.Jobs = A.Jobs;
    PO.TimeoutSeconds = A.Timeout;
    PO.MaxMemoryMiB = A.MaxMemory;
    if (ShowProgress)
      PO.OnStart = [&](size_t I) { Bar.started(Files[I]); };
    // Ctrl-C / SIGTERM: the children are killed and the report is closed
    // with what was done (still valid JSON/SARIF), exit 128 + signal.
    S.Interrupted = runInChildren(Files, PO, Work, OnDone);
  }
  if (ShowProgress)
    Bar.finish();
  S.Seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - Start)
          .count();
  Writer->end(S);
  if (A.Profile)
    printProfile(PhaseTotal, FileTimes, PeakRss, std::cerr);
  if (!A.OutFile.empty())
    if (auto Committed = Out.commit(); !Committed)
      return usageError(Committed.error());
  if (S.Interrupted)
    std::cerr << fmt::format(
        "pkbcheck: interrupted by {}: {} of {} file(s) analyzed{}\n",
        signalName(S.Interrupted), S.Files, Files.size(),
        A.OutFile.empty() ? "" : "; partial report in " + A.OutFile);
  else if (!A.OutFile.empty() && A.Format != "text")
    std::cerr << fmt::format("pkbcheck: {} file(s), {} error(s), {} "
                             "warning(s), {} input error(s), {} not fully "
                             "checked; report in {}\n",
                             S.Files, S.Errors, S.Warnings, S.InputErrors,
                             S.NotChecked, A.OutFile);
  if (S.Files == 0 && !S.Interrupted) {
    std::cerr << "pkbcheck: error: no file was analyzed (no input with a "
                 "supported extension: "
              << supportedExtensionsText() << ")\n";
    return 2;
  }
  return exitStatus(S);
#endif
}

/// `pkbcheck dump`: the model of \p File as JSON on stdout. The front end
/// runs in a child process with the same time and memory limits as `check`,
/// so a crash is reported as a diagnostic, not a dead process. Exit status:
/// 0 model printed; 2 the file could not be read, parsed or analyzed (the
/// JSON still says why).
int runDump(CheckArgs &A, const std::string &File) {
#ifndef PKB_HAVE_ANALYZER
  (void)A;
  (void)File;
  std::cerr << "pkbcheck: error: this build has no analyzer\n";
  return 2;
#else
  if (auto Compatible = checkOptionConflicts(A); !Compatible)
    return usageError(Compatible.error());
  AnalyzeOptions Opts;
  Opts.CudaPath = A.CudaPath;
  Opts.ForceShims = A.Shims;
  Opts.PchDir = pchDirectory(A);
  Opts.ExtraArgs = A.ExtraArgs;
  std::vector<Diagnostic> Diags;
  if (!A.CompileDbDir.empty()) {
    auto Db = CompileDb::load(A.CompileDbDir, Diags);
    if (!Db) {
      for (const Diagnostic &D : Diags)
        std::cerr << fmt::format("{}:{}: error: {}\n", D.Loc.File, D.Loc.Line,
                                 D.Message);
      return 2;
    }
    Opts.Db = std::make_shared<const CompileDb>(std::move(*Db));
  }
  PoolOptions PO;
  PO.TimeoutSeconds = A.Timeout;
  PO.MaxMemoryMiB = A.MaxMemory;
  FileReport R;
  runInChildren(
      {File}, PO, [&](const std::string &P) { return dumpFile(P, Opts); },
      [&](size_t, FileReport Done) { R = std::move(Done); });
  nlohmann::json J = R.Model.is_object() ? R.Model : nlohmann::json::object();
  if (!J.contains("file"))
    J["file"] = File;
  J["status"] = R.Status;
  nlohmann::json D = nlohmann::json::array();
  for (const Diagnostic &X : Diags)
    D.push_back(toJson(X));
  for (const Diagnostic &X : R.Diags)
    D.push_back(toJson(X));
  J["diagnostics"] = D;
  // Invalid UTF-8 (a file name is bytes) is replaced, not thrown on.
  std::cout << J.dump(2, ' ', false, nlohmann::json::error_handler_t::replace)
            << "\n";
  for (const Diagnostic &X : R.Diags)
    if (X.Sev == Severity::Error)
      std::cerr << fmt::format("{}:{}:{}: error: {} [{}]\n", X.Loc.File,
                               X.Loc.Line, X.Loc.Col, X.Message, X.Code);
  return R.Status == "ok" ? 0 : 2;
#endif
}

int runEvalCommand(CheckArgs &A, EvalOptions &E, const std::string &Problem,
                   const std::string &Shard) {
  auto WorldSizes = parseWorldSizes(A.WorldSize);
  if (!WorldSizes)
    return usageError(WorldSizes.error());
  E.Analyze.WorldSizes = *WorldSizes;
  if (!Shard.empty()) {
    auto S = parseShard(Shard);
    if (!S)
      return usageError(S.error());
    E.ShardIndex = S->Index0;
    E.ShardCount = S->Count;
  }
  if (E.Paths.empty() && !E.Resume) {
    std::cerr << "pkbcheck: error: eval needs PATH... or --resume FILE\n";
    return 2;
  }
  if (!Problem.empty()) {
    ProblemRef P;
    if (const CatalogueEntry *C = findCatalogueEntry(Problem)) {
      P.Id = C->Id;
      P.Name = std::string(C->name());
    }
    if (P.Id == 0 || P.Name.empty()) {
      std::cerr << "pkbcheck: error: unknown --problem '" << Problem
                << "' (a PKB id or name; see pkbcheck problems)\n";
      return 2;
    }
    E.Problem = P;
    E.Analyze.Problem = std::to_string(P.Id);
  }
  E.Analyze.CudaPath = A.CudaPath;
  E.Analyze.ForceShims = A.Shims;
  E.Analyze.PchDir = pchDirectory(A);
  E.Analyze.ExtraArgs = A.ExtraArgs;
  E.Analyze.Checks = A.Checks;
  E.Analyze.Topology = A.Topology;
  E.Analyze.SolverTimeoutMs = A.SolverTimeoutMs;
  E.Jobs = A.Jobs;
  E.TimeoutSeconds = A.Timeout;
  E.MaxMemoryMiB = A.MaxMemory;
  E.Progress = A.Progress;
  std::string Reason;
  DynamicRunner Runner;
  if (!E.StaticOnly) {
    if (auto R = makeDynamicRunner(E))
      Runner = std::move(*R);
    else
      Reason = R.error().Message;
    if (auto R = makePkbDynamicRunner(E)) // .py files
      E.PkbRunner = std::move(*R);
    else
      E.PkbNoRunReason = R.error().Message;
  }
  return runEval(E, Runner, Reason, std::cerr);
}

int runReport(const std::vector<std::string> &Files, const std::string &Format,
              const std::string &OutFile, const ReportOptions &Opts) {
  const OutputFormat *Writer = findOutputFormat(OutputKind::Report, Format);
  if (!Writer) {
    std::cerr << "pkbcheck: error: unknown --format '" << Format << "' ("
              << outputFormatNames(OutputKind::Report) << ")\n";
    return 2;
  }
  std::string Which;
  if (!OutFile.empty() && isOneOfInputs(OutFile, Files, Which)) {
    std::cerr << "pkbcheck: error: output '" << OutFile
              << "' is one of the inputs; refusing to overwrite it\n";
    return 2;
  }
  ReportData D;
  if (!loadReport(Files, D, std::cerr, Opts))
    return 2;
  OutputFile Out;
  std::ostream *OS = &std::cout;
  if (!OutFile.empty()) {
    if (auto Opened = Out.open(OutFile); !Opened)
      return usageError(Opened.error());
    OS = &Out.stream();
  }
  Writer->Write(D, *OS);
  if (!OutFile.empty())
    if (auto Committed = Out.commit(); !Committed)
      return usageError(Committed.error());
  if (!OutFile.empty())
    std::cerr << "pkbcheck: report of " << D.Records.size()
              << " candidate(s) written to " << OutFile << "\n";
  return 0;
}

} // namespace

void addAnalyzerCommands(CLI::App &App, int &ExitCode) {
  auto A = std::make_shared<CheckArgs>();
  CLI::App *Check = App.add_subcommand(
      "check", "Analyze " + languagesHelpText() + " files and directories");
  Check->add_option("paths", A->Paths, "Files and directories (recursive)")
      ->required();
  Check
      ->add_option("--format", A->Format,
                   outputFormatNames(OutputKind::Check, ", ", " or "))
      ->capture_default_str();
  Check->add_option("-o,--output", A->OutFile,
                    "Write the report to FILE (replaced atomically at the "
                    "end; never one of the inputs)");
  Check->add_option("--docs-url", A->DocsUrl,
                    "Absolute URI of checkers.md for SARIF helpUri (default: "
                    "$PKBCHECK_DOCS_URL, else file:// of this build's "
                    "docs/checkers.md)");
  Check
      ->add_option("--world-size", A->WorldSize,
                   "World sizes to check: N, N,M,... or N-M")
      ->capture_default_str();
  addCommonOptions(Check, *A);
  Check->add_option("-j,--jobs", A->Jobs, "Files analyzed in parallel")
      ->check(CLI::Range(1u, 256u))
      ->capture_default_str();
  CLI::Option *TimeoutOpt =
      Check
          ->add_option("--timeout", A->Timeout,
                       "Wall-clock seconds per file (0 = none)")
          ->check(secondsValidator())
          ->capture_default_str();
  CLI::Option *MemOpt =
      Check
          ->add_option("--max-memory", A->MaxMemory,
                       "Memory (data segment) limit per file in MiB (0 = none)")
          ->check(memoryValidator())
          ->capture_default_str();
  Check->add_option("--checks", A->Checks,
                    "Comma-separated globs of check IDs; -ID disables "
                    "(e.g. 'ORD-*,-ORD-004')");
  Check->add_option("--topology", A->Topology,
                    "Target: h200x2-nvlink, h100x8-nvswitch, h200x8-nvswitch, "
                    "generic, or a topology JSON file (default: none; "
                    "multicast use is then a note)");
  Check->add_option(
      "--problem", A->Problem,
      "PKB problem id or name of every file, or none (default: from each "
      "file's name, e.g. 1_allreduce_push.cu); its output sizes bound "
      "PART-003");
  Check
      ->add_option("--solver-timeout", A->SolverTimeoutMs,
                   "Milliseconds per solver query; past it: unknown")
      ->capture_default_str();
  Check->add_flag("--profile", A->Profile,
                  "After the report, print the time per phase (front end, "
                  "each check ID) and the slowest files on stderr");
  Check->add_flag("--progress", A->Progress,
                  "Show a progress bar on a terminal");
  Check->add_flag("--in-process", A->InProcess,
                  "Analyze in this process (debugging; no crash isolation)");
  Check->callback([A, TimeoutOpt, MemOpt, &ExitCode] {
    A->TimeoutGiven = TimeoutOpt->count() > 0;
    A->MaxMemoryGiven = MemOpt->count() > 0;
    ExitCode = runCheck(*A);
  });

  auto File = std::make_shared<std::string>();
  CLI::App *Dump =
      App.add_subcommand("dump", "Print the kernel model of FILE as JSON "
                                 "(schema: docs/model-schema.md)");
  Dump->add_option("file", *File, "Input file")->required();
  addCommonOptions(Dump, *A);
  Dump->callback([A, File, &ExitCode] { ExitCode = runDump(*A, *File); });

  auto EA = std::make_shared<CheckArgs>();
  auto E = std::make_shared<EvalOptions>();
  auto Problem = std::make_shared<std::string>();
  auto Shard = std::make_shared<std::string>();
  CLI::App *Eval = App.add_subcommand(
      "eval", "Screen many candidates statically, run the survivors on GPUs, "
              "classify every failure (JSONL records)");
  Eval->add_option("paths", E->Paths, "Candidate files and directories");
  Eval->add_option("--problem", *Problem,
                   "PKB problem id or name for every candidate (default: "
                   "from file names, e.g. 1_allreduce_cuda.py)");
  auto FromNames = std::make_shared<bool>(false);
  Eval->add_flag("--problems-from-names", *FromNames,
                 "Take the problem from each file name (the default)");
  Eval->add_option("--gpus", E->Gpus,
                   "GPUs (world size) for the GPU stage; "
                   "0 = all visible");
  Eval->add_flag("--oversubscribe", E->Oversubscribe,
                 "GPU stage with several ranks per GPU (world size --gpus, "
                 "default 2): correctness only, no timing");
  Eval->add_flag("--static-only", E->StaticOnly, "Do not run on GPUs");
  Eval->add_option("--pkb-root", E->PkbRoot,
                   "ParallelKernelBench checkout: runs .py survivors on the "
                   "GPUs (default: $PKB_ROOT; docs/pkb.md)");
  Eval->add_option("--python", E->Python,
                   "Python of the .py workers (default: python3)");
  Eval->add_flag("--run-all", E->RunAll,
                 "Also run candidates with error-level findings");
  Eval->add_option("-o,--output", E->Results,
                   "Results file (JSONL, "
                   "appended)")
      ->capture_default_str();
  Eval->add_option_function<std::string>(
      "--resume",
      [E](const std::string &F) {
        E->Results = F;
        E->Resume = true;
      },
      "Complete the records of FILE (e.g. static records from a CPU "
      "machine) on this machine");
  Eval->add_option("--shard", *Shard, "Take every N-th candidate: I/N");
  Eval->add_option("-j,--jobs", EA->Jobs, "Static analyses in parallel")
      ->check(CLI::Range(1u, 256u));
  Eval->add_option("--timeout", EA->Timeout, "Static seconds per file")
      ->check(secondsValidator());
  Eval->add_option("--world-size", EA->WorldSize, "World sizes to check");
  Eval->add_option("--checks", EA->Checks, "Check ID globs");
  Eval->add_option("--topology", EA->Topology, "Target topology");
  Eval->add_flag("--progress", EA->Progress, "Progress on a terminal");
  addCommonOptions(Eval, *EA);
  Eval->callback([EA, E, Problem, Shard, FromNames, &ExitCode] {
    if (*FromNames && !Problem->empty()) {
      std::cerr << "pkbcheck: error: --problem and --problems-from-names "
                   "exclude each other\n";
      ExitCode = 2;
      return;
    }
    ExitCode = runEvalCommand(*EA, *E, *Problem, *Shard);
  });

  auto RFiles = std::make_shared<std::vector<std::string>>();
  auto RFormat = std::make_shared<std::string>("md");
  auto ROut = std::make_shared<std::string>();
  auto ROpts = std::make_shared<ReportOptions>();
  CLI::App *Report = App.add_subcommand(
      "report", "Tables and charts from eval results, models side by side (" +
                    outputFormatNames(OutputKind::Report, ", ", " or ") + ")");
  Report
      ->add_option("results", *RFiles,
                   "JSONL files or directories of them (shards are merged)")
      ->required();
  Report->add_flag("--model-per-input", ROpts->ModelPerInput,
                   "Each input is one model, named by the file (without "
                   ".jsonl/.eval) or directory; default: the model is the "
                   "candidate set");
  Report
      ->add_option("--format", *RFormat,
                   outputFormatNames(OutputKind::Report, ", ", " or "))
      ->capture_default_str();
  Report->add_option("-o,--output", *ROut, "Output file (default stdout)");
  Report->callback([RFiles, RFormat, ROut, ROpts, &ExitCode] {
    ExitCode = runReport(*RFiles, *RFormat, *ROut, *ROpts);
  });

  CLI::App *Checks =
      App.add_subcommand("checks", "List the checkers with their IDs");
  Checks->callback([&ExitCode] {
#ifdef PKB_HAVE_ANALYZER
    for (const auto &C : allCheckers())
      std::cout << fmt::format("{:<9} {:<40} {}\n", C->info().Id,
                               C->info().Name, C->info().Summary);
    ExitCode = 0;
#else
    std::cerr << "pkbcheck: error: this build has no analyzer\n";
    ExitCode = 2;
#endif
  });
}

} // namespace pkb
