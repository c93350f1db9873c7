//===- TestUtil.h - Helpers shared by the driver tests ----------*- C++ -*-===//
#ifndef PKB_TESTS_DRIVER_TESTUTIL_H
#define PKB_TESTS_DRIVER_TESTUTIL_H

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <unistd.h>

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

} // namespace pkb::test

#endif // PKB_TESTS_DRIVER_TESTUTIL_H
