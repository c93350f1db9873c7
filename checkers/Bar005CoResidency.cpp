//===- Bar005CoResidency.cpp - BAR-005 ------------------------------------===//
//
// A grid-wide barrier that needs all blocks co-resident: cg grid.sync()
// without a cooperative launch (CUDA C++ Programming Guide, "Grid
// Synchronization": the kernel must be launched with
// cudaLaunchCooperativeKernel), or a software spin barrier across the
// blocks of one GPU with a grid that is not bounded by what fits.
//
//===----------------------------------------------------------------------===//
#include "Checks.h"
#include "Engine.h"

namespace pkb::chk {
namespace {

/// Largest grid assumed co-resident without a cooperative launch: one block
/// per SM of an H100/H200 (132 SMs).
constexpr int64_t kResidentBlocks = 132;

class Bar005 : public KernelChecker {
public:
  PKB_CHECK_INFO("BAR-005", "grid-barrier-co-residency",
                 "A grid-wide (spin) barrier needs all blocks co-resident "
                 "but the launch is neither cooperative nor bounded.",
                 "bar-005", ExplainsDeadlock)
  PKB_CHECK_NEEDS(HasBarrier | HasWait)

  /// 1: every launch is cooperative or has a constant grid that fits;
  /// 0: some launch is not; -1: no launch site known.
  int launchesSafe(Analysis &A, bool NeedCooperative) const {
    if (A.K.Launches.empty())
      return -1;
    for (const LaunchSite &L : A.K.Launches) {
      if (L.Cooperative)
        continue;
      if (NeedCooperative)
        return 0;
      int64_t G = 1;
      for (const ExprRef &E : {L.GridX, L.GridY, L.GridZ}) {
        if (!E)
          continue;
        // Only a constant grid counts: the flag does not matter.
        z3::expr X = A.toInt(E, 0).Term.simplify();
        int64_t V = 0;
        if (!X.is_numeral_i64(V))
          return 0;
        G *= V;
      }
      if (G > kResidentBlocks)
        return 0;
    }
    return 1;
  }

  void checkKernel(Analysis &A, std::vector<Finding> &Out,
                   std::vector<Diagnostic> &) const override {
    for (size_t B = 0; B < A.size(); ++B) {
      if (!A.isGridBarrier(B))
        continue;
      int Safe = launchesSafe(A, /*NeedCooperative=*/true);
      if (Safe != 0)
        continue;
      Finding F = makeFinding(
          info().Id, A.K, A.ev(B).Loc,
          "grid.sync() in a kernel launched without "
          "cudaLaunchCooperativeKernel: the blocks are not guaranteed "
          "co-resident and the grid barrier is undefined",
          "launch with cudaLaunchCooperativeKernel and a grid that fits "
          "(cudaOccupancyMaxActiveBlocksPerMultiprocessor)");
      relate(F, "barrier", A.ev(B));
      emit(Out, std::move(F));
    }
    for (size_t Wt : A.Waits) {
      const Event &W = A.ev(Wt);
      if (A.isCrossRankFlag(W.Addr.Base))
        continue;
      bool CrossBlock = false;
      for (size_t S : A.Signals) {
        if (A.ev(S).Addr.Base != W.Addr.Base)
          continue;
        Encoded Q = A.exec(S, 1) && A.exec(Wt, 2) && A.sameRank(1, 2) &&
                    !A.sameBlock(1, 2) && A.conflict(S, 1, Wt, 2);
        Outcome R = A.solve(Q, {});
        if (R.sat() || R.unknown())
          CrossBlock = true;
      }
      if (!CrossBlock)
        continue;
      int Safe = launchesSafe(A, /*NeedCooperative=*/false);
      if (Safe == 1)
        continue;
      Finding F = makeFinding(
          info().Id, A.K, W.Loc,
          "spin-wait " + describe(W) +
              " waits for other blocks of the same GPU, but " +
              (Safe == 0 ? std::string("the launch is neither cooperative "
                                       "nor bounded to a grid that fits")
                         : std::string("no launch site shows a cooperative "
                                       "or bounded launch")) +
              "; blocks that never become resident deadlock the spinners",
          "launch with cudaLaunchCooperativeKernel (and use grid.sync()) or "
          "bound the grid to the number of co-resident blocks");
      if (Safe == -1)
        F.Sev = Severity::Warning;
      relate(F, "wait", W);
      emit(Out, std::move(F));
    }
  }
};

} // namespace

std::unique_ptr<Checker> makeBar005() { return std::make_unique<Bar005>(); }

} // namespace pkb::chk
