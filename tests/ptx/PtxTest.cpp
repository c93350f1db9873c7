//===- PtxTest.cpp - Exact decoding of inline PTX
//--------------------------===//
//
// One parameterized test per instruction form (expected values from the PTX
// ISA sections cited in analyzer/lib/Ptx.cpp and docs/ptx.md), plus tests of
// statement splitting (braces, comments, labels, guards, multi-line).
//
//===----------------------------------------------------------------------===//

#include "pkb/Ptx.h"

#include <gtest/gtest.h>

#include <ostream>

using namespace pkb;
using pkb::ptx::InstKind;

namespace {

struct Form {
  const char *Asm;
  InstKind Kind;
  const char *Mnemonic;
  MemOrder Order;
  Scope Scp;
  AddrSpace Space;
  unsigned Width;
  const char *AtomicOp;
  int Addr;
  int Value;
  int Dest;
  BarrierKind Bar = BarrierKind::None;
  const char *Proxy = "";
};

void PrintTo(const Form &F, std::ostream *OS) { *OS << F.Asm; }

class PtxForm : public ::testing::TestWithParam<Form> {};

TEST_P(PtxForm, DecodesExactly) {
  const Form &F = GetParam();
  std::vector<ptx::Inst> Insts = ptx::decode(F.Asm);
  ASSERT_EQ(Insts.size(), 1u);
  const ptx::Inst &I = Insts[0];
  EXPECT_EQ(I.Kind, F.Kind);
  EXPECT_EQ(I.Mnemonic, F.Mnemonic);
  EXPECT_EQ(toString(I.Order), std::string(toString(F.Order)));
  EXPECT_EQ(toString(I.Scp), std::string(toString(F.Scp)));
  EXPECT_EQ(toString(I.Space), std::string(toString(F.Space)));
  EXPECT_EQ(I.Width, F.Width);
  EXPECT_EQ(I.AtomicOp, F.AtomicOp);
  EXPECT_EQ(I.AddrOperand, F.Addr);
  EXPECT_EQ(I.ValueOperand, F.Value);
  EXPECT_EQ(I.DestOperand, F.Dest);
  EXPECT_EQ(toString(I.Barrier), std::string(toString(F.Bar)));
  EXPECT_EQ(I.ProxyKind, F.Proxy);
  EXPECT_FALSE(I.Predicated);
  EXPECT_EQ(I.LineInAsm, 0u);
  EXPECT_FALSE(I.Unknown); // every form of the table is a known one
}

using K = InstKind;
using O = MemOrder;
using S = Scope;
using A = AddrSpace;
using B = BarrierKind;

const Form Forms[] = {
    // ld (9.7.9.8), ld.global.nc (9.7.9.9), ldu (9.7.9.10)
    {"ld.global.u32 %0, [%1];", K::Load, "ld", O::Plain, S::None, A::Global, 4,
     "", 1, -1, 0},
    {"ld.volatile.global.u32 %0, [%1];", K::Load, "ld", O::Volatile, S::System,
     A::Global, 4, "", 1, -1, 0},
    {"ld.relaxed.gpu.global.u64 %0, [%1+8];", K::Load, "ld", O::Relaxed, S::GPU,
     A::Global, 8, "", 1, -1, 0},
    {"ld.acquire.sys.global.u32 %0, [%1];", K::Load, "ld", O::Acquire,
     S::System, A::Global, 4, "", 1, -1, 0},
    {"ld.acquire.cta.shared::cta.b32 %0, [%1];", K::Load, "ld", O::Acquire,
     S::CTA, A::Shared, 4, "", 1, -1, 0},
    {"ld.shared::cluster.u16 %0, [%1];", K::Load, "ld", O::Plain, S::None,
     A::Shared, 2, "", 1, -1, 0},
    {"ld.global.nc.v4.u32 {%0, %1, %2, %3}, [%4];", K::Load, "ld.global.nc",
     O::Plain, S::None, A::Global, 16, "", 4, -1, 0},
    {"ldu.global.f64 %0, [%1];", K::Load, "ldu", O::Plain, S::None, A::Global,
     8, "", 1, -1, 0},
    {"ld.weak.global.v2.f32 {%0, %1}, [%2];", K::Load, "ld", O::Plain, S::None,
     A::Global, 8, "", 2, -1, 0},
    {"ld.local.b8 %0, [%1];", K::Load, "ld", O::Plain, S::None, A::Local, 1, "",
     1, -1, 0},
    {"ld.param.u64 %0, [%1];", K::Load, "ld", O::Plain, S::None, A::Unknown, 8,
     "", 1, -1, 0},
    {"ld.relaxed.global.b32 %0, [%1];", K::Load, "ld", O::Relaxed, S::GPU,
     A::Global, 4, "", 1, -1, 0},
    {"ld.mmio.relaxed.sys.global.u32 %0, [%1];", K::Load, "ld", O::Relaxed,
     S::System, A::Global, 4, "", 1, -1, 0},
    {"ld.global.L1::no_allocate.v2.b64 {%0, %1}, [%2];", K::Load, "ld",
     O::Plain, S::None, A::Global, 16, "", 2, -1, 0},
    {"ld.u32 %0, [%1];", K::Load, "ld", O::Plain, S::None, A::Unknown, 4, "", 1,
     -1, 0},
    {"ld.global.b128 %0, [%1];", K::Load, "ld", O::Plain, S::None, A::Global,
     16, "", 1, -1, 0},
    // st (9.7.9.11), st.async (9.7.9.12)
    {"st.global.u32 [%0], %1;", K::Store, "st", O::Plain, S::None, A::Global, 4,
     "", 0, 1, -1},
    {"st.release.sys.global.u32 [%0], %1;", K::Store, "st", O::Release,
     S::System, A::Global, 4, "", 0, 1, -1},
    {"st.volatile.shared.u64 [%0+16], %1;", K::Store, "st", O::Volatile,
     S::System, A::Shared, 8, "", 0, 1, -1},
    {"st.relaxed.cluster.shared::cluster.b32 [%0], %1;", K::Store, "st",
     O::Relaxed, S::Cluster, A::Shared, 4, "", 0, 1, -1},
    {"st.global.v4.bf16x2 [%0], {%1, %2, %3, %4};", K::Store, "st", O::Plain,
     S::None, A::Global, 16, "", 0, 1, -1},
    {"st.global.v2.f16 [%0], {%1, %2};", K::Store, "st", O::Plain, S::None,
     A::Global, 4, "", 0, 1, -1},
    {"st.async.shared::cluster.mbarrier::complete_tx::bytes.u32 [%0], %1, "
     "[%2];",
     K::Store, "st.async", O::Plain, S::None, A::Shared, 4, "", 0, 1, -1},
    // atom (9.7.13.5): .relaxed and .gpu by default
    {"atom.global.relaxed.sys.cas.b32 %0, [%1], 0, 1;", K::Atomic, "atom",
     O::Relaxed, S::System, A::Global, 4, "cas", 1, -1, 0},
    {"atom.global.sys.acquire.cas.b32 %0, [%1], %2, %3;", K::Atomic, "atom",
     O::Acquire, S::System, A::Global, 4, "cas", 1, 3, 0},
    {"atom.add.u32 %0, [%1], %2;", K::Atomic, "atom", O::Relaxed, S::GPU,
     A::Unknown, 4, "add", 1, 2, 0},
    {"atom.acq_rel.gpu.shared::cta.exch.b64 %0, [%1], %2;", K::Atomic, "atom",
     O::AcqRel, S::GPU, A::Shared, 8, "exch", 1, 2, 0},
    {"atom.release.cluster.global.inc.u32 %0, [%1], %2;", K::Atomic, "atom",
     O::Release, S::Cluster, A::Global, 4, "inc", 1, 2, 0},
    {"atom.global.add.v4.f32 {%0, %1, %2, %3}, [%4], {%5, %6, %7, %8};",
     K::Atomic, "atom", O::Relaxed, S::GPU, A::Global, 16, "add", 4, 5, 0},
    // red (9.7.13.6), red.async (9.7.13.7)
    {"red.release.sys.global.add.u32 [%0], %1;", K::Reduction, "red",
     O::Release, S::System, A::Global, 4, "add", 0, 1, -1},
    {"red.global.or.b32 [%0], %1;", K::Reduction, "red", O::Relaxed, S::GPU,
     A::Global, 4, "or", 0, 1, -1},
    {"red.relaxed.cta.shared.max.s32 [%0], %1;", K::Reduction, "red",
     O::Relaxed, S::CTA, A::Shared, 4, "max", 0, 1, -1},
    {"red.async.relaxed.cluster.shared::cluster.mbarrier::complete_tx::bytes."
     "add.u32 [%0], %1, [%2];",
     K::Reduction, "red.async", O::Relaxed, S::Cluster, A::Shared, 4, "add", 0,
     1, -1},
    // membar / fence (9.7.13.4)
    {"fence.sc.sys;", K::Fence, "fence", O::SeqCst, S::System, A::Unknown, 0,
     "", -1, -1, -1},
    {"fence.acq_rel.gpu;", K::Fence, "fence", O::AcqRel, S::GPU, A::Unknown, 0,
     "", -1, -1, -1},
    {"fence.gpu;", K::Fence, "fence", O::AcqRel, S::GPU, A::Unknown, 0, "", -1,
     -1, -1},
    {"fence.acquire.cluster;", K::Fence, "fence", O::Acquire, S::Cluster,
     A::Unknown, 0, "", -1, -1, -1},
    {"fence.proxy.alias;", K::Fence, "fence.proxy", O::Plain, S::None,
     A::Unknown, 0, "", -1, -1, -1, B::None, "alias"},
    {"fence.proxy.async.shared::cta;", K::Fence, "fence.proxy", O::Plain,
     S::None, A::Unknown, 0, "", -1, -1, -1, B::None, "async.shared::cta"},
    {"fence.proxy.tensormap::generic.release.gpu;", K::Fence, "fence.proxy",
     O::Release, S::GPU, A::Unknown, 0, "", -1, -1, -1, B::None,
     "tensormap::generic"},
    {"fence.mbarrier_init.release.cluster;", K::Fence, "fence.mbarrier_init",
     O::Release, S::Cluster, A::Unknown, 0, "", -1, -1, -1},
    {"membar.gl;", K::Fence, "membar", O::SeqCst, S::GPU, A::Unknown, 0, "", -1,
     -1, -1},
    {"membar.sys;", K::Fence, "membar", O::SeqCst, S::System, A::Unknown, 0, "",
     -1, -1, -1},
    {"membar.cta;", K::Fence, "membar", O::SeqCst, S::CTA, A::Unknown, 0, "",
     -1, -1, -1},
    {"membar.proxy.alias;", K::Fence, "membar.proxy", O::Plain, S::None,
     A::Unknown, 0, "", -1, -1, -1, B::None, "alias"},
    // bar / barrier (9.7.13.1-3)
    {"bar.sync 0;", K::Barrier, "bar.sync", O::AcqRel, S::CTA, A::Unknown, 0,
     "", -1, -1, -1, B::Block},
    {"bar.sync 1, 128;", K::Barrier, "bar.sync", O::AcqRel, S::CTA, A::Unknown,
     0, "", -1, -1, -1, B::Named},
    {"bar.arrive 2, 64;", K::Barrier, "bar.arrive", O::Release, S::CTA,
     A::Unknown, 0, "", -1, -1, -1, B::Named},
    {"barrier.sync.aligned 0;", K::Barrier, "barrier.sync", O::AcqRel, S::CTA,
     A::Unknown, 0, "", -1, -1, -1, B::Block},
    {"barrier.cta.arrive 1, 64;", K::Barrier, "barrier.arrive", O::Release,
     S::CTA, A::Unknown, 0, "", -1, -1, -1, B::Named},
    {"bar.red.popc.u32 %0, 0, %1;", K::Barrier, "bar.red", O::AcqRel, S::CTA,
     A::Unknown, 0, "", -1, -1, -1, B::Block},
    {"bar.warp.sync %0;", K::Barrier, "bar.warp.sync", O::AcqRel, S::CTA,
     A::Unknown, 0, "", -1, 0, -1, B::Warp},
    {"barrier.cluster.arrive.release.aligned;", K::Barrier,
     "barrier.cluster.arrive", O::Release, S::Cluster, A::Unknown, 0, "", -1,
     -1, -1, B::Cluster},
    {"barrier.cluster.arrive.relaxed;", K::Barrier, "barrier.cluster.arrive",
     O::Relaxed, S::Cluster, A::Unknown, 0, "", -1, -1, -1, B::Cluster},
    {"barrier.cluster.wait;", K::Barrier, "barrier.cluster.wait", O::Acquire,
     S::Cluster, A::Unknown, 0, "", -1, -1, -1, B::Cluster},
    // multimem (9.7.9.14): ld_reduce/st weak, red .relaxed.sys by default
    {"multimem.ld_reduce.relaxed.sys.global.add.v4.bf16x2 {%0, %1, %2, %3}, "
     "[%4];",
     K::Multimem, "multimem.ld_reduce", O::Relaxed, S::System, A::Multicast, 16,
     "add", 4, -1, 0},
    {"multimem.st.relaxed.sys.global.v4.f32 [%0], {%1, %2, %3, %4};",
     K::Multimem, "multimem.st", O::Relaxed, S::System, A::Multicast, 16, "", 0,
     1, -1},
    {"multimem.st.global.b32 [%0], %1;", K::Multimem, "multimem.st", O::Plain,
     S::None, A::Multicast, 4, "", 0, 1, -1},
    {"multimem.red.add.u32 [%0], %1;", K::Multimem, "multimem.red", O::Relaxed,
     S::System, A::Multicast, 4, "add", 0, 1, -1},
    {"multimem.red.release.gpu.global.add.f32 [%0], %1;", K::Multimem,
     "multimem.red", O::Release, S::GPU, A::Multicast, 4, "add", 0, 1, -1},
    {"multimem.ld_reduce.acquire.gpu.global.min.u32 %0, [%1];", K::Multimem,
     "multimem.ld_reduce", O::Acquire, S::GPU, A::Multicast, 4, "min", 1, -1,
     0},
    // cp.async, cp.async.bulk*, cp.reduce.async.bulk*
    {"cp.async.ca.shared.global [%0], [%1], 16;", K::BulkCopy, "cp.async",
     O::Plain, S::None, A::Shared, 16, "", 0, 1, -1},
    {"cp.async.commit_group;", K::BulkCopy, "cp.async.commit_group", O::Plain,
     S::None, A::Unknown, 0, "", -1, -1, -1},
    {"cp.async.wait_group 0;", K::BulkCopy, "cp.async.wait_group", O::Plain,
     S::None, A::Unknown, 0, "", -1, -1, -1},
    {"cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes "
     "[%0], [%1], %2, [%3];",
     K::BulkCopy, "cp.async.bulk", O::Plain, S::None, A::Shared, 0, "", 0, 1,
     -1},
    {"cp.async.bulk.global.shared::cta.bulk_group [%0], [%1], 256;",
     K::BulkCopy, "cp.async.bulk", O::Plain, S::None, A::Global, 256, "", 0, 1,
     -1},
    {"cp.reduce.async.bulk.global.shared::cta.bulk_group.add.f32 [%0], [%1], "
     "1024;",
     K::BulkCopy, "cp.reduce.async.bulk", O::Plain, S::None, A::Global, 1024,
     "add", 0, 1, -1},
    {"cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::"
     "complete_tx::bytes [%0], [%1, {%2, %3}], [%4];",
     K::BulkCopy, "cp.async.bulk.tensor", O::Plain, S::None, A::Shared, 0, "",
     0, 1, -1},
    {"cp.async.bulk.wait_group.read 0;", K::BulkCopy,
     "cp.async.bulk.wait_group", O::Plain, S::None, A::Unknown, 0, "", -1, -1,
     -1},
    {"cp.async.wait_all;", K::BulkCopy, "cp.async.wait_all", O::Plain, S::None,
     A::Unknown, 0, "", -1, -1, -1},
    {"cp.async.bulk.prefetch.L2.global [%0], %1;", K::BulkCopy,
     "cp.async.bulk.prefetch", O::Plain, S::None, A::Global, 0, "", 0, -1, -1},
    {"st.bulk.weak.shared::cta [%0], 4096, 0;", K::Store, "st.bulk", O::Plain,
     S::None, A::Shared, 4096, "", 0, -1, -1},
    {"fence.proxy.async::generic.acquire.sync_restrict::shared::cluster."
     "cluster;",
     K::Fence, "fence.proxy", O::Acquire, S::Cluster, A::Unknown, 0, "", -1, -1,
     -1, B::None, "async::generic"},
    // mbarrier (9.7.13.15)
    {"mbarrier.pending_count.b64 %0, %1;", K::MBarrier,
     "mbarrier.pending_count", O::Plain, S::None, A::Unknown, 8, "", -1, -1,
     -1},
    {"mbarrier.init.shared::cta.b64 [%0], %1;", K::MBarrier, "mbarrier.init",
     O::Plain, S::None, A::Shared, 8, "", 0, 1, -1},
    {"mbarrier.arrive.shared::cta.b64 %0, [%1];", K::MBarrier,
     "mbarrier.arrive", O::Release, S::CTA, A::Shared, 8, "", 1, -1, 0},
    {"mbarrier.arrive.release.cluster.shared::cluster.b64 _, [%0];",
     K::MBarrier, "mbarrier.arrive", O::Release, S::Cluster, A::Shared, 8, "",
     0, -1, -1},
    {"mbarrier.try_wait.parity.shared::cta.b64 p, [%0], %1;", K::MBarrier,
     "mbarrier.try_wait", O::Acquire, S::CTA, A::Shared, 8, "", 0, -1, -1},
    {"mbarrier.test_wait.relaxed.cluster.shared::cta.b64 %0, [%1], %2;",
     K::MBarrier, "mbarrier.test_wait", O::Relaxed, S::Cluster, A::Shared, 8,
     "", 1, -1, 0},
    {"mbarrier.expect_tx.relaxed.cta.shared::cta.b64 [%0], %1;", K::MBarrier,
     "mbarrier.expect_tx", O::Relaxed, S::CTA, A::Shared, 8, "", 0, 1, -1},
    {"cp.async.mbarrier.arrive.noinc.shared.b64 [%0];", K::MBarrier,
     "cp.async.mbarrier.arrive", O::Release, S::CTA, A::Shared, 8, "", 0, -1,
     -1},
    // No memory effect.
    {"mov.u32 %0, %%laneid;", K::Other, "mov", O::Plain, S::None, A::Unknown, 0,
     "", -1, -1, -1},
    {"setp.ne.s32 p, %0, 0;", K::Other, "setp", O::Plain, S::None, A::Unknown,
     0, "", -1, -1, -1},
    {"add.s64 %0, %1, %2;", K::Other, "add", O::Plain, S::None, A::Unknown, 0,
     "", -1, -1, -1},
    {"shfl.sync.bfly.b32 %0, %1, 16, 31, -1;", K::Other, "shfl", O::Plain,
     S::None, A::Unknown, 0, "", -1, -1, -1},
    {"nanosleep.u32 100;", K::Other, "nanosleep", O::Plain, S::None, A::Unknown,
     0, "", -1, -1, -1},
    {"prefetch.global.L2 [%0];", K::Other, "prefetch", O::Plain, S::None,
     A::Unknown, 0, "", -1, -1, -1},
    // Known, with a possible memory effect the model does not express:
    // Opaque, never dropped, and no ptx-unknown note.
    {"ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0, %1, %2, %3}, [%4];",
     K::Opaque, "ldmatrix", O::Plain, S::None, A::Shared, 0, "", 4, -1, -1},
    {"discard.global.L2 [%0], 128;", K::Opaque, "discard", O::Plain, S::None,
     A::Global, 0, "", 0, -1, -1},
    {"call.uni foo, (%0);", K::Opaque, "call", O::Plain, S::None, A::Unknown, 0,
     "", -1, -1, -1},
};

INSTANTIATE_TEST_SUITE_P(AllForms, PtxForm, ::testing::ValuesIn(Forms));

TEST(PtxDecode, OperandsAndTextAreNormalized) {
  auto I = ptx::decode("atom.global.relaxed.sys.cas.b32   %0,[%1] ,  0, 1;");
  ASSERT_EQ(I.size(), 1u);
  EXPECT_EQ(I[0].Text, "atom.global.relaxed.sys.cas.b32 %0,[%1] , 0, 1");
  EXPECT_EQ(I[0].Opcode, "atom");
  ASSERT_EQ(I[0].Operands.size(), 4u);
  EXPECT_EQ(I[0].Operands[0], "%0");
  EXPECT_EQ(I[0].Operands[1], "[%1]");
  EXPECT_EQ(I[0].Operands[2], "0");
  EXPECT_EQ(I[0].Operands[3], "1");
}

TEST(PtxDecode, DoublePercentIsARegisterNotAnOperand) {
  auto I = ptx::decode("st.global.u32 [%%rd1], %0;\nmov.u32 %0, %%laneid;");
  ASSERT_EQ(I.size(), 2u);
  EXPECT_EQ(I[0].AddrOperand, -1);
  EXPECT_EQ(I[0].ValueOperand, 0);
  EXPECT_EQ(I[0].Text, "st.global.u32 [%rd1], %0");
  EXPECT_EQ(I[1].Operands[1], "%laneid");
  EXPECT_EQ(I[1].LineInAsm, 1u);
}

TEST(PtxDecode, ScopesCommentsLabelsGuardsAndDirectives) {
  const char *Asm = "{\n"
                    "  .reg .pred p;\n"
                    "  .reg .b32 r;\n"
                    "WAIT:\n"
                    "  ld.acquire.sys.global.u32 r, [%1];  // poll; the flag\n"
                    "  setp.ne.u32 p, r, %2; /* compare; */\n"
                    "  @p bra WAIT;\n"
                    "  @!p st.relaxed.sys.global.u32 [%0], %3;\n"
                    "}\n";
  auto I = ptx::decode(Asm);
  ASSERT_EQ(I.size(), 4u);
  EXPECT_EQ(I[0].Kind, InstKind::Load);
  EXPECT_EQ(I[0].LineInAsm, 4u);
  EXPECT_EQ(I[0].AddrOperand, 1);
  EXPECT_EQ(I[0].DestOperand, -1); // `r` is a PTX register, not an operand
  EXPECT_EQ(I[1].Opcode, "setp");
  EXPECT_EQ(I[1].Kind, InstKind::Other);
  EXPECT_EQ(I[1].LineInAsm, 5u);
  EXPECT_EQ(I[2].Opcode, "bra");
  EXPECT_TRUE(I[2].Predicated);
  EXPECT_EQ(I[2].Text, "@p bra WAIT");
  EXPECT_EQ(I[2].LineInAsm, 6u);
  EXPECT_EQ(I[3].Kind, InstKind::Store);
  EXPECT_TRUE(I[3].Predicated);
  EXPECT_EQ(I[3].Order, MemOrder::Relaxed);
  EXPECT_EQ(I[3].Scp, Scope::System);
  EXPECT_EQ(I[3].AddrOperand, 0);
  EXPECT_EQ(I[3].ValueOperand, 3);
  EXPECT_EQ(I[3].LineInAsm, 7u);
}

TEST(PtxDecode, InstructionMaySpanLinesAndLastNeedsNoSemicolon) {
  auto I = ptx::decode("\n  multimem.ld_reduce.relaxed.sys.global.add.v4.f32 "
                       "{%0, %1,\n   %2, %3}, [%4];\n bar.sync 0");
  ASSERT_EQ(I.size(), 2u);
  EXPECT_EQ(I[0].LineInAsm, 1u);
  EXPECT_EQ(I[0].Width, 16u);
  EXPECT_EQ(I[0].AddrOperand, 4);
  EXPECT_EQ(I[0].DestOperand, 0);
  EXPECT_EQ(I[1].Mnemonic, "bar.sync");
  EXPECT_EQ(I[1].LineInAsm, 3u);
}

TEST(PtxDecode, LabelOnTheSameLineAndPredicateRegister) {
  auto I = ptx::decode("L1: bar.sync 0; $L__BB0_2:\n@%p1 red.global.add.u32 "
                       "[%0], 1;");
  ASSERT_EQ(I.size(), 2u);
  EXPECT_EQ(I[0].Mnemonic, "bar.sync");
  EXPECT_EQ(I[1].Kind, InstKind::Reduction);
  EXPECT_TRUE(I[1].Predicated);
  EXPECT_EQ(I[1].ValueOperand, -1);
  EXPECT_EQ(I[1].Operands[1], "1");
  EXPECT_EQ(I[1].LineInAsm, 1u);
}

TEST(PtxDecode, EmptyAndCommentOnlyTemplates) {
  EXPECT_TRUE(ptx::decode("").empty());
  EXPECT_TRUE(ptx::decode("  // nothing here\n /* nor here */ ;;\n").empty());
  EXPECT_TRUE(ptx::decode("{ .reg .b64 t; }").empty());
}

TEST(PtxDecode, MalformedInputNeverCrashesAndStaysOpaque) {
  auto I = ptx::decode("??? [%9 ;;; }{ /* unterminated");
  ASSERT_EQ(I.size(), 1u);
  EXPECT_EQ(I[0].Kind, InstKind::Opaque);
  EXPECT_EQ(I[0].Opcode, "???");
  auto J = ptx::decode("@p");
  EXPECT_TRUE(J.empty());
  auto L = ptx::decode("ld.global.u32 %99999999999, [%1];");
  ASSERT_EQ(L.size(), 1u);
  EXPECT_EQ(L[0].DestOperand, -1);
  EXPECT_EQ(L[0].AddrOperand, 1);
}

} // namespace

