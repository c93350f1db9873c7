//===- CompareTest.cpp - Output comparison --------------------------------===//
#include "pkb/rt/Compare.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <vector>

using namespace pkb::rt;

TEST(Compare, DefaultTolerances) {
  EXPECT_EQ(defaultTolerance(PKB_DTYPE_F32).Atol, 1e-5);
  EXPECT_EQ(defaultTolerance(PKB_DTYPE_F32).Rtol, 1e-5);
  EXPECT_EQ(defaultTolerance(PKB_DTYPE_BF16).Atol, 1e-2);
  EXPECT_EQ(defaultTolerance(PKB_DTYPE_F16).Rtol, 1e-2);
  EXPECT_EQ(defaultTolerance(PKB_DTYPE_I32).Atol, 0);
}

TEST(Compare, Bf16Conversions) {
  EXPECT_EQ(floatToBf16(1.0f), 0x3F80);
  EXPECT_EQ(bf16ToFloat(0x3F80), 1.0f);
  EXPECT_EQ(bf16ToFloat(0xC000), -2.0f);
  // 1 + 2^-8 is halfway between bf16 1.0 and 1.0078125: ties to even.
  EXPECT_EQ(floatToBf16(1.0f + 1.0f / 256), 0x3F80);
  EXPECT_EQ(floatToBf16(1.0f + 3.0f / 256), 0x3F82);
  EXPECT_TRUE(std::isnan(
      bf16ToFloat(static_cast<uint16_t>(poisonPattern(PKB_DTYPE_BF16)))));
}

TEST(Compare, F16Conversions) {
  EXPECT_EQ(floatToF16(1.0f), 0x3C00);
  EXPECT_EQ(f16ToFloat(0x3C00), 1.0f);
  EXPECT_EQ(f16ToFloat(0x0001), std::ldexp(1.0f, -24));
  EXPECT_EQ(floatToF16(65504.0f), 0x7BFF);
  EXPECT_EQ(floatToF16(1e6f), 0x7C00);
  EXPECT_EQ(floatToF16(-0.5f), 0xB800);
  EXPECT_TRUE(std::isnan(
      f16ToFloat(static_cast<uint16_t>(poisonPattern(PKB_DTYPE_F16)))));
}

TEST(Compare, F32WithinAndOutsideTolerance) {
  std::vector<float> Ref = {1.0f, 2.0f, -3.0f, 0.0f};
  std::vector<float> Got = {1.0f + 5e-6f, 2.0f, -3.5f, 2e-5f};
  auto R = compareBuffers(Got.data(), Ref.data(), 4, PKB_DTYPE_F32,
                          defaultTolerance(PKB_DTYPE_F32));
  EXPECT_EQ(R.Mismatches, 2); // -3.5 vs -3 and 2e-5 vs 0 (> atol 1e-5)
  EXPECT_EQ(R.FirstMismatch, 2);
  EXPECT_EQ(R.GotAtFirst, -3.5);
  EXPECT_EQ(R.RefAtFirst, -3.0);
  EXPECT_EQ(R.Unwritten, 0);
  EXPECT_DOUBLE_EQ(R.MaxAbsErr, 0.5);
  EXPECT_EQ(R.MaxAbsIndex, 2);
  EXPECT_NEAR(R.MaxRelErr, 0.5 / 3.0, 1e-12);
  EXPECT_FALSE(R.ok());
}

TEST(Compare, UnwrittenCountedSeparately) {
  std::vector<uint16_t> Ref = {floatToBf16(1), floatToBf16(2), floatToBf16(3)};
  std::vector<uint16_t> Got = Ref;
  Got[1] = static_cast<uint16_t>(poisonPattern(PKB_DTYPE_BF16));
  auto R = compareBuffers(Got.data(), Ref.data(), 3, PKB_DTYPE_BF16,
                          defaultTolerance(PKB_DTYPE_BF16));
  EXPECT_EQ(R.Unwritten, 1);
  EXPECT_EQ(R.FirstUnwritten, 1);
  EXPECT_EQ(R.Mismatches, 0);
  EXPECT_FALSE(R.ok());
}

TEST(Compare, NanMatchesOnlyNan) {
  float N = std::numeric_limits<float>::quiet_NaN();
  std::vector<float> Ref = {N, 1.0f, std::numeric_limits<float>::infinity()};
  std::vector<float> Got = {N, N, std::numeric_limits<float>::infinity()};
  auto R = compareBuffers(Got.data(), Ref.data(), 3, PKB_DTYPE_F32, {1, 1});
  EXPECT_EQ(R.Mismatches, 1);
  EXPECT_EQ(R.FirstMismatch, 1);
}

TEST(Compare, Bf16RelativeTolerance) {
  // |got-ref| <= 1e-2 + 1e-2*|ref|: at ref=100 the bound is 1.01.
  std::vector<uint16_t> Ref = {floatToBf16(100), floatToBf16(100)};
  std::vector<uint16_t> Got = {floatToBf16(101), floatToBf16(102)};
  auto R = compareBuffers(Got.data(), Ref.data(), 2, PKB_DTYPE_BF16,
                          defaultTolerance(PKB_DTYPE_BF16));
  EXPECT_EQ(R.Mismatches, 1);
  EXPECT_EQ(R.FirstMismatch, 1);
}

TEST(Compare, IntegersExact) {
  std::vector<int32_t> Ref = {1, 2, 3};
  std::vector<int32_t> Got = {1, 3, static_cast<int32_t>(0xDEADBEEFu)};
  auto R = compareBuffers(Got.data(), Ref.data(), 3, PKB_DTYPE_I32, {0, 0});
  EXPECT_EQ(R.Mismatches, 1);
  EXPECT_EQ(R.Unwritten, 1);
  EXPECT_EQ(R.FirstUnwritten, 2);
}

TEST(Compare, JsonAndDescription) {
  std::vector<float> Ref = {1, 2}, Got = {1, 4};
  auto R = compareBuffers(Got.data(), Ref.data(), 2, PKB_DTYPE_F32, {0, 0});
  auto J = toJson(R);
  EXPECT_EQ(J["mismatches"], 1);
  EXPECT_EQ(J["first_mismatch"], 1);
  EXPECT_EQ(J["got_at_first"], 4.0);
  EXPECT_EQ(describe(R), "1 of 2 elements wrong; first at 1: got 4 expected "
                         "2; max abs err 2, max rel err 1");
}

TEST(Compare, DtypeNames) {
  EXPECT_EQ(dtypeSize(PKB_DTYPE_I64), 8u);
  EXPECT_EQ(dtypeName(PKB_DTYPE_BF16), "bf16");
  EXPECT_EQ(parseDtype("f16"), PKB_DTYPE_F16);
  EXPECT_FALSE(parseDtype("f64").has_value());
}
