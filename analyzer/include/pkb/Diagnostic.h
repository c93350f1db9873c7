//===- pkb/Diagnostic.h - Findings and tool diagnostics ---------*- C++ -*-===//
//
// A Finding is what a checker reports about a kernel; a Diagnostic is what
// the tool itself reports about an input (unreadable file, parse error, a
// missing include, a timeout). Both carry a file and line.
//
//===----------------------------------------------------------------------===//
#ifndef PKB_DIAGNOSTIC_H
#define PKB_DIAGNOSTIC_H

#include "pkb/Model.h"

#include <map>
#include <string>
#include <vector>

namespace pkb {

/// Severity. Error = proved under the model (or tool failure for inputs);
/// Warning = possible; Note = informational.
enum class Severity { Note, Warning, Error };

const char *toString(Severity S);

/// One event a finding points at, with its role in the bug ("write",
/// "signal", "wait", "read", "fence", ...).
struct RelatedEvent {
  std::string Role;
  SourceLoc Loc;
  std::string Text;
};

/// A checker result. `Witness` holds the concrete values Z3 produced
/// (e.g. {"W":"4","r1":"0","r2":"3","tid1":"5","idx":"1024"}).
struct Finding {
  std::string CheckId; ///< e.g. "ORD-001"
  Severity Sev = Severity::Warning;
  std::string Kernel;
  SourceLoc Loc; ///< Primary location.
  std::string Message;
  std::string FixHint;
  std::vector<RelatedEvent> Related;
  std::map<std::string, std::string> Witness;
  /// Other kernels with the same finding at the same location (the other
  /// instantiations of a template kernel); empty for a finding of one
  /// kernel. See mergeInstantiations().
  std::vector<std::string> AlsoIn;
};

/// Merges findings that share a check ID and a source location (file, line,
/// column) into one: a template kernel instantiated N times yields each
/// finding once, with the other kernels listed in Finding::AlsoIn. The
/// merged finding keeps the highest severity seen and the first message.
/// Order of first occurrence is kept.
void mergeInstantiations(std::vector<Finding> &Findings);

/// A tool diagnostic about an input (not a checker finding). Code is a stable
/// identifier: the written name of a DiagCode (pkb/DiagCode.h;
/// toString(DiagCode::ParseError) is "parse-error"), listed with their
/// meanings in docs/diagnostics.md. Set it from the enum, never from a
/// literal.
struct Diagnostic {
  std::string Code;
  Severity Sev = Severity::Error;
  SourceLoc Loc;
  std::string Message;
};

/// Removes repeated diagnostics (same code, severity, location and message).
void dedupeDiagnostics(std::vector<Diagnostic> &Diags);

} // namespace pkb

#endif // PKB_DIAGNOSTIC_H
