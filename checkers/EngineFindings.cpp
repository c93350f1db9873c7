//===- EngineFindings.cpp - Finding builder -------------------------------===//
//
// Part of the checker engine (Engine.h); see docs/checkers.md ("Method").
//
//===----------------------------------------------------------------------===//
#include "Engine.h"
#include "pkb/DiagCode.h"

namespace pkb::chk {

std::string describe(const Event &E) {
  std::string S = toString(E.Kind);
  if (isMemEvent(E)) {
    S += " " + E.Addr.Base;
    if (E.Addr.Peer)
      S += "[" + E.Addr.Peer->str() + "]";
    S += "[" + (E.Addr.Index ? E.Addr.Index->str() : std::string("?")) + "]";
    // A pointer cast to a wider element (`(uint4 *)(p + off)`) keeps the
    // offset in bytes beside the index in the new element.
    if (E.Addr.ByteOffset)
      S += " + " + E.Addr.ByteOffset->str() + " bytes";
  }
  if (!E.Text.empty())
    S += " (" + E.Text + ")";
  return S;
}
//===----------------------------------------------------------------------===//
// Findings.
//===----------------------------------------------------------------------===//

Finding makeFinding(const std::string &Id, const KernelModel &K,
                    const SourceLoc &Loc, const std::string &Msg,
                    const std::string &Fix) {
  Finding F;
  F.CheckId = Id;
  F.Sev = Severity::Error;
  F.Kernel = K.Name;
  F.Loc = Loc;
  F.Message = Msg;
  F.FixHint = Fix;
  return F;
}

void relate(Finding &F, const std::string &Role, const Event &E) {
  F.Related.push_back({Role, E.Loc, describe(E)});
}

void applyOutcome(Finding &F, const Outcome &R) {
  for (const auto &[K, V] : R.Witness)
    F.Witness[K] = V;
  if (R.Approx || R.unknown())
    F.Sev = Severity::Warning;
  if (!R.sat())
    return;
  if (R.Site) {
    // Launch-site specialization: the launch whose binding this is.
    std::string Args;
    for (const LaunchSite::Arg &A : R.Site->Args) {
      // A call-counter binding shows the host value it stands for.
      bool Host = A.Host && (!A.Value || A.Value->Op != ExprOp::Const) &&
                  anyVar(A.Host, isCallName);
      if (A.Value || Host)
        Args += (Args.empty() ? "" : ", ") + A.Param + " = " +
                (Host ? A.Host : A.Value)->str();
    }
    F.Related.push_back(
        {"launch", R.Site->Loc, R.Site->Kernel + "<<<...>>>(" + Args + ")"});
  }
  if (!R.Unbound.empty()) {
    // Unbound parameters: the bug needs values no visible launch passes.
    F.Sev = Severity::Warning;
    F.Message += "; holds if " + R.Unbound + ", which no visible launch binds";
    F.Witness["unbound"] = R.Unbound;
  }
}

bool reported(const std::vector<Finding> &Out, const std::string &Id,
              const std::string &Kernel, const SourceLoc &Loc) {
  for (const Finding &G : Out)
    if (G.CheckId == Id && G.Kernel == Kernel && G.Loc.Line == Loc.Line &&
        G.Loc.File == Loc.File)
      return true;
  return false;
}

void emit(std::vector<Finding> &Out, Finding F) {
  if (!reported(Out, F.CheckId, F.Kernel, F.Loc))
    Out.push_back(std::move(F));
}

void emitUnknown(const std::string &Id, const KernelModel &K, const Event &E,
                 const std::string &What, const Outcome &R,
                 std::vector<Finding> &Out, std::vector<Diagnostic> &Diags) {
  Diagnostic D;
  D.Code = std::string(toString(DiagCode::SolverUnknown));
  D.Sev = Severity::Note;
  D.Loc = E.Loc;
  D.Message = Id + ": could not decide " + What + " in kernel '" + K.Name +
              "' within the solver limit" +
              (R.Reason.empty() ? "" : " (" + R.Reason + ")");
  Diags.push_back(D);
  Finding F = makeFinding(Id, K, E.Loc,
                          "could not be discharged: " + What +
                              " (solver returned unknown)",
                          "simplify the index arithmetic or raise "
                          "--solver-timeout");
  F.Sev = Severity::Warning;
  relate(F, "event", E);
  emit(Out, std::move(F));
}

} // namespace pkb::chk
