"""ParallelKernelBench solution for problem 6 (gather), written for
pkbcheck's dynamic-stage tests (docs/pkb.md).
pkbcheck-expected: pass
Correct: one-shot kernel reading every rank's symmetric buffer.
"""
import torch
import torch.distributed as dist
import torch.distributed._symmetric_memory as symm_mem
from torch.utils.cpp_extension import load_inline

CUDA_SRC = r"""
#include <torch/extension.h>
#include <ATen/cuda/CUDAContext.h>

template <typename T>
__global__ void pkb_kernel(const long long *__restrict__ peers, T *__restrict__ out,
                           long long n, int world, int rank) {
  for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < n;
       i += (long long)gridDim.x * blockDim.x) {
    long long m = n / world;
    out[i] = ((const T *)peers[i / m])[i % m];
  }
}

void run(torch::Tensor peers, torch::Tensor out, int64_t n, int64_t world, int64_t rank) {
  const int threads = 256;
  long long want = (n + threads - 1) / threads;
  int blocks = (int)(want < 1 ? 1 : (want > 1056 ? 1056 : want));
  auto stream = at::cuda::getCurrentCUDAStream();
  AT_DISPATCH_FLOATING_TYPES_AND2(at::kHalf, at::kBFloat16, out.scalar_type(), "pkb_kernel", [&] {
    pkb_kernel<scalar_t><<<blocks, threads, 0, stream>>>(
        (const long long *)peers.data_ptr<int64_t>(), out.data_ptr<scalar_t>(), n,
        (int)world, (int)rank);
  });
  C10_CUDA_KERNEL_LAUNCH_CHECK();
}
"""

_ext = load_inline(
    name="pkb_6_gather_cuda",
    cpp_sources="void run(torch::Tensor peers, torch::Tensor out, int64_t n, int64_t world, int64_t rank);",
    cuda_sources=CUDA_SRC,
    functions=["run"],
    extra_cuda_cflags=["-O3"],
    verbose=False,
)

_bufs = {}


def _symm(numel, dtype, device):
    """One symmetric buffer per (numel, dtype), its handle and a device table
    of every rank's buffer address."""
    key = (numel, dtype)
    if key not in _bufs:
        buf = symm_mem.empty(numel, dtype=dtype, device=device)
        hdl = symm_mem.rendezvous(buf, dist.group.WORLD.group_name)
        peers = torch.tensor([int(p) for p in hdl.buffer_ptrs], dtype=torch.int64,
                             device=device)
        _bufs[key] = (buf, hdl, peers)
    return _bufs[key]


@torch.no_grad()
def solution(tensor: torch.Tensor, dst: int = 0):
    world, rank = dist.get_world_size(), dist.get_rank()
    if rank != 0:
        # The reference returns the input itself on non-destination ranks.
        buf, hdl, peers = _symm(tensor.numel(), tensor.dtype, tensor.device)
        buf.copy_(tensor.reshape(-1))
        hdl.barrier(channel=0)
        hdl.barrier(channel=0)
        return tensor
    buf, hdl, peers = _symm(tensor.numel(), tensor.dtype, tensor.device)
    buf[: tensor.numel()].copy_(tensor.reshape(-1))
    hdl.barrier(channel=0)
    out = tensor.new_empty((world,) + tuple(tensor.shape))
    _ext.run(peers, out, out.numel(), world, rank)
    hdl.barrier(channel=0)
    return out
