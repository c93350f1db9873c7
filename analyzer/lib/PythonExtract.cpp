//===- PythonExtract.cpp - CUDA units and host ops from Python files ------===//
//
// ParallelKernelBench solutions embed CUDA in Python string literals that are
// compiled with torch.utils.cpp_extension.load_inline (or a
// compile_cuda_extension helper) and drive the kernels from `solution()`.
// This file finds those literals, builds CUDA units with an exact map back
// into the .py file, and lists the host-side operations of the entry
// function in program order. docs/ingestion.md describes every rule.
//
// The analysis is a light statement-level walk over the tokens of
// PythonLexer: logical lines with their indentation depth, simple statements
// (split at ';' and at the ':' of compound headers), assignment targets,
// and call chains `a.b(...)[i].c(...)`. It is flow- and scope-insensitive
// on purpose (names are matched by spelling).
//
//===----------------------------------------------------------------------===//

#include "PythonLexer.h"
#include "pkb/DiagCode.h"

#include "pkb/Ingest.h"

#include <algorithm>
#include <map>
#include <optional>
#include <set>

namespace pkb {
namespace {

using py::Token;
using py::TokKind;

constexpr unsigned MaxInlineDepth = 4;   ///< Helper-call inlining depth.
constexpr unsigned MaxResolveDepth = 8;  ///< Name -> string resolution depth.
constexpr size_t MaxLexDiags = 20;       ///< Tokenizer diagnostics kept.
constexpr unsigned MaxCallNesting = 200; ///< Like CPython's bracket limit.

/// A token range [B, E).
struct Range {
  size_t B = 0, E = 0;
  bool empty() const { return B >= E; }
};

/// A logical line: its tokens (no NEWLINE/INDENT/DEDENT) and indent depth.
struct LogicalLine {
  Range R;
  unsigned Depth = 0;
};

/// A simple statement, or the header of a compound statement (the part
/// before its ':'), inside one logical line.
struct Stmt {
  Range R;
  bool Header = false;
  size_t Line = 0; ///< Index into Lines.
};

/// One element of a call chain `a.b(...)[...]`: for Name/Attr the name token
/// (B), for Call/Index the opening (B) and closing (E) bracket tokens.
struct ChainElem {
  enum Kind { Name, Attr, Call, Index } K = Name;
  size_t B = 0, E = 0;
};
using Chain = std::vector<ChainElem>;

/// A function definition (module-level, method or nested).
struct FuncDef {
  std::string Name;
  std::string Class; ///< Enclosing class for methods, else empty.
  size_t DefLine = 0;
  unsigned Depth = 0;
  size_t BodyBegin = 0, BodyEnd = 0; ///< Line indices of the indented body.
  Range Inline;                      ///< One-line body after the ':'.
  std::vector<std::string> Params;   ///< Plain parameter names, in order.
};

/// A run of adjacent string literal tokens (implicit concatenation).
struct Group {
  Range R;
  std::string Owner; ///< Assigned variable or keyword; "str" if neither.
  unsigned Line = 0; ///< Of the first literal.
  std::string Text;
  SourceMap Map; ///< Offsets relative to Text.
  bool Cuda = false;
  bool Used = false;
};

using Rename = std::map<std::string, std::string, std::less<>>;

/// Assignment structure of a simple statement.
struct AssignInfo {
  bool IsAssign = false;
  std::vector<Range> Targets; ///< First target list, split at ','.
  Range Rhs;
};

class PyFile {
public:
  PyFile(const std::string &Path, const std::string &Text)
      : Path(Path), Src(Text), Start(hasBom(Text) ? 3 : 0), Lines(Text, Start) {
  }

  Input run();

private:
  static bool hasBom(const std::string &T) {
    return T.size() >= 3 && T.compare(0, 3, "\xEF\xBB\xBF") == 0;
  }

  // --- Token helpers -------------------------------------------------------
  bool isOp(size_t I, std::string_view S) const {
    return I < Toks.size() && Toks[I].isOp(Src, S);
  }
  bool isName(size_t I) const {
    return I < Toks.size() && Toks[I].Kind == TokKind::Name;
  }
  bool isName(size_t I, std::string_view S) const {
    return I < Toks.size() && Toks[I].isName(Src, S);
  }
  std::string_view tok(size_t I) const { return Toks[I].text(Src); }
  size_t matchBracket(size_t I, size_t E) const;
  size_t findTopLevel(Range R, std::string_view Op) const;
  std::vector<Range> splitTopLevel(Range R, std::string_view Sep) const;
  std::string text(Range R, const Rename *Ren = nullptr) const;
  SourceLoc locOf(size_t TokIdx) const {
    SourceLoc L;
    L.File = Path;
    L.Line = Toks[TokIdx].Line;
    L.Col = Toks[TokIdx].Col;
    return L;
  }

  // --- Structure -----------------------------------------------------------
  void buildLines();
  void splitStatements(Range R, size_t Line);
  void addStatement(Range R, size_t Line);
  void buildFunctions();
  size_t blockEnd(size_t Line) const;
  void buildImports();
  AssignInfo assignInfo(const Stmt &S) const;
  size_t parseChain(size_t I, size_t E, Chain &Out) const;
  std::vector<Range> callArgs(const ChainElem &Call) const;
  std::optional<std::string> dotted(const Chain &C, size_t Count) const;
  std::string resolve(const std::string &Dotted) const;
  size_t skipLambda(size_t I, size_t E) const;
  template <typename Fn>
  void forEachCall(Range R, Fn &&F, unsigned Depth = 0) const;
  std::vector<const Stmt *> bodyStatements(const FuncDef &F) const;

