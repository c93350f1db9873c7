//===- Part004SlotMismatch.cpp - PART-004 ---------------------------------===//
//
// Slot mismatch: a rank reads bytes of a symmetric buffer that no rank writes
// in any call, while other parts of the buffer are written through peer
// pointers. The slot a reader reads for sender p is then not the slot p wrote
// (a wrong chunk offset on the writer or on the reader side); disjoint
// writes (PART-002) cannot show it.
//
// The check relates the kernels of one host call sequence (a candidate's
// `pkb_candidate_run`): the buffer of each access is the symmetric buffer its
// launch argument designates (HostOp::ArgBuffers). For a concrete world size
// W, a concrete element count n and one owner rank q, the bytes that every
// write of every kernel may put into q's copy of the buffer are enumerated
// in the writer's model (any block, thread, iteration, call epoch), and the
// reader's model is asked for a read of q's copy outside their union. Only
// exact reads are reported (no opaque value, no unbound parameter); where the
// writes cannot be enumerated, nothing is reported (docs/checkers.md).
//
// Output mapping: for a problem that only moves data, a plain copy into the
// output from a symmetric buffer that the host filled with the input must
// read the (rank, element) that the problem's mapping prescribes.
//
//===----------------------------------------------------------------------===//
#include "Checks.h"
#include "Engine.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <tuple>

namespace pkb::chk {
namespace {

/// One kernel call of the host sequence with its kernel and launch site.
struct CallSite {
  const HostOp *Op = nullptr;
  const KernelModel *K = nullptr;
  const LaunchSite *L = nullptr;
};

/// An access of a symmetric buffer: the call and the event index.
struct Access {
  size_t Call;
  size_t Ev;
};

/// A byte interval [Lo, Hi) of one owner's copy of a buffer.
using Interval = std::pair<int64_t, int64_t>;

/// Largest number of write instances enumerated per (W, owner, event and
/// launch): past it the writes are not enumerated and nothing is reported.
constexpr size_t EnumCap = 512;

/// The index of the launch argument that initializes parameter \p Root.
std::optional<size_t> argIndex(const LaunchSite &L, const std::string &Root) {
  for (size_t I = 0; I < L.Args.size(); ++I)
    if (L.Args[I].Param == Root)
      return I;
  return std::nullopt;
}

/// The symmetric buffer ("symm[0]") that base \p Base of the call \p C
/// reaches: the buffer its launch argument designates, for a raw pointer or
/// pointer-table parameter and for the `peers` field of a `pkb_peer_view`;
/// "signal_pad" for the pads; empty when the base is not a parameter or the
/// argument designates no symmetric buffer.
std::string bufferKey(const CallSite &C, const std::string &Base) {
  const Param *P = C.K->paramOf(Base);
  if (!P)
    return {};
  std::string Root = P->Name.substr(0, P->Name.find('.'));
  std::optional<size_t> I = argIndex(*C.L, Root);
  if (!I || *I >= C.Op->ArgBuffers.size())
    return {};
  const std::string &B = C.Op->ArgBuffers[*I];
  std::string Field = Base.substr(std::min(Root.size(), Base.size()));
  if (B == "signal_pad" || Field == ".signal_pads")
    return "signal_pad";
  if (Field.empty() || Field == ".peers")
    return B;
  return {};
}

/// Merges \p V into sorted, disjoint intervals.
std::vector<Interval> merged(std::vector<Interval> V) {
  std::sort(V.begin(), V.end());
  std::vector<Interval> R;
  for (const Interval &X : V)
    if (!R.empty() && X.first <= R.back().second)
      R.back().second = std::max(R.back().second, X.second);
    else
      R.push_back(X);
  return R;
}

/// True if an expression of event \p I or of its enclosing loops mentions a
/// parameter (`param:NAME`) that launch \p L neither binds to a constant
/// nor sets from the call counter (LaunchDims::HostBind), or a device
/// variable (`global:NAME`): a value no launch fixes. The byte-offset
/// addends \p Dropped (commonAddends()) do not count.
bool mentionsFreeParam(const Analysis &A, size_t I, const LaunchDims &L,
                       const std::set<std::string> &Dropped) {
  auto Free = [&](const std::string &N) {
    return (startsWith(N, "param:") && !L.Bind.count(N) &&
            !L.HostBind.count(N)) ||
           startsWith(N, "global:");
  };
  std::vector<ExprRef> Es = A.eventExprs(I);
  if (const ExprRef &B = A.ev(I).Addr.ByteOffset; B && !Dropped.empty()) {
    Es.erase(std::find(Es.begin(), Es.end(), B));
    std::vector<ExprRef> Terms;
    addends(B, Terms);
    for (const ExprRef &T : Terms)
      if (!Dropped.count(T->str()))
        Es.push_back(T);
  }
  return std::any_of(Es.begin(), Es.end(),
                     [&](const ExprRef &X) { return anyVar(X, Free); });
}

/// Most conditions of a case split over a read's unknown conditions
/// (Analysis::unknownConditions()).
constexpr size_t MaxSplit = 2;

class Part004 : public Checker {
public:
  PKB_CHECK_INFO("PART-004", "slot-mismatch",
                 "A rank reads a slot of a symmetric buffer that no rank "
                 "writes, or copies into its output another rank's or "
                 "element's input than the problem prescribes: the slot "
                 "read for a sender is not the slot the sender wrote.",
                 "part-004", ExplainsOutputMismatch)

