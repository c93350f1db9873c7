//===- Ptx.cpp - Decoding inline PTX into memory-model facts --------------===//
//
// A small, table-driven decoder for the instructions that appear in inline
// `asm volatile(...)` statements of multi-GPU kernels. Section numbers refer
// to the PTX ISA document ("Parallel Thread Execution ISA", 9.x numbering):
//   9.7.9.8   ld                    9.7.13.1  bar, barrier
//   9.7.9.9   ld.global.nc          9.7.13.2  bar.warp.sync
//   9.7.9.10  ldu                   9.7.13.3  barrier.cluster
//   9.7.9.11  st                    9.7.13.4  membar / fence
//   9.7.9.12  st.async              9.7.13.5  atom
//   9.7.9.13  st.bulk               9.7.13.6  red
//   9.7.9.14  multimem.*            9.7.13.7  red.async
//   9.7.13.15 mbarrier.*            8.4.2     volatile operations
//   "Data Movement and Conversion Instructions: cp.async", ": cp.async.bulk",
//   ": cp.reduce.async.bulk" (their numbers moved between ISA versions).
// docs/ptx.md lists the decoded facts per instruction.
//
//===----------------------------------------------------------------------===//

#include "pkb/Ptx.h"

#include <algorithm>
#include <cctype>
#include <initializer_list>
#include <optional>
#include <string_view>

