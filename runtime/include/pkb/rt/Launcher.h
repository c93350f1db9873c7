//===- pkb/rt/Launcher.h - Start a group of sandboxed workers ---*- C++ -*-===//
//
// Starts one worker process per rank (re-executing this binary with the
// hidden `worker` subcommand), each in its own process group, in its own
// scratch directory, with a scrubbed environment and resource limits, and
// optionally under compute-sanitizer; then serves them with a Hub.
//
//===----------------------------------------------------------------------===//
#ifndef PKB_RT_LAUNCHER_H
#define PKB_RT_LAUNCHER_H

#include "pkb/rt/Hub.h"

#include <nlohmann/json.hpp>

#include <filesystem>
#include <map>
#include <string>
#include <vector>

namespace pkb::rt {

/// One group of workers.
struct GroupSpec {
  int WorldSize = 1;
  std::string Exe; ///< binary to run; empty: /proc/self/exe
  /// Arguments between Exe and "worker" (e.g. the script of a Python worker).
  std::vector<std::string> ExeArgs;
  nlohmann::json Config;    ///< worker configuration (see Worker.h)
  std::string Sanitizer;    ///< "", "memcheck", "racecheck", "synccheck"
  std::string SanitizerExe; ///< compute-sanitizer path; empty: search
  std::map<std::string, std::string> ExtraEnv; ///< added after scrubbing
  int BootstrapTimeoutMs = 120000;
  bool KeepScratch = false; ///< leave the scratch directory behind
  std::function<void(int Rank, const nlohmann::json &)> OnResult;
  std::function<void(int Rank, const std::string &)> OnLog;
};

/// Outcome of a group, plus the tail of every worker's log and the
/// sanitizer reports.
struct GroupOutcome {
  HubOutcome Hub;
  std::map<int, std::string> LogTail;      ///< rank -> last 4 KiB of output
  std::map<int, std::string> SanitizerLog; ///< rank -> report (if any)
  std::map<int, int> SanitizerErrors;      ///< rank -> "ERROR SUMMARY" count
  std::string Error;                       ///< spawn failure, if any
};

/// The environment a worker gets: PATH, LD_LIBRARY_PATH, CUDA_HOME,
/// CUDA_VISIBLE_DEVICES, CUDA_*/NCCL_*/PKB_* settings of the caller, LANG=C,
/// HOME and TMPDIR set to Scratch, and always NCCL_NVLS_ENABLE=0,
/// TORCH_SYMM_MEM_DISABLE_MULTICAST=1, NVSHMEM_DISABLE_NVLS=1 (NVLink
/// multicast stays off). Entries are "NAME=value". Env defaults to environ.
std::vector<std::string>
scrubbedEnvironment(const std::filesystem::path &Scratch,
                    const std::map<std::string, std::string> &Extra,
                    char **Env = nullptr);

/// Number of "ERROR SUMMARY: N error(s)" in a compute-sanitizer log (sum of
/// all summaries); 0 when none.
int sanitizerErrorCount(const std::string &Log);

/// The most useful part of a compute-sanitizer log: Lines lines starting at
/// the first kernel report (Invalid access, race, barrier, uninitialized
/// access), else at the first report of any kind (API errors, which NCCL's
/// start-up also produces), else the first lines.
std::string sanitizerExcerpt(const std::string &Log, int Lines = 24);

/// compute-sanitizer from $PKB_COMPUTE_SANITIZER, CUDA_HOME, /usr/local/cuda
/// or PATH; empty if none.
std::string findComputeSanitizer();

/// Starts the group and serves it until it completes or fails.
GroupOutcome runWorkerGroup(const GroupSpec &Spec);

/// Path of the running executable (readlink /proc/self/exe).
std::string selfExe();

} // namespace pkb::rt

#endif // PKB_RT_LAUNCHER_H
