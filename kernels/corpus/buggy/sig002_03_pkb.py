# sig002_03_pkb.py: BUG(SIG-002) the "staged" flag is always 1 and is never reset, so on every call after the first the wait succeeds at once and peers' buffers are read before they are restaged. FIX: pass a per-call counter and wait for flag >= counter (or consume the flag with a CAS 1 -> 0 as torch's wait_signal does).
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

constexpr int kBlock = 512;
constexpr int kGrid = 8;
constexpr int kMaxRanks = 8;
constexpr int kSlotBase = 64;  // words [0, 64) are left to hdl.barrier()

using sys_ref = cuda::atomic_ref<uint32_t, cuda::thread_scope_system>;

// One-shot all-reduce: stage x in our symmetric buffer, flag every rank, wait
// for every rank's flag, sum. The host calls hdl.barrier() after the kernel.
__global__ void allreduce_kernel(const float* x, const int64_t* buffer_ptrs,
                                 const int64_t* signal_pad_ptrs, float* out, int rank,
                                 int world_size, int64_t n) {
  const int64_t tid = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
  const int64_t stride = (int64_t)gridDim.x * blockDim.x;
  float* mine = reinterpret_cast<float*>(buffer_ptrs[rank]);
  for (int64_t i = tid; i < n; i += stride) mine[i] = x[i];
  __syncthreads();
  if (threadIdx.x < world_size) {
    const int peer = threadIdx.x;
    uint32_t* remote = reinterpret_cast<uint32_t*>(signal_pad_ptrs[peer]) + kSlotBase + blockIdx.x * kMaxRanks + rank;
    sys_ref(*remote).store(1u, cuda::std::memory_order_release);
    uint32_t* flag = reinterpret_cast<uint32_t*>(signal_pad_ptrs[rank]) + kSlotBase + blockIdx.x * kMaxRanks + peer;
    while (sys_ref(*flag).load(cuda::std::memory_order_acquire) != 1u) {  // expect: SIG-002
    }
  }
  __syncthreads();
  for (int64_t i = tid; i < n; i += stride) {
    float acc = 0.f;
    for (int p = 0; p < world_size; ++p) acc += reinterpret_cast<const float*>(buffer_ptrs[p])[i];
    out[i] = acc;
  }
}

void allreduce(torch::Tensor x, torch::Tensor out, int64_t buffer_ptrs_dev,
               int64_t signal_pad_ptrs_dev, int64_t rank, int64_t world_size) {
  auto stream = at::cuda::getCurrentCUDAStream();
  allreduce_kernel<<<kGrid, kBlock, 0, stream>>>(
      x.data_ptr<float>(), reinterpret_cast<const int64_t*>(buffer_ptrs_dev),
      reinterpret_cast<const int64_t*>(signal_pad_ptrs_dev), out.data_ptr<float>(),
      (int)rank, (int)world_size, x.numel());
}
'''

CPP_SRC = r'''
void allreduce(torch::Tensor x, torch::Tensor out, int64_t buffer_ptrs_dev,
               int64_t signal_pad_ptrs_dev, int64_t rank, int64_t world_size);
'''

_ext = None
_state = {}


def _get_ext():
    global _ext
    if _ext is None:
        _ext = load_inline(
            name="sig002_03_allreduce",
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
        _state[key] = {"buf": buf, "hdl": hdl}
    return _state[key]


def solution(x: torch.Tensor) -> torch.Tensor:
    assert x.dtype == torch.float32
    ext = _get_ext()
    shape = x.shape
    x = x.contiguous().view(-1)
    st = _get_state(x.numel(), x.device)
    hdl = st["hdl"]
    out = torch.empty_like(x)
    ext.allreduce(x, out, hdl.buffer_ptrs_dev, hdl.signal_pad_ptrs_dev, hdl.rank, hdl.world_size)
    hdl.barrier(channel=0)
    return out.view(shape)
