//===- EngineLaunchesTest.cpp - Launch configurations ---------------------===//
//
// Unit tests of checkers/EngineLaunches.cpp: constant launch sites, the
// representative set, and concretization of W and the launch dimensions.
//
//===----------------------------------------------------------------------===//
#include "EngineTestUtil.h"

using namespace pkb;
using namespace pkb::chk;
using namespace pkb::dsl;
using namespace pkb::cktest;

namespace {

TEST(EngineLaunches, ConstantSite) {
  KB K;
  K.launch(8, 128);
  Fixture F(K);
  const auto &Ls = F->launches();
  ASSERT_EQ(Ls.size(), 1u);
  EXPECT_TRUE(Ls[0].FromSite);
  EXPECT_EQ(Ls[0].G[0], 8);
  EXPECT_EQ(Ls[0].B[0], 128);
}

TEST(EngineLaunches, RepresentativeSetWithoutConstantSite) {
  KB K;
  LaunchSite L;
  L.Kernel = K.K.Name;
  L.GridX = v("param:n");
  L.BlockX = c(256);
  K.K.Launches.push_back(L);
  Fixture F(K);
  const auto &Ls = F->launches();
  ASSERT_EQ(Ls.size(), 2u);
  EXPECT_FALSE(Ls[0].FromSite);
  EXPECT_EQ(Ls[0].B[0], 256);
  EXPECT_EQ(Ls[1].B[0], 128);
}

TEST(EngineLaunches, Concretize) {
  KB K;
  Fixture F(K);
  Analysis &A = *F;
  LaunchDims L;
  z3::expr X = A.var("world_size", 0) * A.var("bdim.x", 0);
  EXPECT_EQ(check(A, A.concretize(X == 3 * 256, 3, L)), z3::sat);
  EXPECT_EQ(check(A, A.concretize(X == 4 * 256, 3, L)), z3::unsat);
}

} // namespace