  void check(const ModuleModel &M, const CheckOptions &Opts,
             std::vector<Finding> &Out,
             std::vector<Diagnostic> &Diags) const override {
    if (Opts.Problem && Opts.Problem->Copies)
      checkOutputMapping(M, Opts, Out, Diags);
    std::vector<CallSite> Calls;
    if (!callSites(M, Calls))
      return;
    std::map<std::string, std::vector<Access>> Writes, Reads;
    std::set<std::string> Unmodelled;
    for (size_t C = 0; C < Calls.size(); ++C) {
      const KernelModel &K = *Calls[C].K;
      bool Opaque =
          std::any_of(K.Events.begin(), K.Events.end(), [](const Event &E) {
            return E.Kind == EventKind::Opaque || E.Kind == EventKind::Call ||
                   E.Kind == EventKind::BulkCopy;
          });
      // A kernel whose events the model may miss (or whose bulk copies'
      // destinations it does not name) can write any buffer it is passed:
      // those buffers are not checked.
      for (const std::string &B : Calls[C].Op->ArgBuffers)
        if (Opaque || B.find('@') != std::string::npos)
          Unmodelled.insert(B);
      for (size_t I = 0; I < K.Events.size(); ++I) {
        const Event &E = K.Events[I];
        if (!accessesMemory(E.Kind) || K.isSharedAccess(E) ||
            E.Addr.Space == AddrSpace::Local)
          continue;
        std::string Key = bufferKey(Calls[C], E.Addr.Base);
        if (Key.empty() && writesMemory(E.Kind) && !K.paramOf(E.Addr.Base)) {
          // A store through a pointer the model cannot name may reach any
          // buffer of the call.
          for (const std::string &B : Calls[C].Op->ArgBuffers)
            Unmodelled.insert(B);
          continue;
        }
        if (!startsWith(Key, "symm["))
          continue;
        if (writesMemory(E.Kind))
          Writes[Key].push_back({C, I});
        else if (E.Kind == EventKind::Load)
          Reads[Key].push_back({C, I});
      }
    }
    for (const auto &[Key, Rs] : Reads) {
      if (Unmodelled.count(Key) || !Writes.count(Key) ||
          !writtenByPeers(Calls, Writes.at(Key)))
        continue;
      try {
        checkBuffer(M, Opts, Key, Calls, Writes.at(Key), Rs, Out);
      } catch (const z3::exception &E) {
        // Like every engine checker: a note, never a silent pass.
        Diags.push_back(solverErrorNote(info().Id, *Calls[Rs[0].Call].K, E));
      }
    }
  }

private:
  /// Output mapping (docs/checkers.md, PART-004 "Output mapping"): for a
  /// collective that only moves data, each plain copy into `Out[0]` whose
  /// source is a symmetric buffer that pkb_candidate_run fills with
  /// `In[0]` must read the element the problem puts there (all-gather:
  /// output element p*n + i of any rank is x_p[i]).
  void checkOutputMapping(const ModuleModel &M, const CheckOptions &Opts,
                          std::vector<Finding> &Out,
                          std::vector<Diagnostic> &Diags) const {
    // The fill: one cudaMemcpy* of In[0] to the start of symm[K] on every
    // call, nothing else writes symm[K] from the host, no collective.
    const HostOp *Fill = nullptr;
    for (const HostOp &H : M.HostOps) {
      if (H.Kind == HostOp::Collective)
        return;
      if (H.Kind != HostOp::SymmWrite || !startsWith(H.Target, "symm["))
        continue;
      if (Fill || H.SourceTensor != 0 || !H.AtBufferStart || !H.Bytes ||
          H.Depth != 0 || !onlyHostNames(H.Bytes) ||
          H.Target.find('@') != std::string::npos)
        return;
      Fill = &H;
    }
    if (!Fill)
      return;
    std::vector<CallSite> Calls;
    if (!callSites(M, Calls, /*HostWrites=*/true))
      return;
    // No kernel writes the filled buffer (its content stays In[0]) or may
    // write through memory the model does not name.
    for (const CallSite &C : Calls) {
      const KernelModel &K = *C.K;
      for (const Event &E : K.Events) {
        if (E.Kind == EventKind::Opaque || E.Kind == EventKind::Call ||
            E.Kind == EventKind::BulkCopy)
          return;
        if (!writesMemory(E.Kind) || K.isSharedAccess(E) ||
            E.Addr.Space == AddrSpace::Local)
          continue;
        std::string Key = bufferKey(C, E.Addr.Base);
        if (Key == Fill->Target || (Key.empty() && !K.paramOf(E.Addr.Base)))
          return;
      }
    }
    for (const CallSite &C : Calls) {
      // The fill comes first in the call (the kernel then reads this
      // call's input).
      if (C.Op < Fill || C.K->Launches.size() != 1 || !C.L->HostCondKnown ||
          !onlyHostNames(C.L->HostCond))
        continue;
      for (const LaunchSite::Arg &Arg : C.L->Args)
        if (Arg.OutTensor == 0)
          try {
            if (mapOutput(M, Opts, C, Arg.Param, *Fill, Out))
              return;
          } catch (const z3::exception &E) {
            Diags.push_back(solverErrorNote(info().Id, *C.K, E));
            return;
          }
    }
  }

