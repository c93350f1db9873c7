//===- pkb/Ptx.h - Decoding inline PTX --------------------------*- C++ -*-===//
//
// Decodes the instruction strings of `asm volatile("...")` statements into
// memory-model facts (PTX ISA 9.0, sections "Instructions: Data Movement",
// "Parallel Synchronization and Communication" and "Memory Consistency
// Model"). Unknown instructions are kept as Opaque, never dropped.
//
//===----------------------------------------------------------------------===//
#ifndef PKB_PTX_H
#define PKB_PTX_H

#include "pkb/DiagCode.h"
#include "pkb/Model.h"

#include <string>
#include <vector>

namespace pkb::ptx {

/// The class of a decoded PTX instruction.
enum class InstKind {
  Load,      ///< ld, ld.global.nc, ldu
  Store,     ///< st
  Atomic,    ///< atom
  Reduction, ///< red
  Fence,     ///< fence.*, membar.*
  Barrier,   ///< bar, barrier, bar.warp.sync
  Multimem,  ///< multimem.ld_reduce / st / red
  BulkCopy,  ///< cp.async.bulk*, cp.async.*
  MBarrier,  ///< mbarrier.*
  Other,     ///< Arithmetic, moves, predicates... (no memory effect)
  Opaque,    ///< Unrecognized instruction with possible memory effect
};

/// One decoded instruction.
struct Inst {
  InstKind Kind = InstKind::Opaque;
  std::string Text;   ///< Instruction as written (after %-operand rewrite).
  std::string Opcode; ///< First token, e.g. "ld", "atom", "fence".
  /// Opcode plus the sub-operation that selects its meaning, e.g.
  /// "ld.global.nc", "multimem.ld_reduce", "cp.async.bulk", "bar.sync",
  /// "barrier.cluster.arrive", "mbarrier.try_wait", "fence.proxy"; equal to
  /// Opcode for instructions without one (docs/ptx.md lists them).
  std::string Mnemonic;
  MemOrder Order = MemOrder::Plain;
  Scope Scp = Scope::None;
  AddrSpace Space = AddrSpace::Unknown; ///< .global/.shared; Unknown = generic
  unsigned Width = 0;    ///< Bytes per access (vector: total), 0 if n/a.
  std::string AtomicOp;  ///< "add","cas","exch","or",... for atom/red.
  int AddrOperand = -1;  ///< Index of the asm operand (%N) giving the
                         ///< address, -1 if none or not an operand.
  int ValueOperand = -1; ///< Operand index of stored/added value, -1 if none.
                         ///< atom.cas: the new value (c); bulk copies:
                         ///< the source address; vectors: first element.
  int DestOperand = -1;  ///< Operand index of the destination register of
                         ///< ld/atom/ld_reduce/mbarrier waits, -1 if none.
  /// Operands as written, split at top-level commas, `%%` rewritten to `%`
  /// (e.g. {"%0", "[%1]", "0", "1"} for `atom.cas.b32 %0, [%1], 0, 1`).
  std::vector<std::string> Operands;
  /// For fence.proxy / membar.proxy: the proxy kind as written ("alias",
  /// "async", "async.shared::cta", "tensormap::generic"); empty otherwise.
  std::string ProxyKind;
  BarrierKind Barrier = BarrierKind::None;
  bool Predicated = false; ///< Has an @p guard.
  unsigned LineInAsm = 0;  ///< 0-based line index within the asm string.
  /// The decoder does not know this instruction: its opcode is in no table
  /// of docs/ptx.md, or it is a `multimem`, `mbarrier`, `barrier.cluster` or
  /// `cp` instruction with an unknown sub-operation. Such an instruction is
  /// Opaque (never dropped). The front end reports each one as a
  /// `ptx-unknown` note (unknownInstructionMessage) at the asm statement.
  bool Unknown = false;
};

/// Diagnostic code of the note about an unknown instruction.
inline constexpr DiagCode UnknownInstructionCode = DiagCode::PtxUnknown;

/// The instruction as named in messages: the opcode token with its
/// qualifiers, without guard and operands ("foo.bar.u32").
std::string instructionName(const Inst &I);

/// Message of the `ptx-unknown` note for \p I, e.g. "unknown PTX instruction
/// 'foo.bar' in inline asm; modeled as an opaque event".
std::string unknownInstructionMessage(const Inst &I);

/// The distinct names (instructionName) of the unknown instructions of
/// \p Insts, in order of first appearance: what one asm statement reports.
std::vector<std::string> unknownInstructions(const std::vector<Inst> &Insts);

/// Decodes an asm template (the string literal(s) of an asm statement,
/// concatenated, escapes already processed) into instructions. Statements end
/// at ';' (a newline alone does not end one, so an instruction may span
/// lines; the last statement needs no ';'); `{`/`}` scopes, `//` and `/* */`
/// comments, labels (`L1:`) and directives (`.reg`, `.pred`, ...) are
/// skipped. Never fails: anything unrecognized becomes InstKind::Opaque with
/// Inst::Unknown set. Semantics follow PTX ISA 9.0 (docs/ptx.md).
std::vector<Inst> decode(const std::string &AsmTemplate);

} // namespace pkb::ptx

#endif // PKB_PTX_H
