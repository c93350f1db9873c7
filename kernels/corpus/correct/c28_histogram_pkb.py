# c28_histogram_pkb.py: CORRECT ParallelKernelBench global histogram: shared-memory block histograms merged into rank 0's symmetric histogram with atomicAdd_system (system-scope atomic RMW, safe across ranks), host barriers around the merge and around the read of rank 0's buffer.
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
constexpr int kMaxBins = 1024;

// Global histogram of x over [lo, hi) with `bins` bins, accumulated in rank 0's
// symmetric buffer (zeroed and fenced by the host before the launch).
__global__ void histogram_push(const float* x, int64_t n, const int64_t* buffer_ptrs, int bins,
                               float lo, float hi) {
  __shared__ int local[kMaxBins];
  for (int b = threadIdx.x; b < bins; b += blockDim.x) local[b] = 0;
  __syncthreads();
  const float scale = bins / (hi - lo);
  for (int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += (int64_t)gridDim.x * blockDim.x) {
    const int b = (int)floorf((x[i] - lo) * scale);
    if (b >= 0 && b < bins) atomicAdd(&local[b], 1);
  }
  __syncthreads();
  int* root = reinterpret_cast<int*>(buffer_ptrs[0]);
  for (int b = threadIdx.x; b < bins; b += blockDim.x)
    if (local[b] != 0) atomicAdd_system(&root[b], local[b]);
}

void histogram(torch::Tensor x, int64_t buffer_ptrs_dev, int64_t bins, double lo, double hi) {
  TORCH_CHECK(bins > 0 && bins <= kMaxBins, "bins out of range");
  TORCH_CHECK(hi > lo, "empty range");
  auto stream = at::cuda::getCurrentCUDAStream();
  histogram_push<<<kGrid, kBlock, 0, stream>>>(x.data_ptr<float>(), x.numel(),
                                               reinterpret_cast<const int64_t*>(buffer_ptrs_dev),
                                               (int)bins, (float)lo, (float)hi);
}
'''

CPP_SRC = "void histogram(torch::Tensor x, int64_t buffer_ptrs_dev, int64_t bins, double lo, double hi);"

_ext = None
_state = {}


def _get_ext():
    global _ext
    if _ext is None:
        _ext = load_inline(
            name="c28_histogram",
            cpp_sources=CPP_SRC,
            cuda_sources=CUDA_SRC,
            functions=["histogram"],
            extra_cuda_cflags=["-O3", "-gencode=arch=compute_90a,code=sm_90a"],
        )
    return _ext


def _get_state(bins, device):
    key = (bins, str(device))
    if key not in _state:
        buf = symm_mem.empty(bins, dtype=torch.int32, device=device)
        hdl = symm_mem.rendezvous(buf, dist.group.WORLD.group_name)
        _state[key] = (buf, hdl)
    return _state[key]


def solution(x: torch.Tensor, bins: int, lo: float, hi: float) -> torch.Tensor:
    assert x.dtype == torch.float32
    ext = _get_ext()
    buf, hdl = _get_state(bins, x.device)
    buf.zero_()
    hdl.barrier(channel=0)
    ext.histogram(x.contiguous().view(-1), hdl.buffer_ptrs_dev, bins, lo, hi)
    hdl.barrier(channel=0)
    out = hdl.get_buffer(0, (bins,), torch.int32).clone()
    hdl.barrier(channel=0)
    return out