  /// The copies into \p OutParam (the launch's Out[0]) of call \p C: each
  /// must be a plain copy from the filled buffer, and one that reads
  /// another element than the problem's is reported. True when reported.
  bool mapOutput(const ModuleModel &M, const CheckOptions &Opts,
                 const CallSite &C, const std::string &OutParam,
                 const HostOp &Fill, std::vector<Finding> &Out) const {
    const ProblemSizes &PS = *Opts.Problem;
    const KernelModel &K = *C.K;
    std::vector<size_t> Copies;
    for (size_t I = 0; I < K.Events.size(); ++I) {
      const Event &E = K.Events[I];
      if (!writesMemory(E.Kind) || E.Addr.Base != OutParam)
        continue;
      // Every write of the output must be such a copy: another value
      // written there could be the right one.
      if (E.Kind != EventKind::Store || !E.CopyOf || E.Addr.Peer || !E.Width ||
          bufferKey(C, E.CopyOf->Base) != Fill.Target)
        return false;
      Copies.push_back(I);
    }
    std::optional<Analysis> Local;
    Analysis &A = checkContext(M, K, Opts, Local);
    z3::context &Z = A.Z;
    const int Ag = 1;
    z3::expr R = A.rank(Ag);
    // Small world sizes, like the slot check; each default size alone (a
    // constant block size keeps the divisions linear).
    std::vector<unsigned> Ws;
    for (unsigned W : Opts.WorldSizes)
      if (W >= 2 && W <= 4)
        Ws.push_back(W);
    std::sort(Ws.begin(), Ws.end());
    const int64_t EB = PS.ElemBytes;
    for (size_t I : Copies) {
      const Event &E = K.Events[I];
      const Address &Src = *E.CopyOf;
      for (unsigned W : Ws)
        for (int64_t N : PS.Sizes) {
          z3::expr Size = Z.int_val(N);
          z3::expr Wv = Z.int_val(W);
          z3::expr OutN = PS.OutputTimesW ? Wv * Size : Size;
          // The launch's host values replace its parameters.
          z3::expr_vector PF(Z), PT(Z);
          bool Approx = false;
          for (const LaunchSite::Arg &Arg : C.L->Args) {
            if (!Arg.Host || !onlyHostNames(Arg.Host))
              continue;
            Encoded V = A.hostTerm(Arg.Host, PS, Size, R, W);
            Approx = Approx || V.Approx;
            PF.push_back(A.var("param:" + Arg.Param, 0));
            PT.push_back(V.Term);
          }
          Analysis::Range St = A.range(I, Ag);
          Encoded Q = Src.Peer ? A.toInt(Src.Peer, Ag) : Encoded(R);
          Encoded Bl = A.toInt(Src.Index, Ag) * Z.int_val(E.Width);
          if (Src.ByteOffset)
            Bl = Bl + A.toInt(Src.ByteOffset, Ag);
          z3::expr Bs = St.Lo.Term;
          z3::expr Block = Size * Z.int_val(EB);
          z3::expr Qe = PS.SourceByBlock ? Bs / Block : Z.int_val(0);
          z3::expr Be = (PS.SourceOffsetByRank ? R * Block : Z.int_val(0)) +
                        (PS.SourceByBlock ? Bs % Block : Bs);
          Encoded Cond = C.L->HostCond
                             ? A.hostCond(C.L->HostCond, PS, Size, R, W)
                             : Encoded(Z.bool_val(true));
          // Any other source is wrong: another rank's or another
          // element's input, or bytes the fill did not write.
          Encoded F = A.exec(I, Ag) && St.Owner == R && Cond && Bs >= 0 &&
                      Bs + Z.int_val(E.Width) <= OutN * Z.int_val(EB) &&
                      Q >= 0 && Q < Wv &&
                      (PS.OutputRootOnly ? R == 0 : Z.bool_val(true)) &&
                      (Q != Qe || Bl != Be);
          F = F.substitute(PF, PT).orApprox(Approx);
          if (F.Approx)
            return false;
          WitnessSpec Wit = A.agentWitness({Ag});
          Wit.push_back({"byte", St.Lo});
          Wit.push_back({"src_rank", Q});
          Wit.push_back({"src_byte", Bl});
          Wit.push_back({"want_rank", Qe});
          Wit.push_back({"want_byte", Be});
          for (auto &[Name, T] : Wit)
            T = T.substitute(PF, PT);
          // Without a launch size from the site, every representative
          // launch must show it.
          const bool AnyFromSite = anyFromSite(A);
          Outcome Found;
          bool All = true;
          for (const LaunchDims &L : A.launches()) {
            if (AnyFromSite && !L.FromSite)
              continue;
            Outcome O = A.solve(F, Wit, {W}, &L);
            bool Exact = O.sat() && !O.Approx && O.Unbound.empty();
            All = All && Exact;
            if (Exact && !Found.sat())
              Found = O;
            if (AnyFromSite && Exact)
              break;
          }
          if (!Found.sat() || (!AnyFromSite && !All))
            continue;
          Finding F2 = makeFinding(
              info().Id, K, E.Loc,
              "rank " + Found.Witness["r1"] + " (block " + Found.Witness["b1"] +
                  ", thread " + Found.Witness["t1"] + ") copies into byte " +
                  Found.Witness["byte"] + " of Out[0] (" + OutParam +
                  ") the bytes at " + Found.Witness["src_byte"] + " of rank " +
                  Found.Witness["src_rank"] + "'s " + Fill.Target +
                  " (where the host copies that rank's In[0]); " + PS.Name +
                  " puts byte " + Found.Witness["want_byte"] + " of rank " +
                  Found.Witness["want_rank"] + "'s input there (W = " +
                  std::to_string(W) + ", n = " + std::to_string(N) + ")",
              "read output block p from the rank and the offset that own it "
              "(all-gather: y[p*n + i] = x_p[i])");
          F2.Related.push_back({"fill", Fill.Loc,
                                Fill.Callee + " of In[0] into " + Fill.Target});
          applyOutcome(F2, Found);
          emit(Out, std::move(F2));
          return true;
        }
    }
    return false;
  }

