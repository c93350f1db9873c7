//===- CatalogueTest.cpp - Problem catalogue vs registered specs ----------===//
//
// The CUDA-free catalogue (pkb/ProblemCatalogue.h) says which problems have
// a C++ spec; the specs registered in problems/ must agree, by id and name.
//
//===----------------------------------------------------------------------===//
#include "pkb/ProblemCatalogue.h"
#include "pkb/rt/Problem.h"

#include <gtest/gtest.h>

#include <set>

using namespace pkb;

TEST(ProblemCatalogue, SpecsMatchRegisteredProblems) {
  std::set<int> Registered;
  for (const rt::Problem *P : rt::allProblems()) {
    Registered.insert(P->id());
    const CatalogueEntry *E = findCatalogueEntry(P->id());
    ASSERT_NE(E, nullptr) << P->name();
    EXPECT_TRUE(E->HasSpec) << P->name();
    EXPECT_EQ(E->name(), P->name());
    EXPECT_EQ(findCatalogueEntry(P->name()), E);
  }
  for (const CatalogueEntry &E : problemCatalogue())
    EXPECT_EQ(E.HasSpec, Registered.count(E.Id) == 1) << E.Id;
}