  // --- CUDA sources ----------------------------------------------------------
  void buildGroups();
  void collectSources(Range R, size_t Before, unsigned Depth,
                      std::set<std::string> &Visiting,
                      std::vector<size_t> &Out) const;
  const AssignInfo *lastAssignment(const std::string &Name,
                                   size_t Before) const;
  bool isExtCreate(const Chain &C, size_t CallIdx) const;
  void buildUnits(Input &In);

  // --- Host operations -----------------------------------------------------
  void findExtensionObjects();
  bool isExtExpr(Range R) const;
  bool isExtReceiver(const Chain &C, size_t Count) const;
  const FuncDef *findEntry();
  struct WalkCtx {
    Rename Ren;
    unsigned Depth = 0; ///< Helper inlining depth.
    std::vector<std::string> Stack;
    /// Blocks enclosing the call of the inlined helper (0 in the entry).
    unsigned Nest = 0;
    /// Indentation depth of the walked function's body.
    unsigned BodyDepth = 0;
    /// Blocks enclosing the statement being walked (HostOp::Depth).
    unsigned StmtNest = 0;
  };
  /// Blocks of the walked function that enclose \p S: its logical line's
  /// indentation below the body, plus one per compound-statement header
  /// before it on the same line (`if c: op()`).
  unsigned nestingOf(const Stmt &S, const WalkCtx &Ctx) const;
  void walkStmt(const Stmt &S, WalkCtx &Ctx);
  void onCall(const Chain &C, size_t K, const AssignInfo &A, WalkCtx &Ctx);
  void inlineHelper(const FuncDef &F, const Chain &C, size_t K,
                    const AssignInfo &A, bool WholeRhs, WalkCtx &Ctx);
  std::vector<std::string> returnNames(const FuncDef &F) const;

