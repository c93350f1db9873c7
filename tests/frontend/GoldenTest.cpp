//===- GoldenTest.cpp - JSON models of tests/frontend/golden/*.cu ---------===//
//
// Each golden/NAME.cu is parsed with the shims and compared with
// golden/NAME.json (toJson(ModuleModel) with the file name made relative),
// once without and once with the precompiled shim headers (the same JSON).
// PKB_UPDATE_GOLDEN=1 rewrites the .json files.
//
//===----------------------------------------------------------------------===//
#include "FrontendTestUtil.h"
#include "pkb/ModelJson.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>
#include <sstream>

using namespace pkb;

namespace {

std::string slurp(const std::string &P) {
  std::ifstream In(P);
  std::stringstream SS;
  SS << In.rdbuf();
  return SS.str();
}

class Golden : public ::testing::TestWithParam<const char *> {};

TEST_P(Golden, MatchesJson) {
  std::string Dir = std::string(PKB_SOURCE_DIR) + "/tests/frontend/golden/";
  std::string Name = GetParam();
  std::string Src = slurp(Dir + Name + ".cu");
  ASSERT_FALSE(Src.empty());
  FrontendResult R =
      buildModels(test::cudaUnit(Src, Name + ".cu"), test::shimOptions());
  ASSERT_TRUE(R.Parsed);
  std::string Got = toJson(R.Module).dump(1) + "\n";
  if (const char *U = std::getenv("PKB_UPDATE_GOLDEN"); U && *U == '1') {
    std::ofstream(Dir + Name + ".json") << Got;
    GTEST_SKIP() << "golden updated";
  }
  std::string Want = slurp(Dir + Name + ".json");
  EXPECT_EQ(Got, Want) << "regenerate with PKB_UPDATE_GOLDEN=1 if intended";
}

TEST_P(Golden, MatchesJsonWithPrecompiledHeaders) {
  std::string Dir = std::string(PKB_SOURCE_DIR) + "/tests/frontend/golden/";
  std::string Name = GetParam();
  std::string Src = slurp(Dir + Name + ".cu");
  ASSERT_FALSE(Src.empty());
  FrontendOptions O = test::shimOptions();
  O.PchDir = std::string(PKB_BINARY_DIR) + "/test-pch";
  FrontendResult R = buildModels(test::cudaUnit(Src, Name + ".cu"), O);
  ASSERT_TRUE(R.Parsed);
  EXPECT_TRUE(R.UsedPch);
  EXPECT_EQ(toJson(R.Module).dump(1) + "\n", slurp(Dir + Name + ".json"));
}

INSTANTIATE_TEST_SUITE_P(Frontend, Golden,
                         ::testing::Values("push_allgather", "peerview_barrier",
                                           "ptx_flags", "template_reduce",
                                           "enrich_facts", "candidate_host",
                                           "launch_args", "abi_raw_tables",
                                           "local_defs"));

} // namespace
