# host001_02_pkb.py: BUG(HOST-001) dist.barrier() runs before buf.copy_(x), not after it, so when the all-gather kernel reads the peers' buffers nothing guarantees they have been staged. FIX: move the barrier between buf.copy_(x) and ext.allgather(...) (hdl.barrier(channel=0)).
import torch
import torch.distributed as dist
import torch.distributed._symmetric_memory as symm_mem
from torch.utils.cpp_extension import load_inline

CUDA_SRC = r'''
#include <torch/extension.h>
#include <ATen/cuda/CUDAContext.h>
#include <cuda_bf16.h>
#include <cuda_runtime.h>
#include <stdint.h>

constexpr int kBlock = 256;
constexpr int kGrid = 48;

// Pull all-gather: out[q*m + j] = rank q's buf[j] (bf16).
__global__ void allgather_kernel(const int64_t* buffer_ptrs, __nv_bfloat16* out, int world_size,
                                 int64_t m) {
  const int64_t stride = (int64_t)gridDim.x * blockDim.x;
  for (int q = 0; q < world_size; ++q) {
    const __nv_bfloat16* src = reinterpret_cast<const __nv_bfloat16*>(buffer_ptrs[q]);
    for (int64_t j = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; j < m; j += stride)
      out[q * m + j] = src[j];
  }
}

void allgather(torch::Tensor out, int64_t buffer_ptrs_dev, int64_t world_size, int64_t m) {
  auto stream = at::cuda::getCurrentCUDAStream();
  allgather_kernel<<<kGrid, kBlock, 0, stream>>>(reinterpret_cast<const int64_t*>(buffer_ptrs_dev),
                                                 reinterpret_cast<__nv_bfloat16*>(out.data_ptr()),
                                                 (int)world_size, m);
}
'''

CPP_SRC = "void allgather(torch::Tensor out, int64_t buffer_ptrs_dev, int64_t world_size, int64_t m);"

_ext = None
_state = {}


def _get_ext():
    global _ext
    if _ext is None:
        _ext = load_inline(
            name="host001_02_allgather",
            cpp_sources=CPP_SRC,
            cuda_sources=CUDA_SRC,
            functions=["allgather"],
            extra_cuda_cflags=["-O3", "-gencode=arch=compute_90a,code=sm_90a"],
        )
    return _ext


def _get_state(m, device):
    key = (m, str(device))
    if key not in _state:
        buf = symm_mem.empty(m, dtype=torch.bfloat16, device=device)
        hdl = symm_mem.rendezvous(buf, dist.group.WORLD.group_name)
        _state[key] = (buf, hdl)
    return _state[key]


def solution(x: torch.Tensor) -> torch.Tensor:
    assert x.dtype == torch.bfloat16
    ext = _get_ext()
    m = x.numel()
    buf, hdl = _get_state(m, x.device)
    dist.barrier()
    buf.copy_(x.view(-1))
    out = torch.empty(hdl.world_size * m, dtype=x.dtype, device=x.device)
    ext.allgather(out, hdl.buffer_ptrs_dev, hdl.world_size, m)  # expect: HOST-001
    hdl.barrier(channel=0)
    return out
