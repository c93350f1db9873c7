//===- Frontend.cpp - Parsing a CUDA unit with Clang LibTooling -----------===//
//
// buildModels() parses one CudaUnit in memory as CUDA device code
// (`-x cuda --cuda-device-only --cuda-gpu-arch=sm_90a -fsyntax-only`), either
// against a real toolkit or against the bundled shim headers, records Clang's
// errors as pkb Diagnostics (mapped back through the unit's SourceMap), and
// hands the AST to the kernel model builder (KernelBuilder.cpp). See
// docs/frontend.md.
//
//===----------------------------------------------------------------------===//

#include "FrontendInternal.h"
#include "Precompiled.h"
#include "pkb/DiagCode.h"
#include "pkb/Enrich.h"
#include "pkb/InputLanguage.h"
#include "pkb/support/Toolkit.h"

#include "clang/AST/ASTConsumer.h"
#include "clang/AST/RecursiveASTVisitor.h"
#include "clang/Basic/DiagnosticLex.h"
#include "clang/Basic/Version.h"
#include "clang/Frontend/CompilerInstance.h"
#include "clang/Frontend/FrontendAction.h"
#include "clang/Lex/PPCallbacks.h"
#include "clang/Lex/Preprocessor.h"
#include "clang/Tooling/Tooling.h"
#include "llvm/ADT/SmallString.h"
#include "llvm/Config/llvm-config.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Regex.h"
#include "llvm/Support/VirtualFileSystem.h"

#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <map>
#include <optional>
#include <set>
#include <sstream>

#ifndef PKB_SHIM_DIR
#define PKB_SHIM_DIR ""
#endif
#ifndef PKB_CLANG_RESOURCE_DIR
#define PKB_CLANG_RESOURCE_DIR ""
#endif

