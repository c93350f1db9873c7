"""
One-shot all-reduce (SUM) over PyTorch symmetric memory.

Every rank copies its input into a symmetric buffer. One kernel then raises a
per-block flag in every peer's signal pad (st.release.sys), waits for the
peers' flags in its own pad (ld.acquire.sys) and sums the W peer buffers,
which it reaches through hdl.buffer_ptrs_dev.
"""

import torch
import torch.distributed as dist
import torch.distributed._symmetric_memory as symm_mem
from torch.utils.cpp_extension import load_inline

CUDA_SRC = r'''
#include <torch/extension.h>
#include <cuda_runtime.h>
#include <cstdint>

__device__ __forceinline__ void put_flag(uint32_t* addr, uint32_t v) {
    asm volatile("st.release.sys.global.u32 [%0], %1;" :: "l"(addr), "r"(v) : "memory");
}

__device__ __forceinline__ uint32_t get_flag(const uint32_t* addr) {
    uint32_t v;
    asm volatile("ld.acquire.sys.global.u32 %0, [%1];" : "=r"(v) : "l"(addr) : "memory");
    return v;
}

__global__ void one_shot_all_reduce_kernel(
        const uint64_t* __restrict__ buffer_ptrs,
        const uint64_t* __restrict__ signal_pad_ptrs,
        float* __restrict__ out, int64_t n, int rank, int world_size,
        uint32_t epoch) {
    if (threadIdx.x < world_size) {
        uint32_t* peer_pad = reinterpret_cast<uint32_t*>(signal_pad_ptrs[threadIdx.x]);
        put_flag(peer_pad + blockIdx.x * world_size + rank, epoch);
        const uint32_t* my_pad = reinterpret_cast<const uint32_t*>(signal_pad_ptrs[rank]);
        while (get_flag(my_pad + blockIdx.x * world_size + threadIdx.x) != epoch) {
        }
    }
    __syncthreads();
    for (int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; i < n;
         i += (int64_t)gridDim.x * blockDim.x) {
        float acc = 0.f;
        for (int r = 0; r < world_size; ++r)
            acc += reinterpret_cast<const float*>(buffer_ptrs[r])[i];
        out[i] = acc;
    }
}

void one_shot_all_reduce(int64_t buffer_ptrs_dev, int64_t signal_pad_ptrs_dev,
                         torch::Tensor out, int64_t n, int64_t rank,
                         int64_t world_size, int64_t epoch) {
    one_shot_all_reduce_kernel<<<4, 512>>>(
        reinterpret_cast<const uint64_t*>(buffer_ptrs_dev),
        reinterpret_cast<const uint64_t*>(signal_pad_ptrs_dev),
        out.data_ptr<float>(), n, (int)rank, (int)world_size, (uint32_t)epoch);
}

PYBIND11_MODULE(TORCH_EXTENSION_NAME, m) {
    m.def("one_shot_all_reduce", &one_shot_all_reduce, "one-shot all-reduce");
}
'''

_ext = None
_epoch = 0


def _ext_module():
    global _ext
    if _ext is None:
        _ext = load_inline(
            name="one_shot_all_reduce_ext",
            cpp_sources="",
            cuda_sources=CUDA_SRC,
            extra_cuda_cflags=["-O3"],
            verbose=False,
        )
    return _ext


@torch.no_grad()
def solution(tensor: torch.Tensor) -> torch.Tensor:
    global _epoch
    rank = dist.get_rank()
    world_size = dist.get_world_size()
    n = tensor.numel()

    buf = symm_mem.empty(n, device=tensor.device, dtype=torch.float32)
    hdl = symm_mem.rendezvous(buf, dist.group.WORLD)
    buf.copy_(tensor.reshape(-1))  # local input into the symmetric buffer

    out = torch.empty_like(tensor)
    _epoch += 1
    ext = _ext_module()
    ext.one_shot_all_reduce(
        hdl.buffer_ptrs_dev,
        hdl.signal_pad_ptrs_dev,
        out, n, rank, world_size, _epoch,
    )
    hdl.barrier(channel=0)
    return out
