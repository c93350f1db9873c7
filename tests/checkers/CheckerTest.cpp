//===- CheckerTest.cpp - Checkers on hand-built models --------------------===//
//
// Engine-wide behaviour over every checker: a correct one-shot all-reduce
// has no finding, an undecided query becomes a Warning plus a
// solver-unknown note, an opaque index gives a Warning.
//
//===----------------------------------------------------------------------===//
#include "CheckerTestUtil.h"

using namespace pkb;
using namespace pkb::cktest;

namespace {

TEST(Checkers, GoodAllReduceHasNoFindings) {
  auto F = runAll(allreduce().module());
  EXPECT_TRUE(F.empty()) << dump(F);
}

TEST(Checkers, UnknownBecomesWarningAndNote) {
  // A tiny solver budget makes a nonlinear query undecidable: the check
  // must say so (Warning + solver-unknown note), never pass silently.
  KB K("nonlinear");
  K.stdParams().launch(4, 256);
  ExprRef Idx = v("param:n") * v("param:n") * v("param:n") -
                v("param:epoch") * v("param:epoch") * v("param:epoch");
  K.when(eq(Idx * Idx, c(7) + tid() * tid() * tid()));
  K.load(31, addr("bufs", rank() + Idx * v("param:n"), tid()));
  K.end();
  CheckOptions O;
  O.SolverTimeoutMs = 1;
  std::vector<Finding> Out;
  std::vector<Diagnostic> Diags;
  for (const auto &C : allCheckers())
    if (C->info().Id == "PART-001")
      C->check(K.module(), O, Out, Diags);
  ASSERT_EQ(Out.size(), 1u) << dump(Out);
  EXPECT_EQ(Out[0].Sev, Severity::Warning);
  ASSERT_FALSE(Diags.empty());
  EXPECT_EQ(Diags[0].Code, "solver-unknown");
  EXPECT_EQ(Diags[0].Sev, Severity::Note);
}

TEST(Checkers, OpaqueIndexGivesWarning) {
  KB K("opaque");
  K.stdParams().launch(4, 256);
  K.load(31, addr("bufs", Expr::opaque("expert_ids[t] / epr"), tid()));
  auto F = runAll(K.module());
  EXPECT_EQ(keys(F), (std::set<Key>{{31, "PART-001"}})) << dump(F);
  EXPECT_EQ(find(F, "PART-001")->Sev, Severity::Warning);
}

} // namespace
