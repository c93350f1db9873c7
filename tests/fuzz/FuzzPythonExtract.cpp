//===- FuzzPythonExtract.cpp - libFuzzer target: Python extraction --------===//
//
// Input: the text of a ParallelKernelBench .py file. Checks: extractPython
// never crashes, and every location it produces (units' source maps,
// diagnostics, host operations) lies inside the file.
//
//===----------------------------------------------------------------------===//

#include "pkb/Ingest.h"

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>

namespace {
[[noreturn]] void fail(const char *What, unsigned Line, unsigned Max) {
  std::fprintf(stderr, "fuzz_python_extract: %s: line %u of %u\n", What, Line,
               Max);
  std::abort();
}

/// Number of lines of \p T as the tokenizer counts them (\n, \r\n, \r).
unsigned countLines(const std::string &T) {
  unsigned N = 1;
  for (size_t I = 0; I < T.size(); ++I)
    if (T[I] == '\n' ||
        (T[I] == '\r' && (I + 1 == T.size() || T[I + 1] != '\n')))
      ++N;
  return N;
}
} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *Data, size_t Size) {
  std::string Text(reinterpret_cast<const char *>(Data), Size);
  pkb::Input In = pkb::extractPython("fuzz.py", Text);
  unsigned Lines = countLines(Text);
  for (const pkb::CudaUnit &U : In.Units) {
    size_t End = 0;
    for (const pkb::SourceMap::Segment &S : U.Map.segments()) {
      if (S.ExtractedBegin < End || S.ExtractedBegin + S.Length > U.Text.size())
        fail("segment out of order or past the unit", S.Line, Lines);
      End = S.ExtractedBegin + S.Length;
      if (S.Line == 0 || S.Line > Lines)
        fail("segment line", S.Line, Lines);
    }
    // Every offset, the one past the end included, maps inside the file.
    size_t Step = U.Text.size() / 64 + 1;
    for (size_t O = 0; O <= U.Text.size(); O += Step) {
      pkb::SourceLoc L = U.Map.mapOffset(O);
      if (L.Line > Lines)
        fail("mapOffset", L.Line, Lines);
    }
  }
  for (const pkb::Diagnostic &D : In.Diags)
    if (D.Loc.Line == 0 || D.Loc.Line > Lines)
      fail("diagnostic", D.Loc.Line, Lines);
  for (const pkb::HostOp &H : In.HostOps)
    if (H.Loc.Line == 0 || H.Loc.Line > Lines)
      fail("host operation", H.Loc.Line, Lines);
  return 0;
}