namespace pkb::ptx {
namespace {

//===----------------------------------------------------------------------===//
// Statement splitting.
//===----------------------------------------------------------------------===//

struct RawStmt {
  std::string Text;
  unsigned Line = 0;
};

bool isIdentChar(char C) {
  return std::isalnum(static_cast<unsigned char>(C)) || C == '_' || C == '$' ||
         C == '%';
}

std::string trim(std::string_view S) {
  size_t B = 0, E = S.size();
  while (B < E && std::isspace(static_cast<unsigned char>(S[B])))
    ++B;
  while (E > B && std::isspace(static_cast<unsigned char>(S[E - 1])))
    --E;
  return std::string(S.substr(B, E - B));
}

/// True if \p S (trimmed) is a label name: identifier characters only.
bool isLabelName(const std::string &S) {
  if (S.empty())
    return false;
  for (char C : S)
    if (!isIdentChar(C))
      return false;
  return !std::isdigit(static_cast<unsigned char>(S[0]));
}

/// Splits an asm template into statements (see decode()).
std::vector<RawStmt> splitStatements(const std::string &S) {
  std::vector<RawStmt> Out;
  std::string Cur;
  unsigned Line = 0, CurLine = 0;
  int OperandBraces = 0; // `{%0, %1}` vector operands inside a statement
  auto Flush = [&] {
    std::string T = trim(Cur);
    if (!T.empty())
      Out.push_back({std::move(T), CurLine});
    Cur.clear();
    OperandBraces = 0;
  };
  auto Append = [&](char C) {
    if (trim(Cur).empty() && !std::isspace(static_cast<unsigned char>(C)))
      CurLine = Line;
    Cur.push_back(C);
  };
  const size_t N = S.size();
  for (size_t I = 0; I < N; ++I) {
    char C = S[I];
    if (C == '/' && I + 1 < N && S[I + 1] == '/') {
      while (I < N && S[I] != '\n')
        ++I;
      --I; // let the loop see the newline
      continue;
    }
    if (C == '/' && I + 1 < N && S[I + 1] == '*') {
      I += 2;
      while (I < N && !(S[I] == '*' && I + 1 < N && S[I + 1] == '/')) {
        if (S[I] == '\n')
          ++Line;
        ++I;
      }
      ++I; // at '/' (or past the end for an unterminated comment)
      Cur.push_back(' ');
      continue;
    }
    switch (C) {
    case '\n':
      ++Line;
      Cur.push_back(' ');
      break;
    case ';':
      Flush();
      break;
    case '{':
      if (trim(Cur).empty())
        break; // scope open
      ++OperandBraces;
      Append(C);
      break;
    case '}':
      if (OperandBraces > 0) {
        --OperandBraces;
        Append(C);
      } else {
        Flush(); // scope close
      }
      break;
    case ':': {
      bool Double =
          (I + 1 < N && S[I + 1] == ':') || (!Cur.empty() && Cur.back() == ':');
      if (!Double && isLabelName(trim(Cur))) {
        Cur.clear(); // a label
        break;
      }
      Append(C);
      break;
    }
    default:
      Append(C);
    }
  }
  Flush();
  return Out;
}

//===----------------------------------------------------------------------===//
// Operands.
//===----------------------------------------------------------------------===//

/// Index N of the first asm operand reference `%N` in \p S, -1 if none.
/// `%%` is a literal percent sign (a PTX register such as `%%r1`).
int firstOperandIndex(std::string_view S) {
  for (size_t I = 0; I < S.size(); ++I) {
    if (S[I] != '%')
      continue;
    if (I + 1 < S.size() && S[I + 1] == '%') {
      ++I;
      continue;
    }
    size_t J = I + 1;
    int V = 0;
    bool Any = false;
    while (J < S.size() && std::isdigit(static_cast<unsigned char>(S[J]))) {
      V = V * 10 + (S[J] - '0');
      Any = true;
      ++J;
      if (V > 1000000)
        return -1;
    }
    if (Any)
      return V;
  }
  return -1;
}

/// Collapses whitespace runs to one space and rewrites `%%` to `%`.
std::string normalize(std::string_view S) {
  std::string Out;
  bool Space = false;
  for (size_t I = 0; I < S.size(); ++I) {
    char C = S[I];
    if (std::isspace(static_cast<unsigned char>(C))) {
      Space = !Out.empty();
      continue;
    }
    if (Space)
      Out.push_back(' ');
    Space = false;
    if (C == '%' && I + 1 < S.size() && S[I + 1] == '%')
      ++I;
    Out.push_back(C);
  }
  return Out;
}

/// Splits an operand list at top-level commas.
std::vector<std::string> splitOperands(std::string_view S) {
  std::vector<std::string> Out;
  int Depth = 0;
  size_t Start = 0;
  for (size_t I = 0; I <= S.size(); ++I) {
    char C = I < S.size() ? S[I] : ',';
    if (C == '[' || C == '{' || C == '(')
      ++Depth;
    else if ((C == ']' || C == '}' || C == ')') && Depth > 0)
      --Depth;
    else if (C == ',' && Depth == 0) {
      std::string T = trim(S.substr(Start, I - Start));
      if (!T.empty() || I < S.size())
        Out.push_back(T);
      Start = I + 1;
    }
  }
  if (Out.size() == 1 && Out[0].empty())
    Out.clear();
  return Out;
}

bool isAddress(const std::string &Op) { return !Op.empty() && Op[0] == '['; }

/// Parses an unsigned decimal/hex immediate; false if \p S is not one.
bool parseImmediate(const std::string &S, unsigned long long &V) {
  if (S.empty())
    return false;
  size_t I = 0;
  int Base = 10;
  if (S.size() > 2 && S[0] == '0' && (S[1] == 'x' || S[1] == 'X')) {
    Base = 16;
    I = 2;
  }
  V = 0;
  for (; I < S.size(); ++I) {
    char C = S[I];
    int D;
    if (std::isdigit(static_cast<unsigned char>(C)))
      D = C - '0';
    else if (Base == 16 && std::isxdigit(static_cast<unsigned char>(C)))
      D = std::tolower(static_cast<unsigned char>(C)) - 'a' + 10;
    else if (I + 1 == S.size() && (C == 'U' || C == 'u'))
      break;
    else
      return false;
    V = V * Base + D;
    if (V > (1ull << 40))
      return false;
  }
  return true;
}

//===----------------------------------------------------------------------===//
// Qualifiers.
//===----------------------------------------------------------------------===//

/// Bytes of a PTX fundamental type qualifier (PTX ISA 5.2.2 "Fundamental
/// Types", 5.2.3 "Alternate floating point types"); 0 if not a type.
unsigned typeBytes(std::string_view T) {
  static constexpr std::pair<std::string_view, unsigned> Table[] = {
      {"b8", 1},     {"u8", 1},     {"s8", 1},     {"e4m3", 1}, {"e5m2", 1},
      {"b16", 2},    {"u16", 2},    {"s16", 2},    {"f16", 2},  {"bf16", 2},
      {"e4m3x2", 2}, {"e5m2x2", 2}, {"b32", 4},    {"u32", 4},  {"s32", 4},
      {"f32", 4},    {"f16x2", 4},  {"bf16x2", 4}, {"tf32", 4}, {"e4m3x4", 4},
      {"e5m2x4", 4}, {"b64", 8},    {"u64", 8},    {"s64", 8},  {"f64", 8},
      {"b128", 16},  {"u128", 16},  {"s128", 16},  {"f8x4", 4}, {"pred", 0},
  };
  for (const auto &[Name, Bytes] : Table)
    if (Name == T)
      return Bytes;
  return 0;
}

bool isAtomicOp(std::string_view M) {
  return M == "add" || M == "inc" || M == "dec" || M == "cas" || M == "exch" ||
         M == "and" || M == "or" || M == "xor" || M == "min" || M == "max";
}

/// The qualifiers of one opcode, split at '.' (`shared::cta` stays whole).
struct Quals {
  std::vector<std::string> Parts; // Parts[0] is the opcode

