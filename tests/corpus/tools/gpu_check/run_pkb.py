#!/usr/bin/env python3
"""Run corpus ParallelKernelBench .py solutions under torchrun and compare
against torch.distributed references.

  torchrun --nproc-per-node=W run_pkb.py FILE.py [FILE.py ...]

Each file's solution() is called 4 times back to back (fresh inputs, sizes
with remainders, no host synchronization in between) and compared with the
reference collective. Prints PASS/FAIL per file and call from rank 0.
NVLink multicast stays disabled (TORCH_SYMM_MEM_DISABLE_MULTICAST=1).
"""
import importlib.util
import os
import sys

os.environ.setdefault("TORCH_SYMM_MEM_DISABLE_MULTICAST", "1")
os.environ.setdefault("NCCL_NVLS_ENABLE", "0")

import torch  # noqa: E402
import torch.distributed as dist  # noqa: E402


def load(path):
    spec = importlib.util.spec_from_file_location(os.path.basename(path)[:-3], path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def inputs(rank, call, n, dev):
    g = torch.Generator(device="cpu").manual_seed(1000 * call + rank)
    return torch.randint(-8, 9, (n,), generator=g).float().to(dev)


def check(name, mod, rank, world, dev):
    sizes = [1, 1000, 65537, 1000003]
    results = []
    for call, n in enumerate(sizes):
        x = inputs(rank, call, n, dev)
        if "allreduce" in name:
            got = mod.solution(x)
            ref = x.clone()
            dist.all_reduce(ref)
        elif "allgather" in name:
            got = mod.solution(x)
            ref = torch.empty(world * n, device=dev)
            dist.all_gather_into_tensor(ref, x)
        elif "reducescatter" in name:
            got = mod.solution(x)
            full = x.clone()
            dist.all_reduce(full)
            c = (n + world - 1) // world
            ref = full[rank * c:min(n, (rank + 1) * c)]
        elif "alltoall" in name:
            n = n - n % world if n >= world else world
            x = inputs(rank, call, n, dev)
            got = mod.solution(x)
            ref = torch.empty_like(x)
            dist.all_to_all_single(ref, x)
        elif "broadcast" in name:
            root = call % world
            got = mod.solution(x, root)
            ref = x.clone()
            dist.broadcast(ref, root)
        elif "stencil" in name:
            got = mod.solution(x)
            parts = [torch.empty_like(x) for _ in range(world)]
            dist.all_gather(parts, x)
            full = torch.cat(parts)
            y = (torch.roll(full, 1) + full + torch.roll(full, -1)) / 3
            ref = y[rank * n:(rank + 1) * n]
        elif "histogram" in name:
            got = mod.solution(x, 16, -8.0, 9.0)
            ref = torch.histc(x, bins=16, min=-8.0, max=9.0).to(torch.int32)
            dist.all_reduce(ref)
        else:
            raise ValueError(name)
        ok = torch.allclose(got.float().view(-1), ref.float().view(-1), atol=1e-4, rtol=1e-5)
        results.append((call, n, ok))
    torch.cuda.synchronize()
    return results


def main():
    dist.init_process_group("nccl")
    rank, world = dist.get_rank(), dist.get_world_size()
    torch.cuda.set_device(rank % torch.cuda.device_count())
    dev = torch.device("cuda", torch.cuda.current_device())
    status = 0
    for path in sys.argv[1:]:
        name = os.path.basename(path)
        mod = load(path)
        res = check(name, mod, rank, world, dev)
        flags = torch.tensor([int(ok) for _, _, ok in res], device=dev)
        dist.all_reduce(flags, op=dist.ReduceOp.MIN)
        if rank == 0:
            for (call, n, _), f in zip(res, flags.tolist()):
                print(f"{'PASS' if f else 'FAIL'} {name} W={world} call={call} n={n}", flush=True)
        if not all(flags.tolist()):
            status = 1
    dist.barrier()
    dist.destroy_process_group()
    sys.exit(status)


if __name__ == "__main__":
    main()
