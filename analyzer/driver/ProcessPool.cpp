//===- ProcessPool.cpp - One child process per input file -----------------===//

#include "ProcessPool.h"

#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstring>
#include <fcntl.h>
#include <poll.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

namespace pkb {

namespace {

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
                        const std::string &Code, const std::string &Msg,
                        double Seconds) {
  FileReport R;
  R.Path = Path;
  R.Status = Status;
  R.Seconds = Seconds;
  Diagnostic D;
  D.Code = Code;
  D.Sev = Severity::Error;
  D.Loc = SourceLoc{Path, 1, 1};
  D.Message = Msg;
  R.Diags.push_back(D);
  return R;
}

} // namespace

void runInChildren(const std::vector<std::string> &Paths,
                   const PoolOptions &Opts,
                   const std::function<FileReport(const std::string &)> &Work,
                   const std::function<void(size_t, FileReport)> &OnDone) {
  using Clock = std::chrono::steady_clock;
  std::vector<Child> Running;
  std::vector<Clock::time_point> Started(Paths.size());
  size_t Next = 0;
  unsigned Jobs = Opts.Jobs ? Opts.Jobs : 1;

  auto Spawn = [&](size_t Index) {
    int Fds[2];
    Started[Index] = Clock::now();
    if (::pipe(Fds) != 0) {
      OnDone(Index, failedReport(Paths[Index], "crash", "internal-error",
                                 std::string("pipe failed: ") +
                                     std::strerror(errno),
                                 0));
      return;
    }
    pid_t Pid = ::fork();
    if (Pid < 0) {
      ::close(Fds[0]);
      ::close(Fds[1]);
      OnDone(Index, failedReport(Paths[Index], "crash", "internal-error",
                                 std::string("fork failed: ") +
                                     std::strerror(errno),
                                 0));
      return;
    }
    if (Pid == 0) {
      ::close(Fds[0]);
      if (Opts.MaxMemoryMiB) {
        rlimit L;
        L.rlim_cur = L.rlim_max = rlim_t(Opts.MaxMemoryMiB) << 20;
        ::setrlimit(RLIMIT_AS, &L);
      }
      // Paths and messages may hold invalid UTF-8 (file names are bytes):
      // replace it rather than throw from dump() (type_error 316).
      const auto Replace = nlohmann::json::error_handler_t::replace;
      std::string Out;
      try {
        Out = toJson(Work(Paths[Index])).dump(-1, ' ', false, Replace);
      } catch (const std::bad_alloc &) {
        Out = toJson(failedReport(Paths[Index], "crash", "out-of-memory",
                                  "analysis ran out of memory", 0))
                  .dump(-1, ' ', false, Replace);
      } catch (const std::exception &E) {
        Out = toJson(failedReport(Paths[Index], "crash", "internal-error",
                                  E.what(), 0))
                  .dump(-1, ' ', false, Replace);
      }
      writeAll(Fds[1], Out);
      ::close(Fds[1]);
      ::_exit(0);
    }
    ::close(Fds[1]);
    ::fcntl(Fds[0], F_SETFL, ::fcntl(Fds[0], F_GETFL) | O_NONBLOCK);
    Child C;
    C.Index = Index;
    C.Pid = Pid;
    C.Fd = Fds[0];
    if (Opts.TimeoutSeconds > 0) {
      C.HasDeadline = true;
      C.Deadline = Started[Index] +
                   std::chrono::milliseconds(
                       static_cast<int64_t>(Opts.TimeoutSeconds * 1000));
    }
    Running.push_back(std::move(C));
  };

  auto Finish = [&](Child &C) {
    int Status = 0;
    while (::waitpid(C.Pid, &Status, 0) < 0 && errno == EINTR) {
    }
    ::close(C.Fd);
    const std::string &Path = Paths[C.Index];
    double Secs =
        std::chrono::duration<double>(Clock::now() - Started[C.Index]).count();
    if (C.TimedOut) {
      OnDone(C.Index,
             failedReport(Path, "timeout", "timeout",
                          "analysis exceeded the time limit of " +
                              std::to_string(Opts.TimeoutSeconds) +
                              " s and was stopped (--timeout)",
                          Secs));
      return;
    }
    if (WIFSIGNALED(Status)) {
      int Sig = WTERMSIG(Status);
      OnDone(C.Index, failedReport(Path, "crash", "frontend-crash",
                                   std::string("analysis crashed (signal ") +
                                       ::strsignal(Sig) +
                                       "); other files are unaffected",
                                   Secs));
      return;
    }
    nlohmann::json J = nlohmann::json::parse(C.Output, nullptr, false);
    if (J.is_discarded() || !J.is_object()) {
      OnDone(C.Index,
             failedReport(Path, "crash", "frontend-crash",
                          "analysis ended without a result (exit status " +
                              std::to_string(WEXITSTATUS(Status)) + ")",
                          Secs));
      return;
    }
    OnDone(C.Index, fileReportFromJson(J));
  };

  while (Next < Paths.size() || !Running.empty()) {
    while (Running.size() < Jobs && Next < Paths.size())
      Spawn(Next++);
    if (Running.empty())
      continue;
    std::vector<pollfd> Fds;
    for (const Child &C : Running)
      Fds.push_back(pollfd{C.Fd, POLLIN, 0});
    int Rc = ::poll(Fds.data(), Fds.size(), 100);
    if (Rc < 0 && errno != EINTR)
      break;
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
        ::kill(C.Pid, SIGKILL);
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
}

} // namespace pkb
