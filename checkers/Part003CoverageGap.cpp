//===- Part003CoverageGap.cpp - PART-003 ----------------------------------===//
//
// Coverage gap: output elements [0, N) that no rank writes (e.g. the N % W
// remainder of a rank partition). The coverage formula is quantifier-free:
// writer ranks and small loops are expanded for each concrete W, and a
// grid-stride (or block-stride) loop `for (v = gtid; v < L; v += stride)`
// is replaced by the interval [0, L) it covers as a whole (docs/checkers.md,
// PART-003 "Method").
//
//===----------------------------------------------------------------------===//
#include "Checks.h"
#include "Engine.h"

namespace pkb::chk {
namespace {

constexpr size_t kMaxInstances = 4096;

bool mentionsThread(const ExprRef &E) {
  return anyVar(E, [](const std::string &N) {
    return N.rfind("tid.", 0) == 0 || N.rfind("bid.", 0) == 0 ||
           N.rfind("bdim.", 0) == 0 || N.rfind("gdim.", 0) == 0 || N == "lane";
  });
}

class Part003 : public KernelChecker {
public:
  PKB_CHECK_INFO("PART-003", "coverage-gap",
                 "Some output elements are written by no rank (e.g. the "
                 "N % W remainder).",
                 "part-003", ExplainsOutputMismatch | ExplainsUnwrittenOutput)
  PKB_CHECK_NEEDS(HasLocalWrite)

  /// The output extent of checkOutput() for one W: elements [0, Limit) of
  /// the buffer, under Extra (sizes, the extent parameter's host value, the
  /// launch's host condition, the owner of a root-only output).
  struct OutputExtent {
    z3::expr Limit;
    z3::expr Extra;
    z3::expr ExtValue; ///< the extent parameter's value (it is replaced)
    bool Approx = false;
    z3::expr Size; ///< the problem size n (witness "size")
  };
  /// True if loop \p Lp is a block-stride loop over one block's range,
  /// `for (v = X + tid.x; v < B; v += blockDim.x)` with X and B free of
  /// thread coordinates other than the block index and grid size: block b
  /// covers [X(b), B(b)), and the blocks are expanded over the launch's
  /// grid (the `per = N / gridDim.x` block partition).
  static bool blockStride(const Loop &Lp) { return blockStart(Lp) != nullptr; }

  /// X of a block-stride loop (blockStride()), else null.
  static ExprRef blockStart(const Loop &Lp) {
    if (!Lp.Step || Lp.Step->Op != ExprOp::Var || Lp.Step->Name != "bdim.x" ||
        !Lp.Init || Lp.Init->Op != ExprOp::Add || !Lp.Bound)
      return nullptr;
    auto IsTid = [](const ExprRef &T) {
      return T->Op == ExprOp::Var && T->Name == "tid.x";
    };
    ExprRef X = IsTid(Lp.Init->Ops[1])   ? Lp.Init->Ops[0]
                : IsTid(Lp.Init->Ops[0]) ? Lp.Init->Ops[1]
                                         : nullptr;
    if (!X)
      return nullptr;
    auto OtherThread = [](const ExprRef &E) {
      return anyVar(E, [](const std::string &N) {
        return (N.rfind("tid.", 0) == 0 || N.rfind("bid.", 0) == 0 ||
                N.rfind("bdim.", 0) == 0 || N.rfind("gdim.", 0) == 0 ||
                N == "lane") &&
               N != "bid.x" && N != "gdim.x";
      });
    };
    return OtherThread(X) || OtherThread(Lp.Bound) ? nullptr : X;
  }

  /// The grid/block-stride loop of \p E, if any.
  std::optional<unsigned> coverLoop(Analysis &A, const Event &E) const {
    for (unsigned L : E.Loops) {
      const Loop *Lp = A.K.findLoop(L);
      if (Lp && Lp->Init && Lp->Step && Lp->Bound && Lp->Ascending &&
          Lp->Init->mentions("tid.x") && Lp->Step->mentions("bdim.x"))
        return L;
    }
    return std::nullopt;
  }

