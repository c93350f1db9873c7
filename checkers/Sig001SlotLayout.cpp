//===- Sig001SlotLayout.cpp - SIG-001 -------------------------------------===//
//
// Signal-slot collision (distinct senders store into one slot),
// misalignment (slot address not a multiple of the access width; PTX ISA,
// "Addresses as Operands": accesses must be naturally aligned) or a slot
// outside the signal pad.
//
//===----------------------------------------------------------------------===//
#include "Checks.h"
#include "Engine.h"
#include "pkb/InputLanguage.h"

namespace pkb::chk {
namespace {

/// Bytes of one rank's signal pad in the runtime the input's language runs
/// under (InputLanguage::SignalPadBytes: torch symm_mem pads are 2048 bytes
/// for Python inputs, the pkbcheck ABI's are 64 KiB).
uint64_t padBytes(const ModuleModel &M) {
  const InputLanguage *L = inputLanguageOf(M.File);
  return L ? L->SignalPadBytes : 65536;
}

class Sig001 : public KernelChecker {
public:
  PKB_CHECK_INFO("SIG-001", "signal-slot-layout",
                 "Distinct senders share one signal slot, or a slot is "
                 "misaligned or outside the signal pad.",
                 "sig-001",
                 ExplainsDeadlock | ExplainsOutputMismatch |
                     ExplainsRuntimeError)
  PKB_CHECK_NEEDS(HasSignal | HasWait)

  bool storeLike(const Event &E) const {
    return E.Kind == EventKind::Store ||
           (E.Kind == EventKind::Atomic &&
            (E.Rmw == RmwOp::Exch || E.Rmw == RmwOp::Cas));
  }

  /// True when the bytes of flag access \p S lie inside a pad of \p Pad
  /// bytes for every configured W and launch of the analysis, by interval
  /// arithmetic over its offset (Analysis::byteRange(): thread and block
  /// indices, rank, launch dimensions): check (c)'s query is then
  /// unsatisfiable for each of them without solving it.
  static bool insidePad(Analysis &A, size_t S, uint64_t Pad) {
    for (unsigned W : A.O.WorldSizes)
      for (const LaunchDims &L : A.launches()) {
        auto R = A.byteRange(S, W, L);
        if (!R || R->first < 0 || R->second > int64_t(Pad))
          return false;
      }
    return true;
  }

  void checkKernel(Analysis &A, std::vector<Finding> &Out,
                   std::vector<Diagnostic> &Diags) const override {
    // Collisions.
    for (size_t S : A.Signals) {
      const Event &E = A.ev(S);
      if (!storeLike(E))
        continue;
      Encoded Q = A.exec(S, 1) && A.exec(S, 2) &&
                  (!A.sameRank(1, 2) || !A.sameBlock(1, 2)) &&
                  A.conflict(S, 1, S, 2);
      for (unsigned L : E.Loops)
        Q = Q && A.iterVar(L, 1) == A.iterVar(L, 2);
      WitnessSpec Wit = A.agentWitness({1, 2});
      Wit.push_back({"slot", A.range(S, 1).Lo});
      Wit.push_back({"owner", A.range(S, 1).Owner});
      Outcome R = A.solve(Q, Wit);
      if (R.unknown()) {
        emitUnknown(info().Id, A.K, E, "signal-slot collisions", R, Out, Diags);
        continue;
      }
      if (R.sat()) {
        Finding F = makeFinding(
            info().Id, A.K, E.Loc,
            "senders (rank " + R.Witness["r1"] + ", block " + R.Witness["b1"] +
                ") and (rank " + R.Witness["r2"] + ", block " +
                R.Witness["b2"] + ") store into the same slot (byte " +
                R.Witness["slot"] + " of rank " + R.Witness["owner"] +
                "'s pad); one arrival can release the waiter for both",
            "give every sender its own slot, e.g. block * MAX_RANKS + rank");
        relate(F, "signal", E);
        applyOutcome(F, R);
        emit(Out, std::move(F));
        return;
      }
    }
    // Misalignment (signals first, then waits).
    std::vector<size_t> Sync = A.Signals;
    Sync.insert(Sync.end(), A.Waits.begin(), A.Waits.end());
    for (size_t S : Sync) {
      const Event &E = A.ev(S);
      // Aligned by construction: the query below is unsatisfiable. An
      // access whose address the model does not know (no element index:
      // `atomic_ref` on an unresolved reference, an asm operand it cannot
      // follow) says nothing about its alignment: any offset the solver
      // picked would be an artifact, not a finding.
      if (E.Width <= 1 || !E.Addr.Index || alignedToWidth(E))
        continue;
      Analysis::Range Rg = A.range(S, 1);
      Encoded Q = A.exec(S, 1) && mod(Rg.Lo, A.Z.int_val(E.Width)) != 0;
      WitnessSpec Wit = A.agentWitness({1});
      Wit.push_back({"byte", Rg.Lo});
      Outcome R = A.solve(Q, Wit);
      if (R.unknown()) {
        emitUnknown(info().Id, A.K, E, "signal-slot alignment", R, Out, Diags);
        continue;
      }
      if (R.sat()) {
        Finding F = makeFinding(
            info().Id, A.K, E.Loc,
            describe(E) + " accesses byte offset " + R.Witness["byte"] +
                ", not a multiple of its " + std::to_string(E.Width) +
                "-byte width (W = " + R.Witness["W"] + ")",
            "round the flag offset up to a multiple of the flag size");
        relate(F, isWriteEvent(E) ? "signal" : "wait", E);
        applyOutcome(F, R);
        emit(Out, std::move(F));
        return;
      }
    }
    // Out of the pad: only for bases that hold nothing but flags.
    uint64_t Pad = padBytes(A.M);
    for (size_t S : Sync) {
      const Event &E = A.ev(S);
      bool OnlyFlags = true;
      for (size_t I = 0; I < A.size(); ++I)
        if (A.isData(I) && A.ev(I).Addr.Base == E.Addr.Base)
          OnlyFlags = false;
      // As for alignment: an unknown address is no evidence of a slot
      // outside the pad.
      if (!OnlyFlags || !E.Addr.Index || insidePad(A, S, Pad))
        continue;
      Analysis::Range Rg = A.range(S, 1);
      Encoded Q =
          A.exec(S, 1) && (Rg.Lo < 0 || Rg.Hi > A.Z.int_val(int64_t(Pad)));
      WitnessSpec Wit = A.agentWitness({1});
      Wit.push_back({"byte", Rg.Lo});
      Outcome R = A.solve(Q, Wit);
      if (R.unknown()) {
        emitUnknown(info().Id, A.K, E, "signal-pad bounds", R, Out, Diags);
        continue;
      }
      if (R.sat()) {
        Finding F = makeFinding(
            info().Id, A.K, E.Loc,
            describe(E) + " reaches byte " + R.Witness["byte"] +
                ", outside the " + std::to_string(Pad) +
                "-byte signal pad (W = " + R.Witness["W"] + ")",
            "fold the slot index so that every slot stays inside the pad "
            "(fewer blocks, or index modulo the pad size)");
        relate(F, isWriteEvent(E) ? "signal" : "wait", E);
        applyOutcome(F, R);
        emit(Out, std::move(F));
        return;
      }
    }
  }
};

} // namespace

std::unique_ptr<Checker> makeSig001() { return std::make_unique<Sig001>(); }

} // namespace pkb::chk
