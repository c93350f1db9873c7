//===- PythonLexer.cpp - A Python 3 tokenizer -----------------------------===//
//
// See PythonLexer.h. Section references are to "Lexical analysis" of the
// Python 3 Language Reference; behaviour for PEP 701 f-strings follows
// CPython 3.12+.
//
//===----------------------------------------------------------------------===//

#include "PythonLexer.h"

#include <algorithm>
#include <cctype>

namespace pkb::py {

//===----------------------------------------------------------------------===//
// LineTable.
//===----------------------------------------------------------------------===//

LineTable::LineTable(const std::string &Text, size_t Start) {
  Starts.push_back(Start);
  for (size_t I = Start; I < Text.size(); ++I) {
    if (Text[I] == '\n') {
      Starts.push_back(I + 1);
    } else if (Text[I] == '\r') {
      if (I + 1 < Text.size() && Text[I + 1] == '\n')
        ++I;
      Starts.push_back(I + 1);
    }
  }
}

std::pair<unsigned, unsigned> LineTable::loc(size_t Offset) const {
  if (Offset < Starts.front())
    return {1, 1};
  auto It = std::upper_bound(Starts.begin(), Starts.end(), Offset);
  size_t Idx = static_cast<size_t>(It - Starts.begin()) - 1;
  return {static_cast<unsigned>(Idx + 1),
          static_cast<unsigned>(Offset - Starts[Idx] + 1)};
}

//===----------------------------------------------------------------------===//
// Character classes.
//===----------------------------------------------------------------------===//

namespace {

/// Identifier characters (2.3 "Identifiers and keywords"). Any non-ASCII
/// byte is accepted as part of an identifier: the tokenizer works on UTF-8
/// bytes and does not check Unicode XID classes.
bool isIdStart(unsigned char C) {
  return std::isalpha(C) || C == '_' || C >= 0x80;
}
bool isIdChar(unsigned char C) { return isIdStart(C) || std::isdigit(C); }

bool isNewlineChar(char C) { return C == '\n' || C == '\r'; }

/// Valid string prefixes (2.4.1 "String and Bytes literals", 2.4.3
/// "f-strings", and PEP 750 t-strings), case-insensitive.
bool prefixFlags(std::string_view P, bool &Raw, bool &Bytes, bool &Format) {
  Raw = Bytes = Format = false;
  if (P.size() > 2)
    return false;
  bool SawU = false;
  for (char C : P) {
    switch (std::tolower(static_cast<unsigned char>(C))) {
    case 'r':
      if (Raw)
        return false;
      Raw = true;
      break;
    case 'b':
      if (Bytes)
        return false;
      Bytes = true;
      break;
    case 'f':
    case 't':
      if (Format)
        return false;
      Format = true;
      break;
    case 'u':
      SawU = true;
      break;
    default:
      return false;
    }
  }
  if (SawU && P.size() != 1)
    return false; // "u" combines with nothing
  if (Bytes && Format)
    return false;
  return true;
}

/// Operators and delimiters (2.5, 2.6), longest first.
size_t matchOperator(const std::string &S, size_t I) {
  static constexpr std::string_view Three[] = {
      "**=", "//=", ">>=", "<<=", "..."};
  static constexpr std::string_view Two[] = {
      "**", "//", ">>", "<<", "<=", ">=", "==", "!=", "->", "+=",
      "-=", "*=", "/=", "%=", "&=", "|=", "^=", "@=", ":="};
  std::string_view Rest = std::string_view(S).substr(I);
  for (std::string_view O : Three)
    if (Rest.substr(0, 3) == O)
      return 3;
  for (std::string_view O : Two)
    if (Rest.substr(0, 2) == O)
      return 2;
  if (std::string_view("+-*/%@&|^~<>()[]{},:.;=!").find(S[I]) !=
      std::string_view::npos)
    return 1;
  return 0;
}

class Lexer {
public:
  Lexer(const std::string &S, const LineTable &L, std::vector<LexError> &E)
      : S(S), N(S.size()), Lines(L), Errors(E) {}

  std::vector<Token> run(size_t Start);

