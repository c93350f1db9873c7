//===- TestUtil.h - Helpers shared by the driver tests ----------*- C++ -*-===//
#ifndef PKB_TESTS_DRIVER_TESTUTIL_H
#define PKB_TESTS_DRIVER_TESTUTIL_H

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

namespace pkb::test {

/// The whole content of file \p P ("" if it cannot be read).
inline std::string slurp(const std::filesystem::path &P) {
  std::ifstream In(P);
  std::stringstream SS;
  SS << In.rdbuf();
  return SS.str();
}

} // namespace pkb::test

#endif // PKB_TESTS_DRIVER_TESTUTIL_H