namespace pkb {
namespace fe {

//===----------------------------------------------------------------------===//
// Locations.
//===----------------------------------------------------------------------===//

bool LocMapper::inMainFile(clang::SourceLocation L) const {
  if (L.isInvalid())
    return false;
  clang::SourceLocation E = SM.getExpansionLoc(L);
  return SM.getFileID(E) == SM.getMainFileID();
}

SourceLoc LocMapper::unitStart() const {
  SourceLoc S = Unit.Map.map(Unit.Text, 1, 1);
  if (!S.isValid())
    S = SourceLoc{Unit.Map.File.empty() ? Unit.Name : Unit.Map.File, 1, 1};
  return S;
}

SourceLoc LocMapper::map(clang::SourceLocation L) const {
  SourceLoc Out;
  if (L.isInvalid())
    return Out;
  clang::SourceLocation E = SM.getExpansionLoc(L);
  if (E.isInvalid())
    return Out;
  bool Invalid = false;
  unsigned Line = SM.getExpansionLineNumber(E, &Invalid);
  if (Invalid)
    return Out;
  unsigned Col = SM.getExpansionColumnNumber(E, &Invalid);
  if (Invalid)
    return Out;
  if (SM.getFileID(E) == SM.getMainFileID()) {
    Out = Unit.Map.map(Unit.Text, Line, Col);
    if (!Out.isValid()) {
      // Unmapped bytes (e.g. an inserted separator): fall back to the
      // extracted position for .cu files, or the nearest mapped column.
      const std::string &File =
          Unit.Map.File.empty() ? Unit.Name : Unit.Map.File;
      if (Unit.Identity || Unit.Map.segments().empty())
        return SourceLoc{File, Line, Col};
      for (unsigned C = Col; C > 1; --C) {
        Out = Unit.Map.map(Unit.Text, Line, C - 1);
        if (Out.isValid())
          return Out;
      }
      return SourceLoc{File, Line, Col};
    }
    return Out;
  }
  Out.File = SM.getFilename(E).str();
  Out.Line = Line;
  Out.Col = Col;
  return Out;
}

std::string kernelName(const clang::FunctionDecl *FD) {
  if (!FD)
    return "";
  std::string S;
  llvm::raw_string_ostream OS(S);
  clang::PrintingPolicy PP(FD->getASTContext().getLangOpts());
  PP.SuppressUnwrittenScope = true;
  PP.SuppressInlineNamespace = true;
  FD->getNameForDiagnostic(OS, PP, /*Qualified=*/true);
  return OS.str();
}

} // namespace fe

namespace {

using namespace clang;

//===----------------------------------------------------------------------===//
// Toolkit and argument selection.
//===----------------------------------------------------------------------===//

bool fileExists(const std::string &P) { return llvm::sys::fs::exists(P); }

bool usableToolkit(const std::string &P) {
  return !P.empty() && fileExists(P + "/include/cuda_runtime.h") &&
         fileExists(P + "/include/cuda.h");
}

/// CUDA_VERSION from <P>/include/cuda.h (e.g. 13000), 0 if unknown.
unsigned toolkitVersion(const std::string &P) {
  std::ifstream In(P + "/include/cuda.h");
  std::string Line;
  while (std::getline(In, Line)) {
    auto Pos = Line.find("#define CUDA_VERSION ");
    if (Pos == std::string::npos)
      continue;
    return static_cast<unsigned>(
        std::strtoul(Line.c_str() + Pos + 21, nullptr, 10));
  }
  return 0;
}

std::string findToolkit(const FrontendOptions &Opts,
                        std::vector<std::string> &Notes) {
  if (!Opts.CudaPath.empty()) {
    if (usableToolkit(Opts.CudaPath))
      return Opts.CudaPath;
    Notes.push_back("CUDA path '" + Opts.CudaPath +
                    "' has no include/cuda_runtime.h; using the bundled "
                    "shim headers");
    return "";
  }
  // CUDA_PATH, CUDA_HOME, /usr/local/cuda, PATH (pkb/support/Toolkit.h).
  return support::findToolkitRoot(
      "", [](const std::string &P) { return usableToolkit(P); });
}

std::string resourceDir() {
  std::string R = PKB_CLANG_RESOURCE_DIR;
  if (!R.empty() && fileExists(R + "/include/__clang_cuda_runtime_wrapper.h"))
    return R;
  std::string Guess = std::string("/usr/lib/llvm-") +
                      std::to_string(LLVM_VERSION_MAJOR) + "/lib/clang/" +
                      std::to_string(LLVM_VERSION_MAJOR);
  return fileExists(Guess) ? Guess : R;
}

/// A file name for the in-memory main file: next to the original so that
/// `#include "x.cuh"` resolves relative to the user's directory.
std::string virtualMainFile(const CudaUnit &Unit) {
  std::string Orig = Unit.Map.File.empty() ? Unit.Name : Unit.Map.File;
  llvm::SmallString<256> Abs(Orig.empty() ? "input.cu" : Orig);
  // Unit names of Python units look like "model.py:CUDA_SRC@12".
  std::string Base = llvm::sys::path::filename(Abs).str();
  for (char &C : Base)
    if (C == ':' || C == '@' || C == ' ')
      C = '_';
  llvm::SmallString<256> Dir(llvm::sys::path::parent_path(Abs));
  if (Dir.empty())
    Dir = ".";
  if (!llvm::sys::path::is_absolute(Dir))
    llvm::sys::fs::make_absolute(Dir);
  llvm::sys::path::remove_dots(Dir, /*remove_dot_dot=*/true);
  if (!Unit.Identity || !isClangCudaName(Base))
    Base += ".pkb.cu";
  llvm::SmallString<256> Out(Dir);
  llvm::sys::path::append(Out, Base);
  return Out.str().str();
}

//===----------------------------------------------------------------------===//
// Diagnostics.
//===----------------------------------------------------------------------===//

/// A declaration that a header which was not found would have supplied,
/// guessed from how the unit uses the name (docs/frontend.md, "Missing
/// headers"). The next parse declares it in a recovery prelude.
struct RecoveredName {
  enum KindT {
    AttrMacro,     ///< `CUTLASS_DEVICE void f()`: `__host__ __device__`
    EmptyMacro,    ///< `CUTLASS_PRAGMA_UNROLL` alone on its line: nothing
    Namespace,     ///< `arch::f()`: an empty namespace
    Function,      ///< `f(x)`: variadic function returning an opaque value
    TypeTemplate,  ///< `Array<T*, N>`: `template <class, auto...> struct`
    ValueTemplate, ///< `Foo<4>`: `template <auto...> struct`
    Type           ///< `Foo x`: an opaque struct
  } Kind;
  std::string Ns;   ///< Enclosing namespace, "" for the global one.
  std::string Name; ///< The unknown identifier.
  SourceLoc Loc;    ///< Its first use that Clang rejected.
};

/// True for macro-style names (`CUTLASS_DEVICE`): upper case, digits and
/// underscores, with at least one underscore.
bool isMacroStyle(llvm::StringRef N) {
  return N.contains('_') && llvm::all_of(N, [](char C) {
           return (C >= 'A' && C <= 'Z') || (C >= '0' && C <= '9') || C == '_';
         });
}

/// Guesses the declaration that \p Info (an error in a unit with a missing
/// include) lacks, from the message and the source text at its location.
/// Returns false when the error is not about one unknown name.
bool guessRecovery(const clang::Diagnostic &Info, llvm::StringRef Msg,
                   const SourceLoc &Loc, RecoveredName &Out) {
  if (!Info.hasSourceManager() || !Info.getLocation().isValid())
    return false;
  const SourceManager &SM = Info.getSourceManager();
  SourceLocation L = SM.getSpellingLoc(Info.getLocation());
  if (SM.isInSystemHeader(L))
    return false;
  static const llvm::Regex Unknown(
      "^unknown type name '([A-Za-z_][A-Za-z0-9_]*)'");
  static const llvm::Regex Undeclared(
      "^use of undeclared identifier '([A-Za-z_][A-Za-z0-9_]*)'");
  static const llvm::Regex NoMember(
      "^no (member|template|type) named '([A-Za-z_][A-Za-z0-9_]*)' in "
      "namespace '([A-Za-z_][A-Za-z0-9_:]*)'");
  llvm::SmallVector<llvm::StringRef, 4> M;
  enum { UnknownType, UndeclaredId, MemberOfNs } How;
  if (Unknown.match(Msg, &M)) {
    How = UnknownType;
    Out.Name = M[1].str();
  } else if (Undeclared.match(Msg, &M)) {
    How = UndeclaredId;
    Out.Name = M[1].str();
  } else if (NoMember.match(Msg, &M)) {
    How = MemberOfNs;
    Out.Name = M[2].str();
    Out.Ns = M[3].str();
  } else {
    return false;
  }
  bool Invalid = false;
  llvm::StringRef Buf = SM.getBufferData(SM.getFileID(L), &Invalid);
  unsigned Off = SM.getFileOffset(L);
  if (Invalid || !Buf.substr(Off).starts_with(Out.Name))
    return false;
  llvm::StringRef After = Buf.substr(Off + Out.Name.size());
  llvm::StringRef Next = After.ltrim(" \t\r\n");
  size_t LineStart = Buf.rfind('\n', Off);
  llvm::StringRef Before =
      Buf.slice(LineStart == llvm::StringRef::npos ? 0 : LineStart + 1, Off);
  bool AloneOnLine =
      Before.trim().empty() &&
      After.take_until([](char C) { return C == '\n'; }).trim().empty();
  auto TemplateKind = [&] {
    llvm::StringRef Arg = Next.drop_front().ltrim();
    return !Arg.empty() && Arg[0] >= '0' && Arg[0] <= '9'
               ? RecoveredName::ValueTemplate
               : RecoveredName::TypeTemplate;
  };
  Out.Loc = Loc;
  if (How == UnknownType && isMacroStyle(Out.Name)) {
    Out.Kind = RecoveredName::AttrMacro;
  } else if (How == UndeclaredId && isMacroStyle(Out.Name) && AloneOnLine) {
    Out.Kind = RecoveredName::EmptyMacro;
  } else if (Next.starts_with("::")) {
    Out.Kind = RecoveredName::Namespace;
  } else if (Next.starts_with("<") && How != UndeclaredId) {
    Out.Kind = TemplateKind();
  } else if (Next.starts_with("(") && How != UnknownType) {
    Out.Kind = RecoveredName::Function;
  } else if (How != UndeclaredId) {
    Out.Kind = RecoveredName::Type;
  } else {
    return false;
  }
  return true;
}

/// The recovery prelude: a system header (so its functions are pure calls
/// for the model builder) declaring every name of \p Names.
std::string recoveryPrelude(const std::vector<RecoveredName> &Names) {
  std::string S = "#pragma clang system_header\n"
                  "#define __PKB_HD __attribute__((host)) "
                  "__attribute__((device))\n"
                  "struct __pkb_opaque {\n"
                  "  template <class... A> __PKB_HD __pkb_opaque(A &&...);\n"
                  "  template <class T> __PKB_HD operator T() const;\n"
                  "  template <class I> __PKB_HD __pkb_opaque &operator[](I) "
                  "const;\n};\n";
  for (const RecoveredName &R : Names) {
    std::string D;
    switch (R.Kind) {
    case RecoveredName::AttrMacro:
      S += "#define " + R.Name + " __PKB_HD\n";
      continue;
    case RecoveredName::EmptyMacro:
      S += "#define " + R.Name + "\n";
      continue;
    case RecoveredName::Namespace:
      D = "namespace " + R.Name + " {}";
      break;
    case RecoveredName::Function:
      D = "template <class... A> __PKB_HD __pkb_opaque " + R.Name +
          "(A &&...);";
      break;
    case RecoveredName::TypeTemplate:
      D = "template <class T, auto... V> struct " + R.Name +
          " { template <class... A> __PKB_HD " + R.Name +
          "(A &&...); template <class I> __PKB_HD T &operator[](I) const; };";
      break;
    case RecoveredName::ValueTemplate:
      D = "template <auto... V> struct " + R.Name + " : __pkb_opaque {};";
      break;
    case RecoveredName::Type:
      D = "struct " + R.Name +
          " : __pkb_opaque { using "
          "__pkb_opaque::__pkb_opaque; };";
      break;
    }
    S += R.Ns.empty() ? D + "\n" : "namespace " + R.Ns + " { " + D + " }\n";
  }
  return S;
}

/// How a recovered name was declared, for its note.
const char *recoveryWording(RecoveredName::KindT K) {
  switch (K) {
  case RecoveredName::AttrMacro:
    return "a function attribute macro (__host__ __device__)";
  case RecoveredName::EmptyMacro:
    return "a macro that expands to nothing";
  case RecoveredName::Namespace:
    return "a namespace";
  case RecoveredName::Function:
    return "a function with an unknown (opaque) result";
  case RecoveredName::TypeTemplate:
  case RecoveredName::ValueTemplate:
    return "an opaque class template";
  case RecoveredName::Type:
    return "an opaque type";
  }
  return "";
}

/// Records Clang errors as pkb Diagnostics with mapped locations. A missing
/// include becomes "missing-include" (Note); later errors in a unit with a
/// missing include are reported as warnings (they are usually consequences).
class RecordingConsumer : public DiagnosticConsumer {
public:
  RecordingConsumer(const CudaUnit &Unit) : Unit(Unit) {}