  /// The kernel calls of the host sequence, each matched with its kernel
  /// and launch site; false when the module is outside what the check can
  /// reason about: no C++ host sequence, a collective, a host write into a
  /// symmetric buffer (unless \p HostWrites), a launch outside the
  /// sequence or a call that names no single kernel.
  static bool callSites(const ModuleModel &M, std::vector<CallSite> &Calls,
                        bool HostWrites = false) {
    size_t Sites = 0;
    for (const KernelModel &K : M.Kernels)
      Sites += K.Launches.size();
    for (const HostOp &H : M.HostOps) {
      if (H.Kind == HostOp::Collective ||
          (!HostWrites && H.Kind == HostOp::SymmWrite &&
           H.Target != "signal_pad"))
        return false;
      if (H.Kind != HostOp::KernelCall)
        continue;
      if (H.Kernels.size() != 1)
        return false;
      CallSite C;
      C.Op = &H;
      for (const KernelModel &K : M.Kernels)
        for (const LaunchSite &L : K.Launches)
          if (K.Name == H.Kernels[0] && L.Loc.Line == H.Loc.Line &&
              L.Loc.File == H.Loc.File && L.Args.size() == H.Args.size()) {
            C.K = &K;
            C.L = &L;
          }
      if (!C.K)
        return false;
      Calls.push_back(C);
    }
    return !Calls.empty() && Calls.size() == Sites;
  }

  /// True if some write reaches another rank's copy (a peer expression
  /// other than the writer's own rank): the buffer receives data.
  static bool writtenByPeers(const std::vector<CallSite> &Calls,
                             const std::vector<Access> &Ws) {
    return std::any_of(Ws.begin(), Ws.end(), [&](const Access &X) {
      const ExprRef &P = Calls[X.Call].K->Events[X.Ev].Addr.Peer;
      return P && !(P->Op == ExprOp::Var && P->Name == "rank");
    });
  }

  /// The element count of a call: its parameter variable ("param:N"), the
  /// launch argument's text and its host value (LaunchSite::Arg::Host).
  struct CountArg {
    std::string Var, Text;
    ExprRef Host;
  };

