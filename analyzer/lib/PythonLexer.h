//===- PythonLexer.h - A Python 3 tokenizer (private to pkb_core) -*- C++
//-*-===//
//
// A hand-written tokenizer for Python 3 source following "Lexical analysis"
// of the Python Language Reference (docs.python.org/3/reference/
// lexical_analysis.html): physical and logical lines, explicit (backslash) and
// implicit (bracket) line joining, comments, INDENT/DEDENT, names, numbers,
// operators, and string literals with every prefix (r u b br rb f fr rf t tr
// rt, any case), single/triple quotes and PEP 701 f-strings (nested quotes
// and nested replacement fields). Debian ships no tree-sitter-python grammar,
// hence hand-written. It never fails: problems become LexErrors.
//
// It also decodes string literal tokens into their values with a byte-exact
// map back to the file (see decodeString).
//
//===----------------------------------------------------------------------===//
#ifndef PKB_LIB_PYTHONLEXER_H
#define PKB_LIB_PYTHONLEXER_H

#include "pkb/Ingest.h"

#include <cstddef>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace pkb::py {

/// 1-based line/column (bytes) of byte offsets in one source text. Lines end
/// at "\n", "\r\n" or a lone "\r" (Python's universal newlines).
class LineTable {
public:
  /// \p Start is where line 1 starts (3 when the text begins with a UTF-8
  /// byte order mark, which editors do not count as a column).
  explicit LineTable(const std::string &Text, size_t Start = 0);
  /// Line and column of \p Offset (an offset at a newline belongs to the line
  /// it ends).
  std::pair<unsigned, unsigned> loc(size_t Offset) const;
  size_t lineStart(unsigned Line) const { return Starts[Line - 1]; }
  unsigned numLines() const { return static_cast<unsigned>(Starts.size()); }

private:
  std::vector<size_t> Starts;
};

enum class TokKind {
  Name,
  Number,
  String,
  Op,      ///< Operator or delimiter, including brackets.
  Newline, ///< End of a logical line.
  Indent,
  Dedent,
  EndMarker,
  Error, ///< A byte that starts no token (e.g. '$' or '?').
};

/// One token. Offsets are into the source text; [Begin, End) is the token.
struct Token {
  TokKind Kind = TokKind::Error;
  size_t Begin = 0, End = 0;
  unsigned Line = 0, Col = 0; ///< Of Begin, 1-based.

  // String literals only.
  bool Raw = false, Bytes = false, Format = false; ///< From the prefix.
  bool Triple = false;
  bool Unterminated = false;
  size_t BodyBegin = 0, BodyEnd = 0; ///< Between the quotes.
  /// Top-level replacement fields of an f-string, each [first '{', one past
  /// its matching '}').
  std::vector<std::pair<size_t, size_t>> Fields;

  std::string_view text(const std::string &Src) const {
    return std::string_view(Src).substr(Begin, End - Begin);
  }
  bool isOp(const std::string &Src, std::string_view S) const {
    return Kind == TokKind::Op && text(Src) == S;
  }
  bool isName(const std::string &Src, std::string_view S) const {
    return Kind == TokKind::Name && text(Src) == S;
  }
};

/// A tokenizer problem (unterminated string, inconsistent dedent...).
struct LexError {
  unsigned Line = 1, Col = 1;
  std::string Message;
};

/// Tokenizes \p Src (starting at \p Start, past a BOM). The result always
/// ends with Newline (if any token preceded), Dedents and EndMarker.
std::vector<Token> tokenize(const std::string &Src, const LineTable &Lines,
                            std::vector<LexError> &Errors, size_t Start = 0);

/// Appends the value of string token \p T to \p Out, adding SourceMap
/// segments for every appended byte (Out.size() before the call is the
/// extracted offset of the first byte). Non-raw literals get escape
/// processing; f-string replacement fields become '0's of the same byte
/// length (newlines kept) and `{{`/`}}` become one brace. CRLF and lone CR
/// become "\n" as Python reads source with universal newlines.
void decodeString(const std::string &Src, const LineTable &Lines,
                  const Token &T, std::string &Out, SourceMap &Map);

/// True for Python's hard keywords (`if`, `def`, `lambda`, `None`, ...).
bool isKeyword(std::string_view Name);

} // namespace pkb::py

#endif // PKB_LIB_PYTHONLEXER_H
