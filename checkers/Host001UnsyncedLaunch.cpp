//===- Host001UnsyncedLaunch.cpp - HOST-001 -------------------------------===//
//
// Python host code: a kernel that reads peers' symmetric buffers (with no
// entry barrier of its own) is launched with no cross-rank barrier between
// the writes into those buffers and the launch.
//
//===----------------------------------------------------------------------===//
#include "Checks.h"
#include "Host.h"

namespace pkb::chk {
namespace {

class Host001 : public Checker {
public:
  PKB_CHECK_INFO("HOST-001", "launch-without-barrier",
                 "A kernel that reads peers' symmetric buffers is launched "
                 "with no cross-rank barrier after those buffers were "
                 "written.",
                 "host-001", ExplainsCrossCallRace | ExplainsOutputMismatch)
  PKB_CHECK_NEEDS(HasHostOps)

  void check(const ModuleModel &M, const CheckOptions &Opts,
             std::vector<Finding> &Out,
             std::vector<Diagnostic> &) const override {
    const auto &Ops = M.HostOps;
    for (size_t K = 0; K < Ops.size(); ++K) {
      if (Ops[K].Kind != HostOp::KernelCall)
        continue;
      bool ReadsPeers = false;
      for (const KernelModel *Km : calledKernels(M, Ops[K]))
        ReadsPeers = ReadsPeers || readsPeersBeforeSync(M, *Km, Opts);
      if (!ReadsPeers)
        continue;
      for (size_t W = 0; W < K; ++W) {
        if (!isSymmWrite(M, Ops[W]) || barrierBetween(M, W, K))
          continue;
        Finding F;
        F.CheckId = info().Id;
        F.Sev = Severity::Error;
        F.Kernel = Ops[K].Callee;
        F.Loc = Ops[K].Loc;
        F.Message = "'" + Ops[K].Callee +
                    "' reads peers' symmetric buffers before any barrier of "
                    "its own, but no cross-rank barrier runs between '" +
                    Ops[W].Callee + "' (line " +
                    std::to_string(Ops[W].Loc.Line) +
                    ") and the launch on every call: peers may not have "
                    "staged their data yet";
        F.FixHint = "call hdl.barrier(channel=0) between the copy into the "
                    "symmetric buffer and the kernel launch, on every call";
        F.Related.push_back({"write", Ops[W].Loc, Ops[W].Callee});
        F.Related.push_back({"launch", Ops[K].Loc, Ops[K].Callee});
        emit(Out, std::move(F));
        break;
      }
    }
  }
};

} // namespace

std::unique_ptr<Checker> makeHost001() { return std::make_unique<Host001>(); }

} // namespace pkb::chk
