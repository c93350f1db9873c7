//===- OutputFile.h - Result files written atomically -----------*- C++ -*-===//
//
// `check -o FILE` and `report -o FILE` never leave a truncated or half-written
// FILE behind: a regular file is written to a temporary file in the same
// directory and renamed over FILE only when everything was written, flushed
// and synced. Special files (/dev/stdout, /dev/full, a FIFO, a terminal)
// cannot be renamed over and are written directly; every write to them is
// still checked.
//
//===----------------------------------------------------------------------===//
#ifndef PKB_DRIVER_OUTPUTFILE_H
#define PKB_DRIVER_OUTPUTFILE_H

#include "pkb/support/Expected.h"

#include <memory>
#include <ostream>
#include <streambuf>
#include <string>
#include <vector>

namespace pkb {

/// A std::streambuf over a POSIX file descriptor that remembers the errno of
/// the first failed write (std::ofstream forgets why a write failed).
class FdStreamBuf : public std::streambuf {
public:
  /// Writes to \p Fd, which the caller keeps open (and closes).
  explicit FdStreamBuf(int Fd);
  ~FdStreamBuf() override;
  /// errno of the first failed write, 0 if every write succeeded.
  int error() const { return Errno; }

protected:
  int_type overflow(int_type C) override;
  std::streamsize xsputn(const char *S, std::streamsize N) override;
  int sync() override;

private:
  bool drain();
  bool writeAll(const char *S, size_t N);
  int Fd;
  int Errno = 0;
  std::vector<char> Buf;
};

/// A result file that appears complete or not at all. Usage: open(), write
/// to stream(), then commit(); a destructor without commit() removes the
/// temporary file and leaves an existing FILE as it was.
class OutputFile {
public:
  OutputFile();
  ~OutputFile();
  OutputFile(const OutputFile &) = delete;
  OutputFile &operator=(const OutputFile &) = delete;

  /// Prepares \p Path for writing. A regular file or a new path gets a
  /// temporary file next to it (next to a symbolic link's target);
  /// /dev/stdout, /dev/stderr and /dev/fd/N write to that descriptor; any
  /// other existing non-regular file is opened for writing directly. On
  /// failure the Error is "cannot write 'PATH': <strerror>".
  support::Expected<void> open(const std::string &Path);

  /// The stream to write the contents to (valid after a successful open()).
  std::ostream &stream() { return *OS; }

  /// Flushes, syncs and closes the file and renames the temporary file over
  /// the path (regular files). Returns an Error ("cannot write 'PATH':
  /// <strerror>") if any write, flush, sync, close or the rename failed; the
  /// temporary file is removed then.
  support::Expected<void> commit();

  /// Removes the temporary file without touching the path (no-op after
  /// commit() or for special files).
  void discard();

  /// True once a write has failed; commit() then reports why. Writers flush
  /// after every file, so a failure shows up early (e.g. after begin()).
  bool failed() const { return Buf && (Buf->error() != 0 || OS->bad()); }

  /// True when the output goes to a temporary file renamed at commit().
  bool atomic() const { return !TempPath.empty(); }

private:
  std::string failure(int Err) const;
  std::string Path;     ///< as the user wrote it (messages)
  std::string Target;   ///< what rename() replaces
  std::string TempPath; ///< empty for direct writes
  int Fd = -1;
  std::unique_ptr<FdStreamBuf> Buf;
  std::unique_ptr<std::ostream> OS;
};

/// True if \p Output names an existing file that is one of \p Inputs (the
/// same file by device and inode, so also through another spelling, a
/// symbolic or a hard link). \p Inputs are the files a command will read:
/// the expanded list of a directory walk, not the directories themselves.
/// Sets \p Which to the input it matches.
bool isOneOfInputs(const std::string &Output,
                   const std::vector<std::string> &Inputs, std::string &Which);

} // namespace pkb

#endif // PKB_DRIVER_OUTPUTFILE_H
