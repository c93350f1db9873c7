//===- Eval.cpp - pkbcheck eval: screen, run, classify --------------------===//

#include "Eval.h"

#include "ProcessPool.h"
#include "Records.h"
#include "pkb/DiagCode.h"
#include "pkb/Ingest.h"
#include "pkb/InputLanguage.h"
#include "pkb/ProblemCatalogue.h"

#ifdef PKB_HAVE_ANALYZER
#include "pkb/Checker.h"
#endif

#include <fmt/format.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <unistd.h>

namespace fs = std::filesystem;
using nlohmann::json;

namespace pkb {

std::string knownProblemName(int Id) {
  const CatalogueEntry *E = findCatalogueEntry(Id);
  return E ? std::string(E->PortedName) : std::string();
}

std::optional<ProblemRef> problemFromFileName(const std::string &Path) {
  std::string Stem = fs::path(Path).stem().string();
  size_t Digits = 0;
  while (Digits < Stem.size() && Digits < 4 &&
         std::isdigit(static_cast<unsigned char>(Stem[Digits])))
    ++Digits;
  if (Digits == 0 || Digits >= Stem.size() || Stem[Digits] != '_')
    return std::nullopt;
  ProblemRef P;
  P.Id = std::stoi(Stem.substr(0, Digits));
  P.Name = knownProblemName(P.Id);
  if (P.Name.empty()) {
    // "<id>_<name>_cuda" -> "<name>"
    std::string Rest = Stem.substr(Digits + 1);
    for (const char *Suffix : {"_cuda", "_solution", "_kernel"})
      if (Rest.size() > std::strlen(Suffix) &&
          Rest.compare(Rest.size() - std::strlen(Suffix), std::string::npos,
                       Suffix) == 0)
        Rest.erase(Rest.size() - std::strlen(Suffix));
    P.Name = Rest;
  }
  return P;
}

static const std::pair<EvalClass, const char *> ClassNames[] = {
    {EvalClass::CompileError, "compile-error"},
    {EvalClass::ShapeError, "shape-error"},
    {EvalClass::ApiError, "api-error"},
    {EvalClass::RuntimeError, "runtime-error"},
    {EvalClass::OutputMismatch, "output-mismatch"},
    {EvalClass::Deadlock, "deadlock"},
    {EvalClass::CrossCallRace, "cross-call-race"},
    {EvalClass::UnwrittenOutput, "unwritten-output"},
    {EvalClass::CorrectSlower, "correct-slower"},
    {EvalClass::CorrectFaster, "correct-faster"},
    {EvalClass::CorrectUntimed, "correct-untimed"},
    {EvalClass::StaticFlagged, "static-flagged"},
    {EvalClass::StaticClean, "static-clean"},
    {EvalClass::StaticIncomplete, "static-incomplete"},
    {EvalClass::NotAnalyzed, "not-analyzed"},
};

const char *toString(EvalClass C) {
  for (const auto &[K, N] : ClassNames)
    if (K == C)
      return N;
  return "not-analyzed";
}

std::optional<EvalClass> parseEvalClass(const std::string &S) {
  for (const auto &[K, N] : ClassNames)
    if (S == N)
      return K;
  return std::nullopt;
}

bool isDynamicFailure(EvalClass C) {
  switch (C) {
  case EvalClass::CompileError:
  case EvalClass::ShapeError:
  case EvalClass::ApiError:
  case EvalClass::RuntimeError:
  case EvalClass::OutputMismatch:
  case EvalClass::Deadlock:
  case EvalClass::CrossCallRace:
  case EvalClass::UnwrittenOutput:
    return true;
  default:
    return false;
  }
}

EvalClass classifyDynamic(const json &Run) {
  return classifyRun(evalDynamicFromJson(Run));
}

EvalClass classifyRun(const EvalDynamic &Run) {
  const std::string &V = Run.Verdict.empty() ? "internal-error" : Run.Verdict;
  if (V == "compile-error")
    return EvalClass::CompileError;
  if (V == "api-error") // .py solutions: a torch API mismatch (docs/pkb.md)
    return EvalClass::ApiError;
  if (V == "setup-error") {
    // A library that does not load or lacks an ABI symbol (failure kind
    // "load", rt::FailureKind::Load) is an API error; a query/setup that
    // rejects the shapes is a shape error.
    return Run.FailureKind == "load" ? EvalClass::ApiError
                                     : EvalClass::ShapeError;
  }
  if (V == "runtime-error" || V == "sanitizer-error" || V == "internal-error")
    return EvalClass::RuntimeError;
  if (V == "deadlock")
    return EvalClass::Deadlock;
  if (V == "wrong-output" || V == "unwritten-output") {
    // Failing only after the first call of a back-to-back sequence means a
    // cross-call race (a missing exit barrier, or aliasing).
    if (Run.FirstFailingCall.value_or(0) > 0)
      return EvalClass::CrossCallRace;
    return V == "wrong-output" ? EvalClass::OutputMismatch
                               : EvalClass::UnwrittenOutput;
  }
  if (V == "pass") {
    if (!Run.Speedup)
      return EvalClass::CorrectUntimed;
    return *Run.Speedup > 1.0 ? EvalClass::CorrectFaster
                              : EvalClass::CorrectSlower;
  }
  return EvalClass::RuntimeError;
}

support::Expected<Shard> parseShard(const std::string &Spec) {
  size_t Slash = Spec.find('/');
  auto Num = [](const std::string &S, unsigned &V) {
    if (S.empty() || S.size() > 6 ||
        S.find_first_not_of("0123456789") != std::string::npos)
      return false;
    V = static_cast<unsigned>(std::stoul(S));
    return true;
  };
  unsigned I = 0, N = 0;
  if (Slash == std::string::npos || !Num(Spec.substr(0, Slash), I) ||
      !Num(Spec.substr(Slash + 1), N) || N == 0 || I == 0 || I > N)
    return support::fail("invalid --shard '" + Spec +
                         "' (expected I/N with 1 <= I <= N)");
  return Shard{I - 1, N};
}

std::string candidateSet(const std::string &Root, const std::string &Path) {
  fs::path R = fs::path(Root).lexically_normal();
  fs::path P = fs::path(Path).lexically_normal();
  if (R == P)
    return P.parent_path().filename().string();
  fs::path Rel = P.lexically_relative(R);
  if (!Rel.empty() && *Rel.begin() != ".." &&
      std::distance(Rel.begin(), Rel.end()) > 1)
    return Rel.begin()->string();
  std::string Name = R.filename().string();
  return Name.empty() ? "default" : Name;
}

namespace {

struct Candidate {
  std::string Path;
  std::string Set;
};

/// Last record per candidate of an existing results file; records that are
/// not valid pkbcheck-eval/1 records are skipped with a warning on \p Log.
/// nullopt (after an error on \p Log) if the file cannot be read.
std::optional<std::map<std::string, EvalRecord>>
loadRecords(const std::string &File, std::ostream &Log) {
  std::vector<json> Records;
  if (!readEvalRecords(File, Records, Log))
    return std::nullopt;
  std::map<std::string, EvalRecord> Out;
  for (const json &J : Records) {
    EvalRecord R = evalRecordFromJson(J);
    std::string Candidate = R.Candidate;
    Out[Candidate] = std::move(R);
  }
  return Out;
}

/// The failure classes a finding of check Id can explain, from the
/// checker's CheckInfo (empty in a build without the analyzer).
json explainsOf(const std::string &Id) {
  json Out = json::array();
#ifdef PKB_HAVE_ANALYZER
  for (const auto &C : allCheckers())
    if (C->info().Id == Id)
      for (const std::string &N : explainedFailureNames(C->info().Explains))
        Out.push_back(N);
#else
  (void)Id;
#endif
  return Out;
}

json staticPart(const FileReport &R) {
  json J = toJson(R);
  // Each finding carries the failure classes it can explain, so that a
  // GPU stage on a machine without the analyzer can still name them.
  if (J.contains("findings") && J["findings"].is_array())
    for (json &F : J["findings"])
      F["explains"] = explainsOf(F.value("check", ""));
  unsigned Errors = 0, Warnings = 0;
  for (const Finding &F : R.Findings)
    (F.Sev == Severity::Error ? Errors : Warnings) +=
        F.Sev == Severity::Note ? 0 : 1;
  J.erase("file");
  J["errors"] = Errors;
  J["warnings"] = Warnings;
  return J;
}

/// The static gate of a record (docs/eval.md): "unscreened" (no analyzer
/// in this build), "compile-error" (the file does not compile: never a
/// pass), "not-analyzed" (unreadable, crash, timeout, memory limit),
/// "flagged" (error-level findings), "incomplete" (no error, but some check
/// undecided), "pass".
std::string gateOf(const json &Static) {
  // A build without the analyzer (a GPU machine) cannot screen: such
  // candidates are run unscreened rather than dropped.
  for (const json &D : Static.value("diagnostics", json::array()))
    if (D.value("code", "") == toString(DiagCode::NoAnalyzer))
      return "unscreened";
  std::string Status = Static.value("status", "ok");
  if (Status == "parse-error")
    return "compile-error";
  if (Status != "ok")
    return "not-analyzed";
  if (Static.value("errors", 0) > 0)
    return "flagged";
  return Static.value("undecided", 0) > 0 ? "incomplete" : "pass";
}

void finishRecord(EvalRecord &Rec) {
  EvalClass C;
  if (Rec.Dynamic.Ran) {
    C = classifyRun(Rec.Dynamic);
  } else {
    const std::string &Gate = Rec.Gate.empty() ? "pass" : Rec.Gate;
    C = Gate == "flagged"         ? EvalClass::StaticFlagged
        : Gate == "pass"          ? EvalClass::StaticClean
        : Gate == "incomplete"    ? EvalClass::StaticIncomplete
        : Gate == "compile-error" ? EvalClass::CompileError
                                  : EvalClass::NotAnalyzed;
  }
  Rec.Class = toString(C);
  Rec.ExplainedBy.clear();
  if (isDynamicFailure(C))
    for (const json &F : Rec.Static.value("findings", json::array())) {
      std::string Id = F.value("check", "");
      json Explains = F.contains("explains") && F["explains"].is_array()
                          ? F["explains"]
                          : explainsOf(Id); // records of older versions
      for (const json &E : Explains)
        if (E == toString(C)) {
          Rec.ExplainedBy.push_back(Id + "@" +
                                    std::to_string(F.value("line", 0)));
          break;
        }
    }
}

class ClassCounter {
public:
  void add(const std::string &C) { ++Counts[C]; }
  std::string str() const {
    std::string S;
    for (const auto &[K, V] : Counts)
      S += fmt::format("{}{} {}", S.empty() ? "" : ", ", V, K);
    return S;
  }

private:
  std::map<std::string, unsigned> Counts;
};

} // namespace

int runEval(const EvalOptions &Opts, const DynamicRunner &Runner,
            const std::string &NoGpuReason, std::ostream &Log) {
  // 1. Records already in the results file (resume).
  std::map<std::string, EvalRecord> Done;
  if (fs::exists(Opts.Results)) {
    auto Loaded = loadRecords(Opts.Results, Log);
    if (!Loaded)
      return 2;
    Done = std::move(*Loaded);
  } else if (Opts.Resume) {
    Log << "pkbcheck: error: --resume: no results file '" << Opts.Results
        << "'\n";
    return 2;
  }

  // 2. Candidates: .cu and .py files (headers are not candidates: the
  // input-language registry says which), sharded.
  // With --resume and no paths, the candidates are the file's records.
  std::vector<Candidate> All;
  std::vector<Diagnostic> Diags;
  for (const std::string &Root : Opts.Paths) {
    for (const std::string &F : expandInputs({Root}, Diags)) {
      if (isCandidatePath(F))
        All.push_back(Candidate{F, candidateSet(Root, F)});
    }
  }
  if (Opts.Paths.empty())
    for (const auto &[Path, Rec] : Done)
      All.push_back(Candidate{Path, Rec.Set});
  for (const Diagnostic &D : Diags)
    Log << fmt::format("{}:{}: {}: {}\n", D.Loc.File, D.Loc.Line,
                       toString(D.Sev), D.Message);
  std::vector<Candidate> Mine;
  for (size_t I = 0; I < All.size(); ++I)
    if (I % Opts.ShardCount == Opts.ShardIndex)
      Mine.push_back(All[I]);

  JsonlAppender Out;
  if (auto Opened = Out.open(Opts.Results); !Opened) {
    Log << "pkbcheck: error: cannot write '" << Opts.Results
        << "': " << Opened.error().Message << "\n";
    return 2;
  }
  // Appends one record durably. After the first failure (disk full, I/O
  // error) nothing more is written: the caller stops and exits 2.
  std::string WriteError;
  auto Append = [&](const EvalRecord &Rec) {
    if (!WriteError.empty())
      return false;
    if (auto Appended = Out.append(toJson(Rec)); !Appended) {
      WriteError = Appended.error().Message;
      if (WriteError.empty())
        WriteError = "write failed";
      Log << "pkbcheck: error: cannot write '" << Opts.Results
          << "': " << WriteError << "\n";
      return false;
    }
    Done[Rec.Candidate] = Rec;
    return true;
  };

  // 3. Static stage for candidates without a record.
  std::vector<std::string> ToAnalyze;
  std::map<std::string, std::string> SetOf;
  for (const Candidate &C : Mine) {
    SetOf[C.Path] = C.Set;
    if (!Done.count(C.Path))
      ToAnalyze.push_back(C.Path);
  }
  size_t Skipped = Mine.size() - ToAnalyze.size();
  Log << fmt::format("pkbcheck eval: {} candidate(s) in this shard, {} "
                     "already screened, {} to screen\n",
                     Mine.size(), Skipped, ToAnalyze.size());
  ClassCounter Counter;
  size_t Screened = 0;
  bool Tty = Opts.Progress && ::isatty(2);
  PoolOptions PO;
  PO.Jobs = Opts.Jobs;
  PO.TimeoutSeconds = Opts.TimeoutSeconds;
  PO.MaxMemoryMiB = Opts.MaxMemoryMiB;
  // Ctrl-C / SIGTERM stop the run between records: each record is one
  // complete JSON line, so the file stays valid and a rerun continues.
  auto Interrupted = [&](int Sig, size_t Done, size_t Of, const char *What) {
    if (Tty)
      Log << "\n";
    Log << fmt::format(
        "pkbcheck eval: interrupted by {} after {} of {} candidate(s) {}; "
        "the records so far are in {}. Run the same command again to "
        "continue: candidates with a complete record there are skipped\n",
        signalName(Sig), Done, Of, What, Opts.Results);
    return interruptExitStatus(Sig);
  };
  int Sig = runInChildren(
      ToAnalyze, PO,
      [&](const std::string &P) { return analyzeFile(P, Opts.Analyze); },
      [&](size_t I, FileReport R) {
        const std::string &Path = ToAnalyze[I];
        EvalRecord Rec;
        Rec.Candidate = Path;
        Rec.Set = SetOf[Path];
        Rec.Problem = Opts.Problem ? Opts.Problem : problemFromFileName(Path);
        Rec.Static = staticPart(R);
        Rec.Gate = gateOf(Rec.Static);
        Rec.Dynamic.Reason = "pending";
        Rec.Stage = "static";
        finishRecord(Rec);
        if (!Append(Rec))
          return;
        Counter.add(Rec.Gate);
        ++Screened;
        if (Tty)
          Log << fmt::format("\rscreened {}/{}: {}", Screened, ToAnalyze.size(),
                             Counter.str())
              << std::flush;
      });
  if (Sig)
    return Interrupted(Sig, Screened, ToAnalyze.size(), "screened");
  if (Tty)
    Log << "\n";
  if (!WriteError.empty())
    return 2;

  // 4. Dynamic stage for records still at the static stage. A GPU run is not
  // stopped halfway: a signal ends the loop before the next candidate, a
  // second one kills pkbcheck at once.
  ClassCounter Final;
  size_t Ran = 0, Visited = 0;
  InterruptGuard Guard(/*SecondSignalKills=*/true);
  for (const Candidate &C : Mine) {
    if (int S = Guard.signal())
      return Interrupted(S, Visited, Mine.size(), "completed");
    ++Visited;
    EvalRecord Rec = Done[C.Path];
    if (Rec.Stage == "final") {
      Final.add(Rec.Class);
      continue;
    }
    const std::string Gate = Rec.Gate.empty() ? "pass" : Rec.Gate;
    // Undecided checks are no finding: such candidates go to the GPU like
    // passes. A file that does not compile runs only with --run-all.
    // ParallelKernelBench Python runs through PkbRunner, CUDA through Runner.
    const bool IsPython = classifyPath(C.Path) == InputKind::Python;
    bool Eligible =
        Gate == "pass" || Gate == "unscreened" || Gate == "incomplete" ||
        (Opts.RunAll && (Gate == "flagged" || Gate == "compile-error"));
    json Dyn{{"ran", false}};
    bool Complete = true;
    if (Opts.StaticOnly) {
      Dyn["reason"] = "--static-only";
      Complete = false;
    } else if (!Eligible) {
      Dyn["reason"] =
          Gate == "flagged" ? "gated: static error-level findings (--run-all "
                              "runs it anyway)"
          : Gate == "compile-error"
              ? "gated: the file does not compile (--run-all runs it anyway)"
              : "static analysis could not analyze it";
    } else if (IsPython && (!Opts.PkbRunner || !Rec.Problem)) {
      Dyn["reason"] =
          !Rec.Problem
              ? "no problem: name the file <id>_<name>.py or pass --problem"
              : "ParallelKernelBench Python candidates are screened "
                "statically only here (" +
                    Opts.PkbNoRunReason + ")";
    } else if (IsPython) { // docs/pkb.md
      Dyn = Opts.PkbRunner(C.Path, *Rec.Problem);
      if (!Dyn.is_object())
        Dyn = json{{"ran", false}, {"reason", "runtime returned no record"}};
      ++Ran;
    } else if (!Rec.Problem) {
      Dyn["reason"] = "no problem: name the file <id>_<name>.cu or pass "
                      "--problem";
    } else if (!Runner) {
      Dyn["reason"] = NoGpuReason;
      Complete = false;
    } else {
      Dyn = Runner(C.Path, *Rec.Problem);
      if (!Dyn.is_object())
        Dyn = json{{"ran", false}, {"reason", "runtime returned no record"}};
      ++Ran;
    }
    // A run cut short by the signal (its compiler shares our terminal's
    // Ctrl-C) is not a verdict: keep the static record, rerun it on resume.
    if (int S = Guard.signal())
      return Interrupted(S, Visited - 1, Mine.size(), "completed");
    Rec.Dynamic = evalDynamicFromJson(Dyn);
    Rec.Stage = Complete ? "final" : "static";
    finishRecord(Rec);
    if (!Append(Rec))
      return 2;
    Final.add(Rec.Class);
    if (Tty && Ran)
      Log << fmt::format("\rran {} on GPUs: {}", Ran, Final.str())
          << std::flush;
  }
  if (Tty && Ran)
    Log << "\n";
  Log << fmt::format("pkbcheck eval: {} candidate(s): {}; results in {}\n",
                     Mine.size(), Final.str(), Opts.Results);
  if (!Runner && !Opts.StaticOnly)
    Log << "pkbcheck eval: no GPU stage (" << NoGpuReason
        << "); records hold static verdicts; complete them with "
           "`pkbcheck eval --resume "
        << Opts.Results << "` on a GPU machine\n";
  return 0;
}

} // namespace pkb
