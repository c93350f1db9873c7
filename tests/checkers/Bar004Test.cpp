//===- Bar004Test.cpp - BAR-004 on hand-built models ----------------------===//
//
// BAR-004: a bad model that must produce exactly this finding (line,
// severity, witness where meaningful) and nothing else, and a good model
// that produces none.
//
//===----------------------------------------------------------------------===//
#include "CheckerTestUtil.h"

using namespace pkb;
using namespace pkb::cktest;

namespace {

TEST(Checkers, Bar004MissingExitBarrier) {
  Variant V;
  V.Barrier2 = false;
  auto F = runAll(allreduce(V).module());
  EXPECT_EQ(keys(F), (std::set<Key>{{11, "BAR-004"}})) << dump(F);
  const Finding *X = find(F, "BAR-004");
  ASSERT_TRUE(X);
  EXPECT_NE(X->Witness.at("r1"), X->Witness.at("r2"));
}

TEST(Checkers, Bar004HostCopyWithoutBarrierAfterKernel) {
  ModuleModel M = hostModule(true);
  M.HostOps.pop_back(); // no barrier after the kernel
  auto F = runAll(M);
  EXPECT_EQ(keys(F), (std::set<Key>{{50, "BAR-004"}})) << dump(F);
}

TEST(Checkers, Bar004HostReadOfPeerBufferWithoutBarrierAfter) {
  // zero_ (50), barrier, kernel, barrier, then every rank reads rank 0's
  // buffer on the host (hdl.get_buffer(0, ...).clone(), line 54): rank 0's
  // zero_ of the next call may run while a peer still reads.
  ModuleModel M = hostModule(true);
  HostOp Read;
  Read.Kind = HostOp::SymmRead;
  Read.Callee = "hdl.get_buffer";
  Read.Target = "hdl";
  Read.Loc = {"solution.py", 54, 11};
  M.HostOps.push_back(Read);
  auto F = runAll(M);
  EXPECT_EQ(keys(F), (std::set<Key>{{50, "BAR-004"}})) << dump(F);
  const Finding *X = find(F, "BAR-004");
  ASSERT_TRUE(X);
  EXPECT_NE(X->Message.find("line 54"), std::string::npos) << X->Message;
  // A barrier after the read orders it before the next call's zero_.
  HostOp B = M.HostOps[1];
  B.Loc.Line = 55;
  M.HostOps.push_back(B);
  auto FG = runAll(M);
  EXPECT_TRUE(FG.empty()) << dump(FG);
}

/// Findings of the BAR-004 checker alone on \p M (the host-sequence tests
/// need no other checker).
std::vector<Finding> runBar004(const ModuleModel &M) {
  return runOne(M, "BAR-004");
}

/// BAR-004 findings of \p F as (line, severity) pairs.
std::set<std::pair<unsigned, Severity>> bar004(const std::vector<Finding> &F) {
  return linesOf(F, "BAR-004");
}

/// Kernels of a candidate's pkb_candidate_run (docs/candidate-abi.md):
/// `barrierK` (signal every peer's pad, wait for every peer), `signalK`
/// (signal only), `waitK` (wait only) and `reduceK` (reads bufs[p][i] of
/// every peer p into out[i], no synchronization of its own).
ModuleModel candidateKernels() {
  ModuleModel M;
  M.File = "cand.cu";
  M.Kernels = syncKernels();
  // The reader of hostModule(): loads bufs[p][i] (line 31), stores out[i].
  M.Kernels.push_back(hostModule(false).Kernels.at(0));
  M.Kernels.back().Name = "reduceK";
  enrich(M);
  return M;
}

/// A C++ host operation at \p Line: a launch of \p Kernel with argument
/// buffers \p Bufs, or (Kernel empty) a cudaMemcpyAsync into \p Bufs[0].
HostOp cxxOp(unsigned Line, const std::string &Kernel,
             std::vector<std::string> Bufs,
             std::vector<std::string> Guards = {}) {
  HostOp H;
  H.Loc = {"cand.cu", Line, 3};
  H.Guards = std::move(Guards);
  H.Depth = static_cast<unsigned>(H.Guards.size());
  if (Kernel.empty()) {
    H.Kind = HostOp::SymmWrite;
    H.Callee = "cudaMemcpyAsync";
    H.Target = Bufs.at(0);
    return H;
  }
  H.Kind = HostOp::KernelCall;
  H.Callee = Kernel;
  H.Kernels = {Kernel};
  H.ArgBuffers = std::move(Bufs);
  return H;
}

// reduceK's arguments: bufs, pads, out, in, n, epoch.
const std::vector<std::string> ReduceArgs = {"symm[0]", "signal_pad", "",
                                             "",        "",           ""};

TEST(Checkers, Bar004CandidateRunWithoutExitBarrier) {
  ModuleModel M = candidateKernels();
  M.HostOps = {cxxOp(60, "", {"symm[0]"}),
               cxxOp(61, "barrierK", {"signal_pad", ""}),
               cxxOp(62, "reduceK", ReduceArgs)};
  auto F = runBar004(M);
  EXPECT_EQ(bar004(F),
            (std::set<std::pair<unsigned, Severity>>{{60, Severity::Error}}))
      << dump(F);
  const Finding *X = find(F, "BAR-004");
  ASSERT_TRUE(X);
  EXPECT_NE(X->Message.find("line 62"), std::string::npos) << X->Message;
}

TEST(Checkers, Bar004CandidateRunSafeOrderings) {
  // An exit barrier kernel after the reads.
  ModuleModel M = candidateKernels();
  M.HostOps = {cxxOp(60, "", {"symm[0]"}),
               cxxOp(61, "barrierK", {"signal_pad", ""}),
               cxxOp(62, "reduceK", ReduceArgs),
               cxxOp(63, "barrierK", {"signal_pad", ""})};
  EXPECT_TRUE(bar004(runBar004(M)).empty()) << dump(runBar004(M));
  // A leading barrier in the next call: barrier kernel before the write.
  M.HostOps = {cxxOp(59, "barrierK", {"signal_pad", ""}),
               cxxOp(60, "", {"symm[0]"}),
               cxxOp(61, "barrierK", {"signal_pad", ""}),
               cxxOp(62, "reduceK", ReduceArgs)};
  EXPECT_TRUE(bar004(runBar004(M)).empty()) << dump(runBar004(M));
  // Double buffering by call parity: symm[call_index & 1].
  std::vector<std::string> Par = ReduceArgs;
  Par[0] = "symm[@call:B]";
  M.HostOps = {cxxOp(60, "", {"symm[@call:B]"}),
               cxxOp(61, "barrierK", {"signal_pad", ""}),
               cxxOp(62, "reduceK", Par)};
  EXPECT_TRUE(bar004(runBar004(M)).empty()) << dump(runBar004(M));
  // Another buffer than the one peers read.
  M.HostOps = {cxxOp(60, "", {"symm[1]"}),
               cxxOp(61, "barrierK", {"signal_pad", ""}),
               cxxOp(62, "reduceK", ReduceArgs)};
  EXPECT_TRUE(bar004(runBar004(M)).empty()) << dump(runBar004(M));
}

TEST(Checkers, Bar004CandidateRunParityAgainstFixedBuffer) {
  // The write alternates by parity but the reader always reads symm[0]:
  // every other call overwrites what the peers read.
  ModuleModel M = candidateKernels();
  M.HostOps = {cxxOp(60, "", {"symm[@call:B]"}),
               cxxOp(61, "barrierK", {"signal_pad", ""}),
               cxxOp(62, "reduceK", ReduceArgs)};
  EXPECT_EQ(bar004(runBar004(M)),
            (std::set<std::pair<unsigned, Severity>>{{60, Severity::Error}}));
}

TEST(Checkers, Bar004CandidateRunRootAndPeerArms) {
  // Broadcast: the root copies into its buffer and publishes; the peers
  // wait, pull and signal `done`. Safe only if the root waits for `done`.
  ModuleModel M = candidateKernels();
  auto Ops = [&](const std::string &RootKernel) {
    return std::vector<HostOp>{
        cxxOp(70, "", {"symm[0]"}, {"Root"}),
        cxxOp(71, RootKernel, {"signal_pad", ""}, {"Root"}),
        cxxOp(73, "waitK", {"signal_pad", ""}, {"!(Root)"}),
        cxxOp(74, "reduceK", ReduceArgs, {"!(Root)"}),
        cxxOp(75, "signalK", {"signal_pad", ""}, {"!(Root)"})};
  };
  M.HostOps = Ops("signalK"); // the root never waits for the peers
  auto F = runBar004(M);
  EXPECT_EQ(bar004(F),
            (std::set<std::pair<unsigned, Severity>>{{70, Severity::Error}}))
      << dump(F);
  M.HostOps = Ops("barrierK"); // publish, then wait for every `done`
  EXPECT_TRUE(bar004(runBar004(M)).empty()) << dump(runBar004(M));
}

TEST(Checkers, Bar004DeviceEpochParityHalves) {
  // Push into half (epoch & 1) of every peer's buffer, barrier, read the
  // own half: call k+1 writes the other half than call k reads.
  auto Build = [](bool Parity) {
    KB K("push");
    K.param("bufs", ParamRole::PeerTable, 4)
        .param("pads", ParamRole::SignalPadTable, 4)
        .param("half", ParamRole::Scalar)
        .param("epoch", ParamRole::Epoch)
        .launch(1, 64);
    ExprRef Off = Parity ? Expr::binary(ExprOp::And, v("param:epoch"), c(1)) *
                               v("param:half")
                         : c(0);
    unsigned P = K.beginLoop(c(0), W(), c(1), "p");
    Address WA = addr("bufs", K.lv(P), rank() * c(64) + tid());
    WA.ByteOffset = Off;
    K.store(40, WA);
    K.endLoop();
    K.barrier(42, v("param:epoch"));
    unsigned Q = K.beginLoop(c(0), W(), c(1), "q");
    Address RA = addr("bufs", rank(), K.lv(Q) * c(64) + tid());
    RA.ByteOffset = Off;
    K.load(47, RA);
    K.endLoop();
    return K.module();
  };
  EXPECT_EQ(bar004(runBar004(Build(false))),
            (std::set<std::pair<unsigned, Severity>>{{40, Severity::Error}}))
      << dump(runBar004(Build(false)));
  EXPECT_TRUE(bar004(runBar004(Build(true))).empty())
      << dump(runBar004(Build(true)));
}

TEST(Checkers, Bar004EpochOfALaunchWithoutTheHostBindingStillAdvances) {
  // Two launches of the epoch-parity kernel: one passes `call_index + 1`
  // (a call-counter binding), the other an epoch the model cannot follow.
  // For the second, the next call's epoch is still epoch + 1 (the Epoch
  // role), not a free value: call k+1 writes the other half either way.
  KB K("push");
  K.param("bufs", ParamRole::PeerTable, 4)
      .param("pads", ParamRole::SignalPadTable, 4)
      .param("half", ParamRole::Scalar)
      .param("epoch", ParamRole::Epoch)
      .launch(1, 64)
      .launch(1, 64);
  K.K.Launches[0].Args.push_back({"epoch", Expr::opaque("ctx->call_index + 1"),
                                  "", v("host:call_index") + c(1)});
  K.K.Launches[1].Args.push_back({"epoch", Expr::opaque("e"), ""});
  // `(epoch + 1) & 1`: not the plain parity, so the solver decides it.
  ExprRef Off = Expr::binary(ExprOp::And, v("param:epoch") + c(1), c(1)) *
                v("param:half");
  unsigned P = K.beginLoop(c(0), W(), c(1), "p");
  Address WA = addr("bufs", K.lv(P), tid());
  WA.ByteOffset = Off;
  K.store(40, WA);
  K.endLoop();
  K.barrier(42, v("param:epoch"));
  Address RA = addr("bufs", rank(), tid());
  RA.ByteOffset = Off;
  K.load(47, RA);
  K.K.Launches[0].ParamCond = K.K.Launches[1].ParamCond = Expr::unary(
      ExprOp::LNot, Expr::binary(ExprOp::Lt, v("param:half"), c(256)));
  ModuleModel M = K.module();
  EXPECT_TRUE(bar004(runBar004(M)).empty()) << dump(runBar004(M));
}

TEST(Checkers, Bar004HalfOffsetThatChangesWithTheCallIsNeverAnError) {
  // Every thread writes the peers' buffers at `half + tid` and, after the
  // barrier, reads its own there; no exit barrier. With `half` the same in
  // every call, call k+1 overwrites what call k's readers read: an Error.
  // When the host sets it from the call counter in a way the model cannot
  // express (`(call_index & 1) ? Half : 0` with an unknown Half:
  // LaunchSite::Arg::CallDependent), the next call's half is unknown: the
  // finding needs it to repeat, a Warning that says so.
  auto Run = [](bool CallDependent) {
    KB K("halves");
    K.param("bufs", ParamRole::PeerTable, 4)
        .param("pads", ParamRole::SignalPadTable, 4)
        .param("half", ParamRole::Scalar)
        .param("epoch", ParamRole::Epoch)
        .launch(1, 64);
    LaunchSite::Arg A{"half", Expr::opaque("L.HalfOff"), ""};
    A.CallDependent = CallDependent;
    K.K.Launches[0].Args.push_back(A);
    K.K.Launches[0].Args.push_back({"epoch",
                                    Expr::opaque("ctx->call_index + 1"), "",
                                    v("host:call_index") + c(1)});
    unsigned P = K.beginLoop(c(0), W(), c(1), "p");
    K.store(40, addr("bufs", K.lv(P), v("param:half") + tid()));
    K.endLoop();
    K.barrier(42, v("param:epoch"));
    K.load(47, addr("bufs", rank(), v("param:half") + tid()));
    std::vector<Finding> R;
    for (Finding &F : runBar004(K.module()))
      if (F.CheckId == "BAR-004")
        R.push_back(std::move(F));
    return R;
  };
  auto Fixed = Run(false);
  ASSERT_FALSE(Fixed.empty());
  EXPECT_EQ(Fixed.front().Sev, Severity::Error) << Fixed.front().Message;
  auto Changing = Run(true);
  ASSERT_FALSE(Changing.empty());
  for (const Finding &F : Changing) {
    EXPECT_EQ(F.Sev, Severity::Warning) << F.Message;
    EXPECT_NE(F.Message.find("param:half = "), std::string::npos) << F.Message;
    EXPECT_NE(F.Message.find("in the next call"), std::string::npos)
        << F.Message;
  }
}

TEST(Checkers, Bar004DeviceParityDecidedOnlyWhenHalvesAlternate) {
  // The halves are told apart without the solver only when both offsets
  // hold the parity of the call counter itself and one half size; other
  // parity-like terms go to the solver, which finds the overlap.
  auto Build = [](ExprRef WParity, ExprRef RParity, const char *RSize) {
    KB K("push");
    K.param("bufs", ParamRole::PeerTable, 4)
        .param("pads", ParamRole::SignalPadTable, 4)
        .param("half", ParamRole::Scalar)
        .param("other", ParamRole::Scalar)
        .param("epoch", ParamRole::Epoch)
        .launch(1, 64);
    unsigned P = K.beginLoop(c(0), W(), c(1), "p");
    Address WA = addr("bufs", K.lv(P), rank() * c(64) + tid());
    WA.ByteOffset = WParity * v("param:half");
    K.store(40, WA);
    K.endLoop();
    K.barrier(42, v("param:epoch"));
    unsigned Q = K.beginLoop(c(0), W(), c(1), "q");
    Address RA = addr("bufs", rank(), K.lv(Q) * c(64) + tid());
    RA.ByteOffset = RParity * v(RSize);
    K.load(47, RA);
    K.endLoop();
    return K.module();
  };
  auto And1 = [](ExprRef E) { return Expr::binary(ExprOp::And, E, c(1)); };
  ExprRef Ep = v("param:epoch");
  ExprRef Rem2 = Expr::binary(ExprOp::Rem, Ep, c(2));
  // A Warning: the overlap needs a half size that no launch binds.
  const std::set<std::pair<unsigned, Severity>> Found = {
      {40, Severity::Warning}};
  // `epoch & 1` and `epoch % 2` with one half size: no finding.
  EXPECT_TRUE(
      bar004(runBar004(Build(And1(Ep), And1(Ep), "param:half"))).empty());
  EXPECT_TRUE(bar004(runBar004(Build(Rem2, And1(Ep), "param:half"))).empty());
  // `(2 * epoch) & 1` is 0 in every call: the same half is reused.
  ModuleModel Even = Build(And1(c(2) * Ep), And1(c(2) * Ep), "param:half");
  EXPECT_EQ(bar004(runBar004(Even)), Found) << dump(runBar004(Even));
  // The reader's half size is another parameter: the halves may overlap.
  ModuleModel Sizes = Build(And1(Ep), And1(Ep), "param:other");
  EXPECT_EQ(bar004(runBar004(Sizes)), Found) << dump(runBar004(Sizes));
}

TEST(Checkers, Bar004HostParityOfTheCallCounterAndParameterConditions) {
  // The host passes the half (`slot = ctx->call_index & 1`) and the half
  // size as scalar parameters (LaunchSite::Arg::Host,
  // LaunchSite::ParamCond): call k+1 writes the other half when the slot is
  // the counter's parity and the host refuses halves smaller than the
  // accessed 256 bytes.
  auto Build = [](ExprRef Slot, bool Refuses) {
    KB K("push");
    K.param("bufs", ParamRole::PeerTable, 4)
        .param("pads", ParamRole::SignalPadTable, 4)
        .param("half", ParamRole::Scalar)
        .param("slot", ParamRole::Scalar)
        .launch(1, 64);
    LaunchSite &L = K.K.Launches.back();
    L.Args.push_back({"slot", Expr::opaque("ctx->call_index & 1"), "", Slot});
    if (Refuses)
      L.ParamCond = Expr::unary(
          ExprOp::LNot, Expr::binary(ExprOp::Lt, v("param:half"), c(256)));
    ExprRef Off = v("param:slot") * v("param:half");
    unsigned P = K.beginLoop(c(0), W(), c(1), "p");
    Address WA = addr("bufs", K.lv(P), tid());
    WA.ByteOffset = Off;
    K.store(40, WA);
    K.endLoop();
    K.barrier(42, c(1));
    Address RA = addr("bufs", rank(), tid());
    RA.ByteOffset = Off;
    K.load(47, RA);
    return K.module();
  };
  ExprRef Cnt = v("host:call_index");
  ExprRef Parity = Expr::binary(ExprOp::And, Cnt, c(1));
  // The parity and a refusal of small halves: no overlap.
  ModuleModel Good = Build(Parity, true);
  EXPECT_TRUE(bar004(runBar004(Good)).empty()) << dump(runBar004(Good));
  // Without the refusal the halves may overlap (a half size of 0 already:
  // the unbound-parameter probe in [0, W) keeps it an Error).
  ModuleModel Small = Build(Parity, false);
  EXPECT_EQ(bar004(runBar004(Small)),
            (std::set<std::pair<unsigned, Severity>>{{40, Severity::Error}}))
      << dump(runBar004(Small));
  // `(c >> 1) & 1` keeps one half for two calls: calls 0 and 1 share it.
  ModuleModel Pairs = Build(
      Expr::binary(ExprOp::And, Expr::binary(ExprOp::Shr, Cnt, c(1)), c(1)),
      true);
  EXPECT_EQ(bar004(runBar004(Pairs)),
            (std::set<std::pair<unsigned, Severity>>{{40, Severity::Error}}))
      << dump(runBar004(Pairs));
}

} // namespace
