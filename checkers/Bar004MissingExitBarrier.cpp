//===- Bar004MissingExitBarrier.cpp - BAR-004 -----------------------------===//
//
// Missing exit barrier: a buffer that peers read is overwritten by this
// rank's next call with nothing ordering those reads first (cross-call
// write-after-read). Kernels on different ranks run on unrelated streams, so
// only a cross-rank barrier (in the kernel or in the host code) orders call
// k on one rank before call k+1 on another.
//
//===----------------------------------------------------------------------===//
#include "Checks.h"
#include "Host.h"

namespace pkb::chk {
namespace {

/// True if \p X is the parity of a call-counter parameter (role Epoch):
/// `e & 1` or `e % 2` with e mentioning such a parameter.
bool isEpochParity(const ExprRef &X, const KernelModel &K) {
  if (!X || X->Ops.size() != 2)
    return false;
  auto Epochy = [&](const ExprRef &E) {
    for (const Param &P : K.Params)
      if (P.Role == ParamRole::Epoch && E && E->mentions("param:" + P.Name))
        return true;
    return false;
  };
  auto IsConst = [](const ExprRef &E, int64_t V) {
    return E && E->Op == ExprOp::Const && E->Value == V;
  };
  if (X->Op == ExprOp::And)
    return (IsConst(X->Ops[1], 1) && Epochy(X->Ops[0])) ||
           (IsConst(X->Ops[0], 1) && Epochy(X->Ops[1]));
  return X->Op == ExprOp::Rem && IsConst(X->Ops[1], 2) && Epochy(X->Ops[0]);
}

/// The double-buffering term `parity(epoch) * Size` among the summands of
/// an index or byte offset \p E (null if none); \p Size receives the half
/// size (in the same unit as \p E) and \p Parity the parity factor.
ExprRef parityTerm(const ExprRef &E, const KernelModel &K, ExprRef &Size,
                   ExprRef &Parity) {
  if (!E)
    return nullptr;
  if (E->Op == ExprOp::Mul && E->Ops.size() == 2)
    for (int I = 0; I < 2; ++I)
      if (isEpochParity(E->Ops[I], K)) {
        Size = E->Ops[1 - I];
        Parity = E->Ops[I];
        return E;
      }
  if (E->Op == ExprOp::Add)
    for (const ExprRef &O : E->Ops)
      if (ExprRef T = parityTerm(O, K, Size, Parity))
        return T;
  return nullptr;
}

/// The variable ("param:Epoch") of the call-counter parameter whose parity
/// \p X is, when \p X is the parity of that parameter itself (`e & 1`,
/// `1 & e`, `e % 2` with e the parameter); empty otherwise (`(e + r) & 1`,
/// `(2 * e) & 1`: the next call need not flip them).
std::string plainEpochParity(const ExprRef &X, const KernelModel &K) {
  if (!isEpochParity(X, K))
    return {};
  for (const ExprRef &O : X->Ops)
    if (O && O->Op == ExprOp::Var && startsWith(O->Name, "param:"))
      if (const Param *P = K.findParam(O->Name.substr(6));
          P && P->Role == ParamRole::Epoch)
        return O->Name;
  return {};
}

class Bar004 : public Checker {
public:
  PKB_CHECK_INFO("BAR-004", "missing-exit-barrier",
                 "A buffer that peers read is overwritten by the next call "
                 "with nothing ordering the peers' reads first.",
                 "bar-004", ExplainsCrossCallRace | ExplainsOutputMismatch)
  PKB_CHECK_NEEDS(HasPeerWrite | HasHostOps)