  void HandleDiagnostic(DiagnosticsEngine::Level Level,
                        const clang::Diagnostic &Info) override {
    DiagnosticConsumer::HandleDiagnostic(Level, Info);
    if (Level < DiagnosticsEngine::Error)
      return;
    llvm::SmallString<256> Msg;
    Info.FormatDiagnostic(Msg);
    if (fe::isPrecompiledFailure(Info.getID())) {
      if (!PchFailed)
        PchMessage = Msg.str().str();
      PchFailed = true;
      return;
    }
    pkb::Diagnostic D;
    D.Message = Msg.str().str();
    if (Info.hasSourceManager() && Info.getLocation().isValid()) {
      fe::LocMapper M(Info.getSourceManager(), Unit);
      D.Loc = M.map(Info.getLocation());
    }
    if (!D.Loc.isValid())
      D.Loc =
          SourceLoc{Unit.Map.File.empty() ? Unit.Name : Unit.Map.File, 1, 1};
    bool Missing = Info.getID() == diag::err_pp_file_not_found ||
                   llvm::StringRef(D.Message).ends_with("file not found");
    if (Missing) {
      D.Code = std::string(toString(DiagCode::MissingInclude));
      D.Sev = Severity::Note;
      D.Message += "; continuing without it (kernels that still parse are "
                   "analyzed)";
      SawMissingInclude = true;
      Diags.push_back(std::move(D));
      return;
    }
    ++Errors;
    RecoveredName R;
    if (SawMissingInclude && guessRecovery(Info, D.Message, D.Loc, R))
      Guesses.push_back(std::move(R));
    if (Errors > MaxReported) {
      ++Suppressed;
      return;
    }
    if (Info.getID() == diag::err_pp_include_too_deep) {
      D.Code = std::string(toString(DiagCode::IncludeTooDeep));
      D.Sev = Severity::Error;
      D.Message += " (a recursive #include without an include guard?)";
      Diags.push_back(std::move(D));
      return;
    }
    D.Code = std::string(toString(DiagCode::ParseError));
    D.Sev = SawMissingInclude ? Severity::Warning : Severity::Error;
    if (SawMissingInclude)
      D.Message += " (possibly caused by a missing include)";
    Diags.push_back(std::move(D));
  }

