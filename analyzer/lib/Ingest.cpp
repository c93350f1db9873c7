//===- Ingest.cpp - Reading user inputs -----------------------------------===//
//
// File classification, robust reading (unreadable, directory, binary, empty,
// too large), CUDA units for .cu-like files and input expansion. Python
// extraction lives in PythonExtract.cpp. docs/ingestion.md describes the
// rules and the diagnostic codes.
//
//===----------------------------------------------------------------------===//

#include "pkb/Ingest.h"
#include "pkb/DiagCode.h"
#include "pkb/InputLanguage.h"

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <set>
#include <system_error>

namespace fs = std::filesystem;

namespace pkb {
namespace {

Diagnostic makeDiag(const std::string &File, DiagCode Code, Severity Sev,
                    std::string Msg, unsigned Line = 1, unsigned Col = 1) {
  Diagnostic D;
  D.Code = std::string(toString(Code));
  D.Sev = Sev;
  D.Loc.File = File;
  D.Loc.Line = Line;
  D.Loc.Col = Col;
  D.Message = std::move(Msg);
  return D;
}

/// Offset of the first byte that makes \p Text binary: a NUL or a byte that
/// is not part of well-formed UTF-8 (RFC 3629: no overlongs, no surrogates,
/// at most U+10FFFF). Only the first \p Window bytes are examined; a
/// sequence cut by the window's end is accepted. npos if none.
size_t firstBinaryByte(const std::string &Text, size_t Window) {
  const size_t N = std::min(Text.size(), Window);
  const auto *S = reinterpret_cast<const unsigned char *>(Text.data());
  size_t I = 0;
  while (I < N) {
    unsigned char C = S[I];
    if (C == 0)
      return I;
    if (C < 0x80) {
      ++I;
      continue;
    }
    unsigned Len;
    unsigned char Lo = 0x80, Hi = 0xBF; // range of the second byte
    if (C >= 0xC2 && C <= 0xDF) {
      Len = 2;
    } else if (C >= 0xE0 && C <= 0xEF) {
      Len = 3;
      if (C == 0xE0)
        Lo = 0xA0;
      else if (C == 0xED)
        Hi = 0x9F;
    } else if (C >= 0xF0 && C <= 0xF4) {
      Len = 4;
      if (C == 0xF0)
        Lo = 0x90;
      else if (C == 0xF4)
        Hi = 0x8F;
    } else {
      return I;
    }
    for (unsigned K = 1; K < Len; ++K) {
      if (I + K >= N)
        return Text.size() > N ? std::string::npos : I; // cut by the window
      unsigned char D = S[I + K];
      if (K == 1 ? (D < Lo || D > Hi) : (D < 0x80 || D > 0xBF))
        return I;
    }
    I += Len;
  }
  return std::string::npos;
}

/// 1-based line and column of byte \p Off.
std::pair<unsigned, unsigned> lineCol(const std::string &Text, size_t Off) {
  unsigned Line = 1;
  size_t LineStart = 0;
  for (size_t I = 0; I < Off && I < Text.size(); ++I)
    if (Text[I] == '\n') {
      ++Line;
      LineStart = I + 1;
    }
  return {Line, static_cast<unsigned>(Off - LineStart + 1)};
}

/// Builds the identity map of a CUDA file: one segment per line, lines
/// ending at "\n", "\r\n" or a lone "\r" (as Clang counts them).
SourceMap identityMap(const std::string &File, const std::string &Text) {
  SourceMap M;
  M.File = File;
  size_t Start = 0;
  unsigned Line = 1;
  while (Start < Text.size()) {
    size_t NL = Text.find_first_of("\r\n", Start);
    size_t End = NL == std::string::npos ? Text.size() : NL + 1;
    if (NL != std::string::npos && Text[NL] == '\r' && End < Text.size() &&
        Text[End] == '\n')
      ++End;
    SourceMap::Segment S;
    S.ExtractedBegin = Start;
    S.Length = End - Start;
    S.Line = Line++;
    S.Col = 1;
    M.addSegment(S);
    Start = End;
  }
  return M;
}

/// Directories expandInputs does not enter: build trees (`build*`, as
/// docs/cli.md states, `cmake-build*`, `CMakeFiles`) and tool caches.
bool isBuildDir(const std::string &Name) {
  return Name.rfind("build", 0) == 0 || Name.rfind("cmake-build", 0) == 0 ||
         Name == "CMakeFiles" || Name == "__pycache__" ||
         Name == "node_modules";
}

} // namespace

InputKind classifyPath(const std::string &Path) {
  const InputLanguage *L = inputLanguageOf(Path);
  return L ? L->Kind : InputKind::Unsupported;
}

Input extractCuda(const std::string &Path, std::string Text) {
  Input In;
  In.Path = Path;
  In.Kind = InputKind::Cuda;
  CudaUnit U;
  U.Name = Path;
  U.Map = identityMap(Path, Text);
  U.Text = std::move(Text);
  U.Identity = true;
  In.Units.push_back(std::move(U));
  return In;
}

Input readInput(const std::string &Path, const IngestOptions &Opts) {
  Input In;
  In.Path = Path;
  const InputLanguage *Lang = inputLanguageOf(Path);
  In.Kind = Lang ? Lang->Kind : InputKind::Unsupported;

  std::error_code EC;
  fs::file_status St = fs::status(Path, EC);
  if (EC || !fs::exists(St)) {
    int Err = EC ? EC.value() : ENOENT;
    In.Diags.push_back(
        makeDiag(Path, DiagCode::InputUnreadable, Severity::Error,
                 "cannot read '" + Path + "': " + std::strerror(Err)));
    return In;
  }
  if (fs::is_directory(St)) {
    In.Diags.push_back(
        makeDiag(Path, DiagCode::InputUnreadable, Severity::Error,
                 "cannot read '" + Path + "': " + std::strerror(EISDIR)));
    return In;
  }
  if (!fs::is_regular_file(St)) {
    In.Diags.push_back(
        makeDiag(Path, DiagCode::InputUnreadable, Severity::Error,
                 "cannot read '" + Path + "': not a regular file"));
    return In;
  }
  if (!Lang) {
    std::string Ext = fs::path(Path).extension().string();
    In.Diags.push_back(
        makeDiag(Path, DiagCode::InputUnsupported, Severity::Error,
                 "unsupported file type '" +
                     (Ext.empty() ? std::string("(none)") : Ext) +
                     "': expected " + expectedExtensionsText()));
    return In;
  }
  uintmax_t Size = fs::file_size(Path, EC);
  if (!EC && Size > Opts.MaxBytes) {
    In.Diags.push_back(makeDiag(Path, DiagCode::InputTooLarge, Severity::Error,
                                "file is " + std::to_string(Size) +
                                    " bytes, over the limit of " +
                                    std::to_string(Opts.MaxBytes) + " bytes"));
    return In;
  }

  // Read with C stdio: it reports failures through errno.
  errno = 0;
  std::FILE *F = std::fopen(Path.c_str(), "rb");
  if (!F) {
    int Err = errno ? errno : EIO;
    In.Diags.push_back(
        makeDiag(Path, DiagCode::InputUnreadable, Severity::Error,
                 "cannot read '" + Path + "': " + std::strerror(Err)));
    return In;
  }
  std::string Text;
  char Buf[1 << 16];
  bool TooLarge = false;
  while (true) {
    size_t Got = std::fread(Buf, 1, sizeof(Buf), F);
    Text.append(Buf, Got);
    if (Text.size() > Opts.MaxBytes) {
      TooLarge = true; // grew while we read it
      break;
    }
    if (Got < sizeof(Buf))
      break;
  }
  bool ReadError = std::ferror(F) != 0;
  int Err = errno;
  std::fclose(F);
  if (ReadError) {
    In.Diags.push_back(makeDiag(Path, DiagCode::InputUnreadable,
                                Severity::Error,
                                "error while reading '" + Path +
                                    "': " + std::strerror(Err ? Err : EIO)));
    return In;
  }
  if (TooLarge) {
    In.Diags.push_back(makeDiag(Path, DiagCode::InputTooLarge, Severity::Error,
                                "file is over the limit of " +
                                    std::to_string(Opts.MaxBytes) + " bytes"));
    return In;
  }

  if (Text.find_first_not_of(" \t\r\n\f\v") == std::string::npos) {
    In.Diags.push_back(makeDiag(
        Path, DiagCode::InputEmpty, Severity::Warning,
        Text.empty() ? "file is empty" : "file contains only whitespace"));
    return In;
  }
  size_t Bad = firstBinaryByte(Text, 64 * 1024);
  if (Bad != std::string::npos) {
    auto [L, C] = lineCol(Text, Bad);
    char Hex[8];
    std::snprintf(Hex, sizeof(Hex), "0x%02X",
                  static_cast<unsigned char>(Text[Bad]));
    In.Diags.push_back(
        makeDiag(Path, DiagCode::InputBinary, Severity::Error,
                 std::string("file looks binary: ") +
                     (Text[Bad] == 0 ? "NUL byte" : "invalid UTF-8 byte ") +
                     (Text[Bad] == 0 ? std::string() : std::string(Hex)) +
                     " at byte offset " + std::to_string(Bad),
                 L, C));
    return In;
  }

  Input X = Lang->Extract(Path, std::move(Text));
  In.Units = std::move(X.Units);
  In.HostOps = std::move(X.HostOps);
  In.Diags.insert(In.Diags.end(), X.Diags.begin(), X.Diags.end());
  return In;
}

std::vector<std::string> expandInputs(const std::vector<std::string> &Paths,
                                      std::vector<Diagnostic> &Diags) {
  std::vector<std::string> Out;
  std::set<std::string> Seen;
  auto Add = [&](const std::string &P) {
    std::string Key = fs::path(P).lexically_normal().string();
    if (Seen.insert(Key).second)
      Out.push_back(P);
  };
  for (const std::string &P : Paths) {
    std::error_code EC;
    fs::file_status St = fs::status(P, EC);
    if (EC || !fs::exists(St)) {
      int Err = EC ? EC.value() : ENOENT;
      Diags.push_back(
          makeDiag(P, DiagCode::InputUnreadable, Severity::Error,
                   "cannot read '" + P + "': " + std::strerror(Err)));
      continue;
    }
    if (!fs::is_directory(St)) {
      Add(P); // named explicitly: kept even if unsupported (gets a diag)
      continue;
    }
    std::vector<std::string> Found;
    fs::recursive_directory_iterator It(
        P, fs::directory_options::skip_permission_denied, EC);
    if (EC) {
      Diags.push_back(makeDiag(P, DiagCode::InputUnreadable, Severity::Error,
                               "cannot list '" + P + "': " + EC.message()));
      continue;
    }
    for (; It != fs::recursive_directory_iterator(); It.increment(EC)) {
      if (EC) {
        Diags.push_back(
            makeDiag(P, DiagCode::InputUnreadable, Severity::Warning,
                     "error while listing '" + P + "': " + EC.message()));
        break;
      }
      const fs::path &Entry = It->path();
      std::string Name = Entry.filename().string();
      std::error_code EC2;
      bool IsDir = It->is_directory(EC2);
      if (!Name.empty() && Name[0] == '.') {
        if (IsDir)
          It.disable_recursion_pending();
        continue; // hidden
      }
      if (IsDir) {
        if (isBuildDir(Name))
          It.disable_recursion_pending();
        continue;
      }
      if (!It->is_regular_file(EC2))
        continue;
      if (classifyPath(Name) != InputKind::Unsupported)
        Found.push_back(Entry.string());
    }
    std::sort(Found.begin(), Found.end());
    for (const std::string &F : Found)
      Add(F);
  }
  return Out;
}

} // namespace pkb
