//===- Ord004PlainSpin.cpp - ORD-004 --------------------------------------===//
//
// A spin-wait polling a plain (weak) load: the compiler may keep the value
// in a register and never re-load it (CUDA C++ Programming Guide, "Volatile
// Qualifier"; PTX ISA, "Memory Consistency Model": weak operations).
//
//===----------------------------------------------------------------------===//
#include "Checks.h"
#include "Engine.h"

namespace pkb::chk {
namespace {

class Ord004 : public KernelChecker {
public:
  PKB_CHECK_INFO("ORD-004", "spin-on-plain-load",
                 "A spin-wait polls a plain load that the compiler may hoist "
                 "out of the loop.",
                 "ord-004", ExplainsDeadlock | ExplainsOutputMismatch)
  PKB_CHECK_NEEDS(HasWait)

  void checkKernel(Analysis &A, std::vector<Finding> &Out,
                   std::vector<Diagnostic> &) const override {
    for (size_t W : A.Waits) {
      const Event &E = A.ev(W);
      if (E.Order != MemOrder::Plain || isRmwEvent(E) || E.Rmw != RmwOp::None)
        continue;
      Finding F = makeFinding(
          info().Id, A.K, E.Loc,
          "spin-wait on " + describe(E) +
              " polls a plain load; the compiler may hoist it and the loop "
              "never observes the peer's signal",
          "poll with ld.acquire.sys (cuda::atomic_ref load with "
          "memory_order_acquire) or through a volatile pointer followed by "
          "__threadfence_system()");
      relate(F, "wait", E);
      emit(Out, std::move(F));
    }
  }
};

} // namespace

std::unique_ptr<Checker> makeOrd004() { return std::make_unique<Ord004>(); }

} // namespace pkb::chk