  void finish() {
    if (Suppressed == 0)
      return;
    pkb::Diagnostic D;
    D.Code = std::string(toString(DiagCode::ParseError));
    D.Sev = Severity::Note;
    D.Loc = SourceLoc{Unit.Map.File.empty() ? Unit.Name : Unit.Map.File, 1, 1};
    D.Message = std::to_string(Suppressed) + " more parse errors not shown";
    Diags.push_back(std::move(D));
    Suppressed = 0;
  }

  std::vector<pkb::Diagnostic> Diags;
  /// Declarations guessed from errors after a missing include.
  std::vector<RecoveredName> Guesses;
  unsigned Errors = 0;
  bool SawMissingInclude = false;
  /// Clang could not use the precompiled headers (the first message).
  bool PchFailed = false;
  std::string PchMessage;

private:
  static constexpr unsigned MaxReported = 25;
  const CudaUnit &Unit;
  unsigned Suppressed = 0;
};

//===----------------------------------------------------------------------===//
// Kernel discovery.
//===----------------------------------------------------------------------===//

/// Collects __global__ definitions: concrete functions and specializations,
/// and uninstantiated template patterns.
class KernelFinder : public RecursiveASTVisitor<KernelFinder> {
public:
  KernelFinder(const SourceManager &SM, bool SkipPrecompiled)
      : SM(SM), SkipPrecompiled(SkipPrecompiled) {}
  bool shouldVisitTemplateInstantiations() const { return true; }
  bool shouldVisitImplicitCode() const { return false; }
  /// Skips what the precompiled headers hold when \p SkipPrecompiled
  /// (system-header declarations: never a kernel of the unit).
  bool TraverseDecl(Decl *D) {
    if (SkipPrecompiled && fe::fromPrecompiledSystemHeader(D, SM))
      return true;
    return RecursiveASTVisitor::TraverseDecl(D);
  }

  bool VisitFunctionDecl(FunctionDecl *FD) {
    if (!FD || !FD->hasAttr<CUDAGlobalAttr>())
      return true;
    if (!FD->doesThisDeclarationHaveABody() && !FD->isTemplateInstantiation())
      return true;
    if (!FD->getBody())
      return true;
    SourceLocation L = FD->getLocation();
    if (L.isValid() && SM.isInSystemHeader(SM.getExpansionLoc(L)))
      return true;
    if (!Seen.insert(FD).second)
      return true;
    if (FD->isDependentContext())
      Patterns.push_back(FD);
    else
      Concrete.push_back(FD);
    return true;
  }

  std::vector<const FunctionDecl *> Concrete, Patterns;

private:
  const SourceManager &SM;
  bool SkipPrecompiled;
  std::set<const FunctionDecl *> Seen;
};

const FunctionDecl *patternOf(const FunctionDecl *FD) {
  if (!FD)
    return nullptr;
  if (const FunctionTemplateDecl *T = FD->getPrimaryTemplate())
    if (const FunctionDecl *P = T->getTemplatedDecl())
      return P->getCanonicalDecl();
  if (const FunctionDecl *P = FD->getTemplateInstantiationPattern())
    return P->getCanonicalDecl();
  return FD->getCanonicalDecl();
}

/// State shared between buildModels and the AST consumer.
struct RunState {
  const CudaUnit &Unit;
  const FrontendOptions &Opts;
  FrontendResult &Result;
  std::vector<std::string> UnitNotes;
  bool Ran = false;
  std::vector<std::pair<unsigned, unsigned>> ErrorLines; // [line range]
  /// Parse diagnostics recorded so far (RecordingConsumer::Diags).
  const std::vector<pkb::Diagnostic> *ParseDiags = nullptr;
  /// The traversals may skip the system-header declarations of the
  /// precompiled headers (Precompiled::LaunchFree).
  bool SkipPrecompiled = false;
};

class ModelConsumer : public ASTConsumer {
public:
  explicit ModelConsumer(RunState &S) : S(S) {}

