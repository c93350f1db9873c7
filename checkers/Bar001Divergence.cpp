//===- Bar001Divergence.cpp - BAR-001 -------------------------------------===//
//
// Barrier divergence: a __syncthreads() (or grid sync) that some threads of
// the block (blocks of the grid) reach and others skip, through a branch, a
// loop trip count or an early return (CUDA C++ Programming Guide,
// "Synchronization Functions": __syncthreads() in conditional code only if
// the condition evaluates identically across the block; "Grid
// Synchronization").
//
//===----------------------------------------------------------------------===//
#include "Checks.h"
#include "Engine.h"

#include <optional>
#include <sstream>

namespace pkb::chk {
namespace {

/// The trimmed operand texts of an inline-PTX named barrier event
/// ("barrier.cta.sync 1, %0" -> {"1", "%0"}); empty when the event is not a
/// named barrier or has no operand.
std::vector<std::string> namedBarrierOperands(const Event &E) {
  if (E.Kind != EventKind::Barrier || E.Barrier != BarrierKind::Named)
    return {};
  // "<opcode> <op>, <op>...[;]": split off the opcode, then the operands.
  std::string T = E.Text.substr(0, E.Text.find(';'));
  size_t Sp = T.find(' ');
  if (Sp == std::string::npos)
    return {};
  std::istringstream Ops(T.substr(Sp + 1));
  std::vector<std::string> R;
  for (std::string Op; std::getline(Ops, Op, ',');) {
    size_t B = Op.find_first_not_of(" \t"), L = Op.find_last_not_of(" \t");
    R.push_back(B == std::string::npos ? std::string()
                                       : Op.substr(B, L - B + 1));
  }
  return R;
}

/// The (barrier id, thread count) of an inline-PTX named barrier event:
/// each operand's value where the front end resolved it
/// (Event::BarrierId / BarrierThreads: `namedBarrier(1, 256)` through a
/// helper), else its text ("barrier.cta.sync 1, %0" -> {"1", "%0"});
/// nullopt when the event is not a named barrier with both operands.
std::optional<std::pair<std::string, std::string>>
namedBarrierKey(const Event &E) {
  std::vector<std::string> Ops = namedBarrierOperands(E);
  if (Ops.size() != 2)
    return std::nullopt;
  return std::make_pair(E.BarrierId ? E.BarrierId->str() : Ops[0],
                        E.BarrierThreads ? E.BarrierThreads->str() : Ops[1]);
}

/// True for a barrier that waits on all threads of the CTA (or cluster):
/// `__syncthreads()`, `bar.sync a` without a thread count, a cluster
/// barrier. PTX ISA, `exit`: as threads exit, such a barrier is released if
/// the exiting threads are the only ones that have not reached it; so a
/// thread that returned from the kernel before it does not hold it up.
/// Barriers with a thread count and grid barriers (a software counter of
/// arrived blocks, CUDA Guide "Grid Synchronization") are not resolved by
/// exits.
bool exitResolves(const Event &E) {
  return E.Barrier == BarrierKind::Block || E.Barrier == BarrierKind::Cluster ||
         (E.Barrier == BarrierKind::Named &&
          namedBarrierOperands(E).size() == 1);
}

class Bar001 : public KernelChecker {
public:
  PKB_CHECK_INFO("BAR-001", "barrier-divergence",
                 "A block or grid barrier is reached by some threads and "
                 "skipped by others (branch, loop trip count, early return).",
                 "bar-001", ExplainsDeadlock | ExplainsUnwrittenOutput)
  PKB_CHECK_NEEDS(HasBarrier)

