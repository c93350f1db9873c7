# topo001_02_pkb.py: BUG(TOPO-001) the broadcast stores through hdl.multicast_ptr with multimem.st without checking it; on the default target (no NVLink multicast) multicast_ptr is 0 and the kernel writes through a null multicast address. FIX: if hdl.multicast_ptr == 0 fall back to unicast stores into every peer's buffer (hdl.buffer_ptrs_dev).
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

// Broadcast from `root`: one multimem.st writes each value into the symmetric
// buffer of every rank. Ranks other than root do nothing.
__global__ void broadcast_multimem(const float* x, float* mc_buf, int rank, int root, int64_t n) {
  if (rank != root) return;
  const int64_t stride = (int64_t)gridDim.x * blockDim.x;
  for (int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride)
    asm volatile("multimem.st.relaxed.sys.global.f32 [%0], %1;" ::"l"(mc_buf + i), "f"(x[i]) : "memory");  // expect: TOPO-001
}

void broadcast(torch::Tensor x, int64_t multicast_ptr, int64_t rank, int64_t root) {
  auto stream = at::cuda::getCurrentCUDAStream();
  broadcast_multimem<<<kGrid, kBlock, 0, stream>>>(x.data_ptr<float>(),
                                                   reinterpret_cast<float*>(multicast_ptr),
                                                   (int)rank, (int)root, x.numel());
}
'''

CPP_SRC = "void broadcast(torch::Tensor x, int64_t multicast_ptr, int64_t rank, int64_t root);"

_ext = None
_state = {}


def _get_ext():
    global _ext
    if _ext is None:
        _ext = load_inline(
            name="topo001_02_broadcast",
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
    buf, hdl = _get_state(x.numel(), x.device)
    ext.broadcast(x.contiguous().view(-1), hdl.multicast_ptr, hdl.rank, root)
    hdl.barrier(channel=0)
    out = buf.clone().view_as(x)
    hdl.barrier(channel=0)
    return out
