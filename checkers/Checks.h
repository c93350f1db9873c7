//===- Checks.h - Factories of all checkers ---------------------*- C++ -*-===//
//
// Internal to pkb_checkers: one factory per checker file; Registry.cpp lists
// them in ID order.
//
//===----------------------------------------------------------------------===//
#ifndef PKB_CHECKERS_CHECKS_H
#define PKB_CHECKERS_CHECKS_H

#include "pkb/Checker.h"

#include <memory>

namespace pkb::chk {

std::unique_ptr<Checker> makeBar001();
std::unique_ptr<Checker> makeBar002();
std::unique_ptr<Checker> makeBar003();
std::unique_ptr<Checker> makeBar004();
std::unique_ptr<Checker> makeBar005();
std::unique_ptr<Checker> makeHost001();
std::unique_ptr<Checker> makeOrd001();
std::unique_ptr<Checker> makeOrd002();
std::unique_ptr<Checker> makeOrd003();
std::unique_ptr<Checker> makeOrd004();
std::unique_ptr<Checker> makeOrd005();
std::unique_ptr<Checker> makePart001();
std::unique_ptr<Checker> makePart002();
std::unique_ptr<Checker> makePart003();
std::unique_ptr<Checker> makePart004();
std::unique_ptr<Checker> makeRace001();
std::unique_ptr<Checker> makeRace002();
std::unique_ptr<Checker> makeRace003();
std::unique_ptr<Checker> makeSig001();
std::unique_ptr<Checker> makeSig002();
std::unique_ptr<Checker> makeTopo001();

/// Defines info() for a checker class from four string literals and the
/// ExplainedFailure bits of the GPU failures its findings can explain.
#define PKB_CHECK_INFO(ID, NAME, SUMMARY, ANCHOR, EXPLAINS)                    \
  const CheckInfo &info() const override {                                     \
    static const CheckInfo I{ID, NAME, SUMMARY, "docs/checkers.md#" ANCHOR,    \
                             EXPLAINS};                                        \
    return I;                                                                  \
  }

/// Declares a checker's preconditions (Checker::needs()): the ModelFeature
/// bits of which a module must have one for the checker to fire; written
/// right after PKB_CHECK_INFO.
#define PKB_CHECK_NEEDS(FEATURES)                                              \
  unsigned needs() const override { return FEATURES; }

} // namespace pkb::chk

#endif // PKB_CHECKERS_CHECKS_H