  void check(const ModuleModel &M, const CheckOptions &Opts,
             std::vector<Finding> &Out,
             std::vector<Diagnostic> &Diags) const override {
    bool HostBarrier = false;
    for (const HostOp &H : M.HostOps)
      if ((H.Kind == HostOp::Barrier || H.Kind == HostOp::Collective) &&
          unconditional(H))
        HostBarrier = true;
    if (!HostBarrier)
      for (const KernelModel &K : M.Kernels) {
        std::optional<Analysis> Local;
        Analysis &A = checkContext(M, K, Opts, Local);
        try {
          checkDevice(A, Out, Diags);
        } catch (const z3::exception &E) {
          // Like every engine checker: a note, never a silent pass.
          Diags.push_back(solverErrorNote(info().Id, K, E));
        }
      }
    checkHost(M, Opts, Out);
  }

  void checkDevice(Analysis &A, std::vector<Finding> &Out,
                   std::vector<Diagnostic> &Diags) const {
    std::vector<size_t> Syncs;
    for (size_t I = 0; I < A.size(); ++I)
      if (A.isSignal(I) || A.isWait(I) || A.isGridBarrier(I))
        Syncs.push_back(I);
    for (size_t W = 0; W < A.size(); ++W) {
      if (!A.isPeerVisible(W) || !isWriteEvent(A.ev(W)) || isRmwEvent(A.ev(W)))
        continue;
      for (size_t R = 0; R < A.size(); ++R) {
        if (!A.isPeerVisible(R) || !isReadEvent(A.ev(R)) ||
            A.ev(R).Addr.Base != A.ev(W).Addr.Base)
          continue;
        std::vector<size_t> Between;
        for (size_t S : Syncs)
          if (S > R || S < W)
            Between.push_back(S);
        // The write belongs to the next call: call-counter parameters
        // (the Epoch role of enrich()) are one larger there, parameters
        // that the host sets from its call counter take their next value
        // (double buffering by `epoch & 1`, or by a parity the host
        // passes, is then seen).
        auto Next = [&](const Encoded &E) { return A.nextCall(E); };
        Analysis::Range RW = A.range(W, 1), RR = A.range(R, 2);
        Encoded Conflict =
            A.ev(W).Addr.Base.empty() || A.isShared(W) != A.isShared(R)
                ? A.Z.bool_val(false)
                : Next(RW.Owner) == RR.Owner && Next(RW.Lo) < RR.Hi &&
                      RR.Lo < Next(RW.Hi) && Next(RW.Lo) >= 0 && RR.Lo >= 0;
        // Double buffering by call parity (`(epoch & 1) * half` in both
        // byte offsets): each access stays inside its half (one past it is
        // an out-of-bounds bug of its own), so call k+1 writes the other
        // half than call k reads.
        auto Half = [&](size_t I, int Ag, Encoded &Term, Encoded &Size,
                        ExprRef &Par) {
          ExprRef Sz;
          if (ExprRef T = parityTerm(A.ev(I).Addr.Index, A.K, Sz, Par)) {
            z3::expr U = A.Z.int_val(A.unitOf(I));
            Term = A.toInt(T, Ag) * U;
            Size = A.toInt(Sz, Ag) * U;
            return true;
          }
          if (ExprRef T = parityTerm(A.ev(I).Addr.ByteOffset, A.K, Sz, Par)) {
            Term = A.toInt(T, Ag);
            Size = A.toInt(Sz, Ag);
            return true;
          }
          return false;
        };
        Encoded TW = z3::expr(A.Z), SW = z3::expr(A.Z), TR = z3::expr(A.Z),
                SR = z3::expr(A.Z);
        ExprRef PW, PR;
        if (Half(W, 1, TW, SW, PW) && Half(R, 2, TR, SR, PR)) {
          // Decided without the solver (docs/checkers.md, BAR-004): both
          // parities are that of one call counter e, the same half size S
          // on both sides. Call k+1 writes inside half ((e + 1) & 1) * S,
          // call k reads inside half (e & 1) * S: other halves, no overlap,
          // which is what the query below proves in every case.
          std::string EW = plainEpochParity(PW, A.K);
          if (!EW.empty() && EW == plainEpochParity(PR, A.K) &&
              z3::eq(Next(SW).Term.simplify(), SR.Term.simplify()))
            continue;
          Encoded RestW = Next(RW.Lo - TW), RestR = RR.Lo - TR;
          Conflict = Conflict && RestW >= 0 &&
                     RestW + Next(RW.Hi - RW.Lo) <= Next(SW) && RestR >= 0 &&
                     RestR + (RR.Hi - RR.Lo) <= SR;
        } else {
          // The write's halves were translated but not used: they still
          // make the answer approximate when they were (as the parity
          // reasoning was attempted on approximate terms).
          Conflict = Conflict.orApprox(TW.Approx || SW.Approx);
        }
        Encoded Q =
            Next(A.exec(W, 1)) && A.exec(R, 2) && !A.sameRank(1, 2) && Conflict;
        if (!Between.empty())
          Q = Q && !A.crossSep(Between, 2, 1);
        WitnessSpec Wit = A.agentWitness({1, 2});
        Wit.push_back({"idx", A.range(W, 1).Lo});
        Outcome Res = A.solve(Q, Wit);
        if (Res.unknown()) {
          emitUnknown(info().Id, A.K, A.ev(W), "cross-call ordering", Res, Out,
                      Diags);
          break;
        }
        if (!Res.sat())
          continue;
        Finding F = makeFinding(
            info().Id, A.K, A.ev(W).Loc,
            "in call k+1 rank " + Res.Witness["r1"] + " overwrites byte " +
                Res.Witness["idx"] + " of " + A.ev(W).Addr.Base +
                " that rank " + Res.Witness["r2"] +
                " may still be reading in "
                "call k (line " +
                std::to_string(A.ev(R).Loc.Line) +
                "); no barrier orders the reads before the next call",
            "add an exit barrier (release/acquire signal and wait) after the "
            "last read of peer buffers, or use per-call double buffering");
        relate(F, "write", A.ev(W));
        relate(F, "read", A.ev(R));
        applyOutcome(F, Res);
        emit(Out, std::move(F));
        break;
      }
    }
  }

