# ord003_04_pkb.py: BUG(ORD-003) the arrival flag written by peer GPUs is polled through a thread_scope_device atomic_ref, whose acquire does not reach system scope. FIX: cuda::thread_scope_system (or ld.acquire.sys).
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
constexpr int kMaxRanks = 8;
constexpr int kSlotBase = 64;  // pad words [0, 64) are left to hdl.barrier()

// Push all-gather: rank r writes its m floats to buf[p][r*m ...] on every p,
// raises flag kSlotBase + block*8 + r on p (value = call), waits for the W
// flags of its own pad, then copies the gathered buffer out. The host runs
// hdl.barrier() after the kernel, so the next call cannot overwrite early.
__global__ void allgather_kernel(const float* x, const int64_t* buffer_ptrs,
                                 const int64_t* signal_pad_ptrs, float* out,
                                 int rank, int world_size, int64_t m, uint32_t call) {
  const int64_t tid = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
  const int64_t stride = (int64_t)gridDim.x * blockDim.x;
  for (int p = 0; p < world_size; ++p) {
    float* dst = reinterpret_cast<float*>(buffer_ptrs[p]) + rank * m;
    for (int64_t j = tid; j < m; j += stride) dst[j] = x[j];
  }
  __syncthreads();
  if (threadIdx.x < world_size) {
    const int peer = threadIdx.x;
    uint32_t* remote = reinterpret_cast<uint32_t*>(signal_pad_ptrs[peer]) + kSlotBase + blockIdx.x * kMaxRanks + rank;
    asm volatile("st.release.sys.global.u32 [%0], %1;" ::"l"(remote), "r"(call) : "memory");
    uint32_t* flag = reinterpret_cast<uint32_t*>(signal_pad_ptrs[rank]) + kSlotBase + blockIdx.x * kMaxRanks + peer;
    cuda::atomic_ref<uint32_t, cuda::thread_scope_device> ref(*flag);
    while (ref.load(cuda::std::memory_order_acquire) < call) {  // expect: ORD-003
    }
  }
  __syncthreads();
  const float* mine = reinterpret_cast<const float*>(buffer_ptrs[rank]);
  for (int q = 0; q < world_size; ++q)
    for (int64_t j = tid; j < m; j += stride) out[q * m + j] = mine[q * m + j];
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
            name="ord003_04_allgather",
            cpp_sources=CPP_SRC,
            cuda_sources=CUDA_SRC,
            functions=["allgather"],
            extra_cuda_cflags=["-O3", "-gencode=arch=compute_90a,code=sm_90a"],
        )
    return _ext


def _get_state(m, world_size, device):
    key = (m, str(device))
    if key not in _state:
        buf = symm_mem.empty(world_size * m, dtype=torch.float32, device=device)
        hdl = symm_mem.rendezvous(buf, dist.group.WORLD.group_name)
        _state[key] = {"buf": buf, "hdl": hdl, "calls": 0}
    return _state[key]


def solution(x: torch.Tensor) -> torch.Tensor:
    assert x.dtype == torch.float32
    ext = _get_ext()
    x = x.contiguous().view(-1)
    world_size = dist.get_world_size()
    st = _get_state(x.numel(), world_size, x.device)
    hdl = st["hdl"]
    st["calls"] += 1
    out = torch.empty(world_size * x.numel(), dtype=x.dtype, device=x.device)
    ext.allgather(x, out, hdl.buffer_ptrs_dev, hdl.signal_pad_ptrs_dev,
                  hdl.rank, hdl.world_size, st["calls"])
    hdl.barrier(channel=0)
    return out
