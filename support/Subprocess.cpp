//===- Subprocess.cpp - Starting and ending children ----------------------===//
#include "pkb/support/Subprocess.h"

#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstring>
#include <fcntl.h>
#include <poll.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>
#ifdef __linux__
#include <sys/prctl.h>
#endif

namespace pkb::support {

namespace {
std::string sysError(const char *What) {
  return std::string(What) + ": " + std::strerror(errno);
}

/// argv/envp arrays pointing into Strings (kept alive by the caller).
std::vector<char *> cArray(const std::vector<std::string> &Strings) {
  std::vector<char *> A;
  for (const auto &S : Strings)
    A.push_back(const_cast<char *>(S.c_str()));
  A.push_back(nullptr);
  return A;
}

void writeAllFd(int Fd, const std::string &S) {
  size_t Off = 0;
  while (Off < S.size()) {
    ssize_t N = ::write(Fd, S.data() + Off, S.size() - Off);
    if (N < 0 && errno == EINTR)
      continue;
    if (N <= 0)
      return;
    Off += static_cast<size_t>(N);
  }
}
} // namespace

void setLimit(int Resource, rlim_t Value) {
  rlimit L{Value, Value};
  rlimit Cur{};
  if (::getrlimit(Resource, &Cur) == 0 && Cur.rlim_max != RLIM_INFINITY &&
      Cur.rlim_max < Value)
    L.rlim_cur = L.rlim_max = Cur.rlim_max;
  ::setrlimit(Resource, &L);
}

Expected<Child> spawnProcess(const SpawnOptions &O) {
  // Everything the child needs is prepared before fork (no allocation
  // between fork and exec in a possibly multi-threaded parent).
  std::vector<char *> A = cArray(O.Argv);
  std::vector<char *> E;
  if (O.Env)
    E = cArray(*O.Env);
  int Pipe[2] = {-1, -1};
  if (O.Out == SpawnOptions::Output::Pipe && ::pipe2(Pipe, O_CLOEXEC) != 0)
    return fail(sysError("pipe"));
  int FileFd = -1;
  if (O.Out == SpawnOptions::Output::File) {
    FileFd = ::open(O.OutputFile.c_str(),
                    O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (FileFd < 0)
      return fail("cannot create " + O.OutputFile + ": " +
                  std::strerror(errno));
  }
  const pid_t Parent = ::getpid();
  pid_t Pid = ::fork();
  if (Pid < 0) {
    std::string Msg = sysError("fork");
    for (int Fd : {Pipe[0], Pipe[1], FileFd})
      if (Fd >= 0)
        ::close(Fd);
    return fail(Msg);
  }
  if (Pid == 0) {
    ::setpgid(0, 0);
#ifdef __linux__
    if (O.DieWithParent) {
      ::prctl(PR_SET_PDEATHSIG, SIGKILL);
      if (::getppid() != Parent)
        ::_exit(1);
    }
#endif
    int Null = ::open("/dev/null", O_RDONLY);
    if (Null >= 0)
      ::dup2(Null, 0);
    int OutFd = FileFd >= 0 ? FileFd : (O.Argv.empty() ? -1 : Pipe[1]);
    if (OutFd >= 0) {
      ::dup2(OutFd, 1);
      ::dup2(OutFd, 2);
    }
    if (!O.Cwd.empty() && ::chdir(O.Cwd.c_str()) != 0)
      ::_exit(126);
    for (const auto &[R, V] : O.Limits)
      setLimit(R, V);
    if (O.InChild)
      O.InChild();
    if (O.Argv.empty()) {
      if (Pipe[0] >= 0)
        ::close(Pipe[0]);
      ::_exit(O.Body ? O.Body(Pipe[1]) : 0);
    }
    if (O.Env)
      ::execvpe(A[0], A.data(), E.data());
    else
      ::execvp(A[0], A.data());
    writeAllFd(2, "cannot execute " + O.Argv[0] + ": " + std::strerror(errno) +
                      "\n");
    ::_exit(127);
  }
  ::setpgid(Pid, Pid); // also from the parent: no race with kill(-pgid)
  if (FileFd >= 0)
    ::close(FileFd);
  Child C;
  C.Pid = Pid;
  if (Pipe[1] >= 0) {
    ::close(Pipe[1]);
    C.OutFd = Pipe[0];
  }
  return C;
}

int waitStatus(pid_t Pid, long *MaxRssKiB) {
  int Status = 0;
  struct rusage Usage{};
  while (::wait4(Pid, &Status, 0, &Usage) < 0 && errno == EINTR) {
  }
  if (MaxRssKiB)
    *MaxRssKiB = Usage.ru_maxrss; // KiB on Linux
  return Status;
}

int exitCode(int Status) {
  if (WIFEXITED(Status))
    return WEXITSTATUS(Status);
  return 128 + (WIFSIGNALED(Status) ? WTERMSIG(Status) : 0);
}

void killProcessGroup(pid_t Pid) {
  ::kill(-Pid, SIGKILL);
  ::kill(Pid, SIGKILL);
}

Expected<Captured> runCapture(const std::vector<std::string> &Argv,
                              double TimeoutSeconds) {
  SpawnOptions O;
  O.Argv = Argv;
  O.Out = SpawnOptions::Output::Pipe;
  auto C = spawnProcess(O);
  if (!C)
    return C.error();
  Captured R;
  using Clock = std::chrono::steady_clock;
  auto Deadline =
      Clock::now() +
      std::chrono::milliseconds(static_cast<int64_t>(TimeoutSeconds * 1000));
  char Buf[4096];
  for (;;) {
    int Wait = -1;
    if (TimeoutSeconds > 0) {
      auto Left = std::chrono::duration_cast<std::chrono::milliseconds>(
                      Deadline - Clock::now())
                      .count();
      if (Left <= 0) {
        R.TimedOut = true;
        killProcessGroup(C->Pid);
        break;
      }
      Wait = static_cast<int>(std::min<int64_t>(Left, 1000));
    }
    pollfd P{C->OutFd, POLLIN, 0};
    int N = ::poll(&P, 1, Wait);
    if (N < 0 && errno == EINTR)
      continue;
    if (N == 0)
      continue;
    ssize_t Got = ::read(C->OutFd, Buf, sizeof(Buf));
    if (Got < 0 && errno == EINTR)
      continue;
    if (Got <= 0)
      break;
    R.Output.append(Buf, static_cast<size_t>(Got));
  }
  ::close(C->OutFd);
  R.ExitCode = exitCode(waitStatus(C->Pid));
  return R;
}

} // namespace pkb::support