  void HandleTranslationUnit(ASTContext &Ctx) override {
    S.Ran = true;
    if (S.Opts.ParseOnly)
      return;
    const SourceManager &SM = Ctx.getSourceManager();
    fe::LocMapper Map(SM, S.Unit);
    KernelFinder Finder(SM, S.SkipPrecompiled);
    Finder.TraverseDecl(Ctx.getTranslationUnitDecl());

    struct Item {
      const FunctionDecl *FD;
      bool Generic;
      unsigned Offset;
      std::string Name;
    };
    std::vector<Item> Items;
    std::set<const FunctionDecl *> PatternsWithSpecs;
    for (const FunctionDecl *FD : Finder.Concrete)
      if (FD->getPrimaryTemplate() || FD->isTemplateInstantiation())
        PatternsWithSpecs.insert(patternOf(FD));
    auto OffsetOf = [&](const FunctionDecl *FD) {
      SourceLocation L = SM.getExpansionLoc(FD->getLocation());
      return L.isValid() ? SM.getFileOffset(L) : 0u;
    };
    for (const FunctionDecl *FD : Finder.Concrete) {
      const FunctionDecl *P = patternOf(FD);
      Items.push_back({FD, false, OffsetOf(P ? P : FD), fe::kernelName(FD)});
    }
    for (const FunctionDecl *FD : Finder.Patterns)
      if (!PatternsWithSpecs.count(FD->getCanonicalDecl()))
        Items.push_back({FD, true, OffsetOf(FD), fe::kernelName(FD)});
    std::stable_sort(Items.begin(), Items.end(),
                     [](const Item &A, const Item &B) {
                       if (A.Offset != B.Offset)
                         return A.Offset < B.Offset;
                       return A.Name < B.Name;
                     });

    std::vector<fe::FoundLaunch> Launches =
        fe::collectLaunches(Ctx, Map, S.SkipPrecompiled);
    S.Result.Module.HostOps = fe::collectCandidateHostOps(Ctx, Map);

    for (const Item &I : Items) {
      KernelModel K = fe::buildKernelModel(Ctx, Map, S.Opts, I.FD, I.Generic,
                                           &S.Result.Diags);
      const FunctionDecl *Canon = I.FD->getCanonicalDecl();
      const FunctionDecl *Pat = patternOf(I.FD);
      for (const fe::FoundLaunch &L : Launches) {
        if (!L.Kernel)
          continue;
        bool Match = L.Kernel->getCanonicalDecl() == Canon ||
                     (I.Generic && patternOf(L.Kernel) == Pat);
        if (Match)
          K.Launches.push_back(L.Site);
      }
      // Errors inside the kernel's source range make the model partial.
      SourceRange R = I.FD->getSourceRange();
      if (R.isValid() && Map.inMainFile(R.getBegin())) {
        SourceLoc B = Map.map(R.getBegin()), E = Map.map(R.getEnd());
        for (const pkb::Diagnostic &D :
             S.ParseDiags ? *S.ParseDiags : S.Result.Diags)
          if (D.Code == toString(DiagCode::ParseError) &&
              D.Loc.File == B.File && D.Loc.Line >= B.Line &&
              D.Loc.Line <= E.Line) {
            K.Notes.push_back("parse errors inside this kernel (first at "
                              "line " +
                              std::to_string(D.Loc.Line) +
                              "); the model may be incomplete");
            break;
          }
      }
      for (const std::string &N : S.UnitNotes)
        K.Notes.push_back(N);
      enrichKernel(K);
      S.Result.Module.Kernels.push_back(std::move(K));
    }
  }

private:
  RunState &S;
};

/// Stops a runaway preprocessor (a "macro bomb": macros that expand to
/// several copies of the previous one) after MaxExpansions macro
/// expansions: it records a "macro-expansion-limit" error at the expansion
/// that crossed the limit and ends the token stream there (an end-of-file
/// token is entered, so the parser stops at once). Clang itself has no such
/// limit; real translation units, the CUDA toolkit headers included, stay
/// far below it (docs/cli.md gives the figure).
class ExpansionGuard : public PPCallbacks {
public:
  static constexpr unsigned long MaxExpansions = 20'000'000;

  ExpansionGuard(Preprocessor &PP, const CudaUnit &Unit,
                 std::vector<pkb::Diagnostic> &Diags)
      : PP(PP), Unit(Unit), Diags(Diags) {}

  /// With PKB_FRONTEND_TRACE set, prints the unit's expansion count.
  ~ExpansionGuard() override {
    if (std::getenv("PKB_FRONTEND_TRACE"))
      llvm::errs() << "[frontend] " << Count << " macro expansions\n";
  }