  static bool perCall(const std::string &Key) {
    return Key.find("@call:") != std::string::npos;
  }

  /// True if a write of buffer \p W in call k+1 may hit what a peer read
  /// through buffer \p R in call k ("?" = unknown buffer). A buffer chosen
  /// by the call counter (double buffering by parity) differs between two
  /// consecutive calls.
  static bool mayAlias(const std::string &W, const std::string &R) {
    if (W == "?" || R == "?")
      return !perCall(W) && !perCall(R);
    if (W == R)
      return !perCall(W);
    return perCall(W) != perCall(R) && W.rfind("symm[", 0) == 0 &&
           R.rfind("symm[", 0) == 0;
  }

  /// Buffers written by \p Op before any cross-rank wait of its own.
  std::vector<std::string> writtenBuffers(const ModuleModel &M,
                                          const HostOp &Op,
                                          const CheckOptions &Opts) const {
    std::vector<std::string> B;
    if (Op.Kind == HostOp::SymmWrite) {
      if (isSymmWrite(M, Op))
        B.push_back(Op.Target.rfind("symm[", 0) == 0 ||
                            Op.Target == "signal_pad"
                        ? Op.Target
                        : "?");
      return B;
    }
    // Kernels that store to their own buffer: C++ host code only, where
    // the arguments name the buffers.
    if (Op.Kind != HostOp::KernelCall || Op.ArgBuffers.empty())
      return B;
    for (const KernelModel *K : calledKernels(M, Op))
      for (size_t P : unguardedOwnWriteParams(M, *K, Opts))
        if (argBuffer(Op, *K, P) != "?")
          B.push_back(argBuffer(Op, *K, P));
    return B;
  }

