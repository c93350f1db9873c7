//===- Precompiled.cpp - The toolkit headers, parsed once -----------------===//
//
// Builds, verifies and loads the precompiled implicit includes (see
// Precompiled.h and docs/frontend.md, "Precompiled toolkit headers").
//
//===----------------------------------------------------------------------===//

#include "Precompiled.h"
#include "FrontendInternal.h"

#include "clang/Basic/DiagnosticFrontend.h"
#include "clang/Basic/DiagnosticIDs.h"
#include "clang/Basic/Version.h"
#include "clang/Frontend/CompilerInstance.h"
#include "clang/Frontend/FrontendActions.h"
#include "clang/Frontend/MultiplexConsumer.h"
#include "clang/Lex/HeaderSearchOptions.h"
#include "clang/Lex/PreprocessorOptions.h"
#include "llvm/ADT/SmallString.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Process.h"
#include "llvm/Support/SHA256.h"
#include "llvm/Support/raw_ostream.h"
#include "llvm/Support/xxhash.h"

#include <algorithm>
#include <chrono>
#include <cinttypes>
#include <cstdio>
#include <cstdlib>
#include <filesystem>

namespace pkb::fe {

using namespace clang;
namespace fs = llvm::sys::fs;

namespace {

/// The directory of the in-memory files of a precompiled header.
constexpr llvm::StringLiteral VirtualDir = "/__pkb_pch__";
/// The empty main file a PCH is built from.
constexpr llvm::StringLiteral VirtualMain = "/__pkb_pch__/main.cu";
constexpr size_t TrailerSize = 64;
/// The start of a trailer (a NUL byte first: it ends the PCH as a C string).
const llvm::StringRef TrailerMagic("\0PKBPCH1 ", 9);

/// The trailer of a cache file whose PCH is \p Ast (see Precompiled).
std::string trailer(llvm::StringRef Ast, bool LaunchFree) {
  char Buf[64];
  std::snprintf(Buf, sizeof Buf, "%016" PRIx64 " %zu %c",
                llvm::xxh3_64bits(Ast), Ast.size(), LaunchFree ? 'L' : 'M');
  std::string T = TrailerMagic.str() + Buf;
  T.resize(TrailerSize - 1, ' ');
  T += '\n';
  return T;
}

/// Counts errors of the PCH build and keeps the first message.
class BuildDiags : public DiagnosticConsumer {
public:
  void HandleDiagnostic(DiagnosticsEngine::Level Level,
                        const clang::Diagnostic &Info) override {
    DiagnosticConsumer::HandleDiagnostic(Level, Info);
    if (Level < DiagnosticsEngine::Error || !First.empty())
      return;
    llvm::SmallString<256> Msg;
    Info.FormatDiagnostic(Msg);
    First = Msg.str().str();
  }
  std::string First;
};

/// GeneratePCHAction that also records whether the headers it writes could
/// hold a launch (mayHoldLaunches), for the trailer.
class CheckedPCHAction : public GeneratePCHAction {
public:
  explicit CheckedPCHAction(bool &MayLaunch) : MayLaunch(MayLaunch) {}

protected:
  std::unique_ptr<ASTConsumer> CreateASTConsumer(CompilerInstance &CI,
                                                 llvm::StringRef In) override {
    std::unique_ptr<ASTConsumer> Writer =
        GeneratePCHAction::CreateASTConsumer(CI, In);
    if (!Writer)
      return nullptr;
    std::vector<std::unique_ptr<ASTConsumer>> Both;
    Both.push_back(std::make_unique<Check>(MayLaunch));
    Both.push_back(std::move(Writer));
    return std::make_unique<MultiplexConsumer>(std::move(Both));
  }

private:
  struct Check : ASTConsumer {
    explicit Check(bool &MayLaunch) : MayLaunch(MayLaunch) {}
    void HandleTranslationUnit(ASTContext &Ctx) override {
      MayLaunch = mayHoldLaunches(Ctx);
    }
    bool &MayLaunch;
  };
  bool &MayLaunch;
};

/// Reads and verifies the cache file \p Path; null with \p Why when it is
/// unreadable or corrupt (\p Corrupt set in the second case).
std::unique_ptr<Precompiled> readPrecompiled(const std::string &Path,
                                             std::string &Why, bool &Corrupt) {
  Corrupt = false;
  auto Buf = llvm::MemoryBuffer::getFile(Path, /*IsText=*/false,
                                         /*RequiresNullTerminator=*/false);
  if (!Buf) {
    Why = "cannot read '" + Path + "': " + Buf.getError().message();
    return nullptr;
  }
  llvm::StringRef Data = (*Buf)->getBuffer();
  llvm::StringRef Ast = Data.size() > TrailerSize ? Data.drop_back(TrailerSize)
                                                  : llvm::StringRef();
  llvm::StringRef T = Data.take_back(TrailerSize);
  bool LaunchFree = T.rtrim().ends_with(" L");
  if (Ast.empty() || T != trailer(Ast, LaunchFree)) {
    Why = "'" + Path + "' is corrupt (size or checksum differs)";
    Corrupt = true;
    return nullptr;
  }
  auto P = std::make_unique<Precompiled>();
  P->CachePath = Path;
  P->VirtualPath = (VirtualDir + "/" + llvm::sys::path::filename(Path)).str();
  P->Ast = Ast;
  P->LaunchFree = LaunchFree;
  P->File = std::move(*Buf);
  return P;
}

/// Builds the PCH for \p Args into \p Path (temporary file, then rename).
bool buildPrecompiled(const std::string &Path,
                      const std::vector<std::string> &Args,
                      llvm::StringRef MainText,
                      llvm::IntrusiveRefCntPtr<llvm::vfs::FileSystem> Base,
                      std::string &Why) {
  llvm::StringRef Dir = llvm::sys::path::parent_path(Path);
  if (std::error_code EC = fs::create_directories(Dir)) {
    Why = "cannot create '" + Dir.str() + "': " + EC.message();
    return false;
  }
  llvm::SmallString<256> Tmp;
  int FD = -1;
  if (std::error_code EC =
          fs::createUniqueFile(Path + "-%%%%%%%%.tmp", FD, Tmp)) {
    Why = "cannot write in '" + Dir.str() + "': " + EC.message();
    return false;
  }
  llvm::sys::Process::SafelyCloseFileDescriptor(FD);
  std::string TmpPath = Tmp.str().str();
  auto Fail = [&](std::string Message) {
    fs::remove(TmpPath);
    Why = std::move(Message);
    return false;
  };

  llvm::IntrusiveRefCntPtr<llvm::vfs::OverlayFileSystem> Overlay(
      new llvm::vfs::OverlayFileSystem(Base));
  llvm::IntrusiveRefCntPtr<llvm::vfs::InMemoryFileSystem> Mem(
      new llvm::vfs::InMemoryFileSystem);
  Overlay->pushOverlay(Mem);
  Mem->addFile(VirtualMain, 0, llvm::MemoryBuffer::getMemBufferCopy(MainText));
  llvm::IntrusiveRefCntPtr<FileManager> Files(
      new FileManager(FileSystemOptions(), Overlay));
  std::vector<std::string> Cmd = Args;
  Cmd.push_back(VirtualMain.str());
  bool MayLaunch = true;
  AdjustedAction Action(std::make_unique<CheckedPCHAction>(MayLaunch),
                        [&](CompilerInvocation &Inv) {
                          Inv.getFrontendOpts().ProgramAction =
                              frontend::GeneratePCH;
                          Inv.getFrontendOpts().OutputFile = TmpPath;
                          // Instantiate the headers' pending templates
                          // once, here (clang -fpch-instantiate-templates),
                          // instead of at the end of every unit that
                          // loads the PCH.
                          Inv.getLangOpts().PCHInstantiateTemplates = true;
                        });
  BuildDiags Diags;
  tooling::ToolInvocation Inv(Cmd, &Action, Files.get(),
                              std::make_shared<PCHContainerOperations>());
  Inv.setDiagnosticConsumer(&Diags);
  bool Ok = Inv.run();
  if (!Ok || Diags.getNumErrors() > 0)
    return Fail(
        std::string(MainText.empty() ? "the toolkit headers"
                                     : "the unit's leading includes") +
        " did not precompile" +
        (Diags.First.empty() ? std::string() : " (" + Diags.First + ")"));

  auto Built = llvm::MemoryBuffer::getFile(TmpPath, /*IsText=*/false,
                                           /*RequiresNullTerminator=*/false);
  if (!Built || (*Built)->getBufferSize() == 0)
    return Fail("the precompiled header was not written");
  std::string T = trailer((*Built)->getBuffer(), !MayLaunch);
  Built->reset();
  {
    std::error_code EC;
    llvm::raw_fd_ostream OS(TmpPath, EC, fs::OF_Append);
    if (EC)
      return Fail("cannot write '" + TmpPath + "': " + EC.message());
    OS << T;
    OS.close();
    if (OS.has_error())
      return Fail("cannot write '" + TmpPath + "': " + OS.error().message());
  }
  if (std::error_code EC = fs::rename(TmpPath, Path))
    return Fail("cannot rename '" + TmpPath + "' to '" + Path +
                "': " + EC.message());
  return true;
}

} // namespace

UnitPreamble unitPreamble(llvm::StringRef Text) {
  UnitPreamble P;
  for (llvm::StringRef Rest = Text; !Rest.empty();) {
    auto [Line, Tail] = Rest.split('\n');
    Rest = Tail;
    llvm::StringRef T = Line.trim();
    if (T.empty() || T.starts_with("//"))
      continue;
    // `#include <name>` (spaces allowed after '#' and before '<'), with
    // nothing but a `//` comment after it.
    llvm::StringRef D = T;
    if (!D.consume_front("#"))
      break;
    D = D.ltrim();
    if (!D.consume_front("include"))
      break;
    D = D.ltrim();
    size_t Close = D.find('>');
    if (!D.starts_with("<") || Close == llvm::StringRef::npos)
      break;
    llvm::StringRef After = D.drop_front(Close + 1).trim();
    if (!After.empty() && !After.starts_with("//"))
      break;
    P.Includes += T.str() + "\n";
    P.Lines.emplace_back(static_cast<size_t>(Line.data() - Text.data()),
                         Line.size());
  }
  return P;
}

std::string blankPreamble(llvm::StringRef Text, const UnitPreamble &P) {
  std::string R = Text.str();
  for (auto [Off, Len] : P.Lines)
    for (size_t I = Off; I < Off + Len && I < R.size(); ++I)
      if (R[I] != '\r')
        R[I] = ' ';
  return R;
}

std::string precompiledName(const std::vector<std::string> &Args,
                            llvm::StringRef MainText) {
  llvm::SHA256 H;
  H.update("pkbcheck-pch/2");
  H.update(llvm::StringRef(getClangFullVersion()));
  for (const std::string &A : Args) {
    H.update(llvm::StringRef("\0", 1));
    H.update(A);
  }
  if (!MainText.empty()) {
    H.update(llvm::StringRef("\0main\0", 6));
    H.update(MainText);
  }
  std::array<uint8_t, 32> Digest = H.final();
  std::string Hex = llvm::toHex(Digest, /*LowerCase=*/true).substr(0, 32);
  return "clang" + std::string(CLANG_VERSION_STRING) + "-" + Hex + ".pch";
}

std::unique_ptr<Precompiled>
obtainPrecompiled(const std::string &Dir, const std::vector<std::string> &Args,
                  llvm::IntrusiveRefCntPtr<llvm::vfs::FileSystem> Base,
                  std::string &Why, llvm::StringRef MainText) {
  llvm::SmallString<256> Path(Dir);
  llvm::sys::path::append(Path, precompiledName(Args, MainText));
  std::string P = Path.str().str();
  // Unit PCHs: a marker file records the first parse with an include list
  // (".seen") or a failed build (".failed").
  auto Mark = [&](const std::string &Marker) {
    int FD = -1;
    if (!fs::openFileForWrite(Marker, FD))
      llvm::sys::Process::SafelyCloseFileDescriptor(FD);
  };
  std::string Failed = P + ".failed", Seen = P + ".seen";
  if (!MainText.empty() && fs::exists(Failed)) {
    Why = "an earlier build of '" + P + "' failed";
    return nullptr;
  }
  if (!fs::exists(P)) {
    if (!MainText.empty() && !fs::exists(Seen)) {
      Mark(Seen);
      Why = "first unit with these leading includes";
      return nullptr;
    }
    if (!buildPrecompiled(P, Args, MainText, Base, Why)) {
      if (!MainText.empty())
        Mark(Failed);
      return nullptr;
    }
    pkb::prunePrecompiledCache(Dir, pkb::precompiledCacheCap(), P);
  } else {
    // Used now: the most recently used PCHs are the last to be pruned.
    std::error_code EC;
    std::filesystem::last_write_time(
        P, std::filesystem::file_time_type::clock::now(), EC);
  }
  bool Corrupt = false;
  std::unique_ptr<Precompiled> R = readPrecompiled(P, Why, Corrupt);
  if (Corrupt)
    fs::remove(P); // the next run rebuilds it
  if (R)
    R->MainText = MainText.str();
  return R;
}

void mountPrecompiled(const Precompiled &P,
                      llvm::vfs::InMemoryFileSystem &Mem) {
  Mem.addFile(VirtualMain, 0, llvm::MemoryBuffer::getMemBuffer(P.MainText));
  // The byte after the PCH is the trailer's NUL: a null-terminated view.
  Mem.addFile(P.VirtualPath, 0,
              llvm::MemoryBuffer::getMemBuffer(P.Ast, P.VirtualPath,
                                               /*RequiresNullTerminator=*/
                                               true));
}

void usePrecompiled(const Precompiled &P, CompilerInvocation &Inv) {
  Inv.getPreprocessorOpts().ImplicitPCHInclude = P.VirtualPath;
  Inv.getHeaderSearchOpts().ModulesValidateSystemHeaders = true;
}

bool isPrecompiledFailure(unsigned DiagID) {
  return (DiagID >= diag::DIAG_START_SERIALIZATION &&
          DiagID < diag::DIAG_START_SERIALIZATION +
                       static_cast<unsigned>(diag::DIAG_SIZE_SERIALIZATION)) ||
         DiagID == diag::err_fe_unable_to_load_pch;
}

bool AdjustedAction::runInvocation(std::shared_ptr<CompilerInvocation> Inv,
                                   FileManager *Files,
                                   std::shared_ptr<PCHContainerOperations> Ops,
                                   DiagnosticConsumer *Diags) {
  Adjust(*Inv);
  CompilerInstance CI(std::move(Ops));
  CI.setInvocation(std::move(Inv));
  CI.setFileManager(Files);
  CI.createDiagnostics(Diags, /*ShouldOwnClient=*/false);
  if (!CI.hasDiagnostics())
    return false;
  CI.createSourceManager(*Files);
  bool Ok = CI.ExecuteAction(*Action);
  Files->clearStatCache();
  return Ok;
}

} // namespace pkb::fe

