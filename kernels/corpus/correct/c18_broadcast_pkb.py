# c18_broadcast_pkb.py: CORRECT ParallelKernelBench broadcast (pull): only the root stages buf, hdl.barrier() publishes it, every rank copies the root's buffer into its output, hdl.barrier() before the root may restage; the root index is validated on the host and in the kernel.
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

__global__ void broadcast_pull(const int64_t* buffer_ptrs, float* out, int root, int world_size,
                               int64_t n) {
  if (root < 0 || root >= world_size) return;  // uniform on every thread and rank
  const float* src = reinterpret_cast<const float*>(buffer_ptrs[root]);
  const int64_t stride = (int64_t)gridDim.x * blockDim.x;
  for (int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride) out[i] = src[i];
}

void broadcast(torch::Tensor out, int64_t buffer_ptrs_dev, int64_t root, int64_t world_size) {
  auto stream = at::cuda::getCurrentCUDAStream();
  broadcast_pull<<<kGrid, kBlock, 0, stream>>>(reinterpret_cast<const int64_t*>(buffer_ptrs_dev),
                                               out.data_ptr<float>(), (int)root, (int)world_size,
                                               out.numel());
}
'''

CPP_SRC = "void broadcast(torch::Tensor out, int64_t buffer_ptrs_dev, int64_t root, int64_t world_size);"

_ext = None
_state = {}


def _get_ext():
    global _ext
    if _ext is None:
        _ext = load_inline(
            name="c18_broadcast",
            cpp_sources=CPP_SRC,
            cuda_sources=CUDA_SRC,
            functions=["broadcast"],
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


def solution(x: torch.Tensor, root: int = 0) -> torch.Tensor:
    assert x.dtype == torch.float32
    ext = _get_ext()
    x = x.contiguous()
    buf, hdl = _get_state(x.numel(), x.device)
    assert 0 <= root < hdl.world_size
    if hdl.rank == root:
        buf.copy_(x.view(-1))
    hdl.barrier(channel=0)
    out = torch.empty_like(x)
    ext.broadcast(out, hdl.buffer_ptrs_dev, root, hdl.world_size)
    hdl.barrier(channel=0)
    return out
