//===- Mutation.cpp - Mutation operators over corpus kernels --------------===//

#include "Mutation.h"

#include <algorithm>
#include <cctype>
#include <regex>
#include <set>
#include <tuple>

namespace pkb::mutation {

const std::vector<OperatorInfo> &operators() {
  static const std::vector<OperatorInfo> Ops = {
      {Op::DropFence,
       "drop-fence",
       {"ORD-001", "ORD-002"},
       "remove one __threadfence_system() / fence.*.sys / "
       "cuda::atomic_thread_fence(..., system) statement"},
      {Op::WeakenScope,
       "weaken-scope",
       {"ORD-003", "RACE-003"},
       "one `.sys` -> `.gpu` in inline PTX, thread_scope_system -> "
       "thread_scope_device, atomic*_system -> atomic*, "
       "__threadfence_system -> __threadfence"},
      {Op::DropSyncthreads,
       "drop-syncthreads",
       {"BAR-003", "RACE-001", "RACE-002"},
       "remove one __syncthreads() statement"},
      {Op::DropModWorld,
       "drop-mod-world",
       {"PART-001"},
       "remove one `% world_size` (or `% W`, `% view.world_size`, ...) from "
       "a peer index"},
      {Op::DropTrailingBarrier,
       "drop-trailing-barrier",
       {"BAR-004", "HOST-001", "RACE-002"},
       "remove a kernel's exit barrier (last barrier call or spin-wait, with "
       "no loop after it) or the last host barrier() of solution()"},
      {Op::DropElemScale,
       "drop-elem-scale",
       {"SIG-001", "PART-002", "PART-003", "PART-004", "RACE-002", "BAR-002"},
       "drop one `* stride` / `k *` / `<< k` scaling in the address of a "
       "write or signal"},
      {Op::ShiftChunk,
       "shift-chunk",
       {"PART-002", "PART-003", "PART-004", "RACE-002"},
       "`x * chunk` -> `x * chunk + 1` in the address of a write"},
  };
  return Ops;
}

const OperatorInfo &info(Op K) { return operators()[static_cast<size_t>(K)]; }

std::optional<Op> parseOperator(const std::string &Name) {
  for (const OperatorInfo &I : operators())
    if (I.Name == Name)
      return I.Kind;
  return std::nullopt;
}

std::string Mutant::apply(const std::string &Text) const {
  std::string R = Text.substr(0, Offset);
  R += Replacement;
  R += Text.substr(Offset + Length);
  return R;
}

namespace {

//===----------------------------------------------------------------------===//
// A small C/CUDA lexer: identifiers, numbers, string and character literals,
// punctuators. Comments, whitespace and preprocessor lines are skipped.
//===----------------------------------------------------------------------===//

enum class TK { Ident, Number, String, Char, Punct };

struct Tok {
  TK Kind;
  size_t B, E; // byte range in the whole text
  std::string S;
};

bool isIdStart(char C) {
  return std::isalpha(static_cast<unsigned char>(C)) || C == '_';
}
bool isIdChar(char C) {
  return std::isalnum(static_cast<unsigned char>(C)) || C == '_';
}

std::vector<Tok> lex(const std::string &T, size_t Begin, size_t End) {
  static const char *Puncts3[] = {"<<=", ">>=", "...", "->*"};
  static const char *Puncts2[] = {
      "::", "->", "++", "--", "<<", ">>", "<=", ">=", "==", "!=",
      "&&", "||", "+=", "-=", "*=", "/=", "%=", "&=", "|=", "^="};
  std::vector<Tok> R;
  size_t I = Begin;
  bool LineStart = true; // only whitespace since the last newline
  while (I < End) {
    char C = T[I];
    if (C == '\n') {
      LineStart = true;
      ++I;
      continue;
    }
    if (std::isspace(static_cast<unsigned char>(C))) {
      ++I;
      continue;
    }
    if (C == '/' && I + 1 < End && T[I + 1] == '/') {
      while (I < End && T[I] != '\n')
        ++I;
      continue;
    }
    if (C == '/' && I + 1 < End && T[I + 1] == '*') {
      size_t J = T.find("*/", I + 2);
      I = (J == std::string::npos || J + 2 > End) ? End : J + 2;
      continue;
    }
    if (C == '#' && LineStart) { // preprocessor line, with continuations
      while (I < End && T[I] != '\n') {
        if (T[I] == '\\' && I + 1 < End && T[I + 1] == '\n')
          ++I;
        ++I;
      }
      continue;
    }
    LineStart = false;
    size_t S = I;
    if (C == '"' || C == '\'') {
      ++I;
      while (I < End && T[I] != C && T[I] != '\n') {
        if (T[I] == '\\')
          ++I;
        ++I;
      }
      if (I < End && T[I] == C)
        ++I;
      R.push_back({C == '"' ? TK::String : TK::Char, S, I, T.substr(S, I - S)});
      continue;
    }
    if (isIdStart(C)) {
      while (I < End && isIdChar(T[I]))
        ++I;
      R.push_back({TK::Ident, S, I, T.substr(S, I - S)});
      continue;
    }
    if (std::isdigit(static_cast<unsigned char>(C)) ||
        (C == '.' && I + 1 < End &&
         std::isdigit(static_cast<unsigned char>(T[I + 1])))) {
      while (I < End && (isIdChar(T[I]) || T[I] == '.' || T[I] == '\''))
        ++I;
      R.push_back({TK::Number, S, I, T.substr(S, I - S)});
      continue;
    }
    size_t Len = 1;
    for (const char *P : Puncts3)
      if (T.compare(I, 3, P) == 0 && I + 3 <= End)
        Len = 3;
    if (Len == 1)
      for (const char *P : Puncts2)
        if (T.compare(I, 2, P) == 0 && I + 2 <= End)
          Len = 2;
    I += Len;
    R.push_back({TK::Punct, S, I, T.substr(S, Len)});
  }
  return R;
}

const std::set<std::string> &worldNames() {
  static const std::set<std::string> N = {
      "world_size", "W",    "world", "nranks", "num_ranks",
      "n_ranks",    "npes", "nproc", "ws",     "world_sz"};
  return N;
}

const std::set<std::string> &fixedChunkNames() {
  static const std::set<std::string> N = {
      "C", "chunk", "chunk_size", "chunk_elems", "count", "m", "per_rank"};
  return N;
}

bool isKeywordHeader(const std::string &S) {
  return S == "if" || S == "for" || S == "while" || S == "switch";
}

/// Mutant finder over one CUDA region [Begin, End) of Text.
class Finder {
public:
  Finder(const std::string &Text, size_t Begin, size_t End,
         const std::vector<size_t> &LineStarts, std::vector<Mutant> &Out)
      : T(Text), LineStarts(LineStarts), Out(Out), K(lex(Text, Begin, End)) {
    matchBrackets();
    findDeviceBodies();
  }

