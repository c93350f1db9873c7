//===- pkb/rt/PkbCommands.h - `run --solution` options ----------*- C++ -*-===//
//
// The options `pkbcheck run` takes for ParallelKernelBench .py solutions
// (--solution, --pkb-root, --python, --shape, --dtype, ...) and the hook that
// runs them; shared options (--trials, --deadline, --results, ...) are copied
// from the .cu path's RunOptions.
//
//===----------------------------------------------------------------------===//
#ifndef PKB_RT_PKBCOMMANDS_H
#define PKB_RT_PKBCOMMANDS_H

#include "pkb/rt/PkbRun.h"
#include "pkb/rt/Session.h"

#include <CLI/CLI.hpp>

#include <memory>

namespace pkb::rt {

/// Adds the PKB options to the `run` subcommand; the returned options are
/// filled when it parses.
std::shared_ptr<PkbRunOptions> addPkbRunOptions(CLI::App &Run);

/// Copies the options shared with .cu runs (problem, gpus as world size,
/// trials, back-to-back, warm-up, iterations, deadlines, timing, results,
/// force, cache, scratch) from R into P.
void takeSharedRunOptions(PkbRunOptions &P, const RunOptions &R);

} // namespace pkb::rt

#endif // PKB_RT_PKBCOMMANDS_H
