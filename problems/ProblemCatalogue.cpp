//===- ProblemCatalogue.cpp - The ParallelKernelBench problems ----------===//
#include "pkb/ProblemCatalogue.h"

#include <algorithm>
#include <array>
#include <charconv>
#include <cmath>
#include <numeric>
#include <utility>

namespace pkb {
namespace {
// {id, ParallelKernelBench name, pkbcheck's name if ported, C++ spec}
constexpr std::array<CatalogueEntry, 87> Catalogue = {{
    {1, "allreduce", "allreduce", true},
    {2, "allgather", "allgather", true},
    {3, "broadcast", "broadcast", true},
    {4, "reduce", "reduce", true},
    {5, "scatter", "scatter", true},
    {6, "gather", "gather", true},
    {7, "reducescatter", "reducescatter", true},
    {8, "alltoall", "alltoall", true},
    {9, "layernorm_backward", "", false},
    {10, "embedding_lookup", "", false},
    {11, "allgather_gemm_AT", "", false},
    {12, "allgather_gemm", "allgather_gemm", false},
    {13, "gemm_allreduce", "gemm_allreduce", true},
    {14, "gemm_allgather", "", false},
    {15, "combined_sharded_gemms", "", false},
    {16, "gemm_reducescatter", "gemm_reducescatter", false},
    {17, "rope_allgather", "", false},
    {18, "tp_rms_norm", "tp_rms_norm", true},
    {19, "blocked_fp8_quantize", "", false},
    {20, "blocked_fp8_dequantize", "", false},
    {21, "clip_grad_norm_no_ep", "", false},
    {22, "clip_grad_norm_ep", "", false},
    {23, "grad_acc_loss", "", false},
    {24, "load_balancing_loss_fn", "", false},
    {25, "importance_sampling_loss", "", false},
    {26, "moe_token_preprocess", "", false},
    {27, "moe_all2all_primitive", "moe_all2all_primitive", false},
    {28, "moe_pre_all2all", "", false},
    {29, "moe_post_all2all", "", false},
    {30, "moe_epgroupgemm_lora_backward", "", false},
    {31, "fused_moe_fwd", "", false},
    {32, "fused_moe_fwd_lora", "", false},
    {33, "ulysses_all_to_all_tensor_primitive", "ulysses_all_to_all", false},
    {34, "ulysses_all_gather_into_tensor_primitive", "", false},
    {35, "ulysses_all_gather_variable_primitive", "", false},
    {36, "ulysses_gather_seq_scatter_heads", "", false},
    {37, "ulysses_gather_heads_scatter_seq", "", false},
    {38, "ulysses_gather_seq_scatter_heads_qkv", "", false},
    {39, "ulysses_attention_e2e", "", false},
    {40, "ddp", "", false},
    {41, "zero1_optimizer_shard", "", false},
    {42, "zero2_optimizer_shard_grad", "", false},
    {43, "fused_adam_grad_unshard_allgather", "", false},
    {44, "quantized_grad_allreduce", "", false},
    {45, "reducescatter_fused_rmsnorm", "", false},
    {46, "gemv_decode", "", false},
    {47, "fsdp_step_e2e", "", false},
    {48, "fsdp_and_tp", "", false},
    {49, "moe_ep_balanced", "", false},
    {50, "moe_ep_wide", "", false},
    {51, "moe_ep_narrow", "", false},
    {52, "fp8_reduce_scatter_grads", "", false},
    {53, "fp8_allgather_params", "", false},
    {54, "ring_attention", "", false},
    {55, "ring_attention_tp", "", false},
    {56, "ring_attention_pp", "", false},
    {57, "ring_attention_backward_dp", "", false},
    {58, "openclip_contrastive_loss", "", false},
    {59, "physicsnemo_distributed_rfft", "", false},
    {60, "physicsnemo_distributed_irfft", "", false},
    {61, "gsplat_3d_gaussian_splatting", "", false},
    {62, "torchharmonics_spherical_convolution", "", false},
    {63, "deepmd_kalman_filter_optimizer", "", false},
    {64, "gnn_neighbor_sampling", "", false},
    {65, "gnn_feature_exchange_all2all", "", false},
    {66, "gnn_feature_exchange_all2all_backward", "", false},
    {67, "gnn_sparse_embedding_all2all", "", false},
    {68, "gnn_sparse_feature_fetch_projection", "", false},
    {69, "gnn_negative_scoring", "", false},
    {70, "torchrec_kjt_all2all", "", false},
    {71, "hyena_conv1d_boundary_exchange", "hyena_conv1d_boundary_exchange",
     false},
    {72, "hyena_forward_cp", "", false},
    {73, "vocab_parallel_cross_entropy_loss", "vocab_parallel_cross_entropy",
     false},
    {74, "fla_kimi_delta_attention_cp_tp", "", false},
    {75, "fla_gated_deltanet_cp", "", false},
    {76, "opensora_conv3d_allreduce", "", false},
    {77, "magi1_cso_async_attention", "", false},
    {78, "magi1_tile_parallel_vae_decode", "", false},
    {79, "dinov2_distributed_knn", "", false},
    {80, "dinov2_distributed_sinkhorn_knopp", "", false},
    {81, "sam3_allgather_iou_suppression", "", false},
    {82, "vocab_parallel_log_prob_topk", "vocab_parallel_log_prob_topk", false},
    {83, "vocab_parallel_log_prob_topk_chunked", "", false},
    {84, "vocab_parallel_log_prob_topk_chunked_backward", "", false},
    {85, "distributed_sample_sort", "", false},
    {86, "tp_muon_orthogonalization", "", false},
    {87, "conv2d_boundary_exchange", "", false},
}};

// --- Byte models of the roofline of .py solutions (docs/pkb.md#roofline) --
// Shapes as PKB's utils/input_output_tensors.py derives them from the base
// shape (M, N); factors from nccl-tests doc/PERFORMANCE.md (see the header).

double num(int64_t X) { return static_cast<double>(X); }
int64_t roundUp(int64_t X, int64_t Mult) {
  return (X + Mult - 1) / Mult * Mult;
}
/// Bus bytes of an all-reduce of S bytes: 2(W-1)/W x S.
double allReduce(double S, int W) { return 2.0 * (W - 1) / W * S; }
/// Bus bytes of an all-gather / reduce-scatter / all-to-all whose total
/// (gathered output, scattered input, per-rank send buffer) is S: (W-1)/W x S.
double shareOut(double S, int W) { return (W - 1.0) / W * S; }
/// PKB's _common_attn_dims: B = max(1, M // 64), T = max(1, N // 64); 8 heads
/// of 64 (512 values per token).
int64_t attnB(const PkbCase &C) { return std::max<int64_t>(1, C.M / 64); }
int64_t attnT(const PkbCase &C) { return std::max<int64_t>(1, C.N / 64); }
/// Parameter count of the MLP of problem 40 (d_in, hidden, d_out from N).
int64_t mlpNumel(int64_t DIn, int64_t Hidden, int64_t DOut) {
  return Hidden * DIn + Hidden + DOut * Hidden + DOut;
}
int64_t ddpNumel(const PkbCase &C) {
  return mlpNumel(std::max<int64_t>(16, std::min<int64_t>(C.N, 256)),
                  std::max<int64_t>(32, std::min<int64_t>(C.N / 2, 512)),
                  std::max<int64_t>(8, std::min<int64_t>(C.N / 4, 256)));
}
/// PKB's _ddp_mlp_shapes_divisible_by_dp (problems 41, 42, 47): hidden grows
/// until the parameter count is a multiple of W (at most 1024 steps); 0 when
/// none is (PKB's generator raises then).
int64_t ddpNumelDivisible(const PkbCase &C) {
  int64_t DIn = std::max<int64_t>(16, std::min<int64_t>(C.N, 256));
  int64_t DOut = std::max<int64_t>(8, std::min<int64_t>(C.N / 4, 256));
  int64_t Hidden = std::max<int64_t>(32, std::min<int64_t>(C.N / 2, 512));
  for (int I = 0; I < 1024; ++I, ++Hidden)
    if (mlpNumel(DIn, Hidden, DOut) % C.World == 0)
      return mlpNumel(DIn, Hidden, DOut);
  return 0; // PKB raises: no such MLP (e.g. N = 1024, W = 3)
}
/// PKB's flat-shard length of problems 43, 52, 53: max(64, min(64 M, 4096)).
int64_t flatShard(const PkbCase &C) {
  return std::max<int64_t>(64, std::min<int64_t>(C.M * 64, 4096));
}
/// Busiest rank of an all_to_all_single of R rows of N elements with PKB's
/// equal splits (R // W each, the remainder on the last rank): it sends every
/// row but its own split, R - R // W rows.
double equalSplitAllToAll(int64_t Rows, const PkbCase &C) {
  return num(Rows - Rows / C.World) * num(C.N) * C.DtypeBytes;
}

/// The (M, N) tensor of the case all-reduced: 2(W-1)/W x M*N*b.
double mnAllReduce(const PkbCase &C) {
  return allReduce(num(C.M * C.N) * C.DtypeBytes, C.World);
}
/// W-1 shards of M*N*b (all-gather of (M, N) per rank; reduce-scatter,
/// all-to-all, scatter, gather of W*M*N*b): (W-1)/W x W*M*N*b.
double mnFromEachPeer(const PkbCase &C) {
  return (C.World - 1.0) * num(C.M * C.N) * C.DtypeBytes;
}
/// Broadcast / reduce of (M, N): factor 1.
double mnOnce(const PkbCase &C) { return num(C.M * C.N) * C.DtypeBytes; }
/// All-to-all / reduce-scatter whose total is the (M, N) tensor.
double mnShare(const PkbCase &C) {
  return shareOut(num(C.M * C.N) * C.DtypeBytes, C.World);
}

/// Two (B, max(1, T//W), 8, 64) tensors (q and k; k and v) from each of the
/// W-1 peers (all-gather, or W-1 ring steps).
double twoSeqShardsFromEachPeer(const PkbCase &C) {
  int64_t SLocal = std::max<int64_t>(1, attnT(C) / C.World);
  return 2 * (C.World - 1.0) * num(attnB(C) * SLocal * 512) * C.DtypeBytes;
}
/// All-gather of (M, 512//W) shards of A (problems 11, 12; K = 512).
double kShardFromEachPeer(const PkbCase &C) {
  return (C.World - 1.0) * num(C.M * (512 / C.World)) * C.DtypeBytes;
}
/// W-1 flat shards of flatShard(C) elements (problems 43, 52, 53).
double flatShardFromEachPeer(const PkbCase &C) {
  return (C.World - 1.0) * num(flatShard(C)) * C.DtypeBytes;
}

/// PKB's _factor_tp_fsdp (problem 48): (T, F) with T * F = W, the smallest
/// T >= 2 that leaves F >= 2, else (1, W).
std::pair<int64_t, int64_t> tpFsdp(int W) {
  for (int Tp = 2; Tp < W; ++Tp)
    if (W % Tp == 0 && W / Tp >= 2)
      return {Tp, W / Tp};
  return {1, W};
}

/// Tokens of problems 82-84: B = clamp(M // 512, 1, 4) times S = max(W,
/// min(M // 128, 32)) rounded up to W.
int64_t vocabTokens(const PkbCase &C) {
  int64_t B = std::max<int64_t>(1, std::min<int64_t>(C.M / 512, 4));
  int64_t S = roundUp(
      std::max<int64_t>(C.World, std::min<int64_t>(C.M / 128, 32)), C.World);
  return B * S;
}
/// Problems 82, 83: all-to-all of the (t, 256/W) logits and all-gather of
/// the t/W fp32 log-probs.
double vocabLogProbs(const PkbCase &C) {
  int64_t T = vocabTokens(C);
  return shareOut(num(T * (256 / C.World)) * C.DtypeBytes, C.World) +
         (C.World - 1.0) * num(T / C.World) * 4;
}

/// Rows each rank sends to every peer in problems 65, 66: clamp(M // W, 64,
/// 1024).
int64_t gnnRowsPerPeer(const PkbCase &C) {
  return std::max<int64_t>(64, std::min<int64_t>(C.M / C.World, 1024));
}

constexpr std::string_view kLatency =
    "latency-bound: the reference all-reduces scalars or a handful of counts "
    "(a few bytes per call); a bandwidth fraction would be ~0 whatever the "
    "kernel does";
constexpr std::string_view kRouting =
    "data-dependent: the all-to-all volumes follow the routing (top-k of a "
    "softmax over random gate logits), so the bytes per call are not a "
    "function of (shape, dtype, W)";

struct ModelRow {
  int Id;
  PkbByteModel M;
};

constexpr std::array<ModelRow, 87> ByteModels = {{
    {1,
     {mnAllReduce, "2(W-1)/W * M*N*b",
      "all_reduce of (M, N): all-reduce factor 2(W-1)/W", ""}},
    {2,
     {mnFromEachPeer, "(W-1) * M*N*b",
      "all_gather_into_tensor, output (W, M, N): all-gather factor (W-1)/W "
      "of W*M*N*b",
      ""}},
    {3, {mnOnce, "M*N*b", "broadcast of (M, N): broadcast factor 1", ""}},
    {4, {mnOnce, "M*N*b", "reduce of (M, N): reduce factor 1", ""}},
    {5,
     {mnFromEachPeer, "(W-1) * M*N*b",
      "scatter of the root's (W, M, N): scatter factor (W-1)/W of W*M*N*b "
      "(the root)",
      ""}},
    {6,
     {mnFromEachPeer, "(W-1) * M*N*b",
      "gather of (M, N) into the root's (W, M, N): gather factor (W-1)/W of "
      "W*M*N*b (the root)",
      ""}},
    {7,
     {mnFromEachPeer, "(W-1) * M*N*b",
      "reduce_scatter_tensor of (W*M, N): reduce-scatter factor (W-1)/W of "
      "W*M*N*b",
      ""}},
    {8,
     {mnFromEachPeer, "(W-1) * M*N*b",
      "all_to_all_single of (W, M, N): all-to-all factor (W-1)/W of W*M*N*b",
      ""}},
    {9,
     {[](const PkbCase &C) {
        return 2 * allReduce(num(C.N) * C.DtypeBytes, C.World);
      },
      "2 * 2(W-1)/W * N*b",
      "two all_reduce of N-vectors (d_beta, d_gamma): all-reduce factor", ""}},
    {10,
     {nullptr, "", "",
      "data-dependent: the all-to-all volumes follow the random lookup "
      "indices (torch.randint), so the bytes per call are not a function of "
      "(shape, dtype, W)"}},
    {11,
     {kShardFromEachPeer, "(W-1) * M*(512//W)*b",
      "all_gather_into_tensor of A_local^T (K//W, M), K = 512: all-gather "
      "factor (W-1)/W",
      ""}},
    {12,
     {kShardFromEachPeer, "(W-1) * M*(512//W)*b",
      "all_gather of A_local (M, K//W), K = 512: all-gather factor (W-1)/W",
      ""}},
    {13,
     {mnAllReduce, "2(W-1)/W * M*N*b",
      "all_reduce of C (M, N): all-reduce factor", ""}},
    {14,
     {[](const PkbCase &C) {
        return (C.World - 1.0) * num(C.M * (C.N / C.World)) * C.DtypeBytes;
      },
      "(W-1) * M*(N//W)*b",
      "all_gather of C_local (M, N//W): all-gather factor (W-1)/W", ""}},
    {15,
     {[](const PkbCase &C) {
        int64_t Rows = roundUp(C.M, C.World), H = roundUp(256, C.World);
        return (C.World - 1.0) * num(Rows * (H / C.World)) * C.DtypeBytes +
               shareOut(num(Rows * H) * C.DtypeBytes, C.World);
      },
      "(W-1) * Mr*(H/W)*b + (W-1)/W * Mr*H*b, Mr = ceil(M/W)*W, "
      "H = ceil(256/W)*W",
      "all_gather of x_local (Mr, H/W) + reduce_scatter_tensor of (Mr, H): "
      "all-gather and reduce-scatter factors (W-1)/W (the scattered buffer "
      "is zero outside the own rows, so a solution may move less)",
      ""}},
    {16,
     {mnShare, "(W-1)/W * M*N*b",
      "reduce_scatter_tensor of C_partial (M, N): reduce-scatter factor "
      "(W-1)/W",
      ""}},
    {17,
     {twoSeqShardsFromEachPeer,
      "2 * (W-1) * B*max(1, T//W)*512*b, B = max(1, M//64), T = max(1, N//64)",
      "two all_gather (q, k) of (B, T//W, 8 heads, 64): all-gather factor "
      "(W-1)/W",
      ""}},
    {18,
     {[](const PkbCase &C) { return allReduce(num(C.M) * 4, C.World); },
      "2(W-1)/W * M*4",
      "all_reduce of the fp32 sums of squares (M, 1): all-reduce factor "
      "(fp32 whatever the dtype)",
      ""}},
    {19,
     {[](const PkbCase &C) {
        return (C.World - 1.0) * (num(C.M * C.N) + num(C.M * (C.N / 128)) * 4);
      },
      "(W-1) * (M*N*1 + M*(N//128)*4)",
      "all_gather of the fp8 values (M, N) as uint8 + all_gather of the fp32 "
      "block scales (M, N//128): all-gather factor (W-1)/W",
      ""}},
    {20,
     {[](const PkbCase &C) { return (C.World - 1.0) * num(C.M * C.N) * 4; },
      "(W-1) * M*N*4",
      "all_to_all_single of the dequantized fp32 (W, M, N): all-to-all factor "
      "(W-1)/W of W*M*N*4 (fp32 whatever the dtype; a solution that sends "
      "the quantized values may move less)",
      ""}},
    {21, {nullptr, "", "", kLatency}},
    {22, {nullptr, "", "", kLatency}},
    {23, {nullptr, "", "", kLatency}},
    {24, {nullptr, "", "", kLatency}},
    {25, {nullptr, "", "", kLatency}},
    {26, {nullptr, "", "", kLatency}},
    {27,
     {[](const PkbCase &C) { return equalSplitAllToAll(C.M, C); },
      "(M - M//W) * N*b",
      "all_to_all_single of (M, N) with PKB's equal splits (M//W, remainder "
      "on the last rank): the busiest rank sends all rows but its own split",
      ""}},
    {28,
     {[](const PkbCase &C) { return equalSplitAllToAll(2 * C.M, C); },
      "(2M - 2M//W) * N*b",
      "all_to_all_single of the 2M permuted tokens (top-2 of 8 distinct "
      "experts per token) of N with PKB's equal splits",
      ""}},
    {29,
     {[](const PkbCase &C) { return equalSplitAllToAll(2 * C.M, C); },
      "(2M - 2M//W) * N*b",
      "all_to_all_single of the 2M routed expert outputs of N with PKB's "
      "equal splits",
      ""}},
    {30,
     {[](const PkbCase &C) {
        return 3 * allReduce(num(8 * C.N) * C.DtypeBytes, C.World);
      },
      "3 * 2(W-1)/W * 8*N*b",
      "three all_reduce of LoRA gradients (8, N), (8, N), (N, 8): all-reduce "
      "factor",
      ""}},
    {31, {nullptr, "", "", kRouting}},
    {32, {nullptr, "", "", kRouting}},
    {33,
     {mnShare, "(W-1)/W * M*N*b",
      "all_to_all of x (M, N) split in W along dim 0: all-to-all factor "
      "(W-1)/W",
      ""}},
    {34,
     {mnFromEachPeer, "(W-1) * M*N*b",
      "all_gather_into_tensor of x (M, N): all-gather factor (W-1)/W of "
      "W*M*N*b",
      ""}},
    {35,
     {[](const PkbCase &C) {
        return (C.World - 1.0) * (num(C.M * C.N) * C.DtypeBytes + 16);
      },
      "(W-1) * (M*N*b + 16)",
      "all_gather of the int64 size (2) + all_gather of x (M, N): all-gather "
      "factor (W-1)/W",
      ""}},
    {36,
     {[](const PkbCase &C) {
        return shareOut(num(attnB(C) * attnT(C) * 512) * C.DtypeBytes, C.World);
      },
      "(W-1)/W * B*T*512*b, B = max(1, M//64), T = max(1, N//64)",
      "all_to_all of x (B, T, 8 heads, 64): all-to-all factor (W-1)/W", ""}},
    {37,
     {[](const PkbCase &C) {
        return shareOut(num(attnB(C) * roundUp(attnT(C), C.World) * 512) *
                            C.DtypeBytes,
                        C.World);
      },
      "(W-1)/W * B*ceil(T/W)*W*512*b, B = max(1, M//64), T = max(1, N//64)",
      "all_to_all of x (B, T padded to a multiple of W, 8 heads, 64): "
      "all-to-all factor (W-1)/W",
      ""}},
    {38,
     {[](const PkbCase &C) {
        return shareOut(num(attnB(C) * attnT(C) * 1536) * C.DtypeBytes,
                        C.World);
      },
      "(W-1)/W * B*T*1536*b, B = max(1, M//64), T = max(1, N//64)",
      "all_to_all of qkv (B, T, 3, 512): all-to-all factor (W-1)/W", ""}},
    {39,
     {[](const PkbCase &C) {
        int64_t SLocal = std::max<int64_t>(1, attnT(C) / C.World);
        return shareOut(4.0 * num(attnB(C) * SLocal * 512) * C.DtypeBytes,
                        C.World);
      },
      "(W-1)/W * 4 * B*max(1, T//W)*512*b, B = max(1, M//64), "
      "T = max(1, N//64)",
      "three all_to_all: q (B, T//W, 8 heads, 64), k and v stacked (twice "
      "that), the attention output (as q): all-to-all factor (W-1)/W",
      ""}},
    {40,
     {[](const PkbCase &C) {
        double P = num(ddpNumel(C)) * C.DtypeBytes;
        return 3 * P + allReduce(P, C.World);
      },
      "3 * P*b + 2(W-1)/W * P*b, P = MLP parameters (d_in = clamp(N, 16, "
      "256), hidden = clamp(N//2, 32, 512), d_out = clamp(N//4, 8, 256))",
      "three broadcast (parameters, exp_avg, exp_avg_sq; factor 1) + "
      "all_reduce of the flat gradient (all-reduce factor)",
      ""}},
    {41,
     {[](const PkbCase &C) {
        double P = num(ddpNumelDivisible(C)) * C.DtypeBytes;
        return P + allReduce(P, C.World) + shareOut(P, C.World);
      },
      "P*b + 2(W-1)/W * P*b + (W-1)/W * P*b, P = MLP parameters (hidden "
      "grown until W | P)",
      "broadcast of the flat parameters (factor 1) + all_reduce of the "
      "gradient + all_gather_into_tensor of the updated shards",
      ""}},
    {42,
     {[](const PkbCase &C) {
        double P = num(ddpNumelDivisible(C)) * C.DtypeBytes;
        return P + 2 * shareOut(P, C.World);
      },
      "P*b + 2 * (W-1)/W * P*b, P = MLP parameters (hidden grown until W | P)",
      "broadcast of the flat parameters (factor 1) + reduce_scatter_tensor of "
      "the gradient + all_gather_into_tensor of the updated shards",
      ""}},
    {43,
     {flatShardFromEachPeer, "(W-1) * p*b, p = max(64, min(64M, 4096))",
      "all_gather_into_tensor of the updated shard (p): all-gather factor "
      "(W-1)/W of W*p*b",
      ""}},
    {44,
     {[](const PkbCase &C) {
        return allReduce(
            num(std::max<int64_t>(C.M * C.N, int64_t(C.World) * 64)) * 4,
            C.World);
      },
      "2(W-1)/W * max(M*N, 64W)*4",
      "all_reduce of the dequantized fp32 gradient: all-reduce factor (fp32 "
      "whatever the dtype)",
      ""}},
    {45,
     {[](const PkbCase &C) {
        int64_t Hidden = std::max<int64_t>(32, std::min<int64_t>(C.N, 128));
        int64_t Rows = std::max<int64_t>(2, std::max<int64_t>(C.M, C.World) /
                                                std::max(C.World, 4));
        return (C.World - 1.0) * num(Rows * Hidden) * C.DtypeBytes;
      },
      "(W-1) * rows*hidden*b, hidden = clamp(N, 32, 128), rows = max(2, "
      "max(M, W)//max(W, 4))",
      "reduce_scatter_tensor of (W*rows*hidden): reduce-scatter factor "
      "(W-1)/W",
      ""}},
    {46,
     {[](const PkbCase &C) {
        int64_t Tokens = std::max<int64_t>(1, std::min<int64_t>(8, C.M / 1024));
        int64_t Vocab =
            roundUp(std::max<int64_t>(C.M, int64_t(C.World) * 1024), C.World);
        return (C.World - 1.0) * num(Tokens * (Vocab / C.World)) * C.DtypeBytes;
      },
      "(W-1) * t*(V/W)*b, t = clamp(M//1024, 1, 8), V = max(M, 1024W) "
      "rounded up to W",
      "all_gather of the local logits (t, V/W): all-gather factor (W-1)/W",
      ""}},
    {47,
     {[](const PkbCase &C) {
        double P = num(ddpNumelDivisible(C)) * C.DtypeBytes;
        return 2 * shareOut(P, C.World);
      },
      "2 * (W-1)/W * P*b, P = MLP parameters (hidden grown until W | P)",
      "all_gather_into_tensor of the parameter shards + "
      "reduce_scatter_tensor of the gradient: factors (W-1)/W",
      ""}},
    {48,
     {[](const PkbCase &C) {
        auto [Tp, Fsdp] = tpFsdp(C.World);
        int64_t D = roundUp(std::max<int64_t>(32, std::min<int64_t>(C.N, 256)),
                            std::lcm(Tp, Fsdp));
        int64_t Dff = roundUp(std::max<int64_t>(64, C.M), Tp);
        int64_t BFsdp =
            roundUp(std::max<int64_t>(2 * C.M, 2 * int64_t(C.World)), Fsdp) /
            Fsdp;
        return 3.0 * (Fsdp - 1) * num((D / Fsdp) * (Dff / Tp)) * C.DtypeBytes +
               allReduce(num(BFsdp * D) * C.DtypeBytes, static_cast<int>(Tp));
      },
      "3 * (F-1) * (D/F)*(Dff/T)*b + 2(T-1)/T * Bf*D*b, (T, F) = PKB's "
      "_factor_tp_fsdp(W), D = clamp(N, 32, 256) rounded up to lcm(T, F), "
      "Dff = max(64, M) rounded up to T, Bf = max(2M, 2W) rounded up to F, "
      "/ F",
      "three all_gather of the weight shards on the FSDP group (F ranks) + "
      "all_reduce of y (Bf, D) on the TP group (T ranks)",
      ""}},
    {49, {nullptr, "", "", kRouting}},
    {50, {nullptr, "", "", kRouting}},
    {51, {nullptr, "", "", kRouting}},
    {52,
     {flatShardFromEachPeer, "(W-1) * p*b, p = max(64, min(64M, 4096))",
      "reduce_scatter_tensor of the fp8-rounded gradient (W*p, in the "
      "dtype): reduce-scatter factor (W-1)/W",
      ""}},
    {53,
     {flatShardFromEachPeer, "(W-1) * p*b, p = max(64, min(64M, 4096))",
      "all_gather_into_tensor of the fp8-rounded shard (p, in the dtype): "
      "all-gather factor (W-1)/W",
      ""}},
    {54,
     {twoSeqShardsFromEachPeer,
      "2 * (W-1) * B*max(1, T//W)*512*b, B = max(1, M//64), T = max(1, N//64)",
      "ring: W-1 steps of isend/irecv of k and v (B, T//W, 8 heads, 64) to "
      "the next rank (point-to-point: the bytes sent)",
      ""}},
    {55,
     {[](const PkbCase &C) {
        int Tp = std::min(2, C.World), Cp = C.World / Tp;
        int64_t SLocal = std::max<int64_t>(1, attnT(C) / Cp);
        double Kv = num(attnB(C) * SLocal * (8 / Tp) * 64) * C.DtypeBytes;
        return 2 * (Cp - 1.0) * Kv +
               allReduce(num(attnB(C) * SLocal * 512) * C.DtypeBytes, Tp);
      },
      "2 * (cp-1) * B*S*(8/tp)*64*b + 2(tp-1)/tp * B*S*512*b, tp = min(2, "
      "W), cp = W/tp, S = max(1, T//cp), B = max(1, M//64), T = max(1, N//64)",
      "ring on the CP group: cp-1 steps of isend/irecv of k and v (B, S, 8/tp "
      "heads, 64) + all_reduce of the output (B, S, 512) on the TP group",
      ""}},
    {56,
     {[](const PkbCase &C) {
        int Pp = std::min(2, C.World), Cp = C.World / Pp;
        double E = num(attnB(C) * std::max<int64_t>(1, attnT(C) / Cp) * 512) *
                   C.DtypeBytes;
        return 2 * (Cp - 1.0) * E + (Pp > 1 ? E : 0.0);
      },
      "2 * (cp-1) * B*S*512*b + B*S*512*b (first stage), pp = min(2, W), "
      "cp = W/pp, S = max(1, T//cp), B = max(1, M//64), T = max(1, N//64)",
      "ring on the CP group: cp-1 steps of isend/irecv of k and v (B, S, 8 "
      "heads, 64) + the first pipeline stage's isend of its output (B, S, "
      "512) to the next stage (point-to-point: the bytes sent)",
      ""}},
    {57,
     {[](const PkbCase &C) {
        int Dp = std::min(2, C.World), Cp = C.World / Dp;
        double E = num(attnB(C) * std::max<int64_t>(1, attnT(C) / Cp) * 512);
        double Ring =
            Cp > 1 ? 2 * (Cp - 1.0) * E * C.DtypeBytes + 2.0 * Cp * E * 4 : 0;
        return Ring + 3 * allReduce(E * C.DtypeBytes, Dp);
      },
      "2 * (cp-1) * E*b + 2 * cp * E*4 (if cp > 1) + 3 * 2(dp-1)/dp * E*b, "
      "E = B*S*512, dp = min(2, W), cp = W/dp, S = max(1, T//cp)",
      "backward ring on the CP group: cp-1 steps of k and v (in the dtype) "
      "and cp steps of the fp32 dk and dv + all_reduce of dq, dk, dv on the "
      "DP group",
      ""}},
    {58,
     {[](const PkbCase &C) {
        return (C.World - 1.0) *
               num(std::max<int64_t>(1, C.M / C.World) *
                   std::max<int64_t>(16, C.N)) *
               C.DtypeBytes;
      },
      "(W-1) * max(1, M//W)*max(16, N)*b",
      "text features (M//W, N) passed around the ring: (W-1)//2 "
      "bidirectional exchanges (two sends) plus one more send when W is "
      "even, W-1 sends of the features in all",
      ""}},
    {59,
     {[](const PkbCase &C) {
        int64_t H = roundUp(std::max<int64_t>(16, C.M), C.World);
        int64_t Wd = roundUp(std::max<int64_t>(16, C.N), C.World);
        return shareOut(num(attnB(C) * H * (Wd / C.World)) * 8, C.World);
      },
      "(W-1)/W * B*H*(Wd/W)*8, B = max(1, M//64), H = max(16, M) and Wd = "
      "max(16, N) rounded up to W",
      "all_to_all of the complex64 FFT along H of x (B, H, Wd/W) (fp32 input "
      "whatever the dtype): all-to-all factor (W-1)/W",
      ""}},
    {60,
     {[](const PkbCase &C) {
        if (720 % C.World != 0)
          return 0.0; // PKB asserts H % W == 0
        double E = 2.0 * 10 * (720 / C.World) * 1440 * 8;
        return (C.World - 1.0) * E + shareOut(E, C.World);
      },
      "(W-1) * E + (W-1)/W * E, E = 2*10*(720/W)*1440*8 (fixed shape)",
      "all_gather of the conjugate-padded complex64 spectrum (2, 10, 720/W, "
      "1440) + all_to_all of its inverse FFT (same size): all-gather and "
      "all-to-all factors (W-1)/W",
      ""}},
    {61,
     {nullptr, "", "",
      "not derived yet: the reference calls all_gather, "
      "all_gather_into_tensor, all_to_all x2; its per-call volume "
      "was not derived in this pass"}},
    {62,
     {[](const PkbCase &C) {
        int Az = C.World % 2 == 0 ? 2 : 1, Pol = C.World / Az;
        int64_t Lat = roundUp(128, Pol), Lon = roundUp(2 * Lat, Az);
        // fp32 x (32, 8, Lat/Pol, Lon/Az); kernel 3.
        double In = 32.0 * 8 * num(Lat / Pol) * num(Lon / Az) * 4;
        double Y = 32.0 * (8 / Az) * 3 * num(Lat) * num(Lon) * 4;
        return shareOut(In, Az) + allReduce(Y, Pol) + shareOut(Y / Pol, Az);
      },
      "(az-1)/az * 32*8*(L/pol)*(Lo/az)*4 + 2(pol-1)/pol * Y + (az-1)/az * "
      "Y/pol, Y = 32*(8/az)*3*L*Lo*4, az = 2 if W is even else 1, pol = "
      "W/az, L = 128 rounded up to pol, Lo = 2L rounded up to az (fp32)",
      "azimuth all_to_all of x (channels to longitudes), polar all_reduce of "
      "the fp32 contraction (32, 8/az, 3, L, Lo), azimuth all_to_all back "
      "of its polar slice",
      ""}},
    {63,
     {nullptr, "", "",
      "pickled objects: the reference's all_gather_object sends Python "
      "lists pickled into byte tensors whose size pickle decides, so the "
      "bytes per call are not a function of (shape, dtype, W)"}},
    {64,
     {nullptr, "", "",
      "not derived yet: the reference calls all_to_all_single x7; its per-call "
      "volume "
      "was not derived in this pass"}},
    {65,
     {[](const PkbCase &C) {
        return (C.World - 1.0) * num(gnnRowsPerPeer(C)) *
               num(std::max<int64_t>(8, std::min<int64_t>(C.N, 128))) *
               C.DtypeBytes;
      },
      "(W-1) * r*h*b, r = clamp(M//W, 64, 1024), h = clamp(N, 8, 128)",
      "all_to_all of the gathered features with PKB's equal counts (r rows "
      "of h to every peer)",
      ""}},
    {66,
     {[](const PkbCase &C) {
        return (C.World - 1.0) * num(gnnRowsPerPeer(C)) *
               num(std::max<int64_t>(8, std::min<int64_t>(C.N, 128))) * 4;
      },
      "(W-1) * r*h*4, r = clamp(M//W, 64, 1024), h = clamp(N, 8, 128)",
      "all_to_all of the fp32 output gradients (fp32 whatever the dtype) with "
      "PKB's equal counts (r rows of h to every peer)",
      ""}},
    {67,
     {nullptr, "", "",
      "data-dependent: the rows sent to each owner follow random node ids "
      "(torch.randint), so the bytes per call are not a function of (shape, "
      "dtype, W)"}},
    {68,
     {[](const PkbCase &C) {
        int64_t Q =
            std::max<int64_t>(20000, std::min<int64_t>(C.M / C.World, 200000));
        int64_t Emb = C.N >= 256 ? 256 : 128;
        int64_t Own = (Q + C.World - 1) / C.World; // owner == rank
        return num(Q - Own) * (8.0 + num(Emb) * C.DtypeBytes) +
               (C.World - 1.0) * 8;
      },
      "(Q - ceil(Q/W)) * (8 + E*b) + (W-1)*8, Q = clamp(M//W, 20000, "
      "200000), E = 256 if N >= 256 else 128",
      "all_to_all_single of the int64 counts, of the node ids each owner "
      "serves and of the fetched embeddings back (PKB's owner = (i + rank) % "
      "W leaves ceil(Q/W) queries local)",
      ""}},
    {69,
     {[](const PkbCase &C) {
        int64_t Pos =
            std::max<int64_t>(16, std::min<int64_t>(C.M / C.World, 1280)) +
            std::min(2, C.World - 1);
        int64_t Neg = std::max<int64_t>(100, std::min<int64_t>(C.N, 1000));
        return (C.World - 1.0) * num(Pos * (1 + Neg)) * C.DtypeBytes +
               2 * allReduce(8.0 * C.World, C.World);
      },
      "(W-1) * p*(1 + n)*b + 2 * 2(W-1)/W * 8W, p = clamp(M//W, 16, 1280) + "
      "min(2, W-1), n = clamp(N, 100, 1000)",
      "twice (positive scores (p,), negative scores (p, n)): all_reduce of "
      "the W int64 sizes + all_to_all_single that sends the whole tensor to "
      "every peer; the busiest rank has p = base + rank % 3 at its largest",
      ""}},
    {70,
     {nullptr, "", "",
      "data-dependent: the values all-to-all follows random per-feature "
      "lengths (torch.randint), so the bytes per call are not a function of "
      "(shape, dtype, W)"}},
    {71,
     {[](const PkbCase &C) {
        return (C.World >= 3 ? 2.0 : 1.0) * 1024 * 6 * C.DtypeBytes;
      },
      "2 * 1024*6*b (1 * ... at W = 2), fixed 1024 channels, kernel 7",
      "halo exchange: isend of the 6 boundary columns (1, 1024, 6) to each "
      "neighbour (an interior rank has two; point-to-point: the bytes sent)",
      ""}},
    {72,
     {[](const PkbCase &C) {
        return shareOut(4.0 * 1024 * 2048 * C.DtypeBytes, C.World);
      },
      "(W-1)/W * 4 * 1024*2048*b (fixed shape)",
      "four all_to_all_single (x1, x2, v from sequence to channel shards, z "
      "back) of 1024 channels x 2048 local positions: all-to-all factor "
      "(W-1)/W",
      ""}},
    {73,
     {[](const PkbCase &C) {
        return 3 * allReduce(8.0 * 1024 * C.DtypeBytes, C.World);
      },
      "3 * 2(W-1)/W * 8192*b (fixed batch 8 x seq 1024)",
      "three all_reduce (max, predicted logit, sum of exp) of (8, 1024) "
      "per-token values: all-reduce factor",
      ""}},
    {74,
     {[](const PkbCase &C) {
        bool Tp2 = C.World >= 4 && C.World % 2 == 0;
        int Tp = Tp2 ? 2 : 1, Cp = C.World / Tp;
        return (Cp - 1.0) * 64 * 16 * (4 * 128 + 1) * C.DtypeBytes +
               allReduce(64.0 * Cp * 16 * 128 * C.DtypeBytes, Tp);
      },
      "(cp-1) * 64*16*513*b + 2(tp-1)/tp * 64*cp*16*128*b, tp = 2 if W >= 4 "
      "is even else 1, cp = W/tp (fixed shape)",
      "all_gather on the CP group of q, k, v, g (64, 16 heads, 128) and beta "
      "(64, 16) + all_reduce of the output (64 cp, 16, 128) on the TP group",
      ""}},
    {75,
     {[](const PkbCase &C) {
        return shareOut(64.0 * num(roundUp(6, C.World)) * 1538 * C.DtypeBytes,
                        C.World);
      },
      "(W-1)/W * 64*H*1538*b, H = 6 rounded up to W (fixed shape)",
      "six all_to_all_single of q, k (64, H, 256), v (64, H, 512), gate, beta "
      "(64, H) and the output (64 W, H/W, 512): all-to-all factor (W-1)/W",
      ""}},
    {76,
     {[](const PkbCase &C) {
        return allReduce(512.0 * 17 * 64 * 64 * C.DtypeBytes, C.World);
      },
      "2(W-1)/W * 512*17*64*64*b (fixed shape)",
      "all_reduce of the conv3d output (1, 512, 17, 64, 64): all-reduce "
      "factor",
      ""}},
    {77,
     {[](const PkbCase &C) {
        int W = C.World;
        int64_t Hq = W <= 4 ? 24 : 48, Chunk = W <= 4 ? 12150 : 21600;
        if (Hq % W != 0)
          Hq = W * std::max<int64_t>(1, Hq / W);
        int64_t Hkv = 8;
        if (8 % W != 0 && W % 8 != 0)
          Hkv = W;
        if (Hkv < W && W % Hkv == 0)
          Hkv = W; // _redistribute_kv repeats the KV heads
        int64_t T = 4 * ((Chunk + W - 1) / W);
        return shareOut(num(2 * T * Hq * 128 + T * Hkv * 256) * C.DtypeBytes,
                        W);
      },
      "(W-1)/W * (2*T*Hq*128 + T*Hkv*256)*b, T = 4*ceil(c/W); W <= 4: Hq "
      "= 24, c = 12150, else 48, 21600 (PKB adjusts Hq to W | Hq, Hkv = 8 or "
      "W) (fixed shape)",
      "all_to_all_single of the KV heads (T, Hkv, 256), of each of the 4 "
      "query ranges and of each attention output (T*Hq*128 in all, each "
      "way): all-to-all factor (W-1)/W",
      ""}},
    {78,
     {nullptr, "", "",
      "pickled objects: the reference's all_gather_object sends Python "
      "lists pickled into byte tensors whose size pickle decides, so the "
      "bytes per call are not a function of (shape, dtype, W)"}},
    {79,
     {[](const PkbCase &C) {
        int64_t Q = std::max<int64_t>(32, std::min<int64_t>(C.M / 64, 256));
        int64_t F = C.N >= 8192 ? 1024 : (C.N >= 4096 ? 768 : 384);
        double Round =
            16.0 + num(Q * F) * 2 + (C.World - 1.0) * num(Q) * 200 * (2 + 8);
        return C.World * Round;
      },
      "W * (16 + q*F*2 + (W-1) * q*200*(2 + 8)), q = clamp(M//64, 32, 256), "
      "F = 384 (768 if N >= 4096, 1024 if N >= 8192); bf16 whatever the dtype",
      "W rounds, each: broadcast of the owner's shape (2 int64) and bf16 "
      "queries (q, F) (factor 1) + gather of the bf16 top-200 similarities "
      "and int64 labels (q, 200) to the owner (factor (W-1)/W of W*q*200*10)",
      ""}},
    {80,
     {[](const PkbCase &C) {
        return allReduce((3.0 * 16384 + 2) * 4, C.World);
      },
      "2(W-1)/W * (3*16384 + 2)*4 (fixed shape, fp32)",
      "all_reduce of two fp32 scalars and, in each of 3 Sinkhorn iterations, "
      "of the 16384 prototype row sums: all-reduce factor",
      ""}},
    {81,
     {nullptr, "", "",
      "trial-dependent: each rank's object count is 1 + (rank + trial) % 3, "
      "so the all-gathered masks change size between trials and calls"}},
    {82,
     {vocabLogProbs, "(W-1)/W * t*(256/W)*b + (W-1) * (t/W)*4, t = B*S",
      "all_to_all_single of the vocab-parallel logits (t, 256/W) + "
      "all_gather of the fp32 token log-probs (t/W); t = B*S with B = "
      "clamp(M//512, 1, 4), S = max(W, min(M//128, 32)) rounded up to W",
      ""}},
    {83,
     {vocabLogProbs, "(W-1)/W * t*(256/W)*b + (W-1) * (t/W)*4, t = B*S",
      "per chunk, all_to_all_single of the logits and all_gather of the fp32 "
      "log-probs; PKB's chunks are multiples of W, so the sums equal 82's",
      ""}},
    {84,
     {[](const PkbCase &C) {
        return shareOut(num(vocabTokens(C) * (256 / C.World)) *
                            (C.DtypeBytes + 4),
                        C.World);
      },
      "(W-1)/W * t*(256/W)*(b + 4), t = B*S as in 82",
      "per chunk, all_to_all_single of the logits (in the dtype) and of the "
      "fp32 gradient back to vocab shards (same element count): all-to-all "
      "factor (W-1)/W",
      ""}},
    {85,
     {nullptr, "", "",
      "data-dependent: the sample-sort buckets follow the random values (and "
      "PKB empties the odd ranks' inputs every fourth trial)"}},
    {86,
     {[](const PkbCase &C) {
        return allReduce((5.0 * 512 * 512 + 1) * 4, C.World);
      },
      "2(W-1)/W * (5*512*512 + 1)*4 (fixed shape, fp32)",
      "all_reduce of the fp32 squared norm and, in each of 5 Newton-Schulz "
      "steps, of the fp32 Gram matrix (512, 512): all-reduce factor",
      ""}},
    {87,
     {[](const PkbCase &C) {
        int64_t Ch = std::array<int64_t, 3>{
            320, 640,
            1280}[static_cast<size_t>(std::min<int64_t>(C.N / 512, 2))];
        return (C.World - 1.0) * 2 * num(Ch) * 128 * C.DtypeBytes;
      },
      "(W-1) * 2*C*128*b, C = (320, 640, 1280)[min(N//512, 2)]",
      "all_gather of every rank's first and last rows (2, 1, C, 1, 128): "
      "all-gather factor (W-1)/W (only the two neighbours' rows are used, so "
      "a solution may move less)",
      ""}},
}};
constexpr bool modelsInIdOrder() {
  for (size_t I = 0; I < ByteModels.size(); ++I)
    if (ByteModels[I].Id != static_cast<int>(I) + 1)
      return false;
  return true;
}
static_assert(modelsInIdOrder(), "ByteModels must list ids 1..87 in order");
} // namespace

std::span<const CatalogueEntry> problemCatalogue() { return Catalogue; }

namespace {
// problems/CollectiveUtil.h: fullSweep() (whole-buffer sizes: all-reduce,
// broadcast, reduce; all-reduce starts at 2^11 too) and shardSweep() (per
// rank shards); problems/Allreduce.cpp lists its own.
constexpr int64_t AllreduceSizes[] = {int64_t(1) << 11, int64_t(1) << 16,
                                      int64_t(1) << 20, int64_t(1) << 24,
                                      int64_t(1) << 27};
constexpr int64_t FullSweep[] = {int64_t(1) << 11, int64_t(1) << 17,
                                 int64_t(1) << 21, int64_t(1) << 25,
                                 int64_t(1) << 27};
constexpr int64_t ShardSweep[] = {int64_t(1) << 10, int64_t(1) << 16,
                                  int64_t(1) << 20, int64_t(1) << 24,
                                  int64_t(1) << 26};
// {InputTimesW, OutputTimesW, InputRootOnly, OutputRootOnly, bytes, sizes,
//  Copies, SourceByBlock, SourceOffsetByRank}
const SizeContract Contracts[8] = {
    // 1 allreduce: y = sum_p x_p
    {false, false, false, false, 2, AllreduceSizes, false, false, false},
    // 2 allgather: y[p*n + i] = x_p[i]
    {false, true, false, false, 2, ShardSweep, true, true, false},
    // 3 broadcast: y_r[i] = x_0[i]
    {false, false, true, false, 2, FullSweep, true, false, false},
    // 4 reduce: y_0 = sum_p x_p
    {false, false, false, true, 2, FullSweep, false, false, false},
    // 5 scatter: y_r[i] = x_0[r*n + i]
    {true, false, true, false, 2, ShardSweep, true, false, true},
    // 6 gather: y_0[p*n + i] = x_p[i]
    {false, true, false, true, 2, ShardSweep, true, true, false},
    // 7 reducescatter: y_r[i] = sum_p x_p[r*n + i]
    {true, false, false, false, 2, ShardSweep, false, false, false},
    // 8 alltoall: y_r[p*n + i] = x_p[r*n + i]
    {true, true, false, false, 2, ShardSweep, true, true, true},
};
} // namespace

const SizeContract *sizeContract(int Id) {
  return Id >= 1 && Id <= 8 ? &Contracts[Id - 1] : nullptr;
}

const CatalogueEntry *findCatalogueEntry(int Id) {
  if (Id < 1 || Id > static_cast<int>(Catalogue.size()))
    return nullptr;
  return &Catalogue[static_cast<size_t>(Id - 1)];
}

const CatalogueEntry *findCatalogueEntry(std::string_view NameOrId) {
  int Id = 0;
  auto [Ptr, Ec] =
      std::from_chars(NameOrId.data(), NameOrId.data() + NameOrId.size(), Id);
  if (Ec == std::errc() && Ptr == NameOrId.data() + NameOrId.size())
    return findCatalogueEntry(Id);
  for (const CatalogueEntry &E : Catalogue)
    if (E.PkbName == NameOrId ||
        (!E.PortedName.empty() && E.PortedName == NameOrId))
      return &E;
  return nullptr;
}

const PkbByteModel *pkbByteModel(int Id) {
  if (Id < 1 || Id > static_cast<int>(ByteModels.size()))
    return nullptr;
  return &ByteModels[static_cast<size_t>(Id - 1)].M;
}

std::optional<int> pkbDtypeBytes(std::string_view Dtype) {
  if (Dtype == "bfloat16" || Dtype == "float16")
    return 2;
  if (Dtype == "float32")
    return 4;
  if (Dtype == "float64")
    return 8;
  return std::nullopt;
}

PkbNvlinkBytes pkbNvlinkBytes(int Id, const PkbCase &C) {
  const PkbByteModel *M = pkbByteModel(Id);
  if (!M)
    return {std::nullopt,
            "no ParallelKernelBench problem " + std::to_string(Id)};
  if (!M->Bytes)
    return {std::nullopt, std::string(M->Reason)};
  if (C.World < 2)
    return {std::nullopt, "W = 1: no peer, nothing crosses NVLink"};
  if (C.M <= 0 || C.N <= 0 || C.DtypeBytes <= 0)
    return {std::nullopt, "no shape or dtype size for this case"};
  double B = M->Bytes(C);
  if (!(B > 0) || !std::isfinite(B))
    return {std::nullopt, "no bytes for this case: PKB's input generator "
                          "cannot build it (see the reference's asserts)"};
  return {B, ""};
}

} // namespace pkb