  void run(Op O) {
    switch (O) {
    case Op::DropFence:
      dropFence();
      break;
    case Op::WeakenScope:
      weakenScope();
      break;
    case Op::DropSyncthreads:
      dropSyncthreads();
      break;
    case Op::DropModWorld:
      dropModWorld();
      break;
    case Op::DropTrailingBarrier:
      dropTrailingBarrier();
      break;
    case Op::DropElemScale:
      scaleSites(false);
      break;
    case Op::ShiftChunk:
      scaleSites(true);
      break;
    }
  }

private:
  const std::string &T;
  const std::vector<size_t> &LineStarts;
  std::vector<Mutant> &Out;
  std::vector<Tok> K;
  std::vector<long> Match;    // index of the matching bracket, or -1
  std::vector<bool> InDevice; // inside a __global__/__device__ body
  std::vector<std::pair<size_t, size_t>> Kernels; // __global__ { }

  bool is(size_t I, const char *S) const { return I < K.size() && K[I].S == S; }
  bool isIdent(size_t I) const {
    return I < K.size() && K[I].Kind == TK::Ident;
  }

  void matchBrackets() {
    Match.assign(K.size(), -1);
    std::vector<size_t> Stack;
    for (size_t I = 0; I < K.size(); ++I) {
      if (K[I].Kind != TK::Punct)
        continue;
      const std::string &S = K[I].S;
      if (S == "(" || S == "[" || S == "{") {
        Stack.push_back(I);
      } else if (S == ")" || S == "]" || S == "}") {
        char Open = S == ")" ? '(' : S == "]" ? '[' : '{';
        while (!Stack.empty() && K[Stack.back()].S[0] != Open)
          Stack.pop_back(); // unbalanced: drop
        if (!Stack.empty()) {
          Match[I] = static_cast<long>(Stack.back());
          Match[Stack.back()] = static_cast<long>(I);
          Stack.pop_back();
        }
      }
    }
  }

