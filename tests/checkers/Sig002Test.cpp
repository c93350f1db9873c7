//===- Sig002Test.cpp - SIG-002 on hand-built models ----------------------===//
//
// SIG-002: a bad model that must produce exactly this finding (line,
// severity, witness where meaningful) and nothing else, and a good model
// that produces none.
//
//===----------------------------------------------------------------------===//
#include "CheckerTestUtil.h"

using namespace pkb;
using namespace pkb::cktest;

namespace {

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

TEST(Checkers, Sig002EpochParameterBoundToAConstant) {
  // The flag carries param:epoch, but every visible launch passes the
  // constant 1 (`uint32_t Epoch = 1;` in the host): the same value in every
  // call, so from the second call on the wait passes at once.
  auto Build = [](ExprRef EpochArg) {
    KB K("param_epoch");
    K.stdParams();
    K.sync(20);
    K.when(lt(tid(), W()));
    K.mem(EventKind::Store, 21, addr("pads", tid(), rank()), 4,
          MemOrder::Release, Scope::System, v("param:epoch"));
    K.spin(22, addr("pads", rank(), tid()), v("param:epoch"));
    K.end();
    K.sync(23);
    LaunchSite L;
    L.Kernel = K.K.Name;
    L.GridX = c(1);
    L.BlockX = c(256);
    L.Args = {{"epoch", EpochArg}};
    L.Loc = {"test.cu", 80, 3};
    K.K.Launches.push_back(L);
    return K;
  };
  auto F = runAll(Build(c(1)).module());
  EXPECT_EQ(keys(F), (std::set<Key>{{22, "SIG-002"}})) << dump(F);
  // epoch = call_index + 1 is not a constant: no binding, no finding.
  auto FG = runAll(Build(Expr::opaque("call_index + 1")).module());
  EXPECT_TRUE(FG.empty()) << dump(FG);
  // The host values behind an opaque argument (LaunchSite::Arg::Host): a
  // global that only setup writes is the same in every call (SIG-002); the
  // call counter is not.
  auto WithHost = [&](ExprRef Host) {
    KB K = Build(Expr::opaque("Epoch"));
    K.K.Launches.back().Args.back().Host = Host;
    return runAll(K.module());
  };
  auto FF = WithHost(v("host:fixed:gState.epoch"));
  EXPECT_EQ(keys(FF), (std::set<Key>{{22, "SIG-002"}})) << dump(FF);
  auto FC = WithHost(v("host:call_index") + c(1));
  EXPECT_TRUE(FC.empty()) << dump(FC);
}

TEST(Checkers, Sig002DeviceEpochNeverAdvanced) {
  // The epoch is the __device__ scalar g plus one; the kernel advances g
  // only when param:adv is set. Every launch passes adv = 0: g never
  // changes, every call waits for the same value.
  auto Build = [](int64_t Adv) {
    KB K("device_epoch");
    K.stdParams().param("adv", ParamRole::Scalar);
    ExprRef E = v("global:g") + c(1);
    K.load(20, addr("g", nullptr, c(0)));
    K.when(lt(tid(), W()));
    K.mem(EventKind::Store, 21, addr("pads", tid(), rank()), 4,
          MemOrder::Release, Scope::System, E);
    K.spin(22, addr("pads", rank(), tid()), E);
    K.end();
    K.sync(23);
    K.when(ne(v("param:adv"), c(0)));
    K.when(eq(tid(), c(0)));
    K.mem(EventKind::Store, 24, addr("g", nullptr, c(0)), 4, MemOrder::Plain,
          Scope::None, E);
    K.end();
    K.end();
    for (int64_t A : {int64_t(0), Adv}) {
      LaunchSite L;
      L.Kernel = K.K.Name;
      L.GridX = c(1);
      L.BlockX = c(8);
      L.Args = {{"adv", c(A)}};
      L.Loc = {"test.cu", 80, 3};
      K.K.Launches.push_back(L);
    }
    // The candidate's pkb_candidate_run launches it: the per-call host
    // sequence is visible.
    ModuleModel M = K.module();
    HostOp Op;
    Op.Kind = HostOp::KernelCall;
    Op.Callee = K.K.Name;
    Op.Kernels = {K.K.Name};
    M.HostOps = {Op, Op};
    return M;
  };
  auto F = runAll(Build(0));
  EXPECT_EQ(keys(F), (std::set<Key>{{22, "SIG-002"}})) << dump(F);
  // The exit launch passes adv = 1: g advances once per call.
  auto FG = runAll(Build(1));
  EXPECT_TRUE(FG.empty()) << dump(FG);
  // The host writes g (cudaMemcpyToSymbol): not known to be fixed.
  ModuleModel MH = Build(0);
  HostOp Op;
  Op.Kind = HostOp::Other;
  Op.Callee = "cudaMemcpyToSymbol";
  Op.Target = "symbol:g";
  MH.HostOps.push_back(Op);
  auto FH = runAll(MH);
  EXPECT_TRUE(FH.empty()) << dump(FH);
  // No visible host sequence: whether the host writes g is unknown.
  ModuleModel MN = Build(0);
  MN.HostOps.clear();
  auto FN = runAll(MN);
  EXPECT_TRUE(FN.empty()) << dump(FN);
}

} // namespace
