# part002_03_pkb.py: BUG(PART-002) MoE top-k dispatch: the receive row is chosen by (source rank, token) only, so when two of a token's k experts live on the same rank both routing slots write the same row (different weight and expert id) in the same phase. FIX: row = (rank * T + t) * K + k, i.e. one row per routing slot.
import torch
import torch.distributed as dist
import torch.distributed._symmetric_memory as symm_mem
from torch.utils.cpp_extension import load_inline

CUDA_SRC = r'''
#include <torch/extension.h>
#include <ATen/cuda/CUDAContext.h>
#include <cuda_runtime.h>
#include <stdint.h>

constexpr int kBlock = 256;
constexpr int kGrid = 64;

// Push each (token, slot) of this rank into the receive buffer of the rank that
// owns the chosen expert. Row layout: H values, routing weight, local expert id.
// Expert ids outside [0, W * experts_per_rank) are dropped.
__global__ void dispatch_kernel(const float* x, const int64_t* topk_ids, const float* topk_w,
                                const int64_t* buffer_ptrs, int rank, int world_size, int T,
                                int K, int H, int experts_per_rank) {
  const int64_t row_len = H + 2;
  const int64_t total = (int64_t)T * K * row_len;
  const int64_t stride = (int64_t)gridDim.x * blockDim.x;
  for (int64_t e = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; e < total; e += stride) {
    const int64_t tk = e / row_len;
    const int j = (int)(e % row_len);
    const int t = (int)(tk / K);
    const int64_t expert = topk_ids[tk];
    if (expert < 0 || expert >= (int64_t)world_size * experts_per_rank) continue;
    const int dst = (int)(expert / experts_per_rank);
    const float v = j < H ? x[(int64_t)t * H + j] : (j == H ? topk_w[tk] : (float)(expert % experts_per_rank));
    float* rows = reinterpret_cast<float*>(buffer_ptrs[dst]);
    rows[((int64_t)rank * T + t) * row_len + j] = v;  // expect: PART-002
  }
}

void dispatch(torch::Tensor x, torch::Tensor topk_ids, torch::Tensor topk_w, int64_t buffer_ptrs_dev,
              int64_t rank, int64_t world_size, int64_t experts_per_rank) {
  auto stream = at::cuda::getCurrentCUDAStream();
  dispatch_kernel<<<kGrid, kBlock, 0, stream>>>(
      x.data_ptr<float>(), topk_ids.data_ptr<int64_t>(), topk_w.data_ptr<float>(),
      reinterpret_cast<const int64_t*>(buffer_ptrs_dev), (int)rank, (int)world_size,
      (int)x.size(0), (int)topk_ids.size(1), (int)x.size(1), (int)experts_per_rank);
}
'''

CPP_SRC = r'''
void dispatch(torch::Tensor x, torch::Tensor topk_ids, torch::Tensor topk_w, int64_t buffer_ptrs_dev,
              int64_t rank, int64_t world_size, int64_t experts_per_rank);
'''

_ext = None
_state = {}


def _get_ext():
    global _ext
    if _ext is None:
        _ext = load_inline(
            name="part002_03_dispatch",
            cpp_sources=CPP_SRC,
            cuda_sources=CUDA_SRC,
            functions=["dispatch"],
            extra_cuda_cflags=["-O3", "-gencode=arch=compute_90a,code=sm_90a"],
        )
    return _ext


def _get_state(T, H, world_size, device):
    key = (T, H, str(device))
    if key not in _state:
        buf = symm_mem.empty(world_size * T * (H + 2), dtype=torch.float32, device=device)
        hdl = symm_mem.rendezvous(buf, dist.group.WORLD.group_name)
        _state[key] = (buf, hdl)
    return _state[key]


def solution(x: torch.Tensor, topk_ids: torch.Tensor, topk_w: torch.Tensor,
             experts_per_rank: int) -> torch.Tensor:
    """x: [T, H] f32; topk_ids: [T, K] int64; topk_w: [T, K] f32. Returns [W*T, H+2] rows."""
    ext = _get_ext()
    x = x.contiguous()
    T, H = x.shape
    world_size = dist.get_world_size()
    buf, hdl = _get_state(T, H, world_size, x.device)
    buf.zero_()
    hdl.barrier(channel=0)
    ext.dispatch(x, topk_ids.contiguous(), topk_w.contiguous(), hdl.buffer_ptrs_dev,
                 hdl.rank, hdl.world_size, experts_per_rank)
    hdl.barrier(channel=0)
    return buf.view(world_size * T, H + 2).clone()