  void findDeviceBodies() {
    InDevice.assign(K.size(), false);
    for (size_t I = 0; I < K.size(); ++I) {
      if (!(is(I, "__global__") || is(I, "__device__")))
        continue;
      size_t J = I + 1;
      for (; J < K.size(); ++J) {
        if (is(J, "(") || is(J, "[")) {
          if (Match[J] < 0)
            break;
          J = static_cast<size_t>(Match[J]);
          continue;
        }
        if (is(J, "{") || is(J, ";") || is(J, "="))
          break;
      }
      if (J >= K.size() || !is(J, "{") || Match[J] < 0)
        continue;
      size_t Close = static_cast<size_t>(Match[J]);
      for (size_t X = J; X <= Close; ++X)
        InDevice[X] = true;
      if (is(I, "__global__"))
        Kernels.push_back({J, Close});
      I = J; // nested qualifiers are inside the body anyway
    }
  }

  std::pair<unsigned, unsigned> lineCol(size_t Off) const {
    auto It = std::upper_bound(LineStarts.begin(), LineStarts.end(), Off);
    size_t L = static_cast<size_t>(It - LineStarts.begin()); // 1-based
    return {static_cast<unsigned>(L),
            static_cast<unsigned>(Off - LineStarts[L - 1] + 1)};
  }

  void emit(Op O, size_t Off, size_t Len, std::string Repl, size_t SiteOff) {
    Mutant M;
    M.Kind = O;
    M.Offset = Off;
    M.Length = Len;
    M.Replacement = std::move(Repl);
    std::tie(M.Line, M.Col) = lineCol(SiteOff);
    M.Original = T.substr(Off, Len);
    Out.push_back(std::move(M));
  }

  /// Index of the `;` ending the statement that starts at \p I (brackets
  /// skipped), or K.size().
  size_t stmtEnd(size_t I) const {
    for (size_t J = I; J < K.size(); ++J) {
      if ((is(J, "(") || is(J, "[") || is(J, "{")) && Match[J] > 0) {
        J = static_cast<size_t>(Match[J]);
        continue;
      }
      if (is(J, ";"))
        return J;
      if (is(J, "}"))
        return K.size();
    }
    return K.size();
  }

  /// Removes tokens [First, Last] as a statement: the newlines inside are
  /// kept; a statement that is the sole body of if/for/while/else becomes `;`.
  void removeStatement(Op O, size_t First, size_t Last) {
    size_t B = K[First].B, E = K[Last].E;
    std::string Repl;
    if (First > 0 && (is(First - 1, ")") || is(First - 1, "else")))
      Repl = ";";
    for (size_t I = B; I < E; ++I)
      if (T[I] == '\n')
        Repl += '\n';
    emit(O, B, E - B, Repl, B);
  }

  /// The string-literal tokens of an `asm [volatile] (` statement at \p I,
  /// or empty.
  std::vector<size_t> asmStrings(size_t I) const {
    std::vector<size_t> R;
    if (!(is(I, "asm") || is(I, "__asm__")))
      return R;
    size_t J = I + 1;
    while (is(J, "volatile") || is(J, "__volatile__"))
      ++J;
    if (!is(J, "("))
      return R;
    for (++J; J < K.size() && K[J].Kind == TK::String; ++J)
      R.push_back(J);
    return R;
  }

  std::string asmTemplate(const std::vector<size_t> &Strs) const {
    std::string S;
    for (size_t I : Strs)
      S += K[I].S.substr(1, K[I].S.size() - 2);
    return S;
  }

  //===--------------------------------------------------------------------===//

