//===- EvalRuntime.cpp - The GPU stage of pkbcheck eval -------------------===//
//
// Runs one candidate through the runtime harness (pkb::rt::runCandidates,
// the engine of `pkbcheck run`) on every default size of its problem and
// folds the per-size case records into the `dynamic` part of an eval record:
//   verdict            the most severe case verdict (rt::verdictSeverity)
//   detail             that case's detail
//   first_failing_call 0 if a synchronized trial failed; k >= 1 if only the
//                      k-th back-to-back call (1-based) and later failed
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
/// First failing call of a case record: see the file comment.
static int firstFailingCall(const json &Case) {
  int First = -1;
  for (const json &Rank : Case.value("ranks", json::array())) {
    if (!Rank.is_object())
      continue;
    for (const json &F : Rank.value("failures", json::array())) {
      std::string What = F.value("what", "");
      int Call = 0;
      const std::string B2B = "back-to-back call ";
      if (What.rfind(B2B, 0) == 0)
        Call = std::atoi(What.c_str() + B2B.size());
      if (First < 0 || Call < First)
        First = Call;
    }
  }
  return First < 0 ? 0 : First;
}

json foldCases(const std::vector<json> &Cases, double Seconds) {
  json Out{{"ran", true}, {"seconds", Seconds}};
  json Small = json::array();
  rt::Verdict Worst = rt::Verdict::Pass;
  const json *WorstCase = nullptr;
  double LogSum = 0;
  unsigned Timed = 0;
  std::vector<double> Fractions;
  for (const json &C : Cases) {
    auto V = rt::parseVerdict(C.value("verdict", "internal-error"))
                 .value_or(rt::Verdict::InternalError);
    if (!WorstCase || rt::verdictSeverity(V) > rt::verdictSeverity(Worst)) {
      Worst = V;
      WorstCase = &C;
    }
    json S{{"size", C.value("size", int64_t(0))},
           {"verdict", C.value("verdict", "")}};
    if (C.contains("timing") && C["timing"].contains("speedup")) {
      double Sp = C["timing"]["speedup"].get<double>();
      S["speedup"] = Sp;
      if (Sp > 0) {
        LogSum += std::log(Sp);
        ++Timed;
      }
    }
    if (C.contains("roofline") && C["roofline"].contains("candidate")) {
      double F = C["roofline"]["candidate"].value("achieved_fraction", 0.0);
      S["roofline_fraction"] = F;
      Fractions.push_back(F);
    }
    Small.push_back(S);
  }
  Out["verdict"] = std::string(rt::verdictName(Worst));
  Out["cases"] = Small;
  if (!Cases.empty() && Cases.front().contains("mode"))
    Out["mode"] =
        Cases.front()["mode"]; // "correctness-only" when oversubscribed
  if (WorstCase) {
    Out["detail"] = WorstCase->value("detail", "");
    if (Worst == rt::Verdict::WrongOutput ||
        Worst == rt::Verdict::UnwrittenOutput)
      Out["first_failing_call"] = firstFailingCall(*WorstCase);
  }
  if (Worst == rt::Verdict::Pass && Timed == Cases.size() && Timed > 0)
    Out["speedup"] = std::exp(LogSum / Timed);
  if (!Fractions.empty()) {
    std::sort(Fractions.begin(), Fractions.end());
    Out["roofline_fraction"] = Fractions[Fractions.size() / 2];
  }
  return Out;
}
#endif

DynamicRunner makeDynamicRunner(const EvalOptions &Opts, std::string &Reason) {
#ifndef PKB_HAVE_RUNTIME
  (void)Opts;
  Reason = "this build has no runtime (CUDA toolkit and NCCL were not found "
           "when it was configured)";
  return nullptr;
#else
  int Visible = rt::visibleGpuCount();
  bool Over = Opts.Oversubscribe;
  if (Visible == 0 || (Visible < 2 && !Over)) {
    Reason = Visible == 0 ? "no GPU is visible on this machine"
                          : "one GPU is visible; multi-GPU problems need 2 (or "
                            "--oversubscribe for a correctness-only GPU stage)";
    return nullptr;
  }
  // Oversubscribed: the requested world size on however many GPUs there
  // are; otherwise at most one rank per visible GPU.
  int Gpus = Over ? (Opts.Gpus > 0 ? Opts.Gpus : 2)
                  : (Opts.Gpus > 0 ? std::min(Opts.Gpus, Visible) : Visible);
  std::string CaseFile = Opts.Results + ".cases.jsonl";
  return [Gpus, Over, CaseFile](const std::string &Candidate,
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
      if (S.Records.empty())
        return json{{"ran", false},
                    {"reason", "the harness produced no case record"}};
      return foldCases(S.Records, Secs);
    } catch (const std::exception &E) {
      return json{{"ran", false},
                  {"reason", std::string("runtime error: ") + E.what()}};
    }
  };
#endif
}

} // namespace pkb