  /// Scans a string literal whose opening quote is at \p Q; fills the body,
  /// end and f-string fields of \p T.
  void scanString(size_t Q, Token &T);

private:
  size_t scanField(size_t I, char Quote, bool Triple);
  size_t scanFormatSpec(size_t J, char Quote, bool Triple);
  void error(size_t Off, std::string Msg) {
    auto [L, C] = Lines.loc(Off);
    Errors.push_back({L, C, std::move(Msg)});
  }
  Token make(TokKind K, size_t B, size_t E) {
    Token T;
    T.Kind = K;
    T.Begin = B;
    T.End = E;
    auto [L, C] = Lines.loc(B);
    T.Line = L;
    T.Col = C;
    return T;
  }
  /// Start of a string prefix ending just before the quote at \p Q, or \p Q
  /// if the letters before it are not a prefix; \p Lower bounds the search.
  size_t prefixStart(size_t Q, size_t Lower) const {
    size_t K = Q;
    while (K > Lower && Q - K < 2 &&
           std::isalpha(static_cast<unsigned char>(S[K - 1])))
      --K;
    while (K < Q) {
      bool R, B, F;
      bool Bounded = K == 0 || !isIdChar(static_cast<unsigned char>(S[K - 1]));
      if (Bounded && prefixFlags(std::string_view(S).substr(K, Q - K), R, B, F))
        return K;
      ++K;
    }
    return Q;
  }