namespace {

TEST(PtxDecode, ArbitraryBytesNeverCrash) {
  // Deterministic pseudo-random templates over PTX-ish characters.
  const std::string Alphabet = "ld.st.atom%[]{}();:,@!/*\n 0123abc.v4.u32";
  unsigned long long X = 88172645463325252ull;
  for (int Round = 0; Round < 2000; ++Round) {
    std::string S;
    for (int I = 0; I < 40; ++I) {
      X ^= X << 13;
      X ^= X >> 7;
      X ^= X << 17;
      S.push_back(Alphabet[X % Alphabet.size()]);
    }
    for (const ptx::Inst &I : ptx::decode(S)) {
      EXPECT_FALSE(I.Text.empty());
      EXPECT_LE(I.LineInAsm, 40u);
    }
  }
}

} // namespace

namespace {

TEST(PtxDecode, UnknownInstructionsAreOpaqueAndNamed) {
  auto I = ptx::decode("foo.bar.u32 %0, [%1];\n"
                       "@p multimem.frob.global.u32 [%0], %1;\n"
                       "mbarrier.frob.shared::cta.b64 [%2];\n"
                       "barrier.cluster.sync;\n"
                       "bar.frob 0;\n"
                       "foo.bar.u32 %0, [%1];");
  ASSERT_EQ(I.size(), 6u);
  for (const ptx::Inst &X : I) {
    EXPECT_TRUE(X.Unknown) << X.Text;
    EXPECT_EQ(X.Kind, InstKind::Opaque) << X.Text;
    EXPECT_EQ(X.Order, MemOrder::Plain) << X.Text;
    EXPECT_EQ(X.Barrier, BarrierKind::None) << X.Text;
  }
  EXPECT_EQ(I[0].AddrOperand, 1); // the address it may touch is kept
  EXPECT_EQ(I[2].Space, AddrSpace::Shared);
  EXPECT_TRUE(I[1].Predicated);
  EXPECT_EQ(ptx::instructionName(I[1]), "multimem.frob.global.u32");
  EXPECT_EQ(ptx::unknownInstructionMessage(I[0]),
            "unknown PTX instruction 'foo.bar.u32' in inline asm; modeled as "
            "an opaque event");
  EXPECT_EQ(ptx::unknownInstructions(I),
            (std::vector<std::string>{"foo.bar.u32", "multimem.frob.global.u32",
                                      "mbarrier.frob.shared::cta.b64",
                                      "barrier.cluster.sync", "bar.frob"}));
  EXPECT_EQ(toString(ptx::UnknownInstructionCode), "ptx-unknown");
}

TEST(PtxDecode, KnownInstructionsAreNotUnknown) {
  auto I =
      ptx::decode("wgmma.fence.sync.aligned; tcgen05.commit.cta_group::1"
                  ".mbarrier::arrive::one.b64 [%0]; vmin2.u32.u32.u32 %0, "
                  "%1, %2, %3; bar.warp.sync -1; barrier.cta.sync.aligned "
                  "0; mbarrier.arrive.expect_tx.shared::cta.b64 %0, [%1],"
                  " %2; multimem.red.release.sys.global.add.u32 [%0], %1;"
                  " setp.eq.u32 p, %0, 1; sust.b.1d.b32.trap [%0, {%1}], "
                  "{%2}; tensormap.replace.tile.global_address.global.b1024"
                  ".b64 [%0], %1");
  ASSERT_EQ(I.size(), 10u);
  for (const ptx::Inst &X : I)
    EXPECT_FALSE(X.Unknown) << X.Text;
  EXPECT_TRUE(ptx::unknownInstructions(I).empty());
  EXPECT_EQ(I[2].Kind, InstKind::Other);
  EXPECT_EQ(I[3].Barrier, BarrierKind::Warp);
}

} // namespace

