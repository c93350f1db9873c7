//===- EngineLaunches.cpp - Launch configurations -------------------------===//
//
// Part of the checker engine (Engine.h); see docs/checkers.md ("Method").
//
//===----------------------------------------------------------------------===//
#include "Engine.h"

#include <algorithm>
#include <limits>
#include <map>

namespace pkb::chk {

//===----------------------------------------------------------------------===//
// Pruning by the top-level bounds.
//===----------------------------------------------------------------------===//

namespace {
/// Closed interval of an integer constant; the extremes stand for no bound.
struct Interval {
  int64_t Lo = std::numeric_limits<int64_t>::min();
  int64_t Hi = std::numeric_limits<int64_t>::max();
};

/// True for an uninterpreted integer constant (a variable of the query).
bool isIntVar(const z3::expr &E) {
  return E.is_const() && E.is_int() && !E.is_numeral() &&
         E.decl().decl_kind() == Z3_OP_UNINTERPRETED;
}

/// Adds the conjuncts of \p F, with nested conjunctions flattened, to
/// \p Out.
void conjuncts(const z3::expr &F, std::vector<z3::expr> &Out) {
  if (F.is_app() && F.decl().decl_kind() == Z3_OP_AND) {
    for (unsigned I = 0; I < F.num_args(); ++I)
      conjuncts(F.arg(I), Out);
    return;
  }
  Out.push_back(F);
}

/// The binary comparison (`<=`, `>=`, `<`, `>`, `==`) that \p C is, or whose
/// negation it is (\p Neg set then); nullopt for other terms.
std::optional<z3::expr> comparison(const z3::expr &C, bool &Neg) {
  Neg = false;
  z3::expr X = C;
  if (X.is_app() && X.decl().decl_kind() == Z3_OP_NOT) {
    Neg = true;
    X = X.arg(0);
  }
  if (!X.is_app() || X.num_args() != 2)
    return std::nullopt;
  Z3_decl_kind Kd = X.decl().decl_kind();
  if (Kd != Z3_OP_LE && Kd != Z3_OP_GE && Kd != Z3_OP_LT && Kd != Z3_OP_GT &&
      Kd != Z3_OP_EQ)
    return std::nullopt;
  return X;
}

/// A comparison of a variable with a constant, read as `V Kd K` (the
/// constant on the right, a negation folded into the operator).
struct Cmp {
  unsigned V = 0; ///< AST id of the variable.
  Z3_decl_kind Kd = Z3_OP_EQ;
  int64_t K = 0;
};

/// \p C as a comparison of a variable with a constant (`x < 8`, `0 <= x`,
/// `not (x >= 8)`, `x == 3`); nullopt for anything else, and for constants
/// near the int64 limits (no overflow in the users).
std::optional<Cmp> parseCmp(const z3::expr &C) {
  bool Neg = false;
  std::optional<z3::expr> Xo = comparison(C, Neg);
  if (!Xo)
    return std::nullopt;
  const z3::expr &X = *Xo;
  Z3_decl_kind Kd = X.decl().decl_kind();
  z3::expr V = X.arg(0), N = X.arg(1);
  int64_t K = 0;
  if (!isIntVar(V) || !N.is_numeral_i64(K)) {
    std::swap(V, N);
    if (!isIntVar(V) || !N.is_numeral_i64(K))
      return std::nullopt;
    // The constant on the left: `k <= x` is `x >= k`.
    Kd = Kd == Z3_OP_LE   ? Z3_OP_GE
         : Kd == Z3_OP_GE ? Z3_OP_LE
         : Kd == Z3_OP_LT ? Z3_OP_GT
         : Kd == Z3_OP_GT ? Z3_OP_LT
                          : Kd;
  }
  if (Neg) {
    if (Kd == Z3_OP_EQ)
      return std::nullopt;
    Kd = Kd == Z3_OP_LE   ? Z3_OP_GT
         : Kd == Z3_OP_GE ? Z3_OP_LT
         : Kd == Z3_OP_LT ? Z3_OP_GE
                          : Z3_OP_LE;
  }
  if (K <= std::numeric_limits<int64_t>::min() + 1 ||
      K >= std::numeric_limits<int64_t>::max() - 1)
    return std::nullopt;
  return Cmp{V.id(), Kd, K};
}

/// Narrows \p Bounds by conjunct \p C when it compares a variable with a
/// constant (parseCmp()); other conjuncts are ignored.
void narrow(const z3::expr &C, std::map<unsigned, Interval> &Bounds) {
  std::optional<Cmp> P = parseCmp(C);
  if (!P)
    return;
  Interval &B = Bounds[P->V];
  if (P->Kd == Z3_OP_LE || P->Kd == Z3_OP_EQ)
    B.Hi = std::min(B.Hi, P->K);
  if (P->Kd == Z3_OP_LT)
    B.Hi = std::min(B.Hi, P->K - 1);
  if (P->Kd == Z3_OP_GE || P->Kd == Z3_OP_EQ)
    B.Lo = std::max(B.Lo, P->K);
  if (P->Kd == Z3_OP_GT)
    B.Lo = std::max(B.Lo, P->K + 1);
}

/// The value of comparison \p P for every value of its variable in \p B;
/// nullopt when it depends on the value.
std::optional<bool> decideCmp(const Cmp &P, const Interval &B) {
  const int64_t K = P.K;
  switch (P.Kd) {
  case Z3_OP_LE:
    return B.Hi <= K  ? std::optional(true)
           : B.Lo > K ? std::optional(false)
                      : std::nullopt;
  case Z3_OP_LT:
    return B.Hi < K    ? std::optional(true)
           : B.Lo >= K ? std::optional(false)
                       : std::nullopt;
  case Z3_OP_GE:
    return B.Lo >= K  ? std::optional(true)
           : B.Hi < K ? std::optional(false)
                      : std::nullopt;
  case Z3_OP_GT:
    return B.Lo > K    ? std::optional(true)
           : B.Hi <= K ? std::optional(false)
                       : std::nullopt;
  default: // Z3_OP_EQ
    return K < B.Lo || K > B.Hi     ? std::optional(false)
           : B.Lo == K && B.Hi == K ? std::optional(true)
                                    : std::nullopt;
  }
}

/// \p E rewritten bottom-up: a subterm for which \p Fn gives a
/// replacement is replaced (and not entered), the others rebuilt from their
/// rewritten arguments; \p Memo by AST id (shared subterms once).
template <typename RewriteFn>
z3::expr rewriteTerms(const z3::expr &E, RewriteFn &&Fn,
                      std::map<unsigned, z3::expr> &Memo) {
  if (auto It = Memo.find(E.id()); It != Memo.end())
    return It->second;
  z3::expr R = E;
  if (E.is_app() && E.num_args() > 0) {
    if (std::optional<z3::expr> X = Fn(E)) {
      R = *X;
    } else {
      z3::expr_vector Args(E.ctx());
      bool Changed = false;
      for (unsigned I = 0; I < E.num_args(); ++I) {
        z3::expr A = rewriteTerms(E.arg(I), Fn, Memo);
        Changed |= !z3::eq(A, E.arg(I));
        Args.push_back(A);
      }
      if (Changed)
        R = E.decl()(Args);
    }
  }
  Memo.emplace(E.id(), R);
  return R;
}

/// \p E with comparisons of a bounded variable and a constant replaced by
/// their values where the bounds decide them: with \p All every comparison
/// (`x >= 0` with x in [0, 8) is true), otherwise only the equalities whose
/// constant lies outside the bounds (false).
z3::expr pruneRec(const z3::expr &E, const std::map<unsigned, Interval> &Bounds,
                  bool All, std::map<unsigned, z3::expr> &Memo) {
  auto Decide = [&](const z3::expr &X) -> std::optional<z3::expr> {
    Z3_decl_kind Kd = X.decl().decl_kind();
    if (Kd == Z3_OP_NOT || (!All && Kd != Z3_OP_EQ))
      return std::nullopt;
    std::optional<Cmp> P = parseCmp(X);
    if (!P)
      return std::nullopt;
    auto B = Bounds.find(P->V);
    if (B == Bounds.end())
      return std::nullopt;
    std::optional<bool> V = decideCmp(*P, B->second);
    if (!V || (!All && *V))
      return std::nullopt;
    return X.ctx().bool_val(*V);
  };
  return rewriteTerms(E, Decide, Memo);
}

/// The interval of the linear term \p E (numerals, variables, products of
/// a numeral and a variable, sums of these) over \p Bounds, each end
/// unbounded (the int64 limit) where unknown or beyond 2^40 in size;
/// nullopt for other terms.
std::optional<Interval>
linearInterval(const z3::expr &E, const std::map<unsigned, Interval> &Bounds) {
  constexpr int64_t Lim = int64_t(1) << 40;
  constexpr int64_t NegInf = std::numeric_limits<int64_t>::min(),
                    PosInf = std::numeric_limits<int64_t>::max();
  // Ends beyond the limit count as unbounded (no overflow below).
  auto Clip = [&](Interval I) {
    if (I.Lo <= -Lim || I.Lo >= Lim)
      I.Lo = I.Lo >= Lim ? Lim : NegInf;
    if (I.Hi <= -Lim || I.Hi >= Lim)
      I.Hi = I.Hi <= -Lim ? -Lim : PosInf;
    return I;
  };
  int64_t K = 0;
  if (E.is_numeral_i64(K))
    return Clip({K, K});
  if (isIntVar(E)) {
    auto It = Bounds.find(E.id());
    return Clip(It == Bounds.end() ? Interval{} : It->second);
  }
  if (!E.is_app())
    return std::nullopt;
  Z3_decl_kind Kd = E.decl().decl_kind();
  if (Kd == Z3_OP_MUL && E.num_args() == 2) {
    z3::expr C = E.arg(0), X = E.arg(1);
    if (!C.is_numeral_i64(K))
      std::swap(C, X);
    if (!C.is_numeral_i64(K) || K <= -Lim || K >= Lim)
      return std::nullopt;
    std::optional<Interval> I = linearInterval(X, Bounds);
    if (!I)
      return std::nullopt;
    if (K == 0)
      return Interval{0, 0};
    // An end times K; an unbounded end, or a product that overflows, is
    // unbounded with the product's sign (a weaker bound).
    auto Mul = [&](int64_t V) {
      int64_t P = 0;
      if (V == NegInf || V == PosInf || __builtin_mul_overflow(V, K, &P))
        return (V > 0) == (K > 0) ? PosInf : NegInf;
      return P;
    };
    int64_t A = Mul(I->Lo), B = Mul(I->Hi);
    return Clip({std::min(A, B), std::max(A, B)});
  }
  if (Kd == Z3_OP_ADD) {
    Interval Sum{0, 0};
    for (unsigned J = 0; J < E.num_args(); ++J) {
      std::optional<Interval> I = linearInterval(E.arg(J), Bounds);
      if (!I)
        return std::nullopt;
      Sum.Lo = Sum.Lo == NegInf || I->Lo == NegInf ? NegInf : Sum.Lo + I->Lo;
      Sum.Hi = Sum.Hi == PosInf || I->Hi == PosInf ? PosInf : Sum.Hi + I->Hi;
      Sum = Clip(Sum);
    }
    return Sum;
  }
  return std::nullopt;
}

/// The bounds of the variables of \p F from its top-level comparisons with
/// constants, by AST id; with \p Definitions also from its top-level
/// definitions `x == linear term` (a loop variable `256 * bid.x + tid.x +
/// 1024 * iter` is at least 0; two rounds reach definitions that use
/// defined variables).
std::map<unsigned, Interval> boundsOf(const z3::expr &F,
                                      bool Definitions = false) {
  std::vector<z3::expr> Cs;
  conjuncts(F, Cs);
  std::map<unsigned, Interval> Bounds;
  for (const z3::expr &C : Cs)
    narrow(C, Bounds);
  for (int Round = 0; Definitions && Round < 2; ++Round)
    for (const z3::expr &C : Cs) {
      if (!C.is_app() || C.decl().decl_kind() != Z3_OP_EQ || C.num_args() != 2)
        continue;
      for (int S = 0; S < 2; ++S) {
        z3::expr V = C.arg(S), T = C.arg(1 - S);
        if (!isIntVar(V) || T.is_numeral())
          continue;
        if (std::optional<Interval> I = linearInterval(T, Bounds)) {
          Interval &B = Bounds[V.id()];
          B.Lo = std::max(B.Lo, I->Lo);
          B.Hi = std::min(B.Hi, I->Hi);
        }
      }
    }
  return Bounds;
}
} // namespace

namespace {
/// A top-level fact `X < C * Y` (Y not a numeral): (X, Y) and C; nullopt
/// for other conjuncts. Reads `not (C * Y <= X)`, `X < C * Y` and
/// `C * Y > X`, the product either way round.
std::optional<std::tuple<z3::expr, z3::expr, int64_t>>
upperByMultiple(const z3::expr &Cj) {
  bool Neg = false;
  std::optional<z3::expr> Xo = comparison(Cj, Neg);
  if (!Xo)
    return std::nullopt;
  const z3::expr &X = *Xo;
  Z3_decl_kind Kd = X.decl().decl_kind();
  // Small < Large, strictly.
  std::optional<std::pair<z3::expr, z3::expr>> Lt;
  if (!Neg && Kd == Z3_OP_LT)
    Lt = {X.arg(0), X.arg(1)};
  else if (!Neg && Kd == Z3_OP_GT)
    Lt = {X.arg(1), X.arg(0)};
  else if (Neg && Kd == Z3_OP_LE)
    Lt = {X.arg(1), X.arg(0)};
  else if (Neg && Kd == Z3_OP_GE)
    Lt = {X.arg(0), X.arg(1)};
  if (!Lt)
    return std::nullopt;
  const z3::expr &M = Lt->second;
  if (!M.is_app() || M.decl().decl_kind() != Z3_OP_MUL || M.num_args() != 2)
    return std::nullopt;
  int64_t C = 0;
  for (int S = 0; S < 2; ++S)
    if (M.arg(S).is_numeral_i64(C) && !M.arg(1 - S).is_numeral())
      return std::make_tuple(Lt->first, M.arg(1 - S), C);
  return std::nullopt;
}

/// \p E with the quotients and remainders of \p Q (by (dividend,
/// divisor) AST ids) replaced: `div(x, y)` by q, `mod(x, y)` by x - q * y.
z3::expr
quotientsRec(const z3::expr &E,
             const std::map<std::pair<unsigned, unsigned>, z3::expr> &Q,
             std::map<unsigned, z3::expr> &Memo) {
  auto Replace = [&](const z3::expr &X) -> std::optional<z3::expr> {
    Z3_decl_kind Kd = X.decl().decl_kind();
    if ((Kd != Z3_OP_IDIV && Kd != Z3_OP_MOD) || X.num_args() != 2)
      return std::nullopt;
    auto It = Q.find({X.arg(0).id(), X.arg(1).id()});
    if (It == Q.end())
      return std::nullopt;
    return Kd == Z3_OP_IDIV ? It->second : X.arg(0) - It->second * X.arg(1);
  };
  return rewriteTerms(E, Replace, Memo);
}
} // namespace

z3::expr boundQuotients(const z3::expr &F0,
                        std::vector<Analysis::SplitVar> &Quotients) {
  z3::expr F = simplifyByBounds(F0);
  std::vector<z3::expr> Cs;
  conjuncts(F, Cs);
  std::map<unsigned, Interval> Bounds = boundsOf(F, /*Definitions=*/true);
  z3::context &Z = F.ctx();
  std::map<std::pair<unsigned, unsigned>, z3::expr> Q;
  z3::expr Facts = Z.bool_val(true);
  for (const z3::expr &Cj : Cs) {
    auto U = upperByMultiple(Cj);
    if (!U)
      continue;
    const auto &[X, Y, C] = *U;
    std::optional<Interval> IX = linearInterval(X, Bounds);
    if (C < 1 || C > 16 || !IX || IX->Lo < 0 || Q.count({X.id(), Y.id()}))
      continue;
    z3::expr V =
        Z.int_const(("quot:" + std::to_string(Quotients.size())).c_str());
    Q.emplace(std::make_pair(X.id(), Y.id()), V);
    Quotients.push_back({V, 0, C});
    Facts = Facts && Y >= 1 && V >= 0 && V < Z.int_val(C) && V * Y <= X &&
            X < V * Y + Y;
  }
  if (Q.empty())
    return F;
  std::map<unsigned, z3::expr> Memo;
  z3::expr R = quotientsRec(F, Q, Memo);
  if (z3::eq(R, F)) {
    Quotients.erase(Quotients.end() - Q.size(), Quotients.end());
    return F;
  }
  return simplifyByBounds((R && Facts).simplify());
}

namespace {
/// True if \p E multiplies two non-constant terms or divides by a
/// non-constant one: what iteProducts() must turn into chains.
bool nonlinear(const z3::expr &E, std::map<unsigned, bool> &Memo) {
  if (!E.is_app())
    return false;
  if (auto It = Memo.find(E.id()); It != Memo.end())
    return It->second;
  bool R = false;
  Z3_decl_kind Kd = E.decl().decl_kind();
  if (Kd == Z3_OP_MUL) {
    unsigned Terms = 0;
    for (unsigned I = 0; I < E.num_args(); ++I)
      Terms += !E.arg(I).is_numeral();
    R = Terms > 1;
  } else if ((Kd == Z3_OP_IDIV || Kd == Z3_OP_MOD || Kd == Z3_OP_REM) &&
             E.num_args() == 2) {
    R = !E.arg(1).is_numeral();
  }
  for (unsigned I = 0; I < E.num_args() && !R; ++I)
    R = nonlinear(E.arg(I), Memo);
  Memo.emplace(E.id(), R);
  return R;
}

/// For `ite(c, a, b)` whose condition compares its two branches: +1 when it
/// is min(a, b) (`a <= b`, `a < b`, `b >= a`, `b > a`, or the negation of
/// a max condition), -1 when it is max(a, b), 0 otherwise.
int minOrMax(const z3::expr &E) {
  if (!E.is_app() || E.decl().decl_kind() != Z3_OP_ITE)
    return 0;
  bool Neg = false;
  std::optional<z3::expr> C = comparison(E.arg(0), Neg);
  if (!C || C->decl().decl_kind() == Z3_OP_EQ)
    return 0;
  const z3::expr &A = E.arg(1), &B = E.arg(2);
  int Dir = 0; // +1: the condition says "first argument smaller"
  if (z3::eq(C->arg(0), A) && z3::eq(C->arg(1), B))
    Dir = 1;
  else if (z3::eq(C->arg(0), B) && z3::eq(C->arg(1), A))
    Dir = -1;
  if (Dir == 0)
    return 0;
  Z3_decl_kind Kd = C->decl().decl_kind();
  int Less = (Kd == Z3_OP_LE || Kd == Z3_OP_LT) ? 1 : -1;
  // ite(a <= b, a, b) = min; ite(b <= a, a, b) = max; a negation swaps.
  return Dir * Less * (Neg ? -1 : 1);
}

/// An upper bound of the integer term \p E that leaves out the non-linear
/// arguments of its minima: min(a, b) <= a, so a minimum with exactly one
/// non-linear argument is replaced by (the upper bound of) the other; max,
/// if-then-else and sums are monotone and are bounded argument by
/// argument. \p E itself where nothing is left out.
z3::expr upperBound(const z3::expr &E, std::map<unsigned, bool> &NonLin,
                    std::map<unsigned, z3::expr> &Memo) {
  if (!E.is_app() || !E.is_int())
    return E;
  if (auto It = Memo.find(E.id()); It != Memo.end())
    return It->second;
  z3::expr R = E;
  Z3_decl_kind Kd = E.decl().decl_kind();
  if (int M = minOrMax(E); M == 1) {
    bool NA = nonlinear(E.arg(1), NonLin), NB = nonlinear(E.arg(2), NonLin);
    if (NA != NB)
      R = upperBound(NA ? E.arg(2) : E.arg(1), NonLin, Memo);
  } else if (M == -1 || Kd == Z3_OP_ITE) {
    z3::expr A = upperBound(E.arg(1), NonLin, Memo),
             B = upperBound(E.arg(2), NonLin, Memo);
    if (!z3::eq(A, E.arg(1)) || !z3::eq(B, E.arg(2)))
      R = M == -1 ? z3::ite(A >= B, A, B) : z3::ite(E.arg(0), A, B);
  } else if (Kd == Z3_OP_ADD) {
    z3::expr_vector Args(E.ctx());
    bool Changed = false;
    for (unsigned I = 0; I < E.num_args(); ++I) {
      Args.push_back(upperBound(E.arg(I), NonLin, Memo));
      Changed = Changed || !z3::eq(Args.back(), E.arg(I));
    }
    if (Changed)
      R = z3::sum(Args);
  }
  Memo.emplace(E.id(), R);
  return R;
}
} // namespace

z3::expr relaxMinBounds(const z3::expr &F) {
  std::vector<z3::expr> Cs;
  conjuncts(F, Cs);
  std::map<unsigned, bool> NonLin;
  std::map<unsigned, z3::expr> Memo;
  z3::expr_vector Out(F.ctx());
  bool Changed = false;
  for (const z3::expr &Cj : Cs) {
    bool Neg = false;
    std::optional<z3::expr> Xo = comparison(Cj, Neg);
    z3::expr R = Cj;
    if (Xo && Xo->arg(0).is_int()) {
      // Small < Large (or <=), read through a negation.
      Z3_decl_kind Kd = Xo->decl().decl_kind();
      int Large = -1;
      if (!Neg && (Kd == Z3_OP_LT || Kd == Z3_OP_LE))
        Large = 1;
      else if (!Neg && (Kd == Z3_OP_GT || Kd == Z3_OP_GE))
        Large = 0;
      else if (Neg && (Kd == Z3_OP_LE || Kd == Z3_OP_LT))
        Large = 0;
      else if (Neg && (Kd == Z3_OP_GE || Kd == Z3_OP_GT))
        Large = 1;
      if (Large >= 0) {
        const z3::expr &L = Xo->arg(unsigned(Large));
        z3::expr U = upperBound(L, NonLin, Memo);
        if (!z3::eq(U, L)) {
          z3::expr C = Large == 1 ? Xo->decl()(Xo->arg(0), U)
                                  : Xo->decl()(U, Xo->arg(1));
          R = Neg ? !C : C;
        }
      }
    }
    Changed = Changed || !z3::eq(R, Cj);
    Out.push_back(R);
  }
  return Changed ? z3::mk_and(Out).simplify() : F;
}

std::map<unsigned, std::pair<int64_t, int64_t>>
topLevelBounds(const z3::expr &F) {
  std::map<unsigned, std::pair<int64_t, int64_t>> Out;
  for (const auto &[Id, B] : boundsOf(F))
    Out[Id] = {B.Lo, B.Hi};
  return Out;
}

namespace {
/// The variable of a bit-vector round trip: for each subterm of \p E by AST
/// id, whether it contains an `int2bv` and its one integer variable (null
/// when it has none, \p Many when several).
struct BitTerms {
  struct Info {
    bool Bits = false;
    std::optional<z3::expr> Var;
    bool Many = false;
  };
  std::map<unsigned, Info> Memo;