  static constexpr unsigned MaxNesting = 200;
  unsigned Nesting = 0; ///< Replacement fields being scanned.
  const std::string &S;
  const size_t N;
  const LineTable &Lines;
  std::vector<LexError> &Errors;
};

void Lexer::scanString(size_t Q, Token &T) {
  char Quote = S[Q];
  bool Triple = Q + 2 < N && S[Q + 1] == Quote && S[Q + 2] == Quote;
  T.Kind = TokKind::String;
  T.Triple = Triple;
  size_t I = Q + (Triple ? 3 : 1);
  T.BodyBegin = I;
  while (true) {
    if (I >= N) {
      T.BodyEnd = T.End = N;
      T.Unterminated = true;
      error(T.Begin, Triple ? "unterminated triple-quoted string literal"
                            : "unterminated string literal");
      return;
    }
    char C = S[I];
    if (C == '\\') {
      if (I + 2 < N && S[I + 1] == '\r' && S[I + 2] == '\n')
        I += 3;
      else
        I += std::min<size_t>(2, N - I);
      continue;
    }
    if (isNewlineChar(C) && !Triple) {
      T.BodyEnd = T.End = I;
      T.Unterminated = true;
      error(T.Begin, "unterminated string literal");
      return;
    }
    if (T.Format && C == '{') {
      if (I + 1 < N && S[I + 1] == '{') {
        I += 2;
        continue;
      }
      size_t E = scanField(I, Quote, Triple);
      T.Fields.push_back({I, E});
      I = E;
      continue;
    }
    if (T.Format && C == '}') {
      I += (I + 1 < N && S[I + 1] == '}') ? 2 : 1;
      continue;
    }
    if (C == Quote &&
        (!Triple || (I + 2 < N && S[I + 1] == Quote && S[I + 2] == Quote))) {
      T.BodyEnd = I;
      T.End = I + (Triple ? 3 : 1);
      return;
    }
    ++I;
  }
}

/// A replacement field `{expr!c:spec}` starting at '{' (2.4.3); returns one
/// past its '}' (or where it was cut off). Nested strings may reuse the
/// enclosing quote (PEP 701).
size_t Lexer::scanField(size_t I, char Quote, bool Triple) {
  // Nested fields and strings recurse; CPython also bounds their depth.
  if (Nesting >= MaxNesting) {
    error(I, "f-string nesting too deep");
    return I + 1;
  }
  struct Enter {
    unsigned &Count;
    explicit Enter(unsigned &C) : Count(C) { ++Count; }
    ~Enter() { --Count; }
  } Guard(Nesting);
  size_t J = I + 1;
  int Depth = 0;
  while (J < N) {
    char C = S[J];
    if (isNewlineChar(C) && !Triple && Depth == 0)
      return J;
    if (C == '(' || C == '[' || C == '{') {
      ++Depth;
    } else if (C == ')' || C == ']') {
      if (Depth > 0)
        --Depth;
    } else if (C == '}') {
      if (Depth == 0)
        return J + 1;
      --Depth;
    } else if (C == '\'' || C == '"') {
      size_t P = prefixStart(J, I + 1);
      Token Inner;
      Inner.Begin = P;
      bool R, B, F;
      prefixFlags(std::string_view(S).substr(P, J - P), R, B, F);
      Inner.Raw = R;
      Inner.Bytes = B;
      Inner.Format = F;
      scanString(J, Inner);
      J = Inner.End;
      if (Inner.Unterminated)
        return J;
      continue;
    } else if (C == '#') {
      while (J < N && !isNewlineChar(S[J]))
        ++J;
      continue;
    } else if (C == ':' && Depth == 0) {
      return scanFormatSpec(J + 1, Quote, Triple);
    }
    ++J;
  }
  return N;
}

size_t Lexer::scanFormatSpec(size_t J, char Quote, bool Triple) {
  while (J < N) {
    char C = S[J];
    if (C == '{') {
      J = scanField(J, Quote, Triple);
      continue;
    }
    if (C == '}')
      return J + 1;
    if (C == Quote &&
        (!Triple || (J + 2 < N && S[J + 1] == Quote && S[J + 2] == Quote)))
      return J; // the string ends inside the spec: malformed, stop here
    if (isNewlineChar(C) && !Triple)
      return J;
    J += (C == '\\') ? 2 : 1;
  }
  return N;
}

std::vector<Token> Lexer::run(size_t Start) {
  std::vector<Token> Out;
  std::vector<unsigned> Indents = {0};
  int Brackets = 0;
  bool AtLineStart = true;
  bool LineHasTokens = false;
  size_t I = Start;
  auto Push = [&](Token T) {
    if (T.Kind != TokKind::Newline && T.Kind != TokKind::Indent &&
        T.Kind != TokKind::Dedent)
      LineHasTokens = true;
    Out.push_back(std::move(T));
  };
  while (I < N) {
    if (AtLineStart) {
      // 2.1.8 "Indentation": tabs go to the next multiple of 8, form feed
      // resets the count. Blank and comment-only lines are ignored.
      unsigned Col = 0;
      size_t P = I;
      while (P < N && (S[P] == ' ' || S[P] == '\t' || S[P] == '\f')) {
        if (S[P] == ' ')
          ++Col;
        else if (S[P] == '\t')
          Col = (Col / 8 + 1) * 8;
        else
          Col = 0;
        ++P;
      }
      if (P >= N) {
        I = P;
        break;
      }
      if (S[P] == '#' || isNewlineChar(S[P])) {
        while (P < N && !isNewlineChar(S[P]))
          ++P;
        if (P < N && S[P] == '\r' && P + 1 < N && S[P + 1] == '\n')
          ++P;
        I = P + 1;
        continue;
      }
      if (Col > Indents.back()) {
        Indents.push_back(Col);
        Push(make(TokKind::Indent, P, P));
      } else {
        while (Col < Indents.back()) {
          Indents.pop_back();
          Push(make(TokKind::Dedent, P, P));
        }
        if (Col != Indents.back()) {
          error(P, "unindent does not match any outer indentation level");
          Indents.push_back(Col);
        }
      }
      AtLineStart = false;
      I = P;
    }
    char C = S[I];
    unsigned char UC = static_cast<unsigned char>(C);
    if (C == ' ' || C == '\t' || C == '\f') {
      ++I;
      continue;
    }
    if (C == '#') {
      while (I < N && !isNewlineChar(S[I]))
        ++I;
      continue;
    }
    if (C == '\\' && I + 1 < N && isNewlineChar(S[I + 1])) {
      // 2.1.5 "Explicit line joining".
      I += (S[I + 1] == '\r' && I + 2 < N && S[I + 2] == '\n') ? 3 : 2;
      continue;
    }
    if (isNewlineChar(C)) {
      size_t E = (C == '\r' && I + 1 < N && S[I + 1] == '\n') ? I + 2 : I + 1;
      if (Brackets == 0) {
        // 2.1.6 "Implicit line joining" inside brackets: no NEWLINE there.
        if (LineHasTokens)
          Out.push_back(make(TokKind::Newline, I, E));
        LineHasTokens = false;
        AtLineStart = true;
      }
      I = E;
      continue;
    }
    if (isIdStart(UC)) {
      size_t E = I;
      while (E < N && isIdChar(static_cast<unsigned char>(S[E])))
        ++E;
      bool R, B, F;
      if (E < N && (S[E] == '\'' || S[E] == '"') &&
          prefixFlags(std::string_view(S).substr(I, E - I), R, B, F)) {
        Token T = make(TokKind::String, I, I);
        T.Raw = R;
        T.Bytes = B;
        T.Format = F;
        scanString(E, T);
        I = T.End;
        Push(std::move(T));
        continue;
      }
      Push(make(TokKind::Name, I, E));
      I = E;
      continue;
    }
    if (std::isdigit(UC) ||
        (C == '.' && I + 1 < N &&
         std::isdigit(static_cast<unsigned char>(S[I + 1])))) {
      // 2.4.5-2.4.7: integers, floats, imaginary; underscores allowed.
      bool Hex = C == '0' && I + 1 < N && (S[I + 1] == 'x' || S[I + 1] == 'X');
      size_t E = I + 1;
      while (E < N) {
        char D = S[E];
        if (std::isalnum(static_cast<unsigned char>(D)) || D == '_' ||
            D == '.') {
          ++E;
        } else if ((D == '+' || D == '-') && !Hex &&
                   (S[E - 1] == 'e' || S[E - 1] == 'E')) {
          ++E;
        } else {
          break;
        }
      }
      Push(make(TokKind::Number, I, E));
      I = E;
      continue;
    }
    if (C == '\'' || C == '"') {
      Token T = make(TokKind::String, I, I);
      scanString(I, T);
      I = T.End;
      Push(std::move(T));
      continue;
    }
    if (size_t L = matchOperator(S, I)) {
      if (L == 1 && (C == '(' || C == '[' || C == '{'))
        ++Brackets;
      else if (L == 1 && (C == ')' || C == ']' || C == '}') && Brackets > 0)
        --Brackets;
      Push(make(TokKind::Op, I, I + L));
      I += L;
      continue;
    }
    error(I, std::string("invalid character '") + C + "' in source");
    Push(make(TokKind::Error, I, I + 1));
    ++I;
  }
  if (Brackets > 0)
    error(N, "unexpected end of file inside brackets");
  if (LineHasTokens)
    Out.push_back(make(TokKind::Newline, N, N));
  while (Indents.size() > 1) {
    Indents.pop_back();
    Out.push_back(make(TokKind::Dedent, N, N));
  }
  Out.push_back(make(TokKind::EndMarker, N, N));
  return Out;
}

//===----------------------------------------------------------------------===//
// String values.
//===----------------------------------------------------------------------===//

void appendUtf8(std::string &Out, unsigned long CP) {
  if (CP < 0x80) {
    Out.push_back(static_cast<char>(CP));
  } else if (CP < 0x800) {
    Out.push_back(static_cast<char>(0xC0 | (CP >> 6)));
    Out.push_back(static_cast<char>(0x80 | (CP & 0x3F)));
  } else if (CP < 0x10000) {
    Out.push_back(static_cast<char>(0xE0 | (CP >> 12)));
    Out.push_back(static_cast<char>(0x80 | ((CP >> 6) & 0x3F)));
    Out.push_back(static_cast<char>(0x80 | (CP & 0x3F)));
  } else {
    Out.push_back(static_cast<char>(0xF0 | (CP >> 18)));
    Out.push_back(static_cast<char>(0x80 | ((CP >> 12) & 0x3F)));
    Out.push_back(static_cast<char>(0x80 | ((CP >> 6) & 0x3F)));
    Out.push_back(static_cast<char>(0x80 | (CP & 0x3F)));
  }
}

/// Appends bytes to the extracted text while building segments that never
/// cross a line of the original file.
class Emitter {
public:
  Emitter(std::string &Out, SourceMap &Map, const LineTable &Lines)
      : Out(Out), Map(Map), Lines(Lines) {}
  ~Emitter() { close(); }