  bool has(std::string_view Q) const {
    for (size_t I = 1; I < Parts.size(); ++I)
      if (Parts[I] == Q)
        return true;
    return false;
  }
  const std::string &at(size_t I) const {
    static const std::string Empty;
    return I < Parts.size() ? Parts[I] : Empty;
  }

  /// Explicit scope qualifier (PTX ISA 8.5 "Scope"), or None.
  Scope scope() const {
    if (has("cta"))
      return Scope::CTA;
    if (has("cluster"))
      return Scope::Cluster;
    if (has("gpu"))
      return Scope::GPU;
    if (has("sys"))
      return Scope::System;
    return Scope::None;
  }

  /// The first state-space qualifier (PTX ISA 5.1 "State Spaces"). For
  /// copies the first one is the destination.
  AddrSpace space() const {
    for (size_t I = 1; I < Parts.size(); ++I) {
      std::string_view P = Parts[I];
      if (P == "global")
        return AddrSpace::Global;
      if (P == "shared" || P == "shared::cta" || P == "shared::cluster")
        return AddrSpace::Shared;
      if (P == "local")
        return AddrSpace::Local;
      if (P == "param" || P.substr(0, 7) == "param::" || P == "const")
        return AddrSpace::Unknown;
    }
    return AddrSpace::Unknown;
  }

  /// Element count of a .v2/.v4/.v8 qualifier, 1 without one.
  unsigned vecCount() const {
    if (has("v2"))
      return 2;
    if (has("v4"))
      return 4;
    if (has("v8"))
      return 8;
    return 1;
  }

  /// Bytes accessed: last type qualifier times the vector count.
  unsigned width() const {
    unsigned T = 0;
    for (size_t I = 1; I < Parts.size(); ++I)
      if (unsigned B = typeBytes(Parts[I]))
        T = B;
    return T * vecCount();
  }

  std::string atomicOp() const {
    for (size_t I = 1; I < Parts.size(); ++I)
      if (isAtomicOp(Parts[I]))
        return Parts[I];
    return "";
  }