  const std::string &Path;
  const std::string &Src;
  const size_t Start;
  py::LineTable Lines;
  std::vector<Token> Toks;
  std::vector<py::LexError> LexErrors;
  std::vector<LogicalLine> LLines;
  std::vector<Stmt> Stmts;
  std::vector<std::vector<size_t>> LineStmts; ///< Line -> indices in Stmts.
  std::vector<AssignInfo> Assigns;            ///< Parallel to Stmts.
  std::vector<FuncDef> Funcs;
  std::map<std::string, std::string, std::less<>> Imports;
  std::vector<Group> Groups;
  std::vector<int> GroupOfTok;
  std::set<std::string, std::less<>> ExtNames;
  std::set<std::string, std::less<>> Getters;
  std::vector<HostOp> Ops;
};

//===----------------------------------------------------------------------===//
// Token helpers.
//===----------------------------------------------------------------------===//

size_t PyFile::matchBracket(size_t I, size_t E) const {
  int Depth = 0;
  for (size_t J = I; J < E; ++J) {
    if (Toks[J].Kind != TokKind::Op)
      continue;
    std::string_view T = tok(J);
    if (T == "(" || T == "[" || T == "{")
      ++Depth;
    else if (T == ")" || T == "]" || T == "}") {
      if (--Depth == 0)
        return J;
    }
  }
  return E;
}

/// First \p Op at bracket depth 0 in \p R, or R.E.
size_t PyFile::findTopLevel(Range R, std::string_view Op) const {
  int Depth = 0;
  for (size_t J = R.B; J < R.E; ++J) {
    if (Toks[J].Kind != TokKind::Op)
      continue;
    std::string_view T = tok(J);
    if (T == "(" || T == "[" || T == "{")
      ++Depth;
    else if ((T == ")" || T == "]" || T == "}") && Depth > 0)
      --Depth;
    else if (Depth == 0 && T == Op)
      return J;
  }
  return R.E;
}

std::vector<Range> PyFile::splitTopLevel(Range R, std::string_view Sep) const {
  std::vector<Range> Out;
  size_t B = R.B;
  while (B <= R.E) {
    size_t J = findTopLevel({B, R.E}, Sep);
    Out.push_back({B, J});
    if (J >= R.E)
      break;
    B = J + 1;
  }
  // A trailing separator leaves an empty last piece; drop empty pieces.
  Out.erase(std::remove_if(Out.begin(), Out.end(),
                           [](const Range &X) { return X.empty(); }),
            Out.end());
  return Out;
}

/// Source text of the tokens in \p R: one space where the source had any
/// whitespace or comment between tokens. Names (not attributes, not keyword
/// argument names) are replaced through \p Ren.
std::string PyFile::text(Range R, const Rename *Ren) const {
  std::string Out;
  for (size_t I = R.B; I < R.E && I < Toks.size(); ++I) {
    const Token &T = Toks[I];
    if (T.Kind == TokKind::Newline || T.Kind == TokKind::Indent ||
        T.Kind == TokKind::Dedent || T.Kind == TokKind::EndMarker)
      continue;
    if (!Out.empty() && I > R.B && Toks[I - 1].End < T.Begin)
      Out.push_back(' ');
    std::string_view S = T.text(Src);
    if (Ren && T.Kind == TokKind::Name && !(I > 0 && isOp(I - 1, ".")) &&
        !(I + 1 < R.E && isOp(I + 1, "="))) {
      auto It = Ren->find(S);
      if (It != Ren->end()) {
        Out += It->second;
        continue;
      }
    }
    Out += S;
  }
  return Out;
}

//===----------------------------------------------------------------------===//
// Structure: logical lines, statements, functions, imports.
//===----------------------------------------------------------------------===//

void PyFile::buildLines() {
  unsigned Depth = 0;
  size_t B = SIZE_MAX;
  for (size_t I = 0; I < Toks.size(); ++I) {
    TokKind K = Toks[I].Kind;
    if (K == TokKind::Indent) {
      ++Depth;
      continue;
    }
    if (K == TokKind::Dedent) {
      if (Depth > 0)
        --Depth;
      continue;
    }
    if (K == TokKind::EndMarker)
      break;
    if (K == TokKind::Newline) {
      if (B != SIZE_MAX)
        LLines.push_back({{B, I}, Depth});
      B = SIZE_MAX;
      continue;
    }
    if (B == SIZE_MAX)
      B = I;
  }
  LineStmts.resize(LLines.size());
  for (size_t L = 0; L < LLines.size(); ++L)
    splitStatements(LLines[L].R, L);
  Assigns.reserve(Stmts.size());
  for (const Stmt &S : Stmts)
    Assigns.push_back(assignInfo(S));
}

void PyFile::splitStatements(Range R, size_t Line) {
  for (Range P : splitTopLevel(R, ";"))
    addStatement(P, Line);
}

/// Compound statement keywords whose header ends at a top-level ':'.
bool isCompoundKeyword(std::string_view K) {
  return K == "if" || K == "elif" || K == "else" || K == "while" ||
         K == "for" || K == "with" || K == "try" || K == "except" ||
         K == "finally" || K == "async" || K == "def" || K == "class" ||
         K == "match" || K == "case";
}

void PyFile::addStatement(Range R, size_t Line) {
  if (R.empty())
    return;
  if (Toks[R.B].Kind == TokKind::Name && isCompoundKeyword(tok(R.B))) {
    // `match`/`case` are soft keywords: only a header if a ':' ends it.
    size_t Colon = findTopLevel(R, ":");
    if (Colon < R.E || (tok(R.B) != "match" && tok(R.B) != "case")) {
      LineStmts[Line].push_back(Stmts.size());
      Stmts.push_back({{R.B, Colon}, true, Line});
      if (Colon < R.E)
        addStatement({Colon + 1, R.E}, Line);
      return;
    }
  }
  LineStmts[Line].push_back(Stmts.size());
  Stmts.push_back({R, false, Line});
}

size_t PyFile::blockEnd(size_t Line) const {
  size_t K = Line + 1;
  while (K < LLines.size() && LLines[K].Depth > LLines[Line].Depth)
    ++K;
  return K;
}

void PyFile::buildFunctions() {
  // Classes open at each depth, for method names.
  std::vector<std::pair<unsigned, std::string>> Classes;
  std::vector<std::pair<unsigned, size_t>> ClassEnds;
  for (size_t L = 0; L < LLines.size(); ++L) {
    while (!ClassEnds.empty() && L >= ClassEnds.back().second) {
      ClassEnds.pop_back();
      Classes.pop_back();
    }
    Range R = LLines[L].R;
    size_t I = R.B;
    if (isName(I, "async"))
      ++I;
    if (isName(I, "class") && isName(I + 1)) {
      Classes.push_back({LLines[L].Depth, std::string(tok(I + 1))});
      ClassEnds.push_back({LLines[L].Depth, blockEnd(L)});
      continue;
    }
    if (!isName(I, "def") || !isName(I + 1))
      continue;
    FuncDef F;
    F.Name = std::string(tok(I + 1));
    F.DefLine = L;
    F.Depth = LLines[L].Depth;
    if (!Classes.empty() && Classes.back().first + 1 == F.Depth)
      F.Class = Classes.back().second;
    size_t Open = I + 2;
    if (isOp(Open, "(")) {
      size_t Close = matchBracket(Open, R.E);
      for (Range P : splitTopLevel({Open + 1, Close}, ",")) {
        if (isName(P.B) && tok(P.B) != "self" && tok(P.B) != "cls")
          F.Params.emplace_back(tok(P.B));
        else if (isOp(P.B, "*") || isOp(P.B, "**") || isOp(P.B, "/"))
          F.Params.emplace_back(""); // keeps positions of later params
      }
      size_t Colon = findTopLevel({Close + 1, R.E}, ":");
      if (Colon + 1 < R.E)
        F.Inline = {Colon + 1, R.E};
    }
    F.BodyBegin = L + 1;
    F.BodyEnd = blockEnd(L);
    Funcs.push_back(std::move(F));
  }
}

/// Statements executed by \p F's body, excluding nested def/class blocks.
std::vector<const Stmt *> PyFile::bodyStatements(const FuncDef &F) const {
  std::vector<const Stmt *> Out;
  for (size_t SI : LineStmts[F.DefLine]) {
    const Stmt &S = Stmts[SI];
    if (!S.Header && S.R.B >= F.Inline.B && S.R.E <= F.Inline.E &&
        !F.Inline.empty())
      Out.push_back(&S);
  }
  for (size_t L = F.BodyBegin; L < F.BodyEnd;) {
    size_t I = LLines[L].R.B;
    if (isName(I, "async"))
      ++I;
    if (isName(I, "def") || isName(I, "class")) {
      L = blockEnd(L);
      continue;
    }
    for (size_t SI : LineStmts[L])
      Out.push_back(&Stmts[SI]);
    ++L;
  }
  return Out;
}

void PyFile::buildImports() {
  for (const Stmt &S : Stmts) {
    Range R = S.R;
    if (S.Header || R.empty())
      continue;
    if (isName(R.B, "import")) {
      // import a.b.c [as X], d
      for (Range P : splitTopLevel({R.B + 1, R.E}, ",")) {
        size_t As = P.B;
        while (As < P.E && !isName(As, "as"))
          ++As;
        std::string Mod;
        for (size_t I = P.B; I < As; ++I)
          Mod += tok(I);
        if (As < P.E && isName(As + 1))
          Imports[std::string(tok(As + 1))] = Mod;
        else if (isName(P.B))
          Imports[std::string(tok(P.B))] = std::string(tok(P.B));
      }
    } else if (isName(R.B, "from")) {
      // from a.b import c [as X], (d, e)
      size_t Imp = R.B + 1;
      while (Imp < R.E && !isName(Imp, "import"))
        ++Imp;
      if (Imp >= R.E)
        continue;
      std::string Mod;
      for (size_t I = R.B + 1; I < Imp; ++I)
        Mod += tok(I);
      Range Names = {Imp + 1, R.E};
      if (isOp(Names.B, "("))
        Names = {Names.B + 1, matchBracket(Names.B, R.E)};
      for (Range P : splitTopLevel(Names, ",")) {
        if (!isName(P.B))
          continue;
        std::string Full = Mod + "." + std::string(tok(P.B));
        if (P.B + 2 < P.E && isName(P.B + 1, "as") && isName(P.B + 2))
          Imports[std::string(tok(P.B + 2))] = Full;
        else
          Imports[std::string(tok(P.B))] = Full;
      }
    }
  }
}

AssignInfo PyFile::assignInfo(const Stmt &S) const {
  AssignInfo A;
  if (S.Header)
    return A;
  size_t First = findTopLevel(S.R, "=");
  if (First >= S.R.E)
    return A;
  size_t Last = First;
  for (size_t J = First; J < S.R.E;) {
    J = findTopLevel({J + 1, S.R.E}, "=");
    if (J < S.R.E)
      Last = J;
  }
  A.IsAssign = true;
  A.Rhs = {Last + 1, S.R.E};
  Range T = {S.R.B, First};
  size_t Colon = findTopLevel(T, ":"); // annotated assignment
  if (Colon < T.E)
    T.E = Colon;
  if (!T.empty() && (isOp(T.B, "(") || isOp(T.B, "[")) &&
      matchBracket(T.B, T.E) == T.E - 1)
    T = {T.B + 1, T.E - 1};
  A.Targets = splitTopLevel(T, ",");
  return A;
}

/// Parses a call chain starting at Name token \p I; returns the index after.
size_t PyFile::parseChain(size_t I, size_t E, Chain &Out) const {
  Out.push_back({ChainElem::Name, I, I});
  size_t J = I + 1;
  while (J < E) {
    if (isOp(J, ".") && J + 1 < E && isName(J + 1)) {
      Out.push_back({ChainElem::Attr, J + 1, J + 1});
      J += 2;
    } else if (isOp(J, "(") || isOp(J, "[")) {
      size_t C = matchBracket(J, E);
      if (C >= E)
        break;
      Out.push_back({isOp(J, "(") ? ChainElem::Call : ChainElem::Index, J, C});
      J = C + 1;
    } else {
      break;
    }
  }
  return J;
}

std::vector<Range> PyFile::callArgs(const ChainElem &Call) const {
  return splitTopLevel({Call.B + 1, Call.E}, ",");
}

/// "a.b.c" if the first \p Count elements of \p C are a Name and Attrs.
std::optional<std::string> PyFile::dotted(const Chain &C, size_t Count) const {
  std::string Out;
  for (size_t I = 0; I < Count && I < C.size(); ++I) {
    if (C[I].K == ChainElem::Call || C[I].K == ChainElem::Index)
      return std::nullopt;
    if (I)
      Out += '.';
    Out += tok(C[I].B);
  }
  return Out;
}

/// Expands the first component of \p Dotted through the import table; the
/// conventional aliases `dist` and `symm_mem` are assumed when not bound.
std::string PyFile::resolve(const std::string &Dotted) const {
  size_t Dot = Dotted.find('.');
  std::string Head = Dotted.substr(0, Dot);
  std::string Rest = Dot == std::string::npos ? "" : Dotted.substr(Dot);
  auto It = Imports.find(Head);
  if (It != Imports.end())
    return It->second + Rest;
  if (Head == "dist")
    return "torch.distributed" + Rest;
  if (Head == "symm_mem")
    return "torch.distributed._symmetric_memory" + Rest;
  return Dotted;
}

/// Skips `lambda args: body` (body up to a ',' or closer at depth 0).
size_t PyFile::skipLambda(size_t I, size_t E) const {
  size_t Colon = findTopLevel({I, E}, ":");
  int Depth = 0;
  for (size_t J = Colon + 1; J < E; ++J) {
    if (Toks[J].Kind != TokKind::Op)
      continue;
    std::string_view T = tok(J);
    if (T == "(" || T == "[" || T == "{")
      ++Depth;
    else if (T == ")" || T == "]" || T == "}") {
      if (Depth-- == 0)
        return J;
    } else if (T == "," && Depth == 0)
      return J;
  }
  return E;
}

/// Calls \p F(Chain, K, ChainStart) for every call in \p R in evaluation
/// order: receiver first, then arguments, then the call itself. Calls nested
/// deeper than MaxCallNesting brackets are not visited.
template <typename Fn>
void PyFile::forEachCall(Range R, Fn &&F, unsigned Depth) const {
  if (Depth >= MaxCallNesting)
    return;
  size_t I = R.B;
  while (I < R.E) {
    if (isName(I, "lambda")) {
      I = skipLambda(I, R.E);
      continue;
    }
    if (isName(I) && !py::isKeyword(tok(I)) && !(I > 0 && isOp(I - 1, "."))) {
      Chain C;
      size_t J = parseChain(I, R.E, C);
      for (size_t K = 0; K < C.size(); ++K) {
        if (C[K].K == ChainElem::Call || C[K].K == ChainElem::Index)
          forEachCall(Range{C[K].B + 1, C[K].E}, F, Depth + 1);
        if (C[K].K == ChainElem::Call)
          F(C, K, I);
      }
      I = J;
      continue;
    }
    ++I;
  }
}

//===----------------------------------------------------------------------===//
// CUDA sources.
//===----------------------------------------------------------------------===//

bool hasCudaMarker(const std::string &T) {
  return T.find("__global__") != std::string::npos ||
         T.find("__device__") != std::string::npos ||
         T.find("#include <cuda") != std::string::npos ||
         T.find("asm volatile") != std::string::npos;
}

void PyFile::buildGroups() {
  GroupOfTok.assign(Toks.size(), -1);
  std::vector<int> StmtOfTok(Toks.size(), -1);
  for (size_t SI = 0; SI < Stmts.size(); ++SI)
    for (size_t I = Stmts[SI].R.B; I < Stmts[SI].R.E; ++I)
      StmtOfTok[I] = static_cast<int>(SI);
  for (size_t I = 0; I < Toks.size();) {
    if (Toks[I].Kind != TokKind::String) {
      ++I;
      continue;
    }
    Group G;
    G.R.B = I;
    while (I < Toks.size() && Toks[I].Kind == TokKind::String) {
      GroupOfTok[I] = static_cast<int>(Groups.size());
      py::decodeString(Src, Lines, Toks[I], G.Text, G.Map);
      ++I;
    }
    G.R.E = I;
    G.Line = Toks[G.R.B].Line;
    G.Cuda = hasCudaMarker(G.Text);
    // Owner: keyword argument name (`cuda_sources="..."`), else the single
    // target of the assignment whose right-hand side holds the literal.
    const AssignInfo *A =
        StmtOfTok[G.R.B] >= 0 ? &Assigns[StmtOfTok[G.R.B]] : nullptr;
    bool AfterAssignEq = A && A->IsAssign && G.R.B == A->Rhs.B;
    if (!AfterAssignEq && G.R.B >= 2 && isOp(G.R.B - 1, "=") &&
        isName(G.R.B - 2))
      G.Owner = std::string(tok(G.R.B - 2));
    else if (A && A->IsAssign && G.R.B >= A->Rhs.B && A->Targets.size() == 1)
      G.Owner = text(A->Targets[0]);
    if (G.Owner.empty())
      G.Owner = "str";
    Groups.push_back(std::move(G));
  }
}

/// The assignment of \p Name (a single target spelled exactly so) that is
/// last before token \p Before, else the last one in the file.
const AssignInfo *PyFile::lastAssignment(const std::string &Name,
                                         size_t Before) const {
  const AssignInfo *BeforeHit = nullptr, *Any = nullptr;
  for (size_t SI = 0; SI < Stmts.size(); ++SI) {
    const AssignInfo &A = Assigns[SI];
    if (!A.IsAssign || A.Targets.size() != 1 || text(A.Targets[0]) != Name)
      continue;
    Any = &A;
    if (Stmts[SI].R.B < Before)
      BeforeHit = &A;
  }
  return BeforeHit ? BeforeHit : Any;
}

/// Groups that the expression \p R evaluates to (string literals and names
/// bound to them, through `+`, lists, tuples and calls like dedent()).
void PyFile::collectSources(Range R, size_t Before, unsigned Depth,
                            std::set<std::string> &Visiting,
                            std::vector<size_t> &Out) const {
  for (size_t I = R.B; I < R.E; ++I) {
    if (GroupOfTok[I] >= 0) {
      size_t G = static_cast<size_t>(GroupOfTok[I]);
      if (std::find(Out.begin(), Out.end(), G) == Out.end())
        Out.push_back(G);
      continue;
    }
    if (!isName(I) || py::isKeyword(tok(I)) || (I > 0 && isOp(I - 1, ".")) ||
        isOp(I + 1, "(") || isOp(I + 1, ".") || isOp(I + 1, "="))
      continue;
    std::string Name(tok(I));
    if (Depth >= MaxResolveDepth || Visiting.count(Name))
      continue;
    const AssignInfo *A = lastAssignment(Name, Before);
    if (!A)
      continue;
    Visiting.insert(Name);
    collectSources(A->Rhs, A->Rhs.B, Depth + 1, Visiting, Out);
    Visiting.erase(Name);
  }
}

/// True if call \p CallIdx of \p C compiles an extension: load_inline,
/// compile_cuda_extension, or torch.utils.cpp_extension.load.
bool PyFile::isExtCreate(const Chain &C, size_t CallIdx) const {
  auto D = dotted(C, CallIdx);
  if (!D)
    return false;
  std::string Last = D->substr(D->rfind('.') + 1);
  if (Last == "load_inline" || Last == "compile_cuda_extension")
    return true;
  std::string Full = resolve(*D);
  return Full == "torch.utils.cpp_extension.load";
}

void PyFile::buildUnits(Input &In) {
  struct Pending {
    std::vector<size_t> Groups; // CUDA parts first, then C++ parts
  };
  std::vector<Pending> Units;
  for (const Stmt &S : Stmts) {
    forEachCall(S.R, [&](const Chain &C, size_t K, size_t) {
      if (!isExtCreate(C, K))
        return;
      std::string Callee = dotted(C, K).value_or("");
      bool IsLoadInline =
          Callee.size() >= 11 &&
          Callee.compare(Callee.size() - 11, 11, "load_inline") == 0;
      std::vector<Range> Cuda, Cpp;
      size_t Pos = 0;
      for (Range A : callArgs(C[K])) {
        bool Kw = isName(A.B) && isOp(A.B + 1, "=");
        std::string Key = Kw ? std::string(tok(A.B)) : "";
        Range V = Kw ? Range{A.B + 2, A.E} : A;
        if (Kw) {
          if (Key == "cuda_sources" || Key == "cuda_src" ||
              Key == "cuda_source")
            Cuda.push_back(V);
          else if (Key == "cpp_sources" || Key == "cpp_src" ||
                   Key == "cpp_source")
            Cpp.push_back(V);
          continue;
        }
        // load_inline(name, cpp_sources, cuda_sources, ...);
        // compile_cuda_extension(name, cuda_src, ...).
        if (IsLoadInline && Pos == 1)
          Cpp.push_back(V);
        else if (IsLoadInline && Pos == 2)
          Cuda.push_back(V);
        else if (!IsLoadInline && Pos == 1)
          Cuda.push_back(V);
        ++Pos;
      }
      Pending P;
      std::set<std::string> Visiting;
      for (Range V : Cuda)
        collectSources(V, V.B, 0, Visiting, P.Groups);
      for (Range V : Cpp)
        collectSources(V, V.B, 0, Visiting, P.Groups);
      P.Groups.erase(std::remove_if(P.Groups.begin(), P.Groups.end(),
                                    [&](size_t G) {
                                      return Groups[G].Text.find_first_not_of(
                                                 " \t\r\n") ==
                                             std::string::npos;
                                    }),
                     P.Groups.end());
      if (P.Groups.empty())
        return;
      for (const Pending &Q : Units)
        if (Q.Groups == P.Groups)
          return;
      for (size_t G : P.Groups)
        Groups[G].Used = true;
      Units.push_back(std::move(P));
    });
  }
  for (size_t G = 0; G < Groups.size(); ++G)
    if (Groups[G].Cuda && !Groups[G].Used)
      Units.push_back({{G}});
  std::stable_sort(Units.begin(), Units.end(),
                   [&](const Pending &A, const Pending &B) {
                     return Groups[A.Groups[0]].R.B < Groups[B.Groups[0]].R.B;
                   });
  for (const Pending &P : Units) {
    CudaUnit U;
    const Group &First = Groups[P.Groups[0]];
    U.Name = Path + ":" + First.Owner + "@" + std::to_string(First.Line);
    U.Map.File = Path;
    for (size_t GI : P.Groups) {
      if (!U.Text.empty())
        U.Text.push_back('\n'); // unmapped separator between sources
      size_t Base = U.Text.size();
      const Group &G = Groups[GI];
      U.Text += G.Text;
      for (SourceMap::Segment S : G.Map.segments()) {
        S.ExtractedBegin += Base;
        U.Map.addSegment(S);
      }
    }
    In.Units.push_back(std::move(U));
  }
}

//===----------------------------------------------------------------------===//
// Extension objects.
//===----------------------------------------------------------------------===//

/// True if \p R is exactly one expression that yields an extension module:
/// a known extension name, `getter()`, or a compile call.
bool PyFile::isExtExpr(Range R) const {
  if (R.empty() || !isName(R.B))
    return false;
  Chain C;
  if (parseChain(R.B, R.E, C) != R.E)
    return false;
  return isExtReceiver(C, C.size());
}

/// True if the first \p Count elements of \p C yield an extension module.
bool PyFile::isExtReceiver(const Chain &C, size_t Count) const {
  if (Count == 0)
    return false;
  if (auto D = dotted(C, Count))
    return ExtNames.count(*D) > 0;
  const ChainElem &Last = C[Count - 1];
  if (Last.K != ChainElem::Call)
    return false;
  if (Count == 2 && C[0].K == ChainElem::Name && Getters.count(tok(C[0].B)))
    return true;
  return isExtCreate(C, Count - 1);
}

void PyFile::findExtensionObjects() {
  for (unsigned Round = 0; Round < 8; ++Round) {
    size_t Before = ExtNames.size() + Getters.size();
    for (size_t SI = 0; SI < Stmts.size(); ++SI) {
      const AssignInfo &A = Assigns[SI];
      if (A.IsAssign && A.Targets.size() == 1 && isExtExpr(A.Rhs))
        ExtNames.insert(text(A.Targets[0]));
    }
    for (const FuncDef &F : Funcs)
      for (const Stmt *S : bodyStatements(F))
        if (!S->Header && isName(S->R.B, "return") &&
            isExtExpr({S->R.B + 1, S->R.E}))
          Getters.insert(F.Name);
    if (ExtNames.size() + Getters.size() == Before)
      break;
  }
}

//===----------------------------------------------------------------------===//
// Host operations.
//===----------------------------------------------------------------------===//

/// solution(); else a class's forward() (ModelNew's first); else the first
/// module-level function that calls into an extension.
const FuncDef *PyFile::findEntry() {
  for (const FuncDef &F : Funcs)
    if (F.Name == "solution" && F.Class.empty() && F.Depth == 0)
      return &F;
  const FuncDef *Forward = nullptr;
  for (const FuncDef &F : Funcs) {
    if (F.Name != "forward" || F.Class.empty())
      continue;
    if (F.Class == "ModelNew")
      return &F;
    if (!Forward)
      Forward = &F;
  }
  if (Forward)
    return Forward;
  for (const FuncDef &F : Funcs) {
    if (F.Depth != 0 || !F.Class.empty() || Getters.count(F.Name))
      continue;
    for (const Stmt *S : bodyStatements(F)) {
      bool Found = false;
      forEachCall(S->R, [&](const Chain &C, size_t K, size_t) {
        if (K >= 2 && C[K - 1].K == ChainElem::Attr && isExtReceiver(C, K - 1))
          Found = true;
      });
      if (Found)
        return &F;
    }
  }
  return nullptr;
}

unsigned PyFile::nestingOf(const Stmt &S, const WalkCtx &Ctx) const {
  unsigned D = LLines[S.Line].Depth;
  unsigned N = D > Ctx.BodyDepth ? D - Ctx.BodyDepth : 0;
  for (size_t SI : LineStmts[S.Line]) {
    if (&Stmts[SI] == &S)
      break;
    if (Stmts[SI].Header)
      ++N;
  }
  return N;
}

void PyFile::walkStmt(const Stmt &S, WalkCtx &Ctx) {
  Ctx.StmtNest = Ctx.Nest + nestingOf(S, Ctx);
  const AssignInfo &A = Assigns[static_cast<size_t>(&S - Stmts.data())];
  forEachCall(S.R,
              [&](const Chain &C, size_t K, size_t) { onCall(C, K, A, Ctx); });
}

/// Names a helper returns: `return a, b` or `return (a, b)` or `return r`
/// with `r = (a, b)` in the helper; the last such return wins.
std::vector<std::string> PyFile::returnNames(const FuncDef &F) const {
  std::vector<std::string> Out;
  std::vector<const Stmt *> Body = bodyStatements(F);
  auto NamesOf = [&](Range R) {
    std::vector<std::string> N;
    if (!R.empty() && isOp(R.B, "(") && matchBracket(R.B, R.E) == R.E - 1)
      R = {R.B + 1, R.E - 1};
    for (Range P : splitTopLevel(R, ",")) {
      if (P.E != P.B + 1 || !isName(P.B) || py::isKeyword(tok(P.B)))
        return std::vector<std::string>{};
      N.emplace_back(tok(P.B));
    }
    return N;
  };
  for (const Stmt *S : Body) {
    if (S->Header || !isName(S->R.B, "return"))
      continue;
    std::vector<std::string> N = NamesOf({S->R.B + 1, S->R.E});
    if (N.size() == 1) {
      // `return res` with `res = (a, b, c)` earlier in the helper.
      for (const Stmt *T : Body) {
        const AssignInfo &A = Assigns[static_cast<size_t>(T - Stmts.data())];
        if (T->R.B < S->R.B && A.IsAssign && A.Targets.size() == 1 &&
            text(A.Targets[0]) == N[0]) {
          std::vector<std::string> Inner = NamesOf(A.Rhs);
          if (Inner.size() > 1)
            N = Inner;
        }
      }
    }
    if (!N.empty())
      Out = N;
  }
  return Out;
}

void PyFile::inlineHelper(const FuncDef &F, const Chain &C, size_t K,
                          const AssignInfo &A, bool WholeRhs, WalkCtx &Ctx) {
  WalkCtx Inner;
  Inner.Depth = Ctx.Depth + 1;
  Inner.Nest = Ctx.StmtNest;
  Inner.BodyDepth = F.Depth + 1;
  Inner.Stack = Ctx.Stack;
  Inner.Stack.push_back(F.Name);
  // Returned names -> the caller's assignment targets.
  if (WholeRhs) {
    std::vector<std::string> Ret = returnNames(F);
    if (!Ret.empty() && Ret.size() == A.Targets.size())
      for (size_t I = 0; I < Ret.size(); ++I)
        Inner.Ren[Ret[I]] = text(A.Targets[I], &Ctx.Ren);
  }
  // Parameters -> argument texts (these take precedence).
  size_t Pos = 0;
  for (Range Arg : callArgs(C[K])) {
    if (isName(Arg.B) && isOp(Arg.B + 1, "=")) {
      std::string Key(tok(Arg.B));
      if (std::find(F.Params.begin(), F.Params.end(), Key) != F.Params.end())
        Inner.Ren[Key] = text({Arg.B + 2, Arg.E}, &Ctx.Ren);
      continue;
    }
    if (isOp(Arg.B, "*") || isOp(Arg.B, "**"))
      break;
    if (Pos < F.Params.size() && !F.Params[Pos].empty())
      Inner.Ren[F.Params[Pos]] = text(Arg, &Ctx.Ren);
    ++Pos;
  }
  for (const Stmt *S : bodyStatements(F))
    walkStmt(*S, Inner);
}

bool isCollective(const std::string &Fn) {
  static constexpr std::string_view Names[] = {"all_reduce",
                                               "all_gather",
                                               "all_gather_into_tensor",
                                               "all_gather_object",
                                               "reduce_scatter",
                                               "reduce_scatter_tensor",
                                               "broadcast",
                                               "broadcast_object_list",
                                               "reduce",
                                               "all_to_all",
                                               "all_to_all_single",
                                               "gather",
                                               "scatter",
                                               "send",
                                               "recv",
                                               "isend",
                                               "irecv",
                                               "batch_isend_irecv"};
  for (std::string_view N : Names)
    if (N == Fn)
      return true;
  return false;
}

/// True for the tensor methods that write their receiver in place.
bool isInPlaceWrite(std::string_view Method) {
  return Method == "copy_" || Method == "zero_" || Method == "fill_";
}

/// True if the host expression \p T names this process's own rank: `rank`,
/// `my_rank`, `local_rank`, an attribute `x.rank`, or `dist.get_rank()`.
bool isOwnRankText(const std::string &T) {
  auto EndsWith = [&](std::string_view S) {
    return T.size() >= S.size() &&
           T.compare(T.size() - S.size(), S.size(), S) == 0;
  };
  return T == "rank" || T == "my_rank" || T == "local_rank" ||
         EndsWith(".rank") || EndsWith("get_rank()");
}

void PyFile::onCall(const Chain &C, size_t K, const AssignInfo &A,
                    WalkCtx &Ctx) {
  const size_t ChainStart = C[0].B;
  const bool WholeRhs = A.IsAssign && ChainStart == A.Rhs.B &&
                        K + 1 == C.size() && C[K].E + 1 == A.Rhs.E;
  auto Target = [&]() -> std::string {
    return WholeRhs && A.Targets.size() == 1 ? text(A.Targets[0], &Ctx.Ren)
                                             : std::string();
  };
  auto Args = [&]() {
    std::vector<std::string> Out;
    for (Range R : callArgs(C[K]))
      Out.push_back(text(R, &Ctx.Ren));
    return Out;
  };
  auto Receiver = [&]() {
    return text({ChainStart, C[K - 1].B - 1}, &Ctx.Ren);
  };
  auto Emit = [&](HostOp::OpKind Kind, std::string Callee, std::string Tgt) {
    HostOp Op;
    Op.Kind = Kind;
    Op.Callee = std::move(Callee);
    Op.Target = std::move(Tgt);
    Op.Args = Args();
    Op.Loc = locOf(ChainStart);
    Op.Depth = Ctx.StmtNest;
    Ops.push_back(std::move(Op));
  };
  const std::string CalleeText = text({ChainStart, C[K].B}, &Ctx.Ren);

  // A plain call of a module-level helper: inline its body.
  if (K == 1 && C[0].K == ChainElem::Name) {
    std::string_view Name = tok(C[0].B);
    for (const FuncDef &F : Funcs) {
      if (F.Name != Name || F.Depth != 0 || !F.Class.empty())
        continue;
      if (Ctx.Depth < MaxInlineDepth &&
          std::find(Ctx.Stack.begin(), Ctx.Stack.end(), F.Name) ==
              Ctx.Stack.end())
        inlineHelper(F, C, K, A, WholeRhs, Ctx);
      return;
    }
  }
  if (auto D = dotted(C, K)) {
    std::string Full = resolve(*D);
    const std::string SymmPfx = "torch.distributed._symmetric_memory.";
    const std::string DistPfx = "torch.distributed.";
    if (Full == SymmPfx + "empty")
      return Emit(HostOp::SymmAlloc, CalleeText, Target());
    if (Full == SymmPfx + "rendezvous")
      return Emit(HostOp::Rendezvous, CalleeText, Target());
    if (Full == DistPfx + "barrier" || Full == DistPfx + "monitored_barrier")
      return Emit(HostOp::Barrier, CalleeText, Target());
    if (Full.rfind(DistPfx, 0) == 0 &&
        (isCollective(Full.substr(DistPfx.size())) ||
         Full.rfind(DistPfx + "_functional_collectives.", 0) == 0))
      return Emit(HostOp::Collective, CalleeText, Target());
    if (Full.rfind("torch.ops.symm_mem.", 0) == 0)
      return Emit(HostOp::Collective, CalleeText, Target());
  }
  if (K < 2 || C[K - 1].K != ChainElem::Attr)
    return;
  std::string Method(tok(C[K - 1].B));
  if (isExtReceiver(C, K - 1))
    return Emit(HostOp::KernelCall, "ext." + Method, Receiver());
  if (isInPlaceWrite(Method))
    return Emit(HostOp::SymmWrite, CalleeText, Receiver());
  if (Method == "barrier")
    return Emit(HostOp::Barrier, CalleeText, Receiver());
  if ((Method == "get_buffer" || Method == "get_signal_pad") && WholeRhs &&
      A.Targets.size() == 1) // a view of a symmetric buffer, given a name
    return Emit(HostOp::Other, CalleeText, Target());
  if (Method == "get_buffer" && !WholeRhs) {
    // Read in place unless the chain goes on into an in-place write
    // (`hdl.get_buffer(p, ...).copy_(x)` is that write, emitted there).
    bool Written = K + 1 < C.size() && C[K + 1].K == ChainElem::Attr &&
                   isInPlaceWrite(tok(C[K + 1].B));
    std::vector<std::string> Given = Args();
    if (!Written && !Given.empty() && !isOwnRankText(Given[0]))
      return Emit(HostOp::SymmRead, CalleeText, Receiver());
  }
  if (Method == "put_signal" || Method == "wait_signal")
    return Emit(HostOp::Other, CalleeText, Receiver());
}

//===----------------------------------------------------------------------===//
// Driver.
//===----------------------------------------------------------------------===//

Input PyFile::run() {
  Input In;
  In.Path = Path;
  In.Kind = InputKind::Python;
  Toks = py::tokenize(Src, Lines, LexErrors, Start);
  for (size_t I = 0; I < LexErrors.size() && I < MaxLexDiags; ++I) {
    Diagnostic D;
    D.Code = std::string(toString(DiagCode::ParseError));
    D.Sev = Severity::Warning;
    D.Loc = {Path, LexErrors[I].Line, LexErrors[I].Col};
    D.Message = "Python tokenizer: " + LexErrors[I].Message;
    In.Diags.push_back(std::move(D));
  }
  if (LexErrors.size() > MaxLexDiags) {
    Diagnostic D;
    D.Code = std::string(toString(DiagCode::ParseError));
    D.Sev = Severity::Warning;
    D.Loc = {Path, LexErrors[MaxLexDiags].Line, LexErrors[MaxLexDiags].Col};
    D.Message = std::to_string(LexErrors.size() - MaxLexDiags) +
                " more Python tokenizer errors not shown";
    In.Diags.push_back(std::move(D));
  }
  buildLines();
  buildFunctions();
  buildImports();
  buildGroups();
  buildUnits(In);
  findExtensionObjects();
  if (const FuncDef *Entry = findEntry()) {
    // For a forward() method, the class's __init__ runs first.
    std::vector<const FuncDef *> Walk;
    if (!Entry->Class.empty())
      for (const FuncDef &F : Funcs)
        if (F.Name == "__init__" && F.Class == Entry->Class &&
            F.Depth == Entry->Depth)
          Walk.push_back(&F);
    Walk.push_back(Entry);
    for (const FuncDef *F : Walk) {
      WalkCtx Ctx;
      Ctx.Stack.push_back(F->Name);
      Ctx.BodyDepth = F->Depth + 1;
      for (const Stmt *S : bodyStatements(*F))
        walkStmt(*S, Ctx);
    }
  }
  In.HostOps = std::move(Ops);
  if (In.Units.empty()) {
    Diagnostic D;
    D.Code = std::string(toString(DiagCode::NoCuda));
    D.Sev = Severity::Note;
    D.Loc = {Path, 1, 1};
    D.Message = "no CUDA source found: no string literal contains "
                "__global__, __device__, '#include <cuda' or 'asm volatile', "
                "and none is passed to load_inline/compile_cuda_extension";
    In.Diags.push_back(std::move(D));
  }
  return In;
}

} // namespace

Input extractPython(const std::string &Path, const std::string &Text) {
  return PyFile(Path, Text).run();
}

} // namespace pkb
