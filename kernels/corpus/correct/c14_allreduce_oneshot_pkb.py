# c14_allreduce_oneshot_pkb.py: CORRECT ParallelKernelBench one-shot all-reduce: buf.copy_(x), hdl.barrier() (release/acquire kernel of torch symm_mem), a kernel that only reads peers' buffers, hdl.barrier() again before the next call may restage buf.
import torch
import torch.distributed as dist
import torch.distributed._symmetric_memory as symm_mem
from torch.utils.cpp_extension import load_inline

CUDA_SRC = r'''
#include <torch/extension.h>
#include <ATen/cuda/CUDAContext.h>
#include <cuda_runtime.h>
#include <stdint.h>

constexpr int kBlock = 512;
constexpr int kGrid = 32;

// out[i] = sum over ranks p of buf_p[i]; every rank sums in the same order, so
// all ranks produce bitwise-identical results.
__global__ void allreduce_kernel(const int64_t* buffer_ptrs, float* out, int world_size, int64_t n) {
  const int64_t stride = (int64_t)gridDim.x * blockDim.x;
  for (int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride) {
    float acc = 0.f;
    for (int p = 0; p < world_size; ++p) acc += reinterpret_cast<const float*>(buffer_ptrs[p])[i];
    out[i] = acc;
  }
}

void allreduce(torch::Tensor out, int64_t buffer_ptrs_dev, int64_t world_size) {
  auto stream = at::cuda::getCurrentCUDAStream();
  allreduce_kernel<<<kGrid, kBlock, 0, stream>>>(reinterpret_cast<const int64_t*>(buffer_ptrs_dev),
                                                 out.data_ptr<float>(), (int)world_size, out.numel());
}
'''

CPP_SRC = "void allreduce(torch::Tensor out, int64_t buffer_ptrs_dev, int64_t world_size);"

_ext = None
_state = {}


def _get_ext():
    global _ext
    if _ext is None:
        _ext = load_inline(
            name="c14_allreduce",
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
    x = x.contiguous()
    buf, hdl = _get_state(x.numel(), x.device)
    buf.copy_(x.view(-1))
    hdl.barrier(channel=0)
    out = torch.empty_like(x)
    ext.allreduce(out, hdl.buffer_ptrs_dev, hdl.world_size)
    hdl.barrier(channel=0)
    return out