  /// Byte \p C copied one-for-one from source offset \p Src.
  void plain(char C, size_t Src) {
    if (!Open || Esc || Src != NextSrc)
      start(Src, false);
    Out.push_back(C);
    NextSrc = Src + 1;
    if (C == '\n')
      close();
  }
  /// Decoded bytes of an escape sequence whose backslash is at \p Src.
  void escape(const std::string &Bytes, size_t Src) {
    if (Bytes.empty())
      return;
    start(Src, true);
    Out += Bytes;
    close();
  }

private:
  void start(size_t Src, bool IsEscape) {
    close();
    auto [L, C] = Lines.loc(Src);
    Seg = {};
    Seg.ExtractedBegin = Out.size();
    Seg.Line = L;
    Seg.Col = C;
    Seg.Escape = IsEscape;
    Esc = IsEscape;
    Open = true;
  }
  void close() {
    if (!Open)
      return;
    Seg.Length = Out.size() - Seg.ExtractedBegin;
    if (Seg.Length)
      Map.addSegment(Seg);
    Open = false;
  }

  std::string &Out;
  SourceMap &Map;
  const LineTable &Lines;
  SourceMap::Segment Seg;
  bool Open = false, Esc = false;
  size_t NextSrc = 0;
};

int hexValue(char C) {
  if (C >= '0' && C <= '9')
    return C - '0';
  C = static_cast<char>(std::tolower(static_cast<unsigned char>(C)));
  if (C >= 'a' && C <= 'f')
    return C - 'a' + 10;
  return -1;
}

/// Reads \p Digits hex digits at \p I (bounded by \p End) into \p V.
bool readHex(const std::string &S, size_t I, size_t End, unsigned Digits,
             unsigned long &V) {
  if (I + Digits > End)
    return false;
  V = 0;
  for (unsigned K = 0; K < Digits; ++K) {
    int H = hexValue(S[I + K]);
    if (H < 0)
      return false;
    V = V * 16 + static_cast<unsigned>(H);
  }
  return true;
}

enum class EscKind { Bytes, Continuation, Unknown };

/// Decodes the escape sequence at \p I (a backslash) of a non-raw literal
/// (2.4.1.1 "Escape sequences"). \p Len receives its source length.
EscKind decodeEscape(const std::string &S, size_t I, size_t End, bool IsBytes,
                     std::string &Bytes, size_t &Len) {
  Bytes.clear();
  if (I + 1 >= End)
    return EscKind::Unknown;
  char C = S[I + 1];
  Len = 2;
  switch (C) {
  case '\n':
    return EscKind::Continuation;
  case '\r':
    Len = (I + 2 < End && S[I + 2] == '\n') ? 3 : 2;
    return EscKind::Continuation;
  case '\\':
  case '\'':
  case '"':
    Bytes.push_back(C);
    return EscKind::Bytes;
  case 'a':
    Bytes.push_back('\a');
    return EscKind::Bytes;
  case 'b':
    Bytes.push_back('\b');
    return EscKind::Bytes;
  case 'f':
    Bytes.push_back('\f');
    return EscKind::Bytes;
  case 'n':
    Bytes.push_back('\n');
    return EscKind::Bytes;
  case 'r':
    Bytes.push_back('\r');
    return EscKind::Bytes;
  case 't':
    Bytes.push_back('\t');
    return EscKind::Bytes;
  case 'v':
    Bytes.push_back('\v');
    return EscKind::Bytes;
  case 'x': {
    unsigned long V;
    if (!readHex(S, I + 2, End, 2, V))
      return EscKind::Unknown;
    Len = 4;
    if (IsBytes)
      Bytes.push_back(static_cast<char>(V));
    else
      appendUtf8(Bytes, V);
    return EscKind::Bytes;
  }
  case 'u':
  case 'U': {
    unsigned Digits = C == 'u' ? 4 : 8;
    unsigned long V;
    if (IsBytes || !readHex(S, I + 2, End, Digits, V) || V > 0x10FFFF)
      return EscKind::Unknown;
    Len = 2 + Digits;
    appendUtf8(Bytes, V);
    return EscKind::Bytes;
  }
  case 'N': {
    // \N{NAME}: the Unicode name database is not available; one '?' stands
    // for the character.
    if (IsBytes || I + 2 >= End || S[I + 2] != '{')
      return EscKind::Unknown;
    size_t Close = S.find('}', I + 3);
    if (Close == std::string::npos || Close >= End)
      return EscKind::Unknown;
    Len = Close + 1 - I;
    Bytes.push_back('?');
    return EscKind::Bytes;
  }
  default:
    if (C >= '0' && C <= '7') {
      unsigned long V = 0;
      size_t K = I + 1;
      while (K < End && K < I + 4 && S[K] >= '0' && S[K] <= '7')
        V = V * 8 + static_cast<unsigned>(S[K++] - '0');
      Len = K - I;
      if (IsBytes)
        Bytes.push_back(static_cast<char>(V & 0xFF));
      else
        appendUtf8(Bytes, V);
      return EscKind::Bytes;
    }
    return EscKind::Unknown;
  }
}

} // namespace

std::vector<Token> tokenize(const std::string &Src, const LineTable &Lines,
                            std::vector<LexError> &Errors, size_t Start) {
  return Lexer(Src, Lines, Errors).run(Start);
}

void decodeString(const std::string &Src, const LineTable &Lines,
                  const Token &T, std::string &Out, SourceMap &Map) {
  Emitter E(Out, Map, Lines);
  size_t I = T.BodyBegin;
  const size_t End = std::min(T.BodyEnd, Src.size());
  size_t Field = 0;
  std::string Bytes;
  while (I < End) {
    if (T.Format && Field < T.Fields.size() && I == T.Fields[Field].first) {
      // Replacement field: '0' per byte so that columns stay put and the
      // text still parses where a number or identifier tail is expected.
      size_t FE = std::min(T.Fields[Field].second, End);
      for (size_t K = I; K < FE; ++K) {
        char C = Src[K];
        if (C == '\r' && K + 1 < FE && Src[K + 1] == '\n')
          continue;
        E.plain(isNewlineChar(C) ? '\n' : '0', K);
      }
      I = FE;
      ++Field;
      continue;
    }
    char C = Src[I];
    if (T.Format && (C == '{' || C == '}') && I + 1 < End && Src[I + 1] == C) {
      E.escape(std::string(1, C), I);
      I += 2;
      continue;
    }
    if (C == '\\' && !T.Raw) {
      size_t Len = 1;
      switch (decodeEscape(Src, I, End, T.Bytes, Bytes, Len)) {
      case EscKind::Continuation:
        I += Len;
        continue;
      case EscKind::Bytes:
        E.escape(Bytes, I);
        I += Len;
        continue;
      case EscKind::Unknown:
        break; // kept verbatim, like Python
      }
    }
    if (C == '\r') {
      E.plain('\n', I);
      I += (I + 1 < End && Src[I + 1] == '\n') ? 2 : 1;
      continue;
    }
    E.plain(C, I);
    ++I;
  }
}

bool isKeyword(std::string_view Name) {
  static constexpr std::string_view Keywords[] = {
      "False",  "None",   "True",    "and",      "as",       "assert", "async",
      "await",  "break",  "class",   "continue", "def",      "del",    "elif",
      "else",   "except", "finally", "for",      "from",     "global", "if",
      "import", "in",     "is",      "lambda",   "nonlocal", "not",    "or",
      "pass",   "raise",  "return",  "try",      "while",    "with",   "yield"};
  for (std::string_view K : Keywords)
    if (K == Name)
      return true;
  return false;
}

} // namespace pkb::py