  void checkKernel(Analysis &A, std::vector<Finding> &Out,
                   std::vector<Diagnostic> &Diags) const override {
    for (size_t B = 0; B < A.size(); ++B) {
      const Event &E = A.ev(B);
      if (!A.isBlockBarrier(B))
        continue;
      // A named barrier whose thread count (known) may be smaller than the
      // block synchronizes that many threads (whole warps), not the CTA:
      // the producer group's `bar.sync 1, 256` of a 512-thread block. Which
      // threads arrive is not counted here (docs/checkers.md, BAR-001).
      if (E.Barrier == BarrierKind::Named && E.BarrierThreads &&
          namedBarrierKey(E)) {
        Encoded N = A.toInt(E.BarrierThreads, 1);
        z3::expr All =
            A.var("bdim.x", 1) * A.var("bdim.y", 1) * A.var("bdim.z", 1);
        Outcome Sub = A.solve(A.exec(B, 1) && Encoded(N.Term != All, N.Approx),
                              A.agentWitness({1}));
        if (Sub.sat() || Sub.unknown() || Sub.Approx)
          continue;
      }
      bool Grid = E.Barrier == BarrierKind::Grid;
      auto Group = [&]() {
        return Grid ? A.sameRank(1, 2) : A.sameRank(1, 2) && A.sameBlock(1, 2);
      };
      Encoded Reach2 = A.guardOf(B, 2);
      Encoded Q = A.exec(B, 1) && A.agentRange(2) && Group();
      for (unsigned L : E.Loops) {
        Q = Q && A.iterVar(L, 2) == A.iterVar(L, 1) && A.loopDef(L, 2);
        Reach2 = Reach2 && A.loopBound(L, 2);
      }
      // Named barrier: reaching a partner (same id and count, same loops;
      // an arrive or a sync) is participating in this barrier instance.
      if (auto Key = namedBarrierKey(E)) {
        for (size_t P = 0; P < A.size(); ++P) {
          if (P == B || A.ev(P).Loops != E.Loops ||
              namedBarrierKey(A.ev(P)) != Key)
            continue;
          Encoded ReachP = A.guardOf(P, 2);
          for (unsigned L : E.Loops)
            ReachP = ReachP && A.loopBound(L, 2);
          Reach2 = Reach2 || ReachP;
        }
      }
      // A thread that returned from the kernel before the barrier (a Return
      // event earlier in program order, outside loops) has exited: it does
      // not take part in an all-thread CTA barrier (PTX ISA, `exit`). A
      // thread that skips the barrier and stays alive is divergent (CUDA
      // Guide: conditional __syncthreads() needs a uniform condition).
      bool Exits = exitResolves(E);
      if (Exits)
        for (size_t X = 0; X < B; ++X)
          if (A.ev(X).Kind == EventKind::Return && A.ev(X).Loops.empty())
            Reach2 = Reach2 || A.guardOf(X, 2);
      Q = Q && !Reach2;
      WitnessSpec Wit = A.agentWitness({1, 2});
      Outcome R = A.solve(Q, Wit);
      std::optional<size_t> Ret;
      if (!R.sat() && !R.unknown() && !Exits) {
        // Early returns before a barrier that exits do not resolve.
        for (size_t X = 0; X < B && !R.sat(); ++X) {
          if (A.ev(X).Kind != EventKind::Return)
            continue;
          Encoded Q2 = A.exec(X, 1) && A.exec(B, 2) && Group();
          R = A.solve(Q2, Wit);
          if (R.sat())
            Ret = X;
        }
      }
      if (R.unknown()) {
        emitUnknown(info().Id, A.K, E, "barrier convergence", R, Out, Diags);
        continue;
      }
      if (!R.sat())
        continue;
      std::string Who =
          Grid ? "block " + R.Witness["b1"] + " and block " + R.Witness["b2"]
               : "threads " + R.Witness["t1"] + " and " + R.Witness["t2"] +
                     " of block " + R.Witness["b1"];
      Finding F = makeFinding(
          info().Id, A.K, E.Loc,
          std::string(Grid ? "grid" : "block") + " barrier " + describe(E) +
              " is divergent: " + Who +
              (Ret ? " disagree, one returns early (line " +
                         std::to_string(A.ev(*Ret).Loc.Line) +
                         ") while the other waits here"
                   : " disagree on reaching it (guard or loop trip count)"),
          "move the barrier out of the thread-dependent branch/loop; let "
          "idle threads fall through to it instead of returning");
      relate(F, "barrier", E);
      if (Ret)
        relate(F, "return", A.ev(*Ret));
      applyOutcome(F, R);
      emit(Out, std::move(F));
    }
  }
};

} // namespace

std::unique_ptr<Checker> makeBar001() { return std::make_unique<Bar001>(); }

} // namespace pkb::chk
