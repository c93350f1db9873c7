#!/usr/bin/env bash
# GPU test (label gpu): every file of kernels/pkb/solutions and
# kernels/pkb/buggy, correctness only at W = 1, all in parallel, must get the
# verdict named on its `pkbcheck-expected:` line. Skips (77) without torch,
# a GPU or a ParallelKernelBench checkout ($PKB_ROOT, else SRC/.pkb).
# Usage: pkb_solutions_gpu.sh PKBCHECK_RT SOURCE_DIR
set -u
RT=$1 SRC=$2
PKB_ROOT=${PKB_ROOT:-$SRC/.pkb}
[ -f "$PKB_ROOT/utils/input_output_tensors.py" ] || { echo "no PKB checkout"; exit 77; }
python3 -c 'import torch, sys; sys.exit(0 if torch.cuda.is_available() else 1)' 2>/dev/null ||
  { echo "no torch with CUDA"; exit 77; }
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1
W=$(mktemp -d /tmp/pkb-gpu-test-XXXXXX)
for F in "$SRC"/kernels/pkb/solutions/*.py "$SRC"/kernels/pkb/buggy/*.py; do
  N=$(basename "$F" .py)
  timeout 400 "$RT" run --solution "$F" --pkb-root "$PKB_ROOT" --no-timing \
    --deadline 20 --force --results "$W/$N.jsonl" >"$W/$N.log" 2>&1 &
done
wait
FAIL=0
for F in "$SRC"/kernels/pkb/solutions/*.py "$SRC"/kernels/pkb/buggy/*.py; do
  N=$(basename "$F" .py)
  WANT=$(sed -n 's/^pkbcheck-expected: *//p' "$F" | head -1)
  GOT=$(python3 -c 'import json,sys; print(json.loads(open(sys.argv[1]).readline())["verdict"])' "$W/$N.jsonl" 2>/dev/null)
  if [ "$WANT" = "$GOT" ]; then echo "ok   $N: $GOT"; else
    echo "FAIL $N: expected $WANT, got ${GOT:-nothing}"; tail -5 "$W/$N.log"; FAIL=1; fi
done
# The kept-output check names the call that overwrote the output.
python3 -c 'import json,sys; r=json.loads(open(sys.argv[1]).readline()); sys.exit(0 if r.get("first_failing_call")==1 else 1)' \
  "$W/1_allreduce_alias_output_cuda.jsonl" || { echo "FAIL alias: first_failing_call"; FAIL=1; }
# Every record has the versions, the deadlock's too (the ranks log them
# before the first phase; no rank of a hang sends a result).
for J in "$W"/*.jsonl; do
  python3 -c 'import json,sys; v=json.loads(open(sys.argv[1]).readline()).get("versions") or {}; sys.exit(0 if v.get("torch") and v.get("cuda") and v.get("driver") else 1)' \
    "$J" || { echo "FAIL $(basename "$J"): no torch/CUDA/driver versions"; FAIL=1; }
done
rm -rf "$W"
exit $FAIL
