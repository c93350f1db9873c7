//===- ByteModelTest.cpp - NVLink byte models of the PKB problems ---------===//
//
// pkbNvlinkBytes (pkb/ProblemCatalogue.h) against numbers computed by hand
// from PKB's reference and input generator (shapes as create_input_tensor
// derives them; factors of nccl-tests doc/PERFORMANCE.md), and the rule that
// every catalogue entry has a model or says why not (docs/pkb.md#roofline).
//
//===----------------------------------------------------------------------===//
#include "pkb/ProblemCatalogue.h"

#include <gtest/gtest.h>

#include <cmath>

using namespace pkb;

namespace {
/// Bytes of problem Id for a case; fails the test when there is no model.
double bytes(int Id, int64_t M, int64_t N, int B, int W) {
  PkbNvlinkBytes R = pkbNvlinkBytes(Id, {M, N, B, W});
  EXPECT_TRUE(R.Bytes.has_value()) << Id << ": " << R.Why;
  return R.Bytes.value_or(-1);
}
} // namespace

TEST(PkbByteModel, EveryEntryHasAModelOrAReason) {
  int Models = 0;
  for (const CatalogueEntry &E : problemCatalogue()) {
    const PkbByteModel *M = pkbByteModel(E.Id);
    ASSERT_NE(M, nullptr) << E.Id;
    if (M->Bytes) {
      ++Models;
      EXPECT_TRUE(M->Reason.empty()) << E.Id;
      EXPECT_FALSE(M->Formula.empty()) << E.Id;
      EXPECT_FALSE(M->Source.empty()) << E.Id;
      // Defined and positive on PKB's default case at every W it runs.
      for (int W : {2, 4, 8}) {
        PkbNvlinkBytes R = pkbNvlinkBytes(E.Id, {1024, 1024, 2, W});
        ASSERT_TRUE(R.Bytes) << E.Id << " W=" << W << ": " << R.Why;
        EXPECT_TRUE(std::isfinite(*R.Bytes) && *R.Bytes > 0) << E.Id;
      }
    } else {
      EXPECT_FALSE(M->Reason.empty()) << E.Id;
      EXPECT_TRUE(M->Formula.empty()) << E.Id;
      PkbNvlinkBytes R = pkbNvlinkBytes(E.Id, {1024, 1024, 2, 8});
      EXPECT_FALSE(R.Bytes) << E.Id;
      EXPECT_EQ(R.Why, M->Reason) << E.Id;
    }
  }
  EXPECT_EQ(Models, 67);
  EXPECT_EQ(pkbByteModel(0), nullptr);
  EXPECT_EQ(pkbByteModel(88), nullptr);
  EXPECT_FALSE(pkbNvlinkBytes(88, {1024, 1024, 2, 2}).Bytes);
}

TEST(PkbByteModel, CollectivesOneToEight) {
  // all-reduce, 1024 x 1024 bf16 (S = 2 MiB), W = 8: 2 * 7/8 * S.
  EXPECT_DOUBLE_EQ(bytes(1, 1024, 1024, 2, 8), 3670016.0);
  // all-gather fp32, W = 4: 3 peers x 4 MiB.
  EXPECT_DOUBLE_EQ(bytes(2, 1024, 1024, 4, 4), 12582912.0);
  // broadcast and reduce: factor 1 whatever W.
  EXPECT_DOUBLE_EQ(bytes(3, 1024, 1024, 2, 2), 2097152.0);
  EXPECT_DOUBLE_EQ(bytes(4, 1024, 1024, 2, 8), 2097152.0);
  // scatter / gather / reduce-scatter / all-to-all: (W-1) * M*N*b.
  for (int Id : {5, 6, 7, 8})
    EXPECT_DOUBLE_EQ(bytes(Id, 512, 256, 8, 4), 3.0 * 512 * 256 * 8) << Id;
}

