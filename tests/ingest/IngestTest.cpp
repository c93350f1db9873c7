//===- IngestTest.cpp - Classification, bad inputs, CUDA files, expansion -===//

#include "pkb/Ingest.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

using namespace pkb;
namespace fs = std::filesystem;

namespace {

/// A fresh scratch directory for one test, under the build tree.
fs::path scratch(const std::string &Name) {
  fs::path D = fs::path(PKB_BINARY_DIR) / "ingest-test-tmp" / Name;
  fs::remove_all(D);
  fs::create_directories(D);
  return D;
}

void writeFile(const fs::path &P, const std::string &Bytes) {
  fs::create_directories(P.parent_path());
  std::ofstream(P, std::ios::binary) << Bytes;
}

/// The single diagnostic of \p In (fails if there is not exactly one).
const Diagnostic &onlyDiag(const Input &In) {
  static const Diagnostic None;
  EXPECT_EQ(In.Diags.size(), 1u);
  return In.Diags.empty() ? None : In.Diags[0];
}

TEST(ClassifyPath, ByExtensionCaseInsensitive) {
  for (const char *P : {"a.cu", "a.cuh", "a.cpp", "a.cc", "a.h", "a.hpp",
                        "dir.x/b.CU", "C.Hpp"})
    EXPECT_EQ(classifyPath(P), InputKind::Cuda) << P;
  EXPECT_EQ(classifyPath("m.py"), InputKind::Python);
  EXPECT_EQ(classifyPath("m.PY"), InputKind::Python);
  for (const char *P :
       {"m.pyc", "notes.txt", "Makefile", "x.cu.bak", ".cu", "a.c", "a.cxx"})
    EXPECT_EQ(classifyPath(P), InputKind::Unsupported) << P;
}

TEST(ReadInput, NonexistentFileIsUnreadableWithErrnoText) {
  fs::path D = scratch("nonexistent");
  std::string P = (D / "missing.cu").string();
  Input In = readInput(P);
  const Diagnostic &Dg = onlyDiag(In);
  EXPECT_EQ(Dg.Code, "input-unreadable");
  EXPECT_EQ(Dg.Sev, Severity::Error);
  EXPECT_EQ(Dg.Loc.File, P);
  EXPECT_EQ(Dg.Loc.Line, 1u);
  EXPECT_EQ(Dg.Message, "cannot read '" + P + "': No such file or directory");
  EXPECT_TRUE(In.Units.empty());
}

TEST(ReadInput, DirectoryIsUnreadable) {
  fs::path D = scratch("dir.cu"); // a directory with a supported extension
  Input In = readInput(D.string());
  const Diagnostic &Dg = onlyDiag(In);
  EXPECT_EQ(Dg.Code, "input-unreadable");
  EXPECT_EQ(Dg.Message, "cannot read '" + D.string() + "': Is a directory");
  EXPECT_EQ(Dg.Loc.Line, 1u);
}

TEST(ReadInput, DeviceFileIsNotARegularFile) {
  if (!fs::exists("/dev/null"))
    GTEST_SKIP() << "/dev/null absent";
  Input In = readInput("/dev/null");
  const Diagnostic &Dg = onlyDiag(In);
  EXPECT_EQ(Dg.Code, "input-unreadable");
  EXPECT_EQ(Dg.Message, "cannot read '/dev/null': not a regular file");
}

TEST(ReadInput, UnsupportedExtension) {
  fs::path D = scratch("unsupported");
  writeFile(D / "notes.txt", "__global__ void k() {}\n");
  Input In = readInput((D / "notes.txt").string());
  EXPECT_EQ(In.Kind, InputKind::Unsupported);
  const Diagnostic &Dg = onlyDiag(In);
  EXPECT_EQ(Dg.Code, "input-unsupported");
  EXPECT_EQ(Dg.Sev, Severity::Error);
  EXPECT_EQ(Dg.Loc.Line, 1u);
  EXPECT_EQ(Dg.Message, "unsupported file type '.txt': expected .cu .cuh .cpp "
                        ".cc .h .hpp (CUDA) or .py (Python)");
}

TEST(ReadInput, EmptyAndWhitespaceOnlyFiles) {
  fs::path D = scratch("empty");
  writeFile(D / "e.cu", "");
  writeFile(D / "w.py", "  \n\t\r\n\n");
  Input E = readInput((D / "e.cu").string());
  EXPECT_EQ(onlyDiag(E).Code, "input-empty");
  EXPECT_EQ(onlyDiag(E).Sev, Severity::Warning);
  EXPECT_EQ(onlyDiag(E).Message, "file is empty");
  Input W = readInput((D / "w.py").string());
  EXPECT_EQ(onlyDiag(W).Code, "input-empty");
  EXPECT_EQ(onlyDiag(W).Message, "file contains only whitespace");
  EXPECT_TRUE(W.Units.empty());
}

TEST(ReadInput, NulByteIsBinaryWithItsPosition) {
  fs::path D = scratch("binary");
  writeFile(D / "k.cu", std::string("int a;\nint b;\0\n", 15));
  Input In = readInput((D / "k.cu").string());
  const Diagnostic &Dg = onlyDiag(In);
  EXPECT_EQ(Dg.Code, "input-binary");
  EXPECT_EQ(Dg.Loc.Line, 2u);
  EXPECT_EQ(Dg.Loc.Col, 7u);
  EXPECT_EQ(Dg.Message, "file looks binary: NUL byte at byte offset 13");
  EXPECT_TRUE(In.Units.empty());
}

TEST(ReadInput, InvalidUtf8IsBinary) {
  fs::path D = scratch("utf8");
  writeFile(D / "bad.py", "x = 1\ny = '\xff'\n");
  writeFile(D / "overlong.cu", "a\xC0\x80\n");
  writeFile(D / "surrogate.cu", "a\xED\xA0\x80\n");
  writeFile(D / "truncated.cu", "abc\xE2\x82");
  Input Bad = readInput((D / "bad.py").string());
  EXPECT_EQ(onlyDiag(Bad).Code, "input-binary");
  EXPECT_EQ(onlyDiag(Bad).Loc.Line, 2u);
  EXPECT_EQ(onlyDiag(Bad).Loc.Col, 6u);
  EXPECT_EQ(onlyDiag(Bad).Message,
            "file looks binary: invalid UTF-8 byte 0xFF at byte offset 11");
  EXPECT_EQ(onlyDiag(readInput((D / "overlong.cu").string())).Code,
            "input-binary");
  EXPECT_EQ(onlyDiag(readInput((D / "surrogate.cu").string())).Code,
            "input-binary");
  EXPECT_EQ(onlyDiag(readInput((D / "truncated.cu").string())).Code,
            "input-binary");
}

TEST(ReadInput, ValidUtf8IsText) {
  fs::path D = scratch("utf8ok");
  // é, €, U+1F680 in a comment.
  writeFile(D / "k.cu", "// caf\xC3\xA9 \xE2\x82\xAC \xF0\x9F\x9A\x80\n"
                        "__global__ void k() {}\n");
  Input In = readInput((D / "k.cu").string());
  EXPECT_TRUE(In.Diags.empty());
  ASSERT_EQ(In.Units.size(), 1u);
}

TEST(ReadInput, OnlyTheFirst64KiBAreCheckedForBinary) {
  fs::path D = scratch("window");
  std::string Text(64 * 1024, 'a');
  Text += "\xff\n";
  writeFile(D / "k.cu", Text);
  Input In = readInput((D / "k.cu").string());
  EXPECT_TRUE(In.Diags.empty());
  EXPECT_EQ(In.Units.size(), 1u);
}

TEST(ReadInput, TooLarge) {
  fs::path D = scratch("large");
  writeFile(D / "k.cu", "__global__ void k() {}\n"); // 23 bytes
  IngestOptions Opts;
  Opts.MaxBytes = 22;
  Input In = readInput((D / "k.cu").string(), Opts);
  const Diagnostic &Dg = onlyDiag(In);
  EXPECT_EQ(Dg.Code, "input-too-large");
  EXPECT_EQ(Dg.Sev, Severity::Error);
  EXPECT_EQ(Dg.Message, "file is 23 bytes, over the limit of 22 bytes");
  Opts.MaxBytes = 23;
  EXPECT_TRUE(readInput((D / "k.cu").string(), Opts).Diags.empty());
}

TEST(ReadInput, PythonWithoutCudaGetsANote) {
  fs::path D = scratch("nocuda");
  writeFile(D / "m.py", "import torch\nx = 'hello'\n");
  Input In = readInput((D / "m.py").string());
  EXPECT_EQ(In.Kind, InputKind::Python);
  const Diagnostic &Dg = onlyDiag(In);
  EXPECT_EQ(Dg.Code, "no-cuda");
  EXPECT_EQ(Dg.Sev, Severity::Note);
  EXPECT_EQ(Dg.Loc.File, (D / "m.py").string());
  EXPECT_EQ(Dg.Loc.Line, 1u);
  EXPECT_EQ(Dg.Loc.Col, 1u);
}

TEST(ReadInput, CudaFileIsOneIdentityUnit) {
  fs::path D = scratch("cuda");
  std::string Text = "#include <cuda_runtime.h>\n\n__global__ void k(int *p) "
                     "{\n  p[threadIdx.x] = 1;\n}"; // no final newline
  writeFile(D / "k.cu", Text);
  std::string P = (D / "k.cu").string();
  Input In = readInput(P);
  EXPECT_EQ(In.Kind, InputKind::Cuda);
  EXPECT_TRUE(In.Diags.empty());
  EXPECT_TRUE(In.HostOps.empty());
  ASSERT_EQ(In.Units.size(), 1u);
  const CudaUnit &U = In.Units[0];
  EXPECT_EQ(U.Name, P);
  EXPECT_EQ(U.Text, Text);
  EXPECT_TRUE(U.Identity);
  EXPECT_EQ(U.Map.File, P);
  EXPECT_EQ(U.Map.segments().size(), 5u); // one per line
  SourceLoc L = U.Map.map(U.Text, 4, 3);
  EXPECT_EQ(L.File, P);
  EXPECT_EQ(L.Line, 4u);
  EXPECT_EQ(L.Col, 3u);
  SourceLoc Last = U.Map.mapOffset(Text.size() - 1); // the final '}'
  EXPECT_EQ(Last.Line, 5u);
  EXPECT_EQ(Last.Col, 1u);
  SourceLoc End = U.Map.mapOffset(Text.size()); // one past the end
  EXPECT_EQ(End.Line, 5u);
  EXPECT_EQ(End.Col, 2u);
  EXPECT_FALSE(U.Map.mapOffset(Text.size() + 1).isValid());
  EXPECT_FALSE(U.Map.map(U.Text, 6, 1).isValid());
  EXPECT_FALSE(U.Map.map(U.Text, 2, 3).isValid()); // line 2 is empty
  EXPECT_TRUE(U.Map.map(U.Text, 2, 1).isValid());  // its newline
}

TEST(ReadInput, CudaFileLinesEndAtCrLfAndLoneCr) {
  fs::path D = scratch("crlf");
  writeFile(D / "k.cu", "int a;\r\nint b;\rint c;\n");
  Input In = readInput((D / "k.cu").string());
  ASSERT_EQ(In.Units.size(), 1u);
  const CudaUnit &U = In.Units[0];
  EXPECT_EQ(U.Map.segments().size(), 3u);
  EXPECT_EQ(U.Map.mapOffset(8).Line, 2u); // 'i' of int b
  EXPECT_EQ(U.Map.mapOffset(8).Col, 1u);
  EXPECT_EQ(U.Map.mapOffset(15).Line, 3u);
  EXPECT_EQ(U.Map.mapOffset(6).Col, 7u); // the '\r' ends line 1
}

TEST(SourceMapTest, EscapeSegmentsAndGaps) {
  SourceMap M;
  M.File = "f.py";
  M.addSegment({0, 3, 4, 10, false}); // "abc" at 4:10
  M.addSegment({3, 2, 4, 13, true});  // 2 bytes of one escape at 4:13
  M.addSegment({6, 2, 5, 1, false});  // gap at offset 5
  EXPECT_EQ(M.mapOffset(2).Col, 12u);
  EXPECT_EQ(M.mapOffset(3).Col, 13u);
  EXPECT_EQ(M.mapOffset(4).Col, 13u);
  EXPECT_FALSE(M.mapOffset(5).isValid());
  EXPECT_EQ(M.mapOffset(7).Line, 5u);
  EXPECT_EQ(M.mapOffset(7).Col, 2u);
  EXPECT_EQ(M.mapOffset(8).Col, 3u); // one past the end
  EXPECT_FALSE(M.mapOffset(9).isValid());
  EXPECT_EQ(M.mapOffset(0).File, "f.py");
  EXPECT_FALSE(SourceMap().mapOffset(0).isValid());
  EXPECT_FALSE(M.map("abc", 0, 1).isValid());
}

TEST(ExpandInputs, DirectoriesSortedFilteredAndExplicitFilesKept) {
  fs::path D = scratch("expand");
  for (const char *F : {"b.py", "a.cu", "c.txt", "sub/e.hpp", "sub/d.cuh",
                        ".hidden/x.cu", "build/y.cu", "build-foo/z.cu",
                        "builds/w.cu", "__pycache__/q.py", "sub/.h.cu"})
    writeFile(D / F, "x\n");
  std::vector<Diagnostic> Diags;
  std::string Missing = (D / "missing.cu").string();
  std::vector<std::string> Out = expandInputs(
      {D.string(), (D / "c.txt").string(), Missing, (D / "a.cu").string()},
      Diags);
  std::vector<std::string> Want = {
      (D / "a.cu").string(),      (D / "b.py").string(),
      (D / "sub/d.cuh").string(), (D / "sub/e.hpp").string(),
      (D / "c.txt").string(),
  };
  EXPECT_EQ(Out, Want);
  ASSERT_EQ(Diags.size(), 1u);
  EXPECT_EQ(Diags[0].Code, "input-unreadable");
  EXPECT_EQ(Diags[0].Loc.File, Missing);
  EXPECT_EQ(Diags[0].Loc.Line, 1u);
  EXPECT_EQ(Diags[0].Message,
            "cannot read '" + Missing + "': No such file or directory");
}

} // namespace
