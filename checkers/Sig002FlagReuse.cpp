//===- Sig002FlagReuse.cpp - SIG-002 --------------------------------------===//
//
// Flag reuse across rounds or calls: a wait for a fixed value on a flag that
// is never reset and carries no epoch passes at once from the second round
// on; a reset that is not followed by further synchronization races the
// peer's next signal.
//
//===----------------------------------------------------------------------===//
#include "Checks.h"
#include "Engine.h"

namespace pkb::chk {
namespace {

/// True if nothing ever writes the `__device__` scalar \p Name (a
/// device-kept epoch, "global:NAME" in expressions): the per-call host
/// sequence is visible (a C++ `pkb_candidate_run` that launches this
/// kernel) and none of its operations targets the variable
/// (`cudaMemcpyToSymbol`, `cudaGetSymbolAddress`), no other kernel of the
/// module writes it, and no write of this kernel executes for any world
/// size and launch (e.g. its guard needs a flag that every launch binds to
/// 0). A solver unknown counts as a write.
bool neverWritten(Analysis &A, const std::string &Name) {
  bool Launched = false;
  for (const HostOp &Op : A.M.HostOps) {
    if (Op.Target == "symbol:" + Name)
      return false;
    Launched =
        Launched || (Op.Kind == HostOp::KernelCall && Op.Kernels.size() == 1 &&
                     Op.Kernels.front() == A.K.Name);
  }
  if (!Launched)
    return false;
  for (const KernelModel &K : A.M.Kernels) {
    if (K.Name == A.K.Name)
      continue;
    for (const Event &E : K.Events)
      if (isWriteEvent(E) && E.Addr.Base == Name)
        return false;
  }
  for (size_t I = 0; I < A.size(); ++I) {
    if (!isWriteEvent(A.ev(I)) || A.ev(I).Addr.Base != Name)
      continue;
    Outcome O = A.solve(A.exec(I, 1), {});
    if (O.sat() || O.unknown() || O.Approx)
      return false;
  }
  return true;
}

/// True if \p E has the same value in every call: no variable other than
/// coordinates, parameters only where every visible launch binds them
/// to a constant (a constant epoch passed by the host, docs/checkers.md,
/// "Launch-site specialization"), and values read from `__device__`
/// scalars only where nothing writes them (neverWritten()).
bool fixedValue(Analysis &A, const ExprRef &E) {
  if (!E)
    return false;
  return !anyVar(
      E,
      [&](const std::string &N) {
        return !(N.rfind("tid.", 0) == 0 || N.rfind("bid.", 0) == 0 ||
                 N.rfind("bdim.", 0) == 0 || N.rfind("gdim.", 0) == 0 ||
                 N == "lane" || N == "rank" || N == "world_size" ||
                 N == "polled" ||
                 (N.rfind("param:", 0) == 0 && A.boundInEveryLaunch(N)) ||
                 (N.rfind("global:", 0) == 0 && neverWritten(A, N.substr(7))));
      },
      /*OpaqueCounts=*/true);
}

class Sig002 : public KernelChecker {
public:
  PKB_CHECK_INFO("SIG-002", "flag-reuse",
                 "A flag is waited on for a fixed value with no reset or "
                 "epoch, or its reset races the peer's next signal.",
                 "sig-002",
                 ExplainsDeadlock | ExplainsCrossCallRace |
                     ExplainsOutputMismatch)
  PKB_CHECK_NEEDS(HasWait)

  void checkKernel(Analysis &A, std::vector<Finding> &Out,
                   std::vector<Diagnostic> &Diags) const override {
    for (size_t Wt : A.Waits) {
      const Event &W = A.ev(Wt);
      if (!A.isCrossRankFlag(W.Addr.Base))
        continue;
      if (W.Rmw == RmwOp::Cas || W.Rmw == RmwOp::Exch)
        continue; // consuming wait: the flag is reset atomically
      ExprRef V = W.Value ? W.Value : W.ExitCond;
      if (!fixedValue(A, V))
        continue;
      // A reset: a later write to the same slot by the same agent.
      std::optional<size_t> Reset;
      for (size_t R = Wt + 1; R < A.size() && !Reset; ++R) {
        if (!isWriteEvent(A.ev(R)) || A.ev(R).Addr.Base != W.Addr.Base)
          continue;
        Encoded Q = A.exec(Wt, 1) && A.exec(R, 1) && A.conflict(Wt, 1, R, 1);
        Outcome O = A.solve(Q, {});
        if (O.sat() || O.unknown())
          Reset = R;
      }
      bool SyncAfter = false;
      if (Reset) {
        bool Sig = false;
        for (size_t I = *Reset + 1; I < A.size(); ++I) {
          Sig = Sig || A.isSignal(I);
          if (Sig && A.isWait(I))
            SyncAfter = true;
        }
        if (SyncAfter)
          continue;
      }
      Outcome R = A.solve(A.exec(Wt, 1), A.agentWitness({1}));
      if (R.unknown()) {
        emitUnknown(info().Id, A.K, W, "flag reuse", R, Out, Diags);
        continue;
      }
      if (!R.sat())
        continue;
      std::string Msg =
          Reset ? "the wait " + describe(W) +
                      " consumes its flag with a reset at line " +
                      std::to_string(A.ev(*Reset).Loc.Line) +
                      " that no later synchronization orders before the "
                      "peer's next signal; the reset can erase it"
                : "the wait " + describe(W) + " expects the fixed value " +
                      (V ? V->str() : std::string("?")) +
                      " on a flag that is never reset and carries no "
                      "epoch; from the second round on it passes at once";
      Finding F = makeFinding(
          info().Id, A.K, W.Loc, Msg,
          "signal and wait for a per-call epoch (monotonic counter) instead "
          "of a constant, and never reset flags");
      relate(F, "wait", W);
      if (Reset)
        relate(F, "reset", A.ev(*Reset));
      applyOutcome(F, R);
      emit(Out, std::move(F));
    }
  }
};

} // namespace

std::unique_ptr<Checker> makeSig002() { return std::make_unique<Sig002>(); }

} // namespace pkb::chk