  /// Cross-call reuse across the host operation sequence (a Python
  /// solution() or a C++ pkb_candidate_run), over two consecutive calls k
  /// and k+1 of the same sequence: a read of peer memory by launch R in
  /// call k (or by a host-side hdl.get_buffer(peer, ...) read) that no
  /// signal of the reading rank follows, or that no wait of
  /// the writing rank between R and the write W of call k+1 follows.
  void checkHost(const ModuleModel &M, const CheckOptions &Opts,
                 std::vector<Finding> &Out) const {
    const auto &Ops = M.HostOps;
    const size_t N = Ops.size();
    std::vector<OpSync> Sync;
    for (const HostOp &H : Ops)
      Sync.push_back(runsWhenGuarded(H) ? syncOf(M, H) : OpSync{});
    std::vector<bool> Reported(N, false);
    for (size_t R = 0; R < N; ++R) {
      std::vector<std::string> ReadBufs;
      if (Ops[R].Kind == HostOp::SymmRead) // hdl.get_buffer(peer, ...)
        ReadBufs.push_back("?");
      else if (Ops[R].Kind == HostOp::KernelCall)
        for (const KernelModel *Km : calledKernels(M, Ops[R]))
          for (size_t P : exposedPeerReadParams(M, *Km, Opts))
            ReadBufs.push_back(argBuffer(Ops[R], *Km, P));
      if (ReadBufs.empty())
        continue;
      // The reading rank publishes something after the read: later in
      // call k, or anywhere in call k+1.
      bool ReaderSignals = false;
      for (size_t X = 0; X < N; ++X)
        if (X != R && Sync[X].Signals && !exclusive(Ops[X], Ops[R]))
          ReaderSignals = true;
      for (size_t W = 0; W < N; ++W) {
        if (W == R || Reported[W])
          continue;
        std::string Hit;
        for (const std::string &WB : writtenBuffers(M, Ops[W], Opts))
          for (const std::string &RB : ReadBufs)
            if (Hit.empty() && mayAlias(WB, RB))
              Hit = WB == "?" ? Ops[W].Target : WB;
        if (Hit.empty())
          continue;
        // A wait of the writing rank after the read and before the write:
        // in call k after R (or on the other arm of R's `if`), or in call
        // k+1 before W.
        bool WriterWaits = false;
        for (size_t X = 0; X < N; ++X) {
          if (!Sync[X].Waits || exclusive(Ops[X], Ops[W]))
            continue;
          bool InK = X > R || exclusive(Ops[X], Ops[R]);
          bool InK1 = X < W;
          if (InK || InK1)
            WriterWaits = true;
        }
        if (ReaderSignals && WriterWaits)
          continue;
        Reported[W] = true;
        Finding F = hostFinding(info().Id, Severity::Error, Ops[W], Ops[R]);
        std::string What = Hit == "?" ? std::string("a symmetric buffer")
                           : Hit.rfind("symm[@call:", 0) == 0
                               ? "symmetric buffer '" + Hit + "'"
                               : "'" + Hit + "'";
        if (!Ops[W].Target.empty() && Hit == Ops[W].Target &&
            Hit.rfind("symm[", 0) != 0 && Hit != "signal_pad")
          What = "the symmetric buffer '" + Hit + "'";
        F.Message =
            "'" + Ops[W].Callee + "' (line " + std::to_string(Ops[W].Loc.Line) +
            ") overwrites " + What + " in call k+1 while a peer may still " +
            "read it in call k's '" + Ops[R].Callee + "' (line " +
            std::to_string(Ops[R].Loc.Line) + "): " +
            (ReaderSignals ? "the writing rank waits for no peer between "
                             "that read and the write"
                           : "the reading rank signals nothing after the "
                             "read") +
            " (no exit barrier after the read, no barrier before the write)";
        F.FixHint = "add an exit barrier after the last read of peer buffers "
                    "(a barrier kernel, or hdl.barrier() / dist.barrier() on "
                    "the same stream), a barrier before the write in the next "
                    "call, or alternate buffers by call parity";
        F.Related.push_back({"write", Ops[W].Loc, Ops[W].Callee});
        F.Related.push_back({"read", Ops[R].Loc, Ops[R].Callee});
        emit(Out, std::move(F));
      }
    }
  }
};

} // namespace

std::unique_ptr<Checker> makeBar004() { return std::make_unique<Bar004>(); }

} // namespace pkb::chk
