#!/usr/bin/env bash
# Builds the runtime harness (no analyzer) and runs the ParallelKernelBench
# .py solutions of kernels/pkb at W = 1 on one GPU (docs/pkb.md):
#   phase 1: every file, correctness only, in parallel (JIT compiles overlap);
#   phase 2: the correct ones again, timed, one at a time (cached extensions).
# Writes OUT/results.jsonl, OUT/summary.tsv (expected vs got) and logs.
# Usage: runtime/scripts/pkb_suite.sh OUT   (PKB_ROOT defaults to ./.pkb)
set -u
OUT=${1:?usage: pkb_suite.sh OUT}
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
B=${PKB_BUILD_DIR:-$ROOT/build-pkb}
PKB_ROOT=${PKB_ROOT:-$ROOT/.pkb}
JOBS=${JOBS:-$(nproc)}
mkdir -p "$OUT"
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1
export PKB_CACHE_DIR=${PKB_CACHE_DIR:-$ROOT/.pkbcache}
DEPS_ARGS=()
[ -d "$ROOT/.deps" ] && DEPS_ARGS=(-DPKB_DEPS_DIR="$ROOT/.deps")
{ nvidia-smi -L; python3 -c 'import torch; print("torch", torch.__version__, torch.version.cuda)'; } >"$OUT/env.txt" 2>&1
cmake -S "$ROOT" -B "$B" -G Ninja -DCMAKE_BUILD_TYPE=Release \
  -DPKB_ENABLE_ANALYZER=OFF -DPKB_ENABLE_RUNTIME=ON "${DEPS_ARGS[@]}" \
  -DCMAKE_CUDA_COMPILER=/usr/local/cuda/bin/nvcc >"$OUT/build.log" 2>&1 &&
  cmake --build "$B" -j "$JOBS" --target pkbcheck-rt >>"$OUT/build.log" 2>&1 ||
  { tail -40 "$OUT/build.log"; exit 1; }
RT=$B/bin/pkbcheck-rt
expected() { sed -n 's/^pkbcheck-expected: *//p' "$1" | head -1; }
echo "phase 1: correctness, all files in parallel"
T0=$(date +%s)
for F in "$ROOT"/kernels/pkb/solutions/*.py "$ROOT"/kernels/pkb/buggy/*.py; do
  N=$(basename "$F" .py)
  setsid timeout 400 "$RT" run --solution "$F" --pkb-root "$PKB_ROOT" \
    --no-timing --deadline 20 --results "$OUT/p1-$N.jsonl" \
    >"$OUT/p1-$N.log" 2>&1 &
done
wait
echo "phase 1 took $(( $(date +%s) - T0 )) s"
echo "phase 2: timing of the correct solutions"
for F in "$ROOT"/kernels/pkb/solutions/*.py; do
  N=$(basename "$F" .py)
  setsid timeout 200 "$RT" run --solution "$F" --pkb-root "$PKB_ROOT" \
    --results "$OUT/p2-$N.jsonl" >"$OUT/p2-$N.log" 2>&1
  tail -n +2 "$OUT/p2-$N.log" | head -1
done
cat "$OUT"/p1-*.jsonl "$OUT"/p2-*.jsonl >"$OUT/results.jsonl"
python3 - "$OUT" "$ROOT" <<'PY'
import json, os, re, sys
out, root = sys.argv[1], sys.argv[2]
rows = ["file\tmode\texpected\tgot\tok\tcand_us\tref_us\tspeedup\tpkb_cand_us\tpkb_ref_us\tdetail"]
for line in open(os.path.join(out, "results.jsonl")):
    r = json.loads(line)
    src = open(r["kernel"]).read()
    m = re.search(r"pkbcheck-expected: *(\S+)", src)
    exp = m.group(1) if m else "?"
    t = r.get("timing", {})
    c, f = t.get("candidate", {}), t.get("reference", {})
    rows.append("\t".join(str(x) for x in [
        os.path.basename(r["kernel"]), r["mode"], exp, r["verdict"],
        "yes" if exp == r["verdict"] else "NO",
        round(c.get("median_us", 0), 1), round(f.get("median_us", 0), 1),
        round(t.get("speedup", 0), 3), round(c.get("pkb_method_us", 0), 1),
        round(f.get("pkb_method_us", 0), 1), r["detail"][:160].replace("\t", " ").replace("\n", " ")]))
open(os.path.join(out, "summary.tsv"), "w").write("\n".join(rows) + "\n")
print("\n".join(rows))
PY
cd "$OUT" && tar czf logs.tgz p1-*.log p2-*.log build.log 2>/dev/null; rm -f p1-*.log p2-*.log p1-*.jsonl p2-*.jsonl