namespace {

// fuzz_ptx, crash 1: `atom.async...` was decoded as an Atomic with mnemonic
// "red.async" (the red.async rule keyed on `.async` alone). atom has no
// .async form: it is unknown now, and red.async keeps its meaning.
TEST(PtxFuzzRegression, AtomAsyncIsUnknownNotRedAsync) {
  auto I = ptx::decode("atom.async.bulk.shared::cluster.global.u32 %0, [%1], "
                       "%2;\nred.async.relaxed.cluster.shared::cluster.mbarrier"
                       "::complete_tx::bytes.add.u32 [%0], %1, [%2];");
  ASSERT_EQ(I.size(), 2u);
  EXPECT_TRUE(I[0].Unknown);
  EXPECT_EQ(I[0].Kind, InstKind::Opaque);
  EXPECT_EQ(I[0].Mnemonic, "atom");
  EXPECT_EQ(I[0].AddrOperand, 1);
  EXPECT_EQ(ptx::unknownInstructionMessage(I[0]),
            "unknown PTX instruction 'atom.async.bulk.shared::cluster.global."
            "u32' in inline asm; modeled as an opaque event");
  EXPECT_FALSE(I[1].Unknown);
  EXPECT_EQ(I[1].Kind, InstKind::Reduction);
  EXPECT_EQ(I[1].Mnemonic, "red.async");
}

} // namespace