  /// The element count of call \p C: its one `ElementCount` parameter that
  /// the launch does not bind to a constant; among several, the one whose
  /// host value is a tensor's element count (`host:In[0].numel`); nullopt
  /// when that leaves none or several.
  static std::optional<CountArg> countParam(const CallSite &C) {
    std::vector<CountArg> Rs;
    for (const Param &P : C.K->Params) {
      if (P.Role != ParamRole::ElementCount)
        continue;
      std::optional<size_t> I = argIndex(*C.L, P.Name);
      if (!I || constOf(C.L->Args[*I].Value))
        continue;
      const LaunchSite::Arg &Arg = C.L->Args[*I];
      Rs.push_back({"param:" + P.Name, Arg.Text, Arg.Host});
    }
    if (Rs.size() > 1)
      std::erase_if(Rs, [](const CountArg &X) {
        return !X.Host || X.Host->Op != ExprOp::Var ||
               !(startsWith(X.Host->Name, "host:In[") ||
                 startsWith(X.Host->Name, "host:Out[")) ||
               !X.Host->Name.ends_with(".numel");
      });
    if (Rs.size() != 1)
      return std::nullopt;
    return Rs[0];
  }

  /// The value of host expression \p E when the host value \p Count (a
  /// variable) is \p N; nullopt when \p E reads anything else than it and
  /// constants, or divides by zero.
  static std::optional<int64_t> hostValueAt(const ExprRef &E,
                                            const ExprRef &Count, int64_t N) {
    if (!E)
      return std::nullopt;
    if (E->Op == ExprOp::Const)
      return E->Value;
    if (E->Op == ExprOp::Var)
      return Count && E->Name == Count->Name ? std::optional(N) : std::nullopt;
    if (E->Ops.size() != 2)
      return std::nullopt;
    std::optional<int64_t> X = hostValueAt(E->Ops[0], Count, N),
                           Y = hostValueAt(E->Ops[1], Count, N);
    if (!X || !Y)
      return std::nullopt;
    switch (E->Op) {
    case ExprOp::Add:
      return *X + *Y;
    case ExprOp::Sub:
      return *X - *Y;
    case ExprOp::Mul:
      return *X * *Y;
    case ExprOp::Div:
      return *Y ? std::optional(*X / *Y) : std::nullopt;
    case ExprOp::Rem:
      return *Y ? std::optional(*X % *Y) : std::nullopt;
    default:
      return std::nullopt;
    }
  }

  /// The parameters of call \p C that element count \p N fixes: those
  /// passed the count's argument, and those whose host value reads only
  /// the count's host value and constants (`Slot = (numel + 7) / 8 * 8`).
  static std::map<std::string, int64_t>
  countBinds(const CallSite &C, const CountArg &Count, int64_t N) {
    std::map<std::string, int64_t> Bind;
    for (const LaunchSite::Arg &Arg : C.L->Args) {
      if (constOf(Arg.Value))
        continue;
      if (Arg.Text == Count.Text)
        Bind["param:" + Arg.Param] = N;
      else if (Count.Host && Count.Host->Op == ExprOp::Var)
        if (std::optional<int64_t> V = hostValueAt(Arg.Host, Count.Host, N))
          Bind["param:" + Arg.Param] = *V;
    }
    return Bind;
  }

  /// The addends of the byte offsets (Expr::str()) that every read \p Rs
  /// and write \p Ws of a buffer has, when all are in one kernel call, and
  /// whose variables are the same for every agent of that call
  /// (parameters, world size, host values): a double buffer's half
  /// `(Epoch & 1) * HalfBytes`. Relative to them, a write of the call
  /// covers a read of the same call exactly when it does in absolute terms.
  static std::set<std::string> commonAddends(const std::vector<CallSite> &Calls,
                                             const std::vector<Access> &Ws,
                                             const std::vector<Access> &Rs) {
    std::vector<Access> All = Ws;
    All.insert(All.end(), Rs.begin(), Rs.end());
    std::optional<std::set<std::string>> Common;
    for (const Access &X : All) {
      if (X.Call != All[0].Call)
        return {};
      std::vector<ExprRef> Terms;
      addends(Calls[X.Call].K->Events[X.Ev].Addr.ByteOffset, Terms);
      const KernelModel &K = *Calls[X.Call].K;
      // A parameter with the rank role is the rank (Analysis::var()).
      auto PerAgent = [&](const std::string &N) {
        const Param *P =
            startsWith(N, "param:") ? K.findParam(N.substr(6)) : nullptr;
        return P ? P->Role == ParamRole::Rank
                 : !(N == "world_size" || startsWith(N, "host:"));
      };
      std::set<std::string> Mine;
      for (const ExprRef &T : Terms)
        if (T && T->Op != ExprOp::Const && !T->hasOpaque() &&
            !anyVar(T, PerAgent))
          Mine.insert(T->str());
      if (Common)
        std::erase_if(*Common,
                      [&](const std::string &S) { return !Mine.count(S); });
      else
        Common = std::move(Mine);
    }
    return Common ? *Common : std::set<std::string>{};
  }