  void dropFence() {
    static const std::regex FenceRe(R"(fence(\.[A-Za-z_]+)*\.sys\s*;?)");
    for (size_t I = 0; I < K.size(); ++I) {
      if (!InDevice[I] || !isIdent(I))
        continue;
      if (is(I, "__threadfence_system") && is(I + 1, "(") && is(I + 2, ")") &&
          is(I + 3, ";")) {
        removeStatement(Op::DropFence, I, I + 3);
        continue;
      }
      std::vector<size_t> Strs = asmStrings(I);
      if (!Strs.empty()) {
        std::string Tpl = asmTemplate(Strs);
        std::smatch M;
        if (!std::regex_search(Tpl, M, FenceRe))
          continue;
        std::string Rest = M.prefix().str() + M.suffix().str();
        bool OnlyFence = std::all_of(Rest.begin(), Rest.end(), [](char C) {
          return std::isspace(static_cast<unsigned char>(C));
        });
        if (OnlyFence) {
          size_t E = stmtEnd(I);
          if (E < K.size())
            removeStatement(Op::DropFence, I, E);
        } else if (Strs.size() == 1) {
          size_t Off = K[Strs[0]].B + 1 + static_cast<size_t>(M.position(0));
          emit(Op::DropFence, Off, static_cast<size_t>(M.length(0)), "", Off);
        }
        continue;
      }
      if (is(I, "atomic_thread_fence") && is(I + 1, "(") && Match[I + 1] > 0) {
        size_t Close = static_cast<size_t>(Match[I + 1]);
        bool Narrow = false;
        for (size_t J = I + 2; J < Close; ++J)
          if (K[J].Kind == TK::Ident && K[J].S.rfind("thread_scope_", 0) == 0 &&
              K[J].S != "thread_scope_system")
            Narrow = true;
        if (Narrow || !is(Close + 1, ";"))
          continue;
        size_t First = I;
        while (First >= 2 && is(First - 1, "::") && isIdent(First - 2))
          First -= 2;
        if (First >= 1 && is(First - 1, "::"))
          --First;
        removeStatement(Op::DropFence, First, Close + 1);
      }
    }
  }

  void weakenScope() {
    static const std::regex AtomicSys(R"(^atomic\w*_system$)");
    for (size_t I = 0; I < K.size(); ++I) {
      if (!isIdent(I))
        continue;
      const std::string &S = K[I].S;
      if (S == "thread_scope_system") {
        emit(Op::WeakenScope, K[I].B, S.size(), "thread_scope_device", K[I].B);
      } else if (S == "__threadfence_system" && is(I + 1, "(")) {
        emit(Op::WeakenScope, K[I].B, S.size(), "__threadfence", K[I].B);
      } else if (is(I + 1, "(") && std::regex_match(S, AtomicSys)) {
        emit(Op::WeakenScope, K[I].B, S.size(),
             S.substr(0, S.size() - std::string("_system").size()), K[I].B);
      } else {
        for (size_t J : asmStrings(I)) {
          const std::string &Str = K[J].S;
          for (size_t P = Str.find(".sys"); P != std::string::npos;
               P = Str.find(".sys", P + 1)) {
            char Next = P + 4 < Str.size() ? Str[P + 4] : '"';
            if (isIdChar(Next))
              continue;
            emit(Op::WeakenScope, K[J].B + P, 4, ".gpu", K[J].B + P);
          }
        }
      }
    }
  }

  void dropSyncthreads() {
    for (size_t I = 0; I < K.size(); ++I)
      if (InDevice[I] && is(I, "__syncthreads") && is(I + 1, "(") &&
          is(I + 2, ")") && is(I + 3, ";"))
        removeStatement(Op::DropSyncthreads, I, I + 3);
  }

  /// End index of a world-size expression starting at \p I (`W`,
  /// `view.world_size`, `ctx->world_size`), or 0 if there is none.
  size_t worldExprEnd(size_t I) const {
    if (!isIdent(I))
      return 0;
    size_t J = I;
    while ((is(J + 1, ".") || is(J + 1, "->")) && isIdent(J + 2))
      J += 2;
    if (is(J + 1, "(") || is(J + 1, "[") || !worldNames().count(K[J].S))
      return 0;
    return J;
  }

  /// Index of the nearest unmatched opener before \p I, skipping balanced
  /// groups, or -1 (also at `;`, `{`, `}`).
  long enclosingOpener(size_t I) const {
    for (long J = static_cast<long>(I) - 1; J >= 0; --J) {
      size_t U = static_cast<size_t>(J);
      if ((is(U, ")") || is(U, "]")) && Match[U] >= 0) {
        J = Match[U];
        continue;
      }
      if (is(U, "(") || is(U, "["))
        return J;
      if (is(U, ";") || is(U, "{") || is(U, "}"))
        return -1;
    }
    return -1;
  }

  bool usedAsSubscript(const std::string &Name) const {
    for (size_t I = 1; I + 1 < K.size(); ++I)
      if (K[I].S == Name && K[I].Kind == TK::Ident && is(I - 1, "[") &&
          is(I + 1, "]"))
        return true;
    return false;
  }

