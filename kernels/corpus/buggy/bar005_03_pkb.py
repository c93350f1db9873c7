# bar005_03_pkb.py: BUG(BAR-005) the fused all-reduce + L2-normalize kernel spins on a grid-wide arrival counter, but it is launched with ceil(n / 256) blocks through <<<>>>; for large n not all blocks are resident and the spin never ends. FIX: cudaLaunchCooperativeKernel with an occupancy-bounded grid (grid-stride loops) and grid.sync(), or split into two kernels.
import torch
import torch.distributed as dist
import torch.distributed._symmetric_memory as symm_mem
from torch.utils.cpp_extension import load_inline

CUDA_SRC = r'''
#include <torch/extension.h>
#include <ATen/cuda/CUDAContext.h>
#include <cuda/atomic>
#include <cuda_runtime.h>
#include <stdint.h>

constexpr int kBlock = 256;

// out = allreduce(x) / ||allreduce(x)||_2. Buffers were staged by the host and
// fenced with hdl.barrier(). scratch = {sum of squares (float), arrivals (uint)}
// is local memory zeroed by the host before every launch.
__global__ void allreduce_normalize(const int64_t* buffer_ptrs, float* out, float* scratch,
                                    int world_size, int64_t n) {
  __shared__ float red[kBlock];
  const int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
  float v = 0.f;
  if (i < n)
    for (int p = 0; p < world_size; ++p) v += reinterpret_cast<const float*>(buffer_ptrs[p])[i];
  red[threadIdx.x] = v * v;
  __syncthreads();
  for (int w = blockDim.x / 2; w > 0; w >>= 1) {
    if (threadIdx.x < w) red[threadIdx.x] += red[threadIdx.x + w];
    __syncthreads();
  }
  if (threadIdx.x == 0) {
    atomicAdd(&scratch[0], red[0]);
    cuda::atomic_ref<unsigned int, cuda::thread_scope_device> arrived(*reinterpret_cast<unsigned int*>(&scratch[1]));
    arrived.fetch_add(1u, cuda::std::memory_order_acq_rel);
    while (arrived.load(cuda::std::memory_order_acquire) < gridDim.x) {  // expect: BAR-005
    }
  }
  __syncthreads();
  const float norm = sqrtf(cuda::atomic_ref<float, cuda::thread_scope_device>(scratch[0]).load(cuda::std::memory_order_relaxed));
  if (i < n) out[i] = norm > 0.f ? v / norm : 0.f;
}

void allreduce_normalize_launch(torch::Tensor out, torch::Tensor scratch, int64_t buffer_ptrs_dev,
                                int64_t world_size) {
  const int64_t n = out.numel();
  const unsigned int grid = (unsigned int)((n + kBlock - 1) / kBlock);
  auto stream = at::cuda::getCurrentCUDAStream();
  allreduce_normalize<<<grid, kBlock, 0, stream>>>(
      reinterpret_cast<const int64_t*>(buffer_ptrs_dev), out.data_ptr<float>(),
      scratch.data_ptr<float>(), (int)world_size, n);
}
'''

CPP_SRC = r'''
void allreduce_normalize_launch(torch::Tensor out, torch::Tensor scratch, int64_t buffer_ptrs_dev,
                                int64_t world_size);
'''

_ext = None
_state = {}


def _get_ext():
    global _ext
    if _ext is None:
        _ext = load_inline(
            name="bar005_03_allreduce_normalize",
            cpp_sources=CPP_SRC,
            cuda_sources=CUDA_SRC,
            functions=["allreduce_normalize_launch"],
            extra_cuda_cflags=["-O3", "-gencode=arch=compute_90a,code=sm_90a"],
        )
    return _ext


def _get_state(n, device):
    key = (n, str(device))
    if key not in _state:
        buf = symm_mem.empty(n, dtype=torch.float32, device=device)
        hdl = symm_mem.rendezvous(buf, dist.group.WORLD.group_name)
        scratch = torch.zeros(2, dtype=torch.float32, device=device)
        _state[key] = (buf, hdl, scratch)
    return _state[key]


def solution(x: torch.Tensor) -> torch.Tensor:
    assert x.dtype == torch.float32 and x.numel() > 0
    ext = _get_ext()
    buf, hdl, scratch = _get_state(x.numel(), x.device)
    buf.copy_(x.view(-1))
    hdl.barrier(channel=0)
    scratch.zero_()
    out = torch.empty_like(x)
    ext.allreduce_normalize_launch(out, scratch, hdl.buffer_ptrs_dev, hdl.world_size)
    hdl.barrier(channel=0)
    return out
