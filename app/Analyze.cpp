//===- Analyze.cpp - Analysis of one input file ---------------------------===//

#include "Analyze.h"
#include "ProcessPool.h"

#include "pkb/DiagCode.h"
#include "pkb/Ingest.h"
#include "pkb/ModelJson.h"
#include "pkb/ProblemCatalogue.h"

#include "Eval.h"

#ifdef PKB_HAVE_ANALYZER
#include "pkb/Checker.h"
#include "pkb/Enrich.h"
#include "pkb/Frontend.h"
#endif

#include <chrono>
#include <cstring>
#include <exception>
#include <functional>
#include <pthread.h>

using nlohmann::json;

namespace pkb {

bool FileReport::hasErrorFinding() const {
  for (const Finding &F : Findings)
    if (F.Sev == Severity::Error)
      return true;
  return false;
}

bool FileReport::hasInputError() const { return Status != "ok"; }

static Diagnostic fileDiag(const std::string &Path, DiagCode Code, Severity Sev,
                           std::string Msg) {
  Diagnostic D;
  D.Code = std::string(toString(Code));
  D.Sev = Sev;
  D.Loc = SourceLoc{Path, 1, 1};
  D.Message = std::move(Msg);
  return D;
}

#ifdef PKB_HAVE_ANALYZER
/// The status of a file after the front end (FileReport::Status).
static const char *frontendStatus(bool InputError, bool ParseErrors) {
  return InputError ? "input-error" : ParseErrors ? "parse-error" : "ok";
}

/// What every report goes through before it is handed out (also the partial
/// ones): findings merged across template instantiations, repeated
/// diagnostics dropped, undecided solver queries counted.
static void finishReport(FileReport &R) {
  mergeInstantiations(R.Findings);
  dedupeDiagnostics(R.Diags);
  R.Undecided = 0;
  for (const Diagnostic &D : R.Diags)
    R.Undecided += D.Code == toString(DiagCode::SolverUnknown);
}

/// Reads \p Path and runs the front end on every CUDA unit it holds.
/// Returns false when nothing could be parsed. \p InputError: the file could
/// not be read or no unit parsed; \p ParseErrors: Clang reported an error
/// (the file does not compile) in some unit.
static bool buildModule(const std::string &Path, const AnalyzeOptions &Opts,
                        ModuleModel &M, std::vector<Diagnostic> &Diags,
                        bool &InputError, bool &ParseErrors) {
  Input In = readInput(Path);
  Diags.insert(Diags.end(), In.Diags.begin(), In.Diags.end());
  M.File = Path;
  M.HostOps = In.HostOps;
  InputError = false;
  ParseErrors = false;
  for (const Diagnostic &D : In.Diags)
    if (D.Sev == Severity::Error)
      InputError = true;
  if (In.Units.empty())
    return false;
  FrontendOptions FO;
  FO.CudaPath = Opts.CudaPath;
  FO.ForceShims = Opts.ForceShims;
  FO.PchDir = Opts.PchDir;
  FO.ExtraArgs = Opts.ExtraArgs;
  if (Opts.Db) {
    if (auto Flags = Opts.Db->flagsFor(Path))
      FO.ExtraArgs.insert(FO.ExtraArgs.end(), Flags->begin(), Flags->end());
    else
      Diags.push_back(fileDiag(Path, DiagCode::CompileDb, Severity::Note,
                               "no entry in compile_commands.json; using "
                               "default flags"));
  }
  bool AnyParsed = false;
  for (const CudaUnit &U : In.Units) {
    FrontendResult FR = buildModels(U, FO);
    Diags.insert(Diags.end(), FR.Diags.begin(), FR.Diags.end());
    AnyParsed |= FR.Parsed;
    for (const Diagnostic &D : FR.Diags)
      if (D.Sev == Severity::Error)
        ParseErrors = true;
    for (KernelModel &K : FR.Module.Kernels)
      M.Kernels.push_back(std::move(K));
    for (HostOp &H : FR.Module.HostOps) // a candidate's pkb_candidate_run
      M.HostOps.push_back(std::move(H));
  }
  if (!AnyParsed)
    InputError = true;
  enrich(M);
  return AnyParsed;
}
#endif

/// Runs \p Fn on a new thread with a \p StackBytes stack and waits for it.
/// Falls back to the calling thread when the thread cannot be created (the
/// address-space limit may forbid the reservation).
static void runOnLargeStack(size_t StackBytes,
                            const std::function<void()> &Fn) {
  pthread_attr_t Attr;
  pthread_t T;
  bool Ok = pthread_attr_init(&Attr) == 0 &&
            pthread_attr_setstacksize(&Attr, StackBytes) == 0;
  auto Trampoline = [](void *P) -> void * {
    pthread_attr_t Self;
    void *Low = nullptr;
    size_t Size = 0;
    if (pthread_getattr_np(pthread_self(), &Self) == 0) {
      pthread_attr_getstack(&Self, &Low, &Size);
      pthread_attr_destroy(&Self);
      noteAnalysisStack(Low);
    }
    (*static_cast<const std::function<void()> *>(P))();
    noteAnalysisStack(nullptr);
    return nullptr;
  };
  Ok = Ok && pthread_create(&T, &Attr, Trampoline,
                            const_cast<std::function<void()> *>(&Fn)) == 0;
  pthread_attr_destroy(&Attr);
  if (!Ok) {
    Fn();
    return;
  }
  pthread_join(T, nullptr);
}

static FileReport analyzeFileHere(const std::string &Path,
                                  const AnalyzeOptions &Opts);

static std::function<void(const json &)> &progressSink() {
  static std::function<void(const json &)> Sink;
  return Sink;
}

void setAnalysisProgressSink(std::function<void(const json &)> Sink) {
  progressSink() = std::move(Sink);
}

static bool KeepContexts = false;

void keepCheckContextsUntilExit(bool Keep) { KeepContexts = Keep; }

void emitAnalysisProgress(const json &Message) {
  if (progressSink())
    progressSink()(Message);
}

#ifdef PKB_HAVE_ANALYZER
/// The checkers' view of the problem that file \p Path solves under option
/// \p Spec (AnalyzeOptions::Problem): its size contract, or nullopt (no
/// problem, "none", or a problem without a contract).
static std::optional<ProblemSizes> problemSizesFor(const std::string &Spec,
                                                   const std::string &Path) {
  if (Spec == "none")
    return std::nullopt;
  int Id = 0;
  if (!Spec.empty()) {
    const CatalogueEntry *E = findCatalogueEntry(Spec);
    if (!E)
      return std::nullopt;
    Id = E->Id;
  } else if (std::optional<ProblemRef> P = problemFromFileName(Path)) {
    Id = P->Id;
  }
  const SizeContract *C = sizeContract(Id);
  const CatalogueEntry *E = findCatalogueEntry(Id);
  if (!C || !E)
    return std::nullopt;
  ProblemSizes S;
  S.Name = std::string(E->name());
  S.InputTimesW = C->InputTimesW;
  S.OutputTimesW = C->OutputTimesW;
  S.OutputRootOnly = C->OutputRootOnly;
  S.ElemBytes = static_cast<unsigned>(C->ElemBytes);
  S.Sizes.assign(C->DefaultSizes.begin(), C->DefaultSizes.end());
  S.Copies = C->Copies;
  S.SourceByBlock = C->SourceByBlock;
  S.SourceOffsetByRank = C->SourceOffsetByRank;
  return S;
}
#endif

FileReport analyzeFile(const std::string &Path, const AnalyzeOptions &Opts) {
  FileReport R;
  runOnLargeStack(kAnalysisStackBytes,
                  [&] { R = analyzeFileHere(Path, Opts); });
  return R;
}

FileReport dumpFile(const std::string &Path, const AnalyzeOptions &Opts) {
  FileReport R;
  R.Path = Path;
  runOnLargeStack(kAnalysisStackBytes, [&] {
    try {
      ModuleModel M;
      M.File = Path;
#ifdef PKB_HAVE_ANALYZER
      bool InputError = false, ParseErrors = false;
      buildModule(Path, Opts, M, R.Diags, InputError, ParseErrors);
      R.Status = frontendStatus(InputError, ParseErrors);
#else
      (void)Opts;
      R.Status = "input-error";
      R.Diags.push_back(fileDiag(Path, DiagCode::NoAnalyzer, Severity::Error,
                                 "pkbcheck was built without the analyzer"));
#endif
      R.Kernels = M.Kernels.size();
      R.Model = toJson(M);
    } catch (const std::exception &E) {
      R.Status = "crash";
      R.Diags.push_back(fileDiag(Path, DiagCode::InternalError, Severity::Error,
                                 std::string("internal error: ") + E.what()));
    }
  });
  return R;
}

static FileReport analyzeFileHere(const std::string &Path,
                                  const AnalyzeOptions &Opts) {
  auto Start = std::chrono::steady_clock::now();
  FileReport R;
  R.Path = Path;
  try {
#ifdef PKB_HAVE_ANALYZER
    const auto &Sink = progressSink();
    if (Sink)
      Sink(json{{"kind", "progress"}, {"phase", "frontend"}});
    auto Since = [](std::chrono::steady_clock::time_point T) {
      return std::chrono::duration<double>(std::chrono::steady_clock::now() - T)
          .count();
    };
    ModuleModel M;
    bool InputError = false, ParseErrors = false;
    buildModule(Path, Opts, M, R.Diags, InputError, ParseErrors);
    R.PhaseSeconds["frontend"] = Since(Start);
    R.Status = frontendStatus(InputError, ParseErrors);
    R.Kernels = M.Kernels.size();
    if (!M.Kernels.empty() || !M.HostOps.empty()) {
      CheckOptions CO;
      CO.WorldSizes = Opts.WorldSizes;
      CO.SolverTimeoutMs = Opts.SolverTimeoutMs;
      CO.Contexts = makeCheckContexts();
      CO.Problem = problemSizesFor(Opts.Problem, Path);
      if (auto T = resolveTopology(Opts.Topology))
        CO.Target = std::move(*T);
      else
        R.Diags.push_back(fileDiag(Path, DiagCode::Topology, Severity::Error,
                                   T.error().Message));
      if (Sink)
        CO.OnProgress = [&](const std::string &Id, const std::string &K) {
          Sink(json{{"kind", "progress"},
                    {"phase", "check"},
                    {"check", Id},
                    {"kernel", K}});
        };
      unsigned Done = 0;
      // Skip what cannot fire (docs/checkers.md): a checker whose
      // preconditions the model lacks is not run; its phase time is 0.
      const unsigned Features = modelFeatures(M);
      for (const auto &C : allCheckers()) {
        if (!isCheckEnabled(C->info().Id, Opts.Checks))
          continue;
        const bool Applies = C->appliesTo(Features);
        if (CO.OnProgress && !C->isPerKernel() && Applies)
          CO.OnProgress(C->info().Id, ""); // per-kernel ones report each
                                           // kernel themselves
        auto T0 = std::chrono::steady_clock::now();
        if (Applies)
          C->check(M, CO, R.Findings, R.Diags);
        R.PhaseSeconds[C->info().Id] = Applies ? Since(T0) : 0.0;
        ++Done;
        if (Sink) {
          FileReport P = R;
          finishReport(P);
          Sink(json{{"kind", "partial"},
                    {"checks_done", Done},
                    {"report", toJson(P)}});
        }
      }
      // Left to the process exit on purpose (keepCheckContextsUntilExit):
      // the reference is never released, so the contexts are not deleted.
      if (KeepContexts)
        new std::shared_ptr<CheckContexts>(std::move(CO.Contexts));
    }
    finishReport(R);
#else
    (void)Opts;
    R.Status = "input-error";
    R.Diags.push_back(fileDiag(Path, DiagCode::NoAnalyzer, Severity::Error,
                               "pkbcheck was built without the analyzer "
                               "(LLVM/Clang >= 19 and Z3 were not found)"));
#endif
  } catch (const std::exception &E) {
    R.Status = "crash";
    R.Diags.push_back(fileDiag(Path, DiagCode::InternalError, Severity::Error,
                               std::string("internal error: ") + E.what()));
  }
  R.Seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - Start)
          .count();
  return R;
}