  void checkKernel(Analysis &A, std::vector<Finding> &Out,
                   std::vector<Diagnostic> &Diags) const override {
    std::set<std::string> Bases;
    for (size_t I = 0; I < A.size(); ++I)
      if (A.isData(I) && !A.isShared(I) && isWriteEvent(A.ev(I)) &&
          !A.SymBases.count(A.ev(I).Addr.Base) && !A.ev(I).Addr.Peer)
        Bases.insert(A.ev(I).Addr.Base);
    for (const std::string &B : Bases) {
      size_t Before = Out.size() + Diags.size();
      checkBase(A, B, Out, Diags);
      if (Out.size() + Diags.size() == Before && A.O.Problem)
        checkOutput(A, B, Out, Diags);
    }
  }

  /// The writes of \p Base (event indices).
  static std::vector<size_t> writesOf(Analysis &A, const std::string &Base) {
    std::vector<size_t> Ws;
    for (size_t I = 0; I < A.size(); ++I)
      if (isWriteEvent(A.ev(I)) && A.ev(I).Addr.Base == Base)
        Ws.push_back(I);
    return Ws;
  }

  /// The ElementCount parameters ("param:N"; with \p AnyScalar also the
  /// Scalar and Unknown ones) in the indices, guards and loop bounds of the
  /// writes \p Ws; \p RankBound is set when a guard or loop bound mentions
  /// the rank.
  static std::set<std::string> extentsOf(Analysis &A,
                                         const std::vector<size_t> &Ws,
                                         bool &RankBound,
                                         bool AnyScalar = false) {
    std::set<std::string> Extents;
    RankBound = false;
    for (size_t I : Ws) {
      const Event &E = A.ev(I);
      std::vector<ExprRef> Parts(E.Guard.begin(), E.Guard.end());
      Parts.push_back(E.Addr.Index);
      std::vector<ExprRef> Bounds(E.Guard.begin(), E.Guard.end());
      for (unsigned L : E.Loops)
        if (const Loop *Lp = A.K.findLoop(L)) {
          Parts.push_back(Lp->Bound);
          Bounds.push_back(Lp->Bound);
        }
      for (const ExprRef &P : Bounds)
        if (P && P->mentions("rank"))
          RankBound = true;
      for (const ExprRef &P : Parts)
        anyVar(P, [&](const std::string &N) {
          if (N.rfind("param:", 0) == 0)
            if (const Param *Pr = A.K.findParam(N.substr(6)))
              if (Pr->Role == ParamRole::ElementCount ||
                  (AnyScalar && (Pr->Role == ParamRole::Scalar ||
                                 Pr->Role == ParamRole::Unknown)))
                Extents.insert(N);
          return false;
        });
    }
    return Extents;
  }

