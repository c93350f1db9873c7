//===- pkb/Ingest.h - Reading user inputs -----------------------*- C++ -*-===//
//
// Ingestion turns a path on disk into CUDA translation units ready for the
// front end, with a map from every byte of extracted CUDA back to the user's
// file. It needs neither Clang nor CUDA.
//
//===----------------------------------------------------------------------===//
#ifndef PKB_INGEST_H
#define PKB_INGEST_H

#include "pkb/Diagnostic.h"
#include "pkb/Model.h"

#include <cstddef>
#include <string>
#include <vector>

namespace pkb {

/// How an input file is read.
enum class InputKind { Cuda, Python, Unsupported };

/// Classifies by extension, case-insensitively, through the input-language
/// registry (pkb/InputLanguage.h): .cu .cuh .cpp .cc .h .hpp -> Cuda; .py ->
/// Python; anything else -> Unsupported.
InputKind classifyPath(const std::string &Path);

/// Maps offsets in an extracted CUDA text back to (line, col) in the original
/// file. For a plain CUDA file this is the identity on lines/columns.
///
/// Each Segment says: extracted bytes [ExtractedBegin, ExtractedBegin+Length)
/// come from the original file starting at (Line, Col), where the original
/// characters are copied one-for-one (no escape processing) and newlines in
/// the extracted text correspond to newlines in the file. Escapes in
/// non-raw strings split segments: an escape sequence becomes its own segment
/// with Escape = true, and all of its decoded bytes map to the backslash.
/// Ingestion never lets a segment cross a line of the original file, so
/// mapOffset() needs no text. An empty map maps nothing.
class SourceMap {
public:
  struct Segment {
    size_t ExtractedBegin = 0;
    size_t Length = 0;
    unsigned Line = 1; ///< Original 1-based line of ExtractedBegin.
    unsigned Col = 1;  ///< Original 1-based column of ExtractedBegin.
    /// All Length bytes map to (Line, Col): a decoded escape such as `\n`,
    /// `\u20ac` or an f-string `{{`.
    bool Escape = false;
  };

  void addSegment(Segment S) { Segments.push_back(S); }
  const std::vector<Segment> &segments() const { return Segments; }

  /// Original location of an extracted (line, col), both 1-based (columns
  /// in bytes), given the extracted text. Returns an invalid SourceLoc
  /// (Line 0) if unmapped. O(size of text); prefer mapOffset().
  SourceLoc map(const std::string &ExtractedText, unsigned Line,
                unsigned Col) const;
  /// Original location of an extracted byte offset (O(log segments)). The
  /// offset one past the last segment maps to the position after it; bytes
  /// no segment covers (separators ingestion inserted) map to Line 0.
  SourceLoc mapOffset(size_t Offset) const;

  std::string File; ///< Original file path.

private:
  std::vector<Segment> Segments; // sorted by ExtractedBegin
};

/// One CUDA translation unit extracted from an input.
struct CudaUnit {
  std::string Name;      ///< e.g. "kernel.cu" or "model.py:CUDA_SRC@12"
  std::string Text;      ///< CUDA source to parse.
  SourceMap Map;         ///< Extracted -> original positions.
  bool Identity = false; ///< True for .cu files (positions map 1:1).
};

/// The result of reading one input file.
struct Input {
  std::string Path;
  InputKind Kind = InputKind::Unsupported;
  std::vector<CudaUnit> Units;
  std::vector<HostOp> HostOps; ///< Python solution() operations, in order.
  std::vector<Diagnostic> Diags;
};

/// Limits applied while reading inputs.
struct IngestOptions {
  size_t MaxBytes = 16u << 20; ///< Larger files get "input-too-large".
};

/// Reads one file and hands its text to the extractor of its input language
/// (pkb/InputLanguage.h). Never throws; problems become Diags (file and
/// line).
Input readInput(const std::string &Path, const IngestOptions &Opts = {});

/// Extracts CUDA units and host operations from Python source text: the
/// extractor of the Python input language (pkb/InputLanguage.h). Exposed
/// for tests.
Input extractPython(const std::string &Path, const std::string &Text);

/// Expands files and directories (recursively, sorted, skipping hidden
/// directories) into the list of supported input files. Unsupported files
/// named explicitly are kept so that they get a diagnostic.
std::vector<std::string> expandInputs(const std::vector<std::string> &Paths,
                                      std::vector<Diagnostic> &Diags);

} // namespace pkb

#endif // PKB_INGEST_H
