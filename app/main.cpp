//===- main.cpp - The pkbcheck command line -------------------------------===//
//
// pkbcheck check   static analysis of CUDA and ParallelKernelBench files
// pkbcheck dump    the kernel model of one file as JSON
// pkbcheck checks  the checker catalogue
// pkbcheck run / bench / problems   (runtime, when built with CUDA + NCCL)
//
// Exit status: 0 no error-level finding; 1 error-level findings; 2 usage or
// input error (a file could not be read, parsed or analyzed).
//
//===----------------------------------------------------------------------===//

#include "Commands.h"

#include <CLI/CLI.hpp>

#ifdef PKB_HAVE_RUNTIME
#include "pkb/RuntimeCommands.h"
#endif

#include <iostream>

int main(int argc, char **argv) {
  CLI::App App{"pkbcheck: finds synchronization bugs in multi-GPU CUDA "
               "kernels, then runs the survivors on NVLink GPUs",
               "pkbcheck"};
  App.require_subcommand(0, 1);
  bool ShowVersion = false;
  App.add_flag("--version", ShowVersion,
               "Print the pkbcheck, LLVM/Clang and Z3 versions");
  int ExitCode = 0;
  pkb::addAnalyzerCommands(App, ExitCode);
#ifdef PKB_HAVE_RUNTIME
  pkb::addRuntimeCommands(App, ExitCode);
#endif
  try {
    App.parse(argc, argv);
  } catch (const CLI::CallForHelp &E) {
    return App.exit(E);
  } catch (const CLI::CallForAllHelp &E) {
    return App.exit(E);
  } catch (const CLI::ParseError &E) {
    // CLI11 uses exit code 0 for help; every real usage error is 2.
    App.exit(E);
    return E.get_exit_code() == 0 ? 0 : 2;
  }
  if (ShowVersion) {
    std::cout << pkb::versionText();
    return 0;
  }
  if (App.get_subcommands().empty()) {
    std::cerr << App.help();
    return 2;
  }
  return ExitCode;
}
