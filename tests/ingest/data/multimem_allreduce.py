"""
All-reduce (SUM, bfloat16) with NVLink multicast: multimem.ld_reduce sums the
W copies in the switch and multimem.st broadcasts the result. A signal-pad
barrier brackets the reduction. Resources are cached per shape; the extension
is compiled on first use by the harness helper compile_cuda_extension.
"""

import torch
import torch.distributed as dist
import torch.distributed._symmetric_memory as symm_mem

from utils.cuda_helpers import compile_cuda_extension

CUDA_SRC = r'''
#include <torch/extension.h>
#include <cstdint>

__device__ __forceinline__ void signal_peer(uint32_t* addr) {
    uint32_t old;
    do {
        asm volatile("atom.global.release.sys.cas.b32 %0, [%1], 0, 1;"
                     : "=r"(old) : "l"(addr) : "memory");
    } while (old != 0u);
}

__device__ __forceinline__ void wait_peer(uint32_t* addr) {
    uint32_t old;
    do {
        asm volatile("atom.global.acquire.sys.cas.b32 %0, [%1], 1, 0;"
                     : "=r"(old) : "l"(addr) : "memory");
    } while (old != 1u);
}

__global__ void multimem_all_reduce_kernel(uint64_t mc_base,
                                           const uint64_t* pads, int64_t n128,
                                           int rank, int world_size) {
    if (threadIdx.x < world_size) {
        signal_peer(reinterpret_cast<uint32_t*>(pads[threadIdx.x]) + blockIdx.x * world_size + rank);
        wait_peer(reinterpret_cast<uint32_t*>(pads[rank]) + blockIdx.x * world_size + threadIdx.x);
    }
    __syncthreads();
    int64_t per_rank = (n128 + world_size - 1) / world_size;
    for (int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; i < per_rank;
         i += (int64_t)gridDim.x * blockDim.x) {
        uint64_t* p = reinterpret_cast<uint64_t*>(mc_base) + 2 * (rank * per_rank + i);
        uint32_t a, b, c, d;
        asm volatile("multimem.ld_reduce.relaxed.sys.global.add.v4.bf16x2 {%0, %1, %2, %3}, [%4];"
                     : "=r"(a), "=r"(b), "=r"(c), "=r"(d) : "l"(p) : "memory");
        asm volatile("multimem.st.relaxed.sys.global.v4.f32 [%0], {%1, %2, %3, %4};"
                     :: "l"(p), "r"(a), "r"(b), "r"(c), "r"(d) : "memory");
    }
}

void multimem_all_reduce(int64_t mc_base, torch::Tensor pads, int64_t n128,
                         int64_t rank, int64_t world_size, int64_t blocks) {
    multimem_all_reduce_kernel<<<blocks, 512>>>(
        (uint64_t)mc_base, reinterpret_cast<const uint64_t*>(pads.data_ptr<int64_t>()),
        n128, (int)rank, (int)world_size);
}

PYBIND11_MODULE(TORCH_EXTENSION_NAME, m) {
    m.def("multimem_all_reduce", &multimem_all_reduce);
}
'''

_ext = None


def _get_ext():
    global _ext
    if _ext is None:
        _ext = compile_cuda_extension("multimem_all_reduce_ext", CUDA_SRC)
    return _ext


_cache = {}


def _resources(numel, dtype, device):
    key = (numel, dtype, device)
    if key in _cache:
        return _cache[key]
    symm = symm_mem.empty(numel, device=device, dtype=dtype)
    handle = symm_mem.rendezvous(symm, dist.group.WORLD)
    pads = torch.tensor(handle.signal_pad_ptrs, device=device, dtype=torch.int64)
    entry = (symm, handle, pads)
    _cache[key] = entry
    return entry


@torch.no_grad()
def solution(tensor: torch.Tensor) -> torch.Tensor:
    flat = tensor.contiguous().view(-1)
    buf, hdl, pads = _resources(flat.numel(), flat.dtype, flat.device)
    buf.copy_(flat)
    dist.barrier()
    _get_ext().multimem_all_reduce(
        int(hdl.multicast_ptr), pads, flat.numel() // 8, hdl.rank,
        hdl.world_size, 4)
    hdl.barrier(channel=1)
    return buf.view_as(tensor).clone()