  /// The bytes of rank \p Q's copy that the writes \p Ws may store at world
  /// size \p W with element count \p N (countBinds() of \p Count), relative
  /// to the addends \p Dropped, merged;
  /// nullopt when they cannot be enumerated (too many instances, a solver
  /// limit, a launch-dependent set under representative launches).
  static std::optional<std::vector<Interval>>
  written(const ModuleModel &M, const CheckOptions &Opts,
          const std::vector<CallSite> &Calls, const std::vector<Access> &Ws,
          std::map<const KernelModel *, std::optional<Analysis>> &Locals,
          std::map<const KernelModel *, Analysis *> &As, unsigned W, int64_t Q,
          const CountArg &Count, int64_t N,
          const std::set<std::string> &Dropped) {
    std::vector<Interval> All;
    for (const Access &X : Ws) {
      const CallSite &C = Calls[X.Call];
      Analysis &A = analysis(M, Opts, *C.K, Locals, As);
      std::map<std::string, int64_t> Bind = countBinds(C, Count, N);
      // Writes are over-approximated (the safe direction here), so the
      // term's approximation flag does not matter; locals with exact values
      // narrow them (a block's range `Lo = b * per`).
      ExactValues Exact(A, {}, Dropped);
      Analysis::Range R = A.range(X.Ev, 1);
      Encoded F = A.exec(X.Ev, 1) && R.Owner == A.Z.int_val(Q);
      std::optional<std::vector<Interval>> Assumed;
      for (LaunchDims L : A.launches()) {
        L.Bind.insert(Bind.begin(), Bind.end());
        bool Complete = true;
        std::vector<Interval> Got;
        for (const std::vector<int64_t> &Row :
             A.enumerate(F, {R.Lo.Term, R.Hi.Term}, W, L, EnumCap, Complete))
          Got.push_back({Row[0], Row[1]});
        if (!Complete)
          return std::nullopt;
        Got = merged(std::move(Got));
        // Without a visible launch size the real grid is unknown: the set
        // must not depend on the representative launch chosen.
        if (!L.FromSite) {
          if (Assumed && *Assumed != Got)
            return std::nullopt;
          Assumed = Got;
        }
        All.insert(All.end(), Got.begin(), Got.end());
      }
    }
    return merged(std::move(All));
  }

  /// The analysis of \p K, created once per check.
  static Analysis &
  analysis(const ModuleModel &M, const CheckOptions &Opts, const KernelModel &K,
           std::map<const KernelModel *, std::optional<Analysis>> &Locals,
           std::map<const KernelModel *, Analysis *> &As) {
    auto It = As.find(&K);
    if (It != As.end())
      return *It->second;
    Analysis &A = checkContext(M, K, Opts, Locals[&K]);
    As[&K] = &A;
    return A;
  }

  void checkBuffer(const ModuleModel &M, const CheckOptions &Opts,
                   const std::string &Key, const std::vector<CallSite> &Calls,
                   const std::vector<Access> &Ws, const std::vector<Access> &Rs,
                   std::vector<Finding> &Out) const {
    std::map<const KernelModel *, std::optional<Analysis>> Locals;
    std::map<const KernelModel *, Analysis *> As;
    // Small world sizes keep the enumeration short; the smallest failing
    // one is reported.
    std::vector<unsigned> Sizes;
    for (unsigned W : Opts.WorldSizes)
      if (W >= 2 && W <= 4)
        Sizes.push_back(W);
    std::sort(Sizes.begin(), Sizes.end());
    // Written bytes per (count argument, W, owner), computed once.
    std::map<std::tuple<std::string, unsigned, int64_t>,
             std::optional<std::vector<Interval>>>
        Cache;
    const std::set<std::string> Dropped = commonAddends(Calls, Ws, Rs);
    // The reads that report() may show, per call: under a case split, any
    // of them may show it in the cases after the first.
    std::map<size_t, std::vector<Access>> Reportable;
    std::map<size_t, CountArg> Counts;
    for (const Access &Rd : Rs) {
      const CallSite &C = Calls[Rd.Call];
      std::optional<CountArg> Count = countParam(C);
      if (!Count)
        continue;
      Analysis &A = analysis(M, Opts, *C.K, Locals, As);
      if (!A.isFlagAccess(Rd.Ev) && reportable(A, C, Rd, *Count, Dropped)) {
        Reportable[Rd.Call].push_back(Rd);
        Counts.emplace(Rd.Call, *Count);
      }
    }
    for (const auto &[Call, Reads] : Reportable) {
      const CallSite &C = Calls[Call];
      Analysis &A = analysis(M, Opts, *C.K, Locals, As);
      std::vector<ExprRef> Es;
      for (const Access &Rd : Reads) {
        std::vector<ExprRef> X = A.eventExprs(Rd.Ev);
        Es.insert(Es.end(), X.begin(), X.end());
      }
      std::optional<std::vector<std::string>> Conds =
          A.unknownConditions(Es, MaxSplit);
      if (!Conds)
        continue;
      ReadSet Set{C, Reads, caseSplit(*Conds), Dropped, Counts.at(Call)};
      for (const Access &Rd : Reads)
        for (unsigned W : Sizes) {
          // A multiple of W and of 16, so that chunk and vector
          // divisibility that a host may require holds.
          int64_t N = 16 * int64_t(W);
          // Owner 0, and at W = 2 both owners (a root-only reader).
          std::vector<int64_t> Owners = {0};
          if (W == 2)
            Owners.push_back(1);
          for (int64_t Q : Owners) {
            auto Slot = std::make_tuple(Set.Count.Text, W, Q);
            if (!Cache.count(Slot))
              Cache[Slot] = written(M, Opts, Calls, Ws, Locals, As, W, Q,
                                    Set.Count, N, Dropped);
            const std::optional<std::vector<Interval>> &Cov = Cache[Slot];
            if (!Cov)
              return;
            if (report(A, Set, Rd, Key, *Cov, W, Q, N, Ws, Calls, Out))
              return;
          }
        }
    }
  }

