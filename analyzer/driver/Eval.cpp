//===- Eval.cpp - pkbcheck eval: screen, run, classify --------------------===//

#include "Eval.h"

#include "ProcessPool.h"
#include "Records.h"
#include "pkb/Ingest.h"

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
  static const std::map<int, const char *> Names = {
      {1, "allreduce"},
      {2, "allgather"},
      {3, "broadcast"},
      {4, "reduce"},
      {5, "scatter"},
      {6, "gather"},
      {7, "reducescatter"},
      {8, "alltoall"},
      {12, "allgather_gemm"},
      {13, "gemm_allreduce"},
      {16, "gemm_reducescatter"},
      {18, "tp_rms_norm"},
      {27, "moe_all2all_primitive"},
      {33, "ulysses_all_to_all"},
      {71, "hyena_conv1d_boundary_exchange"},
      {73, "vocab_parallel_cross_entropy"},
      {82, "vocab_parallel_log_prob_topk"},
  };
  auto It = Names.find(Id);
  return It == Names.end() ? "" : It->second;
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
  std::string V = Run.value("verdict", "internal-error");
  std::string Detail = Run.value("detail", "");
  if (V == "compile-error")
    return EvalClass::CompileError;
  if (V == "api-error") // .py solutions: a torch API mismatch (docs/pkb.md)
    return EvalClass::ApiError;
  if (V == "setup-error") {
    // A missing exported symbol or a wrong signature is an API error; a
    // query/setup that rejects the shapes is a shape error.
    if (Detail.find("symbol") != std::string::npos ||
        Detail.find("dlopen") != std::string::npos ||
        Detail.find("undefined") != std::string::npos)
      return EvalClass::ApiError;
    return EvalClass::ShapeError;
  }
  if (V == "runtime-error" || V == "sanitizer-error" || V == "internal-error")
    return EvalClass::RuntimeError;
  if (V == "deadlock")
    return EvalClass::Deadlock;
  if (V == "wrong-output" || V == "unwritten-output") {
    // Failing only after the first call of a back-to-back sequence means a
    // cross-call race (a missing exit barrier, or aliasing).
    if (Run.contains("first_failing_call") &&
        Run["first_failing_call"].is_number_integer() &&
        Run["first_failing_call"].get<int>() > 0)
      return EvalClass::CrossCallRace;
    return V == "wrong-output" ? EvalClass::OutputMismatch
                               : EvalClass::UnwrittenOutput;
  }
  if (V == "pass") {
    if (!Run.contains("speedup"))
      return EvalClass::CorrectUntimed;
    double S = Run.value("speedup", 0.0);
    return S > 1.0 ? EvalClass::CorrectFaster : EvalClass::CorrectSlower;
  }
  return EvalClass::RuntimeError;
}

/// Static check IDs that can explain each dynamic failure class.
static std::vector<std::string> explainingPrefixes(EvalClass C) {
  switch (C) {
  case EvalClass::Deadlock:
    return {"BAR-001", "BAR-002", "BAR-005", "SIG-001",
            "SIG-002", "ORD-004", "PART-001"};
  case EvalClass::CrossCallRace:
    return {"BAR-004", "SIG-002", "HOST-001"};
  case EvalClass::OutputMismatch:
    return {"ORD-", "RACE-", "PART-", "SIG-", "BAR-003", "BAR-004", "HOST-"};
  case EvalClass::UnwrittenOutput:
    return {"PART-003", "PART-001", "BAR-001"};
  case EvalClass::RuntimeError:
    return {"PART-001", "SIG-001", "TOPO-001"};
  default:
    return {};
  }
}

bool parseShard(const std::string &Spec, unsigned &Index0, unsigned &Count,
                std::string &Error) {
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
      !Num(Spec.substr(Slash + 1), N) || N == 0 || I == 0 || I > N) {
    Error = "invalid --shard '" + Spec + "' (expected I/N with 1 <= I <= N)";
    return false;
  }
  Index0 = I - 1;
  Count = N;
  return true;
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
std::optional<std::map<std::string, json>> loadRecords(const std::string &File,
                                                       std::ostream &Log) {
  std::vector<json> Records;
  if (!readEvalRecords(File, Records, Log))
    return std::nullopt;
  std::map<std::string, json> Out;
  for (json &J : Records) {
    std::string Candidate = J["candidate"].get<std::string>();
    Out[Candidate] = std::move(J);
  }
  return Out;
}

