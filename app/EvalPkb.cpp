//===- EvalPkb.cpp - eval's GPU stage for ParallelKernelBench .py files ---===//
//
// Runs a .py survivor of the static stage with the runtime's Python workers
// (the engine of `pkbcheck run --solution`, runtime/src/PkbRun.cpp) and folds
// its typed cases (merged by rt::mergeCaseResult, like those of .cu
// candidates) with foldCases. See docs/pkb.md.
//
//===----------------------------------------------------------------------===//
#include "Eval.h"

#ifdef PKB_HAVE_RUNTIME
#include "pkb/rt/Compiler.h"
#include "pkb/rt/PkbRun.h"
#include "pkb/rt/Session.h"

#include <chrono>
#include <cstdlib>
#include <filesystem>
#endif

using nlohmann::json;

namespace pkb {

support::Expected<DynamicRunner> makePkbDynamicRunner(const EvalOptions &Opts) {
#ifndef PKB_HAVE_RUNTIME
  (void)Opts;
  return support::fail("this build has no runtime");
#else
  std::string Root = Opts.PkbRoot;
  if (Root.empty())
    if (const char *E = std::getenv("PKB_ROOT"))
      Root = E;
  if (Root.empty() ||
      !std::filesystem::exists(std::filesystem::path(Root) / "utils" /
                               "input_output_tensors.py"))
    return support::fail("no ParallelKernelBench checkout: pass --pkb-root "
                         "or set PKB_ROOT to run .py candidates");
  int Visible = rt::visibleGpuCount();
  int World = Opts.Gpus > 0 ? Opts.Gpus : 1;
  if (Visible < World)
    return support::fail(Visible == 0
                             ? "no GPU is visible on this machine"
                             : "fewer GPUs than --gpus; .py candidates need "
                               "one GPU per rank (docs/pkb.md)");
  std::string CaseFile = Opts.Results + ".pkb-cases.jsonl";
  std::string Python = Opts.Python;
  // The link peak of the roofline fraction: this machine's cached probe
  // (`pkbcheck run` or `bench peers --cache-dir`), if any; eval never probes.
  std::filesystem::path Rates = rt::ratesCachePath(rt::defaultCacheDir());
  if (!std::filesystem::exists(Rates))
    Rates.clear();
  return DynamicRunner([Root, World, CaseFile, Python,
                        Rates](const std::string &Candidate,
                               const ProblemRef &P) -> json {
    rt::PkbRunOptions O;
    O.Solutions = {Candidate};
    O.PkbRoot = Root;
    O.Problem = std::to_string(P.Id);
    O.Python = Python;
    O.WorldSize = World;
    O.Results = CaseFile;
    O.RatesFile = Rates;
    O.Force = true; // eval keeps its own resume state
    O.Quiet = true;
    std::vector<rt::CaseResult> Cases;
    O.Collect = &Cases;
    auto Start = std::chrono::steady_clock::now();
    try {
      rt::runPkbSolutions(O);
    } catch (const std::exception &E) {
      return json{{"ran", false},
                  {"reason", std::string("runtime error: ") + E.what()}};
    }
    double Secs =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - Start)
            .count();
    if (Cases.empty())
      return json{{"ran", false},
                  {"reason", "the harness produced no case record"}};
    json Out = foldCases(Cases, Secs);
    if (Cases.front().Record.contains("versions"))
      Out["versions"] = Cases.front().Record["versions"];
    return Out;
  });
#endif
}

} // namespace pkb
