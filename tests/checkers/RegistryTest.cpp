//===- RegistryTest.cpp - Checker registry and check selection -----------===//

#include "pkb/Checker.h"

#include <gtest/gtest.h>

#include <map>
#include <set>

using namespace pkb;

TEST(Registry, AllCatalogueIdsInOrder) {
  std::vector<std::string> Ids;
  for (const auto &C : allCheckers())
    Ids.push_back(C->info().Id);
  std::vector<std::string> Expected = {
      "BAR-001",  "BAR-002",  "BAR-003",  "BAR-004",  "BAR-005",  "HOST-001",
      "ORD-001",  "ORD-002",  "ORD-003",  "ORD-004",  "ORD-005",  "PART-001",
      "PART-002", "PART-003", "PART-004", "RACE-001", "RACE-002", "RACE-003",
      "SIG-001",  "SIG-002",  "TOPO-001"};
  EXPECT_EQ(Ids, Expected);
}

TEST(Registry, InfoHasNameSummaryAndAnchor) {
  for (const auto &C : allCheckers()) {
    const CheckInfo &I = C->info();
    EXPECT_FALSE(I.Name.empty()) << I.Id;
    EXPECT_FALSE(I.Summary.empty()) << I.Id;
    std::string Anchor = I.Id;
    for (char &Ch : Anchor)
      Ch = static_cast<char>(tolower(static_cast<unsigned char>(Ch)));
    EXPECT_EQ(I.HelpUri, "docs/checkers.md#" + Anchor);
  }
}

TEST(Registry, FailureClassesEachCheckExplains) {
  const unsigned D = ExplainsDeadlock, X = ExplainsCrossCallRace,
                 O = ExplainsOutputMismatch, U = ExplainsUnwrittenOutput,
                 R = ExplainsRuntimeError;
  std::map<std::string, unsigned> Expected = {
      {"BAR-001", D | U},     {"BAR-002", D},
      {"BAR-003", O},         {"BAR-004", X | O},
      {"BAR-005", D},         {"HOST-001", X | O},
      {"ORD-001", O},         {"ORD-002", O},
      {"ORD-003", O},         {"ORD-004", D | O},
      {"ORD-005", O},         {"PART-001", D | O | U | R},
      {"PART-002", O},        {"PART-003", O | U},
      {"PART-004", O},        {"RACE-001", O},
      {"RACE-002", O},        {"RACE-003", O},
      {"SIG-001", D | O | R}, {"SIG-002", D | X | O},
      {"TOPO-001", R}};
  for (const auto &C : allCheckers())
    EXPECT_EQ(C->info().Explains, Expected[C->info().Id]) << C->info().Id;
  EXPECT_EQ(explainedFailureNames(X | R),
            (std::vector<std::string>{"cross-call-race", "runtime-error"}));
}

TEST(Registry, GlobSelection) {
  EXPECT_TRUE(isCheckEnabled("ORD-001", ""));
  EXPECT_TRUE(isCheckEnabled("ORD-001", "ORD-*"));
  EXPECT_FALSE(isCheckEnabled("BAR-001", "ORD-*"));
  EXPECT_TRUE(isCheckEnabled("BAR-002", "BAR-00?"));
  EXPECT_FALSE(isCheckEnabled("BAR-010", "BAR-00?"));
  EXPECT_FALSE(isCheckEnabled("ORD-003", "-ORD-003"));
  EXPECT_TRUE(isCheckEnabled("ORD-002", "-ORD-003"));
  EXPECT_FALSE(isCheckEnabled("ORD-003", "ORD-*,-ORD-003"));
  EXPECT_TRUE(isCheckEnabled("ORD-003", "-ORD-*,ORD-003"));
  EXPECT_TRUE(isCheckEnabled("ord-001", "ord-*") ||
              isCheckEnabled("ORD-001", "ord-*"));
  EXPECT_TRUE(isCheckEnabled("ORD-001", " ORD-001 , BAR-* "));
  EXPECT_FALSE(isCheckEnabled("RACE-001", "*,-RACE-*"));
  EXPECT_TRUE(isCheckEnabled("RACE-001", "*"));
}
