//===- HostOpsTest.cpp - Host operations of solution()/forward() ----------===//

#include "pkb/Ingest.h"

#include <gtest/gtest.h>

using namespace pkb;

namespace {

struct Want {
  HostOp::OpKind Kind;
  std::string Callee;
  std::string Target;
  std::vector<std::string> Args;
  unsigned Line, Col;
};

void expectOps(const std::vector<HostOp> &Got, const std::vector<Want> &Exp,
               const std::string &File) {
  ASSERT_EQ(Got.size(), Exp.size());
  for (size_t I = 0; I < Exp.size(); ++I) {
    SCOPED_TRACE("op " + std::to_string(I) + ": " + Exp[I].Callee);
    EXPECT_EQ(toString(Got[I].Kind), std::string(toString(Exp[I].Kind)));
    EXPECT_EQ(Got[I].Callee, Exp[I].Callee);
    EXPECT_EQ(Got[I].Target, Exp[I].Target);
    EXPECT_EQ(Got[I].Args, Exp[I].Args);
    EXPECT_EQ(Got[I].Loc.File, File);
    EXPECT_EQ(Got[I].Loc.Line, Exp[I].Line);
    EXPECT_EQ(Got[I].Loc.Col, Exp[I].Col);
  }
}

std::string dataPath(const char *Name) {
  return std::string(PKB_SOURCE_DIR) + "/tests/ingest/data/" + Name;
}

TEST(HostOps, OneShotAllReduceSolution) {
  std::string P = dataPath("oneshot_allreduce.py");
  Input In = readInput(P);
  expectOps(In.HostOps,
            {
                {HostOp::SymmAlloc,
                 "symm_mem.empty",
                 "buf",
                 {"n", "device=tensor.device", "dtype=torch.float32"},
                 90,
                 11},
                {HostOp::Rendezvous,
                 "symm_mem.rendezvous",
                 "hdl",
                 {"buf", "dist.group.WORLD"},
                 91,
                 11},
                {HostOp::SymmWrite,
                 "buf.copy_",
                 "buf",
                 {"tensor.reshape(-1)"},
                 92,
                 5},
                {HostOp::KernelCall,
                 "ext.one_shot_all_reduce",
                 "ext",
                 {"hdl.buffer_ptrs_dev", "hdl.signal_pad_ptrs_dev", "out", "n",
                  "rank", "world_size", "_epoch"},
                 97,
                 5},
                {HostOp::Barrier, "hdl.barrier", "hdl", {"channel=0"}, 102, 5},
            },
            P);
}

TEST(HostOps, ForwardAfterInitWithCachedModule) {
  std::string P = dataPath("cuda_cpp_src.py");
  Input In = readInput(P);
  expectOps(In.HostOps,
            {
                {HostOp::SymmAlloc,
                 "symm_mem.empty",
                 "self.buf",
                 {"numel", "device=\"cuda\"", "dtype=torch.float32"},
                 59,
                 20},
                {HostOp::Rendezvous,
                 "symm_mem.rendezvous",
                 "self.hdl",
                 {"self.buf", "dist.group.WORLD"},
                 60,
                 20},
                {HostOp::SymmWrite, "self.buf.copy_", "self.buf", {"x"}, 65, 9},
                {HostOp::Barrier,
                 "self.hdl.barrier",
                 "self.hdl",
                 {"channel=0"},
                 66,
                 9},
                {HostOp::KernelCall,
                 "ext.ring_exchange",
                 "self.ext",
                 {"self.buf", "int(self.hdl.buffer_ptrs[peer])",
                  "int(self.hdl.signal_pad_ptrs[peer])", "rank"},
                 67,
                 15},
                {HostOp::Collective, "dist.all_reduce", "", {"out"}, 69, 9},
            },
            P);
}

TEST(HostOps, HelpersAreInlinedWithReturnAndParameterNames) {
  std::string P = dataPath("multimem_allreduce.py");
  Input In = readInput(P);
  EXPECT_TRUE(In.Diags.empty());
  ASSERT_EQ(In.Units.size(), 1u);
  EXPECT_EQ(In.Units[0].Name, P + ":CUDA_SRC@14");
  expectOps(In.HostOps,
            {
                {HostOp::SymmAlloc,
                 "symm_mem.empty",
                 "buf",
                 {"flat.numel()", "device=flat.device", "dtype=flat.dtype"},
                 83,
                 12},
                {HostOp::Rendezvous,
                 "symm_mem.rendezvous",
                 "hdl",
                 {"buf", "dist.group.WORLD"},
                 84,
                 14},
                {HostOp::SymmWrite, "buf.copy_", "buf", {"flat"}, 95, 5},
                {HostOp::Barrier, "dist.barrier", "", {}, 96, 5},
                {HostOp::KernelCall,
                 "ext.multimem_all_reduce",
                 "_get_ext()",
                 {"int(hdl.multicast_ptr)", "pads", "flat.numel() // 8",
                  "hdl.rank", "hdl.world_size", "4"},
                 97,
                 5},
                {HostOp::Barrier, "hdl.barrier", "hdl", {"channel=1"}, 100, 5},
            },
            P);
}

TEST(HostOps, NoCudaFileStillListsCollectives) {
  std::string P = dataPath("no_cuda.py");
  Input In = readInput(P);
  ASSERT_EQ(In.Diags.size(), 1u);
  EXPECT_EQ(In.Diags[0].Code, "no-cuda");
  expectOps(In.HostOps,
            {
                {HostOp::Collective,
                 "dist.all_reduce",
                 "",
                 {"out", "op=dist.ReduceOp.SUM"},
                 12,
                 5},
                {HostOp::Barrier, "dist.barrier", "", {}, 13, 5},
            },
            P);
}

TEST(HostOps, ControlFlowNestedDefsLambdasAndImports) {
  std::string Src =
      "import torch\n"                                                 // 1
      "from torch.distributed import all_gather_into_tensor as agit\n" // 2
      "import torch.distributed._symmetric_memory as sm\n"             // 3
      "ext = load_inline('e', '', '__global__ void k(){}')\n"          // 4
      "def setup(t, group):\n"                                         // 5
      "    b = sm.empty(t.shape, dtype=t.dtype, device=t.device)\n"    // 6
      "    h = sm.rendezvous(b, group)\n"                              // 7
      "    peer = h.get_buffer(1, t.shape, t.dtype)\n"                 // 8
      "    return b, h\n"                                              // 9
      "def solution(x, pg):\n"                                         // 10
      "    def unused():\n"                                            // 11
      "        ext.never(x)\n"                                         // 12
      "    buf, hdl = setup(x, group=pg)\n"                            // 13
      "    if x.numel() > 0: buf.zero_(); hdl.barrier(channel=2)\n"    // 14
      "    else:\n"                                                    // 15
      "        buf.fill_(1.0)\n"                                       // 16
      "    f = lambda y: ext.also_never(y)\n"                          // 17
      "    for i in range(2):\n"                                       // 18
      "        ext.step(buf, i)\n"                                     // 19
      "    agit(x, buf)\n"                                             // 20
      "    torch.ops.symm_mem.one_shot_all_reduce(buf, 'sum', "
      "pg.group_name)\n"                                      // 21
      "    hdl.get_buffer(0, (4,), torch.float32).copy_(x)\n" // 22
      "    return ext.finish(ext.peek(buf))\n";               // 23
  Input In = extractPython("c.py", Src);
  expectOps(
      In.HostOps,
      {
          {HostOp::SymmAlloc,
           "sm.empty",
           "buf",
           {"x.shape", "dtype=x.dtype", "device=x.device"},
           6,
           9},
          {HostOp::Rendezvous, "sm.rendezvous", "hdl", {"buf", "pg"}, 7, 9},
          {HostOp::Other,
           "hdl.get_buffer",
           "peer",
           {"1", "x.shape", "x.dtype"},
           8,
           12},
          {HostOp::SymmWrite, "buf.zero_", "buf", {}, 14, 23},
          {HostOp::Barrier, "hdl.barrier", "hdl", {"channel=2"}, 14, 36},
          {HostOp::SymmWrite, "buf.fill_", "buf", {"1.0"}, 16, 9},
          {HostOp::KernelCall, "ext.step", "ext", {"buf", "i"}, 19, 9},
          {HostOp::Collective, "agit", "", {"x", "buf"}, 20, 5},
          {HostOp::Collective,
           "torch.ops.symm_mem.one_shot_all_reduce",
           "",
           {"buf", "'sum'", "pg.group_name"},
           21,
           5},
          {HostOp::SymmWrite,
           "hdl.get_buffer(0, (4,), torch.float32).copy_",
           "hdl.get_buffer(0, (4,), torch.float32)",
           {"x"},
           22,
           5},
          {HostOp::KernelCall, "ext.peek", "ext", {"buf"}, 23, 23},
          {HostOp::KernelCall, "ext.finish", "ext", {"ext.peek(buf)"}, 23, 12},
      },
      "c.py");
}

TEST(HostOps, PeerBufferReadsInPlace) {
  std::string Src =
      "import torch\n"                                                 // 1
      "import torch.distributed as dist\n"                             // 2
      "def solution(x, hdl, rank, peer):\n"                            // 3
      "    a = hdl.get_buffer(0, (4,), torch.int32).clone()\n"         // 4
      "    b = hdl.get_buffer(rank, (4,), torch.int32).clone()\n"      // 5
      "    x.copy_(hdl.get_buffer(peer, (4,), torch.int32))\n"         // 6
      "    c = hdl.get_buffer(dist.get_rank(), (4,), x.dtype).sum()\n" // 7
      "    hdl.get_buffer(1, (4,), x.dtype).zero_()\n"                 // 8
      "    v = hdl.get_buffer(1, (4,), x.dtype)\n"                     // 9
      "    return a + b + c + v\n";                                    // 10
  Input In = extractPython("r.py", Src);
  // A peer's buffer read in place is a SymmRead (lines 4 and 6, the
  // argument before the call it feeds); the own rank's (5, 7), a write
  // through the view (8) and a named view (9) are not.
  expectOps(In.HostOps,
            {
                {HostOp::SymmRead,
                 "hdl.get_buffer",
                 "hdl",
                 {"0", "(4,)", "torch.int32"},
                 4,
                 9},
                {HostOp::SymmRead,
                 "hdl.get_buffer",
                 "hdl",
                 {"peer", "(4,)", "torch.int32"},
                 6,
                 13},
                {HostOp::SymmWrite,
                 "x.copy_",
                 "x",
                 {"hdl.get_buffer(peer, (4,), torch.int32)"},
                 6,
                 5},
                {HostOp::SymmWrite,
                 "hdl.get_buffer(1, (4,), x.dtype).zero_",
                 "hdl.get_buffer(1, (4,), x.dtype)",
                 {},
                 8,
                 5},
                {HostOp::Other,
                 "hdl.get_buffer",
                 "v",
                 {"1", "(4,)", "x.dtype"},
                 9,
                 9},
            },
            "r.py");
}

TEST(HostOps, RecursiveHelpersAreInlinedOnce) {
  std::string Src = "def a(n):\n"
                    "    dist.barrier()\n"
                    "    return a(n - 1)\n"
                    "def solution():\n"
                    "    a(3)\n";
  Input In = extractPython("r.py", Src);
  ASSERT_EQ(In.HostOps.size(), 1u);
  EXPECT_EQ(In.HostOps[0].Kind, HostOp::Barrier);
  EXPECT_EQ(In.HostOps[0].Loc.Line, 2u);
}

TEST(HostOps, WithoutSolutionTheFunctionCallingTheExtensionIsUsed) {
  std::string Src = "_m = None\n"
                    "def get():\n"
                    "    global _m\n"
                    "    if _m is None:\n"
                    "        _m = compile_cuda_extension('x', SRC)\n"
                    "    return _m\n"
                    "def helper(t):\n"
                    "    return t + 1\n"
                    "def run(t):\n"
                    "    get().kernel(t)\n";
  Input In = extractPython("w.py", Src);
  ASSERT_EQ(In.HostOps.size(), 1u);
  EXPECT_EQ(In.HostOps[0].Kind, HostOp::KernelCall);
  EXPECT_EQ(In.HostOps[0].Callee, "ext.kernel");
  EXPECT_EQ(In.HostOps[0].Target, "get()");
  EXPECT_EQ(In.HostOps[0].Loc.Line, 10u);
  EXPECT_EQ(In.HostOps[0].Loc.Col, 5u);
}

TEST(HostOps, NoEntryNoOps) {
  Input In = extractPython("x.py", "dist.barrier()\nS = '__global__ void "
                                   "k(){}'\n");
  EXPECT_TRUE(In.HostOps.empty());
  EXPECT_EQ(In.Units.size(), 1u);
}

} // namespace

TEST(HostOps, NestingDepthCountsEnclosingBlocks) {
  std::string Src = "import torch.distributed as dist\n"
                    "def sync(h, first):\n"
                    "    if first:\n"
                    "        h.barrier()\n"
                    "def solution(x, h):\n"
                    "    dist.barrier()\n"
                    "    if x: dist.barrier()\n"
                    "    for i in range(2):\n"
                    "        h.barrier()\n"
                    "    sync(h, True)\n"
                    "    with ctx():\n"
                    "        sync(h, True)\n";
  Input In = extractPython("d.py", Src);
  std::vector<unsigned> Depths;
  for (const HostOp &H : In.HostOps)
    if (H.Kind == HostOp::Barrier)
      Depths.push_back(H.Depth);
  EXPECT_EQ(Depths, (std::vector<unsigned>{0, 1, 1, 1, 2}));
}
