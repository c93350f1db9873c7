"""All-reduce through NCCL only: no custom CUDA in this solution."""

import torch
import torch.distributed as dist

KERNEL_NOTE = "uses dist.all_reduce; see __doc__"  # not CUDA source


@torch.no_grad()
def solution(tensor: torch.Tensor) -> torch.Tensor:
    out = tensor.clone()
    dist.all_reduce(out, op=dist.ReduceOp.SUM)
    dist.barrier()
    return out
