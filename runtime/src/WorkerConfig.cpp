//===- WorkerConfig.cpp - Typed configuration of a worker -----------------===//
#include "pkb/rt/WorkerConfig.h"

#include <algorithm>

namespace pkb::rt {

nlohmann::json toJson(const WorkerConfig &C) {
  nlohmann::json J = C.Extra.is_object() ? C.Extra : nlohmann::json::object();
  J["mode"] = C.Mode;
  J["problem"] = C.Problem;
  J["library"] = C.Library;
  J["sizes"] = C.Sizes;
  J["case_offset"] = C.CaseOffset;
  J["trials"] = std::max(WorkerConfig::kMinTrials, C.Trials);
  J["back_to_back"] = std::max(WorkerConfig::kMinBackToBack, C.BackToBack);
  J["warmup"] = std::max(0, C.Warmup);
  J["iters"] = std::max(1, C.Iters);
  J["deadline_ms"] = C.DeadlineMs;
  J["setup_deadline_ms"] = C.SetupDeadlineMs;
  J["seed"] = C.Seed;
  J["graph"] = C.Graph;
  J["timing"] = C.Timing;
  J["oversubscribe"] = C.Oversubscribe;
  J["gpus"] = C.Gpus;
  J["l2_multiple"] = C.L2Multiple;
  if (C.Fake)
    J["fake"] = *C.Fake;
  return J;
}

WorkerConfig workerConfigFromJson(const nlohmann::json &J) {
  WorkerConfig C;
  if (!J.is_object())
    return C;
  C.Mode = J.value("mode", C.Mode);
  C.Problem = J.value("problem", C.Problem);
  C.Library = J.value("library", C.Library);
  C.Sizes = J.value("sizes", C.Sizes);
  C.CaseOffset = J.value("case_offset", C.CaseOffset);
  C.Trials = std::max(WorkerConfig::kMinTrials, J.value("trials", C.Trials));
  C.BackToBack = std::max(WorkerConfig::kMinBackToBack,
                          J.value("back_to_back", C.BackToBack));
  C.Warmup = std::max(0, J.value("warmup", C.Warmup));
  C.Iters = std::max(1, J.value("iters", C.Iters));
  C.DeadlineMs = J.value("deadline_ms", C.DeadlineMs);
  C.SetupDeadlineMs = J.value("setup_deadline_ms", C.SetupDeadlineMs);
  C.Seed = J.value("seed", C.Seed);
  C.Graph = J.value("graph", C.Graph);
  C.Timing = J.value("timing", C.Timing);
  C.Oversubscribe = J.value("oversubscribe", C.Oversubscribe);
  C.Gpus = J.value("gpus", C.Gpus);
  C.L2Multiple = J.value("l2_multiple", C.L2Multiple);
  if (J.contains("fake"))
    C.Fake = J["fake"];
  static const char *const Known[] = {"mode",
                                      "problem",
                                      "library",
                                      "sizes",
                                      "case_offset",
                                      "trials",
                                      "back_to_back",
                                      "warmup",
                                      "iters",
                                      "deadline_ms",
                                      "setup_deadline_ms",
                                      "seed",
                                      "graph",
                                      "timing",
                                      "oversubscribe",
                                      "gpus",
                                      "l2_multiple",
                                      "fake",
                                      "rank",
                                      "world_size"};
  for (const auto &[K, V] : J.items())
    if (std::find(std::begin(Known), std::end(Known), K) == std::end(Known))
      C.Extra[K] = V;
  return C;
}

} // namespace pkb::rt
