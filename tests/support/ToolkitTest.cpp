//===- ToolkitTest.cpp - The one CUDA toolkit search ----------------------===//
//
// The order --cuda-path, CUDA_PATH, CUDA_HOME, /usr/local/cuda, PATH, on
// fake toolkits (directories with an executable bin/nvcc) in a temporary
// directory. The environment is restored after each test.
//
//===----------------------------------------------------------------------===//
#include "pkb/support/Toolkit.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <unistd.h>

using namespace pkb::support;
namespace fs = std::filesystem;

namespace {
class Toolkit : public ::testing::Test {
protected:
  void SetUp() override {
    Dir = fs::temp_directory_path() /
          ("pkb-toolkit-" + std::to_string(::getpid()));
    fs::remove_all(Dir);
    for (const char *V : {"CUDA_PATH", "CUDA_HOME", "PATH"})
      Saved.emplace_back(V, envOr(V));
    ::unsetenv("CUDA_PATH");
    ::unsetenv("CUDA_HOME");
    ::setenv("PATH", "", 1);
  }
  void TearDown() override {
    for (const auto &[K, V] : Saved)
      ::setenv(K.c_str(), V.c_str(), 1);
    fs::remove_all(Dir);
  }
  /// A fake toolkit root with an executable bin/nvcc.
  std::string root(const std::string &Name) {
    fs::path R = Dir / Name;
    fs::create_directories(R / "bin");
    std::ofstream(R / "bin" / "nvcc") << "#!/bin/sh\n";
    fs::permissions(R / "bin" / "nvcc", fs::perms::owner_all);
    return R.string();
  }
  fs::path Dir;
  std::vector<std::pair<std::string, std::string>> Saved;
};
} // namespace

TEST_F(Toolkit, SearchOrder) {
  std::string Explicit = root("explicit"), Path = root("path"),
              Home = root("home"), OnPath = root("onpath");
  ::setenv("CUDA_PATH", Path.c_str(), 1);
  ::setenv("CUDA_HOME", Home.c_str(), 1);
  ::setenv("PATH", (OnPath + "/bin").c_str(), 1);
  auto C = toolkitRootCandidates(Explicit);
  ASSERT_GE(C.size(), 5u);
  EXPECT_EQ(C[0], Explicit);
  EXPECT_EQ(C[1], Path);
  EXPECT_EQ(C[2], Home);
  EXPECT_EQ(C[3], "/usr/local/cuda");
  EXPECT_EQ(C[4], OnPath);
  EXPECT_EQ(findToolkitTool("nvcc", Explicit), Explicit + "/bin/nvcc");
  EXPECT_EQ(findToolkitTool("nvcc"), Path + "/bin/nvcc");
  ::unsetenv("CUDA_PATH");
  EXPECT_EQ(findToolkitTool("nvcc"), Home + "/bin/nvcc");
  // The first usable root wins; unusable ones are passed over.
  EXPECT_EQ(
      findToolkitRoot("", [&](const std::string &R) { return R == OnPath; }),
      OnPath);
  EXPECT_EQ(findToolkitRoot("", [](const std::string &) { return false; }), "");
}

TEST_F(Toolkit, OverrideAndPathTools) {
  std::string Home = root("home");
  EXPECT_EQ(findToolkitTool("nvcc", "", Home + "/bin/nvcc"),
            Home + "/bin/nvcc");
  // A tool found only in a PATH directory (no toolkit around it).
  fs::create_directories(Dir / "tools");
  std::ofstream(Dir / "tools" / "compute-sanitizer") << "#!/bin/sh\n";
  fs::permissions(Dir / "tools" / "compute-sanitizer", fs::perms::owner_all);
  ::setenv("PATH", (Dir / "tools").c_str(), 1);
  std::string Found = findToolkitTool("compute-sanitizer");
  // /usr/local/cuda may have one on a machine with the toolkit.
  EXPECT_TRUE(Found == (Dir / "tools" / "compute-sanitizer").string() ||
              Found == "/usr/local/cuda/bin/compute-sanitizer")
      << Found;
  EXPECT_EQ(findToolkitTool("no-such-tool-xyz"), "");
}
