//===- CheckerTest.cpp - Checkers on hand-built models --------------------===//
//
// For every check ID: a bad model that must produce exactly that finding
// (ID, line, severity, witness where meaningful) and nothing else, and a
// good model that produces none.
//
//===----------------------------------------------------------------------===//
#include "ModelDsl.h"

#include <gtest/gtest.h>

#include <set>

using namespace pkb;
using namespace pkb::dsl;

namespace {

std::vector<Finding> runAll(const ModuleModel &M, const CheckOptions &O = {}) {
  std::vector<Finding> Out;
  std::vector<Diagnostic> Diags;
  for (const auto &C : allCheckers())
    C->check(M, O, Out, Diags);
  return Out;
}

using Key = std::pair<unsigned, std::string>;

std::set<Key> keys(const std::vector<Finding> &F) {
  std::set<Key> S;
  for (const Finding &X : F)
    if (X.Sev != Severity::Note)
      S.insert({X.Loc.Line, X.CheckId});
  return S;
}

std::string dump(const std::vector<Finding> &F) {
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

const Finding *find(const std::vector<Finding> &F, const std::string &Id) {
  for (const Finding &X : F)
    if (X.CheckId == Id)
      return &X;
  return nullptr;
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
KB allreduce(const Variant &V = {}) {
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
  unsigned J = K.beginLoop(gtid(), v("param:n"), stride());
  unsigned P = K.beginLoop(c(0), W(), c(1), "p");
  K.load(31, addr("bufs", K.lv(P), K.lv(J)));
  K.endLoop();
  K.store(32, addr("out", nullptr, K.lv(J)));
  K.endLoop();
  if (V.Barrier2)
    K.barrier(40, E1 + c(1));
  return K;
}

TEST(Checkers, GoodAllReduceHasNoFindings) {
  auto F = runAll(allreduce().module());
  EXPECT_TRUE(F.empty()) << dump(F);
}

TEST(Checkers, Ord001MissingRelease) {
  Variant V;
  V.SigOrder = MemOrder::Volatile;
  auto F = runAll(allreduce(V).module());
  EXPECT_EQ(keys(F), (std::set<Key>{{21, "ORD-001"}})) << dump(F);
  const Finding *X = find(F, "ORD-001");
  ASSERT_TRUE(X);
  EXPECT_EQ(X->Sev, Severity::Error);
  ASSERT_EQ(X->Related.size(), 2u);
  EXPECT_EQ(X->Related[0].Role, "write");
  EXPECT_EQ(X->Related[0].Loc.Line, 11u);
  EXPECT_EQ(X->Related[1].Role, "signal");
  EXPECT_EQ(X->Witness.at("W"), "2");
}

TEST(Checkers, Ord001FenceBeforeRelaxedSignalIsFine) {
  Variant V;
  V.SigOrder = MemOrder::Relaxed;
  KB K = allreduce(V);
  // Insert a system fence right before the signal.
  Event Fe;
  Fe.Kind = EventKind::Fence;
  Fe.Order = MemOrder::SeqCst;
  Fe.Scp = Scope::System;
  Fe.Loc = {"test.cu", 21, 1};
  for (size_t I = 0; I < K.K.Events.size(); ++I)
    if (K.K.Events[I].Loc.Line == 21) {
      K.K.Events.insert(K.K.Events.begin() + I, Fe);
      break;
    }
  auto F = runAll(K.module());
  EXPECT_TRUE(F.empty()) << dump(F);
}

TEST(Checkers, Ord002MissingAcquire) {
  Variant V;
  V.WaitOrder = MemOrder::Volatile;
  auto F = runAll(allreduce(V).module());
  EXPECT_EQ(keys(F), (std::set<Key>{{31, "ORD-002"}})) << dump(F);
  const Finding *X = find(F, "ORD-002");
  ASSERT_TRUE(X);
  EXPECT_EQ(X->Sev, Severity::Error);
  EXPECT_EQ(X->Related[0].Role, "wait");
  EXPECT_EQ(X->Related[0].Loc.Line, 22u);
}

TEST(Checkers, Ord002FenceAfterVolatileWaitIsFine) {
  Variant V;
  V.WaitOrder = MemOrder::Volatile;
  V.FenceAfterWait = true;
  auto F = runAll(allreduce(V).module());
  EXPECT_TRUE(F.empty()) << dump(F);
}

TEST(Checkers, Ord003GpuScopeRelease) {
  Variant V;
  V.SigScope = Scope::GPU;
  auto F = runAll(allreduce(V).module());
  EXPECT_EQ(keys(F), (std::set<Key>{{21, "ORD-003"}})) << dump(F);
}

TEST(Checkers, Ord003ThreadfenceBeforeVolatileSignal) {
  Variant V;
  V.SigOrder = MemOrder::Volatile;
  KB K = allreduce(V);
  Event Fe;
  Fe.Kind = EventKind::Fence;
  Fe.Order = MemOrder::SeqCst;
  Fe.Scp = Scope::GPU;
  Fe.Loc = {"test.cu", 19, 1};
  for (size_t I = 0; I < K.K.Events.size(); ++I)
    if (K.K.Events[I].Loc.Line == 20) {
      K.K.Events.insert(K.K.Events.begin() + I, Fe);
      break;
    }
  auto F = runAll(K.module());
  EXPECT_EQ(keys(F), (std::set<Key>{{19, "ORD-003"}})) << dump(F);
}

TEST(Checkers, Ord004PlainSpin) {
  Variant V;
  V.WaitOrder = MemOrder::Plain;
  V.FenceAfterWait = true;
  auto F = runAll(allreduce(V).module());
  EXPECT_EQ(keys(F), (std::set<Key>{{22, "ORD-004"}})) << dump(F);
}

/// A single barrier between staging and reading; the signal and wait are
/// configurable.
KB oneBarrier(unsigned SigWidth, ExprRef SigIndex, ExprRef WaitIndex,
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
  unsigned J = K.beginLoop(gtid(), v("param:n"), stride());
  unsigned P = K.beginLoop(c(0), W(), c(1), "p");
  K.load(31, addr("bufs", K.lv(P), K.lv(J)));
  K.endLoop();
  K.store(32, addr("out", nullptr, K.lv(J)));
  K.endLoop();
  K.barrier(40, E1 + c(1));
  return K;
}

TEST(Checkers, Ord005MixedSize) {
  // 16-bit signal into a 32-bit flag polled with a 32-bit load.
  KB K = oneBarrier(2, (bid() * c(8) + rank()) * c(2), bid() * c(8) + tid());
  auto F = runAll(K.module());
  EXPECT_EQ(keys(F), (std::set<Key>{{22, "ORD-005"}, {42, "ORD-005"}}))
      << dump(F);
  KB G = oneBarrier(4, bid() * c(8) + rank(), bid() * c(8) + tid());
  auto FG = runAll(G.module());
  EXPECT_TRUE(FG.empty()) << dump(FG);
}

TEST(Checkers, Sig001Collision) {
  // Slot = block only: all senders share it.
  KB K = oneBarrier(4, bid(), bid());
  auto F = runAll(K.module());
  EXPECT_EQ(keys(F), (std::set<Key>{{21, "SIG-001"}})) << dump(F);
  const Finding *X = find(F, "SIG-001");
  ASSERT_TRUE(X);
  EXPECT_EQ(X->Witness.at("W"), "2");
  EXPECT_NE(X->Witness.at("r1"), X->Witness.at("r2"));
}

TEST(Checkers, Sig001OutOfPad) {
  // 16 blocks, slot = 2048 + block * 8 + rank words: past the 2048-byte
  // torch pad of a Python input.
  KB K = oneBarrier(4, c(500) + bid() * c(8) + rank(),
                    c(500) + bid() * c(8) + tid());
  K.K.Launches.clear();
  K.launch(16, 256);
  auto F = runAll(K.module("test.py"));
  EXPECT_EQ(keys(F), (std::set<Key>{{21, "SIG-001"}})) << dump(F);
  auto FG = runAll(K.module("test.cu"));
  EXPECT_TRUE(FG.empty()) << dump(FG);
}

TEST(Checkers, Sig002FixedFlagValue) {
  KB K("fixed_flag");
  K.stdParams().launch(1, 256);
  K.sync(20);
  K.when(lt(tid(), W()));
  K.mem(EventKind::Store, 21, addr("pads", tid(), rank()), 4, MemOrder::Release,
        Scope::System, c(1));
  K.spin(22, addr("pads", rank(), tid()), c(1), MemOrder::Acquire,
         Scope::System, "==");
  K.end();
  K.sync(23);
  auto F = runAll(K.module());
  EXPECT_EQ(keys(F), (std::set<Key>{{22, "SIG-002"}})) << dump(F);
  // With a reset and nothing after it, the reset races the next signal.
  KB R = K;
  R.when(lt(tid(), W()));
  R.mem(EventKind::Store, 24, addr("pads", rank(), tid()), 4, MemOrder::Relaxed,
        Scope::System, c(0));
  R.end();
  auto FR = runAll(R.module());
  EXPECT_EQ(keys(FR), (std::set<Key>{{22, "SIG-002"}})) << dump(FR);
  // An epoch makes it correct.
  KB G("epoch_flag");
  G.stdParams().launch(1, 256);
  G.sync(20);
  G.when(lt(tid(), W()));
  G.mem(EventKind::Store, 21, addr("pads", tid(), rank()), 4, MemOrder::Release,
        Scope::System, v("param:epoch"));
  G.spin(22, addr("pads", rank(), tid()), v("param:epoch"));
  G.end();
  G.sync(23);
  auto FG = runAll(G.module());
  EXPECT_TRUE(FG.empty()) << dump(FG);
}

TEST(Checkers, Bar001DivergentSyncthreads) {
  KB K("divergent");
  K.stdParams().launch(4, 256);
  K.param("tile", ParamRole::Unknown);
  K.K.SharedVars.push_back({"tile", 4});
  K.when(lt(gtid(), v("param:n")));
  K.store(10, addr("tile", nullptr, tid(), AddrSpace::Shared));
  K.sync(11);
  K.load(12, addr("tile", nullptr, c(255) - tid(), AddrSpace::Shared));
  K.end();
  auto F = runAll(K.module());
  EXPECT_EQ(keys(F), (std::set<Key>{{11, "BAR-001"}})) << dump(F);
  const Finding *X = find(F, "BAR-001");
  ASSERT_TRUE(X);
  EXPECT_EQ(X->Witness.at("b1"), X->Witness.at("b2"));
  // Uniform guard: fine.
  KB G("uniform");
  G.stdParams().launch(4, 256);
  G.K.SharedVars.push_back({"tile", 4});
  G.when(lt(c(0), v("param:n")));
  G.store(10, addr("tile", nullptr, tid(), AddrSpace::Shared));
  G.sync(11);
  G.load(12, addr("tile", nullptr, c(255) - tid(), AddrSpace::Shared));
  G.end();
  auto FG = runAll(G.module());
  EXPECT_TRUE(FG.empty()) << dump(FG);
}

TEST(Checkers, Bar001EarlyReturn) {
  KB K("early_return");
  K.stdParams().launch(4, 256);
  K.when(ge(tid(), c(128)));
  K.add(EventKind::Return, 9);
  K.end();
  K.sync(11);
  auto F = runAll(K.module());
  EXPECT_EQ(keys(F), (std::set<Key>{{11, "BAR-001"}})) << dump(F);
}

TEST(Checkers, Bar002UnmatchedWait) {
  // Pairwise exchange with rank ^ 1: the last rank of an odd W has no
  // partner, skips its signal, but still waits.
  KB K("pairs");
  K.stdParams().launch(4, 256);
  ExprRef Partner = xor_(rank(), c(1));
  K.when(eq(tid(), c(0)));
  K.when(lt(Partner, W()));
  K.mem(EventKind::Store, 21, addr("pads", Partner, bid()), 4,
        MemOrder::Release, Scope::System, v("param:epoch"));
  K.end();
  K.spin(22, addr("pads", rank(), bid()), v("param:epoch"));
  K.end();
  K.sync(23);
  auto F = runAll(K.module());
  EXPECT_EQ(keys(F), (std::set<Key>{{22, "BAR-002"}})) << dump(F);
  const Finding *X = find(F, "BAR-002");
  ASSERT_TRUE(X);
  EXPECT_EQ(X->Witness.at("W"), "3");
  EXPECT_EQ(X->Witness.at("r1"), "2");
  EXPECT_EQ(X->Sev, Severity::Error);
  // With the wait guarded as well, every wait is matched.
  KB G("pairs_ok");
  G.stdParams().launch(4, 256);
  G.when(eq(tid(), c(0)));
  G.when(lt(Partner, W()));
  G.mem(EventKind::Store, 21, addr("pads", Partner, bid()), 4,
        MemOrder::Release, Scope::System, v("param:epoch"));
  G.spin(22, addr("pads", rank(), bid()), v("param:epoch"));
  G.end();
  G.end();
  G.sync(23);
  auto FG = runAll(G.module());
  EXPECT_TRUE(FG.empty()) << dump(FG);
}

TEST(Checkers, Bar003SignalWithoutSyncthreads) {
  Variant V;
  V.Sync1 = false;
  auto F = runAll(allreduce(V).module());
  EXPECT_EQ(keys(F), (std::set<Key>{{21, "BAR-003"}})) << dump(F);
}

TEST(Checkers, Bar004MissingExitBarrier) {
  Variant V;
  V.Barrier2 = false;
  auto F = runAll(allreduce(V).module());
  EXPECT_EQ(keys(F), (std::set<Key>{{11, "BAR-004"}})) << dump(F);
  const Finding *X = find(F, "BAR-004");
  ASSERT_TRUE(X);
  EXPECT_NE(X->Witness.at("r1"), X->Witness.at("r2"));
}

KB spinBarrier() {
  KB K("grid_spin");
  K.param("counter", ParamRole::LocalBuffer, 4);
  K.when(eq(tid(), c(0)));
  Event &A = K.mem(EventKind::Atomic, 10, addr("counter", nullptr, c(0)), 4,
                   MemOrder::Release, Scope::GPU, c(1));
  A.AtomicOp = "add";
  K.spin(11, addr("counter", nullptr, c(0)), v("gdim.x"), MemOrder::Acquire,
         Scope::GPU);
  K.end();
  K.sync(12);
  return K;
}

TEST(Checkers, Bar005UnboundedSpinBarrier) {
  KB K = spinBarrier();
  LaunchSite L;
  L.Kernel = K.K.Name;
  L.GridX = (v("host:n") + c(255)) / c(256);
  L.BlockX = c(256);
  K.K.Launches.push_back(L);
  auto F = runAll(K.module());
  EXPECT_EQ(keys(F), (std::set<Key>{{11, "BAR-005"}})) << dump(F);
  EXPECT_EQ(find(F, "BAR-005")->Sev, Severity::Error);
  KB G = spinBarrier();
  L.Cooperative = true;
  G.K.Launches.push_back(L);
  auto FG = runAll(G.module());
  EXPECT_TRUE(FG.empty()) << dump(FG);
  KB B = spinBarrier();
  B.launch(100, 256);
  auto FB = runAll(B.module());
  EXPECT_TRUE(FB.empty()) << dump(FB);
}

TEST(Checkers, Bar005GridSyncWithoutCooperativeLaunch) {
  KB K("gridsync");
  K.launch(8, 256, false);
  K.sync(10, BarrierKind::Grid);
  auto F = runAll(K.module());
  EXPECT_EQ(keys(F), (std::set<Key>{{10, "BAR-005"}})) << dump(F);
  KB G("gridsync_ok");
  G.launch(8, 256, true);
  G.sync(10, BarrierKind::Grid);
  EXPECT_TRUE(runAll(G.module()).empty());
}

ModuleModel hostModule(bool BarrierBetween) {
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

TEST(Checkers, Host001LaunchWithoutBarrier) {
  auto F = runAll(hostModule(false));
  EXPECT_EQ(keys(F), (std::set<Key>{{52, "HOST-001"}})) << dump(F);
  auto FG = runAll(hostModule(true));
  EXPECT_TRUE(FG.empty()) << dump(FG);
  // A barrier inside an `if` (nesting depth 1) does not count.
  ModuleModel M = hostModule(true);
  M.HostOps[1].Depth = 1;
  auto FC = runAll(M);
  EXPECT_EQ(keys(FC), (std::set<Key>{{52, "HOST-001"}})) << dump(FC);
}

TEST(Checkers, Bar004HostCopyWithoutBarrierAfterKernel) {
  ModuleModel M = hostModule(true);
  M.HostOps.pop_back(); // no barrier after the kernel
  auto F = runAll(M);
  EXPECT_EQ(keys(F), (std::set<Key>{{50, "BAR-004"}})) << dump(F);
}

TEST(Checkers, Part001PeerIndexOutOfRange) {
  KB K("shift");
  K.stdParams().launch(4, 256);
  unsigned I = K.beginLoop(gtid(), v("param:n"), stride());
  K.load(31, addr("bufs", rank() + c(1), K.lv(I)));
  K.store(32, addr("out", nullptr, K.lv(I)));
  K.endLoop();
  auto F = runAll(K.module());
  EXPECT_EQ(keys(F), (std::set<Key>{{31, "PART-001"}})) << dump(F);
  const Finding *X = find(F, "PART-001");
  ASSERT_TRUE(X);
  EXPECT_EQ(X->Witness.at("W"), "2");
  EXPECT_EQ(X->Witness.at("r1"), "1");
  EXPECT_EQ(X->Witness.at("peer"), "2");
  KB G("shift_ok");
  G.stdParams().launch(4, 256);
  unsigned J = G.beginLoop(gtid(), v("param:n"), stride());
  G.load(31, addr("bufs", (rank() + c(1)) % W(), G.lv(J)));
  G.store(32, addr("out", nullptr, G.lv(J)));
  G.endLoop();
  auto FG = runAll(G.module());
  EXPECT_TRUE(FG.empty()) << dump(FG);
}

/// Sharded push all-gather: rank r pushes its shard [start, start + len)
/// into every peer's bufs. Clamp = true uses start = min(r*C, n-C) with
/// C = ceil(n/W) (overlapping shards).
KB shardPush(bool Overlap) {
  KB K("shard_push");
  K.stdParams().launch(4, 256);
  ExprRef N = v("param:n");
  ExprRef C = (N + W() - c(1)) / W();
  ExprRef Start = Overlap ? min_(rank() * C, N - C) : rank() * C;
  ExprRef Len = Overlap ? C : min_(C, N - rank() * C);
  unsigned P = K.beginLoop(c(0), W(), c(1), "p");
  unsigned J = K.beginLoop(gtid(), Len, stride(), "j");
  K.load(38, addr("in", nullptr, Start + K.lv(J)));
  K.store(39, addr("bufs", K.lv(P), Start + K.lv(J)));
  K.endLoop();
  K.endLoop();
  K.barrier(40, v("param:epoch"));
  return K;
}

TEST(Checkers, Part002OverlappingShards) {
  auto F = runAll(shardPush(true).module());
  EXPECT_EQ(keys(F), (std::set<Key>{{39, "PART-002"}})) << dump(F);
  const Finding *X = find(F, "PART-002");
  ASSERT_TRUE(X);
  EXPECT_NE(X->Witness.at("r1"), X->Witness.at("r2"));
  auto FG = runAll(shardPush(false).module());
  EXPECT_TRUE(FG.empty()) << dump(FG);
}

KB gatherOut(ExprRef C) {
  KB K("gather_out");
  K.stdParams().launch(4, 256);
  unsigned Q = K.beginLoop(c(0), W(), c(1), "q");
  unsigned J =
      K.beginLoop(gtid(), min_(C, v("param:n") - K.lv(Q) * C), stride(), "j");
  K.load(33, addr("bufs", K.lv(Q), K.lv(Q) * C + K.lv(J)));
  K.store(34, addr("out", nullptr, K.lv(Q) * C + K.lv(J)));
  K.endLoop();
  K.endLoop();
  return K;
}

TEST(Checkers, Part003RemainderNotWritten) {
  ExprRef N = v("param:n");
  auto F = runAll(gatherOut(N / W()).module());
  EXPECT_EQ(keys(F), (std::set<Key>{{34, "PART-003"}})) << dump(F);
  const Finding *X = find(F, "PART-003");
  ASSERT_TRUE(X);
  EXPECT_EQ(X->Witness.at("W"), "2");
  auto FG = runAll(gatherOut((N + W() - c(1)) / W()).module());
  EXPECT_TRUE(FG.empty()) << dump(FG);
}

TEST(Checkers, Race001SharedMemoryRace) {
  KB K("stencil");
  K.stdParams().launch(4, 256);
  K.K.SharedVars.push_back({"tile", 4});
  K.store(10, addr("tile", nullptr, tid(), AddrSpace::Shared));
  K.load(12, addr("tile", nullptr, tid() + c(1), AddrSpace::Shared));
  auto F = runAll(K.module());
  EXPECT_EQ(keys(F), (std::set<Key>{{12, "RACE-001"}})) << dump(F);
  const Finding *X = find(F, "RACE-001");
  ASSERT_TRUE(X);
  EXPECT_EQ(X->Witness.at("b1"), X->Witness.at("b2"));
  KB G("stencil_ok");
  G.stdParams().launch(4, 256);
  G.K.SharedVars.push_back({"tile", 4});
  G.store(10, addr("tile", nullptr, tid(), AddrSpace::Shared));
  G.sync(11);
  G.load(12, addr("tile", nullptr, tid() + c(1), AddrSpace::Shared));
  auto FG = runAll(G.module());
  EXPECT_TRUE(FG.empty()) << dump(FG);
}

TEST(Checkers, Race001LoopCarried) {
  // for (...) { tile[t] = ..; sync; read tile[t+1]; }  (no sync at the end)
  KB K("tiles");
  K.stdParams().launch(4, 256);
  K.K.SharedVars.push_back({"tile", 4});
  K.beginLoop(c(0), v("param:n"), c(1), "k");
  K.store(41, addr("tile", nullptr, tid(), AddrSpace::Shared));
  K.sync(42);
  K.load(43, addr("tile", nullptr, (tid() + c(1)) % c(256), AddrSpace::Shared));
  K.endLoop();
  auto F = runAll(K.module());
  EXPECT_EQ(keys(F), (std::set<Key>{{41, "RACE-001"}})) << dump(F);
  KB G = K;
  G.K.Events.push_back(G.K.Events[1]);
  G.K.Events.back().Loc.Line = 44;
  auto FG = runAll(G.module());
  EXPECT_TRUE(FG.empty()) << dump(FG);
}

TEST(Checkers, Race002InPlaceAllReduce) {
  KB K("inplace");
  K.stdParams().launch(4, 256);
  unsigned I = K.beginLoop(gtid(), v("param:n"), stride());
  K.load(10, addr("in", nullptr, K.lv(I)));
  K.store(11, addr("bufs", rank(), K.lv(I)));
  K.endLoop();
  K.barrier(20, v("param:epoch") * c(2));
  unsigned J = K.beginLoop(gtid(), v("param:n"), stride());
  unsigned P = K.beginLoop(c(0), W(), c(1), "p");
  K.load(31, addr("bufs", K.lv(P), K.lv(J)));
  K.endLoop();
  K.store(34, addr("bufs", rank(), K.lv(J)));
  K.endLoop();
  K.barrier(40, v("param:epoch") * c(2) + c(1));
  auto F = runAll(K.module());
  EXPECT_EQ(keys(F), (std::set<Key>{{34, "RACE-002"}})) << dump(F);
  const Finding *X = find(F, "RACE-002");
  ASSERT_TRUE(X);
  EXPECT_NE(X->Witness.at("r1"), X->Witness.at("r2"));
  EXPECT_EQ(X->Sev, Severity::Error);
}

TEST(Checkers, Race003PlainPeerRmw) {
  KB K("push_add");
  K.stdParams().launch(4, 256);
  unsigned P = K.beginLoop(c(0), W(), c(1), "p");
  unsigned J = K.beginLoop(gtid(), v("param:n"), stride());
  K.load(37, addr("in", nullptr, K.lv(J)));
  K.load(37, addr("bufs", K.lv(P), K.lv(J)));
  K.store(37, addr("bufs", K.lv(P), K.lv(J))).RmwStore = true;
  K.endLoop();
  K.endLoop();
  K.barrier(40, v("param:epoch"));
  auto F = runAll(K.module());
  EXPECT_EQ(keys(F), (std::set<Key>{{37, "RACE-003"}})) << dump(F);
  // The same load and store, not one read-modify-write expression: the
  // store races the other ranks' loads (RACE-002), no RACE-003.
  KB K2("push_copy");
  K2.stdParams().launch(4, 256);
  unsigned P2 = K2.beginLoop(c(0), W(), c(1), "p");
  unsigned J2 = K2.beginLoop(gtid(), v("param:n"), stride());
  K2.load(37, addr("bufs", K2.lv(P2), K2.lv(J2)));
  K2.store(38, addr("bufs", K2.lv(P2), K2.lv(J2)));
  K2.endLoop();
  K2.endLoop();
  K2.barrier(40, v("param:epoch"));
  auto F2 = runAll(K2.module());
  EXPECT_FALSE(find(F2, "RACE-003")) << dump(F2);
}

TEST(Checkers, Topo001MulticastOnTargetWithout) {
  KB K("mc");
  K.param("mc", ParamRole::Multicast, 4);
  K.launch(4, 256);
  unsigned I = K.beginLoop(gtid(), v("param:n"), stride());
  Event &E = K.store(22, addr("mc", nullptr, K.lv(I), AddrSpace::Multicast));
  E.Text = "multimem.st.relaxed.sys.global.f32";
  K.endLoop();
  // No target named: a note that the code needs NVLS, not an error.
  auto FN = runAll(K.module());
  ASSERT_TRUE(find(FN, "TOPO-001")) << dump(FN);
  EXPECT_EQ(find(FN, "TOPO-001")->Sev, Severity::Note);
  // A named target without NVLS: an error; with NVLS: a warning.
  CheckOptions Two, Nvs;
  std::string Err;
  ASSERT_TRUE(resolveTopology("h200x2-nvlink", Two.Target, Err));
  ASSERT_TRUE(resolveTopology("h100x8-nvswitch", Nvs.Target, Err));
  auto F = runAll(K.module(), Two);
  EXPECT_EQ(keys(F), (std::set<Key>{{22, "TOPO-001"}})) << dump(F);
  EXPECT_EQ(find(F, "TOPO-001")->Sev, Severity::Error);
  auto FW = runAll(K.module(), Nvs);
  ASSERT_TRUE(find(FW, "TOPO-001")) << dump(FW);
  EXPECT_EQ(find(FW, "TOPO-001")->Sev, Severity::Warning);
  // Guarded by a null check: fine.
  KB G("mc_ok");
  G.param("mc", ParamRole::Multicast, 4);
  G.launch(4, 256);
  G.when(ne(v("param:mc"), c(0)));
  unsigned J = G.beginLoop(gtid(), v("param:n"), stride());
  Event &E2 = G.store(22, addr("mc", nullptr, G.lv(J), AddrSpace::Multicast));
  E2.Text = "multimem.st.relaxed.sys.global.f32";
  G.endLoop();
  G.end();
  EXPECT_TRUE(runAll(G.module(), Two).empty());
}

TEST(Checkers, UnknownBecomesWarningAndNote) {
  // A tiny solver budget makes a nonlinear query undecidable: the check
  // must say so (Warning + solver-unknown note), never pass silently.
  KB K("nonlinear");
  K.stdParams().launch(4, 256);
  ExprRef Idx = v("param:n") * v("param:n") * v("param:n") -
                v("param:epoch") * v("param:epoch") * v("param:epoch");
  K.when(eq(Idx * Idx, c(7) + tid() * tid() * tid()));
  K.load(31, addr("bufs", rank() + Idx * v("param:n"), tid()));
  K.end();
  CheckOptions O;
  O.SolverTimeoutMs = 1;
  std::vector<Finding> Out;
  std::vector<Diagnostic> Diags;
  for (const auto &C : allCheckers())
    if (C->info().Id == "PART-001")
      C->check(K.module(), O, Out, Diags);
  ASSERT_EQ(Out.size(), 1u) << dump(Out);
  EXPECT_EQ(Out[0].Sev, Severity::Warning);
  ASSERT_FALSE(Diags.empty());
  EXPECT_EQ(Diags[0].Code, "solver-unknown");
  EXPECT_EQ(Diags[0].Sev, Severity::Note);
}

TEST(Checkers, OpaqueIndexGivesWarning) {
  KB K("opaque");
  K.stdParams().launch(4, 256);
  K.load(31, addr("bufs", Expr::opaque("expert_ids[t] / epr"), tid()));
  auto F = runAll(K.module());
  EXPECT_EQ(keys(F), (std::set<Key>{{31, "PART-001"}})) << dump(F);
  EXPECT_EQ(find(F, "PART-001")->Sev, Severity::Warning);
}

} // namespace