  /// True when some launch of \p A comes from a visible launch site: then
  /// report() solves under those launches only, else under the
  /// representative ones, each of which must show the read.
  static bool anyFromSite(Analysis &A) {
    const std::vector<LaunchDims> &Ls = A.launches();
    return std::any_of(Ls.begin(), Ls.end(),
                       [](const LaunchDims &L) { return L.FromSite; });
  }

  /// The reads of one kernel call that report() may show, the cases of
  /// the split over their unknown conditions (one empty case when there
  /// are none), the byte-offset addends left out and the call's count.
  struct ReadSet {
    const CallSite &C;
    const std::vector<Access> &Reads;
    std::vector<std::map<std::string, bool>> Cases;
    const std::set<std::string> &Dropped;
    CountArg Count;
  };

  /// A read of rank \p Q's copy outside \p Cov at world size \p W and
  /// count \p N that holds exactly: agent 1 reads through \p Rd under the
  /// first case of \p S; under each further case k, agent k + 1, one thread
  /// with agent 1 (Analysis::oneThread()), reads such a byte through any
  /// read of \p S. Whichever way the conditions go for that thread, it
  /// reads a byte that no write covers. nullopt when there is none.
  static std::optional<Outcome> uncoveredRead(Analysis &A, const ReadSet &S,
                                              const Access &Rd,
                                              const std::vector<Interval> &Cov,
                                              unsigned W, int64_t Q,
                                              int64_t N) {
    auto Outside = [&](const z3::expr &B) {
      z3::expr U = A.Z.bool_val(true);
      for (const Interval &I : Cov)
        U = U && !(B >= A.Z.int_val(I.first) && B < A.Z.int_val(I.second));
      return U;
    };
    // The read of \p X by agent \p Ag at byte \p B.
    // Agent \p Ag reads byte \p B of rank Q's copy through \p X; \p Lo, when
    // given, receives the read's first byte.
    auto Reads = [&](const Access &X, int Ag, const z3::expr &B,
                     Encoded *Lo = nullptr) {
      Analysis::Range R = A.range(X.Ev, Ag);
      if (Lo)
        *Lo = R.Lo;
      return A.exec(X.Ev, Ag) && R.Owner == A.Z.int_val(Q) && B >= R.Lo &&
             B < R.Hi && R.Lo >= 0;
    };
    std::vector<size_t> Events;
    for (const Access &X : S.Reads)
      Events.push_back(X.Ev);
    WitnessSpec Wit;
    Encoded F(A.Z.bool_val(true));
    {
      ExactValues Exact(A, S.Cases[0], S.Dropped);
      z3::expr B = A.var("part004.byte", 1);
      Encoded Lo(A.Z.int_val(0));
      F = Reads(Rd, 1, B, &Lo) && Outside(B);
      Wit = A.agentWitness({1});
      Wit.push_back({"byte", Lo});
    }
    for (size_t K = 1; K < S.Cases.size(); ++K) {
      const int Ag = int(K) + 1;
      ExactValues Exact(A, S.Cases[K], S.Dropped);
      z3::expr B = A.var("part004.byte", Ag);
      Encoded Any(A.Z.bool_val(false));
      for (const Access &X : S.Reads)
        Any = Any || Reads(X, Ag, B);
      F = F && Any && Outside(B) && A.oneThread(1, Ag, Events);
    }
    if (F.Approx)
      return std::nullopt;
    const bool AnyFromSite = anyFromSite(A);
    Outcome Found;
    for (LaunchDims L : A.launches()) {
      if (AnyFromSite && !L.FromSite)
        continue;
      for (const auto &[V, X] : countBinds(S.C, S.Count, N))
        L.Bind[V] = X;
      if (mentionsFreeParam(A, Rd.Ev, L, S.Dropped))
        return std::nullopt;
      Outcome O = A.solve(F, Wit, {W}, &L);
      bool Exact = O.sat() && !O.Approx && O.Unbound.empty();
      // Representative launches stand for an unknown grid: the read must
      // be outside the writes under each of them.
      if (!AnyFromSite && !Exact)
        return std::nullopt;
      if (Exact && !Found.sat())
        Found = O;
      if (AnyFromSite && Exact)
        break;
    }
    if (!Found.sat())
      return std::nullopt;
    return Found;
  }

