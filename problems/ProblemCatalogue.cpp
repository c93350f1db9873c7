//===- ProblemCatalogue.cpp - The ParallelKernelBench problems ----------===//
#include "pkb/ProblemCatalogue.h"

#include <array>
#include <charconv>

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
} // namespace

std::span<const CatalogueEntry> problemCatalogue() { return Catalogue; }

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

} // namespace pkb
