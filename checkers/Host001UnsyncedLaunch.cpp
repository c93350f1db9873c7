//===- Host001UnsyncedLaunch.cpp - HOST-001 -------------------------------===//
//
// A kernel that reads symmetric buffers before any cross-rank wait of its
// own (no entry barrier) is launched with no cross-rank barrier between the
// writes into those buffers and the launch: a host write into a symmetric
// buffer (Python `copy_`/`zero_`/`fill_`, C++ `cudaMemcpy*`), or, in C++
// host code, an earlier kernel of the same call that stores into peers'
// copies of the buffer with no exit barrier of its own.
//
//===----------------------------------------------------------------------===//
#include "Checks.h"
#include "Host.h"

#include <algorithm>

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
      const size_t Before = Out.size();
      checkPeerWrites(M, Opts, K, Out);
      if (!ReadsPeers)
        continue;
      for (size_t W = 0; W < K; ++W) {
        if (!isSymmWrite(M, Ops[W]) || barrierBetween(M, W, K))
          continue;
        Finding F = hostFinding(info().Id, Severity::Error, Ops[K], Ops[K]);
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
      if (Out.size() == Before)
        checkNoWaitBefore(M, K, Out);
    }
  }

private:
  /// The launch \p R reads peers' symmetric buffers before any cross-rank
  /// wait of its own, and no operation of the host sequence before it
  /// waits on peers on the launching rank (none at all, or only ones on the
  /// other arm of an `if`): whatever the peers wrote for this call need not
  /// have landed. The peers' writes are not visible here (staged before the
  /// call, or by code outside the file), hence a Warning.
  void checkNoWaitBefore(const ModuleModel &M, size_t R,
                         std::vector<Finding> &Out) const {
    const auto &Ops = M.HostOps;
    for (size_t X = 0; X < R; ++X)
      if (syncOf(M, Ops[X]).Waits && !exclusive(Ops[X], Ops[R]))
        return;
    Finding F = hostFinding(info().Id, Severity::Warning, Ops[R], Ops[R]);
    F.Message = "'" + Ops[R].Callee +
                "' reads peers' symmetric buffers before any barrier of its "
                "own, and nothing before the launch waits for the peers on "
                "this rank: it reads whatever they last wrote, not "
                "necessarily this call's data";
    F.FixHint = "wait for the peers' signal (a barrier kernel or "
                "hdl.barrier()) before the launch, or at the kernel's entry";
    F.Related.push_back({"launch", Ops[R].Loc, Ops[R].Callee});
    emit(Out, std::move(F));
  }

  /// C++ host code: an earlier launch of the same call that stores into
  /// peers' copies of a symmetric buffer after its last cross-rank signal,
  /// and the launch \p R, whose kernel reads that buffer (any rank's copy)
  /// before its first cross-rank wait, with no operation between them that
  /// signals on the writing rank and waits on the reading one. The two
  /// kernels' byte ranges are not compared, hence a Warning.
  void checkPeerWrites(const ModuleModel &M, const CheckOptions &Opts, size_t R,
                       std::vector<Finding> &Out) const {
    const auto &Ops = M.HostOps;
    std::vector<std::string> ReadBufs;
    for (const KernelModel *Km : calledKernels(M, Ops[R]))
      for (size_t P : unguardedSymmReadParams(M, *Km, Opts))
        if (std::string B = argBuffer(Ops[R], *Km, P); B.rfind("symm[", 0) == 0)
          ReadBufs.push_back(B);
    if (ReadBufs.empty())
      return;
    for (size_t W = 0; W < R; ++W) {
      if (Ops[W].Kind != HostOp::KernelCall)
        continue;
      std::string Hit;
      for (const KernelModel *Km : calledKernels(M, Ops[W]))
        for (size_t P : exposedPeerWriteParams(M, *Km, Opts))
          if (std::string B = argBuffer(Ops[W], *Km, P);
              Hit.empty() &&
              std::find(ReadBufs.begin(), ReadBufs.end(), B) != ReadBufs.end())
            Hit = B;
      if (Hit.empty() || barrierBetween(M, W, R))
        continue;
      Finding F = hostFinding(info().Id, Severity::Warning, Ops[R], Ops[R]);
      F.Message = "'" + Ops[R].Callee + "' reads symmetric buffer '" + Hit +
                  "' before any barrier of its own, but '" + Ops[W].Callee +
                  "' (line " + std::to_string(Ops[W].Loc.Line) +
                  ") stores into peers' copies of it with no cross-rank "
                  "barrier between the two launches: a peer's stores may not "
                  "have landed when this rank reads (the byte ranges of the "
                  "two kernels are not compared)";
      F.FixHint = "launch a barrier kernel (signal every peer, then wait for "
                  "every peer) between the two kernels, or signal at the end "
                  "of the writing kernel and wait at the start of the "
                  "reading one";
      F.Related.push_back({"write", Ops[W].Loc, Ops[W].Callee});
      F.Related.push_back({"launch", Ops[R].Loc, Ops[R].Callee});
      emit(Out, std::move(F));
      return;
    }
  }
};

} // namespace

std::unique_ptr<Checker> makeHost001() { return std::make_unique<Host001>(); }

} // namespace pkb::chk
