//===- CorpusTest.cpp - Every corpus file parses into kernels with events -===//
#include "FrontendTestUtil.h"
#include "pkb/Diagnostic.h"

#include <gtest/gtest.h>

using namespace pkb;

TEST(FrontendCorpus, EveryFileYieldsKernelsWithEvents) {
  std::vector<Diagnostic> Diags;
  std::vector<std::string> Files =
      expandInputs({std::string(PKB_SOURCE_DIR) + "/kernels/corpus/buggy",
                    std::string(PKB_SOURCE_DIR) + "/kernels/corpus/correct"},
                   Diags);
  ASSERT_GE(Files.size(), 70u);
  for (const std::string &F : Files) {
    Input In = readInput(F);
    if (In.Units.empty())
      continue; // host-only .py files (host001_*)
    size_t Kernels = 0, Events = 0;
    for (const CudaUnit &U : In.Units) {
      FrontendResult R = buildModels(U, test::shimOptions());
      EXPECT_TRUE(R.Parsed) << F;
      for (const Diagnostic &D : R.Diags)
        EXPECT_NE(D.Sev, Severity::Error) << F << ": " << D.Message;
      for (const KernelModel &K : R.Module.Kernels) {
        ++Kernels;
        Events += K.Events.size();
        for (const Event &E : K.Events)
          EXPECT_TRUE(E.Loc.isValid()) << F << " " << K.Name;
      }
    }
    EXPECT_GT(Kernels, 0u) << F;
    EXPECT_GT(Events, 0u) << F;
  }
}