TEST(PkbByteModel, DerivedShapesFromThePkbGenerator) {
  // 11: A_local^T (512//8 = 64, 1024) gathered from 7 peers, bf16.
  EXPECT_DOUBLE_EQ(bytes(11, 1024, 1024, 2, 8), 7.0 * 1024 * 64 * 2);
  // 15, M = 1000, W = 3: Mr = 1002, H = 258; all-gather 2 * 1002*86*2 =
  // 344688 plus reduce-scatter 2/3 * 1002*258*2 = 344688.
  EXPECT_DOUBLE_EQ(bytes(15, 1000, 64, 2, 3), 689376.0);
  // 17, fp16, W = 4: B = T = 16, T//W = 4; q and k from 3 peers.
  EXPECT_DOUBLE_EQ(bytes(17, 1024, 1024, 2, 4), 2.0 * 3 * 16 * 4 * 512 * 2);
  // 18: fp32 sums of squares (M values) whatever the dtype: 2*1/2*1024*4.
  EXPECT_DOUBLE_EQ(bytes(18, 1024, 1024, 2, 2), 4096.0);
  EXPECT_DOUBLE_EQ(bytes(18, 1024, 1024, 8, 2), 4096.0);
  // 19: fp8 bytes (1 each) plus fp32 scales (1024 x 8), W = 2.
  EXPECT_DOUBLE_EQ(bytes(19, 1024, 1024, 2, 2), 1048576.0 + 32768.0);
  // 27: M = 1000 rows, W = 3: splits 333, 333, 334; rank 0 sends 667 rows.
  EXPECT_DOUBLE_EQ(bytes(27, 1000, 16, 2, 3), 667.0 * 16 * 2);
  // 40, N = 1024: d_in 256, hidden 512, d_out 256 -> P = 262912; W = 4,
  // bf16: three broadcasts 3*P*2 plus all-reduce 2*3/4*P*2.
  EXPECT_DOUBLE_EQ(bytes(40, 1024, 1024, 2, 4), 1577472.0 + 788736.0);
  // 41, W = 4: P = 262912 is a multiple of 4: P*2 + 2*3/4*P*2 + 3/4*P*2.
  EXPECT_DOUBLE_EQ(bytes(41, 1024, 1024, 2, 4), 525824.0 + 788736 + 394368);
  // 44: fp32 all-reduce of max(M*N, 64W) values, W = 8.
  EXPECT_DOUBLE_EQ(bytes(44, 1024, 1024, 2, 8), 7340032.0);
  EXPECT_DOUBLE_EQ(bytes(44, 4, 4, 2, 8), 2.0 * 7 / 8 * 512 * 4);
  // 46, M = N = 1024, W = 2: 1 token, vocab 2048, 1024 local logits.
  EXPECT_DOUBLE_EQ(bytes(46, 1024, 1024, 2, 2), 2048.0);
  // 54, W = 2: one ring step of k and v (16, 8, 8, 64) bf16.
  EXPECT_DOUBLE_EQ(bytes(54, 1024, 1024, 2, 2), 262144.0);
  // 73: fixed (8, 1024) per-token values, three all-reduces, W = 4.
  EXPECT_DOUBLE_EQ(bytes(73, 1, 1, 2, 4), 3 * 2 * 0.75 * 8192 * 2);
}

