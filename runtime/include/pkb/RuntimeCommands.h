//===- pkb/RuntimeCommands.h - CLI of the runtime harness -------*- C++ -*-===//
//
// Adds the runtime's subcommands to the pkbcheck command line:
//   run       run candidates on GPUs: correctness, speedup, roofline
//   bench     `bench peers` (peer/HBM bandwidth probe), `bench nccl`
//   problems  list the problem specs
//   worker    (hidden) one rank, started by `run`/`bench nccl`
// Each callback stores the process exit code in ExitCode: 0 success (all
// verdicts pass), 1 some verdict failed, 2 usage or harness error.
//
//===----------------------------------------------------------------------===//
#ifndef PKB_RUNTIMECOMMANDS_H
#define PKB_RUNTIMECOMMANDS_H

#include <CLI/CLI.hpp>

namespace pkb {

/// Registers run, bench (nccl, peers), problems and the hidden worker.
void addRuntimeCommands(CLI::App &App, int &ExitCode);

} // namespace pkb

#endif // PKB_RUNTIMECOMMANDS_H