json toJson(const FileReport &R) {
  json F = json::array(), D = json::array();
  for (const Finding &X : R.Findings)
    F.push_back(toJson(X));
  for (const Diagnostic &X : R.Diags)
    D.push_back(toJson(X));
  json J{{"file", R.Path},           {"status", R.Status},
         {"kernels", R.Kernels},     {"seconds", R.Seconds},
         {"undecided", R.Undecided}, {"findings", F},
         {"diagnostics", D}};
  if (!R.PhaseSeconds.empty())
    J["phases"] = R.PhaseSeconds;
  if (R.PeakRssMiB > 0)
    J["peak_rss_mib"] = R.PeakRssMiB;
  if (!R.Model.is_null())
    J["model"] = R.Model;
  return J;
}

static Severity severityFromString(const std::string &S) {
  if (S == "error")
    return Severity::Error;
  if (S == "warning")
    return Severity::Warning;
  return Severity::Note;
}

FileReport fileReportFromJson(const json &J) {
  FileReport R;
  R.Path = J.value("file", "");
  R.Status = J.value("status", "ok");
  R.Kernels = J.value("kernels", 0u);
  R.Seconds = J.value("seconds", 0.0);
  R.Undecided = J.value("undecided", 0u);
  R.PeakRssMiB = J.value("peak_rss_mib", 0.0);
  if (J.contains("phases") && J["phases"].is_object())
    for (auto It = J["phases"].begin(); It != J["phases"].end(); ++It)
      if (It->is_number())
        R.PhaseSeconds[It.key()] = It->get<double>();
  if (J.contains("model"))
    R.Model = J["model"];
  for (const json &X : J.value("findings", json::array())) {
    Finding F;
    F.CheckId = X.value("check", "");
    F.Sev = severityFromString(X.value("severity", "note"));
    F.Kernel = X.value("kernel", "");
    F.Loc =
        SourceLoc{X.value("file", ""), X.value("line", 0u), X.value("col", 0u)};
    F.Message = X.value("message", "");
    F.FixHint = X.value("fix", "");
    for (const json &Rel : X.value("related", json::array()))
      F.Related.push_back(
          RelatedEvent{Rel.value("role", ""),
                       SourceLoc{Rel.value("file", ""), Rel.value("line", 0u),
                                 Rel.value("col", 0u)},
                       Rel.value("text", "")});
    for (const json &K : X.value("also_in", json::array()))
      if (K.is_string())
        F.AlsoIn.push_back(K.get<std::string>());
    if (X.contains("witness") && X["witness"].is_object())
      for (auto It = X["witness"].begin(); It != X["witness"].end(); ++It)
        F.Witness[It.key()] =
            It->is_string() ? It->get<std::string>() : It->dump();
    R.Findings.push_back(std::move(F));
  }
  for (const json &X : J.value("diagnostics", json::array())) {
    Diagnostic D;
    D.Code = X.value("code", "");
    D.Sev = severityFromString(X.value("severity", "note"));
    D.Loc =
        SourceLoc{X.value("file", ""), X.value("line", 0u), X.value("col", 0u)};
    D.Message = X.value("message", "");
    R.Diags.push_back(std::move(D));
  }
  return R;
}

} // namespace pkb
