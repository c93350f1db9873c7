//===- InputLanguageTest.cpp - The input-language registry ----------------===//

#include "pkb/InputLanguage.h"
#include "pkb/DiagCode.h"

#include <gtest/gtest.h>

#include <set>
#include <string>

using namespace pkb;

namespace {

TEST(InputLanguage, RegistersCudaAndPythonInHelpOrder) {
  const auto &L = inputLanguages();
  ASSERT_EQ(L.size(), 2u);
  EXPECT_EQ(L[0].Kind, InputKind::Cuda);
  EXPECT_EQ(L[0].Name, "CUDA");
  EXPECT_EQ(L[1].Kind, InputKind::Python);
  EXPECT_EQ(L[1].Name, "Python");
  for (const InputLanguage &Lang : L)
    EXPECT_NE(Lang.Extract, nullptr) << Lang.Name;
}

TEST(InputLanguage, ExtensionsAreLowerCaseUniqueAndCandidatesOwned) {
  std::set<std::string_view> Seen;
  for (const InputLanguage &L : inputLanguages()) {
    for (std::string_view E : L.Extensions) {
      EXPECT_TRUE(Seen.insert(E).second) << E << " registered twice";
      ASSERT_FALSE(E.empty());
      EXPECT_EQ(E[0], '.') << E;
      for (char C : E)
        EXPECT_FALSE(C >= 'A' && C <= 'Z') << E;
    }
    for (std::string_view E : L.CandidateExtensions)
      EXPECT_NE(std::find(L.Extensions.begin(), L.Extensions.end(), E),
                L.Extensions.end())
          << E;
  }
}

TEST(InputLanguage, LooksUpByExtensionCaseInsensitively) {
  const InputLanguage *Cu = inputLanguageOf("dir.x/k.CU");
  ASSERT_NE(Cu, nullptr);
  EXPECT_EQ(Cu->Kind, InputKind::Cuda);
  const InputLanguage *Py = inputLanguageOf("13_gemm_allreduce_cuda.py");
  ASSERT_NE(Py, nullptr);
  EXPECT_EQ(Py->Kind, InputKind::Python);
  for (const char *P : {"m.pyc", "Makefile", ".cu", "x.cu.bak", "a.c", ""})
    EXPECT_EQ(inputLanguageOf(P), nullptr) << P;
}

TEST(InputLanguage, CandidatesAreCuAndPyFilesOnly) {
  for (const char *P : {"a.cu", "b/1_x.py", "A.CU"})
    EXPECT_TRUE(isCandidatePath(P)) << P;
  for (const char *P : {"a.cuh", "a.cpp", "a.cc", "a.h", "a.hpp", "a.txt"})
    EXPECT_FALSE(isCandidatePath(P)) << P;
}

TEST(InputLanguage, ClangCudaNamesAreExactSpellings) {
  EXPECT_TRUE(isClangCudaName("/d/k.cu"));
  EXPECT_TRUE(isClangCudaName("k.cuh"));
  for (const char *P : {"k.CU", "k.cpp", "k.h", "m.py", "m.py_CUDA_SRC_12"})
    EXPECT_FALSE(isClangCudaName(P)) << P;
}

TEST(InputLanguage, SignalPadBytesPerLanguage) {
  EXPECT_EQ(inputLanguageOf("k.cu")->SignalPadBytes, 65536u);
  EXPECT_EQ(inputLanguageOf("m.py")->SignalPadBytes, 2048u);
}

TEST(InputLanguage, TextsListEveryLanguage) {
  EXPECT_EQ(supportedExtensionsText(), ".cu .cuh .cpp .cc .h .hpp .py");
  EXPECT_EQ(expectedExtensionsText(),
            ".cu .cuh .cpp .cc .h .hpp (CUDA) or .py (Python)");
  EXPECT_EQ(languagesHelpText(), "CUDA (.cu .cuh .cpp .cc .h .hpp) and "
                                 "ParallelKernelBench Python (.py)");
}

TEST(InputLanguage, UnsupportedDiagnosticDocListsEveryExtension) {
  const DiagCodeInfo *I = nullptr;
  for (const DiagCodeInfo &D : diagCodes())
    if (D.Code == DiagCode::InputUnsupported)
      I = &D;
  ASSERT_NE(I, nullptr);
  EXPECT_NE(std::string(I->Meaning).find(supportedExtensionsText()),
            std::string::npos)
      << I->Meaning;
}

TEST(InputLanguage, ExtractorsProduceUnitsOfTheirKind) {
  Input Cu = inputLanguageOf("k.cu")->Extract(
      "k.cu", "__global__ void k() {}\r\nint x;\n");
  EXPECT_EQ(Cu.Kind, InputKind::Cuda);
  ASSERT_EQ(Cu.Units.size(), 1u);
  EXPECT_TRUE(Cu.Units[0].Identity);
  EXPECT_EQ(Cu.Units[0].Map.mapOffset(24).Line, 2u); // after "\r\n"
  Input Py = inputLanguageOf("m.py")->Extract(
      "m.py", "SRC = r'''\n__global__ void k() {}\n'''\n");
  EXPECT_EQ(Py.Kind, InputKind::Python);
  ASSERT_EQ(Py.Units.size(), 1u);
  EXPECT_FALSE(Py.Units[0].Identity);
}

} // namespace
