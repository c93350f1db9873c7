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
#include <vector>

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

TEST(ProblemCatalogue, SizeContractsEqualTheSpecsTensors) {
  // The static checks' size contracts (CUDA-free) and the specs' default
  // sizes, inputs and outputs describe the same tensors.
  int Contracts = 0;
  for (const rt::Problem *P : rt::allProblems()) {
    const SizeContract *C = sizeContract(P->id());
    if (!C)
      continue;
    ++Contracts;
    EXPECT_EQ(
        std::vector<int64_t>(C->DefaultSizes.begin(), C->DefaultSizes.end()),
        P->defaultSizes())
        << P->name();
    for (int W : {2, 3, 8})
      for (int Rank : {0, 1}) {
        int64_t N = 4096;
        auto One = [&](const std::vector<rt::TensorSpec> &T, bool TimesW,
                       bool RootOnly, const char *What) {
          if (RootOnly && Rank != 0) {
            EXPECT_TRUE(T.empty()) << P->name() << " " << What;
            return;
          }
          ASSERT_EQ(T.size(), 1u) << P->name() << " " << What;
          EXPECT_EQ(T[0].Shape, std::vector<int64_t>{TimesW ? W * N : N})
              << P->name() << " " << What << " W=" << W;
          EXPECT_EQ(T[0].Dtype, PKB_DTYPE_BF16) << P->name();
        };
        One(P->inputs(W, Rank, N), C->InputTimesW, C->InputRootOnly, "in");
        One(P->outputs(W, Rank, N), C->OutputTimesW, C->OutputRootOnly, "out");
      }
  }
  EXPECT_EQ(Contracts, 8);
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
