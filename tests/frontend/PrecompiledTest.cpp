//===- PrecompiledTest.cpp - Precompiled toolkit headers ------------------===//
//
// FrontendOptions::PchDir: the models and diagnostics of a unit are the same
// with and without the precompiled headers (toolkit and shim mode, bundled
// files, a file with its own macros before the includes, a missing include
// with recovery); a corrupt cache file or a changed header falls back to a
// plain parse with a "precompiled-headers" note and is rebuilt on the next
// run; processes racing to build the same file all end up using it; a unit
// that starts with system includes gets a PCH that holds them too, one per
// include list that two units share, and falls back quietly when they do
// not compile.
//
//===----------------------------------------------------------------------===//
#include "FrontendTestUtil.h"
#include "pkb/DiagCode.h"
#include "pkb/ModelJson.h"

#include "clang/Basic/FileManager.h"
#include "clang/Serialization/ASTReader.h"
#include "clang/Serialization/InMemoryModuleCache.h"
#include "clang/Serialization/PCHContainerOperations.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <sys/wait.h>
#include <unistd.h>

using namespace pkb;
namespace fs = std::filesystem;

namespace {

/// A fresh, empty directory under the build tree for one test, removed
/// when the test ends.
class TempDir {
public:
  explicit TempDir(const std::string &Name)
      : P(fs::path(PKB_BINARY_DIR) / "test-pch-tmp" /
          (Name + "-" + std::to_string(::getpid()))) {
    fs::remove_all(P);
    fs::create_directories(P);
  }
  ~TempDir() {
    std::error_code EC;
    fs::remove_all(P, EC);
  }
  std::string path() const { return P.string(); }

private:
  fs::path P;
};

/// The .pch files in \p Dir.
std::vector<fs::path> pchFiles(const std::string &Dir) {
  std::vector<fs::path> R;
  for (const auto &E : fs::directory_iterator(Dir))
    if (E.path().extension() == ".pch")
      R.push_back(E.path());
  return R;
}

/// Everything a parse produces that the rest of pkbcheck sees: the module
/// model (kernels, events, locations, launches) and every diagnostic.
std::string everything(const FrontendResult &R) {
  nlohmann::json J = toJson(R.Module);
  J["parsed"] = R.Parsed;
  for (const Diagnostic &D : R.Diags)
    J["diags"].push_back(toJson(D));
  return J.dump(1);
}

/// A one-kernel unit that uses a toolkit function.
CudaUnit atomicUnit() {
  return test::cudaUnit(
      "__global__ void k(int *p) { atomicAdd_system(p, 1); }\n");
}

bool hasPchNote(const FrontendResult &R) {
  for (const Diagnostic &D : R.Diags)
    if (D.Code == toString(DiagCode::PrecompiledHeaders) &&
        D.Sev == Severity::Note)
      return true;
  return false;
}

/// Options of both modes this machine has: shims, and the toolkit when one
/// is installed in /usr/local/cuda.
std::vector<FrontendOptions> modes() {
  std::vector<FrontendOptions> M = {test::shimOptions()};
  if (fs::exists("/usr/local/cuda/include/cuda_runtime.h")) {
    FrontendOptions T;
    T.CudaPath = "/usr/local/cuda";
    M.push_back(T);
  }
  return M;
}

/// Parses every unit of \p Path without and twice with the precompiled
/// headers of \p Dir (the first call may build them) and expects the same
/// result each time.
void expectSameWithPch(const std::string &Path, FrontendOptions O,
                       const std::string &Dir) {
  Input In = readInput(Path);
  ASSERT_FALSE(In.Units.empty()) << Path;
  for (const CudaUnit &U : In.Units) {
    O.PchDir = "";
    FrontendResult Plain = buildModels(U, O);
    ASSERT_TRUE(Plain.Parsed) << Path;
    EXPECT_FALSE(Plain.UsedPch);
    O.PchDir = Dir;
    for (int I = 0; I < 2; ++I) {
      FrontendResult Pch = buildModels(U, O);
      EXPECT_TRUE(Pch.UsedPch) << Path;
      EXPECT_EQ(everything(Pch), everything(Plain))
          << Path << (O.ForceShims ? " (shims)" : " (toolkit)");
    }
  }
}

TEST(Precompiled, BundledFilesHaveTheSameModels) {
  std::string Src = PKB_SOURCE_DIR;
  TempDir Tmp("bundled");
  const std::string Dir = Tmp.path();
  for (const FrontendOptions &O : modes())
    for (const char *F : {"kernels/corpus/correct/c01_allreduce_oneshot_"
                          "peerview.cu",
                          "kernels/corpus/correct/c14_allreduce_oneshot_pkb.py",
                          "kernels/corpus/buggy/bar001_02_coop.cu",
                          "kernels/candidates/2_allgather_coop_groups.cu",
                          "runtime/testdata/broken_compile_error.cu"})
      if (fs::exists(Src + "/" + F))
        expectSameWithPch(Src + "/" + F, O, Dir);
  // At least one file per mode (the arguments differ), plus one per
  // distinct list of leading includes; a second round builds nothing new.
  size_t Built = pchFiles(Dir).size();
  EXPECT_GE(Built, modes().size());
  for (const FrontendOptions &O : modes())
    if (fs::exists(Src + "/kernels/corpus/buggy/bar001_02_coop.cu"))
      expectSameWithPch(Src + "/kernels/corpus/buggy/bar001_02_coop.cu", O,
                        Dir);
  EXPECT_EQ(pchFiles(Dir).size(), Built);
}

TEST(Precompiled, LeadingSystemIncludesGetTheirOwnPch) {
  TempDir Tmp("unit");
  const std::string Dir = Tmp.path();
  FrontendOptions O = test::shimOptions();
  auto Same = [&](const std::string &Text, bool UnitPch) {
    CudaUnit U = test::cudaUnit(Text);
    FrontendOptions P = O;
    P.PchDir = "";
    FrontendResult Plain = buildModels(U, P);
    P.PchDir = Dir;
    FrontendResult Pch = buildModels(U, P);
    EXPECT_TRUE(Pch.UsedPch);
    EXPECT_EQ(Pch.UsedUnitPch, UnitPch) << Text;
    EXPECT_FALSE(hasPchNote(Pch));
    EXPECT_EQ(everything(Pch), everything(Plain)) << Text;
  };
  // Comments, blank lines and trailing comments may sit between the
  // includes; the kernel after them keeps its line numbers (an unknown
  // type on line 6 is recovered, a missing declaration on line 8 is an
  // error at that line in both parses).
  const std::string Head = "// a unit with its own includes\n"
                           "#include <cooperative_groups.h>\n"
                           "\n"
                           "#  include <cuda_runtime.h>  // runtime\n";
  const std::string First = Head + "namespace cg = cooperative_groups;\n"
                                   "__global__ void k(int *p, UNKNOWN_T *q) {\n"
                                   "  cg::this_grid().sync();\n"
                                   "  atomicAdd_system(p, not_declared);\n"
                                   "}\n";
  // The first unit with an include list only leaves a marker; the second
  // builds the unit PCH.
  Same(First, false);
  EXPECT_EQ(pchFiles(Dir).size(), 1u);
  Same(First, true);
  // The implicit includes' PCH and the unit PCH.
  EXPECT_EQ(pchFiles(Dir).size(), 2u);
  // The same include lines share the unit PCH.
  Same(Head + "__global__ void k2(int *p) { atomicAdd_system(p, 2); }\n", true);
  EXPECT_EQ(pchFiles(Dir).size(), 2u);
  // A macro first: the includes may depend on it, no unit PCH.
  Same("#define PKB_TEST_WIDTH 4\n#include <cooperative_groups.h>\n"
       "__global__ void k3(int *p) { p[PKB_TEST_WIDTH] = 1; }\n",
       false);
  EXPECT_EQ(pchFiles(Dir).size(), 2u);
  // A leading include that does not exist: the second unit tries to build
  // the unit PCH and fails, a marker keeps the third from trying again, and
  // each uses the implicit includes' PCH.
  const std::string Missing = "#include <pkb_no_such_header.h>\n"
                              "__global__ void k4(int *p) { *p = 4; }\n";
  Same(Missing, false);
  Same(Missing, false);
  Same(Missing, false);
  EXPECT_EQ(pchFiles(Dir).size(), 2u);
  size_t Markers = 0;
  for (const auto &E : fs::directory_iterator(Dir))
    Markers += E.path().extension() == ".failed";
  EXPECT_EQ(Markers, 1u);
}

TEST(Precompiled, OwnMacrosBeforeTheIncludesAndRecovery) {
  TempDir Tmp("macros");
  const std::string Dir = Tmp.path();
  fs::path F = fs::path(Dir) / "own_macros.cu";
  std::ofstream(F) << R"(#define PKB_TEST_WIDTH 4
#define __CUDA_NO_HALF_OPERATORS__
#include <cuda_runtime.h>
#include <cuda_fp16.h>
#include "not_there.h"
#ifndef __CUDA_ARCH__
#error device side only
#endif
__global__ void k(unsigned **pads, int rank, UNKNOWN_T *x) {
  for (int i = 0; i < PKB_TEST_WIDTH; ++i)
    atomicAdd_system(&pads[rank ^ 1][i], 1u);
  __threadfence_system();
}
)";
  for (const FrontendOptions &O : modes())
    expectSameWithPch(F.string(), O, Dir);
}