  /// Output extent from the problem (docs/checkers.md, PART-003): \p Base
  /// is the kernel parameter that its one launch, in pkb_candidate_run,
  /// binds to `Out[0].data`; the output then has the problem's element
  /// count, and the extent parameter is the launch's host expression over
  /// the input and output sizes. Checked at each default problem size.
  void checkOutput(Analysis &A, const std::string &Base,
                   std::vector<Finding> &Out,
                   std::vector<Diagnostic> &Diags) const {
    const ProblemSizes &PS = *A.O.Problem;
    if (A.K.Launches.size() != 1 || PS.Sizes.empty())
      return;
    const LaunchSite &L = A.K.Launches.front();
    if (!L.HostCondKnown)
      return;
    const LaunchSite::Arg *OutArg = nullptr;
    for (const LaunchSite::Arg &Ar : L.Args)
      if (Ar.Param == Base && Ar.OutTensor == 0)
        OutArg = &Ar;
    if (!OutArg)
      return;
    std::vector<size_t> Ws = writesOf(A, Base);
    bool RankBound = false;
    // Any scalar parameter the launch binds to a host expression bounds
    // the output here, whatever its name (`N8`, `vecs`).
    std::set<std::string> Extents = extentsOf(A, Ws, RankBound, true);
    if (Extents.size() != 1)
      return;
    const std::string &Ext = *Extents.begin();
    ExprRef Host;
    for (const LaunchSite::Arg &Ar : L.Args)
      if ("param:" + Ar.Param == Ext)
        Host = Ar.Host                                     ? Ar.Host
               : Ar.Value && Ar.Value->Op == ExprOp::Const ? Ar.Value
                                                           : nullptr;
    if (!Host)
      return;
    // Host names: the tensor extents of the contract, rank, world size.
    if (!onlyHostNames(Host) || !onlyHostNames(L.HostCond))
      return;
    const Param *BP = A.paramOf(Base);
    unsigned Elem = BP && BP->ElemBytes ? BP->ElemBytes : A.unitOf(Ws.front());
    z3::context &Z = A.Z;
    z3::expr Size = Z.int_const("cov:size");
    z3::expr Owner = Z.int_const("cov:owner");
    auto ExtentFor = [&](unsigned W) -> std::optional<OutputExtent> {
      // The host expressions are evaluated on the output's owner, whose
      // host launches the kernel that writes its Out[0].
      Encoded HostV = A.hostTerm(Host, PS, Size, Owner, W);
      Encoded Cond = L.HostCond ? A.hostCond(L.HostCond, PS, Size, Owner, W)
                                : Encoded(Z.bool_val(true));
      z3::expr OutN = PS.OutputTimesW ? Z.int_val(W) * Size : Size;
      return OutputExtent{
          // Elements of Elem bytes that hold the output's bytes.
          (OutN * Z.int_val(int64_t(PS.ElemBytes)) + Z.int_val(Elem - 1)) /
              Z.int_val(Elem),
          (A.problemSize(PS, Size) && Cond.Term &&
           (PS.OutputRootOnly ? Owner == 0 : Z.bool_val(true))),
          HostV.Term, HostV.Approx || Cond.Approx, Size};
    };
    unsigned W = 0;
    bool Stop = false;
    if (std::optional<Outcome> R =
            firstGap(A, Base, Ws, Ext, Elem, ExtentFor, W, Stop, Out, Diags)) {
      const Event &E = A.ev(Ws.front());
      Finding F = makeFinding(
          info().Id, A.K, E.Loc,
          "element " + R->Witness["j"] + " of " + Base +
              " (Out[0] of problem " + PS.Name + " at size n = " +
              R->Witness["size"] + ", W = " + std::to_string(W) +
              "; the launch passes " + Ext.substr(6) + " = " + Host->str() +
              " = " + R->Witness["n"] + ") is written by no rank",
          "derive the kernel's element count from the output tensor (" +
              std::string(PS.OutputTimesW ? "W * n" : "n") + " elements for " +
              PS.Name + ") and cover the tail that the vector width leaves");
      for (size_t I : Ws)
        relate(F, "write", A.ev(I));
      applyOutcome(F, *R);
      bool HasLaunch = false;
      for (const auto &Rel : F.Related)
        HasLaunch = HasLaunch || Rel.Role == "launch";
      if (!HasLaunch)
        F.Related.push_back({"launch", L.Loc,
                             L.Kernel + "<<<...>>>(" + Ext.substr(6) + " = " +
                                 Host->str() + ")"});
      emit(Out, std::move(F));
    }
  }

  /// Solves the gap of gap() for each configured W in ascending order, with
  /// the output extent \p ExtentFor gives for W (nullopt: [0, N)); the
  /// first satisfiable outcome and its \p FoundW, else nullopt. \p Stop
  /// is set when a write's shape is unsupported or a query is undecided (a
  /// note is emitted then): nothing more is to be asked about the buffer.
  std::optional<Outcome> firstGap(
      Analysis &A, const std::string &Base, const std::vector<size_t> &Ws,
      const std::string &Ext, unsigned Elem,
      const std::function<std::optional<OutputExtent>(unsigned)> &ExtentFor,
      unsigned &FoundW, bool &Stop, std::vector<Finding> &Out,
      std::vector<Diagnostic> &Diags) const {
    Stop = false;
    std::vector<unsigned> Ws2(A.O.WorldSizes.begin(), A.O.WorldSizes.end());
    std::sort(Ws2.begin(), Ws2.end());
    for (unsigned W : Ws2) {
      std::optional<OutputExtent> X = ExtentFor(W);
      std::optional<Outcome> R =
          gap(A, Base, Ws, Ext, Elem, W, X ? &*X : nullptr);
      if (!R || R->unknown()) {
        Stop = true;
        if (R) // undecided, else an unsupported shape
          emitUnknown(info().Id, A.K, A.ev(Ws.front()), "output coverage", *R,
                      Out, Diags);
        return std::nullopt;
      }
      if (R->sat()) {
        FoundW = W;
        return R;
      }
    }
    return std::nullopt;
  }

