# c15_allgather_cas_pkb.py: CORRECT ParallelKernelBench all-gather with in-kernel synchronization mirroring torch symm_mem's sync_remote_blocks: CAS 0->1 (release) put / CAS 1->0 (acquire) wait on signal_pad_ptrs_dev, __syncthreads around both, one handshake after staging and one before exit.
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
constexpr int kGrid = 16;
constexpr int kSlotBase = 64;  // words [0, 64) are left to hdl.barrier()

using sys_ref = cuda::atomic_ref<uint32_t, cuda::thread_scope_system>;

__device__ __forceinline__ void put_signal(uint32_t* addr) {
  sys_ref ref(*addr);
  uint32_t expected = 0;
  while (!ref.compare_exchange_strong(expected, 1u, cuda::std::memory_order_release,
                                      cuda::std::memory_order_relaxed)) {
    expected = 0;
  }
}

__device__ __forceinline__ void wait_signal(uint32_t* addr) {
  sys_ref ref(*addr);
  uint32_t expected = 1;
  while (!ref.compare_exchange_strong(expected, 0u, cuda::std::memory_order_acquire,
                                      cuda::std::memory_order_relaxed)) {
    expected = 1;
  }
}

// Slot of (block, sender): kSlotBase + block * W + sender (< 64 + 16 * 8).
__device__ __forceinline__ void sync_remote_blocks(const int64_t* signal_pad_ptrs, int rank,
                                                   int world_size) {
  __syncthreads();
  if (threadIdx.x < world_size) {
    const int peer = threadIdx.x;
    put_signal(reinterpret_cast<uint32_t*>(signal_pad_ptrs[peer]) + kSlotBase + blockIdx.x * world_size + rank);
    wait_signal(reinterpret_cast<uint32_t*>(signal_pad_ptrs[rank]) + kSlotBase + blockIdx.x * world_size + peer);
  }
  __syncthreads();
}

// Pull all-gather: element j of every contribution is staged and read by
// global thread j mod stride on every rank.
__global__ void allgather_kernel(const float* x, const int64_t* buffer_ptrs,
                                 const int64_t* signal_pad_ptrs, float* out, int rank,
                                 int world_size, int64_t m) {
  const int64_t tid = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
  const int64_t stride = (int64_t)gridDim.x * blockDim.x;
  float* mine = reinterpret_cast<float*>(buffer_ptrs[rank]);
  for (int64_t j = tid; j < m; j += stride) mine[j] = x[j];
  sync_remote_blocks(signal_pad_ptrs, rank, world_size);
  for (int q = 0; q < world_size; ++q) {
    const float* src = reinterpret_cast<const float*>(buffer_ptrs[q]);
    for (int64_t j = tid; j < m; j += stride) out[q * m + j] = src[j];
  }
  sync_remote_blocks(signal_pad_ptrs, rank, world_size);
}

void allgather(torch::Tensor x, torch::Tensor out, int64_t buffer_ptrs_dev,
               int64_t signal_pad_ptrs_dev, int64_t rank, int64_t world_size) {
  auto stream = at::cuda::getCurrentCUDAStream();
  allgather_kernel<<<kGrid, kBlock, 0, stream>>>(
      x.data_ptr<float>(), reinterpret_cast<const int64_t*>(buffer_ptrs_dev),
      reinterpret_cast<const int64_t*>(signal_pad_ptrs_dev), out.data_ptr<float>(), (int)rank,
      (int)world_size, x.numel());
}
'''

CPP_SRC = r'''
void allgather(torch::Tensor x, torch::Tensor out, int64_t buffer_ptrs_dev,
               int64_t signal_pad_ptrs_dev, int64_t rank, int64_t world_size);
'''

_ext = None
_state = {}


def _get_ext():
    global _ext
    if _ext is None:
        _ext = load_inline(
            name="c15_allgather",
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
        _state[key] = (buf, hdl)
    return _state[key]


def solution(x: torch.Tensor) -> torch.Tensor:
    assert x.dtype == torch.float32
    ext = _get_ext()
    x = x.contiguous().view(-1)
    buf, hdl = _get_state(x.numel(), x.device)
    out = torch.empty(hdl.world_size * x.numel(), dtype=x.dtype, device=x.device)
    ext.allgather(x, out, hdl.buffer_ptrs_dev, hdl.signal_pad_ptrs_dev, hdl.rank, hdl.world_size)
    return out
