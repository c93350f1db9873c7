//===- Enrich.cpp - Model-enrichment pass ---------------------------------===//
//
// See pkb/Enrich.h and docs/model-schema.md ("Facts"). Every rule here reads
// the model only: event kinds, addresses, orders, values, parameter roles and
// the launch sites' host callers.
//
//===----------------------------------------------------------------------===//
#include "pkb/Enrich.h"

#include <algorithm>
#include <set>

namespace pkb {
namespace {

bool viaPeer(const Event &E) {
  return E.Addr.Peer || E.Addr.Space == AddrSpace::Peer;
}

/// Classification of one kernel's events (docs/checkers.md, "Flags").
class KernelEnricher {
public:
  explicit KernelEnricher(KernelModel &K) : K(K), F(K.Facts) {}

  void run() {
    F = KernelFacts();
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
