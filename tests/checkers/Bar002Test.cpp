//===- Bar002Test.cpp - BAR-002 on hand-built models ----------------------===//
//
// BAR-002: a bad model that must produce exactly this finding (line,
// severity, witness where meaningful) and nothing else, and a good model
// that produces none.
//
//===----------------------------------------------------------------------===//
#include "CheckerTestUtil.h"

#include <functional>

using namespace pkb;
using namespace pkb::cktest;

namespace {

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

/// The wait-before-signal allgather: threads t < W wait for peer t's flag,
/// a block barrier, then signal peer t. Every signal sits behind a wait.
static KB waitThenSignal(bool SignalFirst) {
  KB K(SignalFirst ? "signal_then_wait" : "wait_then_signal");
  K.stdParams().launch(2, 256);
  auto Signal = [&] {
    K.when(lt(tid(), W()));
    K.when(ne(tid(), rank()));
    K.mem(EventKind::Store, 30, addr("pads", tid(), bid() * c(8) + rank()), 4,
          MemOrder::Release, Scope::System, v("param:epoch"));
    K.end();
    K.end();
  };
  if (SignalFirst)
    Signal();
  K.when(lt(tid(), W()));
  K.when(ne(tid(), rank()));
  K.spin(31, addr("pads", rank(), bid() * c(8) + tid()), v("param:epoch"));
  K.end();
  K.end();
  K.sync(32);
  if (!SignalFirst)
    Signal();
  return K;
}

TEST(Checkers, Bar002WaitForCycle) {
  KB K = waitThenSignal(false);
  auto F = runAll(K.module());
  EXPECT_EQ(keys(F), (std::set<Key>{{31, "BAR-002"}})) << dump(F);
  const Finding *X = find(F, "BAR-002");
  ASSERT_TRUE(X);
  EXPECT_EQ(X->Sev, Severity::Error);
  EXPECT_EQ(X->Witness.at("W"), "2");
  EXPECT_NE(X->Witness.at("r1"), X->Witness.at("r2"));
  // The message names the cycle: the signal line, the wait it sits behind
  // and the barrier between them.
  EXPECT_NE(X->Message.find("sends at line 30"), std::string::npos)
      << X->Message;
  EXPECT_NE(X->Message.find("wait at line 31"), std::string::npos);
  EXPECT_NE(X->Message.find("barrier at line 32"), std::string::npos);
  // Signal first, then wait: no cycle.
  KB G = waitThenSignal(true);
  auto FG = runAll(G.module());
  EXPECT_TRUE(FG.empty()) << dump(FG);
}

TEST(Checkers, Bar002NoCycleWhenOneRankSignalsFirst) {
  // A chain: rank r > 0 waits for rank r - 1, then signals rank r + 1;
  // rank 0 signals without waiting, so every wait ends.
  KB K("chain");
  K.stdParams().launch(1, 32);
  K.when(eq(tid(), c(0)));
  K.when(ne(rank(), c(0)));
  K.spin(40, addr("pads", rank(), c(0)), v("param:epoch"));
  K.end();
  K.when(lt(rank() + c(1), W()));
  K.mem(EventKind::Store, 41, addr("pads", rank() + c(1), c(0)), 4,
        MemOrder::Release, Scope::System, v("param:epoch"));
  K.end();
  K.end();
  auto F = runAll(K.module());
  EXPECT_TRUE(F.empty()) << dump(F);
}

TEST(Checkers, Bar002LockWaitOpensOnZeroedFlag) {
  // Torch-style CAS handshake: the put waits for the slot to be 0 (true on
  // a zeroed pad) before it writes 1; the get waits for 1 after the put.
  // The put's wait is not part of any cycle.
  KB K("cas");
  K.stdParams().launch(1, 32);
  K.when(lt(tid(), W()));
  K.spin(50, addr("pads", tid(), rank()), c(0), MemOrder::Release,
         Scope::System, "==");
  Event &Put = K.mem(EventKind::Atomic, 50, addr("pads", tid(), rank()), 4,
                     MemOrder::Release, Scope::System, c(1));
  Put.Rmw = RmwOp::Cas;
  K.spin(51, addr("pads", rank(), tid()), c(1), MemOrder::Acquire,
         Scope::System, "==");
  Event &Get = K.mem(EventKind::Atomic, 51, addr("pads", rank(), tid()), 4,
                     MemOrder::Acquire, Scope::System, c(0));
  Get.Rmw = RmwOp::Cas;
  K.end();
  auto F = runAll(K.module());
  EXPECT_FALSE(find(F, "BAR-002")) << dump(F);
}

TEST(Checkers, Bar002CycleReportedOnceAtItsRoot) {
  // The cycle, then a correct exit barrier on other slots: the exit wait is
  // never reached either, but only the root wait is reported.
  KB K = waitThenSignal(false);
  K.sync(60);
  K.when(lt(tid(), W()));
  K.when(ne(tid(), rank()));
  K.mem(EventKind::Store, 61,
        addr("pads", tid(), c(64) + bid() * c(8) + rank()), 4,
        MemOrder::Release, Scope::System, v("param:epoch"));
  K.spin(62, addr("pads", rank(), c(64) + bid() * c(8) + tid()),
         v("param:epoch"));
  K.end();
  K.end();
  auto F = runAll(K.module());
  EXPECT_EQ(keys(F), (std::set<Key>{{31, "BAR-002"}})) << dump(F);
}

/// A central counter barrier launched once per call: thread 0 of every
/// rank with \p AllArrive (else of every rank but 0) adds 1 to word 0 of
/// rank 0's pad, then every rank waits for it to reach
/// world_size * epoch.
static ModuleModel counterBarrier(bool AllArrive, bool OncePerCall = true) {
  KB K("counter_barrier");
  K.stdParams().launch(1, 32);
  K.when(eq(tid(), c(0)));
  if (!AllArrive)
    K.when(ne(rank(), c(0)));
  K.mem(EventKind::Atomic, 40, addr("pads", c(0), c(0)), 4, MemOrder::Relaxed,
        Scope::System, c(1))
      .AtomicOp = "add";
  if (!AllArrive)
    K.end();
  K.spin(41, addr("pads", c(0), c(0)), W() * v("param:epoch"));
  K.end();
  ModuleModel M = K.module();
  HostOp Op;
  Op.Kind = HostOp::KernelCall;
  Op.Callee = K.K.Name;
  Op.Kernels = {K.K.Name};
  M.HostOps.push_back(Op);
  if (!OncePerCall)
    M.HostOps.push_back(Op);
  return M;
}

TEST(Checkers, Bar002CounterBehindAcrossCalls) {
  // W - 1 arrivals per call against a target that grows by W per call.
  auto F = runAll(counterBarrier(false));
  EXPECT_EQ(keys(F), (std::set<Key>{{41, "BAR-002"}})) << dump(F);
  const Finding *X = find(F, "BAR-002");
  ASSERT_TRUE(X);
  EXPECT_EQ(X->Sev, Severity::Error);
  EXPECT_EQ(X->Witness.at("W"), "2");
  EXPECT_EQ(X->Witness.at("growth"), "2");
  EXPECT_EQ(X->Witness.at("arrivals"), "1");
  // Every rank arrives: W arrivals per call, no finding.
  auto FG = runAll(counterBarrier(true));
  EXPECT_TRUE(FG.empty()) << dump(FG);
  // Launched twice per call: the arrivals per call are not known here.
  auto F2 = runAll(counterBarrier(false, false));
  EXPECT_TRUE(F2.empty()) << dump(F2);
}

/// A ring in one kernel: for s in [0, W - 1), thread 0 waits on its own
/// pad, then (after a block barrier) posts epoch + s + 1 to the next rank.
/// \p Wait is the wait's target (over loop variable \p S), \p FromStep1
/// guards the wait with s > 0. \p Host, when set, is the launch's host
/// value of the epoch (LaunchSite::Arg::Host).
static ModuleModel ring(const std::function<ExprRef(ExprRef)> &Wait,
                        bool FromStep1, ExprRef Host = nullptr) {
  KB K("ring");
  K.stdParams().launch(1, 32);
  if (Host) {
    LaunchSite &L = K.K.Launches.back();
    L.Args = {{"epoch", Expr::opaque("base"), "", Host}};
    L.Loc = {"test.cu", 90, 3};
  }
  unsigned S = K.beginLoop(c(0), W() - c(1), c(1), "s");
  K.when(eq(tid(), c(0)));
  if (FromStep1)
    K.when(lt(c(0), K.lv(S)));
  K.spin(70, addr("pads", rank(), c(0)), Wait(K.lv(S)));
  if (FromStep1)
    K.end();
  K.end();
  K.sync(71);
  K.when(eq(tid(), c(0)));
  K.mem(EventKind::Store, 72, addr("pads", (rank() + c(1)) % W(), c(0)), 4,
        MemOrder::Release, Scope::System, v("param:epoch") + K.lv(S) + c(1));
  K.end();
  K.endLoop();
  return K.module();
}

TEST(Checkers, Bar002CycleThroughTheSameIterationOfALoop) {
  // Step s waits for the value that its own post of step s produces: the
  // post of every instance sits behind that instance's wait on the sender.
  auto Own = [](ExprRef S) { return v("param:epoch") + S + c(1); };
  auto F = runAll(ring(Own, false));
  EXPECT_EQ(keys(F), (std::set<Key>{{70, "BAR-002"}})) << dump(F);
  const Finding *X = find(F, "BAR-002");
  ASSERT_TRUE(X);
  EXPECT_EQ(X->Sev, Severity::Error);
  EXPECT_NE(X->Message.find("sends at line 72"), std::string::npos)
      << X->Message;
  // Step s > 0 waits for the predecessor's post of step s - 1, which
  // step 0 makes without waiting: every wait ends.
  auto Prev = [](ExprRef S) { return v("param:epoch") + S; };
  auto FG = runAll(ring(Prev, true));
  EXPECT_TRUE(FG.empty()) << dump(FG);
  // Unguarded, the wait of step 0 for `epoch + 0` is assumed not to hold
  // on the value the pad has when the kernel starts (an epoch of unknown
  // origin), which makes it a cycle; with the epoch bound to
  // call_index * (W - 1) it holds in the first call, on a zeroed pad.
  auto FU = runAll(ring(Prev, false));
  EXPECT_EQ(keys(FU), (std::set<Key>{{70, "BAR-002"}})) << dump(FU);
  auto FB = runAll(ring(Prev, false, v("host:call_index") * (W() - c(1))));
  EXPECT_TRUE(FB.empty()) << dump(FB);
  // The same binding does not hide the real cycle.
  auto FR = runAll(ring(Own, false, v("host:call_index") * (W() - c(1))));
  EXPECT_EQ(keys(FR), (std::set<Key>{{70, "BAR-002"}})) << dump(FR);
}

/// Root kernel of a pull broadcast: thread p (0 < p < W) signals
/// pads[p][0] and waits for pads[0][8 + p]; launched at line 90 of host
/// function `broadcast` under rank == 0, with `ctx->pads` for `pads`.
static KB rootPublish() {
  KB K("root_publish");
  K.stdParams().launch(1, 8);
  LaunchSite &L = K.K.Launches.back();
  L.Guard = eq(rank(), c(0));
  L.HostCallers = {"broadcast"};
  L.Args = {{"pads", nullptr, "ctx->pads"}};
  K.when(lt(tid(), W()));
  K.when(ne(tid(), c(0)));
  K.mem(EventKind::Store, 50, addr("pads", tid(), c(0)), 4, MemOrder::Release,
        Scope::System, v("param:epoch"));
  K.spin(51, addr("pads", c(0), c(8) + tid()), v("param:epoch"));
  K.end();
  K.end();
  return K;
}

/// The peers' done kernel: pads[0][8 + rank] = epoch, launched from host
/// function \p Host with argument text \p Arg for `pads`.
static KernelModel peerDone(const std::string &Host, const std::string &Arg) {
  KB K("peer_done");
  K.stdParams().launch(1, 32);
  LaunchSite &L = K.K.Launches.back();
  L.Guard = lnot(eq(rank(), c(0)));
  L.HostCallers = {Host};
  L.Args = {{"pads", nullptr, Arg}};
  K.when(eq(tid(), c(0)));
  K.mem(EventKind::Store, 60, addr("pads", c(0), c(8) + rank()), 4,
        MemOrder::Release, Scope::System, v("param:epoch"));
  K.end();
  return K.K;
}

TEST(Checkers, Bar002WaitSignalledByAnotherKernel) {
  // Alone, the root's wait on pads[0][8 + p] has no signal: deadlock.
  auto F = runAll(rootPublish().module());
  EXPECT_EQ(keys(F), (std::set<Key>{{51, "BAR-002"}})) << dump(F);
  // peer_done, launched in the same host function with the same pad
  // table, writes that memory: the wait is not decided from this kernel.
  auto With = [](const std::string &Host, const std::string &Arg) {
    ModuleModel M = rootPublish().module();
    M.Kernels.push_back(peerDone(Host, Arg));
    enrich(M);
    return runAll(M);
  };
  auto FG = With("broadcast", "ctx->pads");
  EXPECT_TRUE(FG.empty()) << dump(FG);
  // Another table, or a kernel of another host function, does not count.
  auto FA = With("broadcast", "ctx->other_pads");
  EXPECT_EQ(keys(FA), (std::set<Key>{{51, "BAR-002"}})) << dump(FA);
  auto FH = With("reset", "ctx->pads");
  EXPECT_EQ(keys(FH), (std::set<Key>{{51, "BAR-002"}})) << dump(FH);
  // A launch in the other arm of an `if` whose condition is the same on
  // every rank (`if (Vec) k<8><<<>>> else k<1><<<>>>`) never runs in a
  // call that runs this kernel: it does not count. Under a condition that
  // may differ between ranks it does.
  auto Arms = [](bool Uniform) {
    ModuleModel M = rootPublish().module();
    M.Kernels.push_back(peerDone("broadcast", "ctx->pads"));
    unsigned Line = 90;
    for (KernelModel &K : M.Kernels) {
      K.Launches.back().Loc = {"test.cu", Line, 3};
      HostOp Op;
      Op.Kind = HostOp::KernelCall;
      Op.Callee = K.Name;
      Op.Kernels = {K.Name};
      Op.Loc = {"test.cu", Line, 3};
      Op.Depth = 1;
      Op.Guards = {Line == 90 ? "Vec" : "!(Vec)"};
      Op.UniformGuards = {Uniform};
      M.HostOps.push_back(Op);
      Line += 2;
    }
    enrich(M);
    return runAll(M);
  };
  auto FU = Arms(true);
  EXPECT_EQ(keys(FU), (std::set<Key>{{51, "BAR-002"}})) << dump(FU);
  auto FR = Arms(false);
  EXPECT_TRUE(FR.empty()) << dump(FR);
}

} // namespace