  /// True if the `%` at \p I reduces a peer index: it is (through grouping
  /// parentheses) inside a subscript, or it initializes a variable that is
  /// used as a whole subscript somewhere.
  bool isPeerModulo(size_t I) const {
    long Op = enclosingOpener(I);
    while (Op >= 0 && is(static_cast<size_t>(Op), "(")) {
      size_t U = static_cast<size_t>(Op);
      if (U > 0 && (K[U - 1].Kind == TK::Ident || is(U - 1, ">") ||
                    is(U - 1, ")") || is(U - 1, "]")))
        break; // a call or a cast's operand: stop
      Op = enclosingOpener(U);
    }
    if (Op >= 0 && is(static_cast<size_t>(Op), "["))
      return true;
    for (long J = static_cast<long>(I) - 1; J >= 0; --J) {
      size_t U = static_cast<size_t>(J);
      if ((is(U, ")") || is(U, "]")) && Match[U] >= 0) {
        J = Match[U];
        continue;
      }
      if (is(U, "="))
        return U > 0 && isIdent(U - 1) && usedAsSubscript(K[U - 1].S);
      if (K[U].Kind == TK::Punct &&
          (K[U].S == ";" || K[U].S == "{" || K[U].S == "}" || K[U].S == "," ||
           K[U].S == "(" || K[U].S == "["))
        return false;
    }
    return false;
  }

  void dropModWorld() {
    for (size_t I = 1; I < K.size(); ++I) {
      if (!InDevice[I] || !is(I, "%"))
        continue;
      size_t E = worldExprEnd(I + 1);
      if (!E || !isPeerModulo(I))
        continue;
      emit(Op::DropModWorld, K[I - 1].E, K[E].E - K[I - 1].E, "", K[I].B);
    }
  }

  /// A barrier-like element of a kernel body: [First, Last] tokens.
  struct Element {
    size_t First, Last;
  };

  std::vector<Element> barrierElements(size_t Open, size_t Close) const {
    static const std::set<std::string> Excluded = {
        "__syncthreads", "__syncwarp", "__syncthreads_or", "__syncthreads_and",
        "__syncthreads_count"};
    std::vector<Element> R;
    for (size_t I = Open + 1; I < Close; ++I) {
      if (!isIdent(I))
        continue;
      bool StmtStart = is(I - 1, ";") || is(I - 1, "{") || is(I - 1, "}") ||
                       is(I - 1, ")") || is(I - 1, "else");
      if (is(I, "do") && is(I + 1, "{") && Match[I + 1] > 0) {
        size_t W = static_cast<size_t>(Match[I + 1]) + 1;
        if (is(W, "while") && is(W + 1, "(") && Match[W + 1] > 0 &&
            is(static_cast<size_t>(Match[W + 1]) + 1, ";"))
          R.push_back({I, static_cast<size_t>(Match[W + 1]) + 1});
        continue;
      }
      if (is(I, "while") && is(I + 1, "(") && Match[I + 1] > 0) {
        if (is(I - 1, "}") && Match[I - 1] > 0 &&
            is(static_cast<size_t>(Match[I - 1]) - 1, "do"))
          continue; // tail of a do-while
        size_t C = static_cast<size_t>(Match[I + 1]);
        if (is(C + 1, ";"))
          R.push_back({I, C + 1});
        else if (is(C + 1, "{") && is(C + 2, "}"))
          R.push_back({I, C + 2});
        continue;
      }
      std::string Lower = K[I].S;
      for (char &C : Lower)
        C = static_cast<char>(std::tolower(static_cast<unsigned char>(C)));
      if (StmtStart && is(I + 1, "(") && Match[I + 1] > 0 &&
          is(static_cast<size_t>(Match[I + 1]) + 1, ";") &&
          (Lower.find("barrier") != std::string::npos ||
           Lower.find("sync") != std::string::npos) &&
          !Excluded.count(K[I].S))
        R.push_back({I, static_cast<size_t>(Match[I + 1]) + 1});
    }
    return R;
  }

  void dropTrailingBarrier() {
    for (auto [Open, Close] : Kernels) {
      std::vector<Element> Els = barrierElements(Open, Close);
      if (Els.empty())
        continue;
      Element E = Els.back();
      int Depth = 0; // brace depth of E relative to the body
      for (size_t I = Open + 1; I < E.First; ++I)
        Depth += is(I, "{") ? 1 : is(I, "}") ? -1 : 0;
      size_t End = E.Last; // end of the top-level statement holding E
      if (Depth > 0) {
        for (size_t I = E.Last + 1; I < Close; ++I) {
          if (is(I, "{"))
            ++Depth;
          if (is(I, "}") && --Depth == 0 && !is(I + 1, "else")) {
            End = I;
            break;
          }
        }
      }
      bool LoopAfter = false;
      for (size_t I = End + 1; I < Close; ++I)
        LoopAfter |= is(I, "for") || is(I, "while") || is(I, "do");
      if (!LoopAfter)
        removeStatement(Op::DropTrailingBarrier, E.First, E.Last);
    }
  }

