//===- Enrich.cpp - Model-enrichment pass ---------------------------------===//
//
// See pkb/Enrich.h and docs/model-schema.md ("Facts"). Every rule here reads
// the model only: event kinds, addresses, orders, values, parameter roles and
// the launch sites' host callers.
//
//===----------------------------------------------------------------------===//
#include "pkb/Enrich.h"

#include <algorithm>
#include <map>
#include <set>

namespace pkb {
namespace {

bool viaPeer(const Event &E) {
  return E.Addr.Peer || E.Addr.Space == AddrSpace::Peer;
}

bool isConst(const ExprRef &E, int64_t V) {
  return E && E->Op == ExprOp::Const && E->Value == V;
}

/// \p E with the variables of \p Fixed replaced by their values, and the
/// sums, differences, products and comparisons that this makes constant or
/// trivial (x + 0, x * 1, x * 0) folded. Other operations are rebuilt as
/// they are.
ExprRef fixVars(const ExprRef &E, const std::map<std::string, int64_t> &Fixed) {
  if (!E)
    return E;
  if (E->Op == ExprOp::Var) {
    auto It = Fixed.find(E->Name);
    return It == Fixed.end() ? E : Expr::constant(It->second);
  }
  if (E->Ops.empty())
    return E;
  std::vector<ExprRef> Ops;
  bool Changed = false;
  for (const ExprRef &O : E->Ops) {
    Ops.push_back(fixVars(O, Fixed));
    Changed = Changed || Ops.back() != O;
  }
  if (!Changed)
    return E;
  if (Ops.size() == 2 && Ops[0] && Ops[1]) {
    const ExprRef &A = Ops[0], &B = Ops[1];
    bool BothConst = A->Op == ExprOp::Const && B->Op == ExprOp::Const;
    int64_t X = A->Value, Y = B->Value;
    switch (E->Op) {
    case ExprOp::Add:
      if (BothConst)
        return Expr::constant(X + Y);
      if (isConst(A, 0))
        return B;
      if (isConst(B, 0))
        return A;
      break;
    case ExprOp::Sub:
      if (BothConst)
        return Expr::constant(X - Y);
      if (isConst(B, 0))
        return A;
      break;
    case ExprOp::Mul:
      if (BothConst)
        return Expr::constant(X * Y);
      if (isConst(A, 0) || isConst(B, 0))
        return Expr::constant(0);
      if (isConst(A, 1))
        return B;
      if (isConst(B, 1))
        return A;
      break;
    case ExprOp::Eq:
    case ExprOp::Ne:
    case ExprOp::Lt:
    case ExprOp::Le:
    case ExprOp::Gt:
    case ExprOp::Ge:
      if (BothConst) {
        bool R = E->Op == ExprOp::Eq   ? X == Y
                 : E->Op == ExprOp::Ne ? X != Y
                 : E->Op == ExprOp::Lt ? X < Y
                 : E->Op == ExprOp::Le ? X <= Y
                 : E->Op == ExprOp::Gt ? X > Y
                                       : X >= Y;
        return Expr::constant(R ? 1 : 0);
      }
      break;
    default:
      break;
    }
  }
  auto N = std::make_shared<Expr>(*E);
  N->Ops = std::move(Ops);
  return N;
}

/// Launch-site specialization of the launch shape (issue 10 item 2): when
/// every visible launch of \p K has blockDim.y = blockDim.z = 1 (gridDim.y
/// = gridDim.z = 1), the thread (block) coordinates y and z are 0 and the
/// dimensions 1 in every expression of the kernel, so that
/// `cg::this_thread_block().thread_rank()` reads `tid.x` and its `size()`
/// `bdim.x`, the shape of a one-dimensional block- or grid-stride loop.
/// The engine already takes the visible launches as the only ones
/// (docs/checkers.md, "Launches"). Sets Facts.Block1D / Facts.Grid1D.
void specializeLaunchShape(KernelModel &K) {
  if (K.Launches.empty())
    return;
  bool Block1D = true, Grid1D = true;
  for (const LaunchSite &L : K.Launches) {
    Block1D = Block1D && isConst(L.BlockY, 1) && isConst(L.BlockZ, 1);
    Grid1D = Grid1D && isConst(L.GridY, 1) && isConst(L.GridZ, 1);
  }
  std::map<std::string, int64_t> Fixed;
  if (Block1D)
    Fixed.insert({{"tid.y", 0}, {"tid.z", 0}, {"bdim.y", 1}, {"bdim.z", 1}});
  if (Grid1D)
    Fixed.insert({{"bid.y", 0}, {"bid.z", 0}, {"gdim.y", 1}, {"gdim.z", 1}});
  K.Facts.Block1D = Block1D;
  K.Facts.Grid1D = Grid1D;
  if (Fixed.empty())
    return;
  auto FixAddr = [&](Address &A) {
    A.Peer = fixVars(A.Peer, Fixed);
    A.Index = fixVars(A.Index, Fixed);
    A.ByteOffset = fixVars(A.ByteOffset, Fixed);
  };
  for (Event &E : K.Events) {
    FixAddr(E.Addr);
    E.Value = fixVars(E.Value, Fixed);
    E.ExitCond = fixVars(E.ExitCond, Fixed);
    E.BarrierId = fixVars(E.BarrierId, Fixed);
    E.BarrierThreads = fixVars(E.BarrierThreads, Fixed);
    for (ExprRef &G : E.Guard)
      G = fixVars(G, Fixed);
    if (E.CopyOf) {
      Address C = *E.CopyOf;
      FixAddr(C);
      E.CopyOf = std::make_shared<const Address>(std::move(C));
    }
  }
  for (Loop &L : K.Loops) {
    L.Init = fixVars(L.Init, Fixed);
    L.Bound = fixVars(L.Bound, Fixed);
    L.Step = fixVars(L.Step, Fixed);
  }
  for (auto &[Name, V] : K.LocalDefs)
    V = fixVars(V, Fixed);
}

/// Classification of one kernel's events (docs/checkers.md, "Flags").
class KernelEnricher {
public:
  explicit KernelEnricher(KernelModel &K) : K(K), F(K.Facts) {}