  void MacroExpands(const Token &Name, const MacroDefinition &,
                    SourceRange Range, const MacroArgs *) override {
    if (++Count != MaxExpansions + 1)
      return;
    pkb::Diagnostic D;
    D.Code = std::string(toString(DiagCode::MacroExpansionLimit));
    D.Sev = Severity::Error;
    fe::LocMapper M(PP.getSourceManager(), Unit);
    D.Loc = M.map(Range.getBegin());
    if (!D.Loc.isValid())
      D.Loc =
          SourceLoc{Unit.Map.File.empty() ? Unit.Name : Unit.Map.File, 1, 1};
    IdentifierInfo *II = Name.getIdentifierInfo();
    D.Message = "more than " + std::to_string(MaxExpansions) +
                " macro expansions (last: '" +
                (II ? II->getName().str() : std::string("?")) +
                "'): a macro that expands exponentially? Preprocessing "
                "stopped here";
    Diags.push_back(std::move(D));
    Stop.startToken();
    Stop.setKind(tok::eof);
    Stop.setLocation(Name.getLocation());
    PP.EnterTokenStream(llvm::ArrayRef<Token>(&Stop, 1),
                        /*DisableMacroExpansion=*/true, /*IsReinject=*/false);
  }

private:
  Preprocessor &PP;
  const CudaUnit &Unit;
  std::vector<pkb::Diagnostic> &Diags;
  unsigned long Count = 0;
  Token Stop;
};

class ModelAction : public ASTFrontendAction {
public:
  ModelAction(RunState &S, RecordingConsumer &RC) : S(S), RC(RC) {}

protected:
  std::unique_ptr<ASTConsumer> CreateASTConsumer(CompilerInstance &,
                                                 llvm::StringRef) override {
    return std::make_unique<ModelConsumer>(S);
  }

  bool BeginSourceFileAction(CompilerInstance &CI) override {
    DiagnosticsEngine &D = CI.getDiagnostics();
    // A missing header must not stop template instantiation or the rest of
    // the file: demote the (default-fatal) diagnostic to a plain error.
    D.setSeverity(diag::err_pp_file_not_found, diag::Severity::Error,
                  SourceLocation());
    D.setFatalsAsError(true);
    D.setErrorLimit(0);
    CI.getPreprocessor().addPPCallbacks(std::make_unique<ExpansionGuard>(
        CI.getPreprocessor(), S.Unit, RC.Diags));
    return true;
  }

