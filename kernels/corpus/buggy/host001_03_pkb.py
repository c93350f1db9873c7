# host001_03_pkb.py: BUG(HOST-001) the barrier between staging and the reduce-scatter kernel only runs on the first call ("warm-up"); on later calls the kernel reads peers' buffers that may not be restaged yet. FIX: call hdl.barrier(channel=0) after buf.copy_(x) on every call.
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

// Reduce-scatter (pull): rank r sums chunk r = [r*C, min(n, (r+1)*C)) of all
// peers' staged buffers, C = ceil(n / W).
__global__ void reduce_scatter_kernel(const int64_t* buffer_ptrs, float* out, int rank,
                                      int world_size, int64_t n) {
  const int64_t C = (n + world_size - 1) / world_size;
  const int64_t len = max((int64_t)0, min(C, n - rank * C));
  const int64_t stride = (int64_t)gridDim.x * blockDim.x;
  for (int64_t j = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; j < len; j += stride) {
    float acc = 0.f;
    for (int p = 0; p < world_size; ++p) acc += reinterpret_cast<const float*>(buffer_ptrs[p])[rank * C + j];
    out[j] = acc;
  }
}

void reduce_scatter(torch::Tensor out, int64_t buffer_ptrs_dev, int64_t rank, int64_t world_size,
                    int64_t n) {
  auto stream = at::cuda::getCurrentCUDAStream();
  reduce_scatter_kernel<<<kGrid, kBlock, 0, stream>>>(
      reinterpret_cast<const int64_t*>(buffer_ptrs_dev), out.data_ptr<float>(), (int)rank,
      (int)world_size, n);
}
'''

CPP_SRC = r'''
void reduce_scatter(torch::Tensor out, int64_t buffer_ptrs_dev, int64_t rank, int64_t world_size,
                    int64_t n);
'''

_ext = None
_state = {}


def _get_ext():
    global _ext
    if _ext is None:
        _ext = load_inline(
            name="host001_03_reduce_scatter",
            cpp_sources=CPP_SRC,
            cuda_sources=CUDA_SRC,
            functions=["reduce_scatter"],
            extra_cuda_cflags=["-O3", "-gencode=arch=compute_90a,code=sm_90a"],
        )
    return _ext


def _get_state(n, device):
    key = (n, str(device))
    if key not in _state:
        buf = symm_mem.empty(n, dtype=torch.float32, device=device)
        hdl = symm_mem.rendezvous(buf, dist.group.WORLD.group_name)
        _state[key] = {"buf": buf, "hdl": hdl, "warm": False}
    return _state[key]


def solution(x: torch.Tensor) -> torch.Tensor:
    assert x.dtype == torch.float32
    ext = _get_ext()
    n = x.numel()
    st = _get_state(n, x.device)
    buf, hdl = st["buf"], st["hdl"]
    buf.copy_(x.view(-1))
    if not st["warm"]:
        hdl.barrier(channel=0)
        st["warm"] = True
    chunk = (n + hdl.world_size - 1) // hdl.world_size
    out = torch.empty(max(0, min(chunk, n - hdl.rank * chunk)), dtype=x.dtype, device=x.device)
    ext.reduce_scatter(out, hdl.buffer_ptrs_dev, hdl.rank, hdl.world_size, n)  # expect: HOST-001
    hdl.barrier(channel=0)
    return out