TEST(PkbByteModel, SubGroupsRingsAndFixedShapes) {
  // 48, W = 4: TP 2 x FSDP 2; D = 256, Dff = 1024, Bf = 1024. Three weight
  // shards (128, 512) from 1 FSDP peer + TP all-reduce of (1024, 256).
  EXPECT_DOUBLE_EQ(bytes(48, 1024, 1024, 2, 4), 393216.0 + 524288.0);
  // 48, W = 2: TP 1 x FSDP 2: shards (128, 1024), no TP all-reduce.
  EXPECT_DOUBLE_EQ(bytes(48, 1024, 1024, 2, 2), 786432.0);
  // 57, W = 4: DP 2 x CP 2, E = 16*8*512 = 65536: k, v once (bf16), fp32
  // dk, dv twice, then dq, dk, dv all-reduced over 2.
  EXPECT_DOUBLE_EQ(bytes(57, 1024, 1024, 2, 4),
                   262144.0 + 1048576.0 + 393216.0);
  // 58, W = 4: 3 sends of (256, 1024) bf16.
  EXPECT_DOUBLE_EQ(bytes(58, 1024, 1024, 2, 4), 1572864.0);
  // 59, W = 4: complex64 (16, 1024, 256), 3/4 of it, whatever the dtype.
  EXPECT_DOUBLE_EQ(bytes(59, 1024, 1024, 2, 4), 25165824.0);
  EXPECT_DOUBLE_EQ(bytes(59, 1024, 1024, 8, 4), 25165824.0);
  // 60, W = 4: E = 2*10*180*1440*8 = 41472000; 3 E + 3/4 E.
  EXPECT_DOUBLE_EQ(bytes(60, 1, 1, 2, 4), 3.75 * 41472000);
  // 87, N = 1024 -> 1280 channels, W = 2: one peer's two rows.
  EXPECT_DOUBLE_EQ(bytes(87, 1024, 1024, 2, 2), 655360.0);
  // 71: halo of 6 columns of 1024 channels, one neighbour at W = 2, two
  // for the interior ranks at W >= 3.
  EXPECT_DOUBLE_EQ(bytes(71, 1, 1, 2, 2), 12288.0);
  EXPECT_DOUBLE_EQ(bytes(71, 1, 1, 2, 8), 24576.0);
}

TEST(PkbByteModel, AllToAllsOfFixedAndClampedShapes) {
  // 72, W = 4: four all-to-alls of 1024 x 2048 bf16, 3/4 of each.
  EXPECT_DOUBLE_EQ(bytes(72, 1, 1, 2, 4), 12582912.0);
  // 74, W = 4: TP 2 x CP 2: q, k, v, g, beta from 1 CP peer + TP
  // all-reduce of (128, 16, 128); W = 3: CP 3, no TP.
  EXPECT_DOUBLE_EQ(bytes(74, 1, 1, 2, 4), 1050624.0 + 524288.0);
  EXPECT_DOUBLE_EQ(bytes(74, 1, 1, 2, 3), 2101248.0);
  // 75, W = 4: H = 8 heads, 64 positions, 1538 values per head.
  EXPECT_DOUBLE_EQ(bytes(75, 1, 1, 2, 4), 1181184.0);
  // 82, M = 1024, W = 4: B = 2, S = 8, t = 16 tokens, 64 local vocab:
  // 3/4 of 16*64*2 plus 3 peers' 4 fp32 log-probs; 84 sends fp32 grads.
  EXPECT_DOUBLE_EQ(bytes(82, 1024, 1024, 2, 4), 1536.0 + 48.0);
  EXPECT_DOUBLE_EQ(bytes(83, 1024, 1024, 2, 4), 1536.0 + 48.0);
  EXPECT_DOUBLE_EQ(bytes(84, 1024, 1024, 2, 4), 4608.0);
  // 65/66, W = 4: 256 rows of 128 to 3 peers; bf16, then fp32.
  EXPECT_DOUBLE_EQ(bytes(65, 1024, 1024, 2, 4), 196608.0);
  EXPECT_DOUBLE_EQ(bytes(66, 1024, 1024, 2, 4), 393216.0);
  // 68, M = 1024, W = 4: Q = 20000 queries, 5000 served locally; 15000
  // int64 ids out and 15000 bf16 rows of 256 back, plus 3 int64 counts.
  EXPECT_DOUBLE_EQ(bytes(68, 1024, 1024, 2, 4), 15000.0 * 520 + 24);
  // 79, M = N = 1024, W = 2: q = 16 -> 32, F = 384; two rounds of a
  // broadcast (16 + 32*384*2) and a gather from 1 peer (32*200*10).
  EXPECT_DOUBLE_EQ(bytes(79, 1024, 1024, 4, 2), 2 * (16.0 + 24576.0 + 64000.0));
  // 69, M = N = 1024, W = 4: base 256 positives, rank 2 has 258; 1000
  // negatives; the whole (258, 1001) bf16 data to 3 peers, plus two
  // all-reduces of 4 int64 sizes.
  EXPECT_DOUBLE_EQ(bytes(69, 1024, 1024, 2, 4),
                   3.0 * 258 * 1001 * 2 + 2 * 1.5 * 32);
  // 77, W = 4: 24 query heads, 8 KV heads, T = 4 * 3038 = 12152 tokens;
  // queries and outputs 2*T*24*128 plus KV T*8*256, 3/4 of it, bf16.
  EXPECT_DOUBLE_EQ(bytes(77, 1, 1, 2, 4), 149323776.0);
  // W = 3: KV heads become 3 (8 % 3 != 0), T = 4 * 4050.
  EXPECT_DOUBLE_EQ(bytes(77, 1, 1, 2, 3), 149299200.0);
  // 62 (fp32 whatever the dtype), W = 2: azimuth 2, polar 1: half of x
  // (32, 8, 128, 128) out, half of y (32, 4, 3, 128, 256) back.
  EXPECT_DOUBLE_EQ(bytes(62, 1, 1, 2, 2), 8388608.0 + 25165824.0);
  // W = 4: azimuth 2 x polar 2: x (32, 8, 64, 128), all-reduce of y over
  // 2, half of its polar half back.
  EXPECT_DOUBLE_EQ(bytes(62, 1, 1, 8, 4), 4194304.0 + 50331648 + 12582912);
}

