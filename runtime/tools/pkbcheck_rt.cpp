//===- pkbcheck_rt.cpp - Stand-alone driver of the runtime harness --------===//
//
// `pkbcheck-rt` exposes only the runtime's subcommands (run, bench,
// problems, worker). It exists so that the runtime can be built and tested
// without the analyzer (e.g. -DPKB_ENABLE_ANALYZER=OFF on the GPU machine);
// the full `pkbcheck` binary registers the same commands.
//
//===----------------------------------------------------------------------===//
#include "pkb/RuntimeCommands.h"

int main(int Argc, char **Argv) {
  CLI::App App{"pkbcheck runtime harness"};
  App.require_subcommand(1);
  int ExitCode = 0;
  pkb::addRuntimeCommands(App, ExitCode);
  CLI11_PARSE(App, Argc, Argv);
  return ExitCode;
}