  /// Token ranges [B, E) holding the address of a write or a signal.
  std::vector<std::pair<size_t, size_t>> writeRanges() const {
    static const std::set<std::string> AssignOps = {
        "=", "+=", "-=", "*=", "/=", "%=", "&=", "|=", "^=", "<<=", ">>="};
    static const std::regex StoreCall(
        R"(^(st_\w*|put\w*|signal\w*|store\w*|atomic\w*|red_\w*|multimem_st\w*)$)");
    static const std::set<std::string> AtomicMembers = {
        "store",
        "exchange",
        "fetch_add",
        "fetch_sub",
        "fetch_or",
        "fetch_and",
        "fetch_max",
        "fetch_min",
        "compare_exchange_strong",
        "compare_exchange_weak"};
    static const std::regex StoreAsm(
        R"(^\s*(st|red|atom|multimem\.st|multimem\.red)\.)");
    std::vector<std::pair<size_t, size_t>> R;
    for (size_t I = 1; I < K.size(); ++I) {
      if (!InDevice[I])
        continue;
      if (K[I].Kind == TK::Punct && AssignOps.count(K[I].S)) {
        // Walk back over the left-hand side.
        size_t B = I;
        bool Address = false, Const = false;
        for (long J = static_cast<long>(I) - 1; J >= 0; --J) {
          size_t U = static_cast<size_t>(J);
          if ((is(U, ")") || is(U, "]")) && Match[U] >= 0) {
            size_t O = static_cast<size_t>(Match[U]);
            if (is(U, ")") && O > 0 && isKeywordHeader(K[O - 1].S))
              break;
            Address = true;
            B = O;
            J = Match[U];
            continue;
          }
          const std::string &S = K[U].S;
          if (K[U].Kind == TK::Punct &&
              (S == ";" || S == "{" || S == "}" || S == "," || S == "(" ||
               S == "[" || S == "?" || S == ":" || AssignOps.count(S)))
            break;
          if (S == "else" || S == "return")
            break;
          Const |= S == "const";
          B = U;
        }
        if (B < I && is(B, "*"))
          Address = true; // *(p + i) = v
        if (Address) {
          R.push_back({B, I});
        } else if (K[I].S == "=" && !Const && I >= 2 && isIdent(I - 1) &&
                   (is(I - 2, "*") ||
                    (is(I - 2, "__restrict__") && is(I - 3, "*")))) {
          // Non-const pointer declaration: its initializer is written through.
          size_t E = I + 1;
          for (; E < K.size(); ++E) {
            if ((is(E, "(") || is(E, "[") || is(E, "{")) && Match[E] > 0) {
              E = static_cast<size_t>(Match[E]);
              continue;
            }
            if (is(E, ";") || is(E, ","))
              break;
          }
          R.push_back({I + 1, E});
        }
        continue;
      }
      if (!is(I, "(") || Match[I] < 0)
        continue;
      size_t Close = static_cast<size_t>(Match[I]);
      auto FirstArg = [&](size_t Open) {
        size_t E = Open + 1;
        for (; E < Close; ++E) {
          if ((is(E, "(") || is(E, "[") || is(E, "{")) && Match[E] > 0) {
            E = static_cast<size_t>(Match[E]);
            continue;
          }
          if (is(E, ","))
            break;
        }
        return std::make_pair(Open + 1, E);
      };
      bool Member = I >= 2 && (is(I - 2, ".") || is(I - 2, "->"));
      if (isIdent(I - 1) && !Member &&
          std::regex_match(K[I - 1].S, StoreCall)) {
        R.push_back(FirstArg(I));
      } else if ((isIdent(I - 1) || is(I - 1, ">")) && is(Close + 1, ".") &&
                 isIdent(Close + 2) && AtomicMembers.count(K[Close + 2].S)) {
        R.push_back({I + 1, Close}); // atomic_ref(x).store(...)
      } else if (K[I - 1].S == "asm" || K[I - 1].S == "volatile" ||
                 K[I - 1].S == "__volatile__") {
        size_t A = I - 1;
        while (A > 0 && (is(A, "volatile") || is(A, "__volatile__")))
          --A;
        std::vector<size_t> Strs = asmStrings(A);
        if (Strs.empty() || !std::regex_search(asmTemplate(Strs), StoreAsm))
          continue;
        for (size_t J = Strs.back() + 1; J + 1 < Close; ++J)
          if (K[J].S == "\"l\"" && is(J + 1, "(") && Match[J + 1] > 0) {
            R.push_back({J + 2, static_cast<size_t>(Match[J + 1])});
            break;
          }
      }
    }
    return R;
  }

