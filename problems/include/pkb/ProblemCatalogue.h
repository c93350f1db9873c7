//===- pkb/ProblemCatalogue.h - ParallelKernelBench problems ---*- C++ -*-===//
//
// The one id/name table of the ParallelKernelBench problems (ids 1..87, the
// names of its reference files `<id>_<name>.py`), with the name pkbcheck
// uses for the problems it has ported and whether a C++ spec exists in
// problems/ (a runtime test pins that flag to the registered specs). No
// CUDA: eval, the runtime, the CLI and scripts (`pkbcheck problems --json`)
// all read this table.
//
//===----------------------------------------------------------------------===//
#ifndef PKB_PROBLEMCATALOGUE_H
#define PKB_PROBLEMCATALOGUE_H

#include <span>
#include <string_view>

namespace pkb {

/// One ParallelKernelBench problem.
struct CatalogueEntry {
  int Id = 0;
  std::string_view PkbName; ///< ParallelKernelBench's name (reference file)
  /// pkbcheck's name for a problem it has ported (spec or planned spec,
  /// docs/problems.md); empty otherwise. Usually PkbName, sometimes shorter.
  std::string_view PortedName;
  bool HasSpec = false; ///< a C++ spec in problems/ (runnable by `run`)

  /// The name pkbcheck prints: PortedName, else PkbName.
  std::string_view name() const {
    return PortedName.empty() ? PkbName : PortedName;
  }
};

/// Every problem, by increasing id (1..87).
std::span<const CatalogueEntry> problemCatalogue();

/// The problem with this id; nullptr if none.
const CatalogueEntry *findCatalogueEntry(int Id);

/// The problem named by an id ("73"), its PortedName or its PkbName;
/// nullptr if none.
const CatalogueEntry *findCatalogueEntry(std::string_view NameOrId);

} // namespace pkb

#endif // PKB_PROBLEMCATALOGUE_H