namespace pkb {

namespace fs = llvm::sys::fs;

uint64_t precompiledCacheCap() {
  const char *E = std::getenv("PKBCHECK_PCH_MAX_MB");
  unsigned long long MiB = 0;
  if (E && !llvm::StringRef(E).getAsInteger(10, MiB) && MiB > 0)
    return uint64_t(MiB) << 20;
  return DefaultPrecompiledCacheBytes;
}

unsigned prunePrecompiledCache(const std::string &Dir, uint64_t MaxBytes,
                               const std::string &Keep) {
  struct Entry {
    std::string Path;
    uint64_t Size;
    llvm::sys::TimePoint<> Time;
  };
  std::vector<Entry> Pchs;
  uint64_t Total = 0;
  unsigned Removed = 0;
  const auto Now = std::chrono::system_clock::now();
  std::error_code EC;
  for (fs::directory_iterator It(Dir, EC), End; It != End && !EC;
       It.increment(EC)) {
    llvm::StringRef Name = llvm::sys::path::filename(It->path());
    fs::file_status St;
    if (fs::status(It->path(), St) || St.type() != fs::file_type::regular_file)
      continue;
    if (Name.ends_with(".tmp")) {
      if (Now - St.getLastModificationTime() > std::chrono::hours(1) &&
          !fs::remove(It->path()))
        ++Removed;
      continue;
    }
    if (!Name.ends_with(".pch"))
      continue;
    Pchs.push_back({It->path(), St.getSize(), St.getLastModificationTime()});
    Total += St.getSize();
  }
  if (Total <= MaxBytes)
    return Removed;
  std::sort(Pchs.begin(), Pchs.end(), [](const Entry &A, const Entry &B) {
    return A.Time != B.Time ? A.Time < B.Time : A.Path < B.Path;
  });
  for (const Entry &E : Pchs) {
    if (Total <= MaxBytes / 4 * 3)
      break;
    if (E.Path == Keep || fs::remove(E.Path))
      continue;
    Total -= E.Size;
    ++Removed;
  }
  return Removed;
}

} // namespace pkb