TEST(Precompiled, CorruptFileFallsBackAndIsRebuilt) {
  TempDir Tmp("corrupt");
  const std::string Dir = Tmp.path();
  CudaUnit U = atomicUnit();
  FrontendOptions O = test::shimOptions();
  FrontendResult Plain = buildModels(U, O);
  O.PchDir = Dir;
  ASSERT_TRUE(buildModels(U, O).UsedPch);
  std::vector<fs::path> Files = pchFiles(Dir);
  ASSERT_EQ(Files.size(), 1u);
  { // flip one byte in the middle of the PCH
    std::fstream IO(Files[0], std::ios::in | std::ios::out | std::ios::binary);
    IO.seekg(0, std::ios::end);
    std::streamoff Mid = IO.tellg() / 2;
    IO.seekg(Mid);
    char C = 0;
    IO.get(C);
    IO.seekp(Mid);
    IO.put(static_cast<char>(C ^ 0x5a));
  }
  FrontendResult Fallback = buildModels(U, O);
  EXPECT_FALSE(Fallback.UsedPch);
  EXPECT_TRUE(hasPchNote(Fallback));
  EXPECT_EQ(toJson(Fallback.Module).dump(), toJson(Plain.Module).dump());
  EXPECT_TRUE(pchFiles(Dir).empty()) << "the corrupt file is removed";
  // A truncated file too.
  ASSERT_TRUE(buildModels(U, O).UsedPch);
  fs::resize_file(pchFiles(Dir).at(0), 100);
  FrontendResult Truncated = buildModels(U, O);
  EXPECT_FALSE(Truncated.UsedPch);
  EXPECT_TRUE(hasPchNote(Truncated));
  EXPECT_EQ(toJson(Truncated.Module).dump(), toJson(Plain.Module).dump());
  // The next run rebuilds it.
  FrontendResult Again = buildModels(U, O);
  EXPECT_TRUE(Again.UsedPch);
  EXPECT_FALSE(hasPchNote(Again));
}