  void checkBase(Analysis &A, const std::string &Base,
                 std::vector<Finding> &Out,
                 std::vector<Diagnostic> &Diags) const {
    std::vector<size_t> Ws = writesOf(A, Base);
    // Candidate extents and structural restrictions.
    bool RankBound = false;
    std::set<std::string> Extents = extentsOf(A, Ws, RankBound);
    if (RankBound)
      return; // rank-dependent output size (e.g. reduce-scatter)
    if (Extents.empty())
      return;
    const Param *BP = A.paramOf(Base);
    unsigned Elem = BP && BP->ElemBytes ? BP->ElemBytes : A.unitOf(Ws.front());
    for (const std::string &Ext : Extents) {
      // Every other parameter must be absent: they would be free.
      unsigned W = 0;
      bool Stop = false;
      std::optional<Outcome> R = firstGap(
          A, Base, Ws, Ext, Elem,
          [](unsigned) { return std::optional<OutputExtent>(); }, W, Stop, Out,
          Diags);
      if (Stop)
        return;
      if (R) {
        const Event &E = A.ev(Ws.front());
        Finding F = makeFinding(
            info().Id, A.K, E.Loc,
            "element " + R->Witness["j"] + " of " + Base + " (with " +
                Ext.substr(6) + " = " + R->Witness["n"] +
                ", W = " + std::to_string(W) + ") is written by no rank",
            "size the partitions with a ceiling division (ceil(N / W) per "
            "rank, ceil(N / gridDim.x) per block) and clamp the last one "
            "to N (or add a tail loop for the remainder)");
        for (size_t I : Ws)
          relate(F, "write", A.ev(I));
        applyOutcome(F, *R);
        emit(Out, std::move(F));
        return;
      }
    }
  }

  /// Builds and solves the gap formula for one W; nullopt if a write has a
  /// shape the coverage reasoning does not support. With a block-stride
  /// cover loop (blockStride()) the blocks are expanded per launch
  /// configuration.
  std::optional<Outcome> gap(Analysis &A, const std::string &Base,
                             const std::vector<size_t> &Ws,
                             const std::string &Ext, unsigned Elem, unsigned W,
                             const OutputExtent *X = nullptr) const {
    bool PerLaunch = false;
    for (size_t I : Ws)
      if (std::optional<unsigned> C = coverLoop(A, A.ev(I)))
        PerLaunch = PerLaunch || blockStride(*A.K.findLoop(*C));
    if (!PerLaunch)
      return gapFor(A, Base, Ws, Ext, Elem, W, nullptr, X);
    std::optional<Outcome> Last;
    for (const LaunchDims &L : A.launches()) {
      Last = gapFor(A, Base, Ws, Ext, Elem, W, &L, X);
      if (!Last || Last->sat() || Last->unknown())
        return Last;
    }
    return Last;
  }

