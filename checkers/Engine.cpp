//===- Engine.cpp - Shared analysis engine of the checkers ----------------===//
//
// The per-kernel driver of KernelChecker. The engine itself is split by
// concern: EngineClassify.cpp (event classification), EngineEncode.cpp
// (Expr -> Z3, execution conditions, ranges, conflicts), EnginePhases.cpp
// (synchronization intervals), EngineLaunches.cpp (launch configurations),
// EngineSolve.cpp (queries, cache, budget) and EngineFindings.cpp (finding
// builder). See Engine.h and docs/checkers.md ("Method").
//
//===----------------------------------------------------------------------===//
#include "Engine.h"
#include "pkb/DiagCode.h"

#include <chrono>
#include <cstdio>
#include <cstdlib>

namespace pkb::chk {

Diagnostic solverErrorNote(const std::string &CheckId, const KernelModel &K,
                           const z3::exception &E) {
  Diagnostic D;
  D.Code = std::string(toString(DiagCode::SolverUnknown));
  D.Sev = Severity::Note;
  D.Loc = K.Loc;
  D.Message = CheckId + ": solver error in kernel '" + K.Name + "': " + E.msg();
  return D;
}

void Analysis::beginCheck() {
  Queries = 0;
  CacheHits = 0;
  MonotoneDecided = 0;
  Spent = 0;
  BudgetHit = false;
}

Analysis &checkContext(const ModuleModel &M, const KernelModel &K,
                       const CheckOptions &O, std::optional<Analysis> &Local) {
  if (!O.Contexts) {
    Local.emplace(M, K, O);
    return *Local;
  }
  Analysis &A = O.Contexts->get(M, K, O);
  A.beginCheck();
  return A;
}

Analysis &classifiedContext(const ModuleModel &M, const KernelModel &K,
                            const CheckOptions &O,
                            std::optional<Analysis> &Local) {
  if (!O.Contexts) {
    Local.emplace(M, K, O);
    return *Local;
  }
  return O.Contexts->get(M, K, O);
}

void KernelChecker::check(const ModuleModel &M, const CheckOptions &Opts,
                          std::vector<Finding> &Out,
                          std::vector<Diagnostic> &Diags) const {
  for (const KernelModel &K : M.Kernels) {
    if (Opts.OnProgress)
      Opts.OnProgress(info().Id, K.Name);
    std::optional<Analysis> Local;
    Analysis &A = checkContext(M, K, Opts, Local);
    static const bool Trace = std::getenv("PKB_CHECKERS_TRACE") != nullptr;
    auto T0 = std::chrono::steady_clock::now();
    try {
      checkKernel(A, Out, Diags);
      if (Trace)
        std::fprintf(
            stderr,
            "[%s %s] %u queries, %u cached, %u monotone, %llu units%s, "
            "%.3fs\n",
            info().Id.c_str(), K.Name.c_str(), A.Queries, A.CacheHits,
            A.MonotoneDecided, static_cast<unsigned long long>(A.Spent),
            A.BudgetHit ? " (budget exhausted)" : "",
            std::chrono::duration<double>(std::chrono::steady_clock::now() - T0)
                .count());
    } catch (const z3::exception &E) {
      Diags.push_back(solverErrorNote(info().Id, K, E));
    }
  }
}

} // namespace pkb::chk

namespace pkb {
chk::Analysis &CheckContexts::get(const ModuleModel &M, const KernelModel &K,
                                  const CheckOptions &O) {
  std::unique_ptr<chk::Analysis> &A = ByKernel[&K];
  if (!A) {
    A = std::make_unique<chk::Analysis>(M, K, O);
    A->LimitHits = &LimitHits;
  }
  return *A;
}

std::shared_ptr<CheckContexts> makeCheckContexts() {
  return std::make_shared<CheckContexts>();
}
} // namespace pkb
