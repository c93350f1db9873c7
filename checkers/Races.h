//===- Races.h - Helpers shared by the race checkers ------------*- C++ -*-===//
//
// Internal to pkb_checkers.
//
//===----------------------------------------------------------------------===//
#ifndef PKB_CHECKERS_RACES_H
#define PKB_CHECKERS_RACES_H

#include "Engine.h"

namespace pkb::chk {

/// Of two racing events I (agent 1) and J (agent 2), the one that comes
/// later in the witness execution: the one in the later iteration of the
/// first common loop whose iteration differs, else the textually later one.
size_t laterEvent(Analysis &A, size_t I, size_t J,
                  const std::map<std::string, std::string> &Witness);

/// Adds the iteration counters of common loops of I and J to \p W.
void addIterWitness(Analysis &A, size_t I, size_t J, WitnessSpec &W);

} // namespace pkb::chk

#endif // PKB_CHECKERS_RACES_H
