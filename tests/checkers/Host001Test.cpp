//===- Host001Test.cpp - HOST-001 on hand-built models --------------------===//
//
// HOST-001: a bad model that must produce exactly this finding (line,
// severity, witness where meaningful) and nothing else, and a good model
// that produces none.
//
//===----------------------------------------------------------------------===//
#include "CheckerTestUtil.h"

using namespace pkb;
using namespace pkb::cktest;

namespace {

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

/// A candidate's kernels for the kernel-to-kernel case: `pushK` stores
/// in[i] into bufs[(rank + 1) % W][i] (line 31) with no exit barrier,
/// `unpackK` copies its own bufs[rank][i] to out (line 41) with no entry
/// barrier, and the synchronization kernels `barrierK` (signal and wait),
/// `signalK` (signal only) and `waitK` (wait only) on the signal pads.
ModuleModel pushUnpackModule() {
  ModuleModel M;
  M.File = "cand.cu";
  KB P("pushK");
  P.stdParams().launch(4, 256);
  unsigned I = P.beginLoop(gtid(), v("param:n"), stride());
  P.store(31, addr("bufs", (rank() + c(1)) % W(), P.lv(I)));
  P.endLoop();
  KB U("unpackK");
  U.stdParams().launch(4, 256);
  unsigned J = U.beginLoop(gtid(), v("param:n"), stride());
  U.load(41, addr("bufs", rank(), U.lv(J)));
  U.store(42, addr("out", nullptr, U.lv(J)));
  U.endLoop();
  M.Kernels = syncKernels();
  M.Kernels.push_back(P.K);
  M.Kernels.push_back(U.K);
  enrich(M);
  return M;
}

/// A launch of \p Kernel at \p Line whose first argument is \p Buf.
HostOp launchOp(unsigned Line, const std::string &Kernel,
                const std::string &Buf) {
  HostOp H;
  H.Kind = HostOp::KernelCall;
  H.Loc = {"cand.cu", Line, 3};
  H.Callee = Kernel;
  H.Kernels = {Kernel};
  H.ArgBuffers = {Buf};
  return H;
}

/// HOST-001 findings of \p M as (line, severity) pairs.
std::set<std::pair<unsigned, Severity>> host001(const ModuleModel &M) {
  return linesOf(runAll(M), "HOST-001");
}

TEST(Checkers, Host001KernelStoresIntoPeersThenReaderWithoutBarrier) {
  ModuleModel M = pushUnpackModule();
  const std::set<std::pair<unsigned, Severity>> Bad = {{62, Severity::Warning}};
  // Nothing between the push and the unpack.
  M.HostOps = {launchOp(60, "pushK", "symm[0]"),
               launchOp(62, "unpackK", "symm[0]")};
  EXPECT_EQ(host001(M), Bad);
  // A kernel that only signals (the barrier kernel's wait removed): the
  // reading rank waits for nobody.
  M.HostOps = {launchOp(60, "pushK", "symm[0]"),
               launchOp(61, "signalK", "signal_pad"),
               launchOp(62, "unpackK", "symm[0]")};
  EXPECT_EQ(host001(M), Bad);
  // A kernel that only waits: the writing rank signals nothing.
  M.HostOps[1] = launchOp(61, "waitK", "signal_pad");
  EXPECT_EQ(host001(M), Bad);
}

TEST(Checkers, Host001KernelStoresIntoPeersOrdered) {
  ModuleModel M = pushUnpackModule();
  // A barrier kernel between the two launches.
  M.HostOps = {launchOp(60, "pushK", "symm[0]"),
               launchOp(61, "barrierK", "signal_pad"),
               launchOp(62, "unpackK", "symm[0]")};
  EXPECT_TRUE(host001(M).empty());
  // Split signal and wait kernels.
  M.HostOps = {
      launchOp(60, "pushK", "symm[0]"), launchOp(61, "signalK", "signal_pad"),
      launchOp(62, "waitK", "signal_pad"), launchOp(63, "unpackK", "symm[0]")};
  EXPECT_TRUE(host001(M).empty());
  // The reader reads another symmetric buffer than the one pushed into.
  M.HostOps = {launchOp(60, "pushK", "symm[0]"),
               launchOp(62, "unpackK", "symm[1]")};
  EXPECT_TRUE(host001(M).empty());
  // Unknown buffers (Python host code): not compared, nothing reported.
  M.HostOps = {launchOp(60, "pushK", ""), launchOp(62, "unpackK", "")};
  EXPECT_TRUE(host001(M).empty());
}

TEST(Checkers, Host001PeerReaderThatNothingWaitsFor) {
  // hostModule()'s gather kernel reads bufs[p][i] of every peer with no
  // barrier of its own. Launched with no host write before it and nothing
  // that waits: it reads whatever the peers last wrote (a Warning, since
  // their writes are not in the file).
  ModuleModel M = hostModule(false);
  M.HostOps.erase(M.HostOps.begin()); // no buf.copy_ before the launch
  M.HostOps.pop_back();               // no barrier after it either
  EXPECT_EQ(host001(M),
            (std::set<std::pair<unsigned, Severity>>{{52, Severity::Warning}}));
  // A barrier before the launch waits for the peers: nothing to report.
  ModuleModel G = hostModule(true);
  G.HostOps.erase(G.HostOps.begin());
  auto FG = runAll(G);
  EXPECT_TRUE(FG.empty()) << dump(FG);
}

} // namespace
