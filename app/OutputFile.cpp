//===- OutputFile.cpp - Result files written atomically -------------------===//

#include "OutputFile.h"

#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <filesystem>
#include <sys/stat.h>
#include <unistd.h>

namespace fs = std::filesystem;

namespace pkb {

FdStreamBuf::FdStreamBuf(int Fd) : Fd(Fd), Buf(size_t(1) << 16) {
  setp(Buf.data(), Buf.data() + Buf.size());
}

// Buffered bytes that were never flushed are dropped on purpose: a result
// that was not committed must not reach the file.
FdStreamBuf::~FdStreamBuf() = default;

bool FdStreamBuf::writeAll(const char *S, size_t N) {
  while (N > 0) {
    ssize_t W = ::write(Fd, S, N);
    if (W < 0 && errno == EINTR)
      continue;
    if (W <= 0) {
      Errno = W < 0 ? errno : EIO;
      return false;
    }
    S += W;
    N -= static_cast<size_t>(W);
  }
  return true;
}

bool FdStreamBuf::drain() {
  size_t N = static_cast<size_t>(pptr() - pbase());
  setp(Buf.data(), Buf.data() + Buf.size());
  if (Errno)
    return false;
  return N == 0 || writeAll(Buf.data(), N);
}

FdStreamBuf::int_type FdStreamBuf::overflow(int_type C) {
  if (!drain())
    return traits_type::eof();
  if (!traits_type::eq_int_type(C, traits_type::eof())) {
    *pptr() = traits_type::to_char_type(C);
    pbump(1);
  }
  return traits_type::not_eof(C);
}

std::streamsize FdStreamBuf::xsputn(const char *S, std::streamsize N) {
  size_t Len = static_cast<size_t>(N);
  if (Len > static_cast<size_t>(epptr() - pptr())) {
    if (!drain())
      return 0;
    if (Len >= Buf.size())
      return writeAll(S, Len) ? N : 0;
  }
  std::memcpy(pptr(), S, Len);
  pbump(static_cast<int>(Len));
  return N;
}

int FdStreamBuf::sync() { return drain() ? 0 : -1; }

namespace {

/// The descriptor that /dev/stdout, /dev/stderr, /dev/fd/N and
/// /proc/self/fd/N name, or -1. Opening these paths again would start at
/// offset 0 of a redirected file (or truncate it); writing to a duplicate
/// of the descriptor appends where the shell's redirection points.
int descriptorAlias(const std::string &P) {
  if (P == "/dev/stdout")
    return 1;
  if (P == "/dev/stderr")
    return 2;
  for (const char *Prefix : {"/dev/fd/", "/proc/self/fd/"}) {
    size_t L = std::strlen(Prefix);
    if (P.size() > L && P.size() <= L + 6 && P.compare(0, L, Prefix) == 0 &&
        P.find_first_not_of("0123456789", L) == std::string::npos)
      return std::stoi(P.substr(L));
  }
  return -1;
}

} // namespace

OutputFile::OutputFile() = default;

OutputFile::~OutputFile() { discard(); }

std::string OutputFile::failure(int Err) const {
  return "cannot write '" + Path + "': " + std::strerror(Err);
}

support::Expected<void> OutputFile::open(const std::string &P) {
  Path = P;
  auto Fail = [&](int Err) -> support::Expected<void> {
    return support::fail(failure(Err));
  };
  auto Attach = [&]() -> support::Expected<void> {
    Buf = std::make_unique<FdStreamBuf>(Fd);
    OS = std::make_unique<std::ostream>(Buf.get());
    return {};
  };
  if (int Alias = descriptorAlias(P); Alias >= 0) {
    Fd = ::fcntl(Alias, F_DUPFD_CLOEXEC, 3);
    return Fd < 0 ? Fail(errno) : Attach();
  }
  struct stat St{};
  bool Exists = ::stat(P.c_str(), &St) == 0;
  if (Exists && S_ISDIR(St.st_mode))
    return Fail(EISDIR);
  if (Exists && !S_ISREG(St.st_mode)) {
    // A device, FIFO or socket: no rename, no truncation; write directly.
    Fd = ::open(P.c_str(), O_WRONLY | O_CLOEXEC | O_NOCTTY);
    return Fd < 0 ? Fail(errno) : Attach();
  }
  // A regular file or a new one: replace the file a symbolic link points to,
  // not the link.
  std::error_code EC;
  fs::path T = fs::weakly_canonical(fs::path(P), EC);
  if (EC)
    T = fs::path(P);
  Target = T.string();
  fs::path Dir = T.parent_path();
  if (Dir.empty())
    Dir = ".";
  static unsigned Counter = 0;
  int Err = 0;
  for (int Try = 0; Try < 100; ++Try) {
    fs::path Tmp =
        Dir / ("." + T.filename().string() + ".pkbtmp-" +
               std::to_string(::getpid()) + "-" + std::to_string(Counter++));
    Fd = ::open(Tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
    if (Fd >= 0) {
      TempPath = Tmp.string();
      if (Exists)
        (void)::fchmod(Fd, St.st_mode & 07777);
      return Attach();
    }
    Err = errno;
    if (Err != EEXIST)
      break;
  }
  // A writable file in a directory we may not create files in: write it in
  // place (not atomic, but what was asked for).
  if (Exists && (Err == EACCES || Err == EPERM)) {
    Fd = ::open(P.c_str(), O_WRONLY | O_TRUNC | O_CLOEXEC | O_NOCTTY);
    if (Fd >= 0)
      return Attach();
  }
  return Fail(Err);
}

support::Expected<void> OutputFile::commit() {
  if (!OS)
    return support::fail(failure(EBADF));
  int Err = 0;
  OS->flush();
  if (Buf->error())
    Err = Buf->error();
  else if (OS->bad())
    Err = EIO;
  if (!Err && atomic() && ::fsync(Fd) != 0)
    Err = errno;
  if (::close(Fd) != 0 && !Err && errno != EINTR)
    Err = errno;
  Fd = -1;
  if (!Err && atomic()) {
    if (::rename(TempPath.c_str(), Target.c_str()) != 0) {
      Err = errno;
    } else {
      TempPath.clear();
      // Make the rename itself durable (best effort).
      fs::path Dir = fs::path(Target).parent_path();
      int D = ::open(Dir.empty() ? "." : Dir.c_str(),
                     O_RDONLY | O_DIRECTORY | O_CLOEXEC);
      if (D >= 0) {
        (void)::fsync(D);
        ::close(D);
      }
    }
  }
  OS.reset();
  Buf.reset();
  if (Err) {
    discard();
    return support::fail(failure(Err));
  }
  return {};
}

void OutputFile::discard() {
  OS.reset();
  Buf.reset();
  if (Fd >= 0) {
    ::close(Fd);
    Fd = -1;
  }
  if (!TempPath.empty()) {
    ::unlink(TempPath.c_str());
    TempPath.clear();
  }
}

bool isOneOfInputs(const std::string &Output,
                   const std::vector<std::string> &Inputs, std::string &Which) {
  std::error_code EC;
  if (!fs::exists(fs::path(Output), EC))
    return false;
  for (const std::string &In : Inputs) {
    if (fs::equivalent(fs::path(Output), fs::path(In), EC) && !EC) {
      Which = In;
      return true;
    }
  }
  return false;
}

} // namespace pkb
