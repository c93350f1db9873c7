//===- ResultStore.cpp - JSONL results with resume ------------------------===//
#include "pkb/rt/ResultStore.h"

#include <fmt/format.h>

#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <fstream>
#include <stdexcept>
#include <unistd.h>

namespace pkb::rt {

std::string resultKey(const std::string &Problem, const std::string &KernelHash,
                      int64_t Size, int WorldSize, const std::string &Mode) {
  return fmt::format("{}|{}|{}|{}|{}", Problem, KernelHash, Size, WorldSize,
                     Mode);
}

ResultStore::ResultStore(std::filesystem::path P) : Path(std::move(P)) {
  if (Path.has_parent_path())
    std::filesystem::create_directories(Path.parent_path());
  {
    std::ifstream In(Path);
    std::string Line;
    while (In && std::getline(In, Line)) {
      if (Line.empty())
        continue;
      auto J = nlohmann::json::parse(Line, nullptr, /*allow_exceptions=*/false);
      if (J.is_discarded() || !J.is_object() || !J.contains("key") ||
          !J["key"].is_string()) {
        ++Malformed;
        continue;
      }
      Keys.insert(J["key"].get<std::string>());
    }
  }
  Fd = ::open(Path.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
  if (Fd < 0)
    throw std::runtime_error(fmt::format("cannot open results file {}: {}",
                                         Path.string(), std::strerror(errno)));
  // A torn last line (no newline) would glue onto the next record.
  off_t End = ::lseek(Fd, 0, SEEK_END);
  if (End > 0) {
    int RFd = ::open(Path.c_str(), O_RDONLY | O_CLOEXEC);
    char C = '\n';
    if (RFd >= 0) {
      if (::pread(RFd, &C, 1, End - 1) != 1)
        C = '\n';
      ::close(RFd);
    }
    if (C != '\n' && ::write(Fd, "\n", 1) != 1)
      throw std::runtime_error("cannot write results file " + Path.string());
  }
}

ResultStore::~ResultStore() {
  if (Fd >= 0)
    ::close(Fd);
}

void ResultStore::append(const nlohmann::json &Record) {
  if (!Record.contains("key") || !Record["key"].is_string())
    throw std::runtime_error("result record without a string \"key\"");
  std::string Line =
      Record.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace) +
      "\n";
  size_t Off = 0;
  while (Off < Line.size()) {
    ssize_t N = ::write(Fd, Line.data() + Off, Line.size() - Off);
    if (N < 0 && errno == EINTR)
      continue;
    if (N <= 0)
      throw std::runtime_error(fmt::format(
          "cannot append to {}: {}", Path.string(), std::strerror(errno)));
    Off += static_cast<size_t>(N);
  }
  ::fdatasync(Fd);
  Keys.insert(Record["key"].get<std::string>());
}

} // namespace pkb::rt
