//===- CompilerTest.cpp - nvcc driver and cache ---------------------------===//
#include "pkb/rt/Compiler.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <unistd.h>

using namespace pkb::rt;
namespace fs = std::filesystem;

TEST(Compiler, HashIsStableAndSensitive) {
  EXPECT_EQ(contentHash("abc"), contentHash("abc"));
  EXPECT_NE(contentHash("abc"), contentHash("abd"));
  EXPECT_EQ(contentHash("").size(), 32u);
  // FNV-1a 64 of "" is the offset basis.
  EXPECT_EQ(contentHash("").substr(0, 16), "cbf29ce484222325");
}

TEST(Compiler, FlagsFollowTheIssue) {
  CompileOptions O;
  O.AbiInclude = "/inc";
  auto F = candidateFlags(O);
  ASSERT_GE(F.size(), 4u);
  EXPECT_EQ(F[0], "-gencode=arch=compute_90a,code=sm_90a");
  EXPECT_EQ(F[1], "-shared");
  EXPECT_EQ(F[2], "-Xcompiler");
  EXPECT_EQ(F[3], "-fPIC");
  EXPECT_EQ(F.back(), "-I/inc");
}

class CompilerNvcc : public ::testing::Test {
protected:
  void SetUp() override {
    if (findNvcc().empty())
      GTEST_SKIP() << "nvcc not installed";
    Cache =
        fs::temp_directory_path() / ("pkb-rt-cc-" + std::to_string(::getpid()));
    O.CacheDir = Cache;
    O.AbiInclude = fs::path(PKB_SOURCE_DIR) / "runtime" / "include";
  }
  void TearDown() override { fs::remove_all(Cache); }
  fs::path Cache;
  CompileOptions O;
};

TEST_F(CompilerNvcc, CompileErrorIsVerbatim) {
  auto R = compileCandidate(
      fs::path(PKB_SOURCE_DIR) / "runtime/testdata/broken_compile_error.cu", O);
  EXPECT_FALSE(R.Ok);
  EXPECT_NE(R.Log.find("has no member \"no_such_field\""), std::string::npos)
      << R.Log;
  EXPECT_NE(R.Log.find("broken_compile_error.cu(5)"), std::string::npos);
}

TEST_F(CompilerNvcc, GoodCandidateCompilesAndIsCached) {
  fs::path Src =
      fs::path(PKB_SOURCE_DIR) / "runtime/testdata/allreduce_oneshot.cu";
  auto R = compileCandidate(Src, O);
  ASSERT_TRUE(R.Ok) << R.Log;
  EXPECT_FALSE(R.Cached);
  EXPECT_TRUE(fs::exists(R.Library));
  auto R2 = compileCandidate(Src, O);
  ASSERT_TRUE(R2.Ok);
  EXPECT_TRUE(R2.Cached);
  EXPECT_EQ(R2.Library, R.Library);
  EXPECT_EQ(R2.Hash, R.Hash);
}

TEST(Compiler, MissingSource) {
  CompileOptions O;
  auto R = compileCandidate("/nonexistent/x.cu", O);
  EXPECT_FALSE(R.Ok);
  EXPECT_NE(R.Log.find("cannot read"), std::string::npos);
}

TEST_F(CompilerNvcc, EditingAQuotedIncludeInvalidatesTheCache) {
  // A candidate split into a .cu and its own header: editing only the header
  // must produce a new hash (and a rebuild), never the stale cached object.
  fs::path Dir = Cache / "src";
  fs::create_directories(Dir / "common");
  auto Write = [](const fs::path &P, const std::string &Text) {
    std::ofstream(P) << Text;
  };
  Write(Dir / "k.cu", "#include \"common/h.cuh\"\n"
                      "extern \"C\" int k_value() { return kValue; }\n");
  Write(Dir / "common/h.cuh", "#pragma once\nconstexpr int kValue = 1;\n");
  auto R1 = compileCandidate(Dir / "k.cu", O);
  ASSERT_TRUE(R1.Ok) << R1.Log;
  Write(Dir / "common/h.cuh", "#pragma once\nconstexpr int kValue = 2;\n");
  auto R2 = compileCandidate(Dir / "k.cu", O);
  ASSERT_TRUE(R2.Ok) << R2.Log;
  EXPECT_NE(R1.Hash, R2.Hash);
  EXPECT_FALSE(R2.Cached);
}
