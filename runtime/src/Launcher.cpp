//===- Launcher.cpp - Start a group of sandboxed workers ------------------===//
#include "pkb/rt/Launcher.h"
#include "pkb/rt/Wire.h"
#include "pkb/support/Subprocess.h"
#include "pkb/support/Toolkit.h"

#include <fmt/format.h>

#include <cerrno>
#include <csignal>
#include <cstdlib>
#include <cstring>
#include <fcntl.h>
#include <fstream>
#include <regex>
#include <sstream>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;

namespace pkb::rt {
namespace fs = std::filesystem;

std::string selfExe() {
  std::error_code Ec;
  auto P = fs::read_symlink("/proc/self/exe", Ec);
  return Ec ? std::string("/proc/self/exe") : P.string();
}

std::vector<std::string>
scrubbedEnvironment(const fs::path &Scratch,
                    const std::map<std::string, std::string> &Extra,
                    char **Env) {
  static const char *Keep[] = {"PATH",      "LD_LIBRARY_PATH",
                               "CUDA_HOME", "CUDA_VISIBLE_DEVICES",
                               "USER",      "LOGNAME"};
  static const char *KeepPrefix[] = {"CUDA_", "NCCL_", "PKB_", "NVIDIA_"};
  std::map<std::string, std::string> Out;
  for (char **E = Env ? Env : environ; E && *E; ++E) {
    std::string S = *E;
    auto Eq = S.find('=');
    if (Eq == std::string::npos)
      continue;
    std::string Name = S.substr(0, Eq);
    bool Take = false;
    for (const char *K : Keep)
      Take |= Name == K;
    for (const char *K : KeepPrefix)
      Take |= Name.rfind(K, 0) == 0;
    if (Take)
      Out[Name] = S.substr(Eq + 1);
  }
  Out["HOME"] = Scratch.string();
  Out["TMPDIR"] = Scratch.string();
  Out["LANG"] = "C";
  Out["LC_ALL"] = "C";
  for (const auto &[K, V] : Extra)
    Out[K] = V;
  // NVLink multicast stays off whatever the caller set.
  Out["NCCL_NVLS_ENABLE"] = "0";
  Out["TORCH_SYMM_MEM_DISABLE_MULTICAST"] = "1";
  Out["NVSHMEM_DISABLE_NVLS"] = "1";
  std::vector<std::string> V;
  for (const auto &[K, Val] : Out)
    V.push_back(K + "=" + Val);
  return V;
}

int sanitizerErrorCount(const std::string &Log) {
  static const std::regex Re(R"(ERROR SUMMARY:\s*([0-9]+)\s+error)");
  int Total = 0;
  bool Summary = false;
  for (auto It = std::sregex_iterator(Log.begin(), Log.end(), Re);
       It != std::sregex_iterator(); ++It) {
    Total += std::atoi((*It)[1].str().c_str());
    Summary = true;
  }
  if (Summary)
    return Total;
  // A worker killed after a fatal error leaves no summary: count the
  // reports compute-sanitizer printed as they happened.
  static const std::regex Report(
      R"((^|\n)========= (Invalid |Race reported|Barrier error|Error:|Warning: .*hazard|Uninitialized|Program hit))");
  for (auto It = std::sregex_iterator(Log.begin(), Log.end(), Report);
       It != std::sregex_iterator(); ++It)
    ++Total;
  return Total;
}

std::string sanitizerExcerpt(const std::string &Log, int Lines) {
  size_t Start = std::string::npos;
  for (const char *Key :
       {"========= Invalid ", "========= Race reported",
        "========= Barrier error", "========= Uninitialized",
        "========= Warning: ", "========= Program hit", "========= Error"}) {
    size_t P = Log.find(Key);
    if (P != std::string::npos) {
      Start = P;
      break;
    }
  }
  if (Start == std::string::npos)
    Start = 0;
  size_t End = Start;
  for (int I = 0; I < Lines && End != std::string::npos; ++I)
    End = Log.find('\n', End + 1);
  return Log.substr(Start,
                    End == std::string::npos ? std::string::npos : End - Start);
}

std::string findComputeSanitizer() {
  return support::findToolkitTool("compute-sanitizer", "",
                                  support::envOr("PKB_COMPUTE_SANITIZER"));
}

namespace {
std::string tailOf(const fs::path &P, size_t Bytes) {
  std::ifstream In(P, std::ios::binary);
  if (!In)
    return {};
  In.seekg(0, std::ios::end);
  auto Size = static_cast<size_t>(In.tellg());
  size_t From = Size > Bytes ? Size - Bytes : 0;
  In.seekg(static_cast<std::streamoff>(From));
  std::string S(Size - From, '\0');
  In.read(S.data(), static_cast<std::streamsize>(S.size()));
  return S;
}

/// fork+exec one worker. The child gets its own process group, the scratch
/// directory as cwd, output in Log, no core dumps and bounded files/CPU.
/// Returns its pid, or the spawner's Error.
support::Expected<pid_t> spawn(const std::vector<std::string> &Argv,
                               const std::vector<std::string> &Env,
                               const fs::path &Cwd, const fs::path &Log) {
  support::SpawnOptions O;
  O.Argv = Argv;
  O.Env = Env;
  O.Cwd = Cwd.string();
  O.Out = support::SpawnOptions::Output::File;
  O.OutputFile = Log.string();
  O.Limits = {{RLIMIT_CORE, 0},
              {RLIMIT_NOFILE, 65536},
              {RLIMIT_FSIZE, rlim_t(8) << 30},
              {RLIMIT_CPU, 4 * 3600}};
  auto C = support::spawnProcess(O);
  if (!C)
    return C.error();
  return C->Pid;
}
} // namespace

GroupOutcome runWorkerGroup(const GroupSpec &Spec) {
  GroupOutcome Out;
  char Template[] = "/tmp/pkbcheck-XXXXXX";
  const char *Dir = ::mkdtemp(Template);
  if (!Dir) {
    Out.Error = fmt::format("mkdtemp: {}", std::strerror(errno));
    Out.Hub.K = HubOutcome::Kind::BootstrapFailed;
    Out.Hub.Detail = Out.Error;
    return Out;
  }
  fs::path Scratch = Dir;
  std::string Socket = (Scratch / "hub.sock").string();
  auto Listening = listenUnix(Socket);
  if (!Listening) {
    Out.Error = Listening.error().Message;
    Out.Hub.K = HubOutcome::Kind::BootstrapFailed;
    Out.Hub.Detail = Out.Error;
    return Out;
  }
  int L = *Listening;
  HubOptions HO;
  HO.WorldSize = Spec.WorldSize;
  HO.Config = Spec.Config;
  HO.BootstrapTimeoutMs = Spec.BootstrapTimeoutMs;
  HO.OnResult = Spec.OnResult;
  HO.OnLog = Spec.OnLog;
  Hub H(L, HO);
  std::string Exe = Spec.Exe.empty() ? selfExe() : Spec.Exe;
  std::string San;
  if (!Spec.Sanitizer.empty()) {
    San =
        Spec.SanitizerExe.empty() ? findComputeSanitizer() : Spec.SanitizerExe;
    if (San.empty()) {
      Out.Error = "compute-sanitizer not found";
      Out.Hub.K = HubOutcome::Kind::BootstrapFailed;
      Out.Hub.Detail = Out.Error;
      return Out;
    }
  }
  bool Spawned = true;
  std::vector<pid_t> Pids;
  for (int R = 0; R < Spec.WorldSize; ++R) {
    fs::path Cwd = Scratch / fmt::format("rank{}", R);
    std::error_code Ec;
    fs::create_directories(Cwd, Ec);
    std::vector<std::string> Argv;
    if (!San.empty())
      Argv = {San,
              "--tool",
              Spec.Sanitizer,
              "--log-file",
              (Scratch / fmt::format("sanitizer-{}.log", R)).string(),
              "--print-limit",
              "20",
              "--target-processes",
              "all",
              "--launch-timeout",
              "120"};
    if (Spec.Command.empty())
      Argv.insert(Argv.end(), {Exe, "worker"});
    else
      Argv.insert(Argv.end(), Spec.Command.begin(), Spec.Command.end());
    Argv.insert(Argv.end(), {"--socket", Socket, "--rank", std::to_string(R),
                             "--world", std::to_string(Spec.WorldSize)});
    auto Env = scrubbedEnvironment(Cwd, Spec.ExtraEnv);
    auto Pid = spawn(Argv, Env, Cwd, Scratch / fmt::format("rank{}.log", R));
    if (!Pid) {
      Out.Error = Pid.error().Message;
      Spawned = false;
      break;
    }
    H.adoptChild(R, *Pid);
    Pids.push_back(*Pid);
  }
  if (Spawned) {
    Out.Hub = H.run();
  } else {
    for (pid_t Pid : Pids) {
      ::kill(-Pid, SIGKILL);
      int Status = 0;
      ::waitpid(Pid, &Status, 0);
    }
    Out.Hub.K = HubOutcome::Kind::BootstrapFailed;
    Out.Hub.Detail = Out.Error;
  }
  for (int R = 0; R < Spec.WorldSize; ++R) {
    Out.LogTail[R] = tailOf(Scratch / fmt::format("rank{}.log", R), 4096);
    fs::path SL = Scratch / fmt::format("sanitizer-{}.log", R);
    if (fs::exists(SL)) {
      std::string Log = tailOf(SL, 1 << 20);
      Out.SanitizerErrors[R] = sanitizerErrorCount(Log);
      Out.SanitizerLog[R] = std::move(Log);
    }
  }
  if (!Spec.KeepScratch) {
    std::error_code Ec;
    fs::remove_all(Scratch, Ec);
  }
  return Out;
}

} // namespace pkb::rt