json staticPart(const FileReport &R) {
  json J = toJson(R);
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
    if (D.value("code", "") == "no-analyzer")
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

void finishRecord(json &Rec) {
  const json &Dyn = Rec["dynamic"];
  EvalClass C;
  if (Dyn.value("ran", false)) {
    C = classifyDynamic(Dyn);
  } else {
    std::string Gate = Rec.value("gate", "pass");
    C = Gate == "flagged"         ? EvalClass::StaticFlagged
        : Gate == "pass"          ? EvalClass::StaticClean
        : Gate == "incomplete"    ? EvalClass::StaticIncomplete
        : Gate == "compile-error" ? EvalClass::CompileError
                                  : EvalClass::NotAnalyzed;
  }
  Rec["class"] = toString(C);
  json Explained = json::array();
  if (isDynamicFailure(C))
    for (const json &F : Rec["static"].value("findings", json::array())) {
      std::string Id = F.value("check", "");
      for (const std::string &P : explainingPrefixes(C))
        if (Id.rfind(P, 0) == 0) {
          Explained.push_back(Id + "@" + std::to_string(F.value("line", 0)));
          break;
        }
    }
  Rec["explained_by"] = Explained;
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
  std::map<std::string, json> Done;
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

  // 2. Candidates: .cu and .py files (headers are not candidates), sharded.
  // With --resume and no paths, the candidates are the file's records.
  std::vector<Candidate> All;
  std::vector<Diagnostic> Diags;
  for (const std::string &Root : Opts.Paths) {
    for (const std::string &F : expandInputs({Root}, Diags)) {
      std::string Ext = fs::path(F).extension().string();
      if (Ext == ".cu" || Ext == ".py")
        All.push_back(Candidate{F, candidateSet(Root, F)});
    }
  }
  if (Opts.Paths.empty())
    for (const auto &[Path, Rec] : Done)
      All.push_back(Candidate{Path, Rec.value("set", "default")});
  for (const Diagnostic &D : Diags)
    Log << fmt::format("{}:{}: {}: {}\n", D.Loc.File, D.Loc.Line,
                       toString(D.Sev), D.Message);
  std::vector<Candidate> Mine;
  for (size_t I = 0; I < All.size(); ++I)
    if (I % Opts.ShardCount == Opts.ShardIndex)
      Mine.push_back(All[I]);

  JsonlAppender Out;
  std::string WriteError;
  if (!Out.open(Opts.Results, WriteError)) {
    Log << "pkbcheck: error: cannot write '" << Opts.Results
        << "': " << WriteError << "\n";
    return 2;
  }
  // Appends one record durably. After the first failure (disk full, I/O
  // error) nothing more is written: the caller stops and exits 2.
  auto Append = [&](const json &Rec) {
    if (!WriteError.empty())
      return false;
    if (!Out.append(Rec, WriteError)) {
      if (WriteError.empty())
        WriteError = "write failed";
      Log << "pkbcheck: error: cannot write '" << Opts.Results
          << "': " << WriteError << "\n";
      return false;
    }
    Done[Rec["candidate"].get<std::string>()] = Rec;
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
        json Rec{{"schema", "pkbcheck-eval/1"},
                 {"candidate", Path},
                 {"set", SetOf[Path]}};
        std::optional<ProblemRef> P =
            Opts.Problem ? Opts.Problem : problemFromFileName(Path);
        Rec["problem"] =
            P ? json{{"id", P->Id}, {"name", P->Name}} : json(nullptr);
        Rec["static"] = staticPart(R);
        Rec["gate"] = gateOf(Rec["static"]);
        Rec["dynamic"] = {{"ran", false}, {"reason", "pending"}};
        Rec["stage"] = "static";
        finishRecord(Rec);
        if (!Append(Rec))
          return;
        Counter.add(Rec["gate"].get<std::string>());
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
    json Rec = Done[C.Path];
    if (Rec.value("stage", "") == "final") {
      Final.add(Rec.value("class", ""));
      continue;
    }
    std::string Gate = Rec.value("gate", "pass");
    // Undecided checks are no finding: such candidates go to the GPU like
    // passes. A file that does not compile runs only with --run-all.
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
    } else if (fs::path(C.Path).extension() == ".py" &&
               (!Opts.PkbRunner || Rec["problem"].is_null())) {
      Dyn["reason"] =
          Rec["problem"].is_null()
              ? "no problem: name the file <id>_<name>.py or pass --problem"
              : "ParallelKernelBench Python candidates are screened "
                "statically only here (" +
                    Opts.PkbNoRunReason + ")";
    } else if (fs::path(C.Path).extension() == ".py") { // docs/pkb.md
      ProblemRef P{Rec["problem"]["id"].get<int>(),
                   Rec["problem"]["name"].get<std::string>()};
      Dyn = Opts.PkbRunner(C.Path, P);
      if (!Dyn.is_object())
        Dyn = json{{"ran", false}, {"reason", "runtime returned no record"}};
      ++Ran;
    } else if (Rec["problem"].is_null()) {
      Dyn["reason"] = "no problem: name the file <id>_<name>.cu or pass "
                      "--problem";
    } else if (!Runner) {
      Dyn["reason"] = NoGpuReason;
      Complete = false;
    } else {
      ProblemRef P{Rec["problem"]["id"].get<int>(),
                   Rec["problem"]["name"].get<std::string>()};
      Dyn = Runner(C.Path, P);
      if (!Dyn.is_object())
        Dyn = json{{"ran", false}, {"reason", "runtime returned no record"}};
      ++Ran;
    }
    // A run cut short by the signal (its compiler shares our terminal's
    // Ctrl-C) is not a verdict: keep the static record, rerun it on resume.
    if (int S = Guard.signal())
      return Interrupted(S, Visited - 1, Mine.size(), "completed");
    Rec["dynamic"] = Dyn;
    Rec["stage"] = Complete ? "final" : "static";
    finishRecord(Rec);
    if (!Append(Rec))
      return 2;
    Final.add(Rec["class"].get<std::string>());
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
