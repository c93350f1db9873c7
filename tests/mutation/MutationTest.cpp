//===- MutationTest.cpp - Unit tests of the mutation operators and scoring ===//
//
// Every operator on small inline sources: the exact mutated text of each
// site, and the places it must leave alone (comments, reads, host code).
// Then the scoring helpers of pkb_accuracy on synthetic findings.
//
//===----------------------------------------------------------------------===//
#include "Mutation.h"
#include "Scoring.h"

#include <gtest/gtest.h>

#include <algorithm>

using namespace pkb;
using namespace pkb::mutation;
using namespace pkb::accuracy;

namespace {

/// The mutated texts of operator \p O on \p Src, in site order.
std::vector<std::string> mutants(const std::string &Src, Op O,
                                 bool Python = false) {
  std::vector<std::string> R;
  for (const Mutant &M : findMutants(Src, Python, {O})) {
    EXPECT_EQ(M.Kind, O);
    std::string Out = M.apply(Src);
    // Line numbers are preserved by every operator.
    EXPECT_EQ(std::count(Out.begin(), Out.end(), '\n'),
              std::count(Src.begin(), Src.end(), '\n'))
        << Out;
    R.push_back(Out);
  }
  return R;
}

std::string kernel(const std::string &Body) {
  return "__global__ void k(float** bufs, uint32_t** pads, int rank, int "
         "world_size) {\n" +
         Body + "}\n";
}

TEST(Operators, Table) {
  ASSERT_EQ(operators().size(), 7u);
  for (const OperatorInfo &I : operators()) {
    EXPECT_EQ(parseOperator(I.Name), I.Kind);
    EXPECT_EQ(&info(I.Kind), &I);
    EXPECT_FALSE(I.Ids.empty()) << I.Name;
  }
  EXPECT_FALSE(parseOperator("drop-everything"));
  EXPECT_EQ(info(Op::DropFence).Ids,
            (std::vector<std::string>{"ORD-001", "ORD-002"}));
  EXPECT_EQ(info(Op::DropModWorld).Ids, (std::vector<std::string>{"PART-001"}));
}

TEST(DropFence, ThreadfenceSystem) {
  std::string Src = kernel("  x[0] = 1;\n"
                           "  __threadfence_system();\n"
                           "  // __threadfence_system(); in a comment\n"
                           "  __threadfence();\n"
                           "  f[0] = 1;\n");
  auto M = mutants(Src, Op::DropFence);
  ASSERT_EQ(M.size(), 1u);
  EXPECT_EQ(M[0], kernel("  x[0] = 1;\n"
                         "  \n"
                         "  // __threadfence_system(); in a comment\n"
                         "  __threadfence();\n"
                         "  f[0] = 1;\n"));
}

TEST(DropFence, PtxAndLibcudacxx) {
  std::string Src =
      kernel("  asm volatile(\"fence.acq_rel.sys;\" ::: \"memory\");\n"
             "  asm volatile(\"fence.acq_rel.gpu;\" ::: \"memory\");\n"
             "  cuda::atomic_thread_fence(cuda::std::memory_order_seq_cst,\n"
             "                            cuda::thread_scope_system);\n"
             "  cuda::atomic_thread_fence(cuda::std::memory_order_seq_cst,\n"
             "                            cuda::thread_scope_device);\n");
  auto M = mutants(Src, Op::DropFence);
  ASSERT_EQ(M.size(), 2u);
  EXPECT_EQ(
      M[0],
      kernel("  \n"
             "  asm volatile(\"fence.acq_rel.gpu;\" ::: \"memory\");\n"
             "  cuda::atomic_thread_fence(cuda::std::memory_order_seq_"
             "cst,\n"
             "                            cuda::thread_scope_system);\n"
             "  cuda::atomic_thread_fence(cuda::std::memory_order_seq_"
             "cst,\n"
             "                            cuda::thread_scope_device);\n"));
  EXPECT_EQ(
      M[1],
      kernel("  asm volatile(\"fence.acq_rel.sys;\" ::: \"memory\");\n"
             "  asm volatile(\"fence.acq_rel.gpu;\" ::: \"memory\");\n"
             "  \n"
             "\n"
             "  cuda::atomic_thread_fence(cuda::std::memory_order_seq_"
             "cst,\n"
             "                            cuda::thread_scope_device);\n"));
}

TEST(DropFence, FenceInsideLargerAsmAndSoleBody) {
  std::string Src =
      kernel("  asm volatile(\"fence.sc.sys; st.relaxed.sys.u32 [%0], %1;\" "
             ":: \"l\"(f), \"r\"(v));\n"
             "  if (t) __threadfence_system();\n");
  auto M = mutants(Src, Op::DropFence);
  ASSERT_EQ(M.size(), 2u);
  EXPECT_EQ(M[0], kernel("  asm volatile(\" st.relaxed.sys.u32 [%0], %1;\" "
                         ":: \"l\"(f), \"r\"(v));\n"
                         "  if (t) __threadfence_system();\n"));
  EXPECT_EQ(M[1], kernel("  asm volatile(\"fence.sc.sys; st.relaxed.sys.u32 "
                         "[%0], %1;\" :: \"l\"(f), \"r\"(v));\n"
                         "  if (t) ;\n"));
}

TEST(WeakenScope, EveryForm) {
  std::string Src =
      "using sys_ref = cuda::atomic_ref<uint32_t, cuda::thread_scope_system>;\n"
      "// ld.acquire.sys in a comment\n" +
      kernel("  asm volatile(\"st.release.sys.global.u32 [%0], %1;\" :: "
             "\"l\"(p), \"r\"(v) : \"memory\");\n"
             "  atomicAdd_system(c, 1);\n"
             "  __threadfence_system();\n"
             "  asm volatile(\"ld.acquire.system.u32 %0, [%1];\");\n");
  auto M = mutants(Src, Op::WeakenScope);
  ASSERT_EQ(M.size(), 4u);
  auto Replace = [&](const std::string &From, const std::string &To) {
    std::string S = Src;
    S.replace(S.find(From), From.size(), To);
    return S;
  };
  EXPECT_EQ(M[0], Replace("thread_scope_system", "thread_scope_device"));
  EXPECT_EQ(M[1], Replace("st.release.sys", "st.release.gpu"));
  EXPECT_EQ(M[2], Replace("atomicAdd_system(", "atomicAdd("));
  EXPECT_EQ(M[3], Replace("__threadfence_system", "__threadfence"));
}

TEST(DropSyncthreads, DeviceOnly) {
  std::string Src = "void host() { __syncthreads(); }\n" +
                    kernel("  __syncthreads();\n  s[t] = 1;\n"
                           "  __syncthreads();\n  __syncwarp();\n");
  auto M = mutants(Src, Op::DropSyncthreads);
  ASSERT_EQ(M.size(), 2u);
  EXPECT_EQ(M[0], "void host() { __syncthreads(); }\n" +
                      kernel("  \n  s[t] = 1;\n"
                             "  __syncthreads();\n  __syncwarp();\n"));
  EXPECT_EQ(M[1], "void host() { __syncthreads(); }\n" +
                      kernel("  __syncthreads();\n  s[t] = 1;\n"
                             "  \n  __syncwarp();\n"));
}

TEST(DropModWorld, PeerIndicesOnly) {
  std::string Src = kernel(
      "  float* d = bufs[(rank + 1) % world_size];\n"
      "  const int q = (rank + s) % view.world_size, c = (rank + 2) % W;\n"
      "  out[i] = bufs[q][i] + in[c * n + i % n];\n");
  auto M = mutants(Src, Op::DropModWorld);
  ASSERT_EQ(M.size(), 2u);
  EXPECT_EQ(M[0],
            kernel("  float* d = bufs[(rank + 1)];\n"
                   "  const int q = (rank + s) % view.world_size, c = (rank + "
                   "2) % W;\n"
                   "  out[i] = bufs[q][i] + in[c * n + i % n];\n"));
  EXPECT_EQ(M[1], kernel("  float* d = bufs[(rank + 1) % world_size];\n"
                         "  const int q = (rank + s), c = (rank + 2) % W;\n"
                         "  out[i] = bufs[q][i] + in[c * n + i % n];\n"));
}

TEST(DropTrailingBarrier, HelperCall) {
  std::string Src = kernel("  mine[i] = in[i];\n"
                           "  block_barrier(pads, rank, world_size, 2 * e);\n"
                           "  for (int p = 0; p < world_size; ++p) acc += "
                           "bufs[p][i];\n"
                           "  block_barrier(pads, rank, world_size, 2 * e + "
                           "1);\n");
  auto M = mutants(Src, Op::DropTrailingBarrier);
  ASSERT_EQ(M.size(), 1u);
  EXPECT_EQ(M[0], kernel("  mine[i] = in[i];\n"
                         "  block_barrier(pads, rank, world_size, 2 * e);\n"
                         "  for (int p = 0; p < world_size; ++p) acc += "
                         "bufs[p][i];\n"
                         "  \n"));
}

TEST(DropTrailingBarrier, InlineExitWaitAndNoTrailing) {
  std::string Src = kernel("  __syncthreads();\n"
                           "  if (threadIdx.x < world_size) {\n"
                           "    st_release_sys(pads[threadIdx.x] + rank, e);\n"
                           "    while (ld_acquire_sys(pads[rank] + "
                           "threadIdx.x) < e) {\n"
                           "    }\n"
                           "  }\n");
  auto M = mutants(Src, Op::DropTrailingBarrier);
  ASSERT_EQ(M.size(), 1u);
  EXPECT_EQ(M[0], kernel("  __syncthreads();\n"
                         "  if (threadIdx.x < world_size) {\n"
                         "    st_release_sys(pads[threadIdx.x] + rank, e);\n"
                         "    \n\n"
                         "  }\n"));
  // A wait followed by the work it guards is not an exit barrier.
  EXPECT_TRUE(mutants(kernel("  while (ld_acquire_sys(f) < e) {}\n"
                             "  for (int i = 0; i < n; ++i) out[i] = "
                             "bufs[1][i];\n"),
                      Op::DropTrailingBarrier)
                  .empty());
}

TEST(DropTrailingBarrier, PythonHost) {
  std::string Src = "CUDA_SRC = r'''\n__global__ void k(const float* x) "
                    "{}\n'''\n\n"
                    "def solution(x):\n"
                    "    hdl.barrier(channel=0)\n"
                    "    ext.k(x)\n"
                    "    hdl.barrier(channel=0)\n"
                    "    return x\n\n"
                    "def other():\n"
                    "    hdl.barrier(channel=0)\n";
  auto M = mutants(Src, Op::DropTrailingBarrier, true);
  ASSERT_EQ(M.size(), 1u);
  std::string Want = Src;
  size_t P = Want.find("hdl.barrier", Want.find("ext.k"));
  Want.replace(P, std::string("hdl.barrier(channel=0)").size(), "pass");
  EXPECT_EQ(M[0], Want);
}

TEST(DropElemScale, WritesAndSignalsOnly) {
  std::string Src =
      kernel("  st_release_sys(pads[p] + blockIdx.x * kMaxRanks + rank, v);\n"
             "  mine[c * C + j] = in[c * C + j];\n"
             "  *(volatile uint32_t*)(pads[p] + b * 8 + r) = v;\n"
             "  int* meta = reinterpret_cast<int*>(base + 16) + 2 * slot;\n"
             "  const float* src = bufs[q] + rank * count;\n"
             "  p[i << 2] = (size_t)i * sizeof(float);\n"
             "  sys_ref(f[b * W + r]).store(2 * e, "
             "cuda::std::memory_order_release);\n"
             // Pointer declarators, not products: no mutant.
             "  bf16_t *D[1] = {y + r * n};\n"
             "  const bf16_t *S[1] = {x + lo};\n");
  auto M = mutants(Src, Op::DropElemScale);
  std::vector<std::pair<std::string, std::string>> Edits = {
      {"blockIdx.x * kMaxRanks + rank", "blockIdx.x + rank"},
      {"mine[c * C + j]", "mine[c + j]"},
      {"b * 8 + r", "b + r"},
      {"2 * slot", "slot"},
      {"p[i << 2]", "p[i]"},
      {"f[b * W + r]", "f[b + r]"},
  };
  ASSERT_EQ(M.size(), Edits.size());
  for (size_t I = 0; I < Edits.size(); ++I) {
    std::string Want = Src;
    Want.replace(Want.find(Edits[I].first), Edits[I].first.size(),
                 Edits[I].second);
    EXPECT_EQ(M[I], Want) << I;
  }
}

TEST(ShiftChunk, ChunkProductsInWrites) {
  std::string Src =
      kernel("  const int64_t C = (n + world_size - 1) / world_size;\n"
             "  mine[c * C + j] = in[c * C + j];\n"
             "  out[q * m + j] = src[j];\n"
             "  pads[p][b * kMaxRanks + r] = v;\n");
  auto M = mutants(Src, Op::ShiftChunk);
  ASSERT_EQ(M.size(), 2u);
  std::string W0 = Src, W1 = Src;
  W0.replace(W0.find("mine[c * C + j]"), 15, "mine[c * C + 1 + j]");
  W1.replace(W1.find("out[q * m + j]"), 14, "out[q * m + 1 + j]");
  EXPECT_EQ(M[0], W0);
  EXPECT_EQ(M[1], W1);
}

TEST(Python, OnlyCudaStringsAreMutated) {
  std::string Src = "\"\"\"docs: out[q * m + j] = x; __syncthreads();\"\"\"\n"
                    "CUDA_SRC = r'''\n" +
                    kernel("  __syncthreads();\n") +
                    "'''\n"
                    "# __syncthreads();\n";
  auto M = mutants(Src, Op::DropSyncthreads, true);
  ASSERT_EQ(M.size(), 1u);
  std::string Want = Src;
  Want.replace(Want.find("  __syncthreads();\n}"), 19, "  \n");
  EXPECT_EQ(M[0], Want);
  EXPECT_TRUE(mutants(Src, Op::ShiftChunk, true).empty());
}

TEST(Mutant, LineAndColumn) {
  std::string Src = kernel("  x[0] = 1;\n  __syncthreads();\n");
  auto Ms = findMutants(Src, false, {Op::DropSyncthreads});
  ASSERT_EQ(Ms.size(), 1u);
  EXPECT_EQ(Ms[0].Line, 3u);
  EXPECT_EQ(Ms[0].Col, 3u);
  EXPECT_EQ(Ms[0].Original, "__syncthreads();");
}

//===----------------------------------------------------------------------===//
// Scoring
//===----------------------------------------------------------------------===//

Finding finding(unsigned Line, const std::string &Id, Severity S) {
  Finding F;
  F.CheckId = Id;
  F.Sev = S;
  F.Loc.Line = Line;
  return F;
}

TEST(Scoring, Annotations) {
  auto A = readAnnotations("x;\n"
                           "y;  // expect: ORD-001\n"
                           "z  # expect: HOST-001  \n"
                           "w; // expect: ORD-001 and more\n");
  EXPECT_EQ(A, (std::set<Key>{{2, "ORD-001"}, {3, "HOST-001"}}));
}

TEST(Scoring, FilesAndCorpus) {
  // Buggy file: one hit, one false positive, one miss; a note is ignored.
  FileScore B = scoreFile("b.cu", {{10, "ORD-001"}, {20, "BAR-004"}},
                          {finding(10, "ORD-001", Severity::Error),
                           finding(11, "ORD-002", Severity::Warning),
                           finding(20, "BAR-004", Severity::Note)},
                          "ok", 1.5);
  EXPECT_EQ(B.C.Tp, 1u);
  EXPECT_EQ(B.C.Fp, 1u);
  EXPECT_EQ(B.C.Fn, 1u);
  EXPECT_FALSE(B.Exact);
  EXPECT_EQ(B.ErrorFindings, 1u);
  // Correct file with an error (false alarm) and a warning.
  FileScore C = scoreFile("c.cu", {},
                          {finding(5, "ORD-001", Severity::Error),
                           finding(6, "RACE-002", Severity::Warning)},
                          "ok", 2.0);
  // Exact buggy file.
  FileScore E = scoreFile("e.py", {{7, "HOST-001"}},
                          {finding(7, "HOST-001", Severity::Error)}, "ok", 0.5);
  EXPECT_TRUE(E.Exact);
  CorpusScore S = scoreCorpus({B, C, E});
  EXPECT_EQ(S.Total.Tp, 2u);
  EXPECT_EQ(S.Total.Fp, 3u);
  EXPECT_EQ(S.Total.Fn, 1u);
  EXPECT_DOUBLE_EQ(S.Total.precision(), 2.0 / 5.0);
  EXPECT_DOUBLE_EQ(S.Total.recall(), 2.0 / 3.0);
  EXPECT_EQ(S.Exact, 1u);
  EXPECT_EQ(S.CorrectFiles, 1u);
  EXPECT_EQ(S.CorrectFilesWithErrors, 1u);
  EXPECT_EQ(S.FalseAlarms, 1u);
  EXPECT_DOUBLE_EQ(S.Seconds, 4.0);
  EXPECT_EQ(S.PerId.at("ORD-001").Tp, 1u);
  EXPECT_EQ(S.PerId.at("ORD-001").Fp, 1u);
  EXPECT_EQ(S.PerId.at("BAR-004").Fn, 1u);
  EXPECT_DOUBLE_EQ(S.PerId.at("BAR-004").recall(), 0.0);
  EXPECT_DOUBLE_EQ(S.PerId.at("BAR-004").precision(), 1.0);
  EXPECT_EQ(S.PerId.at("HOST-001").Tp, 1u);
  nlohmann::json J = toJson(S);
  EXPECT_EQ(J["total"]["tp"], 2);
  EXPECT_EQ(J["file_count"], 3);
  EXPECT_EQ(J["false_alarms"], 1);
}

TEST(Scoring, MutantOutcomes) {
  std::vector<std::string> Ids = {"ORD-001", "ORD-002"};
  std::set<Key> Base = {{3, "RACE-002"}};
  std::vector<std::string> New;
  EXPECT_EQ(classifyMutant(Ids, Base, {{3, "RACE-002"}, {9, "ORD-002"}}, false,
                           false, false, New),
            Outcome::Killed);
  EXPECT_EQ(New, (std::vector<std::string>{"ORD-002"}));
  // A finding the original already had does not kill.
  EXPECT_EQ(classifyMutant({"RACE-002"}, Base, {{3, "RACE-002"}}, false, false,
                           false, New),
            Outcome::Survived);
  EXPECT_TRUE(New.empty());
  EXPECT_EQ(
      classifyMutant(Ids, Base, {{4, "BAR-004"}}, false, false, false, New),
      Outcome::KilledOther);
  EXPECT_EQ(classifyMutant(Ids, Base, {}, true, false, false, New),
            Outcome::Stillborn);
  EXPECT_EQ(classifyMutant(Ids, Base, {}, false, true, false, New),
            Outcome::Failed);
  EXPECT_EQ(classifyMutant(Ids, Base, {}, false, false, true, New),
            Outcome::Equivalent);
  OperatorScore S;
  for (Outcome O : {Outcome::Killed, Outcome::Killed, Outcome::KilledOther,
                    Outcome::Survived, Outcome::Stillborn, Outcome::Equivalent,
                    Outcome::Failed})
    S.add(O);
  EXPECT_EQ(S.Mutants, 7u);
  EXPECT_EQ(S.scored(), 4u);
  EXPECT_DOUBLE_EQ(S.score(), 0.5);
  EXPECT_DOUBLE_EQ(OperatorScore().score(), 1.0);
}

TEST(Scoring, EquivalentList) {
  std::vector<std::string> Errors;
  auto L = readEquivalentList("# reviewed equivalent mutants\n"
                              "\n"
                              "c08_ring_shift_rawptr.cu:26:drop-fence  # why\n"
                              "bad line\n"
                              "c01.cu:3:no-such-operator\n",
                              Errors);
  EXPECT_EQ(L, (std::set<std::string>{equivalentKey("c08_ring_shift_rawptr.cu",
                                                    26, "drop-fence")}));
  EXPECT_EQ(Errors.size(), 2u);
}

} // namespace