  void EndSourceFileAction() override {
    // Pass the diagnostics recorded so far to the consumer's notes check.
    RC.finish();
  }

private:
  RunState &S;
  RecordingConsumer &RC;
};

} // namespace

//===----------------------------------------------------------------------===//
// Public entry points.
//===----------------------------------------------------------------------===//

std::string shimDirectory() {
  if (const char *E = std::getenv("PKBCHECK_SHIM_DIR"))
    if (*E)
      return E;
  return PKB_SHIM_DIR;
}

std::string clangVersion() { return LLVM_VERSION_STRING; }

std::string defaultPchDirectory() {
  if (const char *E = std::getenv("PKBCHECK_PCH_DIR"))
    return E;
  llvm::SmallString<256> Dir;
  if (const char *X = std::getenv("XDG_CACHE_HOME"); X && *X)
    Dir = X;
  else if (const char *H = std::getenv("HOME"); H && *H)
    llvm::sys::path::append(Dir, H, ".cache");
  else
    return "";
  llvm::sys::path::append(Dir, "pkbcheck", "pch");
  return Dir.str().str();
}

namespace {

/// The front-end arguments of a unit (all but the main file and the
/// recovery prelude), the notes about the toolkit search, and the notes
/// that every kernel model carries.
struct ParseSetup {
  std::vector<std::string> Args;
  std::vector<std::string> ToolkitNotes;
  std::vector<std::string> UnitNotes;
};

ParseSetup parseSetup(const FrontendOptions &Opts) {
  ParseSetup P;
  std::string Toolkit =
      Opts.ForceShims ? std::string() : findToolkit(Opts, P.ToolkitNotes);
  std::string Shims = shimDirectory();
  std::string Res = resourceDir();

  std::vector<std::string> &Args = P.Args;
  Args = {"clang++", "-fsyntax-only", "-x", "cuda", "--cuda-device-only"};
  Args.push_back("--cuda-gpu-arch=" +
                 (Opts.GpuArch.empty() ? std::string("sm_90a") : Opts.GpuArch));
  Args.insert(Args.end(),
              {"-std=c++17", "-nocudalib", "-ferror-limit=0",
               "-fno-color-diagnostics", "-fno-caret-diagnostics", "-w",
               // Typo correction would bind a name that a missing header
               // declares to an unrelated one (`detail::f` to
               // `nv::target::detail::f`).
               "-fno-spell-checking", "-Wno-unknown-cuda-version",
               "-D__PKBCHECK__=1"});
  if (!Res.empty())
    Args.push_back("-resource-dir=" + Res);
  if (!Toolkit.empty()) {
    Args.push_back("--cuda-path=" + Toolkit);
    // Clang 19 knows CUDA <= 12.5; newer toolkits need the new launch API
    // (__cudaPushCallConfiguration) selected explicitly.
    if (toolkitVersion(Toolkit) > 12050)
      Args.insert(Args.end(), {"-Xclang", "-target-sdk-version=12.5"});
    if (fileExists(Toolkit + "/include/cccl"))
      Args.insert(Args.end(), {"-isystem", Toolkit + "/include/cccl"});
    if (!fileExists(Toolkit + "/include/texture_fetch_functions.h"))
      Args.insert(Args.end(), {"-isystem", Shims + "/compat"});
    Args.insert(Args.end(), {"-isystem", Shims + "/torch"});
  } else {
    Args.insert(Args.end(),
                {"-nocudainc", "-isystem", Shims + "/cuda", "-isystem",
                 Shims + "/torch", "-include", "cuda_runtime.h"});
    P.UnitNotes.push_back(
        "parsed with the bundled CUDA shim headers (no toolkit)");
  }
  // The candidate ABI header (runtime/include/pkb/pkb_abi.h) of this source
  // tree, so that `#include "pkb/pkb_abi.h"` resolves.
  std::string AbiDir = Shims + "/../../runtime/include";
  if (fileExists(AbiDir + "/pkb/pkb_abi.h"))
    Args.insert(Args.end(), {"-isystem", AbiDir});
  Args.insert(Args.end(), Opts.ExtraArgs.begin(), Opts.ExtraArgs.end());
  return P;
}

/// One parse of \p Unit with the arguments of \p Setup; \p Prelude (if not
/// empty) is force-included first. Declarations guessed from errors after a
/// missing include are appended to \p Guesses. With \p Pch the implicit
/// includes come from that precompiled header; when Clang cannot use it,
/// \p PchFailure is set to its message and the result must be discarded.
/// With \p Preamble (\p Pch is then the unit PCH holding those includes) the
/// unit's leading include lines are blanked in the parsed text.
FrontendResult buildOnce(const CudaUnit &Unit, const FrontendOptions &Opts,
                         const ParseSetup &Setup, const std::string &Prelude,
                         std::vector<RecoveredName> &Guesses,
                         const fe::Precompiled *Pch,
                         const fe::UnitPreamble *Preamble,
                         std::string &PchFailure) {
  FrontendResult Result;
  Result.Module.File = Unit.Map.File.empty() ? Unit.Name : Unit.Map.File;
  RunState State{Unit, Opts, Result, Setup.UnitNotes, false, {}};
  const std::string DiagFile = Result.Module.File;
  auto FileDiag = [&](DiagCode Code, Severity Sev, std::string Msg) {
    pkb::Diagnostic D;
    D.Code = std::string(toString(Code));
    D.Sev = Sev;
    D.Loc = SourceLoc{DiagFile, 1, 1};
    D.Message = std::move(Msg);
    Result.Diags.push_back(std::move(D));
  };
  for (const std::string &N : Setup.ToolkitNotes)
    FileDiag(DiagCode::Note, Severity::Note, N);

  std::vector<std::string> Args = Setup.Args;
  std::string MainFile = virtualMainFile(Unit);
  std::string PreludeFile =
      llvm::sys::path::parent_path(MainFile).str() + "/__pkb_recovery.h";
  if (!Prelude.empty())
    Args.insert(Args.end(), {"-include", PreludeFile});
  Args.push_back(MainFile);

  llvm::IntrusiveRefCntPtr<llvm::vfs::OverlayFileSystem> Overlay(
      new llvm::vfs::OverlayFileSystem(llvm::vfs::getRealFileSystem()));
  llvm::IntrusiveRefCntPtr<llvm::vfs::InMemoryFileSystem> Mem(
      new llvm::vfs::InMemoryFileSystem);
  Overlay->pushOverlay(Mem);
  Mem->addFile(
      MainFile, 0,
      llvm::MemoryBuffer::getMemBufferCopy(
          Preamble ? fe::blankPreamble(Unit.Text, *Preamble) : Unit.Text,
          MainFile));
  if (!Prelude.empty())
    Mem->addFile(PreludeFile, 0,
                 llvm::MemoryBuffer::getMemBufferCopy(Prelude, PreludeFile));
  llvm::IntrusiveRefCntPtr<FileManager> Files(
      new FileManager(FileSystemOptions(), Overlay));

  if (Pch)
    fe::mountPrecompiled(*Pch, *Mem);

  RecordingConsumer RC(Unit);
  State.ParseDiags = &RC.Diags;
  State.SkipPrecompiled = Pch && Pch->LaunchFree;
  fe::AdjustedAction Action(std::make_unique<ModelAction>(State, RC),
                            [&](CompilerInvocation &Inv) {
                              if (Pch)
                                fe::usePrecompiled(*Pch, Inv);
                            });
  tooling::ToolInvocation Inv(Args, &Action, Files.get(),
                              std::make_shared<PCHContainerOperations>());
  Inv.setDiagnosticConsumer(&RC);
  bool Ok = Inv.run();
  RC.finish();
  if (RC.PchFailed) {
    PchFailure = RC.PchMessage;
    Result.Parsed = State.Ran;
    return Result;
  }
  Result.UsedPch = Pch != nullptr;
  Result.UsedUnitPch = Pch && Preamble;
  // Errors recorded after the consumer ran are still reported; put the
  // parse diagnostics first, then the toolkit notes.
  std::vector<pkb::Diagnostic> All = std::move(RC.Diags);
  All.insert(All.end(), Result.Diags.begin(), Result.Diags.end());
  Result.Diags = std::move(All);
  Guesses.insert(Guesses.end(), RC.Guesses.begin(), RC.Guesses.end());
  Result.Parsed = State.Ran;
  if (!State.Ran) {
    FileDiag(DiagCode::ParseError, Severity::Error,
             Ok ? "the CUDA front end produced no AST"
                : "the CUDA front end could not run Clang on this unit "
                  "(see the errors above)");
  }
  return Result;
}

} // namespace

FrontendResult buildModels(const CudaUnit &Unit, const FrontendOptions &Opts) {
  // Names that headers which were not found would declare are guessed from
  // the errors and declared in a prelude for the next parse; a recovered
  // name can reveal the next one (`arch` then `arch::f`), so up to five
  // parses run while new names appear. A recovery parse is kept only if it
  // yields at least as many kernels as the parse before it: a wrong guess
  // (a function template taken for a class template, say) can turn a
  // dispatching host function into an error and drop the template
  // instantiations it launches, and recovering must never cost a kernel.
  std::vector<RecoveredName> Known, Applied, Guesses;
  ParseSetup Setup = parseSetup(Opts);
  // The implicit includes come precompiled when a cache directory is set;
  // whenever the PCH cannot be had or used, the unit is parsed without it
  // and a note says why (the models are the same either way).
  std::unique_ptr<fe::Precompiled> Pch;
  std::vector<pkb::Diagnostic> PchNotes;
  auto PchNote = [&](const std::string &Why) {
    pkb::Diagnostic D;
    D.Code = std::string(toString(DiagCode::PrecompiledHeaders));
    D.Sev = Severity::Note;
    D.Loc = SourceLoc{Unit.Map.File.empty() ? Unit.Name : Unit.Map.File, 1, 1};
    D.Message = "precompiled toolkit headers not used: " + Why +
                "; parsed the headers instead";
    PchNotes.push_back(std::move(D));
  };
  if (!Opts.PchDir.empty()) {
    std::string Why;
    Pch = fe::obtainPrecompiled(Opts.PchDir, Setup.Args,
                                llvm::vfs::getRealFileSystem(), Why);
    if (!Pch)
      PchNote(Why);
  }
  // A unit that starts with system includes of its own parses them from a
  // second PCH that holds them too; when that one cannot be had or used,
  // the unit quietly falls back to the implicit includes' PCH (the models
  // and diagnostics are the same with any of the three).
  fe::UnitPreamble Preamble = fe::unitPreamble(Unit.Text);
  std::unique_ptr<fe::Precompiled> UnitPch;
  if (Pch && !Preamble.Includes.empty()) {
    std::string Why;
    UnitPch = fe::obtainPrecompiled(Opts.PchDir, Setup.Args,
                                    llvm::vfs::getRealFileSystem(), Why,
                                    Preamble.Includes);
  }
  // One parse with \p P (and \p Pre for the unit PCH). When Clang cannot
  // use the PCH, it is dropped for the rest of this unit, its file removed
  // if it was out of date or unreadable when loaded (the next run rebuilds
  // it), a note says why unless \p Quiet, and nothing is returned.
  auto ParseWith = [&](std::unique_ptr<fe::Precompiled> &P,
                       const fe::UnitPreamble *Pre, const std::string &Prelude,
                       bool Quiet) -> std::optional<FrontendResult> {
    std::string Failure;
    FrontendResult R =
        buildOnce(Unit, Opts, Setup, Prelude, Guesses, P.get(), Pre, Failure);
    if (Failure.empty())
      return R;
    if (!Quiet)
      PchNote("'" + P->CachePath + "' could not be used (" + Failure + ")");
    if (!R.Parsed)
      llvm::sys::fs::remove(P->CachePath);
    P.reset();
    return std::nullopt;
  };
  auto Parse = [&](const std::string &Prelude) {
    if (UnitPch)
      if (std::optional<FrontendResult> R =
              ParseWith(UnitPch, &Preamble, Prelude, /*Quiet=*/true))
        return std::move(*R);
    if (Pch)
      if (std::optional<FrontendResult> R =
              ParseWith(Pch, nullptr, Prelude, /*Quiet=*/false))
        return std::move(*R);
    std::string Failure;
    return buildOnce(Unit, Opts, Setup, Prelude, Guesses, nullptr, nullptr,
                     Failure);
  };
  FrontendResult Result = Parse("");
  for (int Pass = 0; Pass < 4 && Result.Parsed; ++Pass) {
    size_t Before = Known.size();
    for (RecoveredName &G : Guesses)
      if (llvm::none_of(Known, [&](const RecoveredName &K) {
            return K.Name == G.Name && K.Ns == G.Ns;
          }))
        Known.push_back(std::move(G));
    Guesses.clear();
    if (Known.size() == Before)
      break;
    FrontendResult Next = Parse(recoveryPrelude(Known));
    if (!Next.Parsed ||
        Next.Module.Kernels.size() < Result.Module.Kernels.size())
      break;
    Result = std::move(Next);
    Applied = Known;
  }
  for (const RecoveredName &R : Applied) {
    pkb::Diagnostic D;
    D.Code = std::string(toString(DiagCode::RecoveredDeclaration));
    D.Sev = Severity::Note;
    D.Loc = R.Loc;
    D.Message = "'" + (R.Ns.empty() ? R.Name : R.Ns + "::" + R.Name) +
                "' is unknown (its header was not found); treated as " +
                recoveryWording(R.Kind);
    Result.Diags.push_back(std::move(D));
  }
  Result.Diags.insert(Result.Diags.end(), PchNotes.begin(), PchNotes.end());
  if (Result.Parsed && !Opts.ParseOnly && Result.Module.Kernels.empty()) {
    pkb::Diagnostic D;
    D.Code = std::string(toString(DiagCode::NoKernels));
    D.Sev = Severity::Note;
    D.Loc = SourceLoc{Result.Module.File, 1, 1};
    D.Message = "no __global__ function is defined in this unit (device "
                "functions here run only when a kernel of another file calls "
                "them; that file is where they are checked)";
    Result.Diags.push_back(std::move(D));
  }
  return Result;
}

} // namespace pkb
