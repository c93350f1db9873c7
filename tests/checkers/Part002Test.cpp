//===- Part002Test.cpp - PART-002 on hand-built models --------------------===//
//
// PART-002: a bad model that must produce exactly this finding (line,
// severity, witness where meaningful) and nothing else, and a good model
// that produces none.
//
//===----------------------------------------------------------------------===//
#include "CheckerTestUtil.h"

using namespace pkb;
using namespace pkb::cktest;

namespace {

/// Sharded push all-gather: rank r pushes its shard [start, start + len)
/// into every peer's bufs. Clamp = true uses start = min(r*C, n-C) with
/// C = ceil(n/W) (overlapping shards).
KB shardPush(bool Overlap) {
  KB K("shard_push");
  K.stdParams().launch(4, 256);
  ExprRef N = v("param:n");
  ExprRef C = (N + W() - c(1)) / W();
  ExprRef Start = Overlap ? min_(rank() * C, N - C) : rank() * C;
  ExprRef Len = Overlap ? C : min_(C, N - rank() * C);
  unsigned P = K.beginLoop(c(0), W(), c(1), "p");
  unsigned J = K.beginLoop(gtid(), Len, stride(), "j");
  K.load(38, addr("in", nullptr, Start + K.lv(J)));
  K.store(39, addr("bufs", K.lv(P), Start + K.lv(J)));
  K.endLoop();
  K.endLoop();
  K.barrier(40, v("param:epoch"));
  return K;
}

TEST(Checkers, Part002OverlappingShards) {
  auto F = runAll(shardPush(true).module());
  EXPECT_EQ(keys(F), (std::set<Key>{{39, "PART-002"}})) << dump(F);
  const Finding *X = find(F, "PART-002");
  ASSERT_TRUE(X);
  EXPECT_NE(X->Witness.at("r1"), X->Witness.at("r2"));
  auto FG = runAll(shardPush(false).module());
  EXPECT_TRUE(FG.empty()) << dump(FG);
}

/// Three stores at lines 10, 11 and 12 into rank 0's bufs[t] from every
/// rank: each pair overlaps. A pair's finding sits at its second store, so
/// the pairs that start at line 10 report all three lines and PART-002
/// solves no pair of a line reported already; every line keeps its finding.
TEST(Checkers, Part002ReportsEveryLineOfOverlappingStores) {
  KB K("three_stores");
  K.stdParams().launch(4, 256);
  for (unsigned L : {10u, 11u, 12u})
    K.store(L, addr("bufs", c(0), tid()));
  K.barrier(13, v("param:epoch"));
  auto F = runOne(K.module(), "PART-002");
  EXPECT_EQ(keys(F), (std::set<Key>{
                         {10, "PART-002"}, {11, "PART-002"}, {12, "PART-002"}}))
      << dump(F);
  for (const Finding &X : F)
    EXPECT_EQ(X.Sev, Severity::Error) << dump(F);
}

/// Overlapping chunks on one rank: thread t of block b writes its own
/// rank's bufs[b*128 + t] with 256 threads per block, so blocks b and b+1
/// both write elements b*128+128 .. b*128+255; Val is the stored value.
KB sameStoreOverlap(ExprRef Val) {
  KB K("chunk_overlap");
  K.stdParams().launch(4, 256);
  K.store(20, addr("bufs", rank(), bid() * c(128) + tid())).Value = Val;
  K.barrier(21, v("param:epoch"));
  return K;
}

TEST(Checkers, Part002SameStoreOnOneRankNeedsDifferentValues) {
  // Opaque value (a local computed from loads): the duplicate is real but a
  // lost update only if the values differ, which the model cannot tell.
  auto FO = runAll(sameStoreOverlap(Expr::opaque("sums.packed")).module());
  EXPECT_EQ(keys(FO), (std::set<Key>{{20, "PART-002"}})) << dump(FO);
  const Finding *O = find(FO, "PART-002");
  ASSERT_TRUE(O);
  EXPECT_EQ(O->Sev, Severity::Warning);
  EXPECT_EQ(O->Witness.at("same_store"), "1");
  EXPECT_EQ(O->Witness.at("r1"), O->Witness.at("r2"));
  EXPECT_NE(O->Message.find("cannot compare `opaque(sums.packed)`"),
            std::string::npos)
      << O->Message;
  // A value that depends on the thread: the two runs store different
  // values, a proven lost update.
  auto FD = runAll(sameStoreOverlap(tid()).module());
  const Finding *D = find(FD, "PART-002");
  ASSERT_TRUE(D) << dump(FD);
  EXPECT_EQ(D->Sev, Severity::Error);
  EXPECT_EQ(D->Witness.count("same_store"), 0u);
  // The same value from every writer of an element (a function of the
  // element only): nothing is lost.
  auto FS = runAll(sameStoreOverlap(bid() * c(128) + tid()).module());
  EXPECT_EQ(find(FS, "PART-002"), nullptr) << dump(FS);
}

} // namespace
