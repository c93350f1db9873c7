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

class Bar004 : public Checker {
public:
  PKB_CHECK_INFO("BAR-004", "missing-exit-barrier",
                 "A buffer that peers read is overwritten by the next call "
                 "with nothing ordering the peers' reads first.",
                 "bar-004", ExplainsCrossCallRace | ExplainsOutputMismatch)

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
        Analysis A(M, K, Opts);
        try {
          checkDevice(A, Out, Diags);
        } catch (const z3::exception &) {
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
        A.Approx = false;
        // The write belongs to the next call: call-counter parameters
        // (the Epoch role of enrich()) are one larger there (double
        // buffering by `epoch & 1` is then seen).
        z3::expr_vector From(A.Z), To(A.Z);
        for (const Param &P : A.K.Params)
          if (P.Role == ParamRole::Epoch) {
            z3::expr V = A.var("param:" + P.Name, 1);
            From.push_back(V);
            To.push_back(V + 1);
          }
        auto Next = [&](const z3::expr &E) {
          return From.empty() ? E : z3::expr(E).substitute(From, To);
        };
        Analysis::Range RW = A.range(W, 1), RR = A.range(R, 2);
        z3::expr Conflict =
            A.ev(W).Addr.Base.empty() || A.isShared(W) != A.isShared(R)
                ? A.Z.bool_val(false)
                : Next(RW.Owner) == RR.Owner && Next(RW.Lo) < RR.Hi &&
                      RR.Lo < Next(RW.Hi) && Next(RW.Lo) >= 0 && RR.Lo >= 0;
        z3::expr Q =
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

  void checkHost(const ModuleModel &M, const CheckOptions &Opts,
                 std::vector<Finding> &Out) const {
    const auto &Ops = M.HostOps;
    for (size_t K = 0; K < Ops.size(); ++K) {
      if (Ops[K].Kind != HostOp::KernelCall)
        continue;
      bool ReadsPeers = false;
      for (const KernelModel *Km : calledKernels(M, Ops[K]))
        ReadsPeers = ReadsPeers || readsPeersAfterLastSync(M, *Km, Opts);
      if (!ReadsPeers || barrierBetween(M, K, Ops.size()))
        continue;
      for (size_t W = 0; W < K; ++W) {
        if (!isSymmWrite(M, Ops[W]))
          continue;
        bool Before = false;
        for (size_t B = 0; B < W; ++B)
          if ((Ops[B].Kind == HostOp::Barrier ||
               Ops[B].Kind == HostOp::Collective) &&
              unconditional(Ops[B]))
            Before = true;
        if (Before)
          continue;
        Finding F;
        F.CheckId = info().Id;
        F.Sev = Severity::Error;
        F.Kernel = Ops[K].Callee;
        F.Loc = Ops[W].Loc;
        F.Message = "'" + Ops[W].Callee +
                    "' overwrites the symmetric buffer '" + Ops[W].Target +
                    "' at the start of call k+1 while peers " +
                    "may still read it in call k's '" + Ops[K].Callee +
                    "' (line " + std::to_string(Ops[K].Loc.Line) +
                    "): no barrier after the kernel and no exit barrier in it";
        F.FixHint = "call hdl.barrier(channel=0) after the kernel (or before "
                    "the copy), or add an exit barrier to the kernel";
        F.Related.push_back({"write", Ops[W].Loc, Ops[W].Callee});
        F.Related.push_back({"read", Ops[K].Loc, Ops[K].Callee});
        emit(Out, std::move(F));
      }
    }
  }
};

} // namespace

std::unique_ptr<Checker> makeBar004() { return std::make_unique<Bar004>(); }

} // namespace pkb::chk
