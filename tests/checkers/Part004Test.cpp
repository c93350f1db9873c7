//===- Part004Test.cpp - PART-004 on hand-built models --------------------===//
//
// PART-004: a bad model that must produce exactly this finding (line,
// severity, witness) and nothing else, and good models that produce none
// (PART-004 alone; the corpus test runs every checker on the corpus pair).
// The models are the two kernels of a push all-to-all through a
// pkb_peer_view (`push` into the peers' buffers, `unpack` of the own one)
// with the candidate host sequence that launches them.
//
//===----------------------------------------------------------------------===//
#include "CheckerTestUtil.h"

using namespace pkb;
using namespace pkb::cktest;

namespace {

/// Findings of PART-004 alone (the other checkers' queries on these models
/// are slow and beside the point).
std::vector<Finding> runPart004(const ModuleModel &M) {
  return runOne(M, "PART-004");
}

/// Parameters of both kernels: the view (rank, peers of 2-byte elements),
/// x, y and the per-rank element count N.
KB viewKernel(const std::string &Name) {
  KB K(Name);
  K.param("V", ParamRole::Context)
      .param("V.rank", ParamRole::Rank)
      .param("V.world_size", ParamRole::WorldSize)
      .param("V.peers", ParamRole::PeerTable, 2)
      .param("X", ParamRole::LocalBuffer, 2)
      .param("Y", ParamRole::LocalBuffer, 2)
      .param("N", ParamRole::ElementCount);
  return K;
}

/// The launch of \p K at \p Line with the host's argument texts, and the
/// matching host call (argument 0, the view, designates symm[0]).
void launchAt(ModuleModel &M, KernelModel &K, unsigned Line) {
  LaunchSite L;
  L.Kernel = K.Name;
  L.BlockX = c(256);
  L.Loc = {"test.cu", Line, 3};
  HostOp H;
  H.Kind = HostOp::KernelCall;
  H.Callee = K.Name;
  H.Kernels = {K.Name};
  H.Loc = L.Loc;
  for (const char *P : {"V", "X", "Y", "N"}) {
    if (!K.findParam(P))
      continue;
    std::string Text = std::string(P) == "V" ? "Ctx->view" : P;
    L.Args.push_back(
        {P, std::string(P) == "N" ? Expr::opaque("N") : nullptr, Text});
    H.Args.push_back(Text);
    H.ArgBuffers.push_back(std::string(P) == "V" ? "symm[0]" : "");
  }
  L.GridX = Expr::opaque("Grid"); // computed from N: representative launches
  K.Launches.push_back(L);
  M.HostOps.push_back(H);
}

/// Push all-to-all. `push`: chunk p of x goes to slot \p Slot of rank p's
/// buffer (p != rank; line 50), the own chunk straight to y; `unpack`:
/// y[I] = own buffer[I] for the chunks p != rank (line 62). With
/// \p HostCopy the host also copies into symm[0].
ModuleModel alltoall(ExprRef Slot, bool HostCopy = false) {
  ExprRef N = v("param:N");
  KB P = viewKernel("push");
  unsigned I = P.beginLoop(gtid(), N * W(), stride(), "I");
  ExprRef Pe = P.lv(I) / N, Off = P.lv(I) - Pe * N;
  P.when(ne(Pe, rank()));
  P.load(49, addr("X", nullptr, P.lv(I)), 2);
  P.store(50, addr("V.peers", Pe, Slot * N + Off), 2);
  P.end();
  P.endLoop();
  KB U = viewKernel("unpack");
  unsigned J = U.beginLoop(gtid(), N * W(), stride(), "I");
  U.when(ne(U.lv(J) / N, rank()));
  U.load(62, addr("V.peers", rank(), U.lv(J)), 2);
  U.store(63, addr("Y", nullptr, U.lv(J)), 2);
  U.end();
  U.endLoop();
  ModuleModel M;
  M.File = "test.cu";
  if (HostCopy) {
    HostOp H;
    H.Kind = HostOp::SymmWrite;
    H.Callee = "cudaMemcpyAsync";
    H.Target = "symm[0]";
    H.Loc = {"test.cu", 98, 3};
    M.HostOps.push_back(H);
  }
  launchAt(M, P.K, 99);
  launchAt(M, U.K, 102);
  M.Kernels = {P.K, U.K};
  enrich(M);
  return M;
}

TEST(Checkers, Part004SlotOfNextRankIsNotTheSlotRead) {
  // Rank r pushes into slot (r + 1) % W: rank q's slot (q + 1) % W, which
  // unpack reads as the chunk of rank q + 1, is written by no rank.
  auto F = runPart004(alltoall((rank() + c(1)) % W()));
  EXPECT_EQ(keys(F), (std::set<Key>{{62, "PART-004"}})) << dump(F);
  const Finding *X = find(F, "PART-004");
  ASSERT_TRUE(X);
  EXPECT_EQ(X->Sev, Severity::Error);
  EXPECT_EQ(X->Witness.at("W"), "2");
  EXPECT_EQ(X->Witness.at("n"), "32");
  // Owner 0 at W = 2: slot 1 (bytes [64, 128)) is read, only slot 0 is
  // written (by rank 1).
  int64_t Byte = std::stoll(X->Witness.at("byte"));
  EXPECT_GE(Byte, 64);
  EXPECT_LT(Byte, 128);
  bool WriteRelated = false;
  for (const auto &R : X->Related)
    WriteRelated = WriteRelated || (R.Role == "write" && R.Loc.Line == 50);
  EXPECT_TRUE(WriteRelated) << dump(F);
}

TEST(Checkers, Part004SlotOfSenderIsClean) {
  // Slot `rank` of every peer: unpack reads exactly the slots written.
  auto F = runPart004(alltoall(rank()));
  EXPECT_TRUE(F.empty()) << dump(F);
}

TEST(Checkers, Part004HostWrittenBufferIsNotChecked) {
  // A host copy into the buffer writes bytes the kernels do not show: no
  // read is provably unwritten.
  auto F = runPart004(alltoall((rank() + c(1)) % W(), /*HostCopy=*/true));
  EXPECT_TRUE(F.empty()) << dump(F);
}

/// The push all-to-all of alltoall() in one kernel over a double buffer,
/// the shape of the candidate `2_allgather_wrong_offset.cu`: every access
/// adds the half `(Epoch & 1) * Half` (Epoch = call_index + 1, Half an
/// opaque size, a second element count), and with \p Split the unpack part
/// reads through a vector path (line 62) when the pointers are aligned
/// (`(Or & 15) ? 0 : 1`, Or a local without an exact value) and a scalar
/// one (line 64) otherwise.
ModuleModel doubleBuffered(ExprRef Slot, bool Split) {
  ExprRef N = v("param:N");
  ExprRef Half =
      Expr::binary(ExprOp::And, v("param:Epoch"), c(1)) * v("param:Half");
  auto WithHalf = [&](Address A) {
    A.ByteOffset = Half;
    return A;
  };
  ExprRef Misaligned = Expr::binary(ExprOp::And, v("local:Or@40"), c(15));
  KB U = viewKernel("pushUnpack");
  U.param("Half", ParamRole::ElementCount).param("Epoch", ParamRole::Epoch);
  unsigned I = U.beginLoop(gtid(), N * W(), stride(), "I");
  ExprRef Pe = U.lv(I) / N, Off = U.lv(I) - Pe * N;
  U.when(ne(Pe, rank()));
  U.store(50, WithHalf(addr("V.peers", Pe, Slot * N + Off)), 2);
  U.end();
  U.endLoop();
  unsigned J = U.beginLoop(gtid(), N * W(), stride(), "I");
  U.when(ne(U.lv(J) / N, rank()));
  for (bool Vector : {true, false}) {
    if (Split)
      U.when(ne(Expr::select(Misaligned, c(Vector ? 0 : 1), c(Vector ? 1 : 0)),
                c(0)));
    U.load(Vector ? 62 : 64, WithHalf(addr("V.peers", rank(), U.lv(J))), 2);
    if (Split)
      U.end();
    if (!Split)
      break;
  }
  U.end();
  U.endLoop();
  ModuleModel M;
  M.File = "test.cu";
  launchAt(M, U.K, 99);
  LaunchSite &L = U.K.Launches.back();
  HostOp &H = M.HostOps.back();
  L.Args.push_back({"Half", Expr::opaque("HB"), "HB"});
  L.Args.push_back({"Epoch", Expr::opaque("Epoch"), "Epoch"});
  L.Args.back().Host = v("host:call_index") + c(1);
  for (LaunchSite::Arg &A : L.Args)
    if (A.Param == "N")
      A.Host = v("host:In[0].numel");
  for (const char *T : {"HB", "Epoch"}) {
    H.Args.push_back(T);
    H.ArgBuffers.push_back("");
  }
  M.Kernels = {U.K};
  enrich(M);
  return M;
}

TEST(Checkers, Part004DoubleBufferedSlotMismatchOnEitherPath) {
  // Relative to the half, rank q's slot (q + 1) % W is read and never
  // written in the same call; on the vector path and on the scalar one.
  for (bool Split : {false, true}) {
    auto F = runPart004(doubleBuffered((rank() + c(1)) % W(), Split));
    EXPECT_EQ(keys(F), (std::set<Key>{{62, "PART-004"}})) << dump(F);
    const Finding *X = find(F, "PART-004");
    ASSERT_TRUE(X);
    EXPECT_EQ(X->Sev, Severity::Error);
    EXPECT_NE(X->Message.find("in the same call"), std::string::npos)
        << X->Message;
    EXPECT_EQ(X->Message.find("whichever way") != std::string::npos, Split)
        << X->Message;
    EXPECT_TRUE(runPart004(doubleBuffered(rank(), Split)).empty()) << Split;
  }
}

TEST(Checkers, Part004ReadOnOnlyOnePathIsNotReported) {
  // The senders write the right slots; only the vector path reads one
  // chunk too far (unwritten bytes), the scalar path reads the right ones.
  // With the alignment unknown, the wrong read may never run: no finding.
  ModuleModel M = doubleBuffered(rank(), /*Split=*/true);
  for (KernelModel &K : M.Kernels)
    for (Event &E : K.Events)
      if (E.Loc.Line == 62)
        E.Addr.Index = E.Addr.Index + v("param:N");
  EXPECT_TRUE(runPart004(M).empty()) << dump(runPart004(M));
}

/// Pull all-gather of the candidate `2_allgather_pull_red.cu` shape: the
/// host copies In[0] into symm[0] (line 79), then `pull` copies y[I] =
/// peers[Src][I - P*N] with P = I / N (line 45) for I < N * W.
ModuleModel pullAllgather(ExprRef Src) {
  ExprRef N = v("param:N");
  KB P = viewKernel("pull");
  unsigned I = P.beginLoop(gtid(), N * W(), stride(), "I");
  ExprRef Pe = P.lv(I) / N;
  Event &St = P.store(45, addr("Y", nullptr, P.lv(I)), 2);
  St.CopyOf = std::make_shared<const Address>(
      addr("V.peers", Src ? Src : Pe, P.lv(I) - Pe * N));
  P.endLoop();
  ModuleModel M;
  M.File = "test.cu";
  HostOp Fill;
  Fill.Kind = HostOp::SymmWrite;
  Fill.Callee = "cudaMemcpyAsync";
  Fill.Target = "symm[0]";
  Fill.Loc = {"test.cu", 79, 3};
  Fill.SourceTensor = 0;
  Fill.AtBufferStart = true;
  Fill.Bytes = v("host:In[0].numel") * c(2);
  M.HostOps.push_back(Fill);
  launchAt(M, P.K, 84);
  LaunchSite &L = P.K.Launches.back();
  L.HostCondKnown = true;
  for (LaunchSite::Arg &A : L.Args) {
    if (A.Param == "Y")
      A.OutTensor = 0;
    if (A.Param == "N")
      A.Host = v("host:In[0].numel");
  }
  M.Kernels = {P.K};
  enrich(M);
  return M;
}

CheckOptions allgatherProblem() {
  CheckOptions O;
  O.Problem = ProblemSizes{"allgather",   false, true, false, 2,
                           {1024, 65536}, true,  true, false};
  return O;
}

TEST(Checkers, Part004OutputBlockFromTheWrongRank) {
  // Output block p pulled from rank (p + 1) % W: every byte read was
  // written (by the host), but with another rank's input.
  ExprRef N = v("param:N");
  auto F = runOne(pullAllgather(((v("loop:0") / N) + c(1)) % W()), "PART-004",
                  allgatherProblem());
  EXPECT_EQ(keys(F), (std::set<Key>{{45, "PART-004"}})) << dump(F);
  const Finding *X = find(F, "PART-004");
  ASSERT_TRUE(X);
  EXPECT_EQ(X->Sev, Severity::Error);
  EXPECT_EQ(X->Witness.at("W"), "2");
  EXPECT_NE(X->Witness.at("src_rank"), X->Witness.at("want_rank"));
  // From rank p: the all-gather's own mapping.
  EXPECT_TRUE(
      runOne(pullAllgather(nullptr), "PART-004", allgatherProblem()).empty());
  // Without the problem nothing says which rank's data belongs where.
  EXPECT_TRUE(
      runOne(pullAllgather(((v("loop:0") / N) + c(1)) % W()), "PART-004")
          .empty());
}

} // namespace
