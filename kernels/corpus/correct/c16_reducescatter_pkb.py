# c16_reducescatter_pkb.py: CORRECT ParallelKernelBench reduce-scatter: the kernel stages x chunk-relatively, raises its per-block flag on every rank with st.release.sys (value = per-handle call counter), polls with ld.acquire.sys, reduces its chunk (any n: last chunk shorter or empty); the host's hdl.barrier() after the kernel is the exit barrier.
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
constexpr int kGrid = 16;
constexpr int kMaxRanks = 8;
constexpr int kSlotBase = 64;  // words [0, 64) are left to hdl.barrier()

__device__ __forceinline__ uint32_t ld_acquire_sys(const uint32_t* p) {
  uint32_t v;
  asm volatile("ld.acquire.sys.global.u32 %0, [%1];" : "=r"(v) : "l"(p) : "memory");
  return v;
}

// Rank r returns chunk r = [r*C, min(n, (r+1)*C)), C = ceil(n / W). Flag
// kSlotBase + block*8 + s of each pad is written only by rank s.
__global__ void reduce_scatter_kernel(const float* x, const int64_t* buffer_ptrs,
                                      const int64_t* signal_pad_ptrs, float* out, int rank,
                                      int world_size, int64_t n, uint32_t call) {
  const int64_t tid = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
  const int64_t stride = (int64_t)gridDim.x * blockDim.x;
  const int64_t C = (n + world_size - 1) / world_size;
  float* mine = reinterpret_cast<float*>(buffer_ptrs[rank]);
  for (int c = 0; c < world_size; ++c) {
    const int64_t len = max((int64_t)0, min(C, n - c * C));
    for (int64_t j = tid; j < len; j += stride) mine[c * C + j] = x[c * C + j];
  }
  __syncthreads();
  if (threadIdx.x < world_size) {
    const int peer = threadIdx.x;
    uint32_t* remote = reinterpret_cast<uint32_t*>(signal_pad_ptrs[peer]) + kSlotBase + blockIdx.x * kMaxRanks + rank;
    asm volatile("st.release.sys.global.u32 [%0], %1;" ::"l"(remote), "r"(call) : "memory");
    const uint32_t* flag = reinterpret_cast<const uint32_t*>(signal_pad_ptrs[rank]) + kSlotBase + blockIdx.x * kMaxRanks + peer;
    while (ld_acquire_sys(flag) < call) {
    }
  }
  __syncthreads();
  const int64_t my_len = max((int64_t)0, min(C, n - rank * C));
  for (int64_t j = tid; j < my_len; j += stride) {
    float acc = 0.f;
    for (int p = 0; p < world_size; ++p) acc += reinterpret_cast<const float*>(buffer_ptrs[p])[rank * C + j];
    out[j] = acc;
  }
}

void reduce_scatter(torch::Tensor x, torch::Tensor out, int64_t buffer_ptrs_dev,
                    int64_t signal_pad_ptrs_dev, int64_t rank, int64_t world_size, int64_t call) {
  auto stream = at::cuda::getCurrentCUDAStream();
  reduce_scatter_kernel<<<kGrid, kBlock, 0, stream>>>(
      x.data_ptr<float>(), reinterpret_cast<const int64_t*>(buffer_ptrs_dev),
      reinterpret_cast<const int64_t*>(signal_pad_ptrs_dev), out.data_ptr<float>(),
      (int)rank, (int)world_size, x.numel(), (uint32_t)call);
}
'''

CPP_SRC = r'''
void reduce_scatter(torch::Tensor x, torch::Tensor out, int64_t buffer_ptrs_dev,
                    int64_t signal_pad_ptrs_dev, int64_t rank, int64_t world_size, int64_t call);
'''

_ext = None
_state = {}


def _get_ext():
    global _ext
    if _ext is None:
        _ext = load_inline(
            name="c16_reduce_scatter",
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
        _state[key] = {"buf": buf, "hdl": hdl, "calls": 0}
    return _state[key]


def solution(x: torch.Tensor) -> torch.Tensor:
    assert x.dtype == torch.float32
    ext = _get_ext()
    x = x.contiguous().view(-1)
    n = x.numel()
    st = _get_state(n, x.device)
    hdl = st["hdl"]
    st["calls"] += 1  # per handle: every rank calls solution() the same number of times
    chunk = (n + hdl.world_size - 1) // hdl.world_size
    out = torch.empty(max(0, min(chunk, n - hdl.rank * chunk)), dtype=x.dtype, device=x.device)
    ext.reduce_scatter(x, out, hdl.buffer_ptrs_dev, hdl.signal_pad_ptrs_dev,
                       hdl.rank, hdl.world_size, st["calls"])
    hdl.barrier(channel=0)
    return out