  /// False when report() would decline the read \p Rd whatever the written
  /// bytes: its range is approximated, or under the first launch report()
  /// solves for, an expression of the read mentions a parameter that
  /// neither the launch nor the count \p Count fixes (outside the addends
  /// \p Dropped). Such a read needs no enumeration of the writes (on
  /// c27_moe_combine_peerview.cu that enumeration reaches its cap of 512
  /// instances and costs 1.5 s).
  static bool reportable(Analysis &A, const CallSite &C, const Access &Rd,
                         const CountArg &Count,
                         const std::set<std::string> &Dropped) {
    std::optional<std::vector<std::string>> Conds =
        A.unknownConditions(A.eventExprs(Rd.Ev), MaxSplit);
    if (!Conds)
      return false;
    for (std::map<std::string, bool> &Case : caseSplit(*Conds)) {
      ExactValues Exact(A, std::move(Case), Dropped);
      Analysis::Range R = A.range(Rd.Ev, 1);
      if (A.exec(Rd.Ev, 1).Approx || R.Owner.Approx || R.Lo.Approx ||
          R.Hi.Approx)
        return false;
    }
    const bool AnyFromSite = anyFromSite(A);
    for (LaunchDims L : A.launches()) {
      if (AnyFromSite && !L.FromSite)
        continue;
      for (const auto &[V, X] : countBinds(C, Count, 0))
        L.Bind[V] = X;
      return !mentionsFreeParam(A, Rd.Ev, L, Dropped);
    }
    return true;
  }

  /// ", whichever way `C` goes for that thread" for the conditions C of
  /// \p S's case split; empty without one.
  static std::string splitNote(const ReadSet &S) {
    if (S.Cases.size() < 2)
      return {};
    std::vector<std::string> Cs;
    for (const auto &[C, V] : S.Cases[0])
      Cs.push_back("`" + C + "`");
    return fmt::format(", whichever way {} go{} for that thread",
                       fmt::join(Cs, " and "), Cs.size() == 1 ? "es" : "");
  }

  /// Asks for a read \p Rd of rank \p Q's copy outside \p Cov at world
  /// size \p W and count \p N (uncoveredRead(): with the exact values of
  /// locals, in every case of a split over the conditions that read locals
  /// without one, such as a vector path taken only for aligned pointers);
  /// reports it when it holds exactly.
  bool report(Analysis &A, const ReadSet &S, const Access &Rd,
              const std::string &Key, const std::vector<Interval> &Cov,
              unsigned W, int64_t Q, int64_t N, const std::vector<Access> &Ws,
              const std::vector<CallSite> &Calls,
              std::vector<Finding> &Out) const {
    std::optional<Outcome> O = uncoveredRead(A, S, Rd, Cov, W, Q, N);
    if (!O)
      return false;
    Outcome Found = std::move(*O);
    const Event &E = S.C.K->Events[Rd.Ev];
    const std::set<std::string> &Dropped = S.Dropped;
    const CountArg &Count = S.Count;
    Finding F2 = makeFinding(
        info().Id, *S.C.K, E.Loc,
        "rank " + Found.Witness["r1"] + " (block " + Found.Witness["b1"] +
            ", thread " + Found.Witness["t1"] + ") reads the " +
            std::to_string(E.Width) + "-byte element at byte " +
            Found.Witness["byte"] + " of rank " + std::to_string(Q) +
            "'s copy of " + Key + " (" + E.Addr.Base + "), which no rank " +
            (Dropped.empty()
                 ? std::string("writes in any call")
                 : "writes in the same call (offsets relative to " +
                       fmt::format("{}", fmt::join(Dropped, ", ")) + ")") +
            " (W = " + std::to_string(W) + ", " + Count.Var.substr(6) + " = " +
            std::to_string(N) + ")" + splitNote(S) +
            ": the slot read for a sender is not the slot the sender wrote",
        "make the reader's slot for sender p the slot p writes into (index "
        "the destination by the sender's rank, the source by the peer's)");
    F2.Witness["owner"] = std::to_string(Q);
    F2.Witness["n"] = std::to_string(N);
    relate(F2, "read", E);
    std::set<unsigned> Lines;
    for (const Access &X : Ws) {
      const Event &WE = Calls[X.Call].K->Events[X.Ev];
      if (Lines.insert(WE.Loc.Line).second)
        relate(F2, "write", WE);
    }
    applyOutcome(F2, Found);
    emit(Out, std::move(F2));
    return true;
  }
};

} // namespace

std::unique_ptr<Checker> makePart004() { return std::make_unique<Part004>(); }

} // namespace pkb::chk