TEST(PkbByteModel, NoBytesAndWhy) {
  // W = 1: no peer.
  PkbNvlinkBytes R = pkbNvlinkBytes(1, {1024, 1024, 2, 1});
  EXPECT_FALSE(R.Bytes);
  EXPECT_NE(R.Why.find("W = 1"), std::string::npos);
  // No model: the catalogue's reason.
  R = pkbNvlinkBytes(10, {1024, 1024, 2, 2});
  EXPECT_FALSE(R.Bytes);
  EXPECT_NE(R.Why.find("data-dependent"), std::string::npos);
  EXPECT_NE(pkbNvlinkBytes(21, {1024, 1024, 2, 2}).Why.find("latency"),
            std::string::npos);
  // 41 at W = 3, N = 1024: every step of PKB's hidden search adds 513 = 3 *
  // 171 parameters, so no MLP is divisible and PKB's generator raises.
  R = pkbNvlinkBytes(41, {1024, 1024, 2, 3});
  EXPECT_FALSE(R.Bytes);
  EXPECT_FALSE(R.Why.empty());
  EXPECT_FALSE(pkbNvlinkBytes(1, {0, 1024, 2, 2}).Bytes);
  // 60 needs W | 720 (PKB asserts it).
  EXPECT_FALSE(pkbNvlinkBytes(60, {1024, 1024, 2, 7}).Bytes);
  EXPECT_NE(pkbNvlinkBytes(81, {1024, 1024, 2, 2}).Why.find("trial"),
            std::string::npos);
  EXPECT_NE(pkbNvlinkBytes(63, {1024, 1024, 2, 2}).Why.find("pickle"),
            std::string::npos);
}

TEST(PkbByteModel, DtypeBytes) {
  EXPECT_EQ(pkbDtypeBytes("bfloat16"), 2);
  EXPECT_EQ(pkbDtypeBytes("float16"), 2);
  EXPECT_EQ(pkbDtypeBytes("float32"), 4);
  EXPECT_EQ(pkbDtypeBytes("float64"), 8);
  EXPECT_EQ(pkbDtypeBytes("int8"), std::nullopt);
}
