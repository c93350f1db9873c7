//===- CheckerTestUtil.h - Shared helpers of the checker tests --*- C++ -*-===//
//
// Runs every checker on a hand-built model and compares findings by (line,
// check ID); the shared models (one-shot all-reduce, a single barrier, a
// host launch sequence) used by the per-checker test files.
//
//===----------------------------------------------------------------------===//
#ifndef PKB_TESTS_CHECKERS_CHECKERTESTUTIL_H
#define PKB_TESTS_CHECKERS_CHECKERTESTUTIL_H

#include "ModelDsl.h"

#include <gtest/gtest.h>

#include <set>

namespace pkb::cktest {

using namespace pkb::dsl;

inline std::vector<Finding> runAll(const ModuleModel &M,
                                   const CheckOptions &O = {}) {
  std::vector<Finding> Out;
  std::vector<Diagnostic> Diags;
  for (const auto &C : allCheckers())
    C->check(M, O, Out, Diags);
  return Out;
}

/// Findings of the checker \p Id alone on \p M (for tests whose models make
/// the other checkers' queries slow and beside the point); fails the test on
/// any diagnostic.
inline std::vector<Finding> runOne(const ModuleModel &M, const std::string &Id,
                                   const CheckOptions &O = {}) {
  std::vector<Finding> Out;
  std::vector<Diagnostic> Diags;
  for (const auto &C : allCheckers())
    if (C->info().Id == Id)
      C->check(M, O, Out, Diags);
  EXPECT_TRUE(Diags.empty());
  return Out;
}

/// The findings of check \p Id in \p F as (line, severity) pairs.
inline std::set<std::pair<unsigned, Severity>>
linesOf(const std::vector<Finding> &F, const std::string &Id) {
  std::set<std::pair<unsigned, Severity>> S;
  for (const Finding &X : F)
    if (X.CheckId == Id)
      S.insert({X.Loc.Line, X.Sev});
  return S;
}

using Key = std::pair<unsigned, std::string>;

inline std::set<Key> keys(const std::vector<Finding> &F) {
  std::set<Key> S;
  for (const Finding &X : F)
    if (X.Sev != Severity::Note)
      S.insert({X.Loc.Line, X.CheckId});
  return S;
}

inline std::string dump(const std::vector<Finding> &F) {
  std::string S;
  for (const Finding &X : F) {
    S += X.CheckId + "@" + std::to_string(X.Loc.Line) + " [" + toString(X.Sev) +
         "] " + X.Message + " {";
    for (const auto &[K, V] : X.Witness)
      S += K + "=" + V + " ";
    S += "}\n";
  }
  return S;
}

inline const Finding *find(const std::vector<Finding> &F,
                           const std::string &Id) {
  for (const Finding &X : F)
    if (X.CheckId == Id)
      return &X;
  return nullptr;
}

/// The reading phase shared by the barrier models: every thread sums the
/// peers' bufs into out. Lines: 31 peer load, 32 out store.
inline void sumPeers(KB &K) {
  unsigned J = K.beginLoop(gtid(), v("param:n"), stride());
  unsigned P = K.beginLoop(c(0), W(), c(1), "p");
  K.load(31, addr("bufs", K.lv(P), K.lv(J)));
  K.endLoop();
  K.store(32, addr("out", nullptr, K.lv(J)));
  K.endLoop();
}

struct Variant {
  bool Release1 = true, Acquire1 = true, Barrier2 = true, Sync1 = true;
  MemOrder SigOrder = MemOrder::Release;
  Scope SigScope = Scope::System;
  MemOrder WaitOrder = MemOrder::Acquire;
  bool FenceAfterWait = false;
};

/// One-shot all-reduce: stage into bufs[rank], barrier, sum peers into out,
/// exit barrier. Lines: 11 stage store, 21 signal, 22 wait, 31 peer load,
/// 32 out store, 41/42 exit signal/wait.
inline KB allreduce(const Variant &V = {}) {
  KB K("allreduce");
  K.stdParams().launch(4, 256);
  unsigned I = K.beginLoop(gtid(), v("param:n"), stride());
  K.load(10, addr("in", nullptr, K.lv(I)));
  K.store(11, addr("bufs", rank(), K.lv(I)));
  K.endLoop();
  ExprRef E1 = c(2) * v("param:epoch");
  if (V.Sync1)
    K.sync(20);
  K.when(lt(tid(), W()));
  K.mem(EventKind::Store, 21, addr("pads", tid(), bid() * c(8) + rank()), 4,
        V.SigOrder, V.SigScope, E1);
  K.spin(22, addr("pads", rank(), bid() * c(8) + tid()), E1, V.WaitOrder);
  if (V.FenceAfterWait)
    K.fence(22);
  K.end();
  K.sync(23);
  sumPeers(K);
  if (V.Barrier2)
    K.barrier(40, E1 + c(1));
  return K;
}

/// A single barrier between staging and reading; the signal and wait are
/// configurable.
inline KB oneBarrier(unsigned SigWidth, ExprRef SigIndex, ExprRef WaitIndex,
                     ExprRef SigPeer = nullptr) {
  KB K("one_barrier");
  K.stdParams().launch(4, 256);
  ExprRef E1 = v("param:epoch");
  unsigned I = K.beginLoop(gtid(), v("param:n"), stride());
  K.store(11, addr("bufs", rank(), K.lv(I)));
  K.endLoop();
  K.sync(20);
  K.when(lt(tid(), W()));
  K.mem(EventKind::Store, 21, addr("pads", SigPeer ? SigPeer : tid(), SigIndex),
        SigWidth, MemOrder::Release, Scope::System, E1);
  K.spin(22, addr("pads", rank(), WaitIndex), E1);
  K.end();
  K.sync(23);
  sumPeers(K);
  K.barrier(40, E1 + c(1));
  return K;
}

/// The synchronization kernels of a candidate's host sequence, on a signal
/// pad table `pads` and an epoch parameter, one block of 8 threads each:
/// `barrierK` (signal every peer, wait for every peer, line 10), `signalK`
/// (signal only, line 20) and `waitK` (wait only, line 25).
inline std::vector<KernelModel> syncKernels() {
  KB B("barrierK");
  B.param("pads", ParamRole::SignalPadTable, 4)
      .param("epoch", ParamRole::Epoch)
      .launch(1, 8);
  B.barrier(10, v("param:epoch"));
  KB S("signalK");
  S.param("pads", ParamRole::SignalPadTable, 4)
      .param("epoch", ParamRole::Epoch)
      .launch(1, 8);
  S.when(lt(tid(), W()));
  S.mem(EventKind::Store, 20, addr("pads", tid(), c(8) + rank()), 4,
        MemOrder::Release, Scope::System, v("param:epoch"));
  S.end();
  KB Wt("waitK");
  Wt.param("pads", ParamRole::SignalPadTable, 4)
      .param("epoch", ParamRole::Epoch)
      .launch(1, 8);
  Wt.when(lt(tid(), W()));
  Wt.spin(25, addr("pads", rank(), c(8) + tid()), v("param:epoch"));
  Wt.end();
  return {B.K, S.K, Wt.K};
}

inline ModuleModel hostModule(bool BarrierBetween) {
  KB K("gather_kernel");
  K.stdParams().launch(4, 256);
  unsigned I = K.beginLoop(gtid(), v("param:n"), stride());
  unsigned P = K.beginLoop(c(0), W(), c(1), "p");
  K.load(31, addr("bufs", K.lv(P), K.lv(I)));
  K.endLoop();
  K.store(32, addr("out", nullptr, K.lv(I)));
  K.endLoop();
  ModuleModel M = K.module("solution.py");
  auto Op = [](HostOp::OpKind Kd, std::string Callee, unsigned Line) {
    HostOp H;
    H.Kind = Kd;
    H.Callee = std::move(Callee);
    H.Loc = {"solution.py", Line, 5};
    return H;
  };
  M.HostOps.push_back(Op(HostOp::SymmWrite, "buf.copy_", 50));
  M.HostOps.back().Target = "buf";
  if (BarrierBetween)
    M.HostOps.push_back(Op(HostOp::Barrier, "hdl.barrier", 51));
  M.HostOps.push_back(Op(HostOp::KernelCall, "ext.gather", 52));
  M.HostOps.push_back(Op(HostOp::Barrier, "hdl.barrier", 53));
  return M;
}

} // namespace pkb::cktest

#endif // PKB_TESTS_CHECKERS_CHECKERTESTUTIL_H
