# part003_03_pkb.py: BUG(PART-003) the vectorized loop covers n / 4 float4 groups only; when n % 4 != 0 the last n % 4 outputs are never written. FIX: add a scalar tail loop for i in [4 * (n / 4), n).
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

// One-shot all-reduce, 16-byte vectorized, of buffers staged and fenced by the
// host (buf.copy_ + hdl.barrier before, hdl.barrier after).
__global__ void allreduce_vec4(const int64_t* buffer_ptrs, float* out, int world_size, int64_t n) {
  const int64_t nvec = n / 4;
  const int64_t stride = (int64_t)gridDim.x * blockDim.x;
  for (int64_t v = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; v < nvec; v += stride) {
    float4 acc = make_float4(0.f, 0.f, 0.f, 0.f);
    for (int p = 0; p < world_size; ++p) {
      const float4 x = reinterpret_cast<const float4*>(buffer_ptrs[p])[v];
      acc.x += x.x; acc.y += x.y; acc.z += x.z; acc.w += x.w;
    }
    reinterpret_cast<float4*>(out)[v] = acc;  // expect: PART-003
  }
}

void allreduce(torch::Tensor out, int64_t buffer_ptrs_dev, int64_t world_size) {
  auto stream = at::cuda::getCurrentCUDAStream();
  allreduce_vec4<<<kGrid, kBlock, 0, stream>>>(reinterpret_cast<const int64_t*>(buffer_ptrs_dev),
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
            name="part003_03_allreduce",
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
