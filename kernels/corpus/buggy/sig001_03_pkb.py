# sig001_03_pkb.py: BUG(SIG-001) flag index 64 + block * W + rank reaches 64 + 95 * 8 + 7 = 831 words, past the 512-word (2048-byte) torch symm_mem signal pad, for W >= 5. FIX: use fewer blocks (<= 56) or fold blocks onto fewer flags so every index stays below 512.
import torch
import torch.distributed as dist
import torch.distributed._symmetric_memory as symm_mem
from torch.utils.cpp_extension import load_inline

CUDA_SRC = r'''
#include <torch/extension.h>
#include <ATen/cuda/CUDAContext.h>
#include <cuda_runtime.h>
#include <stdint.h>

constexpr int kBlock = 128;
constexpr int kGrid = 96;      // one block per 1/96 of the data for bandwidth
constexpr int kSlotBase = 64;  // words [0, 64) are left to hdl.barrier()
// The torch signal pad is 2048 bytes = 512 uint32 words per rank.

// Pull all-gather: stage x into our symmetric buffer, raise our flag on every
// rank (value = call), wait for all W flags of this block, read every peer.
// The host calls hdl.barrier() after the kernel before buf is written again.
__global__ void allgather_kernel(const float* x, const int64_t* buffer_ptrs,
                                 const int64_t* signal_pad_ptrs, float* out, int rank,
                                 int world_size, int64_t m, uint32_t call) {
  const int64_t tid = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
  const int64_t stride = (int64_t)gridDim.x * blockDim.x;
  float* mine = reinterpret_cast<float*>(buffer_ptrs[rank]);
  for (int64_t j = tid; j < m; j += stride) mine[j] = x[j];
  __syncthreads();
  if (threadIdx.x < world_size) {
    const int peer = threadIdx.x;
    uint32_t* remote = reinterpret_cast<uint32_t*>(signal_pad_ptrs[peer]);
    asm volatile("st.release.sys.global.u32 [%0], %1;" ::"l"(remote + kSlotBase + blockIdx.x * world_size + rank), "r"(call) : "memory");  // expect: SIG-001
    const uint32_t* flag = reinterpret_cast<const uint32_t*>(signal_pad_ptrs[rank]) + kSlotBase + blockIdx.x * world_size + peer;
    uint32_t seen;
    do {
      asm volatile("ld.acquire.sys.global.u32 %0, [%1];" : "=r"(seen) : "l"(flag) : "memory");
    } while (seen < call);
  }
  __syncthreads();
  for (int q = 0; q < world_size; ++q) {
    const float* src = reinterpret_cast<const float*>(buffer_ptrs[q]);
    for (int64_t j = tid; j < m; j += stride) out[q * m + j] = src[j];
  }
}

void allgather(torch::Tensor x, torch::Tensor out, int64_t buffer_ptrs_dev,
               int64_t signal_pad_ptrs_dev, int64_t rank, int64_t world_size, int64_t call) {
  auto stream = at::cuda::getCurrentCUDAStream();
  allgather_kernel<<<kGrid, kBlock, 0, stream>>>(
      x.data_ptr<float>(), reinterpret_cast<const int64_t*>(buffer_ptrs_dev),
      reinterpret_cast<const int64_t*>(signal_pad_ptrs_dev), out.data_ptr<float>(),
      (int)rank, (int)world_size, x.numel(), (uint32_t)call);
}
'''

CPP_SRC = r'''
void allgather(torch::Tensor x, torch::Tensor out, int64_t buffer_ptrs_dev,
               int64_t signal_pad_ptrs_dev, int64_t rank, int64_t world_size, int64_t call);
'''

_ext = None
_state = {}


def _get_ext():
    global _ext
    if _ext is None:
        _ext = load_inline(
            name="sig001_03_allgather",
            cpp_sources=CPP_SRC,
            cuda_sources=CUDA_SRC,
            functions=["allgather"],
            extra_cuda_cflags=["-O3", "-gencode=arch=compute_90a,code=sm_90a"],
        )
    return _ext


def _get_state(m, device):
    key = (m, str(device))
    if key not in _state:
        buf = symm_mem.empty(m, dtype=torch.float32, device=device)
        hdl = symm_mem.rendezvous(buf, dist.group.WORLD.group_name)
        _state[key] = {"buf": buf, "hdl": hdl, "calls": 0}
    return _state[key]


def solution(x: torch.Tensor) -> torch.Tensor:
    assert x.dtype == torch.float32
    ext = _get_ext()
    x = x.contiguous().view(-1)
    st = _get_state(x.numel(), x.device)
    hdl = st["hdl"]
    st["calls"] += 1
    out = torch.empty(hdl.world_size * x.numel(), dtype=x.dtype, device=x.device)
    ext.allgather(x, out, hdl.buffer_ptrs_dev, hdl.signal_pad_ptrs_dev,
                  hdl.rank, hdl.world_size, st["calls"])
    hdl.barrier(channel=0)
    return out
