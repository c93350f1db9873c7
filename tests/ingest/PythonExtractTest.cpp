//===- PythonExtractTest.cpp - CUDA units and exact line mapping ----------===//

#include "pkb/Ingest.h"

#include <gtest/gtest.h>

#include <fstream>
#include <iterator>

using namespace pkb;

namespace {

/// Location in the .py file of the \p Nth occurrence of \p Needle in the
/// unit's extracted text.
SourceLoc locOf(const CudaUnit &U, const std::string &Needle, int Nth = 0) {
  size_t P = U.Text.find(Needle);
  for (int I = 0; I < Nth && P != std::string::npos; ++I)
    P = U.Text.find(Needle, P + 1);
  EXPECT_NE(P, std::string::npos) << Needle;
  return P == std::string::npos ? SourceLoc{} : U.Map.mapOffset(P);
}

/// 1-based column of \p Needle in the source \p Src (single-line sources).
unsigned colIn(const std::string &Src, const std::string &Needle) {
  size_t P = Src.find(Needle);
  EXPECT_NE(P, std::string::npos) << Needle;
  return static_cast<unsigned>(P + 1);
}

#define EXPECT_LOC(L, ExpLine, ExpCol)                                         \
  do {                                                                         \
    SourceLoc L_ = (L);                                                        \
    EXPECT_EQ(L_.Line, (ExpLine));                                             \
    EXPECT_EQ(L_.Col, (ExpCol));                                               \
  } while (0)

TEST(PythonExtract, RawTripleQuotedString) {
  std::string Src = "CUDA = r\"\"\"__global__ void k() {\n"
                    "  asm volatile(\"bar.sync 0;\");\n"
                    "}\n"
                    "\"\"\"\n";
  Input In = extractPython("t.py", Src);
  EXPECT_TRUE(In.Diags.empty());
  ASSERT_EQ(In.Units.size(), 1u);
  const CudaUnit &U = In.Units[0];
  EXPECT_EQ(U.Name, "t.py:CUDA@1");
  EXPECT_FALSE(U.Identity);
  EXPECT_EQ(U.Text, "__global__ void k() {\n  asm volatile(\"bar.sync 0;\");\n"
                    "}\n");
  EXPECT_EQ(U.Map.File, "t.py");
  EXPECT_LOC(U.Map.mapOffset(0), 1u, 12u);
  EXPECT_LOC(locOf(U, "asm"), 2u, 3u);
  EXPECT_LOC(locOf(U, "}\n"), 3u, 1u);
  EXPECT_LOC(U.Map.map(U.Text, 1, 1), 1u, 12u);
  EXPECT_LOC(U.Map.map(U.Text, 2, 16), 2u, 16u);
  EXPECT_EQ(U.Map.map(U.Text, 1, 1).File, "t.py");
  // The last newline maps to the position before the closing quotes.
  EXPECT_LOC(U.Map.mapOffset(U.Text.size() - 1), 3u, 2u);
}

TEST(PythonExtract, LiteralAtLineOneColumnOneVersusIndented) {
  Input A = extractPython("a.py", "r'''__global__ void a() {}'''\n");
  ASSERT_EQ(A.Units.size(), 1u);
  EXPECT_EQ(A.Units[0].Name, "a.py:str@1");
  EXPECT_EQ(A.Units[0].Text, "__global__ void a() {}");
  EXPECT_LOC(A.Units[0].Map.mapOffset(0), 1u, 5u);

  Input B = extractPython("b.py", "def f():\n"
                                  "    SRC = '''\n"
                                  "        __global__ void b() {}\n"
                                  "    '''\n"
                                  "    return SRC\n");
  ASSERT_EQ(B.Units.size(), 1u);
  const CudaUnit &U = B.Units[0];
  EXPECT_EQ(U.Name, "b.py:SRC@2");
  EXPECT_EQ(U.Text, "\n        __global__ void b() {}\n    ");
  EXPECT_LOC(U.Map.mapOffset(0), 2u, 14u); // the newline after '''
  EXPECT_LOC(locOf(U, "__global__"), 3u, 9u);
  EXPECT_LOC(U.Map.map(U.Text, 2, 9), 3u, 9u);
  EXPECT_LOC(U.Map.map(U.Text, 3, 4), 4u, 4u);
}

TEST(PythonExtract, EscapesInNonRawStrings) {
  const std::string Src =
      R"PY(K = "__global__ void k() {\n\tprintf(\"%d\\n\", 1);\x41\u00e9\101\N{BULLET}}")PY";
  Input In = extractPython("e.py", Src + "\n");
  ASSERT_EQ(In.Units.size(), 1u);
  const CudaUnit &U = In.Units[0];
  EXPECT_EQ(U.Text, "__global__ void k() {\n\tprintf(\"%d\\n\", 1);A\xC3\xA9"
                    "A?}");
  EXPECT_LOC(U.Map.mapOffset(0), 1u, 6u);
  EXPECT_LOC(locOf(U, "{\n"), 1u, colIn(Src, "{\\n"));
  EXPECT_LOC(locOf(U, "\n"), 1u, colIn(Src, "\\n\\t"));     // \n
  EXPECT_LOC(locOf(U, "\t"), 1u, colIn(Src, "\\tprintf"));  // \t
  EXPECT_LOC(locOf(U, "printf"), 1u, colIn(Src, "printf")); // after \t
  EXPECT_LOC(locOf(U, "\"%d"), 1u, colIn(Src, "\\\"%d"));   // \"
  EXPECT_LOC(locOf(U, "%d"), 1u, colIn(Src, "%d"));
  EXPECT_LOC(locOf(U, "\\n\""), 1u, colIn(Src, "\\\\n"));     // \\ ...
  EXPECT_LOC(locOf(U, "n\", 1"), 1u, colIn(Src, "n\\\", 1")); // ... then n
  EXPECT_LOC(locOf(U, "A\xC3"), 1u, colIn(Src, "\\x41"));
  EXPECT_LOC(locOf(U, "\xC3\xA9"), 1u, colIn(Src, "\\u00e9"));
  EXPECT_LOC(locOf(U, "\xA9"), 1u, colIn(Src, "\\u00e9")); // both bytes
  EXPECT_LOC(locOf(U, "A?"), 1u, colIn(Src, "\\101"));
  EXPECT_LOC(locOf(U, "?"), 1u, colIn(Src, "\\N{"));
  EXPECT_LOC(locOf(U, "?}") /*the '}' is next*/, 1u, colIn(Src, "\\N{"));
  EXPECT_LOC(U.Map.mapOffset(U.Text.size() - 1), 1u,
             static_cast<unsigned>(Src.rfind('}') + 1));
  bool SawEscape = false;
  for (const SourceMap::Segment &S : U.Map.segments())
    SawEscape |= S.Escape;
  EXPECT_TRUE(SawEscape);
}

TEST(PythonExtract, BackslashNewlineInsideNonRawStringJoinsLines) {
  Input In = extractPython("c.py", "K = '__global__ \\\n void k(){}'\n");
  ASSERT_EQ(In.Units.size(), 1u);
  const CudaUnit &U = In.Units[0];
  EXPECT_EQ(U.Text, "__global__  void k(){}");
  EXPECT_LOC(locOf(U, "void"), 2u, 2u);
  EXPECT_LOC(locOf(U, "  void"), 1u, 16u);
}

TEST(PythonExtract, RawStringKeepsBackslashes) {
  Input In = extractPython("r.py", "K = r'__global__ \\n \\' \\\n x'\n");
  ASSERT_EQ(In.Units.size(), 1u);
  EXPECT_EQ(In.Units[0].Text, "__global__ \\n \\' \\\n x");
  EXPECT_LOC(locOf(In.Units[0], " x"), 2u, 1u);
}

TEST(PythonExtract, ImplicitConcatenationAcrossLinesWithFString) {
  std::string Src = "N = 4\n"
                    "SRC = (\n"
                    "    \"__global__ void k() {\"  # the kernel\n"
                    "    '  int x = 1;'\n"
                    "    f\"  int y = {N};\"\n"
                    "    \"}\"\n"
                    ")\n";
  Input In = extractPython("i.py", Src);
  ASSERT_EQ(In.Units.size(), 1u);
  const CudaUnit &U = In.Units[0];
  EXPECT_EQ(U.Name, "i.py:SRC@3");
  EXPECT_EQ(U.Text, "__global__ void k() {  int x = 1;  int y = 000;}");
  EXPECT_LOC(U.Map.mapOffset(0), 3u, 6u);
  EXPECT_LOC(locOf(U, "{  int"), 3u, 26u);
  EXPECT_LOC(locOf(U, "  int x"), 4u, 6u);
  EXPECT_LOC(locOf(U, "000"), 4u + 1, 17u);
  EXPECT_LOC(U.Map.mapOffset(U.Text.find("000") + 2), 5u, 19u);
  EXPECT_LOC(locOf(U, ";}"), 5u, 20u);
  EXPECT_LOC(U.Map.mapOffset(U.Text.size() - 1), 6u, 6u);
}

TEST(PythonExtract, FStringDoubledBracesAndFields) {
  const std::string Src = "K = f\"__global__ void k() {{ int a[{W}]; }}\"";
  Input In = extractPython("f.py", Src + "\n");
  ASSERT_EQ(In.Units.size(), 1u);
  const CudaUnit &U = In.Units[0];
  EXPECT_EQ(U.Text, "__global__ void k() { int a[000]; }");
  EXPECT_LOC(locOf(U, "{ int"), 1u, colIn(Src, "{{"));
  EXPECT_LOC(locOf(U, " int"), 1u, colIn(Src, " int"));
  EXPECT_LOC(locOf(U, "000"), 1u, colIn(Src, "{W}"));
  EXPECT_LOC(locOf(U, "]; "), 1u, colIn(Src, "]; "));
  EXPECT_LOC(U.Map.mapOffset(U.Text.size() - 1), 1u, colIn(Src, "}}\""));
}

TEST(PythonExtract, FStringNestedQuotesAndFormatSpec) {
  // PEP 701: the field reuses the enclosing quote; nested field in the spec.
  const std::string Src = "K = f\"__device__ int x = {d[\"k\"]:>{w}}; int z;\"";
  Input In = extractPython("n.py", Src + "\n");
  EXPECT_TRUE(In.Diags.empty());
  ASSERT_EQ(In.Units.size(), 1u);
  const CudaUnit &U = In.Units[0];
  EXPECT_EQ(U.Text, "__device__ int x = " + std::string(13, '0') + "; int z;");
  EXPECT_LOC(locOf(U, "; int z"), 1u, colIn(Src, "; int z"));
}

TEST(PythonExtract, AllStringPrefixes) {
  std::string Src = "Rb'__global__ a'\n"
                    "BR\"__global__ b\"\n"
                    "F'__global__ c{x}'\n"
                    "fR\"__global__ \\d{x}\"\n"
                    "U'__global__ e'\n"
                    "rb'''__global__ f'''\n"
                    "Tr'__global__ {g}'\n"
                    "u\"__device__ \\x41\"\n";
  Input In = extractPython("p.py", Src);
  EXPECT_TRUE(In.Diags.empty());
  ASSERT_EQ(In.Units.size(), 8u);
  const char *Want[] = {"__global__ a",      "__global__ b", "__global__ c000",
                        "__global__ \\d000", "__global__ e", "__global__ f",
                        "__global__ 000",    "__device__ A"};
  for (size_t I = 0; I < 8; ++I) {
    EXPECT_EQ(In.Units[I].Text, Want[I]) << I;
    EXPECT_EQ(In.Units[I].Name, "p.py:str@" + std::to_string(I + 1));
  }
  EXPECT_LOC(In.Units[5].Map.mapOffset(0), 6u, 6u);
}

TEST(PythonExtract, CommentsAndHashesInsideStrings) {
  Input In = extractPython(
      "h.py", "# SRC = \"__global__ void fake() {}\"\n"
              "SRC = \"__global__ void k() { /* # no comment */ }\"  "
              "# \"__device__\"\n"
              "OTHER = '#include <vector>'\n");
  EXPECT_TRUE(In.Diags.empty());
  ASSERT_EQ(In.Units.size(), 1u);
  EXPECT_EQ(In.Units[0].Text, "__global__ void k() { /* # no comment */ }");
  EXPECT_EQ(In.Units[0].Name, "h.py:SRC@2");
}

TEST(PythonExtract, BackslashContinuationBeforeTheLiteral) {
  Input In = extractPython("b.py", "SRC = \\\n    '__global__ void k(){}'\n");
  ASSERT_EQ(In.Units.size(), 1u);
  EXPECT_EQ(In.Units[0].Name, "b.py:SRC@2");
  EXPECT_LOC(In.Units[0].Map.mapOffset(0), 2u, 6u);
}

TEST(PythonExtract, CrLfLineEndings) {
  Input In = extractPython(
      "w.py", "x = 1\r\nSRC = r'''\r\n__global__ void k() {}\r\n'''\r\n");
  ASSERT_EQ(In.Units.size(), 1u);
  const CudaUnit &U = In.Units[0];
  EXPECT_EQ(U.Text, "\n__global__ void k() {}\n");
  EXPECT_LOC(U.Map.mapOffset(0), 2u, 11u);
  EXPECT_LOC(locOf(U, "__global__"), 3u, 1u);
  EXPECT_LOC(locOf(U, "}\n"), 3u, 22u);
  EXPECT_LOC(U.Map.mapOffset(U.Text.size() - 1), 3u, 23u);
}

TEST(PythonExtract, ByteOrderMarkIsNotAColumn) {
  Input In =
      extractPython("m.py", "\xEF\xBB\xBFSRC = '__global__ void k(){}'\n");
  ASSERT_EQ(In.Units.size(), 1u);
  EXPECT_EQ(In.Units[0].Name, "m.py:SRC@1");
  EXPECT_LOC(In.Units[0].Map.mapOffset(0), 1u, 8u);
}

TEST(PythonExtract, TabsCountAsOneColumn) {
  Input In = extractPython("t.py", "def f():\n\tS = '__global__ void k(){}'\n");
  ASSERT_EQ(In.Units.size(), 1u);
  EXPECT_LOC(In.Units[0].Map.mapOffset(0), 2u, 7u);
}

TEST(PythonExtract, UnterminatedStringsAreParseErrors) {
  Input A = extractPython("u.py", "SRC = '__global__ void k(){}\nx = 1\n");
  ASSERT_EQ(A.Diags.size(), 1u);
  EXPECT_EQ(A.Diags[0].Code, "parse-error");
  EXPECT_EQ(A.Diags[0].Sev, Severity::Warning);
  EXPECT_EQ(A.Diags[0].Loc.File, "u.py");
  EXPECT_EQ(A.Diags[0].Loc.Line, 1u);
  EXPECT_EQ(A.Diags[0].Loc.Col, 7u);
  EXPECT_EQ(A.Diags[0].Message,
            "Python tokenizer: unterminated string literal");
  ASSERT_EQ(A.Units.size(), 1u); // still analyzed up to the line end
  EXPECT_EQ(A.Units[0].Text, "__global__ void k(){}");

  Input B = extractPython("v.py", "x = 1\nSRC = '''__global__\n\n");
  ASSERT_GE(B.Diags.size(), 1u);
  EXPECT_EQ(B.Diags[0].Code, "parse-error");
  EXPECT_EQ(B.Diags[0].Loc.Line, 2u);
  EXPECT_EQ(B.Diags[0].Loc.Col, 7u);
  EXPECT_EQ(B.Diags[0].Message,
            "Python tokenizer: unterminated triple-quoted string literal");
}

TEST(PythonExtract, LoadInlineCombinesCudaAndCppSources) {
  std::string Src = "CPP = \"torch::Tensor f(torch::Tensor x);\"\n"
                    "CUDA = r'''\n"
                    "__global__ void k(float* x) {}\n"
                    "torch::Tensor f(torch::Tensor x) { return x; }\n"
                    "'''\n"
                    "OTHER = \"__device__ int unused;\"\n"
                    "mod = load_inline(\"m\", CPP, cuda_sources=[CUDA], "
                    "functions=[\"f\"])\n";
  Input In = extractPython("l.py", Src);
  EXPECT_TRUE(In.Diags.empty());
  ASSERT_EQ(In.Units.size(), 2u);
  const CudaUnit &U = In.Units[0];
  EXPECT_EQ(U.Name, "l.py:CUDA@2");
  const std::string Cuda = "\n__global__ void k(float* x) {}\n"
                           "torch::Tensor f(torch::Tensor x) { return x; }\n";
  EXPECT_EQ(U.Text, Cuda + "\n" + "torch::Tensor f(torch::Tensor x);");
  EXPECT_FALSE(U.Map.mapOffset(Cuda.size()).isValid()); // the separator
  EXPECT_LOC(U.Map.mapOffset(Cuda.size() + 1), 1u, 8u);
  EXPECT_LOC(locOf(U, "__global__"), 3u, 1u);
  EXPECT_EQ(In.Units[1].Name, "l.py:OTHER@6");
  EXPECT_EQ(In.Units[1].Text, "__device__ int unused;");
}

TEST(PythonExtract, SourcesResolvedThroughNamesAndConcatenation) {
  std::string Src = "import textwrap\n"
                    "HEADER = '#include <torch/extension.h>\\n'\n"
                    "BODY = textwrap.dedent('''\n"
                    "    int twice(int x) { return 2 * x; }\n"
                    "''')\n"
                    "SRC = HEADER + BODY\n"
                    "ALIAS = SRC\n"
                    "def build():\n"
                    "    return torch.utils.cpp_extension.load_inline(\n"
                    "        name='t', cpp_sources='', cuda_sources=ALIAS)\n";
  Input In = extractPython("r.py", Src);
  ASSERT_EQ(In.Units.size(), 1u);
  EXPECT_EQ(In.Units[0].Name, "r.py:HEADER@2");
  EXPECT_EQ(In.Units[0].Text, "#include <torch/extension.h>\n\n\n"
                              "    int twice(int x) { return 2 * x; }\n");
  EXPECT_LOC(locOf(In.Units[0], "int twice"), 4u, 5u);
}

TEST(PythonExtract, InlineCudaSourcesKeywordNamesTheUnit) {
  Input In = extractPython(
      "k.py", "ext = load_inline(name='e', cpp_sources='int f();',\n"
              "                  cuda_sources='int f() { return 1; }')\n");
  ASSERT_EQ(In.Units.size(), 1u);
  EXPECT_EQ(In.Units[0].Name, "k.py:cuda_sources@2");
  EXPECT_EQ(In.Units[0].Text, "int f() { return 1; }\nint f();");
}

TEST(PythonExtract, SameSourcesCompiledTwiceGiveOneUnit) {
  Input In =
      extractPython("d.py", "S = '__global__ void k(){}'\n"
                            "a = load_inline('a', '', S)\n"
                            "b = load_inline('b', '', cuda_sources=S)\n");
  ASSERT_EQ(In.Units.size(), 1u);
  EXPECT_EQ(In.Units[0].Name, "d.py:S@1");
}

TEST(PythonExtract, NoCudaNote) {
  Input In = extractPython("n.py", "x = 'nothing to see'\nprint(x)\n");
  EXPECT_TRUE(In.Units.empty());
  ASSERT_EQ(In.Diags.size(), 1u);
  EXPECT_EQ(In.Diags[0].Code, "no-cuda");
  EXPECT_EQ(In.Diags[0].Sev, Severity::Note);
  EXPECT_EQ(In.Diags[0].Loc.Line, 1u);
  EXPECT_EQ(In.Diags[0].Loc.Col, 1u);
}

TEST(PythonExtract, DataFileMappingMatchesTheFile) {
  std::string Path =
      std::string(PKB_SOURCE_DIR) + "/tests/ingest/data/oneshot_allreduce.py";
  Input In = readInput(Path);
  EXPECT_TRUE(In.Diags.empty());
  ASSERT_EQ(In.Units.size(), 1u);
  const CudaUnit &U = In.Units[0];
  EXPECT_EQ(U.Name, Path + ":CUDA_SRC@15");
  EXPECT_EQ(U.Text.substr(0, 30), "\n#include <torch/extension.h>\n");
  EXPECT_LOC(U.Map.mapOffset(0), 15u, 16u);
  EXPECT_LOC(locOf(U, "st.release.sys.global.u32"), 21u, 19u);
  EXPECT_LOC(locOf(U, "ld.acquire.sys.global.u32"), 26u, 19u);
  EXPECT_LOC(locOf(U, "__global__ void one_shot"), 30u, 1u);
  EXPECT_LOC(locOf(U, "PYBIND11_MODULE"), 61u, 1u);
}

TEST(PythonExtract, DataFileWithEscapesAndCppSource) {
  std::string Path =
      std::string(PKB_SOURCE_DIR) + "/tests/ingest/data/cuda_cpp_src.py";
  Input In = readInput(Path);
  EXPECT_TRUE(In.Diags.empty());
  ASSERT_EQ(In.Units.size(), 1u);
  const CudaUnit &U = In.Units[0];
  EXPECT_EQ(U.Name, Path + ":CUDA_SRC@14");
  EXPECT_NE(U.Text.find("printf(\"rank flag set\\n\");"), std::string::npos);
  // printf(\"rank flag set\\n\"); is on line 25 at column 9 of the file.
  EXPECT_LOC(locOf(U, "printf"), 25u, 9u);
  EXPECT_LOC(locOf(U, "\"rank"), 25u, 16u); // the backslash of \"
  EXPECT_LOC(locOf(U, "rank flag"), 25u, 18u);
  EXPECT_LOC(locOf(U, "\\n\""), 25u, 31u); // \\ -> one backslash
  EXPECT_LOC(locOf(U, "n\");"), 25u, 33u);
  std::string Cpp = "#include <torch/extension.h>\ntorch::Tensor "
                    "ring_exchange(torch::Tensor local, int64_t peer_ptr, "
                    "int64_t flag_ptr, int64_t rank);\n";
  ASSERT_GE(U.Text.size(), Cpp.size());
  EXPECT_EQ(U.Text.substr(U.Text.size() - Cpp.size()), Cpp);
  size_t CppAt = U.Text.size() - Cpp.size();
  EXPECT_FALSE(U.Map.mapOffset(CppAt - 1).isValid());
  EXPECT_LOC(U.Map.mapOffset(CppAt), 41u, 6u);
  EXPECT_LOC(U.Map.mapOffset(U.Text.find(" int64_t flag_ptr", CppAt)), 43u, 6u);
}

} // namespace

namespace {

/// Every mapped, non-escape byte of every unit equals the file's byte at the
/// mapped position (a newline may come from "\r\n" or "\r").
void checkMapIsExact(const std::string &Path) {
  Input In = readInput(Path);
  std::ifstream F(Path, std::ios::binary);
  std::string File((std::istreambuf_iterator<char>(F)),
                   std::istreambuf_iterator<char>());
  std::vector<size_t> LineStart = {0};
  for (size_t I = 0; I < File.size(); ++I)
    if (File[I] == '\n')
      LineStart.push_back(I + 1);
  ASSERT_FALSE(In.Units.empty()) << Path;
  for (const CudaUnit &U : In.Units) {
    size_t Prev = 0;
    for (const SourceMap::Segment &S : U.Map.segments()) {
      EXPECT_GE(S.ExtractedBegin, Prev); // sorted, non-overlapping
      Prev = S.ExtractedBegin + S.Length;
      ASSERT_LE(Prev, U.Text.size());
      if (S.Escape)
        continue;
      for (size_t K = 0; K < S.Length; ++K) {
        ASSERT_LE(S.Line, LineStart.size());
        size_t Off = LineStart[S.Line - 1] + S.Col - 1 + K;
        ASSERT_LT(Off, File.size());
        char E = U.Text[S.ExtractedBegin + K];
        if (E == '\n')
          EXPECT_TRUE(File[Off] == '\n' || File[Off] == '\r');
        else
          EXPECT_EQ(E, File[Off])
              << U.Name << " at extracted " << S.ExtractedBegin + K;
      }
    }
  }
}

TEST(PythonExtract, EveryMappedByteMatchesTheFile) {
  for (const char *F :
       {"oneshot_allreduce.py", "cuda_cpp_src.py", "multimem_allreduce.py"})
    checkMapIsExact(std::string(PKB_SOURCE_DIR) + "/tests/ingest/data/" + F);
}

TEST(PythonExtract, EveryPrefixOfADataFileIsHandled) {
  // Truncated files (unterminated strings, open brackets, half statements)
  // must never crash and must keep every mapped location inside the file.
  std::string Path =
      std::string(PKB_SOURCE_DIR) + "/tests/ingest/data/multimem_allreduce.py";
  std::ifstream F(Path, std::ios::binary);
  std::string File((std::istreambuf_iterator<char>(F)),
                   std::istreambuf_iterator<char>());
  unsigned Lines = 1;
  for (char C : File)
    Lines += C == '\n';
  for (size_t N = 0; N <= File.size(); N += 7) {
    Input In = extractPython("p.py", File.substr(0, N));
    for (const CudaUnit &U : In.Units)
      for (const SourceMap::Segment &S : U.Map.segments())
        ASSERT_LE(S.Line, Lines);
    for (const Diagnostic &D : In.Diags)
      ASSERT_GE(D.Loc.Line, 1u);
    for (const HostOp &Op : In.HostOps)
      ASSERT_GE(Op.Loc.Line, 1u);
  }
}

} // namespace

namespace {

TEST(PythonExtract, DeepNestingIsBoundedNotAStackOverflow) {
  std::string Calls = "def solution():\n    ";
  for (int I = 0; I < 50000; ++I)
    Calls += "f(";
  Calls += "dist.barrier()";
  for (int I = 0; I < 50000; ++I)
    Calls += ")";
  Calls += "\n    dist.barrier()\n";
  Input A = extractPython("a.py", Calls);
  ASSERT_EQ(A.HostOps.size(), 1u); // the one nested 50000 deep is not seen
  EXPECT_EQ(A.HostOps[0].Loc.Line, 3u);

  std::string FStr = "S = ";
  for (int I = 0; I < 5000; ++I)
    FStr += "f'{";
  FStr += "\n";
  Input B = extractPython("b.py", FStr);
  bool TooDeep = false;
  for (const Diagnostic &D : B.Diags)
    TooDeep |= D.Message == "Python tokenizer: f-string nesting too deep";
  EXPECT_TRUE(TooDeep);
}

} // namespace
