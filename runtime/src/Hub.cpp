//===- Hub.cpp - Bootstrap hub and watchdog -------------------------------===//
#include "pkb/rt/Hub.h"
#include "pkb/rt/Verdict.h"
#include "pkb/rt/Wire.h"

#include <fmt/format.h>

#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstring>
#include <optional>
#include <poll.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

namespace pkb::rt {
using Clock = std::chrono::steady_clock;

const char *hubOutcomeName(HubOutcome::Kind K) {
  switch (K) {
  case HubOutcome::Kind::Completed:
    return "completed";
  case HubOutcome::Kind::Deadlock:
    return "deadlock";
  case HubOutcome::Kind::WorkerDied:
    return "worker-died";
  case HubOutcome::Kind::FatalResult:
    return "fatal-result";
  case HubOutcome::Kind::BootstrapFailed:
    return "bootstrap-failed";
  }
  return "?";
}

std::string describeWaitStatus(int Status) {
  if (WIFEXITED(Status))
    return fmt::format("exited with status {}", WEXITSTATUS(Status));
  if (WIFSIGNALED(Status)) {
    int S = WTERMSIG(Status);
    const char *Abbrev = sigabbrev_np(S);
    return fmt::format("killed by signal {} (SIG{})", S, Abbrev ? Abbrev : "?");
  }
  return fmt::format("stopped (status {:#x})", Status);
}

struct Hub::Impl {
  struct RankState {
    int Fd = -1;
    pid_t HelloPid = 0;
    pid_t Child = 0;
    bool Hello = false, Done = false, Closed = false, Exited = false;
    int Status = 0;
    std::optional<Clock::time_point> Deadline;
    std::optional<Clock::time_point> ClosedAt;
    nlohmann::json Phase;
    bool Contributed = false;
    std::string Contribution;
    std::vector<int> Fds;
  };
  int ListenFd;
  HubOptions O;
  std::vector<RankState> Ranks;
  std::vector<int> Pending; // accepted, no Hello yet
  std::optional<HubOutcome> Failure;

  Impl(int L, HubOptions Opt) : ListenFd(L), O(std::move(Opt)) {
    Ranks.resize(static_cast<size_t>(std::max(1, O.WorldSize)));
  }

  void fail(HubOutcome::Kind K, int Rank, std::string Detail) {
    if (Failure)
      return;
    HubOutcome F;
    F.K = K;
    F.Rank = Rank;
    F.Detail = std::move(Detail);
    if (Rank >= 0 && Rank < static_cast<int>(Ranks.size()))
      F.Phase = Ranks[static_cast<size_t>(Rank)].Phase;
    Failure = std::move(F);
  }

  void onHello(int Fd, const Message &M) {
    auto J = nlohmann::json::parse(M.Payload, nullptr, false);
    int R = J.is_object() ? J.value("rank", -1) : -1;
    if (M.Type != MsgType::Hello || R < 0 ||
        R >= static_cast<int>(Ranks.size()) ||
        Ranks[static_cast<size_t>(R)].Hello) {
      ::close(Fd);
      return;
    }
    RankState &S = Ranks[static_cast<size_t>(R)];
    S.Fd = Fd;
    S.Hello = true;
    S.HelloPid = J.value("pid", 0);
    nlohmann::json C = O.Config;
    C["rank"] = R;
    C["world_size"] = O.WorldSize;
    if (!sendMessage(Fd, {MsgType::Config, C.dump(), {}}))
      markClosed(R);
  }

  void markClosed(int R) {
    RankState &S = Ranks[static_cast<size_t>(R)];
    if (S.Closed)
      return;
    S.Closed = true;
    S.ClosedAt = Clock::now();
    if (S.Fd >= 0)
      ::close(S.Fd);
    S.Fd = -1;
  }

  bool allHello() const {
    for (const auto &S : Ranks)
      if (!S.Hello)
        return false;
    return true;
  }

  void maybeFinishAllgather() {
    for (const auto &S : Ranks)
      if (!S.Contributed)
        return;
    std::string Payload;
    std::vector<int> Fds;
    for (const auto &S : Ranks) {
      uint64_t L = S.Contribution.size();
      Payload.append(reinterpret_cast<const char *>(&L), sizeof(L));
      Payload += S.Contribution;
      Fds.insert(Fds.end(), S.Fds.begin(), S.Fds.end());
    }
    for (size_t R = 0; R < Ranks.size(); ++R)
      if (Ranks[R].Fd >= 0 &&
          !sendMessage(Ranks[R].Fd, {MsgType::Gathered, Payload, Fds}))
        markClosed(static_cast<int>(R));
    for (auto &S : Ranks) {
      for (int Fd : S.Fds)
        ::close(Fd);
      S.Fds.clear();
      S.Contribution.clear();
      S.Contributed = false;
    }
  }

