//===- TestUtil.h - Helpers shared by the driver tests ----------*- C++ -*-===//
#ifndef PKB_TESTS_DRIVER_TESTUTIL_H
#define PKB_TESTS_DRIVER_TESTUTIL_H

#include "pkb/support/Expected.h"

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <unistd.h>
#include <utility>

namespace pkb::test {

/// The whole content of file \p P ("" if it cannot be read).
inline std::string slurp(const std::filesystem::path &P) {
  std::ifstream In(P);
  std::stringstream SS;
  SS << In.rdbuf();
  return SS.str();
}

/// A new empty directory \p Name-PID under the system's temporary directory
/// (removed first if a previous run left it).
inline std::filesystem::path freshTempDir(const std::string &Name) {
  std::filesystem::path D = std::filesystem::temp_directory_path() /
                            (Name + "_" + std::to_string(::getpid()));
  std::filesystem::remove_all(D);
  std::filesystem::create_directories(D);
  return D;
}

/// The message of \p R's error; "" when it holds a value.
template <typename T> std::string errorOf(const pkb::support::Expected<T> &R) {
  return R ? std::string() : R.error().Message;
}

/// Adapts an Expected<void> to the tests' bool checks: true on success,
/// else false with \p Err set to the message.
inline bool ok(const pkb::support::Expected<void> &R, std::string &Err) {
  Err = errorOf(R);
  return static_cast<bool>(R);
}

/// As above, and the value goes to \p Out on success.
template <typename T>
bool ok(pkb::support::Expected<T> R, T &Out, std::string &Err) {
  Err = errorOf(R);
  if (!R)
    return false;
  Out = std::move(*R);
  return true;
}

} // namespace pkb::test

#endif // PKB_TESTS_DRIVER_TESTUTIL_H
