# c17_alltoall_pkb.py: CORRECT ParallelKernelBench all-to-all (pull): buf.copy_(x), hdl.barrier(), each rank reads block `rank` of every peer's staged buffer into a local output, hdl.barrier() before buf may be restaged.
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

// out[q*count + j] = block `rank` of rank q's staged input.
__global__ void alltoall_pull(const int64_t* buffer_ptrs, float* out, int rank, int world_size,
                              int64_t count) {
  const int64_t stride = (int64_t)gridDim.x * blockDim.x;
  for (int s = 0; s < world_size; ++s) {
    const int q = (rank + s) % world_size;
    const float* src = reinterpret_cast<const float*>(buffer_ptrs[q]) + rank * count;
    for (int64_t j = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; j < count; j += stride)
      out[q * count + j] = src[j];
  }
}

void alltoall(torch::Tensor out, int64_t buffer_ptrs_dev, int64_t rank, int64_t world_size,
              int64_t count) {
  auto stream = at::cuda::getCurrentCUDAStream();
  alltoall_pull<<<kGrid, kBlock, 0, stream>>>(reinterpret_cast<const int64_t*>(buffer_ptrs_dev),
                                              out.data_ptr<float>(), (int)rank, (int)world_size,
                                              count);
}
'''

CPP_SRC = r'''
void alltoall(torch::Tensor out, int64_t buffer_ptrs_dev, int64_t rank, int64_t world_size,
              int64_t count);
'''

_ext = None
_state = {}


def _get_ext():
    global _ext
    if _ext is None:
        _ext = load_inline(
            name="c17_alltoall",
            cpp_sources=CPP_SRC,
            cuda_sources=CUDA_SRC,
            functions=["alltoall"],
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
    """x: [W * count] float32; block p goes to rank p. Returns [W * count]."""
    assert x.dtype == torch.float32
    ext = _get_ext()
    world_size = dist.get_world_size()
    assert x.numel() % world_size == 0
    x = x.contiguous()
    buf, hdl = _get_state(x.numel(), x.device)
    buf.copy_(x.view(-1))
    hdl.barrier(channel=0)
    out = torch.empty_like(x)
    ext.alltoall(out, hdl.buffer_ptrs_dev, hdl.rank, hdl.world_size, x.numel() // world_size)
    hdl.barrier(channel=0)
    return out
