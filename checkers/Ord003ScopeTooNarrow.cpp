//===- Ord003ScopeTooNarrow.cpp - ORD-003 ---------------------------------===//
//
// CTA/GPU-scope fences or atomics used to communicate with another GPU
// (PTX ISA, "Scope": a morally strong pair needs each scope to include the
// other thread; GPU scope does not include threads of another GPU).
//
//===----------------------------------------------------------------------===//
#include "Checks.h"
#include "Engine.h"

namespace pkb::chk {
namespace {

const char *scopeName(Scope S) {
  switch (S) {
  case Scope::CTA:
    return "CTA";
  case Scope::Cluster:
    return "cluster";
  case Scope::GPU:
    return "GPU (device)";
  default:
    return "system";
  }
}

class Ord003 : public KernelChecker {
public:
  PKB_CHECK_INFO("ORD-003", "scope-too-narrow",
                 "A CTA- or GPU-scope fence or atomic is used to synchronize "
                 "with another GPU.",
                 "ord-003", ExplainsOutputMismatch)
  PKB_CHECK_NEEDS(HasSignal | HasWait)

  void report(Analysis &A, size_t I, const std::string &What,
              std::vector<Finding> &Out) const {
    const Event &E = A.ev(I);
    Finding F = makeFinding(
        info().Id, A.K, E.Loc,
        What + " has " + scopeName(effectiveScope(E)) +
            " scope, which does not include the peer GPU it synchronizes "
            "with",
        "use system scope: __threadfence_system(), atomicAdd_system, "
        "st.release.sys / ld.acquire.sys, cuda::thread_scope_system");
    relate(F, What.rfind("fence", 0) == 0 ? "fence" : "sync", E);
    emit(Out, std::move(F));
  }

  void checkKernel(Analysis &A, std::vector<Finding> &Out,
                   std::vector<Diagnostic> &) const override {
    // (a) signals and (b) waits at a narrow scope on cross-rank flags.
    for (size_t S : A.Signals)
      if (A.isCrossRankFlag(A.ev(S).Addr.Base) &&
          isNarrowScope(effectiveScope(A.ev(S))))
        report(A, S, "signal " + describe(A.ev(S)), Out);
    for (size_t W : A.Waits)
      if (A.isCrossRankFlag(A.ev(W).Addr.Base) &&
          isNarrowScope(effectiveScope(A.ev(W))))
        report(A, W, "wait " + describe(A.ev(W)), Out);
    // (c) narrow fences standing in for the release before a signal.
    for (size_t S : A.Signals) {
      const Event &Sig = A.ev(S);
      if (!A.isCrossRankFlag(Sig.Addr.Base) ||
          isNarrowScope(effectiveScope(Sig)) || (isReleaseOrder(Sig.Order)))
        continue;
      size_t W = S;
      while (W-- > 0)
        if (A.isPeerVisible(W) && isWriteEvent(A.ev(W)))
          break;
      if (W >= S)
        continue;
      std::optional<size_t> Narrow;
      bool Sys = false;
      for (size_t F = W + 1; F < S; ++F)
        if (A.ev(F).Kind == EventKind::Fence) {
          if (isNarrowScope(A.ev(F).Scp))
            Narrow = F;
          else
            Sys = true;
        }
      if (Narrow && !Sys)
        report(A, *Narrow, "fence " + describe(A.ev(*Narrow)), Out);
    }
    // (c') narrow fences standing in for the acquire after a wait.
    for (size_t Wt : A.Waits) {
      const Event &Wait = A.ev(Wt);
      if (!A.isCrossRankFlag(Wait.Addr.Base) ||
          isNarrowScope(effectiveScope(Wait)) || isAcquireOrder(Wait.Order))
        continue;
      std::optional<size_t> Narrow;
      bool Sys = false;
      for (size_t R = Wt + 1; R < A.size(); ++R) {
        if (A.ev(R).Kind == EventKind::Fence) {
          if (isNarrowScope(A.ev(R).Scp))
            Narrow = Narrow ? Narrow : R;
          else
            Sys = true;
        }
        if (A.isPeerVisible(R) && isReadEvent(A.ev(R)))
          break;
      }
      if (Narrow && !Sys)
        report(A, *Narrow, "fence " + describe(A.ev(*Narrow)), Out);
    }
  }
};

} // namespace

std::unique_ptr<Checker> makeOrd003() { return std::make_unique<Ord003>(); }

} // namespace pkb::chk