  /// The gap formula of gap() for one W and, when \p L is set, one launch
  /// (blocks of block-stride loops expanded over its grid, at most 1024);
  /// with \p X, over the output extent of the problem instead of [0, N).
  std::optional<Outcome> gapFor(Analysis &A, const std::string &Base,
                                const std::vector<size_t> &Ws,
                                const std::string &Ext, unsigned Elem,
                                unsigned W, const LaunchDims *L,
                                const OutputExtent *X) const {
    z3::context &Z = A.Z;
    z3::expr N = A.var(Ext, 0);
    z3::expr J = Z.int_const("cov:j");
    z3::expr Owner = Z.int_const("cov:owner");
    z3::expr Wv = Z.int_val(W);
    Encoded F = J >= 0 && (X ? J < X->Limit && X->Extra : J < N) &&
                Owner >= 0 && Owner < Wv;
    if (X)
      F = F.orApprox(X->Approx);
    // Translations that only feed the expansion (loop starts, bounds and
    // steps, the index identity) are not in F; their flags still count.
    bool SideApprox = false;
    z3::expr Y = J * Z.int_val(Elem);
    int Agent = 100;
    size_t Instances = 0;
    for (size_t I : Ws) {
      const Event &E = A.ev(I);
      std::optional<unsigned> Cover = coverLoop(A, E);
      bool Block = Cover && blockStride(*A.K.findLoop(*Cover));
      if (Block && (!L || L->G[0] > 1024 || L->G[1] != 1 || L->G[2] != 1))
        return std::nullopt;
      // Restrictions: no thread coordinates outside the cover loop, no
      // other parameters than the extent.
      std::vector<ExprRef> Check(E.Guard.begin(), E.Guard.end());
      Check.push_back(E.Addr.Index);
      Check.push_back(E.Addr.ByteOffset);
      Check.push_back(E.Addr.Peer);
      for (unsigned L : E.Loops)
        if (const Loop *Lp = A.K.findLoop(L)) {
          if (!Block || L != *Cover)
            Check.push_back(Lp->Bound);
          if (!Cover || L != *Cover) {
            Check.push_back(Lp->Init);
            Check.push_back(Lp->Step);
          }
        } else
          return std::nullopt;
      // The block range of a block-stride loop may use bid.x and gdim.x
      // (blockStride() checked that), nothing else that is free.
      size_t NoThreadCheck = Check.size();
      if (Block) {
        const Loop *Lp = A.K.findLoop(*Cover);
        Check.push_back(Lp->Bound);
        Check.push_back(blockStart(*Lp));
      }
      for (size_t CI = 0; CI < Check.size(); ++CI) {
        const ExprRef &C = Check[CI];
        if (!C)
          continue;
        if ((CI < NoThreadCheck && mentionsThread(C)) || C->hasOpaque())
          return std::nullopt;
        if (anyVar(C, [&](const std::string &Nm) {
              return (Nm.rfind("param:", 0) == 0 && Nm != Ext &&
                      A.var(Nm, 0).to_string() != "rank" &&
                      A.var(Nm, 0).to_string() != "world_size") ||
                     Nm.rfind("local:", 0) == 0 || Nm.rfind("global:", 0) == 0;
            }))
          return std::nullopt;
      }
      if (!E.Addr.Index)
        return std::nullopt;
      // Expand writer ranks and the non-cover loops.
      for (unsigned Rs = 0; Rs < W; ++Rs) {
        std::vector<unsigned> Expand;
        for (unsigned L : E.Loops)
          if (!Cover || L != *Cover)
            Expand.push_back(L);
        std::vector<std::vector<int64_t>> Values;
        int Ag = Agent++;
        z3::expr_vector From(Z), To(Z);
        From.push_back(A.rank(Ag));
        To.push_back(Z.int_val(Rs));
        From.push_back(A.var("world_size", 0));
        To.push_back(Wv);
        bool Ok = true;
        std::vector<int64_t> Cur;
        std::function<void(size_t)> Rec;
        std::vector<Encoded> Covers;
        Rec = [&](size_t D) {
          if (!Ok)
            return;
          if (D == Expand.size()) {
            if (++Instances > kMaxInstances) {
              Ok = false;
              return;
            }
            z3::expr_vector F2(Z), T2(Z);
            for (unsigned X = 0; X < From.size(); ++X) {
              F2.push_back(From[X]);
              T2.push_back(To[X]);
            }
            for (size_t X = 0; X < Expand.size(); ++X) {
              F2.push_back(A.var("loop:" + std::to_string(Expand[X]), Ag));
              T2.push_back(Z.int_val(Cur[X]));
            }
            Analysis::Range Rg = A.range(I, Ag);
            Encoded C = Rg.Owner == Owner && Rg.Lo <= Y && Y < Rg.Hi &&
                        A.guardOf(I, Ag);
            if (Cover) {
              z3::expr V = A.var("loop:" + std::to_string(*Cover), Ag);
              // Idx(v) = Idx(0) + v is required; v solved from the byte.
              z3::expr_vector VF(Z), VZ(Z);
              VF.push_back(V);
              VZ.push_back(Z.int_val(0));
              Encoded IdxE = A.toInt(E.Addr.Index, Ag);
              SideApprox = SideApprox || IdxE.Approx;
              z3::expr Idx = IdxE.Term;
              Encoded Idx0 = IdxE.substitute(VF, VZ);
              // Linear with coefficient 1 in v: the simplifier's normal
              // form decides it; otherwise ask the solver (bounded).
              z3::expr Diff =
                  (Idx - Idx0.Term - V).substitute(F2, T2).simplify();
              int64_t Zero = 1;
              if (!Diff.is_numeral_i64(Zero) || Zero != 0) {
                z3::expr Q = Idx - Idx0.Term != V;
                z3::solver S = A.fullSolver(Q);
                z3::params P(Z);
                P.set("rlimit", static_cast<unsigned>(A.queryLimit() / 16));
                S.set(P);
                S.add(Q);
                for (unsigned X = 0; X < F2.size(); ++X)
                  S.add(F2[X] == T2[X]);
                if (S.check() != z3::unsat) {
                  Ok = false;
                  return;
                }
              }
              Encoded BO = E.Addr.ByteOffset ? A.toInt(E.Addr.ByteOffset, Ag)
                                             : Z.int_val(0);
              Encoded Solved = (Y - BO) / Z.int_val(A.unitOf(I)) - Idx0;
              Encoded Lo = Z.int_val(0);
              if (Block)
                Lo = A.toInt(blockStart(*A.K.findLoop(*Cover)), Ag);
              C = C && V >= Lo && A.loopBound(*Cover, Ag);
              z3::expr_vector SF(Z), ST(Z);
              SF.push_back(V);
              ST.push_back(Solved.Term);
              C = C.substitute(SF, ST).orApprox(Solved.Approx);
              if (Block) {
                // Block b covers [X(b), B(b)); some block covers the byte.
                Encoded Any = Z.bool_val(false);
                for (int64_t B = 0; B < L->G[0]; ++B) {
                  z3::expr_vector BF(Z), BT(Z);
                  BF.push_back(A.var("bid.x", Ag));
                  BT.push_back(Z.int_val(B));
                  Any = Any || C.substitute(BF, BT);
                }
                Instances += size_t(L->G[0]);
                C = Any.orApprox(C.Approx);
              }
            }
            Covers.push_back(C.substitute(F2, T2));
            return;
          }
          const Loop *Lp = A.K.findLoop(Expand[D]);
          if (!Lp || !Lp->Init || !Lp->Bound) {
            Ok = false;
            return;
          }
          z3::expr_vector F2(Z), T2(Z);
          for (unsigned X = 0; X < From.size(); ++X) {
            F2.push_back(From[X]);
            T2.push_back(To[X]);
          }
          for (size_t X = 0; X < D; ++X) {
            F2.push_back(A.var("loop:" + std::to_string(Expand[X]), Ag));
            T2.push_back(Z.int_val(Cur[X]));
          }
          int64_t Init = 0, Bound = 0, Step = 1;
          Encoded IeE = A.toInt(Lp->Init, Ag).substitute(F2, T2).simplify();
          Encoded BeE = A.toInt(Lp->Bound, Ag).substitute(F2, T2).simplify();
          SideApprox = SideApprox || IeE.Approx || BeE.Approx;
          z3::expr Ie = IeE.Term, Be = BeE.Term;
          if (!Ie.is_numeral_i64(Init) || !Be.is_numeral_i64(Bound)) {
            Ok = false;
            return;
          }
          if (Lp->Step) {
            Encoded SeE = A.toInt(Lp->Step, Ag).substitute(F2, T2).simplify();
            SideApprox = SideApprox || SeE.Approx;
            z3::expr Se = SeE.Term;
            if (!Se.is_numeral_i64(Step) || Step <= 0) {
              Ok = false;
              return;
            }
          }
          if (Lp->Ascending) {
            for (int64_t V = Init; V < Bound && Ok; V += Step) {
              Cur.push_back(V);
              Rec(D + 1);
              Cur.pop_back();
            }
          } else {
            for (int64_t V = Init; V > Bound && Ok; V -= Step) {
              Cur.push_back(V);
              Rec(D + 1);
              Cur.pop_back();
            }
          }
        };
        Rec(0);
        if (!Ok)
          return std::nullopt;
        for (const Encoded &C : Covers)
          F = F && !C;
      }
    }
    // Some write of the buffer must execute (a uniform early return that
    // skips the whole output is not a gap).
    Encoded Some = Z.bool_val(false);
    for (size_t I : Ws)
      Some = Some || A.exec(I, 99);
    F = (F && Some).orApprox(SideApprox);
    if (X) {
      // The launch binds the extent parameter to its host value: it is no
      // free parameter of the formula.
      z3::expr_vector PF(Z), PT(Z);
      PF.push_back(N);
      PT.push_back(X->ExtValue);
      F = F.substitute(PF, PT);
      N = X->ExtValue;
    }
    WitnessSpec Wit = {{"j", J}, {"n", N}, {"owner", Owner}};
    if (X)
      Wit.push_back({"size", X->Size});
    return A.solve(F, Wit, {W}, L);
  }
};

} // namespace

std::unique_ptr<Checker> makePart003() { return std::make_unique<Part003>(); }

} // namespace pkb::chk
