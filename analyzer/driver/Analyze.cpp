//===- Analyze.cpp - Analysis of one input file ---------------------------===//

#include "Analyze.h"

#include "pkb/Ingest.h"
#include "pkb/ModelJson.h"

#ifdef PKB_HAVE_ANALYZER
#include "pkb/Checker.h"
#include "pkb/Frontend.h"
#endif

#include <chrono>
#include <exception>

using nlohmann::json;

namespace pkb {

bool FileReport::hasErrorFinding() const {
  for (const Finding &F : Findings)
    if (F.Sev == Severity::Error)
      return true;
  return false;
}

bool FileReport::hasInputError() const { return Status != "ok"; }

static Diagnostic fileDiag(const std::string &Path, std::string Code,
                           Severity Sev, std::string Msg) {
  Diagnostic D;
  D.Code = std::move(Code);
  D.Sev = Sev;
  D.Loc = SourceLoc{Path, 1, 1};
  D.Message = std::move(Msg);
  return D;
}

#ifdef PKB_HAVE_ANALYZER
/// Reads \p Path and runs the front end on every CUDA unit it holds.
/// Returns false when nothing could be parsed.
static bool buildModule(const std::string &Path, const AnalyzeOptions &Opts,
                        ModuleModel &M, std::vector<Diagnostic> &Diags,
                        bool &InputError) {
  Input In = readInput(Path);
  Diags.insert(Diags.end(), In.Diags.begin(), In.Diags.end());
  M.File = Path;
  M.HostOps = In.HostOps;
  InputError = false;
  for (const Diagnostic &D : In.Diags)
    if (D.Sev == Severity::Error)
      InputError = true;
  if (In.Units.empty())
    return false;
  FrontendOptions FO;
  FO.CudaPath = Opts.CudaPath;
  FO.ForceShims = Opts.ForceShims;
  FO.ExtraArgs = Opts.ExtraArgs;
  if (Opts.Db) {
    if (auto Flags = Opts.Db->flagsFor(Path))
      FO.ExtraArgs.insert(FO.ExtraArgs.end(), Flags->begin(), Flags->end());
    else
      Diags.push_back(fileDiag(Path, "compile-db", Severity::Note,
                               "no entry in compile_commands.json; using "
                               "default flags"));
  }
  bool AnyParsed = false;
  for (const CudaUnit &U : In.Units) {
    FrontendResult FR = buildModels(U, FO);
    Diags.insert(Diags.end(), FR.Diags.begin(), FR.Diags.end());
    AnyParsed |= FR.Parsed;
    for (KernelModel &K : FR.Module.Kernels)
      M.Kernels.push_back(std::move(K));
  }
  if (!AnyParsed)
    InputError = true;
  return AnyParsed;
}
#endif

FileReport analyzeFile(const std::string &Path, const AnalyzeOptions &Opts) {
  auto Start = std::chrono::steady_clock::now();
  FileReport R;
  R.Path = Path;
  try {
#ifdef PKB_HAVE_ANALYZER
    ModuleModel M;
    bool InputError = false;
    buildModule(Path, Opts, M, R.Diags, InputError);
    if (InputError)
      R.Status = "input-error";
    R.Kernels = M.Kernels.size();
    if (!M.Kernels.empty() || !M.HostOps.empty()) {
      CheckOptions CO;
      CO.WorldSizes = Opts.WorldSizes;
      CO.SolverTimeoutMs = Opts.SolverTimeoutMs;
      std::string TopoError;
      if (!resolveTopology(Opts.Topology, CO.Target, TopoError))
        R.Diags.push_back(
            fileDiag(Path, "topology", Severity::Error, TopoError));
      for (const auto &C : allCheckers())
        if (isCheckEnabled(C->info().Id, Opts.Checks))
          C->check(M, CO, R.Findings, R.Diags);
    }
#else
    (void)Opts;
    R.Status = "input-error";
    R.Diags.push_back(fileDiag(Path, "no-analyzer", Severity::Error,
                               "pkbcheck was built without the analyzer "
                               "(LLVM/Clang >= 19 and Z3 were not found)"));
#endif
  } catch (const std::exception &E) {
    R.Status = "crash";
    R.Diags.push_back(fileDiag(Path, "internal-error", Severity::Error,
                               std::string("internal error: ") + E.what()));
  }
  R.Seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() -
                                            Start)
                  .count();
  return R;
}

ModuleModel dumpModel(const std::string &Path, const AnalyzeOptions &Opts,
                      std::vector<Diagnostic> &Diags) {
  ModuleModel M;
  M.File = Path;
#ifdef PKB_HAVE_ANALYZER
  bool InputError = false;
  buildModule(Path, Opts, M, Diags, InputError);
#else
  (void)Opts;
  Diags.push_back(fileDiag(Path, "no-analyzer", Severity::Error,
                           "pkbcheck was built without the analyzer"));
#endif
  return M;
}

json toJson(const FileReport &R) {
  json F = json::array(), D = json::array();
  for (const Finding &X : R.Findings)
    F.push_back(toJson(X));
  for (const Diagnostic &X : R.Diags)
    D.push_back(toJson(X));
  return json{{"file", R.Path},      {"status", R.Status},
              {"kernels", R.Kernels}, {"seconds", R.Seconds},
              {"findings", F},        {"diagnostics", D}};
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
  for (const json &X : J.value("findings", json::array())) {
    Finding F;
    F.CheckId = X.value("check", "");
    F.Sev = severityFromString(X.value("severity", "note"));
    F.Kernel = X.value("kernel", "");
    F.Loc = SourceLoc{X.value("file", ""), X.value("line", 0u),
                      X.value("col", 0u)};
    F.Message = X.value("message", "");
    F.FixHint = X.value("fix", "");
    for (const json &Rel : X.value("related", json::array()))
      F.Related.push_back(RelatedEvent{
          Rel.value("role", ""),
          SourceLoc{Rel.value("file", ""), Rel.value("line", 0u),
                    Rel.value("col", 0u)},
          Rel.value("text", "")});
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
    D.Loc = SourceLoc{X.value("file", ""), X.value("line", 0u),
                      X.value("col", 0u)};
    D.Message = X.value("message", "");
    R.Diags.push_back(std::move(D));
  }
  return R;
}

} // namespace pkb