TEST(Precompiled, ChangedHeaderFallsBackAndIsRebuilt) {
  // A copy of the shim headers that the test may change.
  TempDir Tmp("stale");
  const std::string Dir = Tmp.path();
  fs::path Shims = fs::path(Dir) / "shims";
  fs::copy(shimDirectory(), Shims, fs::copy_options::recursive);
  const char *Old = std::getenv("PKBCHECK_SHIM_DIR");
  std::string Saved = Old ? Old : "";
  ::setenv("PKBCHECK_SHIM_DIR", Shims.c_str(), 1);
  CudaUnit U = atomicUnit();
  FrontendOptions O = test::shimOptions();
  O.PchDir = Dir + "/cache";
  EXPECT_TRUE(buildModels(U, O).UsedPch);
  // Change a header the PCH holds (size and time).
  std::ofstream(Shims / "cuda" / "cuda_runtime.h", std::ios::app)
      << "\n// changed\n";
  FrontendResult Stale = buildModels(U, O);
  EXPECT_FALSE(Stale.UsedPch);
  EXPECT_TRUE(hasPchNote(Stale));
  O.PchDir = "";
  FrontendResult Plain = buildModels(U, O);
  EXPECT_EQ(toJson(Stale.Module).dump(), toJson(Plain.Module).dump());
  O.PchDir = Dir + "/cache";
  FrontendResult Rebuilt = buildModels(U, O);
  EXPECT_TRUE(Rebuilt.UsedPch);
  EXPECT_FALSE(hasPchNote(Rebuilt));
  if (Old)
    ::setenv("PKBCHECK_SHIM_DIR", Saved.c_str(), 1);
  else
    ::unsetenv("PKBCHECK_SHIM_DIR");
}

