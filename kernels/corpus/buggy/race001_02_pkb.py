# race001_02_pkb.py: BUG(RACE-001) the stencil reads tile[t] and tile[t + 2], filled by neighbouring threads (and by the halo threads), without a __syncthreads() after the tile is filled. FIX: __syncthreads() between filling tile[] and reading it.
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

// Value j of the periodic global vector seen from this rank: j = -1 is the left
// neighbour's last element, j = n the right neighbour's first element.
__device__ __forceinline__ float value_at(const float* mine, const float* left, const float* right,
                                          int64_t j, int64_t n) {
  if (j < 0) return left[n - 1];
  if (j < n) return mine[j];
  return j == n ? right[0] : 0.f;
}

// 3-point periodic average over a vector sharded across a ring of ranks; the
// host stages x in buf and runs hdl.barrier() before and after the kernel.
__global__ void ring_stencil(const int64_t* buffer_ptrs, float* out, int rank, int world_size,
                             int64_t n) {
  __shared__ float tile[kBlock + 2];
  const float* mine = reinterpret_cast<const float*>(buffer_ptrs[rank]);
  const float* left = reinterpret_cast<const float*>(buffer_ptrs[(rank + world_size - 1) % world_size]);
  const float* right = reinterpret_cast<const float*>(buffer_ptrs[(rank + 1) % world_size]);
  for (int64_t base = (int64_t)blockIdx.x * blockDim.x; base < n; base += (int64_t)gridDim.x * blockDim.x) {
    const int64_t i = base + threadIdx.x;
    tile[threadIdx.x + 1] = value_at(mine, left, right, i, n);
    if (threadIdx.x == 0) tile[0] = value_at(mine, left, right, base - 1, n);
    if (threadIdx.x == blockDim.x - 1) tile[blockDim.x + 1] = value_at(mine, left, right, base + blockDim.x, n);
    if (i < n) out[i] = (tile[threadIdx.x] + tile[threadIdx.x + 1] + tile[threadIdx.x + 2]) * (1.f / 3.f);  // expect: RACE-001
    __syncthreads();
  }
}

void stencil(torch::Tensor out, int64_t buffer_ptrs_dev, int64_t rank, int64_t world_size) {
  auto stream = at::cuda::getCurrentCUDAStream();
  ring_stencil<<<kGrid, kBlock, 0, stream>>>(reinterpret_cast<const int64_t*>(buffer_ptrs_dev),
                                             out.data_ptr<float>(), (int)rank, (int)world_size,
                                             out.numel());
}
'''

CPP_SRC = "void stencil(torch::Tensor out, int64_t buffer_ptrs_dev, int64_t rank, int64_t world_size);"

_ext = None
_state = {}


def _get_ext():
    global _ext
    if _ext is None:
        _ext = load_inline(
            name="race001_02_stencil",
            cpp_sources=CPP_SRC,
            cuda_sources=CUDA_SRC,
            functions=["stencil"],
            extra_cuda_cflags=["-O3", "-gencode=arch=compute_90a,code=sm_90a"],
        )
    return _ext


def _get_state(n, device):
    key = (n, str(device))
    if key not in _state:
        buf = symm_mem.empty(n, dtype=torch.float32, device=device)
        hdl = symm_mem.rendezvous(buf, dist.group.WORLD.group_name)
        _state[key] = (buf, hdl)
    return _state[key]


def solution(x: torch.Tensor) -> torch.Tensor:
    assert x.dtype == torch.float32 and x.numel() > 0
    ext = _get_ext()
    buf, hdl = _get_state(x.numel(), x.device)
    buf.copy_(x.view(-1))
    hdl.barrier(channel=0)
    out = torch.empty_like(x)
    ext.stencil(out, hdl.buffer_ptrs_dev, hdl.rank, hdl.world_size)
    hdl.barrier(channel=0)
    return out
