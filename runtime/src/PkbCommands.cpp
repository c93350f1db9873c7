//===- PkbCommands.cpp - `run --solution` options -------------------------===//
#include "pkb/rt/PkbCommands.h"

namespace pkb::rt {

std::shared_ptr<PkbRunOptions> addPkbRunOptions(CLI::App &Run) {
  auto P = std::make_shared<PkbRunOptions>();
  Run.add_option("--solution", P->Solutions,
                 "ParallelKernelBench .py solution(s); problem id from the "
                 "file name or --problem (docs/pkb.md)")
      ->check(CLI::ExistingFile);
  Run.add_option("--pkb-root", P->PkbRoot,
                 "ParallelKernelBench checkout (default: $PKB_ROOT)");
  Run.add_option("--python", P->Python,
                 "Python interpreter of the workers (default: python3)");
  Run.add_option("--shape", P->Shapes, "PKB base shapes MxN (1024x1024)")
      ->delimiter(',');
  Run.add_option("--dtype", P->Dtype, "PKB dtype (bfloat16)")
      ->check(CLI::IsMember({"float32", "float16", "bfloat16", "float64"}));
  Run.add_option("--pkb-warmup", P->PkbWarmup,
                 "Warm-ups of PKB's timing method (500)");
  Run.add_option("--pkb-iters", P->PkbIters,
                 "Iterations of PKB's timing method (100)");
  Run.add_option("--atol", P->Atol, "PKB comparison atol (1e-2)");
  Run.add_option("--rtol", P->Rtol, "PKB comparison rtol (1e-2)");
  Run.add_option("--shard", P->Shard,
                 "Run every N-th --solution only: I/N (as eval --shard)");
  Run.add_option("--pkb-selftest", P->Selftest,
                 "Internal: protocol self-test of the worker (no torch)")
      ->group("");
  return P;
}

void takeSharedRunOptions(PkbRunOptions &P, const RunOptions &R) {
  P.Problem = R.ProblemName;
  P.WorldSize = R.Gpus > 0 ? R.Gpus : 1;
  P.Trials = R.Trials;
  P.BackToBack = R.BackToBack;
  P.Warmup = R.Warmup;
  P.Iters = R.Iters;
  if (R.DeadlineSec > 0)
    P.DeadlineSec = R.DeadlineSec;
  if (R.SetupDeadlineSec != RunOptions{}.SetupDeadlineSec)
    P.SetupDeadlineSec = R.SetupDeadlineSec;
  P.Timing = R.Timing;
  P.Force = R.Force;
  P.KeepScratch = R.KeepScratch;
  P.Results = R.Results;
  P.CacheDir = R.CacheDir;
}

} // namespace pkb::rt
