//===- Commands.h - Analyzer subcommands ------------------------*- C++ -*-===//
#ifndef PKB_DRIVER_COMMANDS_H
#define PKB_DRIVER_COMMANDS_H

#include "Output.h"
#include "pkb/support/Expected.h"

#include <CLI/CLI.hpp>

#include <string>
#include <vector>

namespace pkb {

/// Adds `check`, `dump`, `checks`, `eval` and `report` to \p App. Their
/// callbacks store the process exit status in \p ExitCode (see
/// exitStatus() in Output.h and docs/cli.md).
void addAnalyzerCommands(CLI::App &App, int &ExitCode);

/// Multi-line version text: pkbcheck, LLVM/Clang and Z3 (or "not built").
std::string versionText();

/// Parses a --world-size value: "4", "2,4,8" or "2-8" (ranks count, each
/// in 1..1024) into the world sizes in the order given. Returns an Error
/// naming the bad item on malformed input.
support::Expected<std::vector<unsigned>>
parseWorldSizes(const std::string &Spec);

} // namespace pkb

#endif // PKB_DRIVER_COMMANDS_H
