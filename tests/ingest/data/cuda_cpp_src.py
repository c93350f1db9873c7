"""Ring exchange with a peer through symmetric memory.

KernelBench-style module: the CUDA source (a regular, non-raw string, so
Python processes its escapes) and the C++ declarations are separate strings
compiled together by one load_inline call; the model keeps the extension.
"""

import torch
import torch.nn as nn
import torch.distributed as dist
import torch.distributed._symmetric_memory as symm_mem
from torch.utils.cpp_extension import load_inline

CUDA_SRC = """
#include <torch/extension.h>
#include <cstdio>

__global__ void ring_exchange_kernel(const float* local, const float* peer,
                                     float* out, uint32_t* flag, int64_t n) {
    int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x;
    if (i < n) out[i] = local[i] + peer[i];
    if (i == 0) {
        __threadfence_system();
        atomicExch_system(flag, 1u);
        printf(\"rank flag set\\n\");
    }
}

torch::Tensor ring_exchange(torch::Tensor local, int64_t peer_ptr,
                            int64_t flag_ptr, int64_t rank) {
    auto out = torch::empty_like(local);
    int64_t n = local.numel();
    ring_exchange_kernel<<<(n + 255) / 256, 256>>>(
        local.data_ptr<float>(), reinterpret_cast<const float*>(peer_ptr),
        out.data_ptr<float>(), reinterpret_cast<uint32_t*>(flag_ptr), n);
    return out;
}
"""

CPP_SRC = (
    "#include <torch/extension.h>\n"
    "torch::Tensor ring_exchange(torch::Tensor local, int64_t peer_ptr,"
    " int64_t flag_ptr, int64_t rank);\n"
)

_module = load_inline(
    "ring_exchange_ext",
    CPP_SRC,
    cuda_sources=CUDA_SRC,
    functions=["ring_exchange"],
    verbose=False,
)


class ModelNew(nn.Module):
    def __init__(self, numel: int):
        super().__init__()
        self.ext = _module
        self.buf = symm_mem.empty(numel, device="cuda", dtype=torch.float32)
        self.hdl = symm_mem.rendezvous(self.buf, dist.group.WORLD)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        rank = self.hdl.rank
        peer = (rank + 1) % self.hdl.world_size
        self.buf.copy_(x)
        self.hdl.barrier(channel=0)
        out = self.ext.ring_exchange(self.buf, int(self.hdl.buffer_ptrs[peer]),
                                     int(self.hdl.signal_pad_ptrs[peer]), rank)
        dist.all_reduce(out)
        return out
