//===- Compiler.cpp - Compile candidates with nvcc ------------------------===//
#include "pkb/rt/Compiler.h"
#include "pkb/support/Subprocess.h"
#include "pkb/support/Toolkit.h"

#include <fmt/format.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <fcntl.h>
#include <fstream>
#include <optional>
#include <regex>
#include <set>
#include <sstream>
#include <sys/wait.h>
#include <unistd.h>

namespace pkb::rt {
namespace fs = std::filesystem;

namespace {
/// The bytes of P; nullopt when it cannot be opened.
std::optional<std::string> readFile(const fs::path &P) {
  std::ifstream In(P, std::ios::binary);
  if (!In)
    return std::nullopt;
  std::ostringstream S;
  S << In.rdbuf();
  return S.str();
}

/// Appends to *Key the path and content of every file that Source includes
/// with a quoted `#include "..."` resolved next to the including file,
/// recursively (each file once). These are the candidate's own headers (for
/// example kernels/candidates/common/push_protocol.cuh); an edit to one must
/// invalidate the cached shared object. Angle-bracket includes are covered by
/// the ABI header and nvcc's identity in the key.
void hashLocalIncludes(const fs::path &Source, std::set<fs::path> &Seen,
                       std::string *Key) {
  std::optional<std::string> Read = readFile(Source);
  if (!Read)
    return;
  const std::string &Text = *Read;
  static const std::regex Re(R"re(^\s*#\s*include\s*"([^"]+)")re");
  std::istringstream In(Text);
  std::string Line;
  while (std::getline(In, Line)) {
    std::smatch M;
    if (!std::regex_search(Line, M, Re))
      continue;
    std::error_code Ec;
    fs::path P = fs::weakly_canonical(Source.parent_path() / M[1].str(), Ec);
    if (Ec || !fs::is_regular_file(P, Ec) || !Seen.insert(P).second)
      continue;
    std::string H = readFile(P).value_or("");
    *Key += '\0' + P.string() + '\0' + H;
    hashLocalIncludes(P, Seen, Key);
  }
}

} // namespace

std::string contentHash(std::string_view Data) {
  // FNV-1a 64 (http://www.isthe.com/chongo/tech/comp/fnv/) in two lanes.
  uint64_t A = 0xcbf29ce484222325ull, B = 0x84222325cbf29ce4ull;
  constexpr uint64_t Prime = 0x100000001b3ull;
  for (unsigned char C : Data) {
    A = (A ^ C) * Prime;
    B = (B ^ static_cast<unsigned char>(C + 0x5A)) * Prime;
  }
  return fmt::format("{:016x}{:016x}", A, B);
}

std::string findNvcc() {
  return support::findToolkitTool("nvcc", "", support::envOr("PKB_NVCC"));
}

std::vector<std::string> candidateFlags(const CompileOptions &O) {
  std::vector<std::string> F = {"-gencode=arch=compute_90a,code=sm_90a",
                                "-shared",
                                "-Xcompiler",
                                "-fPIC",
                                "-O3",
                                "-std=c++17",
                                "-lineinfo",
                                "-I" + O.AbiInclude.string()};
  F.insert(F.end(), O.ExtraFlags.begin(), O.ExtraFlags.end());
  return F;
}

fs::path defaultCacheDir() {
  fs::path D;
  if (const char *E = std::getenv("PKB_CACHE_DIR"); E && *E)
    D = E;
  else if (const char *X = std::getenv("XDG_CACHE_HOME"); X && *X)
    D = fs::path(X) / "pkbcheck";
  else if (const char *H = std::getenv("HOME"); H && *H)
    D = fs::path(H) / ".cache" / "pkbcheck";
  else
    D = fs::temp_directory_path() / "pkbcheck-cache";
  std::error_code Ec;
  fs::create_directories(D, Ec);
  return D;
}

CompileResult compileCandidate(const fs::path &Source,
                               const CompileOptions &O) {
  CompileResult R;
  std::optional<std::string> Read = readFile(Source);
  if (!Read) {
    R.Log = fmt::format("cannot read candidate source {}", Source.string());
    return R;
  }
  const std::string &Text = *Read;
  std::string Nvcc = O.Nvcc.empty() ? findNvcc() : O.Nvcc;
  if (Nvcc.empty()) {
    R.Log = "nvcc not found (set PKB_NVCC, CUDA_PATH or CUDA_HOME)";
    return R;
  }
  std::string Abi = readFile(O.AbiInclude / "pkb" / "pkb_abi.h").value_or("");
  std::vector<std::string> Flags = candidateFlags(O);
  std::string Key = Text + '\0' + Abi + '\0' + Nvcc;
  for (const auto &F : Flags)
    Key += '\0' + F;
  std::set<fs::path> Seen;
  hashLocalIncludes(fs::absolute(Source), Seen, &Key);
  R.Hash = contentHash(Key);
  fs::path Dir = O.CacheDir.empty() ? defaultCacheDir() : O.CacheDir;
  fs::path Lib = Dir / "kernels" / (R.Hash + ".so");
  fs::path LogFile = Dir / "kernels" / (R.Hash + ".log");
  std::error_code Ec;
  fs::create_directories(Lib.parent_path(), Ec);
  std::vector<std::string> Argv = {Nvcc};
  Argv.insert(Argv.end(), Flags.begin(), Flags.end());
  fs::path Tmp = Lib;
  Tmp += fmt::format(".tmp.{}", ::getpid());
  Argv.insert(Argv.end(), {"-o", Tmp.string(), fs::absolute(Source).string()});
  for (size_t I = 0; I < Argv.size(); ++I)
    R.Command += (I ? " " : "") + Argv[I];
  if (fs::exists(Lib, Ec)) {
    R.Ok = true;
    R.Cached = true;
    R.Library = Lib;
    R.Log = readFile(LogFile).value_or("");
    return R;
  }
  auto Run = support::runCapture(Argv);
  int Status = -1;
  if (Run) {
    Status = Run->ExitCode;
    R.Log = std::move(Run->Output);
  } else {
    R.Log = Run.error().Message;
  }
  if (Status != 0) {
    fs::remove(Tmp, Ec);
    if (R.Log.empty())
      R.Log = fmt::format("nvcc exited with status {}", Status);
    return R;
  }
  {
    std::ofstream(LogFile) << R.Log;
  }
  fs::rename(Tmp, Lib, Ec);
  if (Ec) {
    R.Log += fmt::format("\ncannot rename {} to {}: {}", Tmp.string(),
                         Lib.string(), Ec.message());
    return R;
  }
  R.Ok = true;
  R.Library = Lib;
  return R;
}

} // namespace pkb::rt