  /// End token of the operand that starts at \p I (identifier with member
  /// chain, call and subscripts; number; parenthesized group; cast), or 0.
  size_t operandEnd(size_t I, size_t Limit) const {
    size_t J;
    if (I >= Limit)
      return 0;
    if (K[I].Kind == TK::Number) {
      J = I;
    } else if (isIdent(I)) {
      J = I;
      while ((is(J + 1, ".") || is(J + 1, "->") || is(J + 1, "::")) &&
             isIdent(J + 2))
        J += 2;
    } else if (is(I, "(") && Match[I] > 0) {
      J = static_cast<size_t>(Match[I]);
      if (J + 1 < Limit && (isIdent(J + 1) || K[J + 1].Kind == TK::Number ||
                            is(J + 1, "("))) // a cast: (int64_t)x
        return operandEnd(J + 1, Limit);
    } else {
      return 0;
    }
    while (J + 1 < Limit && (is(J + 1, "(") || is(J + 1, "[")) &&
           Match[J + 1] > 0)
      J = static_cast<size_t>(Match[J + 1]);
    return J < Limit ? J : 0;
  }

  void chunkNames(std::set<std::string> &Names) const {
    Names = fixedChunkNames();
    for (size_t I = 1; I + 1 < K.size(); ++I) {
      if (!is(I, "=") || !isIdent(I - 1))
        continue;
      size_t E = stmtEnd(I);
      for (size_t J = I + 1; J + 1 < E && J + 1 < K.size(); ++J)
        if (is(J, "/") && worldExprEnd(J + 1))
          Names.insert(K[I - 1].S);
    }
  }

