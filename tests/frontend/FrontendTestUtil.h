//===- FrontendTestUtil.h - Helpers for the front-end tests -----*- C++ -*-===//
#ifndef PKB_TESTS_FRONTEND_UTIL_H
#define PKB_TESTS_FRONTEND_UTIL_H

#include "pkb/Frontend.h"
#include "pkb/Ingest.h"
#include "pkb/Model.h"

#include <sstream>
#include <string>

namespace pkb::test {

/// A .cu unit from in-memory text (identity source map).
inline CudaUnit cudaUnit(const std::string &Text,
                         const std::string &Name = "test.cu") {
  CudaUnit U;
  U.Name = Name;
  U.Text = Text;
  U.Identity = true;
  U.Map.File = Name;
  size_t Off = 0;
  unsigned Line = 1;
  while (Off <= Text.size()) {
    size_t End = Text.find('\n', Off);
    size_t Len = (End == std::string::npos ? Text.size() : End + 1) - Off;
    if (Len)
      U.Map.addSegment({Off, Len, Line, 1, false});
    if (End == std::string::npos)
      break;
    Off = End + 1;
    ++Line;
  }
  return U;
}

/// Options for tests: bundled shims (deterministic, no toolkit needed).
inline FrontendOptions shimOptions() {
  FrontendOptions O;
  O.ForceShims = true;
  return O;
}

/// One line per event: "L<line> Kind order scope width base[peer][index]".
inline std::string summary(const Event &E) {
  std::ostringstream OS;
  OS << "L" << E.Loc.Line << " " << toString(E.Kind);
  if (E.Order != MemOrder::Plain)
    OS << " " << toString(E.Order);
  if (E.Scp != Scope::None)
    OS << " " << toString(E.Scp);
  if (E.Width)
    OS << " w" << E.Width;
  if (!E.AtomicOp.empty())
    OS << " " << E.AtomicOp;
  if (E.Barrier != BarrierKind::None)
    OS << " " << toString(E.Barrier);
  if (!E.Addr.Base.empty()) {
    OS << " " << E.Addr.Base;
    if (E.Addr.Peer)
      OS << "[" << E.Addr.Peer->str() << "]";
    OS << "{" << (E.Addr.Index ? E.Addr.Index->str() : "?") << "}";
    OS << " " << toString(E.Addr.Space);
  }
  if (!E.CompareOp.empty())
    OS << " exit " << E.CompareOp << " " << (E.Value ? E.Value->str() : "?");
  return OS.str();
}

} // namespace pkb::test

#endif