  const Info &of(const z3::expr &E) {
    if (auto It = Memo.find(E.id()); It != Memo.end())
      return It->second;
    Info I;
    if (isIntVar(E)) {
      I.Var = E;
    } else if (E.is_app()) {
      I.Bits = E.decl().decl_kind() == Z3_OP_INT2BV;
      for (unsigned A = 0; A < E.num_args(); ++A) {
        const Info &X = of(E.arg(A));
        I.Bits = I.Bits || X.Bits;
        I.Many =
            I.Many || X.Many || (X.Var && I.Var && !z3::eq(*X.Var, *I.Var));
        if (X.Var && !I.Var)
          I.Var = X.Var;
      }
    }
    return Memo.emplace(E.id(), std::move(I)).first->second;
  }
};

/// \p F with every integer subterm that goes through bit-vectors (`rank ^
/// 1`, `a | b`: `bv2int(int2bv(x) ^ ...)`) and has one variable x, bounded
/// by \p Bounds to at most 16 values, replaced by the if-then-else chain of
/// its values over x's range (the last one as the final else): the same
/// value wherever x lies in its bounds, and linear. Z3 bit-blasts the
/// round trip otherwise (the butterfly partner `rank ^ 1` of
/// bar002_02_ptx.cu cost 30k to 60k units per query).
z3::expr expandBitTerms(const z3::expr &F,
                        const std::map<unsigned, Interval> &Bounds) {
  BitTerms Info;
  if (!Info.of(F).Bits)
    return F;
  std::map<unsigned, z3::expr> Memo;
  auto Chain = [&](const z3::expr &E) -> std::optional<z3::expr> {
    const BitTerms::Info &I = Info.of(E);
    if (!E.is_int() || !I.Bits || I.Many || !I.Var)
      return std::nullopt;
    auto B = Bounds.find(I.Var->id());
    if (B == Bounds.end() || B->second.Lo > B->second.Hi ||
        B->second.Lo == std::numeric_limits<int64_t>::min() ||
        B->second.Hi == std::numeric_limits<int64_t>::max() ||
        B->second.Hi - B->second.Lo >= 16)
      return std::nullopt;
    z3::context &Z = E.ctx();
    std::optional<z3::expr> R;
    for (int64_t V = B->second.Hi; V >= B->second.Lo; --V) {
      z3::expr_vector From(Z), To(Z);
      From.push_back(*I.Var);
      To.push_back(Z.int_val(V));
      z3::expr X = z3::expr(E).substitute(From, To).simplify();
      if (!X.is_numeral())
        return std::nullopt;
      R = R ? z3::ite(*I.Var == Z.int_val(V), X, *R) : X;
    }
    return R;
  };
  return rewriteTerms(F, Chain, Memo);
}

/// pruneByBounds() (\p All false) and simplifyByBounds() (\p All true).
z3::expr pruneWith(const z3::expr &F0, bool All) {
  std::map<unsigned, Interval> Bounds = boundsOf(F0, /*Definitions=*/All);
  bool Any = false;
  for (const auto &[Id, B] : Bounds) {
    if (B.Lo > B.Hi)
      return F0.ctx().bool_val(false);
    Any = Any || B.Lo != std::numeric_limits<int64_t>::min() ||
          B.Hi != std::numeric_limits<int64_t>::max();
  }
  if (!Any)
    return F0;
  // Bit-vector round trips first (they contain no bound of their own, so
  // the bounds stay those of F0).
  z3::expr F = expandBitTerms(F0, Bounds);
  bool Changed = !z3::eq(F, F0);
  std::map<unsigned, z3::expr> Memo;
  if (!All) {
    z3::expr R = pruneRec(F, Bounds, All, Memo);
    return Changed || !z3::eq(R, F) ? R.simplify() : F0;
  }
  // The comparisons that give the bounds stay as they are (they would
  // otherwise decide themselves); every other conjunct is pruned by them.
  std::vector<z3::expr> Cs;
  conjuncts(F, Cs);
  z3::expr_vector Out(F.ctx());
  for (const z3::expr &C : Cs) {
    z3::expr R = parseCmp(C) ? C : pruneRec(C, Bounds, All, Memo);
    Changed = Changed || !z3::eq(R, C);
    Out.push_back(R);
  }
  return Changed ? z3::mk_and(Out).simplify() : F0;
}
} // namespace

z3::expr pruneByBounds(const z3::expr &F) {
  return pruneWith(F, /*All=*/false);
}

z3::expr simplifyByBounds(const z3::expr &F) {
  return pruneWith(F, /*All=*/true);
}

//===----------------------------------------------------------------------===//
// Analysis: launch configurations.
//===----------------------------------------------------------------------===//

/// The parameters that launch \p L binds to constants: "param:Name" ->
/// value. Rank and world-size parameters are coordinates, not bindings.
static std::map<std::string, int64_t> bindingsOf(const KernelModel &K,
                                                 const LaunchSite &L) {
  std::map<std::string, int64_t> B;
  for (const LaunchSite::Arg &A : L.Args) {
    const Param *P = K.findParam(A.Param);
    if (!P || P->Role == ParamRole::Rank || P->Role == ParamRole::WorldSize)
      continue;
    if (std::optional<int64_t> V = constOf(A.Value))
      B["param:" + P->Name] = *V;
  }
  return B;
}

bool isCallName(const std::string &N) {
  return N == "host:call_index" || startsWith(N, "host:fixed:");
}

/// The parameters that launch \p L sets from the host's call counter or
/// from globals that only setup writes (LaunchDims::HostBind): a
/// non-constant argument whose host value is an expression over
/// "host:call_index", "host:fixed:*", the world size and constants that
/// mentions one of the first two (`call_index * (W - 1)`).
static std::map<std::string, ExprRef> hostBindingsOf(const KernelModel &K,
                                                     const LaunchSite &L) {
  std::map<std::string, ExprRef> B;
  for (const LaunchSite::Arg &A : L.Args) {
    const Param *P = K.findParam(A.Param);
    if (!P || P->Role == ParamRole::Rank || P->Role == ParamRole::WorldSize ||
        constOf(A.Value) || !A.Host || !anyVar(A.Host, isCallName) ||
        anyVar(
            A.Host,
            [](const std::string &N) {
              return !isCallName(N) && N != "world_size";
            },
            /*OpaqueCounts=*/true))
      continue;
    B["param:" + P->Name] = A.Host;
  }
  return B;
}

const std::vector<LaunchDims> &Analysis::launches() {
  if (LaunchesDone)
    return Launches;
  LaunchesDone = true;
  // Launch-site specialization (docs/checkers.md): one configuration per
  // distinct (dimensions, bindings); a site whose dimensions do not fold
  // keeps its bindings with the representative dimensions, used only when
  // no site has constant dimensions.
  // Sites with a dimension that does not fold, with the dimensions that do
  // (0 where not).
  std::vector<std::pair<const LaunchSite *, LaunchDims>> Unsized;
  auto Same = [](const LaunchDims &A, const LaunchDims &B) {
    auto Text = [](const ExprRef &E) { return E ? E->str() : std::string(); };
    auto HostText = [&](const LaunchDims &D) {
      std::string T;
      for (const auto &[N, E] : D.HostBind)
        T += N + "=" + Text(E) + ";";
      return T;
    };
    return std::equal(A.B, A.B + 3, B.B) && std::equal(A.G, A.G + 3, B.G) &&
           A.Bind == B.Bind && A.FromSite == B.FromSite &&
           Text(A.Guard) == Text(B.Guard) &&
           Text(A.ParamCond) == Text(B.ParamCond) && HostText(A) == HostText(B);
  };
  auto Add = [&](const LaunchDims &D) {
    for (const LaunchDims &E : Launches)
      if (Same(E, D))
        return;
    Launches.push_back(D);
  };
  for (const LaunchSite &L : K.Launches) {
    LaunchDims D;
    D.FromSite = true;
    D.Site = &L;
    D.Bind = bindingsOf(K, L);
    D.HostBind = hostBindingsOf(K, L);
    D.ParamCond = L.ParamCond;
    D.Guard = L.Guard;
    const ExprRef *Es[6] = {&L.BlockX, &L.BlockY, &L.BlockZ,
                            &L.GridX,  &L.GridY,  &L.GridZ};
    bool Ok = true;
    for (int I = 0; I < 6; ++I) {
      int64_t V = 1;
      if (*Es[I]) {
        // Only constant dimensions are used: the flag does not matter.
        bool Approx = false;
        z3::expr X = tr(*Es[I], 0, Approx).simplify();
        if (!X.is_numeral() || !X.is_numeral_i64(V) || V < 1) {
          Ok = false;
          V = 0;
        }
      }
      (I < 3 ? D.B[I] : D.G[I - 3]) = V;
    }
    if (Ok && D.B[0] * D.B[1] * D.B[2] <= 1024)
      Add(D);
    else if (!Ok)
      Unsized.push_back({&L, D});
  }
  if (Launches.empty()) {
    // Representative configurations (docs/checkers.md, "Assumptions").
    LaunchDims A, B;
    A.B[0] = 256;
    A.G[0] = 4;
    B.B[0] = 128;
    B.G[0] = 3;
    if (Unsized.empty()) {
      Launches = {A, B};
    } else {
      // A site keeps the dimensions that fold (`<<<Blocks, 512>>>`: 512
      // threads, the representative grids); a block of more than 1024
      // threads falls back to the representative block.
      for (const auto &[L, Folded] : Unsized)
        for (LaunchDims D : {A, B}) {
          LaunchDims Keep = D;
          for (int I = 0; I < 3; ++I) {
            if (Folded.B[I])
              Keep.B[I] = Folded.B[I];
            if (Folded.G[I])
              Keep.G[I] = Folded.G[I];
          }
          if (Keep.B[0] * Keep.B[1] * Keep.B[2] <= 1024)
            std::copy(Keep.B, Keep.B + 3, D.B);
          std::copy(Keep.G, Keep.G + 3, D.G);
          D.Bind = Folded.Bind;
          D.HostBind = Folded.HostBind;
          D.ParamCond = L->ParamCond;
          D.Site = L;
          D.Guard = L->Guard;
          Add(D);
        }
    }
  }
  return Launches;
}

std::optional<std::pair<int64_t, int64_t>>
Analysis::valueRange(const ExprRef &E, unsigned W, const LaunchDims &L) {
  using R = std::pair<int64_t, int64_t>;
  constexpr int64_t Lim = int64_t(1) << 40;
  auto Ok = [&](const R &X) -> std::optional<R> {
    if (X.first <= -Lim || X.second >= Lim)
      return std::nullopt;
    return X;
  };
  if (!E)
    return std::nullopt;
  switch (E->Op) {
  case ExprOp::Const:
    return Ok({E->Value, E->Value});
  case ExprOp::Var: {
    const std::string &N = E->Name;
    static const char *Dims[3] = {"x", "y", "z"};
    for (int D = 0; D < 3; ++D) {
      if (N == std::string("tid.") + Dims[D])
        return R{0, L.B[D] - 1};
      if (N == std::string("bid.") + Dims[D])
        return R{0, L.G[D] - 1};
      if (N == std::string("bdim.") + Dims[D])
        return R{L.B[D], L.B[D]};
      if (N == std::string("gdim.") + Dims[D])
        return R{L.G[D], L.G[D]};
    }
    if (N == "lane")
      return R{0, 31};
    // The coordinates, also through a parameter with their role (looked up
    // here rather than through var(), which would create the variable).
    const Param *P =
        startsWith(N, "param:") ? K.findParam(N.substr(6)) : nullptr;
    if (N == "rank" || (P && P->Role == ParamRole::Rank))
      return R{0, int64_t(W) - 1};
    if (N == "world_size" || (P && P->Role == ParamRole::WorldSize))
      return R{W, W};
    if (auto It = L.Bind.find(N); It != L.Bind.end())
      return Ok({It->second, It->second});
    return std::nullopt;
  }
  case ExprOp::Add:
  case ExprOp::Sub:
  case ExprOp::Mul: {
    if (E->Ops.size() != 2)
      return std::nullopt;
    auto X = valueRange(E->Ops[0], W, L), Y = valueRange(E->Ops[1], W, L);
    if (!X || !Y)
      return std::nullopt;
    if (E->Op == ExprOp::Add)
      return Ok({X->first + Y->first, X->second + Y->second});
    if (E->Op == ExprOp::Sub)
      return Ok({X->first - Y->second, X->second - Y->first});
    int64_t C[4];
    const int64_t XE[2] = {X->first, X->second}, YE[2] = {Y->first, Y->second};
    for (int I = 0; I < 4; ++I)
      if (__builtin_mul_overflow(XE[I / 2], YE[I % 2], &C[I]))
        return std::nullopt;
    return Ok({*std::min_element(C, C + 4), *std::max_element(C, C + 4)});
  }
  case ExprOp::Rem: {
    // C remainder by a positive constant of a non-negative value.
    if (E->Ops.size() != 2)
      return std::nullopt;
    int64_t M = constOf(E->Ops[1]).value_or(0);
    auto X = valueRange(E->Ops[0], W, L);
    if (M <= 0 || !X || X->first < 0)
      return std::nullopt;
    return R{0, std::min(X->second, M - 1)};
  }
  default:
    return std::nullopt;
  }
}

bool Analysis::boundInEveryLaunch(const std::string &Var) {
  const std::vector<LaunchDims> &Ls = launches();
  return !K.Launches.empty() &&
         std::all_of(Ls.begin(), Ls.end(), [&](const LaunchDims &L) {
           auto H = L.HostBind.find(Var);
           return L.Bind.count(Var) != 0 ||
                  (H != L.HostBind.end() &&
                   !H->second->mentions("host:call_index"));
         });
}

z3::expr Analysis::specialize(const z3::expr &F, unsigned W,
                              const LaunchDims &L) {
  z3::expr_vector From(Z), To(Z);
  concreteValues(W, L, From, To);
  return pruneByBounds(z3::expr(F).substitute(From, To).simplify());
}

void Analysis::concreteValues(std::optional<unsigned> W, const LaunchDims &L,
                              z3::expr_vector &From, z3::expr_vector &To) {
  if (W) {
    From.push_back(var("world_size", 0));
    To.push_back(Z.int_val(*W));
  }
  const char *Dims[3] = {"x", "y", "z"};
  for (int D = 0; D < 3; ++D) {
    From.push_back(var(std::string("bdim.") + Dims[D], 0));
    To.push_back(Z.int_val(L.B[D]));
    From.push_back(var(std::string("gdim.") + Dims[D], 0));
    To.push_back(Z.int_val(L.G[D]));
  }
  for (const auto &[Name, V] : L.Bind) {
    From.push_back(var(Name, 0));
    To.push_back(Z.int_val(V));
  }
}

/// True if some uninterpreted constant of \p E is one of \p Vs (by name).
static bool mentionsAny(const z3::expr &E, const std::set<std::string> &Vs,
                        std::set<unsigned> &Seen) {
  if (!Seen.insert(E.id()).second)
    return false;
  if (E.is_const() && !E.is_numeral())
    return Vs.count(E.decl().name().str()) != 0;
  if (E.is_app())
    for (unsigned I = 0; I < E.num_args(); ++I)
      if (mentionsAny(E.arg(I), Vs, Seen))
        return true;
  return E.is_quantifier() && mentionsAny(E.body(), Vs, Seen);
}

z3::expr Analysis::withLaunchFacts(const z3::expr &F, const LaunchDims &L) {
  z3::expr R = F;
  if (L.ParamCond) {
    // Only for a formula over some of its parameters (others would only
    // add unrelated constraints).
    std::set<std::string> Ps;
    anyVar(L.ParamCond, [&](const std::string &N) {
      Ps.insert(N);
      return false;
    });
    bool Approx = false;
    z3::expr P = trBool(L.ParamCond, 0, Approx);
    std::set<unsigned> Seen;
    if (!Approx && mentionsAny(F, Ps, Seen)) // only exact facts narrow it
      R = R && P;
  }
  if (L.HostBind.empty() && NextParams.empty())
    return R;
  // Call-counter bindings, in this call and (for nextCall()) the next;
  // only for a formula that mentions a bound parameter. A launch without
  // the binding of a parameter that nextCall() replaced still gives its
  // "@next" variable a value: the parameter itself (one larger for an
  // Epoch).
  std::set<std::string> Names;
  z3::expr C = var("host:call_index", 0);
  z3::expr_vector From(Z), To(Z), CFrom(Z), CTo(Z);
  CFrom.push_back(C);
  CTo.push_back(C + 1);
  for (const auto &[Name, H] : L.HostBind) {
    bool Approx = false;
    z3::expr T = tr(H, 0, Approx);
    From.push_back(var(Name, 0));
    To.push_back(T);
    Names.insert(Name);
    if (NextParams.count(Name)) {
      From.push_back(var(Name + "@next", 0));
      To.push_back(T.substitute(CFrom, CTo));
      Names.insert(Name + "@next");
    }
  }
  for (const std::string &Name : NextParams) {
    // A parameter the launch sets from the call counter in a way the model
    // does not express: its next-call value stays a free variable.
    if (L.HostBind.count(Name) || callDependent(L, Name))
      continue;
    const Param *P = K.findParam(Name.substr(6));
    From.push_back(var(Name + "@next", 0));
    To.push_back(P && P->Role == ParamRole::Epoch ? var(Name, 0) + 1
                                                  : var(Name, 0));
    Names.insert(Name + "@next");
  }
  std::set<unsigned> Seen;
  if (!mentionsAny(R, Names, Seen))
    return R;
  R = R.substitute(From, To);
  if (L.HostBind.empty())
    return R;
  // The call counter takes its first values 0..MaxCallIndex (documented
  // assumption, docs/checkers.md): the bindings the front end expresses
  // (`c & 1`, `c % 2`, `(c & 2) / 2`, `c + 1`) repeat or grow uniformly from
  // there, and a bounded counter keeps `(c & 1) * half` linear (the solver
  // splits on it).
  return R && C >= 0 && C <= Z.int_val(MaxCallIndex);
}

bool Analysis::callDependent(const LaunchDims &L, const std::string &Var) {
  if (!L.Site || !startsWith(Var, "param:"))
    return false;
  return std::any_of(L.Site->Args.begin(), L.Site->Args.end(),
                     [&](const LaunchSite::Arg &A) {
                       return A.CallDependent && "param:" + A.Param == Var;
                     });
}

Encoded Analysis::nextCall(const Encoded &E) {
  z3::expr_vector From(Z), To(Z);
  const std::vector<LaunchDims> &Ls = launches();
  for (const Param &P : K.Params) {
    std::string N = "param:" + P.Name;
    bool Host = std::any_of(Ls.begin(), Ls.end(), [&](const LaunchDims &L) {
      return L.HostBind.count(N) != 0 || callDependent(L, N);
    });
    if (Host) {
      NextParams.insert(N);
      From.push_back(var(N, 0));
      To.push_back(var(N + "@next", 0));
    } else if (P.Role == ParamRole::Epoch) {
      z3::expr V = var(N, 0);
      From.push_back(V);
      To.push_back(V + 1);
    }
  }
  return From.empty() ? E : E.substitute(From, To);
}

z3::expr Analysis::concretizeAcross(const z3::expr &F, const LaunchDims &L) {
  z3::expr_vector From(Z), To(Z);
  concreteValues(std::nullopt, L, From, To);
  z3::expr Wv = var("world_size", 0);
  std::vector<unsigned> Ws = O.WorldSizes;
  if (Ws.empty())
    return Z.bool_val(false); // no world size to check: nothing runs
  std::sort(Ws.begin(), Ws.end());
  z3::expr InSet = Z.bool_val(false);
  for (unsigned W : Ws)
    InSet = InSet || Wv == Z.int_val(W);
  // The range first, as top-level bounds that prune the chains over W;
  // every rank below the largest W (implied by `rank < W`) prunes those
  // over ranks.
  z3::expr R =
      Wv >= Z.int_val(Ws.front()) && Wv <= Z.int_val(Ws.back()) && InSet;
  for (const auto &[Key, V] : Vars)
    if (startsWith(Key, "rank#"))
      R = R && V < Z.int_val(Ws.back());
  R = R && withLaunchFacts(F, L).substitute(From, To).simplify();
  R = pruneByBounds(R);
  for (unsigned X = 0; X < From.size(); ++X)
    R = R && From[X] == To[X];
  return R;
}

z3::expr Analysis::concretize(const z3::expr &F, unsigned W,
                              const LaunchDims &L) {
  z3::expr_vector From(Z), To(Z);
  concreteValues(W, L, From, To);
  // Pruned by the bounds that the query itself asserts: an agent's
  // coordinates lie in the launch, a rank below W, a guard's `t < W`
  // bounds its thread; the if-then-else chains of variable shifts
  // (`1 << rank`, `mask >> t`, 62 cases each) keep only the cases in range.
  z3::expr R =
      pruneByBounds(withLaunchFacts(F, L).substitute(From, To).simplify());
  for (unsigned X = 0; X < From.size(); ++X)
    R = R && From[X] == To[X];
  if (L.Guard) {
    // Rank- and world-size-conditional launch (docs/checkers.md): every
    // agent of the query runs this launch, so its rank satisfies the
    // launch's host guard; a guard false for W leaves no agent.
    std::vector<int> Agents;
    for (const auto &[Key, V] : Vars)
      if (startsWith(Key, "rank#"))
        Agents.push_back(std::stoi(Key.substr(5)));
    if (Agents.empty())
      Agents.push_back(1);
    // The guard restricts the ranks of a launch the host code names; its
    // flag is not the query's (Outcome::Approx is the formula's).
    bool GuardApprox = false;
    for (int Ag : Agents) {
      z3::expr G =
          z3::expr(trBool(L.Guard, Ag, GuardApprox)).substitute(From, To);
      G = G.simplify();
      if (G.is_false())
        return Z.bool_val(false); // no rank runs this launch at this W
      R = R && G;
    }
  }
  return R;
}

} // namespace pkb::chk
