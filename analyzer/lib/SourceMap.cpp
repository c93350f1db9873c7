//===- SourceMap.cpp - Extracted text -> original file positions ----------===//
//
// See pkb/Ingest.h. Ingestion builds segments in increasing ExtractedBegin
// order, each inside one line of the original file (docs/ingestion.md, "Line
// mapping").
//
//===----------------------------------------------------------------------===//

#include "pkb/Ingest.h"

#include <algorithm>

namespace pkb {

SourceLoc SourceMap::mapOffset(size_t Offset) const {
  SourceLoc Loc;
  if (Segments.empty())
    return Loc;
  auto It = std::upper_bound(
      Segments.begin(), Segments.end(), Offset,
      [](size_t O, const Segment &S) { return O < S.ExtractedBegin; });
  if (It == Segments.begin())
    return Loc;
  const Segment &S = *std::prev(It);
  size_t Delta = Offset - S.ExtractedBegin;
  bool Last = It == Segments.end();
  if (Delta > S.Length || (Delta == S.Length && !Last))
    return Loc; // in a gap between segments (an inserted separator)
  Loc.File = File;
  Loc.Line = S.Line;
  if (S.Escape)
    Loc.Col = S.Col + (Delta == S.Length ? 1 : 0);
  else
    Loc.Col = S.Col + static_cast<unsigned>(Delta);
  return Loc;
}

SourceLoc SourceMap::map(const std::string &ExtractedText, unsigned Line,
                         unsigned Col) const {
  if (Line == 0 || Col == 0)
    return {};
  size_t Start = 0;
  for (unsigned L = 1; L < Line; ++L) {
    size_t NL = ExtractedText.find('\n', Start);
    if (NL == std::string::npos)
      return {};
    Start = NL + 1;
  }
  size_t End = ExtractedText.find('\n', Start);
  if (End == std::string::npos)
    End = ExtractedText.size();
  // Columns may point at the line's newline (or the end of the text).
  if (Col - 1 > End - Start)
    return {};
  return mapOffset(Start + Col - 1);
}

} // namespace pkb
