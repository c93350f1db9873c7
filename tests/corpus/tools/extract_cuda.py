#!/usr/bin/env python3
"""Extract the CUDA_SRC string of a ParallelKernelBench-style .py file.

Usage: extract_cuda.py FILE.py OUT.cu

The CUDA text is written with (line - 1) leading blank lines so that line N of
OUT.cu is line N of FILE.py (compiler messages point at the .py file). Lines
that include PyTorch headers are replaced, one for one, by an include of
tools/torch_shim.h, so that the result compiles with plain nvcc.
"""
import ast
import sys

TORCH_HEADERS = (
    "<torch/extension.h>",
    "<ATen/cuda/CUDAContext.h>",
    "<c10/cuda/CUDAGuard.h>",
    "<c10/cuda/CUDAStream.h>",
)


def main() -> int:
    if len(sys.argv) != 3:
        print(__doc__, file=sys.stderr)
        return 2
    path, out = sys.argv[1], sys.argv[2]
    with open(path, encoding="utf-8") as f:
        text = f.read()
    tree = ast.parse(text, filename=path)
    node = None
    for stmt in tree.body:
        if (isinstance(stmt, ast.Assign) and len(stmt.targets) == 1
                and isinstance(stmt.targets[0], ast.Name)
                and stmt.targets[0].id == "CUDA_SRC"
                and isinstance(stmt.value, ast.Constant)
                and isinstance(stmt.value.value, str)):
            node = stmt.value
            break
    if node is None:
        print(f"{path}: no CUDA_SRC = r'''...''' assignment", file=sys.stderr)
        return 1
    # The literal starts on node.lineno; its first character follows the
    # opening quotes on that line, so content line k is file line
    # node.lineno + k - 1.
    lines = node.value.split("\n")
    shimmed = []
    for line in lines:
        if line.strip().startswith("#include") and any(h in line for h in TORCH_HEADERS):
            shimmed.append('#include "torch_shim.h"')
        else:
            shimmed.append(line)
    with open(out, "w", encoding="utf-8") as f:
        f.write("\n" * (node.lineno - 1))
        f.write("\n".join(shimmed))
        f.write("\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
