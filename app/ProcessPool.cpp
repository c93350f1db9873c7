//===- ProcessPool.cpp - One child process per input file -----------------===//

#include "ProcessPool.h"

#include "pkb/DiagCode.h"
#include "pkb/ModelJson.h"
#include "pkb/support/Heap.h"
#include "pkb/support/Subprocess.h"

#include <fmt/format.h>

#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstring>
#include <fcntl.h>
#include <new>
#include <poll.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>
#ifdef __linux__
#include <sys/prctl.h>
#endif

namespace pkb {

namespace {

volatile sig_atomic_t Caught = 0;      ///< first SIGINT/SIGTERM, or 0
volatile sig_atomic_t SecondKills = 0; ///< of the innermost guard
int GuardDepth = 0;

extern "C" void onInterrupt(int Sig) {
  if (Caught && SecondKills) {
    ::signal(Sig, SIG_DFL);
    ::raise(Sig);
    return;
  }
  if (!Caught)
    Caught = Sig;
}

struct Child {
  size_t Index = 0;
  pid_t Pid = -1;
  int Fd = -1;
  std::string Output;
  std::chrono::steady_clock::time_point Deadline;
  bool HasDeadline = false;
  bool TimedOut = false;
  bool Eof = false;
};

void writeAll(int Fd, const std::string &S) {
  size_t Off = 0;
  while (Off < S.size()) {
    ssize_t N = ::write(Fd, S.data() + Off, S.size() - Off);
    if (N < 0) {
      if (errno == EINTR)
        continue;
      return;
    }
    Off += static_cast<size_t>(N);
  }
}

FileReport failedReport(const std::string &Path, const std::string &Status,
                        DiagCode Code, const std::string &Msg, double Seconds) {
  FileReport R;
  R.Path = Path;
  R.Status = Status;
  R.Seconds = Seconds;
  Diagnostic D;
  D.Code = std::string(toString(Code));
  D.Sev = Severity::Error;
  D.Loc = SourceLoc{Path, 1, 1};
  D.Message = Msg;
  R.Diags.push_back(D);
  return R;
}

/// What the child writes to its pipe if it runs out of memory or stack:
/// built before the work starts, because nothing can be allocated when it is
/// needed.
const std::string *OomReport = nullptr;
const std::string *StackReport = nullptr;
int ReportFd = -1;
size_t OomLimitBytes = 0;
const char *volatile StackLow = nullptr;

/// Gives the calling thread \p Buf as its alternate signal stack (they are
/// per thread), so the crash handler can run when the thread's own stack is
/// exhausted.
template <size_t N> void installAltStack(char (&Buf)[N]) {
  stack_t SS{};
  SS.ss_sp = Buf;
  SS.ss_size = N;
  ::sigaltstack(&SS, nullptr);
}

[[noreturn]] void writeAndExit(const std::string *Report) {
  if (Report && ReportFd >= 0)
    writeAll(ReportFd, *Report);
  ::_exit(0);
}

/// The child's output is one JSON object per line: progress messages
/// ({"kind":"progress",...}), partial reports ({"kind":"partial",...}) and,
/// last, the file's report (an object without "kind").
struct ChildOutput {
  nlohmann::json Final;        ///< the report, or null
  nlohmann::json LastPartial;  ///< the last partial report, or null
  nlohmann::json LastProgress; ///< the last progress message, or null
};

ChildOutput parseChildOutput(const std::string &Out) {
  ChildOutput C;
  size_t Pos = 0;
  while (Pos < Out.size()) {
    size_t End = Out.find('\n', Pos);
    if (End == std::string::npos)
      End = Out.size();
    nlohmann::json J = nlohmann::json::parse(
        Out.begin() + static_cast<long>(Pos),
        Out.begin() + static_cast<long>(End), nullptr, false);
    Pos = End + 1;
    if (J.is_discarded() || !J.is_object())
      continue;
    auto Kind = J.find("kind");
    if (Kind == J.end())
      C.Final = std::move(J);
    else if (*Kind == "partial" && J.contains("report") &&
             J["report"].is_object())
      C.LastPartial = std::move(J);
    else if (*Kind == "progress")
      C.LastProgress = std::move(J);
  }
  return C;
}

/// " while CHECK checked kernel 'K'" (or the front end ran) from a
/// progress message; "" when there is none.
std::string whereItStopped(const nlohmann::json &P) {
  if (!P.is_object())
    return "";
  std::string Phase = P.value("phase", "");
  if (Phase == "frontend")
    return " while the front end parsed the file";
  if (Phase != "check")
    return "";
  std::string Check = P.value("check", ""), Kernel = P.value("kernel", "");
  return " while " + Check + " checked " +
         (Kernel.empty() ? std::string("the host code")
                         : "kernel '" + Kernel + "'");
}

/// A timeout or crash report that keeps what the child finished: the
/// findings and diagnostics of its last partial report, and the message
/// says where the analysis stopped.
FileReport stoppedReport(const std::string &Path, const std::string &Status,
                         DiagCode Code, const std::string &Msg, double Seconds,
                         const ChildOutput &C) {
  FileReport R = failedReport(Path, Status, Code,
                              Msg + whereItStopped(C.LastProgress), Seconds);
  if (C.LastPartial.is_object()) {
    FileReport P = fileReportFromJson(C.LastPartial["report"]);
    R.Kernels = P.Kernels;
    R.Undecided = P.Undecided;
    R.Findings = std::move(P.Findings);
    R.Diags.front().Message +=
        "; the findings of the " +
        std::to_string(C.LastPartial.value("checks_done", 0u)) +
        " check(s) that finished are kept";
    R.Diags.insert(R.Diags.begin() + 1, P.Diags.begin(), P.Diags.end());
  }
  return R;
}

[[noreturn]] void writeOomAndExit() { writeAndExit(OomReport); }

/// True when this process's data size is within 64 MiB of the limit: a
/// crash there is almost surely an allocation that failed (LLVM and Z3
/// abort, or dereference a null mapping, when memory runs out).
bool nearDataLimit() {
  int Fd = ::open("/proc/self/statm", O_RDONLY);
  if (Fd < 0)
    return false;
  char Buf[64];
  ssize_t N = ::read(Fd, Buf, sizeof(Buf) - 1);
  ::close(Fd);
  if (N <= 0)
    return false;
  Buf[N] = 0;
  // statm: size resident shared text lib data dt (pages); data is field 6.
  size_t Field[6] = {0, 0, 0, 0, 0, 0};
  unsigned I = 0;
  for (char *P = Buf; *P && I < 6; ++P) {
    if (*P >= '0' && *P <= '9')
      Field[I] = Field[I] * 10 + static_cast<size_t>(*P - '0');
    else if (*P == ' ')
      ++I;
  }
  size_t Bytes = Field[5] * static_cast<size_t>(::sysconf(_SC_PAGESIZE));
  return OomLimitBytes && Bytes + (size_t(64) << 20) >= OomLimitBytes;
}

void crashHandler(int Sig, siginfo_t *Info, void *) {
  const char *Addr = static_cast<const char *>(Info ? Info->si_addr : nullptr);
  const char *Low = StackLow;
  // A fault up to 16 MiB below, or 64 KiB above, the bottom of the
  // analysis thread's stack is the recursion running out of stack (the
  // guard area below the stack is unmapped; a large frame can skip past
  // its first page, as Clang's parser frames do).
  if ((Sig == SIGSEGV || Sig == SIGBUS) && Low && Addr &&
      Addr + (16 << 20) >= Low && Addr < Low + (64 << 10))
    writeAndExit(StackReport);
  if (nearDataLimit())
    writeOomAndExit();
  ::signal(Sig, SIG_DFL);
  ::raise(Sig);
}

/// In the child: reports running out of the --max-memory data limit as
/// "memory-limit" rather than as the crash it causes (bad_alloc, an LLVM
/// "out of memory" abort, or a SIGSEGV on a failed mapping), and running
/// out of the analysis thread's stack as "nesting-too-deep".
void installCrashReporting(const std::string &Path, unsigned LimitMiB, int Fd) {
  static std::string Oom, Stack;
  Oom =
      "\n" +
      dumpJson(toJson(failedReport(
          Path, "memory-limit", DiagCode::MemoryLimit,
          "analysis exceeded the memory limit of " + std::to_string(LimitMiB) +
              " MiB and was stopped (--max-memory); other files are "
              "unaffected",
          0)));
  Stack = "\n" + dumpJson(toJson(failedReport(
                     Path, "input-error", DiagCode::NestingTooDeep,
                     "the input nests too deeply: the parser's recursion "
                     "exhausted the analysis stack of " +
                         std::to_string(kAnalysisStackBytes >> 20) +
                         " MiB (an expression or statement with tens of "
                         "thousands of nested operators?)",
                     0)));
  OomReport = LimitMiB ? &Oom : nullptr;
  StackReport = &Stack;
  ReportFd = Fd;
  OomLimitBytes = size_t(LimitMiB) << 20;
  if (LimitMiB)
    std::set_new_handler([] { writeOomAndExit(); });
  static char MainAltStack[1 << 16];
  installAltStack(MainAltStack);
  struct sigaction SA{};
  SA.sa_sigaction = crashHandler;
  SA.sa_flags = SA_ONSTACK | SA_SIGINFO;
  sigemptyset(&SA.sa_mask);
  for (int Sig : {SIGSEGV, SIGBUS, SIGABRT})
    ::sigaction(Sig, &SA, nullptr);
}

} // namespace

void noteAnalysisStack(const void *Low) {
  StackLow = static_cast<const char *>(Low);
  static char AnalysisAltStack[1 << 16];
  if (Low)
    installAltStack(AnalysisAltStack);
}

struct InterruptGuard::Saved {
  struct sigaction Int{};
  struct sigaction Term{};
  sig_atomic_t SecondKills = 0;
};

InterruptGuard::InterruptGuard(bool SecondSignalKills)
    : Old(std::make_unique<Saved>()) {
  if (GuardDepth++ == 0)
    Caught = 0;
  Old->SecondKills = SecondKills;
  SecondKills = SecondSignalKills;
  struct sigaction A{};
  A.sa_handler = onInterrupt;
  sigemptyset(&A.sa_mask);
  A.sa_flags = 0; // no SA_RESTART: poll() returns EINTR at once
  ::sigaction(SIGINT, &A, &Old->Int);
  ::sigaction(SIGTERM, &A, &Old->Term);
}

InterruptGuard::~InterruptGuard() {
  ::sigaction(SIGINT, &Old->Int, nullptr);
  ::sigaction(SIGTERM, &Old->Term, nullptr);
  SecondKills = Old->SecondKills;
  --GuardDepth;
}

int InterruptGuard::signal() const { return Caught; }

int interruptExitStatus(int Sig) { return 128 + Sig; }

std::string signalName(int Sig) {
  if (Sig == SIGINT)
    return "SIGINT";
  if (Sig == SIGTERM)
    return "SIGTERM";
  return "signal " + std::to_string(Sig);
}

int runInChildren(const std::vector<std::string> &Paths,
                  const PoolOptions &Opts,
                  const std::function<FileReport(const std::string &)> &Work,
                  const std::function<void(size_t, FileReport)> &OnDone) {
  using Clock = std::chrono::steady_clock;
  InterruptGuard Guard;
  std::vector<Child> Running;
  std::vector<Clock::time_point> Started(Paths.size());
  size_t Next = 0;
  unsigned Jobs = Opts.Jobs ? Opts.Jobs : 1;

  auto Spawn = [&](size_t Index) {
    Started[Index] = Clock::now();
    if (Opts.OnStart)
      Opts.OnStart(Index);
    // The child: own process group (a terminal's Ctrl-C reaches the driver
    // only, and the driver can kill everything it starts at once), killed
    // with the driver should that die without a chance to clean up
    // (SIGKILL, an OOM kill), and a memory limit: RLIMIT_DATA (heap,
    // anonymous mappings, thread stacks) rather than RLIMIT_AS: the address
    // space of the mapped LLVM, Clang and Z3 libraries alone exceeds 1 GiB,
    // so an AS limit says little.
    support::SpawnOptions SO;
    SO.Out = support::SpawnOptions::Output::Pipe;
    SO.DieWithParent = true;
    if (Opts.MaxMemoryMiB)
      SO.Limits.push_back({RLIMIT_DATA, rlim_t(Opts.MaxMemoryMiB) << 20});
    SO.InChild = [] {
      struct sigaction Dfl{};
      Dfl.sa_handler = SIG_DFL;
      sigemptyset(&Dfl.sa_mask);
      ::sigaction(SIGINT, &Dfl, nullptr);
      ::sigaction(SIGTERM, &Dfl, nullptr);
    };
    SO.Body = [&](int PipeFd) {
      // Huge pages for the worker's heap (pkb/support/Heap.h, which caps the
      // reserve at 1 GiB): half the memory limit of address space; a fifth
      // of a file's time went to first-touch page faults.
      support::prepareWorkerHeap(Opts.MaxMemoryMiB
                                     ? (size_t(Opts.MaxMemoryMiB) << 20) / 2
                                     : size_t(1) << 30);
      installCrashReporting(Paths[Index], Opts.MaxMemoryMiB, PipeFd);
      // This child analyzes one file and then _exits (spawnProcess): the
      // solver contexts need not be torn down first.
      keepCheckContextsUntilExit(true);
      // One JSON object per line (dumpJson: invalid UTF-8 in file names is
      // replaced, not thrown on): progress, partial reports, the report.
      setAnalysisProgressSink([PipeFd](const nlohmann::json &M) {
        writeAll(PipeFd, dumpJson(M) + "\n");
      });
      std::string Out = "\n";
      try {
        Out += dumpJson(toJson(Work(Paths[Index])));
      } catch (const std::bad_alloc &) {
        if (OomReport)
          writeOomAndExit();
        Out += dumpJson(
            toJson(failedReport(Paths[Index], "crash", DiagCode::OutOfMemory,
                                "analysis ran out of memory", 0)));
      } catch (const std::exception &E) {
        Out += dumpJson(toJson(failedReport(
            Paths[Index], "crash", DiagCode::InternalError, E.what(), 0)));
      }
      writeAll(PipeFd, Out);
      ::close(PipeFd);
      return 0;
    };
    auto Spawned = support::spawnProcess(SO);
    if (!Spawned) {
      OnDone(Index, failedReport(Paths[Index], "crash", DiagCode::InternalError,
                                 Spawned.error().Message, 0));
      return;
    }
    pid_t Pid = Spawned->Pid;
    int ReadFd = Spawned->OutFd;
    ::fcntl(ReadFd, F_SETFL, ::fcntl(ReadFd, F_GETFL) | O_NONBLOCK);
    Child C;
    C.Index = Index;
    C.Pid = Pid;
    C.Fd = ReadFd;
    if (Opts.TimeoutSeconds > 0) {
      C.HasDeadline = true;
      C.Deadline = Started[Index] +
                   std::chrono::milliseconds(
                       static_cast<int64_t>(Opts.TimeoutSeconds * 1000));
    }
    Running.push_back(std::move(C));
  };

  auto Finish = [&](Child &C) {
    long RssKiB = 0;
    int Status = support::waitStatus(C.Pid, &RssKiB);
    // Every report of the file carries its worker's peak memory.
    auto Done = [&](FileReport R) {
      R.PeakRssMiB = double(RssKiB) / 1024.0;
      OnDone(C.Index, std::move(R));
    };
    ::close(C.Fd);
    const std::string &Path = Paths[C.Index];
    double Secs =
        std::chrono::duration<double>(Clock::now() - Started[C.Index]).count();
    ChildOutput Parsed = parseChildOutput(C.Output);
    if (C.TimedOut) {
      Done(stoppedReport(Path, "timeout", DiagCode::Timeout,
                         fmt::format("analysis exceeded the time limit of "
                                     "{:g} s and was stopped (--timeout)",
                                     Opts.TimeoutSeconds),
                         Secs, Parsed));
      return;
    }
    if (WIFSIGNALED(Status)) {
      int Sig = WTERMSIG(Status);
      Done(stoppedReport(Path, "crash", DiagCode::FrontendCrash,
                         std::string("analysis crashed (signal ") +
                             ::strsignal(Sig) + "); other files are unaffected",
                         Secs, Parsed));
      return;
    }
    nlohmann::json &J = Parsed.Final;
    if (!J.is_object()) {
      Done(failedReport(Path, "crash", DiagCode::FrontendCrash,
                        "analysis ended without a result (exit status " +
                            std::to_string(WEXITSTATUS(Status)) + ")",
                        Secs));
      return;
    }
    Done(fileReportFromJson(J));
  };

  int Interrupted = 0;
  int PollError = 0;
  while (Next < Paths.size() || !Running.empty()) {
    if ((Interrupted = Guard.signal()))
      break;
    while (Running.size() < Jobs && Next < Paths.size())
      Spawn(Next++);
    if (Running.empty())
      continue;
    std::vector<pollfd> Fds;
    for (const Child &C : Running)
      Fds.push_back(pollfd{C.Fd, POLLIN, 0});
    int Rc = ::poll(Fds.data(), Fds.size(), 100);
    if (Rc < 0 && errno != EINTR) {
      PollError = errno;
      break;
    }
    char Buf[65536];
    for (size_t I = 0; I < Running.size(); ++I) {
      Child &C = Running[I];
      if (Fds[I].revents & (POLLIN | POLLHUP | POLLERR)) {
        for (;;) {
          ssize_t N = ::read(C.Fd, Buf, sizeof(Buf));
          if (N > 0) {
            C.Output.append(Buf, static_cast<size_t>(N));
            continue;
          }
          if (N == 0)
            C.Eof = true;
          break;
        }
      }
      if (!C.Eof && C.HasDeadline && Clock::now() > C.Deadline) {
        support::killProcessGroup(C.Pid);
        C.TimedOut = true;
        C.Eof = true;
      }
    }
    for (size_t I = 0; I < Running.size();) {
      if (Running[I].Eof) {
        Child C = std::move(Running[I]);
        Running.erase(Running.begin() + static_cast<long>(I));
        Finish(C);
      } else {
        ++I;
      }
    }
  }
  // Interrupted (or poll failed): the running children's results would come
  // too late; kill their process groups and reap them so that none outlives
  // the driver.
  for (Child &C : Running) {
    support::killProcessGroup(C.Pid);
    support::waitStatus(C.Pid);
    ::close(C.Fd);
  }
  if (PollError) {
    // Not an interruption: every path still gets a report.
    std::string Msg = std::string("analysis stopped: poll failed: ") +
                      std::strerror(PollError);
    for (const Child &C : Running)
      OnDone(C.Index, failedReport(Paths[C.Index], "crash",
                                   DiagCode::InternalError, Msg, 0));
    for (; Next < Paths.size(); ++Next)
      OnDone(Next, failedReport(Paths[Next], "crash", DiagCode::InternalError,
                                Msg, 0));
  }
  return Interrupted;
}

} // namespace pkb
