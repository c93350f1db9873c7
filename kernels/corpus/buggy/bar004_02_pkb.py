# bar004_02_pkb.py: BUG(BAR-004) nothing orders the peers' reads of buf in call k before this rank's buf.copy_ in call k+1 (there is no barrier after the kernel), so a fast rank overwrites data a slow peer is still summing. FIX: hdl.barrier(channel=0) after ext.allreduce(...).
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

constexpr int kBlock = 512;
constexpr int kGrid = 32;

// One-shot bf16 all-reduce (fp32 accumulate) of buffers staged by the host.
__global__ void allreduce_kernel(const int64_t* buffer_ptrs, __nv_bfloat16* out, int world_size,
                                 int64_t n) {
  const int64_t stride = (int64_t)gridDim.x * blockDim.x;
  for (int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride) {
    float acc = 0.f;
    for (int p = 0; p < world_size; ++p)
      acc += __bfloat162float(reinterpret_cast<const __nv_bfloat16*>(buffer_ptrs[p])[i]);
    out[i] = __float2bfloat16(acc);
  }
}

void allreduce(torch::Tensor out, int64_t buffer_ptrs_dev, int64_t world_size) {
  auto stream = at::cuda::getCurrentCUDAStream();
  allreduce_kernel<<<kGrid, kBlock, 0, stream>>>(
      reinterpret_cast<const int64_t*>(buffer_ptrs_dev),
      reinterpret_cast<__nv_bfloat16*>(out.data_ptr()), (int)world_size, out.numel());
}
'''

CPP_SRC = "void allreduce(torch::Tensor out, int64_t buffer_ptrs_dev, int64_t world_size);"

_ext = None
_state = {}


def _get_ext():
    global _ext
    if _ext is None:
        _ext = load_inline(
            name="bar004_02_allreduce",
            cpp_sources=CPP_SRC,
            cuda_sources=CUDA_SRC,
            functions=["allreduce"],
            extra_cuda_cflags=["-O3", "-gencode=arch=compute_90a,code=sm_90a"],
        )
    return _ext


def _get_state(n, device):
    key = (n, str(device))
    if key not in _state:
        buf = symm_mem.empty(n, dtype=torch.bfloat16, device=device)
        hdl = symm_mem.rendezvous(buf, dist.group.WORLD.group_name)
        _state[key] = (buf, hdl)
    return _state[key]


def solution(x: torch.Tensor) -> torch.Tensor:
    assert x.dtype == torch.bfloat16
    ext = _get_ext()
    buf, hdl = _get_state(x.numel(), x.device)
    buf.copy_(x.view(-1))  # expect: BAR-004
    hdl.barrier(channel=0)
    out = torch.empty_like(x)
    ext.allreduce(out, hdl.buffer_ptrs_dev, hdl.world_size)
    return out
