# c30_allreduce_barrier_kernels_pkb.py: CORRECT ParallelKernelBench one-shot all-reduce whose solution() orders everything with barrier kernels instead of hdl.barrier: buf.copy_(x); entry-barrier kernel (release/acquire on pad slots [0, 8), epoch = call count); reduce reading every peer's buffer; exit-barrier kernel on pad slots [8, 16) so no rank restages buf in call k+1 while a peer still reads call k's data.
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
constexpr int kMaxRanks = 8;

__device__ __forceinline__ void st_release_sys(uint32_t* p, uint32_t v) {
  asm volatile("st.release.sys.global.u32 [%0], %1;" ::"l"(p), "r"(v) : "memory");
}
__device__ __forceinline__ uint32_t ld_acquire_sys(const uint32_t* p) {
  uint32_t v;
  asm volatile("ld.acquire.sys.global.u32 %0, [%1];" : "=r"(v) : "l"(p) : "memory");
  return v;
}

// One block of kMaxRanks threads: thread p signals slot rank of rank p's pad
// and waits for slot p of its own pad (slots [0, kMaxRanks)).
__global__ void entry_barrier_kernel(const int64_t* signal_pad_ptrs, int rank, int world_size,
                                     uint32_t epoch) {
  const int p = threadIdx.x;
  if (p >= world_size) return;
  uint32_t** pads = reinterpret_cast<uint32_t**>(const_cast<int64_t*>(signal_pad_ptrs));
  __threadfence_system();
  st_release_sys(pads[p] + rank, epoch);
  while (ld_acquire_sys(pads[rank] + p) < epoch) {
  }
}

// The same handshake on slots [kMaxRanks, 2 * kMaxRanks), after the reads.
__global__ void exit_barrier_kernel(const int64_t* signal_pad_ptrs, int rank, int world_size,
                                    uint32_t epoch) {
  const int p = threadIdx.x;
  if (p >= world_size) return;
  uint32_t** pads = reinterpret_cast<uint32_t**>(const_cast<int64_t*>(signal_pad_ptrs));
  __threadfence_system();
  st_release_sys(pads[p] + kMaxRanks + rank, epoch);
  while (ld_acquire_sys(pads[rank] + kMaxRanks + p) < epoch) {
  }
}

// out[i] = sum over ranks p of buf_p[i].
__global__ void allreduce_kernel(const int64_t* buffer_ptrs, float* out, int world_size, int64_t n) {
  const int64_t stride = (int64_t)gridDim.x * blockDim.x;
  for (int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride) {
    float acc = 0.f;
    for (int p = 0; p < world_size; ++p) acc += reinterpret_cast<const float*>(buffer_ptrs[p])[i];
    out[i] = acc;
  }
}

void entry_barrier(int64_t signal_pad_ptrs_dev, int64_t rank, int64_t world_size, int64_t epoch) {
  auto stream = at::cuda::getCurrentCUDAStream();
  entry_barrier_kernel<<<1, kMaxRanks, 0, stream>>>(reinterpret_cast<const int64_t*>(signal_pad_ptrs_dev),
                                                    (int)rank, (int)world_size, (uint32_t)epoch);
}

void exit_barrier(int64_t signal_pad_ptrs_dev, int64_t rank, int64_t world_size, int64_t epoch) {
  auto stream = at::cuda::getCurrentCUDAStream();
  exit_barrier_kernel<<<1, kMaxRanks, 0, stream>>>(reinterpret_cast<const int64_t*>(signal_pad_ptrs_dev),
                                                   (int)rank, (int)world_size, (uint32_t)epoch);
}

void allreduce(torch::Tensor out, int64_t buffer_ptrs_dev, int64_t world_size) {
  auto stream = at::cuda::getCurrentCUDAStream();
  allreduce_kernel<<<kGrid, kBlock, 0, stream>>>(reinterpret_cast<const int64_t*>(buffer_ptrs_dev),
                                                 out.data_ptr<float>(), (int)world_size, out.numel());
}
'''

CPP_SRC = r'''
void entry_barrier(int64_t signal_pad_ptrs_dev, int64_t rank, int64_t world_size, int64_t epoch);
void allreduce(torch::Tensor out, int64_t buffer_ptrs_dev, int64_t world_size);
void exit_barrier(int64_t signal_pad_ptrs_dev, int64_t rank, int64_t world_size, int64_t epoch);
'''

_ext = None
_state = {}
_calls = [0]


def _get_ext():
    global _ext
    if _ext is None:
        _ext = load_inline(
            name="c30_allreduce",
            cpp_sources=CPP_SRC,
            cuda_sources=CUDA_SRC,
            functions=["entry_barrier", "allreduce", "exit_barrier"],
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
    buf, hdl = _get_state(x.numel(), x.device)
    _calls[0] += 1
    epoch = _calls[0]
    buf.copy_(x.view(-1))
    ext.entry_barrier(hdl.signal_pad_ptrs_dev, hdl.rank, hdl.world_size, epoch)
    out = torch.empty_like(x)
    ext.allreduce(out, hdl.buffer_ptrs_dev, hdl.world_size)
    ext.exit_barrier(hdl.signal_pad_ptrs_dev, hdl.rank, hdl.world_size, epoch)
    return out