  void onMessage(int R, Message M) {
    RankState &S = Ranks[static_cast<size_t>(R)];
    switch (M.Type) {
    case MsgType::Allgather:
      if (S.Contributed) { // protocol error: two outstanding contributions
        for (int Fd : M.Fds)
          ::close(Fd);
        fail(HubOutcome::Kind::WorkerDied, R,
             fmt::format("rank {} sent two allgather contributions", R));
        return;
      }
      S.Contributed = true;
      S.Contribution = std::move(M.Payload);
      S.Fds = std::move(M.Fds);
      maybeFinishAllgather();
      return;
    case MsgType::Arm: {
      auto J = nlohmann::json::parse(M.Payload, nullptr, false);
      long Ms = J.is_object() ? J.value("deadline_ms", 10000L) : 10000L;
      S.Deadline = Clock::now() + std::chrono::milliseconds(Ms);
      S.Phase = J;
      return;
    }
    case MsgType::Disarm:
      S.Deadline.reset();
      return;
    case MsgType::Result: {
      auto J = nlohmann::json::parse(M.Payload, nullptr, false);
      if (!J.is_object()) {
        fail(HubOutcome::Kind::WorkerDied, R,
             fmt::format("rank {} sent a malformed result", R));
        return;
      }
      if (O.OnResult)
        O.OnResult(R, J);
      auto V = parseVerdict(J.value("verdict", std::string("internal-error")));
      if (!V || isFatalVerdict(*V))
        fail(HubOutcome::Kind::FatalResult, R,
             fmt::format("rank {}: {}: {}", R,
                         J.value("verdict", std::string("?")),
                         J.value("detail", std::string())));
      return;
    }
    case MsgType::Done:
      S.Done = true;
      S.Deadline.reset();
      return;
    case MsgType::Log:
      if (O.OnLog)
        O.OnLog(R, M.Payload);
      return;
    default:
      for (int Fd : M.Fds)
        ::close(Fd);
      return;
    }
  }

  /// Reads every message a dead worker left in its socket.
  void drain(int R) {
    RankState &S = Ranks[static_cast<size_t>(R)];
    while (S.Fd >= 0 && !Failure) {
      pollfd P{S.Fd, POLLIN, 0};
      if (::poll(&P, 1, 500) <= 0)
        break;
      auto M = recvMessage(S.Fd);
      if (!M) {
        markClosed(R);
        break;
      }
      onMessage(R, std::move(*M));
    }
  }

  void reapChildren() {
    for (size_t R = 0; R < Ranks.size(); ++R) {
      RankState &S = Ranks[R];
      if (!S.Child || S.Exited)
        continue;
      int Status = 0;
      pid_t P = ::waitpid(S.Child, &Status, WNOHANG);
      if (P != S.Child)
        continue;
      S.Exited = true;
      S.Status = Status;
      drain(static_cast<int>(R));
      if (Failure)
        return;
      bool Clean = S.Done && WIFEXITED(Status) && WEXITSTATUS(Status) == 0;
      if (!Clean)
        fail(HubOutcome::Kind::WorkerDied, static_cast<int>(R),
             fmt::format("rank {} {}{}", R, describeWaitStatus(Status),
                         S.Done ? " after finishing" : ""));
    }
  }

  void killAll() {
    // SIGTERM first so that compute-sanitizer (a process-group leader) can
    // still write its report; SIGKILL whatever is left after one second.
    for (auto &S : Ranks)
      if (S.Child && !S.Exited)
        ::kill(-S.Child, SIGTERM);
    auto Until = Clock::now() + std::chrono::seconds(1);
    for (bool Left = true; Left && Clock::now() < Until;) {
      Left = false;
      for (auto &S : Ranks) {
        if (!S.Child || S.Exited)
          continue;
        int Status = 0;
        if (::waitpid(S.Child, &Status, WNOHANG) == S.Child) {
          S.Exited = true;
          S.Status = Status;
        } else {
          Left = true;
        }
      }
      if (Left)
        ::usleep(10000);
    }
    for (auto &S : Ranks) {
      if (S.Child && !S.Exited) {
        ::kill(-S.Child, SIGKILL);
        ::kill(S.Child, SIGKILL);
      }
      if (S.HelloPid > 0 && S.HelloPid != ::getpid())
        ::kill(S.HelloPid, SIGKILL);
    }
    for (auto &S : Ranks) {
      if (S.Child && !S.Exited) {
        int Status = 0;
        while (::waitpid(S.Child, &Status, 0) < 0 && errno == EINTR) {
        }
        S.Exited = true;
        S.Status = Status;
      }
    }
  }

