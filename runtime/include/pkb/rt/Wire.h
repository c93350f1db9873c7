//===- pkb/rt/Wire.h - Framed messages over Unix-domain sockets -*- C++ -*-===//
//
// The launcher (or rank 0 under mpirun/srun/torchrun) runs a hub on a
// Unix-domain stream socket; workers connect to it. A frame is a 16-byte
// header {uint32 type, uint32 number of fds, uint64 payload length} and the
// payload; file descriptors travel with the header as SCM_RIGHTS ancillary
// data (unix(7)), which is how cuMemCreate's POSIX file-descriptor handles
// reach the peers.
//
//===----------------------------------------------------------------------===//
#ifndef PKB_RT_WIRE_H
#define PKB_RT_WIRE_H

#include "pkb/support/Expected.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace pkb::rt {

/// Message types between workers and the hub.
enum class MsgType : uint32_t {
  Hello = 1,     ///< worker -> hub: {"rank","world","pid"}
  Config = 2,    ///< hub -> worker: the run configuration (JSON)
  Allgather = 3, ///< worker -> hub: its contribution (+ fds)
  Gathered = 4,  ///< hub -> worker: JSON array of all contributions (+ fds)
  Arm = 5,       ///< worker -> hub: {"phase","deadline_ms","case"}
  Disarm = 6,    ///< worker -> hub: {}
  Result = 7,    ///< worker -> hub: per-rank result of one case (JSON)
  Done = 8,      ///< worker -> hub: worker finished cleanly
  Log = 9        ///< worker -> hub: a line for the launcher's log
};

/// One frame. Fds are owned by the receiver after recvMessage.
struct Message {
  MsgType Type = MsgType::Log;
  std::string Payload;
  std::vector<int> Fds;
};

/// Most fds in one frame (one per rank).
constexpr int MaxFdsPerMessage = 64;

/// Sends one frame; false on error (peer gone). Thread-compatible per fd.
bool sendMessage(int Sock, const Message &M);

/// Receives one frame, blocking; nullopt on EOF or error.
std::optional<Message> recvMessage(int Sock);

/// Creates, binds and listens on a Unix socket at Path (unlinking a stale
/// one). Returns the fd (owned by the caller), or an Error ("socket path too
/// long (N bytes): PATH", "cannot listen on PATH: <strerror>").
support::Expected<int> listenUnix(const std::string &Path);

/// Connects to Path, retrying every 20 ms for up to TimeoutMs. Returns the
/// fd (owned by the caller), or an Error ("cannot connect to PATH:
/// <strerror>").
support::Expected<int> connectUnix(const std::string &Path, int TimeoutMs);

} // namespace pkb::rt

#endif // PKB_RT_WIRE_H
