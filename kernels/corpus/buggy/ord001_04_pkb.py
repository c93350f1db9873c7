# ord001_04_pkb.py: BUG(ORD-001) the start-barrier arrival is atomicAdd_system (relaxed, no release), so peers can read buf before our copy is visible. FIX: __threadfence_system() before it, or red.release.sys.global.add.u32.
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
constexpr int kGrid = 16;
constexpr int kSlotBase = 64;  // pad words [0, 64) are left to hdl.barrier()

__device__ __forceinline__ uint32_t ld_acquire_sys(const uint32_t* p) {
  uint32_t v;
  asm volatile("ld.acquire.sys.global.u32 %0, [%1];" : "=r"(v) : "l"(p) : "memory");
  return v;
}

// One-shot all-reduce. Counter barrier: every rank adds 1 to counter
// kSlotBase + block of every rank; instance m is complete at world_size * m.
// Call c (c >= 1) uses instances 2c - 1 (start) and 2c (exit).
__global__ void allreduce_kernel(const float* x, const int64_t* buffer_ptrs,
                                 const int64_t* signal_pad_ptrs, float* out,
                                 int rank, int world_size, int64_t n, uint32_t call) {
  const int64_t tid = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
  const int64_t stride = (int64_t)gridDim.x * blockDim.x;
  float* mine = reinterpret_cast<float*>(buffer_ptrs[rank]);
  uint32_t* my_counter = reinterpret_cast<uint32_t*>(signal_pad_ptrs[rank]) + kSlotBase + blockIdx.x;
  for (int64_t i = tid; i < n; i += stride) mine[i] = x[i];
  __syncthreads();
  if (threadIdx.x < world_size) {
    uint32_t* counter = reinterpret_cast<uint32_t*>(signal_pad_ptrs[threadIdx.x]) + kSlotBase + blockIdx.x;
    atomicAdd_system(counter, 1u);  // expect: ORD-001
  }
  if (threadIdx.x == 0) {
    while (ld_acquire_sys(my_counter) < (uint32_t)world_size * (2 * call - 1)) {
    }
  }
  __syncthreads();
  for (int64_t i = tid; i < n; i += stride) {
    float acc = 0.f;
    for (int p = 0; p < world_size; ++p) acc += reinterpret_cast<const float*>(buffer_ptrs[p])[i];
    out[i] = acc;
  }
  __syncthreads();
  if (threadIdx.x < world_size) {
    uint32_t* counter = reinterpret_cast<uint32_t*>(signal_pad_ptrs[threadIdx.x]) + kSlotBase + blockIdx.x;
    __threadfence_system();
    atomicAdd_system(counter, 1u);
  }
  if (threadIdx.x == 0) {
    while (ld_acquire_sys(my_counter) < (uint32_t)world_size * (2 * call)) {
    }
  }
}

void allreduce(torch::Tensor x, torch::Tensor out, int64_t buffer_ptrs_dev,
               int64_t signal_pad_ptrs_dev, int64_t rank, int64_t world_size, int64_t call) {
  auto stream = at::cuda::getCurrentCUDAStream();
  allreduce_kernel<<<kGrid, kBlock, 0, stream>>>(
      x.data_ptr<float>(), reinterpret_cast<const int64_t*>(buffer_ptrs_dev),
      reinterpret_cast<const int64_t*>(signal_pad_ptrs_dev), out.data_ptr<float>(),
      (int)rank, (int)world_size, x.numel(), (uint32_t)call);
}
'''

CPP_SRC = r'''
void allreduce(torch::Tensor x, torch::Tensor out, int64_t buffer_ptrs_dev,
               int64_t signal_pad_ptrs_dev, int64_t rank, int64_t world_size, int64_t call);
'''

_ext = None
_state = {}


def _get_ext():
    global _ext
    if _ext is None:
        _ext = load_inline(
            name="ord001_04_allreduce",
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
        _state[key] = {"buf": buf, "hdl": hdl, "calls": 0}
    return _state[key]


def solution(x: torch.Tensor) -> torch.Tensor:
    assert x.dtype == torch.float32
    ext = _get_ext()
    shape = x.shape
    x = x.contiguous().view(-1)
    st = _get_state(x.numel(), x.device)
    hdl = st["hdl"]
    st["calls"] += 1
    out = torch.empty_like(x)
    ext.allreduce(x, out, hdl.buffer_ptrs_dev, hdl.signal_pad_ptrs_dev,
                  hdl.rank, hdl.world_size, st["calls"])
    return out.view(shape)