  HubOutcome run() {
    const auto Start = Clock::now();
    Clock::time_point AllDoneSince{};
    bool AllDoneSeen = false;
    for (;;) {
      std::vector<pollfd> P;
      P.push_back({ListenFd, POLLIN, 0});
      for (int Fd : Pending)
        P.push_back({Fd, POLLIN, 0});
      std::vector<int> RankOf(P.size(), -1);
      for (size_t R = 0; R < Ranks.size(); ++R)
        if (Ranks[R].Fd >= 0) {
          P.push_back({Ranks[R].Fd, POLLIN, 0});
          RankOf.push_back(static_cast<int>(R));
        }
      int N = ::poll(P.data(), P.size(), 20);
      if (N < 0 && errno != EINTR) {
        fail(HubOutcome::Kind::BootstrapFailed, -1,
             fmt::format("poll: {}", std::strerror(errno)));
      }
      if (N > 0) {
        std::vector<int> StillPending;
        if (P[0].revents & POLLIN) {
          int Fd = ::accept4(ListenFd, nullptr, nullptr, SOCK_CLOEXEC);
          if (Fd >= 0)
            StillPending.push_back(Fd); // polled from the next round on
        }
        for (size_t I = 1; I <= Pending.size() && I < P.size(); ++I) {
          int Fd = P[I].fd;
          if (!(P[I].revents & (POLLIN | POLLHUP | POLLERR))) {
            StillPending.push_back(Fd);
            continue;
          }
          auto M = recvMessage(Fd);
          if (!M) {
            ::close(Fd);
            continue;
          }
          onHello(Fd, *M);
        }
        size_t FirstRank = 1 + Pending.size();
        Pending = std::move(StillPending);
        for (size_t I = FirstRank; I < P.size() && !Failure; ++I) {
          if (!(P[I].revents & (POLLIN | POLLHUP | POLLERR)))
            continue;
          int R = RankOf[I];
          if (Ranks[static_cast<size_t>(R)].Fd != P[I].fd)
            continue;
          auto M = recvMessage(P[I].fd);
          if (!M) {
            markClosed(R);
            continue;
          }
          onMessage(R, std::move(*M));
        }
      }
      if (!Failure)
        reapChildren();
      auto Now = Clock::now();
      for (size_t R = 0; R < Ranks.size() && !Failure; ++R) {
        auto &S = Ranks[R];
        if (S.Deadline && Now > *S.Deadline)
          fail(HubOutcome::Kind::Deadlock, static_cast<int>(R),
               fmt::format("rank {} passed the deadline of phase {}", R,
                           S.Phase.dump()));
        // A closed socket without Done: wait a little for the exit status.
        if (!Failure && S.Closed && !S.Done &&
            (!S.Child || Now - *S.ClosedAt > std::chrono::seconds(2)))
          fail(
              HubOutcome::Kind::WorkerDied, static_cast<int>(R),
              fmt::format("rank {} closed its connection before finishing", R));
      }
      if (!Failure && !allHello() &&
          Now - Start > std::chrono::milliseconds(O.BootstrapTimeoutMs)) {
        std::string Missing;
        for (size_t R = 0; R < Ranks.size(); ++R)
          if (!Ranks[R].Hello)
            Missing += fmt::format("{}{}", Missing.empty() ? "" : ",", R);
        fail(HubOutcome::Kind::BootstrapFailed, -1,
             fmt::format("ranks {} did not connect within {} ms", Missing,
                         O.BootstrapTimeoutMs));
      }
      if (Failure) {
        killAll();
        break;
      }
      bool AllDone = true, AllExited = true;
      for (const auto &S : Ranks) {
        AllDone &= S.Done;
        AllExited &= !S.Child || S.Exited;
      }
      if (AllDone && AllExited)
        break;
      if (!AllDone) {
        AllDoneSeen = false;
      } else if (!AllDoneSeen) {
        AllDoneSeen = true;
        AllDoneSince = Now;
      } else if (Now - AllDoneSince > std::chrono::seconds(20))
        killAll(); // finished but stuck in teardown: not a failure
    }
    HubOutcome Out = Failure.value_or(HubOutcome{});
    for (size_t R = 0; R < Ranks.size(); ++R) {
      if (Ranks[R].Child && Ranks[R].Exited)
        Out.ExitStatus[static_cast<int>(R)] = Ranks[R].Status;
      if (Ranks[R].Fd >= 0)
        ::close(Ranks[R].Fd);
      Ranks[R].Fd = -1;
      for (int Fd : Ranks[R].Fds)
        ::close(Fd);
      Ranks[R].Fds.clear();
    }
    for (int Fd : Pending)
      ::close(Fd);
    Pending.clear();
    return Out;
  }
};

Hub::Hub(int ListenFd, HubOptions Options)
    : P(new Impl(ListenFd, std::move(Options))) {}

Hub::~Hub() {
  if (P->ListenFd >= 0)
    ::close(P->ListenFd);
  delete P;
}

void Hub::adoptChild(int Rank, pid_t Pid) {
  if (Rank >= 0 && Rank < static_cast<int>(P->Ranks.size()))
    P->Ranks[static_cast<size_t>(Rank)].Child = Pid;
}

HubOutcome Hub::run() { return P->run(); }

} // namespace pkb::rt
