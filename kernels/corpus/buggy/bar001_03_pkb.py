# bar001_03_pkb.py: BUG(BAR-001) __syncthreads() inside a grid-stride loop whose trip count depends on the thread index; when n is not a multiple of the grid size some threads of a block leave the loop while others wait at the barrier. FIX: drop the barrier (each thread only reads its own tile column) or make the loop bound block-uniform.
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
constexpr int kMaxRanks = 8;

// One-shot all-reduce of buffers the host has staged and fenced with
// hdl.barrier(); peer values are staged through shared memory.
__global__ void allreduce_kernel(const int64_t* buffer_ptrs, float* out, int world_size,
                                 int64_t n) {
  __shared__ float tile[kMaxRanks][kBlock];
  const int64_t stride = (int64_t)gridDim.x * blockDim.x;
  for (int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride) {
    for (int p = 0; p < world_size; ++p)
      tile[p][threadIdx.x] = reinterpret_cast<const float*>(buffer_ptrs[p])[i];
    __syncthreads();  // expect: BAR-001
    float acc = 0.f;
    for (int p = 0; p < world_size; ++p) acc += tile[p][threadIdx.x];
    out[i] = acc;
  }
}

void allreduce(torch::Tensor out, int64_t buffer_ptrs_dev, int64_t world_size) {
  auto stream = at::cuda::getCurrentCUDAStream();
  allreduce_kernel<<<kGrid, kBlock, 0, stream>>>(
      reinterpret_cast<const int64_t*>(buffer_ptrs_dev), out.data_ptr<float>(),
      (int)world_size, out.numel());
}
'''

CPP_SRC = "void allreduce(torch::Tensor out, int64_t buffer_ptrs_dev, int64_t world_size);"

_ext = None
_state = {}


def _get_ext():
    global _ext
    if _ext is None:
        _ext = load_inline(
            name="bar001_03_allreduce",
            cpp_sources=CPP_SRC,
            cuda_sources=CUDA_SRC,
            functions=["allreduce"],
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
    assert x.dtype == torch.float32
    ext = _get_ext()
    buf, hdl = _get_state(x.numel(), x.device)
    buf.copy_(x.view(-1))
    hdl.barrier(channel=0)
    out = torch.empty_like(x)
    ext.allreduce(out, hdl.buffer_ptrs_dev, hdl.world_size)
    hdl.barrier(channel=0)
    return out