TEST(Precompiled, UnwritableDirectoryFallsBack) {
  TempDir Tmp("unwritable");
  const std::string Dir = Tmp.path();
  fs::path File = fs::path(Dir) / "a-file";
  std::ofstream(File) << "x";
  CudaUnit U = test::cudaUnit("__global__ void k(int *p) { *p = 1; }\n");
  FrontendOptions O = test::shimOptions();
  O.PchDir = (File / "cache").string(); // below a regular file
  FrontendResult R = buildModels(U, O);
  EXPECT_TRUE(R.Parsed);
  EXPECT_FALSE(R.UsedPch);
  EXPECT_TRUE(hasPchNote(R));
  ASSERT_EQ(R.Module.Kernels.size(), 1u);
}

TEST(Precompiled, RacingProcessesAllUseIt) {
  TempDir Tmp("race");
  const std::string Dir = Tmp.path();
  CudaUnit U = atomicUnit();
  FrontendOptions O = test::shimOptions();
  O.PchDir = Dir;
  std::vector<pid_t> Kids;
  for (int I = 0; I < 3; ++I) {
    pid_t P = ::fork();
    ASSERT_GE(P, 0);
    if (P == 0) {
      FrontendResult R = buildModels(U, O);
      ::_exit(R.UsedPch && !hasPchNote(R) ? 0 : 1);
    }
    Kids.push_back(P);
  }
  for (pid_t P : Kids) {
    int Status = 0;
    ASSERT_EQ(::waitpid(P, &Status, 0), P);
    EXPECT_TRUE(WIFEXITED(Status) && WEXITSTATUS(Status) == 0);
  }
  EXPECT_EQ(pchFiles(Dir).size(), 1u);
  for (const auto &E : fs::directory_iterator(Dir))
    EXPECT_NE(E.path().extension(), ".tmp") << "no temporary file is left";
  EXPECT_TRUE(buildModels(U, O).UsedPch);
}

} // namespace

