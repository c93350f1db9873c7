//===- RegistryTest.cpp - Checker registry and check selection -----------===//

#include "pkb/Checker.h"

#include <gtest/gtest.h>

#include <set>

using namespace pkb;

TEST(Registry, AllCatalogueIdsInOrder) {
  std::vector<std::string> Ids;
  for (const auto &C : allCheckers())
    Ids.push_back(C->info().Id);
  std::vector<std::string> Expected = {
      "BAR-001",  "BAR-002",  "BAR-003",  "BAR-004",  "BAR-005",
      "HOST-001", "ORD-001",  "ORD-002",  "ORD-003",  "ORD-004",
      "ORD-005",  "PART-001", "PART-002", "PART-003", "RACE-001",
      "RACE-002", "RACE-003", "SIG-001",  "SIG-002",  "TOPO-001"};
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
