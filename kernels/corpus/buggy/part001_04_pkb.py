# part001_04_pkb.py: BUG(PART-001) the destination rank expert_ids[t] / experts_per_rank comes straight from data; a dropped token (id -1) or an id >= W * experts_per_rank indexes buffer_ptrs outside [0, W). FIX: skip the token unless 0 <= expert_ids[t] < world_size * experts_per_rank.
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
constexpr int kGrid = 32;
constexpr int kMaxRanks = 8;
constexpr int kSlotBase = 64;  // words [0, 64) are left to hdl.barrier()

// MoE dispatch with fixed slots: token t of rank s lands in row s*T + t of the
// destination's symmetric buffer; a row holds H values plus a 1.0 marker. The
// host zeroes buf and runs hdl.barrier() before the kernel and after it.
__global__ void dispatch_kernel(const float* x, const int64_t* expert_ids,
                                const int64_t* buffer_ptrs, const int64_t* signal_pad_ptrs,
                                float* out, int rank, int world_size, int T, int H,
                                int experts_per_rank, uint32_t call) {
  const int64_t tid = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
  const int64_t stride = (int64_t)gridDim.x * blockDim.x;
  const int64_t row_len = H + 1;
  const int64_t per_sender = (int64_t)T * row_len;
  for (int64_t e = tid; e < per_sender; e += stride) {
    const int t = (int)(e / row_len), j = (int)(e % row_len);
    const int dst = (int)(expert_ids[t] / experts_per_rank);
    float* rows = reinterpret_cast<float*>(buffer_ptrs[dst]);  // expect: PART-001
    rows[rank * per_sender + e] = j < H ? x[(int64_t)t * H + j] : 1.0f;
  }
  __syncthreads();
  if (threadIdx.x < world_size) {
    const int peer = threadIdx.x;
    uint32_t* remote = reinterpret_cast<uint32_t*>(signal_pad_ptrs[peer]) + kSlotBase + blockIdx.x * kMaxRanks + rank;
    asm volatile("st.release.sys.global.u32 [%0], %1;" ::"l"(remote), "r"(call) : "memory");
    const uint32_t* flag = reinterpret_cast<const uint32_t*>(signal_pad_ptrs[rank]) + kSlotBase + blockIdx.x * kMaxRanks + peer;
    uint32_t seen;
    do {
      asm volatile("ld.acquire.sys.global.u32 %0, [%1];" : "=r"(seen) : "l"(flag) : "memory");
    } while (seen < call);
  }
  __syncthreads();
  const float* mine = reinterpret_cast<const float*>(buffer_ptrs[rank]);
  for (int s = 0; s < world_size; ++s)
    for (int64_t e = tid; e < per_sender; e += stride) out[s * per_sender + e] = mine[s * per_sender + e];
}

void dispatch(torch::Tensor x, torch::Tensor expert_ids, torch::Tensor out, int64_t buffer_ptrs_dev,
              int64_t signal_pad_ptrs_dev, int64_t rank, int64_t world_size,
              int64_t experts_per_rank, int64_t call) {
  auto stream = at::cuda::getCurrentCUDAStream();
  dispatch_kernel<<<kGrid, kBlock, 0, stream>>>(
      x.data_ptr<float>(), expert_ids.data_ptr<int64_t>(),
      reinterpret_cast<const int64_t*>(buffer_ptrs_dev),
      reinterpret_cast<const int64_t*>(signal_pad_ptrs_dev), out.data_ptr<float>(), (int)rank,
      (int)world_size, (int)x.size(0), (int)x.size(1), (int)experts_per_rank, (uint32_t)call);
}
'''

CPP_SRC = r'''
void dispatch(torch::Tensor x, torch::Tensor expert_ids, torch::Tensor out, int64_t buffer_ptrs_dev,
              int64_t signal_pad_ptrs_dev, int64_t rank, int64_t world_size,
              int64_t experts_per_rank, int64_t call);
'''

_ext = None
_state = {}


def _get_ext():
    global _ext
    if _ext is None:
        _ext = load_inline(
            name="part001_04_dispatch",
            cpp_sources=CPP_SRC,
            cuda_sources=CUDA_SRC,
            functions=["dispatch"],
            extra_cuda_cflags=["-O3", "-gencode=arch=compute_90a,code=sm_90a"],
        )
    return _ext


def _get_state(T, H, world_size, device):
    key = (T, H, str(device))
    if key not in _state:
        buf = symm_mem.empty(world_size * T * (H + 1), dtype=torch.float32, device=device)
        hdl = symm_mem.rendezvous(buf, dist.group.WORLD.group_name)
        _state[key] = {"buf": buf, "hdl": hdl, "calls": 0}
    return _state[key]


def solution(x: torch.Tensor, expert_ids: torch.Tensor, experts_per_rank: int) -> torch.Tensor:
    """x: [T, H] float32 tokens; expert_ids: [T] int64 (top-1 routing, -1 = dropped)."""
    ext = _get_ext()
    x = x.contiguous()
    T, H = x.shape
    world_size = dist.get_world_size()
    st = _get_state(T, H, world_size, x.device)
    buf, hdl = st["buf"], st["hdl"]
    st["calls"] += 1
    buf.zero_()
    hdl.barrier(channel=0)
    out = torch.empty(world_size * T, H + 1, dtype=torch.float32, device=x.device)
    ext.dispatch(x, expert_ids.contiguous(), out, hdl.buffer_ptrs_dev, hdl.signal_pad_ptrs_dev,
                 hdl.rank, hdl.world_size, experts_per_rank, st["calls"])
    hdl.barrier(channel=0)
    return out
