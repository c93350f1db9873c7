//===- EngineTestUtil.h - Helpers of the engine unit tests ------*- C++ -*-===//
//
// An Analysis over a hand-built kernel (tests/checkers/ModelDsl.h) that owns
// its module and options, for the unit tests of the engine files.
//
//===----------------------------------------------------------------------===//
#ifndef PKB_TESTS_CHECKERS_ENGINETESTUTIL_H
#define PKB_TESTS_CHECKERS_ENGINETESTUTIL_H

#include "Engine.h"
#include "ModelDsl.h"

#include <gtest/gtest.h>

#include <memory>

namespace pkb::cktest {

/// Owns the module and options an Analysis refers to.
struct Fixture {
  ModuleModel M;
  CheckOptions O;
  std::unique_ptr<chk::Analysis> A;

  explicit Fixture(dsl::KB &K, CheckOptions Opts = {})
      : M(K.module()), O(std::move(Opts)),
        A(std::make_unique<chk::Analysis>(M, M.Kernels[0], O)) {}
  chk::Analysis &operator*() { return *A; }
  chk::Analysis *operator->() { return A.get(); }
};

/// Decides \p F alone (no world-size or launch case split, no budget).
inline z3::check_result check(chk::Analysis &A, const z3::expr &F) {
  z3::solver S(A.Z);
  S.add(F);
  return S.check();
}
/// check() of an encoded formula (its approximation flag is ignored).
inline z3::check_result check(chk::Analysis &A, const chk::Encoded &F) {
  return check(A, F.Term);
}

/// True if \p E has a subterm of kind \p Kd (a product counts only with
/// two or more non-numeral factors).
inline bool hasOp(const z3::expr &E, Z3_decl_kind Kd) {
  if (!E.is_app())
    return false;
  if (E.decl().decl_kind() == Kd) {
    unsigned NonNum = 0;
    for (unsigned I = 0; I < E.num_args(); ++I)
      NonNum += !E.arg(I).is_numeral();
    if (Kd != Z3_OP_MUL || NonNum >= 2)
      return true;
  }
  for (unsigned I = 0; I < E.num_args(); ++I)
    if (hasOp(E.arg(I), Kd))
      return true;
  return false;
}

} // namespace pkb::cktest

#endif // PKB_TESTS_CHECKERS_ENGINETESTUTIL_H
