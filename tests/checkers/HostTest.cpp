//===- HostTest.cpp - Helpers over host operations ------------------------===//
//
// Unit tests of checkers/Host.cpp: its classification-only helpers read the
// shared check context of a kernel without starting a new check on it, so
// the budget account of the checker that calls them stays as it is.
//
//===----------------------------------------------------------------------===//
#include "Host.h"
#include "CheckerTestUtil.h"

using namespace pkb;
using namespace pkb::chk;
using namespace pkb::cktest;

namespace {

TEST(Host, HelpersLeaveTheRunningCheckersBudgetAlone) {
  ModuleModel M = hostModule(false);
  const KernelModel &K = M.Kernels[0];
  CheckOptions O;
  O.Contexts = makeCheckContexts();
  std::optional<Analysis> Local;
  Analysis &A = checkContext(M, K, O, Local);
  ASSERT_FALSE(Local.has_value());
  // The checker that calls the helpers has spent part of its budget.
  A.Spent = 12345;
  A.Queries = 7;
  A.BudgetHit = true;
  EXPECT_TRUE(readsPeersBeforeSync(M, K, O));
  EXPECT_TRUE(readsPeersAfterLastSync(M, K, O));
  EXPECT_EQ(exposedPeerReadParams(M, K, O), std::vector<size_t>{0});
  EXPECT_TRUE(unguardedOwnWriteParams(M, K, O).empty());
  EXPECT_EQ(A.Spent, 12345u);
  EXPECT_EQ(A.Queries, 7u);
  EXPECT_TRUE(A.BudgetHit);
  // The next checker still starts with its own budget.
  Analysis &B = checkContext(M, K, O, Local);
  EXPECT_EQ(&A, &B);
  EXPECT_EQ(B.Spent, 0u);
  EXPECT_FALSE(B.BudgetHit);
}

} // namespace