  void run() {
    F = KernelFacts();
    specializeLaunchShape(K);
    for (Event &E : K.Events) {
      E.Rmw = parseRmwOp(E.AtomicOp);
      E.Cmp = parseCmpOp(E.CompareOp);
    }
    classifyBases();
    for (size_t I = 0; I < K.Events.size(); ++I) {
      if (isSignal(I))
        F.Signals.push_back(I);
      if (K.Events[I].Kind == EventKind::SpinWait)
        F.Waits.push_back(I);
    }
    for (const std::string &B : Flags)
      if (crossRank(B))
        F.CrossRankFlags.push_back(B);
    for (size_t W : F.Waits)
      if (softGridBarrier(W))
        F.SoftGridBarriers.push_back(W);
    pairRmws();
    inferEpochs();
    F.FlagBases.assign(Flags.begin(), Flags.end());
    F.SymBases.assign(Sym.begin(), Sym.end());
    F.Done = true;
  }

private:
  /// Flag bases: polled by a spin wait or a pad role. Symmetric bases: a
  /// non-flag base reached through a peer pointer, or a PeerTable role.
  void classifyBases() {
    for (const Event &E : K.Events)
      if (E.Kind == EventKind::SpinWait && !E.Addr.Base.empty())
        Flags.insert(E.Addr.Base);
    for (const Param &P : K.Params)
      if (P.Role == ParamRole::SignalPad || P.Role == ParamRole::SignalPadTable)
        Flags.insert(P.Name);
    for (const Event &E : K.Events)
      if (accessesMemory(E.Kind) && !E.Addr.Base.empty() && viaPeer(E) &&
          !Flags.count(E.Addr.Base))
        Sym.insert(E.Addr.Base);
    for (const Param &P : K.Params)
      if (P.Role == ParamRole::PeerTable && !Flags.count(P.Name))
        Sym.insert(P.Name);
  }

  /// A write to a flag base outside shared memory. A compare-and-swap or
  /// exchange with acquire-only order consumes a flag (the waiting side of
  /// a CAS handshake) and does not signal.
  bool isSignal(size_t I) const {
    const Event &E = K.Events[I];
    if (E.Kind == EventKind::Atomic &&
        (E.Rmw == RmwOp::Cas || E.Rmw == RmwOp::Exch) &&
        E.Order == MemOrder::Acquire)
      return false;
    return writesMemory(E.Kind) && E.Kind != EventKind::BulkCopy &&
           Flags.count(E.Addr.Base) && !K.isSharedAccess(E);
  }

