//===- PythonLexerTest.cpp - The Python 3 tokenizer
//------------------------===//

#include "PythonLexer.h"

#include <gtest/gtest.h>

using namespace pkb;
using py::TokKind;

namespace {

struct Lexed {
  std::string Src;
  std::vector<py::Token> Toks;
  std::vector<py::LexError> Errors;
};

Lexed lex(std::string Src) {
  Lexed L;
  L.Src = std::move(Src);
  py::LineTable Lines(L.Src);
  L.Toks = py::tokenize(L.Src, Lines, L.Errors);
  return L;
}

/// Compact rendering: N:name O:op S:string #:number NL IN DE END.
std::string render(const Lexed &L) {
  std::string Out;
  for (const py::Token &T : L.Toks) {
    if (!Out.empty())
      Out += ' ';
    switch (T.Kind) {
    case TokKind::Name:
      Out += "N:" + std::string(T.text(L.Src));
      break;
    case TokKind::Number:
      Out += "#:" + std::string(T.text(L.Src));
      break;
    case TokKind::String:
      Out += "S:" + std::string(T.text(L.Src));
      break;
    case TokKind::Op:
      Out += "O:" + std::string(T.text(L.Src));
      break;
    case TokKind::Newline:
      Out += "NL";
      break;
    case TokKind::Indent:
      Out += "IN";
      break;
    case TokKind::Dedent:
      Out += "DE";
      break;
    case TokKind::EndMarker:
      Out += "END";
      break;
    case TokKind::Error:
      Out += "ERR";
      break;
    }
  }
  return Out;
}

TEST(PythonLexer, IndentationBlankLinesAndComments) {
  Lexed L = lex("def f(a,\n      b):  # c\n\n    # only a comment\n"
                "    if a:\n\tx = 1\n    return b\ny = 2\n");
  EXPECT_TRUE(L.Errors.empty());
  EXPECT_EQ(render(L), "N:def N:f O:( N:a O:, N:b O:) O:: NL IN N:if N:a O:: "
                       "NL IN N:x O:= #:1 NL DE N:return N:b NL DE N:y O:= "
                       "#:2 NL END");
}

TEST(PythonLexer, OperatorsNumbersAndContinuation) {
  Lexed L = lex("a **= 0x1e+5 // 1_000.5e-3j -> b := c ... != d \\\n  @= e\n");
  EXPECT_TRUE(L.Errors.empty());
  EXPECT_EQ(render(L), "N:a O:**= #:0x1e O:+ #:5 O:// #:1_000.5e-3j O:-> N:b "
                       "O::= N:c O:... O:!= N:d O:@= N:e NL END");
}

TEST(PythonLexer, StringsWithPrefixesAndPositions) {
  Lexed L = lex("x = (rb'a'\n     F\"{y!r:>{w}}\" '''t\n''')\n");
  EXPECT_TRUE(L.Errors.empty());
  EXPECT_EQ(render(L), "N:x O:= O:( S:rb'a' S:F\"{y!r:>{w}}\" S:'''t\n''' "
                       "O:) NL END");
  const py::Token &F = L.Toks[4];
  EXPECT_TRUE(F.Format);
  EXPECT_FALSE(F.Raw);
  EXPECT_EQ(F.Line, 2u);
  EXPECT_EQ(F.Col, 6u);
  ASSERT_EQ(F.Fields.size(), 1u);
  EXPECT_EQ(
      L.Src.substr(F.Fields[0].first, F.Fields[0].second - F.Fields[0].first),
      "{y!r:>{w}}");
  EXPECT_TRUE(L.Toks[3].Raw);
  EXPECT_TRUE(L.Toks[3].Bytes);
  EXPECT_TRUE(L.Toks[5].Triple);
}

TEST(PythonLexer, NotAPrefixIsANameThenAString) {
  Lexed L = lex("ub'x' abc'y'\n");
  EXPECT_EQ(render(L), "N:ub S:'x' N:abc S:'y' NL END");
}

TEST(PythonLexer, NestedFStringWithSameQuotes) {
  Lexed L = lex("s = f\"a{f\"b{c}\"}d\" + 'e'\n");
  EXPECT_TRUE(L.Errors.empty());
  EXPECT_EQ(render(L), "N:s O:= S:f\"a{f\"b{c}\"}d\" O:+ S:'e' NL END");
}

TEST(PythonLexer, ErrorsAreReportedAndLexingGoesOn) {
  Lexed L = lex("a = $\nif x:\n        y\n    z\n");
  ASSERT_EQ(L.Errors.size(), 2u);
  EXPECT_EQ(L.Errors[0].Line, 1u);
  EXPECT_EQ(L.Errors[0].Col, 5u);
  EXPECT_EQ(L.Errors[0].Message, "invalid character '$' in source");
  EXPECT_EQ(L.Errors[1].Line, 4u);
  EXPECT_EQ(L.Errors[1].Message,
            "unindent does not match any outer indentation level");
  EXPECT_EQ(render(L), "N:a O:= ERR NL N:if N:x O:: NL IN N:y NL DE N:z NL "
                       "DE END");
}

TEST(PythonLexer, UnclosedBracketAtEndOfFile) {
  Lexed L = lex("f(a,\n  b\n");
  ASSERT_EQ(L.Errors.size(), 1u);
  EXPECT_EQ(L.Errors[0].Message, "unexpected end of file inside brackets");
  EXPECT_EQ(render(L), "N:f O:( N:a O:, N:b NL END");
}

TEST(PythonLexer, LineTableHandlesAllNewlines) {
  std::string S = "a\nb\r\nc\rd";
  py::LineTable T(S);
  EXPECT_EQ(T.numLines(), 4u);
  EXPECT_EQ(T.loc(0), std::make_pair(1u, 1u));
  EXPECT_EQ(T.loc(1), std::make_pair(1u, 2u)); // the newline ends line 1
  EXPECT_EQ(T.loc(2), std::make_pair(2u, 1u));
  EXPECT_EQ(T.loc(5), std::make_pair(3u, 1u));
  EXPECT_EQ(T.loc(7), std::make_pair(4u, 1u));
}

} // namespace