  /// Explicit .sem qualifier, if any.
  std::optional<MemOrder> sem() const {
    if (has("sc"))
      return MemOrder::SeqCst;
    if (has("acq_rel"))
      return MemOrder::AcqRel;
    if (has("acquire"))
      return MemOrder::Acquire;
    if (has("release"))
      return MemOrder::Release;
    if (has("relaxed"))
      return MemOrder::Relaxed;
    if (has("volatile"))
      return MemOrder::Volatile;
    if (has("weak"))
      return MemOrder::Plain;
    return std::nullopt;
  }
};

Quals splitQuals(std::string_view Op) {
  Quals Q;
  size_t Start = 0;
  for (size_t I = 0; I <= Op.size(); ++I) {
    if (I == Op.size() || Op[I] == '.') {
      Q.Parts.emplace_back(Op.substr(Start, I - Start));
      Start = I + 1;
    }
  }
  return Q;
}

//===----------------------------------------------------------------------===//
// Per-family decoders.
//===----------------------------------------------------------------------===//

/// Operand index of operand \p I, -1 if absent.
int opIndex(const std::vector<std::string> &Ops, size_t I) {
  return I < Ops.size() ? firstOperandIndex(Ops[I]) : -1;
}

/// Index of the first bracketed (address) operand, or npos.
size_t firstAddress(const std::vector<std::string> &Ops) {
  for (size_t I = 0; I < Ops.size(); ++I)
    if (isAddress(Ops[I]))
      return I;
  return std::string::npos;
}

/// ld / ldu / ld.global.nc (9.7.9.8-10) and st (9.7.9.11). Weak when no .sem;
/// .volatile is "equivalent to a relaxed memory operation with system-scope"
/// (8.4.2); .mmio is relaxed.sys. The grammar
/// requires a .scope with .relaxed/.acquire/.release; if it is missing (ptxas
/// rejects that) we assume .gpu, the default atom/red use (9.7.13.5).
void decodeLdSt(Inst &I, const Quals &Q, const std::vector<std::string> &Ops,
                bool IsLoad) {
  I.Kind = IsLoad ? InstKind::Load : InstKind::Store;
  I.Space = Q.space();
  I.Width = Q.width();
  if (I.Opcode == "ldu") {
    I.Mnemonic = "ldu";
  } else if (IsLoad && Q.has("nc")) {
    I.Mnemonic = "ld.global.nc";
  } else if (Q.at(1) == "async" || Q.at(1) == "bulk") {
    I.Mnemonic = I.Opcode + "." + Q.at(1);
  }
  if (Q.has("mmio")) {
    I.Order = MemOrder::Relaxed;
    I.Scp = Scope::System;
  } else if (auto S = Q.sem()) {
    I.Order = *S;
    if (*S == MemOrder::Volatile)
      I.Scp = Scope::System;
    else if (*S != MemOrder::Plain)
      I.Scp = Q.scope() == Scope::None ? Scope::GPU : Q.scope();
  }
  if (I.Mnemonic == "st.bulk") {
    // st.bulk [a], size, initval (9.7.9.13): zero-fills a shared region.
    I.AddrOperand = opIndex(Ops, 0);
    unsigned long long V;
    if (Ops.size() > 1 && parseImmediate(Ops[1], V))
      I.Width = static_cast<unsigned>(V);
    return;
  }
  if (IsLoad) {
    I.DestOperand = opIndex(Ops, 0);
    I.AddrOperand = opIndex(Ops, 1);
  } else {
    I.AddrOperand = opIndex(Ops, 0);
    I.ValueOperand = opIndex(Ops, 1);
  }
}

/// atom (9.7.13.5), red (9.7.13.6), red.async (9.7.13.7). For atom/red an
/// absent .sem means .relaxed and an absent .scope means .gpu; red.async is
/// .relaxed.cluster.
void decodeAtomRed(Inst &I, const Quals &Q,
                   const std::vector<std::string> &Ops) {
  bool IsAtom = I.Opcode == "atom";
  bool Async = !IsAtom && Q.at(1) == "async"; // there is no atom.async
  I.Kind = IsAtom ? InstKind::Atomic : InstKind::Reduction;
  if (Async)
    I.Mnemonic = "red.async";
  I.Space = Q.space();
  I.Width = Q.width();
  I.AtomicOp = Q.atomicOp();
  I.Order = Q.sem().value_or(MemOrder::Relaxed);
  if (I.Order == MemOrder::Plain)
    I.Order = MemOrder::Relaxed;
  I.Scp = Q.scope();
  if (I.Scp == Scope::None)
    I.Scp = Async ? Scope::Cluster : Scope::GPU;
  if (IsAtom) {
    // atom d, [a], b{, c}{, cache-policy}
    I.DestOperand = opIndex(Ops, 0);
    I.AddrOperand = opIndex(Ops, 1);
    I.ValueOperand = opIndex(Ops, I.AtomicOp == "cas" ? 3 : 2);
  } else {
    // red [a], b{, cache-policy};  red.async [a], b, [mbar]
    I.AddrOperand = opIndex(Ops, 0);
    I.ValueOperand = opIndex(Ops, 1);
  }
}

/// The proxy kind of fence.proxy.X / membar.proxy.X: the qualifiers after
/// "proxy" that are not semantics, scopes or sync_restrict.
std::string proxyKind(const Quals &Q) {
  std::string K;
  bool After = false;
  for (size_t I = 1; I < Q.Parts.size(); ++I) {
    const std::string &P = Q.Parts[I];
    if (P == "proxy") {
      After = true;
      continue;
    }
    if (!After || P == "acquire" || P == "release" || P == "cta" ||
        P == "cluster" || P == "gpu" || P == "sys" ||
        P.rfind("sync_restrict", 0) == 0)
      continue;
    if (!K.empty())
      K += '.';
    K += P;
  }
  return K;
}

/// membar / fence (9.7.13.4). fence without .sem is fence.acq_rel; membar is
/// fence.sc with levels cta/gl/sys = scopes cta/gpu/sys (sm_70+). Proxy
/// fences order proxies, not threads: Order stays Plain unless a uni-
/// directional .acquire/.release form is used.
void decodeFence(Inst &I, const Quals &Q, const std::vector<std::string> &Ops) {
  I.Kind = InstKind::Fence;
  if (Q.at(1) == "proxy") {
    I.Mnemonic = I.Opcode + ".proxy";
    I.ProxyKind = proxyKind(Q);
    I.Order = MemOrder::Plain;
    if (Q.has("release"))
      I.Order = MemOrder::Release;
    else if (Q.has("acquire"))
      I.Order = MemOrder::Acquire;
    I.Scp = Q.scope();
    if (!Ops.empty())
      I.AddrOperand = opIndex(Ops, 0);
    return;
  }
  if (I.Opcode == "membar") {
    I.Order = MemOrder::SeqCst;
    if (Q.has("cta"))
      I.Scp = Scope::CTA;
    else if (Q.has("gl"))
      I.Scp = Scope::GPU;
    else if (Q.has("sys"))
      I.Scp = Scope::System;
    return;
  }
  if (Q.has("mbarrier_init"))
    I.Mnemonic = "fence.mbarrier_init";
  I.Order = Q.sem().value_or(MemOrder::AcqRel);
  I.Scp = Q.scope();
}

/// bar / barrier (9.7.13.1), bar.warp.sync (9.7.13.2), barrier.cluster
/// (9.7.13.3). A CTA barrier with a thread-count operand is Named, without
/// one Block. sync/red order like acq_rel at CTA scope, arrive like release;
/// barrier.cluster.arrive defaults to .release, .wait to .acquire.
void decodeBarrier(Inst &I, const Quals &Q,
                   const std::vector<std::string> &Ops) {
  I.Kind = InstKind::Barrier;
  size_t A = 1;
  if (Q.at(A) == "cta")
    ++A;
  const std::string &Action = Q.at(A);
  if (I.Opcode == "bar" && Action == "warp") {
    I.Mnemonic = "bar.warp.sync";
    I.Barrier = BarrierKind::Warp;
    I.Order = MemOrder::AcqRel;
    I.Scp = Scope::CTA;
    I.ValueOperand = opIndex(Ops, 0);
    return;
  }
  if (I.Opcode == "barrier" && Q.at(1) == "cluster") {
    I.Mnemonic = "barrier.cluster." + Q.at(2);
    I.Barrier = BarrierKind::Cluster;
    I.Scp = Scope::Cluster;
    if (Q.at(2) == "arrive")
      I.Order = Q.has("relaxed") ? MemOrder::Relaxed : MemOrder::Release;
    else
      I.Order = MemOrder::Acquire;
    return;
  }
  I.Mnemonic = I.Opcode + (Action.empty() ? "" : "." + Action);
  I.Scp = Scope::CTA;
  I.Order = Action == "arrive" ? MemOrder::Release : MemOrder::AcqRel;
  // bar.sync a{, b}; bar.arrive a, b; bar.red.op d, a{, b}, {!}c
  size_t CountIdx = Action == "red" ? 2 : 1;
  size_t Needed = Action == "red" ? 4 : 2;
  bool HasCount = Ops.size() >= Needed && CountIdx < Ops.size();
  I.Barrier =
      HasCount || Action == "arrive" ? BarrierKind::Named : BarrierKind::Block;
}

/// multimem.ld_reduce / st / red (9.7.9.14). Without .sem, ld_reduce and st
/// are weak and red is .relaxed; red without .scope is .sys. For a strong
/// ld_reduce/st without .scope (unspecified by the ISA) we also assume .sys.
void decodeMultimem(Inst &I, const Quals &Q,
                    const std::vector<std::string> &Ops) {
  I.Kind = InstKind::Multimem;
  const std::string &Sub = Q.at(1);
  I.Mnemonic = "multimem." + Sub;
  I.Space = AddrSpace::Multicast;
  I.Width = Q.width();
  bool IsRed = Sub == "red";
  I.Order = Q.sem().value_or(IsRed ? MemOrder::Relaxed : MemOrder::Plain);
  I.Scp = Q.scope();
  if (I.Scp == Scope::None && I.Order != MemOrder::Plain)
    I.Scp = Scope::System;
  if (Sub == "ld_reduce" || IsRed)
    I.AtomicOp = Q.atomicOp();
  if (Sub == "ld_reduce") {
    I.DestOperand = opIndex(Ops, 0);
    I.AddrOperand = opIndex(Ops, 1);
  } else {
    I.AddrOperand = opIndex(Ops, 0);
    I.ValueOperand = opIndex(Ops, 1);
  }
}

/// cp.async, cp.async.bulk*, cp.reduce.async.bulk* ("Data Movement and
/// Conversion Instructions: cp.async / cp.async.bulk / cp.reduce.async.bulk")
/// and their commit/wait groups. Space is the destination;
/// AddrOperand the destination, ValueOperand the source address; Width the
/// copy size when it is an immediate.
void decodeCopy(Inst &I, const Quals &Q, const std::vector<std::string> &Ops) {
  I.Kind = InstKind::BulkCopy;
  size_t K = 1;
  if (Q.at(1) == "reduce") {
    I.Mnemonic = "cp.reduce.async.bulk";
    K = 4;
    I.AtomicOp = Q.atomicOp();
  } else if (Q.at(2) == "bulk") {
    I.Mnemonic = "cp.async.bulk";
    K = 3;
  } else {
    I.Mnemonic = "cp.async";
    K = 2;
  }
  const std::string &Next = Q.at(K);
  if (Next == "commit_group" || Next == "wait_group" || Next == "wait_all" ||
      Next == "tensor" || Next == "prefetch") {
    I.Mnemonic += "." + Next;
    if (Next == "prefetch" && Q.at(K + 1) == "tensor")
      I.Mnemonic += ".tensor";
  } else if (I.Mnemonic == "cp.async" && Next == "mbarrier") {
    // cp.async.mbarrier.arrive{.noinc}{.shared{::cta}}.b64 [addr]: an
    // arrive-on of an mbarrier once prior cp.async complete.
    I.Kind = InstKind::MBarrier;
    I.Mnemonic = "cp.async.mbarrier.arrive";
    I.Space = Q.space();
    I.Order = MemOrder::Release;
    I.Scp = Scope::CTA;
    I.Width = Q.width();
    I.AddrOperand = opIndex(Ops, 0);
    return;
  }
  if (I.Mnemonic.find("_group") != std::string::npos ||
      I.Mnemonic.find("wait_all") != std::string::npos) {
    I.Space = AddrSpace::Unknown;
    return;
  }
  I.Space = Q.space();
  I.AddrOperand = opIndex(Ops, 0);
  if (I.Mnemonic.find("prefetch") != std::string::npos)
    return;
  I.ValueOperand = opIndex(Ops, 1);
  // cp.async: [dst], [src], cp-size{, src-size}; bulk: [dst], [src], size...
  unsigned long long V;
  if (I.Mnemonic.find("tensor") == std::string::npos && Ops.size() > 2 &&
      parseImmediate(Ops[2], V))
    I.Width = static_cast<unsigned>(V);
}

/// mbarrier.* (9.7.13.15). arrive/arrive_drop default to .release.cta,
/// test_wait/try_wait to .acquire.cta, expect_tx/complete_tx are .relaxed.cta.
void decodeMBarrier(Inst &I, const Quals &Q,
                    const std::vector<std::string> &Ops) {
  I.Kind = InstKind::MBarrier;
  const std::string &Sub = Q.at(1);
  I.Mnemonic = "mbarrier." + Sub;
  I.Space = Q.space();
  I.Width = Q.width();
  Scope Sc = Q.scope();
  if (Sub == "arrive" || Sub == "arrive_drop") {
    I.Order = Q.sem().value_or(MemOrder::Release);
    I.Scp = Sc == Scope::None ? Scope::CTA : Sc;
  } else if (Sub == "test_wait" || Sub == "try_wait") {
    I.Order = Q.sem().value_or(MemOrder::Acquire);
    I.Scp = Sc == Scope::None ? Scope::CTA : Sc;
  } else if (Sub == "expect_tx" || Sub == "complete_tx") {
    I.Order = MemOrder::Relaxed;
    I.Scp = Sc == Scope::None ? Scope::CTA : Sc;
  }
  size_t A = firstAddress(Ops);
  if (A == std::string::npos)
    return;
  I.AddrOperand = opIndex(Ops, A);
  if (A > 0)
    I.DestOperand = opIndex(Ops, 0);
  if (A + 1 < Ops.size() &&
      (Sub == "init" || Sub == "expect_tx" || Sub == "complete_tx"))
    I.ValueOperand = opIndex(Ops, A + 1);
}

/// Opcodes without memory effect (PTX ISA 9.7.1-9.7.8, 9.7.10-9.7.12 and
/// control flow); anything else unknown is Opaque.
bool isPureOpcode(std::string_view Op) {
  static constexpr std::string_view Pure[] = {
      "add",          "sub",        "mul",
      "mad",          "mul24",      "mad24",
      "sad",          "div",        "rem",
      "abs",          "neg",        "min",
      "max",          "popc",       "clz",
      "bfind",        "fns",        "brev",
      "bfe",          "bfi",        "szext",
      "bmsk",         "dp4a",       "dp2a",
      "addc",         "subc",       "madc",
      "and",          "or",         "xor",
      "not",          "cnot",       "lop3",
      "shf",          "shl",        "shr",
      "testp",        "copysign",   "rcp",
      "sqrt",         "rsqrt",      "sin",
      "cos",          "lg2",        "ex2",
      "tanh",         "fma",        "set",
      "setp",         "selp",       "slct",
      "mov",          "cvt",        "cvta",
      "isspacep",     "prmt",       "shfl",
      "vote",         "match",      "activemask",
      "redux",        "elect",      "bra",
      "brx",          "ret",        "exit",
      "trap",         "nanosleep",  "pmevent",
      "brkpt",        "getctarank", "mapa",
      "istypep",      "setmaxnreg", "griddepcontrol",
      "prefetch",     "prefetchu",  "applypriority",
      "createpolicy", "vadd",       "vsub",
      "vmad",         "vmin",       "vmax",
      "vabsdiff",     "vshl",       "vshr",
      "vset",         "vadd2",      "vsub2",
      "vavrg2",       "vadd4",      "vsub4",
      "vavrg4",       "vabsdiff2",  "vabsdiff4",
      "vmin2",        "vmax2",      "vmin4",
      "vmax4",        "vset2",      "vset4",
  };
  for (std::string_view P : Pure)
    if (P == Op)
      return true;
  return false;
}

/// Opcodes the ISA defines that the decoder models as Opaque on purpose
/// (calls, matrix, tensor-core, texture and surface instructions...): known,
/// so no `ptx-unknown` note.
bool isKnownOpaqueOpcode(std::string_view Op) {
  static constexpr std::string_view Known[] = {
      "call",      "ldmatrix",     "stmatrix",
      "movmatrix", "wmma",         "mma",
      "wgmma",     "tcgen05",      "tex",
      "tld4",      "txq",          "suld",
      "sust",      "sured",        "suq",
      "discard",   "tensormap",    "alloca",
      "stacksave", "stackrestore", "clusterlaunchcontrol",
  };
  for (std::string_view K : Known)
    if (K == Op)
      return true;
  return false;
}

/// Marks \p I unknown: Opaque, with the state space and the first address
/// operand that can be seen.
void makeUnknown(Inst &I, const Quals &Q, const std::vector<std::string> &Ops) {
  I.Kind = InstKind::Opaque;
  I.Unknown = true;
  I.Order = MemOrder::Plain;
  I.Scp = Scope::None;
  I.Barrier = BarrierKind::None;
  I.AtomicOp.clear();
  I.Width = 0;
  I.AddrOperand = I.ValueOperand = I.DestOperand = -1;
  I.Space = Q.space();
  size_t A = firstAddress(Ops);
  if (A != std::string::npos)
    I.AddrOperand = opIndex(Ops, A);
}

/// True if the sub-operation of a family decoded by sub-operation is one
/// the decoder knows (the rest would get invented semantics).
bool isKnownSubOp(const Inst &I, const Quals &Q) {
  auto OneOf = [](const std::string &S,
                  std::initializer_list<std::string_view> L) {
    for (std::string_view X : L)
      if (S == X)
        return true;
    return false;
  };
  const std::string &Op = I.Opcode;
  if (Op == "multimem")
    return OneOf(Q.at(1), {"ld_reduce", "st", "red"});
  if (Op == "mbarrier")
    return OneOf(Q.at(1),
                 {"init", "inval", "arrive", "arrive_drop", "test_wait",
                  "try_wait", "pending_count", "expect_tx", "complete_tx"});
  if (Op == "barrier" && Q.at(1) == "cluster")
    return OneOf(Q.at(2), {"arrive", "wait"});
  if (Op == "atom") // red.async exists (9.7.13.7), atom.async does not
    return Q.at(1) != "async";
  if (Op == "bar" || Op == "barrier") {
    const std::string &Action = Q.at(Q.at(1) == "cta" ? 2 : 1);
    return OneOf(Action, {"sync", "arrive", "red"}) ||
           (Op == "bar" && Action == "warp" && Q.at(2) == "sync");
  }
  return true;
}

void decodeOne(Inst &I, const std::string &Body) {
  // Opcode token and operand list.
  size_t Sp = 0;
  while (Sp < Body.size() &&
         !std::isspace(static_cast<unsigned char>(Body[Sp])))
    ++Sp;
  std::string OpTok = Body.substr(0, Sp);
  std::vector<std::string> RawOps =
      splitOperands(std::string_view(Body).substr(Sp));
  for (const std::string &O : RawOps)
    I.Operands.push_back(normalize(O));
  Quals Q = splitQuals(OpTok);
  I.Opcode = Q.at(0);
  I.Mnemonic = I.Opcode;
  const std::string &Op = I.Opcode;

  if (!isKnownSubOp(I, Q))
    return makeUnknown(I, Q, RawOps);
  if (Op == "ld" || Op == "ldu")
    return decodeLdSt(I, Q, RawOps, /*IsLoad=*/true);
  if (Op == "st")
    return decodeLdSt(I, Q, RawOps, /*IsLoad=*/false);
  if (Op == "atom" || Op == "red")
    return decodeAtomRed(I, Q, RawOps);
  if (Op == "fence" || Op == "membar")
    return decodeFence(I, Q, RawOps);
  if (Op == "bar" || Op == "barrier")
    return decodeBarrier(I, Q, RawOps);
  if (Op == "multimem")
    return decodeMultimem(I, Q, RawOps);
  if (Op == "cp" &&
      (Q.at(1) == "async" || (Q.at(1) == "reduce" && Q.at(2) == "async")))
    return decodeCopy(I, Q, RawOps);
  if (Op == "mbarrier")
    return decodeMBarrier(I, Q, RawOps);
  if (isPureOpcode(Op)) {
    I.Kind = InstKind::Other;
    return;
  }
  // Known but not modeled, or unknown: keep it, with whatever address we
  // can see.
  makeUnknown(I, Q, RawOps);
  I.Unknown = !isKnownOpaqueOpcode(Op);
}

} // namespace

std::string instructionName(const Inst &I) {
  std::string_view T = I.Text;
  if (I.Predicated && !T.empty() && T[0] == '@') {
    size_t Sp = T.find(' ');
    T = Sp == std::string_view::npos ? std::string_view() : T.substr(Sp + 1);
  }
  size_t Sp = T.find(' ');
  return std::string(T.substr(0, Sp));
}

std::string unknownInstructionMessage(const Inst &I) {
  return "unknown PTX instruction '" + instructionName(I) +
         "' in inline asm; modeled as an opaque event";
}

std::vector<std::string> unknownInstructions(const std::vector<Inst> &Insts) {
  std::vector<std::string> Out;
  for (const Inst &I : Insts)
    if (I.Unknown) {
      std::string N = instructionName(I);
      if (std::find(Out.begin(), Out.end(), N) == Out.end())
        Out.push_back(std::move(N));
    }
  return Out;
}

std::vector<Inst> decode(const std::string &AsmTemplate) {
  std::vector<Inst> Out;
  for (const RawStmt &S : splitStatements(AsmTemplate)) {
    std::string Body = S.Text;
    Inst I;
    I.LineInAsm = S.Line;
    I.Text = normalize(Body);
    // Guard predicate: @p, @!p, @%p1, @!%%p.
    if (!Body.empty() && Body[0] == '@') {
      I.Predicated = true;
      size_t P = 1;
      while (P < Body.size() &&
             !std::isspace(static_cast<unsigned char>(Body[P])))
        ++P;
      Body = trim(std::string_view(Body).substr(P));
    }
    if (Body.empty() || Body[0] == '.')
      continue; // directive such as .reg/.pred/.shared, or a lone guard
    decodeOne(I, Body);
    Out.push_back(std::move(I));
  }
  return Out;
}

} // namespace pkb::ptx
