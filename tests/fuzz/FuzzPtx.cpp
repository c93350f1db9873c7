//===- FuzzPtx.cpp - libFuzzer target: the inline-PTX decoder -------------===//
//
// Input: the template string of an asm statement (escapes processed).
// Checks: ptx::decode never crashes, and each instruction is well formed.
//
//===----------------------------------------------------------------------===//

#include "pkb/Ptx.h"

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>

namespace {
[[noreturn]] void fail(const char *What, const std::string &Text) {
  std::fprintf(stderr, "fuzz_ptx: %s: '%s'\n", What, Text.c_str());
  std::abort();
}
} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *Data, size_t Size) {
  std::string Asm(reinterpret_cast<const char *>(Data), Size);
  std::vector<pkb::ptx::Inst> Insts = pkb::ptx::decode(Asm);
  auto Lines = static_cast<unsigned>(std::count(Asm.begin(), Asm.end(), '\n'));
  for (const pkb::ptx::Inst &I : Insts) {
    if (I.Opcode.empty() || I.Text.empty())
      fail("empty opcode or text", I.Text);
    if (I.Mnemonic.rfind(I.Opcode, 0) != 0)
      fail("mnemonic does not start with the opcode", I.Mnemonic);
    if (I.LineInAsm > Lines)
      fail("line past the end", I.Text);
    if (I.AddrOperand < -1 || I.ValueOperand < -1 || I.DestOperand < -1)
      fail("negative operand index", I.Text);
    if (I.Unknown && I.Kind != pkb::ptx::InstKind::Opaque)
      fail("unknown instruction with a decoded kind", I.Text);
    if (I.Unknown && pkb::ptx::instructionName(I).empty())
      fail("unknown instruction without a name", I.Text);
  }
  (void)pkb::ptx::unknownInstructions(Insts);
  return 0;
}
