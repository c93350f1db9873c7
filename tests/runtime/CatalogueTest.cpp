//===- CatalogueTest.cpp - Problem catalogue vs registered specs ----------===//
//
// The CUDA-free catalogue (pkb/ProblemCatalogue.h) says which problems have
// a C++ spec; the specs registered in problems/ must agree, by id and name,
// and the NVLink byte models of `.py` solutions must agree with the specs'
// NVLink terms; `problems --json` lists the byte models.
//
//===----------------------------------------------------------------------===//
#include "pkb/ProblemCatalogue.h"
#include "pkb/rt/Problem.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <cstdio>
#include <set>
#include <string>

using namespace pkb;

TEST(ProblemCatalogue, SpecsMatchRegisteredProblems) {
  std::set<int> Registered;
  for (const rt::Problem *P : rt::allProblems()) {
    Registered.insert(P->id());
    const CatalogueEntry *E = findCatalogueEntry(P->id());
    ASSERT_NE(E, nullptr) << P->name();
    EXPECT_TRUE(E->HasSpec) << P->name();
    EXPECT_EQ(E->name(), P->name());
    EXPECT_EQ(findCatalogueEntry(P->name()), E);
  }
  for (const CatalogueEntry &E : problemCatalogue())
    EXPECT_EQ(E.HasSpec, Registered.count(E.Id) == 1) << E.Id;
}

TEST(ProblemCatalogue, PkbByteModelsEqualTheSpecsNvlinkTerms) {
  // The .py byte model (catalogue) and the .cu spec (problems/) count the
  // same NVLink bytes for the problems that have both, bf16: ids 1-8 with
  // the spec's size = M*N elements, 13 and 18 with size = M rows and the
  // specs' fixed N = 1024 (GemmAllreduce.cpp kN, TpRmsNorm.cpp kHidden).
  for (const rt::Problem *P : rt::allProblems())
    for (int W : {2, 4, 8}) {
      int64_t M = 256, N = 1024;
      int64_t Size = P->id() <= 8 ? M * N : M;
      PkbNvlinkBytes B = pkbNvlinkBytes(P->id(), {M, N, 2, W});
      ASSERT_TRUE(B.Bytes) << P->name() << ": " << B.Why;
      EXPECT_DOUBLE_EQ(*B.Bytes, P->roofline(W, Size).NvlinkBytesPerRank)
          << P->name() << " W=" << W;
    }
}

TEST(ProblemCatalogue, ProblemsJsonListsByteModels) {
  std::string Cmd =
      "'" + std::string(PKB_BINARY_DIR) + "/bin/pkbcheck-rt' problems --json";
  FILE *P = ::popen(Cmd.c_str(), "r");
  ASSERT_NE(P, nullptr);
  std::string Out;
  char Buf[4096];
  while (size_t N = std::fread(Buf, 1, sizeof(Buf), P))
    Out.append(Buf, N);
  ASSERT_EQ(::pclose(P), 0) << Out;
  auto J = nlohmann::json::parse(Out);
  ASSERT_EQ(J.size(), 87u);
  EXPECT_EQ(J[0]["byte_model"]["formula"], "2(W-1)/W * M*N*b");
  EXPECT_FALSE(J[0].contains("byte_model_absent"));
  EXPECT_NE(J[9]["byte_model_absent"].get<std::string>().find("data-dep"),
            std::string::npos);
}
