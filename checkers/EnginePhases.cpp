//===- EnginePhases.cpp - Synchronization phases --------------------------===//
//
// Part of the checker engine (Engine.h); see docs/checkers.md ("Method").
//
//===----------------------------------------------------------------------===//
#include "Engine.h"

#include <algorithm>

namespace pkb::chk {

//===----------------------------------------------------------------------===//
// Analysis: phases.
//===----------------------------------------------------------------------===//

z3::expr Analysis::interval(size_t I, int A, size_t J, int B,
                            const std::function<bool(size_t)> &IsBoundary,
                            const SepFn &Sep) {
  const Event &E1 = ev(I), &E2 = ev(J);
  std::vector<unsigned> Common;
  for (size_t D = 0; D < E1.Loops.size() && D < E2.Loops.size(); ++D) {
    if (E1.Loops[D] != E2.Loops[D])
      break;
    Common.push_back(E1.Loops[D]);
  }
  auto Collect = [&](size_t From, size_t To) { // boundaries in (From, To)
    std::vector<size_t> S;
    for (size_t K2 = From + 1; K2 < To; ++K2)
      if (IsBoundary(K2))
        S.push_back(K2);
    return S;
  };
  z3::expr Result = Z.bool_val(false);
  // Case A: same iteration of every common loop.
  {
    z3::expr Eq = Z.bool_val(true);
    for (unsigned L : Common)
      Eq = Eq && iterVar(L, A) == iterVar(L, B);
    size_t Lo = std::min(I, J), Hi = std::max(I, J);
    int Early = I <= J ? A : B, Late = I <= J ? B : A;
    std::vector<size_t> Between =
        I == J ? std::vector<size_t>{} : Collect(Lo, Hi);
    z3::expr S =
        Between.empty() ? Z.bool_val(false) : Sep(Between, Early, Late);
    Result = Result || (Eq && !S);
  }
  // Case B: first difference at common loop depth D.
  for (size_t D = 0; D < Common.size(); ++D) {
    unsigned L = Common[D];
    z3::expr Prefix = Z.bool_val(true);
    for (size_t P = 0; P < D; ++P)
      Prefix = Prefix && iterVar(Common[P], A) == iterVar(Common[P], B);
    size_t First = LoopFirst.count(L) ? LoopFirst[L] : 0;
    size_t Last = LoopLast.count(L) ? LoopLast[L] : 0;
    bool HasBoundary = false;
    for (size_t K2 = First; K2 <= Last && K2 < size(); ++K2)
      if (IsBoundary(K2))
        HasBoundary = true;
    if (!HasBoundary) {
      Result = Result || (Prefix && iterVar(L, A) != iterVar(L, B));
      continue;
    }
    // X runs the earlier iteration, Y the next one.
    for (int Order = 0; Order < 2; ++Order) {
      size_t EX = Order == 0 ? I : J, EY = Order == 0 ? J : I;
      int AX = Order == 0 ? A : B, AY = Order == 0 ? B : A;
      std::vector<size_t> Set = Collect(EX, Last + 1);
      std::vector<size_t> Before = Collect(First == 0 ? 0 : First - 1, EY);
      if (First == 0 && IsBoundary(0) && EY > 0)
        Before.insert(Before.begin(), 0);
      Set.insert(Set.end(), Before.begin(), Before.end());
      z3::expr S = Set.empty() ? Z.bool_val(false) : Sep(Set, AX, AY);
      Result = Result || (Prefix && iterVar(L, AY) == iterVar(L, AX) + 1 && !S);
    }
  }
  return Result;
}

z3::expr Analysis::crossSep(const std::vector<size_t> &Between, int Early,
                            int Late) {
  z3::expr HasSignal = Z.bool_val(false), HasWait = Z.bool_val(false);
  bool Grid = false;
  // Participation of the agents' blocks and threads is not required here:
  // rank-divergent barriers are BAR-002, partial ones BAR-003.
  for (size_t S : Between) {
    if (isSoftGridBarrier(S) || isGridBarrier(S))
      Grid = true;
    else if (isSignal(S) && isCrossRankFlag(ev(S).Addr.Base))
      HasSignal = Z.bool_val(true);
    else if (isWait(S))
      HasWait = Z.bool_val(true);
  }
  (void)Early;
  (void)Late;
  z3::expr R = HasSignal && HasWait;
  if (perBlockSync() && !Grid)
    R = R && sameBlock(Early, Late);
  return R;
}

z3::expr Analysis::sameCrossPhase(size_t I, int A, size_t J, int B) {
  return interval(
      I, A, J, B,
      [this](size_t X) { return isSignal(X) || isWait(X) || isGridBarrier(X); },
      [this](const std::vector<size_t> &S, int E, int L) {
        return crossSep(S, E, L);
      });
}

z3::expr Analysis::samePhase(size_t I, int A, size_t J, int B) {
  auto Any = [this](const std::vector<size_t> &, int, int) {
    return Z.bool_val(true);
  };
  z3::expr Block =
      interval(I, A, J, B, [this](size_t X) { return isBlockBarrier(X); }, Any);
  z3::expr Grid = interval(
      I, A, J, B,
      [this](size_t X) { return isGridBarrier(X) || isSoftGridBarrier(X); },
      Any);
  return z3::ite(sameRank(A, B), z3::ite(sameBlock(A, B), Block, Grid),
                 sameCrossPhase(I, A, J, B));
}

bool Analysis::perBlockSync() {
  if (PerBlock)
    return *PerBlock;
  bool AnyMatch = false, Cross = false;
  for (size_t S : Signals)
    for (size_t W : Waits) {
      if (ev(S).Addr.Base != ev(W).Addr.Base)
        continue;
      Encoded F = exec(S, 1) && exec(W, 2) && conflict(S, 1, W, 2);
      Outcome Any =
          solve(F, {}, {O.WorldSizes.empty() ? 2u : O.WorldSizes.front()});
      if (Any.sat()) {
        AnyMatch = true;
        Outcome Diff =
            solve(F && !sameBlock(1, 2), {},
                  {O.WorldSizes.empty() ? 2u : O.WorldSizes.front()});
        if (!Diff.unknown() && Diff.sat())
          Cross = true;
      }
    }
  PerBlock = AnyMatch && !Cross;
  return *PerBlock;
}

} // namespace pkb::chk
