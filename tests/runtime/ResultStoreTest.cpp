//===- ResultStoreTest.cpp - JSONL store and resume -----------------------===//
#include "pkb/rt/ResultStore.h"
#include "pkb/rt/RankEnv.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <unistd.h>

using namespace pkb::rt;
namespace fs = std::filesystem;

namespace {
fs::path tempFile(const char *Name) {
  fs::path P =
      fs::temp_directory_path() /
      (std::string("pkb-rt-test-") + std::to_string(::getpid()) + "-" + Name);
  fs::remove(P);
  return P;
}
} // namespace

TEST(ResultStore, AppendReopenResume) {
  fs::path P = tempFile("store.jsonl");
  {
    ResultStore S(P);
    EXPECT_EQ(S.size(), 0u);
    S.append({{"key", "a|h|1|2|eager"}, {"verdict", "pass"}});
    S.append({{"key", "a|h|2|2|eager"}, {"verdict", "deadlock"}});
    EXPECT_TRUE(S.contains("a|h|1|2|eager"));
    EXPECT_THROW(S.append({{"nokey", 1}}), std::runtime_error);
  }
  ResultStore S(P);
  EXPECT_EQ(S.size(), 2u);
  EXPECT_TRUE(S.contains("a|h|2|2|eager"));
  EXPECT_FALSE(S.contains("a|h|3|2|eager"));
  EXPECT_EQ(S.malformedLines(), 0);
  fs::remove(P);
}

TEST(ResultStore, TornLineIgnoredAndNotGlued) {
  fs::path P = tempFile("torn.jsonl");
  {
    std::ofstream(P) << "{\"key\":\"k1\"}\n{\"key\":\"k2\",\"verd";
  }
  {
    ResultStore S(P);
    EXPECT_EQ(S.size(), 1u);
    EXPECT_EQ(S.malformedLines(), 1);
    S.append({{"key", "k3"}});
  }
  ResultStore S(P);
  EXPECT_TRUE(S.contains("k1"));
  EXPECT_TRUE(S.contains("k3"));
  EXPECT_FALSE(S.contains("k2"));
  EXPECT_EQ(S.malformedLines(), 1);
  fs::remove(P);
}

TEST(ResultStore, KeyFormat) {
  EXPECT_EQ(resultKey("allreduce", "abc", 1024, 2, "graph"),
            "allreduce|abc|1024|2|graph");
}

TEST(RankEnv, LaunchersInOrder) {
  std::map<std::string, std::string> E;
  auto Get = [&](const char *N) -> const char * {
    auto It = E.find(N);
    return It == E.end() ? nullptr : It->second.c_str();
  };
  EXPECT_FALSE(detectRankEnv(Get).has_value());
  E = {{"OMPI_COMM_WORLD_RANK", "3"},
       {"OMPI_COMM_WORLD_SIZE", "4"},
       {"OMPI_COMM_WORLD_LOCAL_RANK", "1"}};
  auto R = detectRankEnv(Get);
  ASSERT_TRUE(R.has_value());
  EXPECT_EQ(R->Rank, 3);
  EXPECT_EQ(R->WorldSize, 4);
  EXPECT_EQ(R->LocalRank, 1);
  EXPECT_EQ(R->Source, "openmpi");
  E = {{"RANK", "1"},
       {"WORLD_SIZE", "2"},
       {"MASTER_PORT", "29500"},
       {"SLURM_PROCID", "0"},
       {"SLURM_NTASKS", "8"}};
  R = detectRankEnv(Get);
  ASSERT_TRUE(R.has_value());
  EXPECT_EQ(R->Source, "torchrun");
  EXPECT_EQ(R->LocalRank, 1); // no LOCAL_RANK: falls back to the rank
  EXPECT_EQ(R->JobId, "29500");
  E = {{"SLURM_PROCID", "5"},
       {"SLURM_NTASKS", "8"},
       {"SLURM_LOCALID", "1"},
       {"SLURM_JOB_ID", "77"}};
  R = detectRankEnv(Get);
  ASSERT_TRUE(R.has_value());
  EXPECT_EQ(R->Source, "slurm");
  EXPECT_EQ(R->JobId, "77");
  E = {{"PMI_RANK", "0"}, {"PMI_SIZE", "1"}}; // world of one: not external
  EXPECT_FALSE(detectRankEnv(Get).has_value());
  E = {{"PMI_RANK", "x"}, {"PMI_SIZE", "2"}};
  EXPECT_FALSE(detectRankEnv(Get).has_value());
}
