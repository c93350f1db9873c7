//===- PreconditionTest.cpp - Skip what cannot fire -----------------------===//
//
// Checker::needs() / appliesTo() and modelFeatures(): a checker is skipped
// on a model without its preconditions and runs with them, and skipping
// never loses a finding (docs/checkers.md, "Skip what cannot fire").
//
//===----------------------------------------------------------------------===//
#include "CheckerTestUtil.h"

#include <map>

using namespace pkb;
using namespace pkb::cktest;

namespace {

const Checker &checker(const std::string &Id) {
  for (const auto &C : allCheckers())
    if (C->info().Id == Id)
      return *C;
  ADD_FAILURE() << "no checker " << Id;
  return *allCheckers().front();
}

/// runAll() as a driver runs it: checkers whose preconditions are absent
/// are skipped.
std::vector<Finding> runApplicable(const ModuleModel &M) {
  std::vector<Finding> Out;
  std::vector<Diagnostic> Diags;
  unsigned F = modelFeatures(M);
  for (const auto &C : allCheckers())
    if (C->appliesTo(F))
      C->check(M, CheckOptions{}, Out, Diags);
  return Out;
}

TEST(Precondition, EveryCheckerDeclaresWhatItNeeds) {
  std::map<std::string, unsigned> Expected = {
      {"BAR-001", HasBarrier},
      {"BAR-002", HasWait},
      {"BAR-003", HasSignal | HasWait},
      {"BAR-004", HasPeerWrite | HasHostOps},
      {"BAR-005", HasBarrier | HasWait},
      {"HOST-001", HasHostOps},
      {"ORD-001", HasSignal},
      {"ORD-002", HasWait},
      {"ORD-003", HasSignal | HasWait},
      {"ORD-004", HasWait},
      {"ORD-005", HasWait},
      {"PART-001", HasPeerAccess},
      {"PART-002", HasPeerWrite},
      {"PART-003", HasLocalWrite},
      {"RACE-001", HasSharedAccess},
      {"RACE-002", HasPeerWrite},
      {"RACE-003", HasPeerWrite},
      {"SIG-001", HasSignal | HasWait},
      {"SIG-002", HasWait},
      {"TOPO-001", HasMulticast}};
  for (const auto &C : allCheckers())
    EXPECT_EQ(C->needs(), Expected[C->info().Id]) << C->info().Id;
}

TEST(Precondition, FeaturesOfModels) {
  KB Empty;
  EXPECT_EQ(modelFeatures(Empty.module()), 0u);
  // A kernel that only stages its own output: PART-003's writes only.
  KB Local;
  Local.stdParams().launch(4, 256);
  Local.store(11, addr("out", nullptr, tid()));
  EXPECT_EQ(modelFeatures(Local.module()), unsigned(HasLocalWrite));
  // The one-shot all-reduce: signals, waits, peer reads and writes.
  unsigned A = modelFeatures(allreduce().module());
  for (unsigned Bit : {HasSignal, HasWait, HasPeerAccess, HasPeerWrite,
                       HasLocalWrite, HasBarrier})
    EXPECT_TRUE(A & Bit) << Bit;
  EXPECT_FALSE(A & HasSharedAccess);
  EXPECT_FALSE(A & HasHostOps);
  EXPECT_FALSE(A & HasMulticast);
  EXPECT_TRUE(modelFeatures(hostModule(false)) & HasHostOps);
  KB Mc;
  Mc.stdParams().launch(4, 256);
  Mc.store(11, addr("mc", nullptr, tid(), AddrSpace::Multicast));
  EXPECT_TRUE(modelFeatures(Mc.module()) & HasMulticast);
}

TEST(Precondition, SkippedWithoutAndRunWith) {
  // No signal, no wait: the signal/wait checkers cost nothing.
  KB Local;
  Local.stdParams().launch(4, 256);
  Local.store(11, addr("out", nullptr, tid()));
  unsigned F = modelFeatures(Local.module());
  for (const char *Id :
       {"SIG-001", "SIG-002", "BAR-002", "BAR-003", "ORD-001", "ORD-002",
        "ORD-003", "ORD-004", "ORD-005", "PART-002", "RACE-002", "RACE-003",
        "HOST-001", "BAR-004", "TOPO-001", "RACE-001", "BAR-001", "BAR-005"})
    EXPECT_FALSE(checker(Id).appliesTo(F)) << Id;
  EXPECT_TRUE(checker("PART-003").appliesTo(F));
  // With them, they run.
  unsigned G = modelFeatures(allreduce().module());
  for (const char *Id : {"SIG-001", "SIG-002", "BAR-002", "BAR-003", "ORD-001",
                         "ORD-002", "PART-002", "RACE-002", "BAR-004"})
    EXPECT_TRUE(checker(Id).appliesTo(G)) << Id;
  EXPECT_FALSE(checker("RACE-001").appliesTo(G));
  EXPECT_TRUE(checker("HOST-001").appliesTo(modelFeatures(hostModule(false))));
}

TEST(Precondition, SkippingLosesNoFinding) {
  std::vector<ModuleModel> Models = {allreduce().module(), hostModule(false),
                                     hostModule(true)};
  Variant V;
  V.Release1 = false;
  V.Barrier2 = false;
  Models.push_back(allreduce(V).module());
  for (const ModuleModel &M : Models) {
    std::vector<Finding> All = runAll(M), Some = runApplicable(M);
    EXPECT_EQ(keys(All), keys(Some)) << dump(All) << "---\n" << dump(Some);
  }
}

} // namespace