namespace {

// The cache keeps within PKBCHECK_PCH_MAX_MB: building a PCH removes the
// least recently used ones (and old temporary files of builds that did not
// finish) until three quarters of the cap are left; a PCH that a parse
// uses counts as recently used.
TEST(Precompiled, CacheIsPrunedLeastRecentlyUsedFirst) {
  TempDir Tmp("prune");
  const std::string Dir = Tmp.path();
  auto Stale = [&](const std::string &Name, int HoursAgo) {
    fs::path P = fs::path(Dir) / Name;
    std::ofstream(P) << std::string(300 << 10, 'x');
    fs::last_write_time(P, fs::file_time_type::clock::now() -
                               std::chrono::hours(HoursAgo));
    return P;
  };
  fs::path Oldest = Stale("clang-old1.pch", 30),
           Old = Stale("clang-old2.pch", 20),
           Recent = Stale("clang-recent.pch", 10),
           Tmpf = Stale("clang-x.pch-1234.tmp", 2);
  fs::path Marker = fs::path(Dir) / "clang-old1.pch.seen";
  std::ofstream(Marker).flush();
  // The implicit includes' PCH of the shims plus the three stale files
  // exceed 1 MiB; three quarters of it hold the new PCH only if the stale
  // ones all go, oldest first (the new one is never removed).
  ::setenv("PKBCHECK_PCH_MAX_MB", "1", 1);
  FrontendOptions O = test::shimOptions();
  O.PchDir = Dir;
  FrontendResult R = buildModels(atomicUnit(), O);
  ::unsetenv("PKBCHECK_PCH_MAX_MB");
  EXPECT_TRUE(R.UsedPch);
  ASSERT_EQ(pchFiles(Dir).size(), 1u);
  EXPECT_FALSE(fs::exists(Oldest));
  EXPECT_FALSE(fs::exists(Old));
  EXPECT_FALSE(fs::exists(Recent));
  EXPECT_FALSE(fs::exists(Tmpf));
  EXPECT_TRUE(fs::exists(Marker)); // markers are not PCHs
  // Least recently used first: the PCH that a parse uses is touched, so
  // it outlives a stale file that was written after it. With stale files
  // of twice its size X and a cap of 2X, the oldest stale file and then
  // the other go; had the parse not touched it, the PCH would go second.
  fs::path Kept = pchFiles(Dir).front();
  uintmax_t X = fs::file_size(Kept);
  fs::last_write_time(Kept,
                      fs::file_time_type::clock::now() - std::chrono::hours(3));
  EXPECT_TRUE(buildModels(atomicUnit(), O).UsedPch);
  auto Big = [&](const std::string &Name, int HoursAgo) {
    fs::path P = fs::path(Dir) / Name;
    std::ofstream(P) << std::string(2 * X, 'x');
    fs::last_write_time(P, fs::file_time_type::clock::now() -
                               std::chrono::hours(HoursAgo));
    return P;
  };
  fs::path Stale1 = Big("clang-a.pch", 5), Stale2 = Big("clang-b.pch", 1);
  EXPECT_EQ(prunePrecompiledCache(Dir, 2 * X), 2u);
  EXPECT_FALSE(fs::exists(Stale1));
  EXPECT_FALSE(fs::exists(Stale2));
  EXPECT_TRUE(fs::exists(Kept));
}

/// Records the language options of an AST file's control block.
struct LangOptsOf : clang::ASTReaderListener {
  bool ReadLanguageOptions(const clang::LangOptions &L, bool, bool) override {
    Seen = true;
    InstantiatesTemplates = L.PCHInstantiateTemplates;
    return false;
  }
  bool Seen = false, InstantiatesTemplates = false;
};

// The headers' pending template instantiations are done once, when the PCH
// is built (clang -fpch-instantiate-templates), not at the end of every
// unit that loads it: that halved the front end's time per file
// (docs/performance.md, "Huge pages for the workers, templates in the
// PCH"). The flag is read back from the PCH's control block.
TEST(Precompiled, InstantiatesTheHeadersTemplatesOnce) {
  TempDir Tmp("instantiate");
  FrontendOptions O = test::shimOptions();
  O.PchDir = Tmp.path();
  ASSERT_TRUE(buildModels(atomicUnit(), O).UsedPch);
  std::vector<fs::path> Pchs = pchFiles(Tmp.path());
  ASSERT_EQ(Pchs.size(), 1u);
  // The cache file is the AST plus a 64-byte trailer (Precompiled.cpp).
  std::ifstream In(Pchs.front(), std::ios::binary);
  std::string Data((std::istreambuf_iterator<char>(In)),
                   std::istreambuf_iterator<char>());
  ASSERT_GT(Data.size(), 64u);
  fs::path Ast = fs::path(Tmp.path()) / "ast.pch";
  std::ofstream(Ast, std::ios::binary) << Data.substr(0, Data.size() - 64);
  clang::FileManager Files{clang::FileSystemOptions()};
  clang::InMemoryModuleCache Cache;
  clang::RawPCHContainerReader Reader;
  LangOptsOf L;
  EXPECT_FALSE(clang::ASTReader::readASTFileControlBlock(
      Ast.string(), Files, Cache, Reader, /*FindModuleFileExtensions=*/false, L,
      /*ValidateDiagnosticOptions=*/false));
  EXPECT_TRUE(L.Seen);
  EXPECT_TRUE(L.InstantiatesTemplates);
}

} // namespace
