# c24_allreduce_twoshot_pkb.py: CORRECT ParallelKernelBench two-shot all-reduce as two kernels separated by host barriers: buf.copy_(x); hdl.barrier(); reduce-scatter into our own chunk of buf (only we read it in this phase); hdl.barrier(); all-gather every rank's reduced chunk; hdl.barrier().
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

__device__ __forceinline__ int64_t chunk_len(int c, int64_t C, int64_t n) {
  return max((int64_t)0, min(C, n - c * C));
}

// Phase 1: buf_r[chunk r] = sum over p of buf_p[chunk r], C = ceil(n / W).
__global__ void reduce_own_chunk(const int64_t* buffer_ptrs, int rank, int world_size, int64_t n) {
  const int64_t C = (n + world_size - 1) / world_size;
  const int64_t stride = (int64_t)gridDim.x * blockDim.x;
  float* mine = reinterpret_cast<float*>(buffer_ptrs[rank]);
  for (int64_t j = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; j < chunk_len(rank, C, n); j += stride) {
    float acc = 0.f;
    for (int p = 0; p < world_size; ++p) acc += reinterpret_cast<const float*>(buffer_ptrs[p])[rank * C + j];
    mine[rank * C + j] = acc;
  }
}

// Phase 2: out[chunk c] = buf_c[chunk c] for every c.
__global__ void gather_chunks(const int64_t* buffer_ptrs, float* out, int world_size, int64_t n) {
  const int64_t C = (n + world_size - 1) / world_size;
  const int64_t stride = (int64_t)gridDim.x * blockDim.x;
  for (int c = 0; c < world_size; ++c) {
    const float* src = reinterpret_cast<const float*>(buffer_ptrs[c]);
    for (int64_t j = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; j < chunk_len(c, C, n); j += stride)
      out[c * C + j] = src[c * C + j];
  }
}

void reduce_phase(int64_t buffer_ptrs_dev, int64_t rank, int64_t world_size, int64_t n) {
  auto stream = at::cuda::getCurrentCUDAStream();
  reduce_own_chunk<<<kGrid, kBlock, 0, stream>>>(reinterpret_cast<const int64_t*>(buffer_ptrs_dev),
                                                 (int)rank, (int)world_size, n);
}

void gather_phase(torch::Tensor out, int64_t buffer_ptrs_dev, int64_t world_size) {
  auto stream = at::cuda::getCurrentCUDAStream();
  gather_chunks<<<kGrid, kBlock, 0, stream>>>(reinterpret_cast<const int64_t*>(buffer_ptrs_dev),
                                              out.data_ptr<float>(), (int)world_size, out.numel());
}
'''

CPP_SRC = r'''
void reduce_phase(int64_t buffer_ptrs_dev, int64_t rank, int64_t world_size, int64_t n);
void gather_phase(torch::Tensor out, int64_t buffer_ptrs_dev, int64_t world_size);
'''

_ext = None
_state = {}


def _get_ext():
    global _ext
    if _ext is None:
        _ext = load_inline(
            name="c24_twoshot",
            cpp_sources=CPP_SRC,
            cuda_sources=CUDA_SRC,
            functions=["reduce_phase", "gather_phase"],
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
    n = x.numel()
    buf, hdl = _get_state(n, x.device)
    buf.copy_(x.view(-1))
    hdl.barrier(channel=0)
    ext.reduce_phase(hdl.buffer_ptrs_dev, hdl.rank, hdl.world_size, n)
    hdl.barrier(channel=0)
    out = torch.empty_like(x)
    ext.gather_phase(out, hdl.buffer_ptrs_dev, hdl.world_size)
    hdl.barrier(channel=0)
    return out
