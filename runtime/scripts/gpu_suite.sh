#!/usr/bin/env bash
# Builds the runtime harness, runs its CPU and GPU tests (ctest, label gpu
# included) and its benchmarks in one go, writing logs and JSON to OUT.
#
#   runtime/scripts/gpu_suite.sh [OUT_DIR]
#   PKB_SUITE=oversubscribed runtime/scripts/gpu_suite.sh [OUT_DIR]
#
# The second form is for a machine with ONE GPU (see
# runtime/scripts/oversubscribed_suite.sh): runtime-only build, CPU + GPU
# tests, then every candidate in kernels/candidates (and buggy/) at W = 2, 4
# and 8 ranks with `run --oversubscribe` (correctness only, no timing).
#
# Header-only dependencies and GoogleTest come from .deps/ when the machine
# has no packages (see docs/runtime.md: copy /usr/include/{CLI,nlohmann,fmt}
# to .deps/include and /usr/src/googletest to .deps/googletest, and carry
# .deps to the GPU machine). NVLink multicast stays off throughout.
set -uo pipefail
if [ "${PKB_SUITE:-}" = oversubscribed ]; then
  exec "$(cd "$(dirname "$0")" && pwd)/oversubscribed_suite.sh" "$@"
fi
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
OUT=${1:-${OUT:-$ROOT/out}}
B=${PKB_GPU_BUILD:-/tmp/pkb-build-gpu}
JOBS=${PKB_JOBS:-$(nproc)}
mkdir -p "$OUT"
LOG=$OUT/suite.log
exec > >(tee -a "$LOG") 2>&1
step() { echo; echo "=== $(date -u +%H:%M:%S) $*"; }

step machine
{ nvidia-smi; nvidia-smi topo -m; nvidia-smi nvlink -s 2>/dev/null | head -40
  nvcc --version; cmake --version | head -1; g++ --version | head -1
  uname -r; nproc; } > "$OUT/machine.txt" 2>&1
head -30 "$OUT/machine.txt"

step configure
DEPS_ARGS=()
[ -d "$ROOT/.deps" ] && DEPS_ARGS=(-DPKB_DEPS_DIR="$ROOT/.deps")
cmake -S "$ROOT" -B "$B" -G Ninja -DCMAKE_BUILD_TYPE=Release \
  -DPKB_ENABLE_ANALYZER=OFF -DPKB_ENABLE_RUNTIME=ON "${DEPS_ARGS[@]}" \
  -DCMAKE_CUDA_COMPILER=/usr/local/cuda/bin/nvcc >"$OUT/build.log" 2>&1 \
  || { tail -60 "$OUT/build.log"; exit 1; }

step build
cmake --build "$B" -j "$JOBS" --target pkbcheck-rt pkb_runtime_cpu_tests \
  pkb_runtime_gpu_tests pkb_catalogue_tests >>"$OUT/build.log" 2>&1 \
  || { grep -E "error|FAILED" -A5 "$OUT/build.log" | head -80; exit 1; }
cmake --build "$B" -j "$JOBS" --target pkbcheck >>"$OUT/build.log" 2>&1 \
  && echo "pkbcheck (lead's driver) built too" || echo "pkbcheck not built (see build.log)"
grep -c "warning" "$OUT/build.log" | sed 's/^/compiler warnings: /'
RT=$B/bin/pkbcheck-rt

step ctest
SUITES='^(Compare|Stats|Roofline|Problems|Bench|Verdicts|ResultStore|RankEnv|Wire|Launcher|FakeRun|MergeCase|Compiler|CompilerNvcc|Placement|OversubscribedRun|OversubscribeCli|LocalReference|ProblemCatalogue|PkbByteModel|PkbNames|PkbWorker|Gpu)\.'
(cd "$B" && timeout 420 ctest -R "$SUITES" --output-on-failure --timeout 240 -j1) \
  | tee "$OUT/ctest.log" | grep -E "tests passed|Test +#|Failed|Skipped|Total Test" | tail -70
echo "gpu-labelled tests:"; (cd "$B" && ctest -L gpu -N | tail -2)

CACHE=$(mktemp -d /tmp/pkb-cache-XXXX)
step "bench peers"
timeout 180 "$RT" bench peers --json "$OUT/peers.json" --cache-dir "$CACHE"

step "bench nccl"
timeout 300 "$RT" bench nccl --json "$OUT/nccl.json"

step "run allreduce (eager, default sizes)"
timeout 400 "$RT" run --problem allreduce \
  --kernel "$ROOT/runtime/testdata/allreduce_oneshot.cu" --cache-dir "$CACHE" \
  --results "$OUT/results.jsonl"

step "run allreduce (CUDA graph, 2 sizes)"
timeout 200 "$RT" run --problem allreduce --graph --sizes 64K,16M \
  --kernel "$ROOT/runtime/testdata/allreduce_oneshot.cu" --cache-dir "$CACHE" \
  --results "$OUT/results.jsonl"

step "run every broken candidate in one launcher (no timing)"
K=()
for f in broken_deadlock broken_illegal_address broken_misaligned_atomic \
         broken_cross_call_race broken_unwritten_output broken_compile_error; do
  K+=(--kernel "$ROOT/runtime/testdata/$f.cu")
done
timeout 300 "$RT" run --problem allreduce --sizes 4K,1M --no-timing \
  --deadline 5 "${K[@]}" --cache-dir "$CACHE" --results "$OUT/results.jsonl"

step "resume: rerun of the same cases is skipped"
timeout 60 "$RT" run --problem allreduce --sizes 4K,1M --no-timing \
  "${K[@]}" --cache-dir "$CACHE" --results "$OUT/results.jsonl"

step "sanitize: memcheck on the illegal-address candidate, racecheck on the good one"
timeout 240 "$RT" run --problem allreduce --sizes 4K --sanitize memcheck \
  --kernel "$ROOT/runtime/testdata/broken_illegal_address.cu" \
  --cache-dir "$CACHE" --results "$OUT/results.jsonl"
timeout 240 "$RT" run --problem allreduce --sizes 4K --sanitize racecheck \
  --kernel "$ROOT/runtime/testdata/allreduce_oneshot.cu" \
  --cache-dir "$CACHE" --results "$OUT/results.jsonl"

step done
