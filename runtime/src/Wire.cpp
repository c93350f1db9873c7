//===- Wire.cpp - Framed messages over Unix-domain sockets ----------------===//
#include "pkb/rt/Wire.h"

#include <fmt/format.h>

#include <cerrno>
#include <chrono>
#include <cstring>
#include <sys/socket.h>
#include <sys/un.h>
#include <thread>
#include <unistd.h>

namespace pkb::rt {
namespace {
struct Header {
  uint32_t Type;
  uint32_t NumFds;
  uint64_t Length;
};

bool writeAll(int Fd, const char *Data, size_t Size) {
  while (Size) {
    ssize_t N = ::send(Fd, Data, Size, MSG_NOSIGNAL);
    if (N < 0 && errno == EINTR)
      continue;
    if (N <= 0)
      return false;
    Data += N;
    Size -= static_cast<size_t>(N);
  }
  return true;
}

bool readAll(int Fd, char *Data, size_t Size) {
  while (Size) {
    ssize_t N = ::recv(Fd, Data, Size, 0);
    if (N < 0 && errno == EINTR)
      continue;
    if (N <= 0)
      return false;
    Data += N;
    Size -= static_cast<size_t>(N);
  }
  return true;
}

/// The address of the Unix socket at Path, or an Error when Path does not
/// fit into sun_path.
support::Expected<sockaddr_un> unixAddress(const std::string &Path) {
  sockaddr_un A;
  std::memset(&A, 0, sizeof(A));
  A.sun_family = AF_UNIX;
  if (Path.size() >= sizeof(A.sun_path))
    return support::fail(
        fmt::format("socket path too long ({} bytes): {}", Path.size(), Path));
  std::memcpy(A.sun_path, Path.c_str(), Path.size() + 1);
  return A;
}
} // namespace

bool sendMessage(int Sock, const Message &M) {
  if (M.Fds.size() > static_cast<size_t>(MaxFdsPerMessage))
    return false;
  Header H{static_cast<uint32_t>(M.Type), static_cast<uint32_t>(M.Fds.size()),
           M.Payload.size()};
  iovec Iov{&H, sizeof(H)};
  msghdr Msg{};
  Msg.msg_iov = &Iov;
  Msg.msg_iovlen = 1;
  alignas(cmsghdr) char Control[CMSG_SPACE(sizeof(int) * MaxFdsPerMessage)];
  if (!M.Fds.empty()) {
    size_t Bytes = sizeof(int) * M.Fds.size();
    Msg.msg_control = Control;
    Msg.msg_controllen = CMSG_SPACE(Bytes);
    cmsghdr *C = CMSG_FIRSTHDR(&Msg);
    C->cmsg_level = SOL_SOCKET;
    C->cmsg_type = SCM_RIGHTS;
    C->cmsg_len = CMSG_LEN(Bytes);
    std::memcpy(CMSG_DATA(C), M.Fds.data(), Bytes);
  }
  ssize_t N;
  do
    N = ::sendmsg(Sock, &Msg, MSG_NOSIGNAL);
  while (N < 0 && errno == EINTR);
  if (N <= 0)
    return false;
  // The rest of the header (rare) and the payload go as plain bytes.
  if (static_cast<size_t>(N) < sizeof(H) &&
      !writeAll(Sock, reinterpret_cast<const char *>(&H) + N,
                sizeof(H) - static_cast<size_t>(N)))
    return false;
  return writeAll(Sock, M.Payload.data(), M.Payload.size());
}

std::optional<Message> recvMessage(int Sock) {
  Header H{};
  Message M;
  size_t Got = 0;
  alignas(cmsghdr) char Control[CMSG_SPACE(sizeof(int) * MaxFdsPerMessage)];
  while (Got < sizeof(H)) {
    iovec Iov{reinterpret_cast<char *>(&H) + Got, sizeof(H) - Got};
    msghdr Msg{};
    Msg.msg_iov = &Iov;
    Msg.msg_iovlen = 1;
    Msg.msg_control = Control;
    Msg.msg_controllen = sizeof(Control);
    ssize_t N = ::recvmsg(Sock, &Msg, MSG_CMSG_CLOEXEC);
    if (N < 0 && errno == EINTR)
      continue;
    if (N <= 0)
      return std::nullopt;
    for (cmsghdr *C = CMSG_FIRSTHDR(&Msg); C; C = CMSG_NXTHDR(&Msg, C)) {
      if (C->cmsg_level != SOL_SOCKET || C->cmsg_type != SCM_RIGHTS)
        continue;
      size_t Count = (C->cmsg_len - CMSG_LEN(0)) / sizeof(int);
      const int *Fds = reinterpret_cast<const int *>(CMSG_DATA(C));
      M.Fds.insert(M.Fds.end(), Fds, Fds + Count);
    }
    Got += static_cast<size_t>(N);
  }
  if (H.Length > (1ull << 30) || H.NumFds != M.Fds.size()) {
    for (int Fd : M.Fds)
      ::close(Fd);
    return std::nullopt;
  }
  M.Type = static_cast<MsgType>(H.Type);
  M.Payload.resize(H.Length);
  if (H.Length && !readAll(Sock, M.Payload.data(), H.Length)) {
    for (int Fd : M.Fds)
      ::close(Fd);
    return std::nullopt;
  }
  return M;
}

support::Expected<int> listenUnix(const std::string &Path) {
  auto A = unixAddress(Path);
  if (!A)
    return A.error();
  int S = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (S < 0)
    return support::fail(fmt::format("socket: {}", std::strerror(errno)));
  ::unlink(Path.c_str());
  if (::bind(S, reinterpret_cast<const sockaddr *>(&*A), sizeof(*A)) != 0 ||
      ::listen(S, 256) != 0) {
    std::string Why =
        fmt::format("cannot listen on {}: {}", Path, std::strerror(errno));
    ::close(S);
    return support::fail(std::move(Why));
  }
  return S;
}

support::Expected<int> connectUnix(const std::string &Path, int TimeoutMs) {
  auto A = unixAddress(Path);
  if (!A)
    return A.error();
  auto Deadline =
      std::chrono::steady_clock::now() + std::chrono::milliseconds(TimeoutMs);
  int LastErr = 0;
  do {
    int S = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (S < 0) {
      LastErr = errno;
      break;
    }
    if (::connect(S, reinterpret_cast<const sockaddr *>(&*A), sizeof(*A)) == 0)
      return S;
    LastErr = errno;
    ::close(S);
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  } while (std::chrono::steady_clock::now() < Deadline);
  return support::fail(
      fmt::format("cannot connect to {}: {}", Path, std::strerror(LastErr)));
}

} // namespace pkb::rt