  void scaleSites(bool Shift) {
    std::set<std::string> Chunks;
    chunkNames(Chunks);
    std::set<size_t> Seen; // product operator tokens already handled
    for (auto [B, E] : writeRanges()) {
      for (size_t P = B + 1; P + 1 < E; ++P) {
        if (Seen.count(P))
          continue;
        bool Mul = is(P, "*"), Shl = is(P, "<<");
        if (!Mul && !Shl)
          continue;
        const Tok &L = K[P - 1];
        bool LeftOperand = L.Kind == TK::Ident || L.Kind == TK::Number ||
                           L.S == ")" || L.S == "]";
        if (!LeftOperand || is(P + 1, ">") || is(P + 1, ")") ||
            is(P + 1, ",") || is(P + 1, "*"))
          continue;
        // A pointer declarator, not a product: `T *D[1] = {...}` at the
        // start of a statement, `const T *p = ...` after a specifier.
        static const std::set<std::string> Specifiers = {
            "const", "volatile", "static",   "unsigned",  "signed",    "struct",
            "auto",  "extern",   "register", "constexpr", "__shared__"};
        if (P - 1 == B || (P >= 2 && Specifiers.count(K[P - 2].S)))
          continue;
        size_t RE = operandEnd(P + 1, E);
        if (!RE)
          continue;
        // Only products that are additive terms (not factors of a larger
        // product), so that dropping or extending them is one change.
        if (is(RE + 1, "*") || is(RE + 1, "/") || is(RE + 1, "%"))
          continue;
        Seen.insert(P);
        bool LeftNum = L.Kind == TK::Number &&
                       !(P >= 2 && (is(P - 2, ".") || is(P - 2, "->") ||
                                    is(P - 2, ")") || is(P - 2, "]")));
        bool RightNum = RE == P + 1 && K[P + 1].Kind == TK::Number;
        if (!Shift) {
          if (Shl) {
            if (RightNum)
              emit(Op::DropElemScale, L.E, K[RE].E - L.E, "", K[P].B);
          } else if (LeftNum && !RightNum) {
            emit(Op::DropElemScale, L.B, K[P + 1].B - L.B, "", L.B);
          } else if (!(LeftNum && RightNum)) {
            emit(Op::DropElemScale, L.E, K[RE].E - L.E, "", K[P].B);
          }
          continue;
        }
        if (!Mul)
          continue;
        bool RightChunk = RE == P + 1 && Chunks.count(K[P + 1].S);
        bool LeftChunk = L.Kind == TK::Ident && Chunks.count(L.S) &&
                         !(P >= 2 && (is(P - 2, ".") || is(P - 2, "->")));
        if (RightChunk || LeftChunk)
          emit(Op::ShiftChunk, K[RE].E, 0, " + 1", K[P].B);
      }
    }
  }
};

/// Byte ranges of the CUDA text of a .py file: the contents of
/// triple-quoted strings assigned to a name (CUDA_SRC = r'''...''').
std::vector<std::pair<size_t, size_t>> pythonCudaRegions(const std::string &T) {
  std::vector<std::pair<size_t, size_t>> R;
  static const std::regex Open(R"(\b\w+\s*=\s*[rRbBuU]{0,2}('''|"""))");
  auto It = std::sregex_iterator(T.begin(), T.end(), Open);
  size_t Min = 0;
  for (; It != std::sregex_iterator(); ++It) {
    size_t B = static_cast<size_t>(It->position(0) + It->length(0));
    if (static_cast<size_t>(It->position(0)) < Min)
      continue;
    size_t E = T.find((*It)[1].str(), B);
    if (E == std::string::npos)
      break;
    R.push_back({B, E});
    Min = E + 3;
  }
  return R;
}

/// The last `X.barrier(...)` / `barrier(...)` statement of `def solution`.
void pythonHostBarrier(const std::string &T,
                       const std::vector<size_t> &LineStarts,
                       std::vector<Mutant> &Out) {
  static const std::regex Def(R"(^([ \t]*)def\s+solution\s*\()");
  static const std::regex Barrier(
      R"(^([ \t]+)((?:[A-Za-z_][\w]*\.)*barrier\s*\(.*\))[ \t]*$)");
  auto Line = [&](size_t L) { // 0-based
    size_t B = LineStarts[L];
    size_t E = L + 1 < LineStarts.size() ? LineStarts[L + 1] - 1 : T.size();
    return T.substr(B, E - B);
  };
  long DefIndent = -1;
  std::optional<size_t> Last;
  size_t LastIndent = 0, LastLen = 0;
  for (size_t L = 0; L < LineStarts.size(); ++L) {
    std::string S = Line(L);
    std::smatch M;
    size_t Indent = S.find_first_not_of(" \t");
    if (DefIndent < 0) {
      if (std::regex_search(S, M, Def))
        DefIndent = static_cast<long>(M[1].length());
      continue;
    }
    if (Indent == std::string::npos || S[Indent] == '#')
      continue;
    if (static_cast<long>(Indent) <= DefIndent)
      break; // end of solution()
    if (std::regex_match(S, M, Barrier)) {
      Last = L;
      LastIndent = static_cast<size_t>(M[1].length());
      LastLen = static_cast<size_t>(M[2].length());
    }
  }
  if (!Last)
    return;
  Mutant M;
  M.Kind = Op::DropTrailingBarrier;
  M.Offset = LineStarts[*Last] + LastIndent;
  M.Length = LastLen;
  M.Replacement = "pass";
  M.Line = static_cast<unsigned>(*Last + 1);
  M.Col = static_cast<unsigned>(LastIndent + 1);
  M.Original = T.substr(M.Offset, M.Length);
  Out.push_back(std::move(M));
}

} // namespace

std::vector<Mutant> findMutants(const std::string &Text, bool Python,
                                const std::vector<Op> &Ops) {
  std::vector<size_t> LineStarts = {0};
  for (size_t I = 0; I < Text.size(); ++I)
    if (Text[I] == '\n')
      LineStarts.push_back(I + 1);
  std::vector<std::pair<size_t, size_t>> Regions;
  if (Python)
    Regions = pythonCudaRegions(Text);
  else
    Regions.push_back({0, Text.size()});
  std::vector<Mutant> Out;
  for (auto [B, E] : Regions) {
    Finder F(Text, B, E, LineStarts, Out);
    for (Op O : Ops)
      F.run(O);
  }
  if (Python &&
      std::find(Ops.begin(), Ops.end(), Op::DropTrailingBarrier) != Ops.end())
    pythonHostBarrier(Text, LineStarts, Out);
  std::stable_sort(
      Out.begin(), Out.end(), [](const Mutant &A, const Mutant &B) {
        return std::tie(A.Offset, A.Kind) < std::tie(B.Offset, B.Kind);
      });
  return Out;
}

std::vector<Mutant> findMutants(const std::string &Text, bool Python) {
  std::vector<Op> All;
  for (const OperatorInfo &I : operators())
    All.push_back(I.Kind);
  return findMutants(Text, Python, All);
}

} // namespace pkb::mutation