  /// Other ranks write or read the flag: some access goes through a peer or
  /// multicast pointer, or its parameter is a table/multicast, or it is this
  /// rank's own pad (SignalPad) and the kernel never writes it locally (a
  /// locally updated pad is a counter of this GPU's blocks).
  bool crossRank(const std::string &Base) const {
    bool LocalWrite = false;
    for (const Event &E : K.Events) {
      if (!accessesMemory(E.Kind) || E.Addr.Base != Base)
        continue;
      if (viaPeer(E) || E.Addr.Space == AddrSpace::Multicast)
        return true;
      if (writesMemory(E.Kind))
        LocalWrite = true;
    }
    if (const Param *P = K.paramOf(Base)) {
      if (P->Role == ParamRole::SignalPadTable ||
          P->Role == ParamRole::PeerTable || P->Role == ParamRole::Multicast)
        return true;
      if (P->Role == ParamRole::SignalPad)
        return !LocalWrite;
    }
    return false;
  }

  /// A spin wait on a flag of this GPU that the kernel itself signals: the
  /// blocks wait for each other, a software grid barrier.
  bool softGridBarrier(size_t W) const {
    const std::string &Base = K.Events[W].Addr.Base;
    if (std::find(F.CrossRankFlags.begin(), F.CrossRankFlags.end(), Base) !=
        F.CrossRankFlags.end())
      return false;
    for (size_t S : F.Signals)
      if (K.Events[S].Addr.Base == Base)
        return true;
    return false;
  }

  /// Each store the front end marked as the write half of a plain RMW is
  /// paired with the closest earlier load of the same address.
  void pairRmws() {
    for (size_t S = 0; S < K.Events.size(); ++S) {
      const Event &St = K.Events[S];
      if (St.Kind != EventKind::Store || !St.RmwStore)
        continue;
      for (size_t L = S; L-- > 0;)
        if (K.Events[L].Kind == EventKind::Load &&
            sameAddress(K.Events[L].Addr, St.Addr)) {
          F.RmwPairs.push_back({L, S});
          break;
        }
    }
  }

  /// A scalar parameter whose value flows into a signalled value or into
  /// the target of a wait on a flag carries the call epoch: the host passes
  /// a counter so that waits of call k+1 do not see the signals of call k.
  void inferEpochs() {
    for (Param &P : K.Params) {
      if (P.Role != ParamRole::Scalar && P.Role != ParamRole::Unknown &&
          P.Role != ParamRole::Epoch)
        continue;
      const std::string V = "param:" + P.Name;
      bool Flows = false;
      for (size_t S : F.Signals)
        Flows |= K.Events[S].Value && K.Events[S].Value->mentions(V);
      for (size_t W : F.Waits)
        Flows |= (K.Events[W].Value && K.Events[W].Value->mentions(V)) ||
                 (K.Events[W].ExitCond && K.Events[W].ExitCond->mentions(V));
      if (Flows) {
        P.Role = ParamRole::Epoch;
        P.Why = "flows into a signalled value or a wait target";
      }
    }
  }

  KernelModel &K;
  KernelFacts &F;
  std::set<std::string> Flags, Sym;
};

} // namespace

void enrichKernel(KernelModel &K) {
  if (!K.Facts.Done)
    KernelEnricher(K).run();
}

void enrich(ModuleModel &M) {
  for (KernelModel &K : M.Kernels)
    enrichKernel(K);
  for (HostOp &Op : M.HostOps) {
    // Launches in C++ host code name their kernel already (front end).
    if (Op.Kind != HostOp::KernelCall || !Op.Kernels.empty())
      continue;
    std::string Fn = Op.Callee.substr(Op.Callee.rfind('.') + 1);
    Op.Kernels.clear();
    for (const KernelModel &K : M.Kernels)
      for (const LaunchSite &L : K.Launches)
        if (std::find(L.HostCallers.begin(), L.HostCallers.end(), Fn) !=
                L.HostCallers.end() &&
            std::find(Op.Kernels.begin(), Op.Kernels.end(), K.Name) ==
                Op.Kernels.end())
          Op.Kernels.push_back(K.Name);
    if (Op.Kernels.empty())
      for (const KernelModel &K : M.Kernels)
        Op.Kernels.push_back(K.Name);
  }
}

} // namespace pkb
