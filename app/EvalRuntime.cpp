//===- EvalRuntime.cpp - The GPU stage of pkbcheck eval -------------------===//
//
// Runs one candidate through the runtime harness (pkb::rt::runCandidates,
// the engine of `pkbcheck run`) on every default size of its problem and
// folds the per-size typed cases (rt::CaseResult, merged by
// rt::mergeCaseResult; .py candidates' cases come the same way from
// EvalPkb.cpp) into the `dynamic` part of an eval record:
//   verdict            the most severe case verdict (rt::verdictSeverity)
//   detail             that case's detail (for people; never parsed)
//   failure_kind       that case's rt::FailureKind ("load", "setup", ...)
//   first_failing_call 0 if a synchronized trial failed; k >= 1 if only the
//                      k-th back-to-back call (1-based) and later failed
//                      (output verdicts; rt::CaseResult::FirstFailingCall)
//   speedup            geometric mean over sizes of NCCL median / candidate
//                      median (slowest rank), when every size passed
//   roofline_fraction  median over sizes of the achieved roofline fraction
//   seconds            wall time of the GPU stage for this candidate
//
//===----------------------------------------------------------------------===//

#include "Eval.h"

#ifdef PKB_HAVE_RUNTIME
#include "pkb/rt/Problem.h"
#include "pkb/rt/Session.h"
#include "pkb/rt/Verdict.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <string>
#endif

using nlohmann::json;

namespace pkb {

#ifdef PKB_HAVE_RUNTIME
json foldCases(const std::vector<rt::CaseResult> &Cases, double Seconds) {
  json Out{{"ran", true}, {"seconds", Seconds}};
  json Small = json::array();
  const rt::CaseResult *Worst = nullptr;
  double LogSum = 0;
  unsigned Timed = 0;
  std::vector<double> Fractions;
  for (const rt::CaseResult &C : Cases) {
    if (!Worst || rt::verdictSeverity(C.V) > rt::verdictSeverity(Worst->V))
      Worst = &C;
    json S{{"size", C.Size}, {"verdict", std::string(rt::verdictName(C.V))}};
    if (C.Speedup) {
      S["speedup"] = *C.Speedup;
      if (*C.Speedup > 0) {
        LogSum += std::log(*C.Speedup);
        ++Timed;
      }
    }
    if (C.RooflineFraction) {
      S["roofline_fraction"] = *C.RooflineFraction;
      Fractions.push_back(*C.RooflineFraction);
    }
    Small.push_back(S);
  }
  rt::Verdict WorstV = Worst ? Worst->V : rt::Verdict::Pass;
  Out["verdict"] = std::string(rt::verdictName(WorstV));
  Out["cases"] = Small;
  if (!Cases.empty())
    Out["mode"] = Cases.front().Mode; // "correctness-only" when oversubscribed
  if (Worst) {
    Out["detail"] = Worst->Detail;
    Out["failure_kind"] = std::string(rt::failureKindName(Worst->Kind));
    if (Worst->FirstFailingCall)
      Out["first_failing_call"] = *Worst->FirstFailingCall;
  }
  if (WorstV == rt::Verdict::Pass && Timed == Cases.size() && Timed > 0)
    Out["speedup"] = std::exp(LogSum / Timed);
  if (!Fractions.empty()) {
    std::sort(Fractions.begin(), Fractions.end());
    Out["roofline_fraction"] = Fractions[Fractions.size() / 2];
  }
  return Out;
}

#endif

support::Expected<DynamicRunner> makeDynamicRunner(const EvalOptions &Opts) {
#ifndef PKB_HAVE_RUNTIME
  (void)Opts;
  return support::fail("this build has no runtime (CUDA toolkit and NCCL "
                       "were not found when it was configured)");
#else
  int Visible = rt::visibleGpuCount();
  bool Over = Opts.Oversubscribe;
  if (Visible == 0 || (Visible < 2 && !Over))
    return support::fail(
        Visible == 0 ? "no GPU is visible on this machine"
                     : "one GPU is visible; multi-GPU problems need 2 (or "
                       "--oversubscribe for a correctness-only GPU stage)");
  // Oversubscribed: the requested world size on however many GPUs there
  // are; otherwise at most one rank per visible GPU.
  int Gpus = Over ? (Opts.Gpus > 0 ? Opts.Gpus : 2)
                  : (Opts.Gpus > 0 ? std::min(Opts.Gpus, Visible) : Visible);
  std::string CaseFile = Opts.Results + ".cases.jsonl";
  return DynamicRunner([Gpus, Over, CaseFile](const std::string &Candidate,
                                              const ProblemRef &P) -> json {
    const rt::Problem *Prob = rt::findProblem(P.Name);
    if (!Prob)
      Prob = rt::findProblem(std::to_string(P.Id));
    if (!Prob)
      return json{{"ran", false},
                  {"reason", "problem " + std::to_string(P.Id) + " " + P.Name +
                                 " has no runtime spec yet"}};
    rt::RunOptions O;
    O.ProblemName = std::string(Prob->name());
    O.Kernels = {Candidate};
    O.Gpus = Gpus;
    O.Oversubscribe = Over;
    O.Results = CaseFile;
    O.Out = nullptr;
    O.Force = true; // eval keeps its own resume state; rerun stale cases
    auto Start = std::chrono::steady_clock::now();
    try {
      rt::RunSummary S = rt::runCandidates(O);
      double Secs = std::chrono::duration<double>(
                        std::chrono::steady_clock::now() - Start)
                        .count();
      if (S.Cases.empty())
        return json{{"ran", false},
                    {"reason", "the harness produced no case record"}};
      return foldCases(S.Cases, Secs);
    } catch (const std::exception &E) {
      return json{{"ran", false},
                  {"reason", std::string("runtime error: ") + E.what()}};
    }
  });
#endif
}

} // namespace pkb
