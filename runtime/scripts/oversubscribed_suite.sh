#!/usr/bin/env bash
# Correctness-only suite for a machine with ONE GPU (or few): several ranks
# per GPU through `pkbcheck-rt run --oversubscribe` (local references, no
# NCCL, no timing). Usually started as
#
#   PKB_SUITE=oversubscribed runtime/scripts/gpu_suite.sh OUT_DIR
#
# Steps (each under `timeout`; a failing step never stops the suite):
#   1. machine info; refuse early if the GPU is in an exclusive compute mode
#      (then only one process may use it);
#   2. runtime-only build (pkbcheck-rt first, then the test binaries while
#      every candidate is compiled into the cache in parallel);
#   3. ctest: CPU suites in the background, GPU suites (label gpu) in front;
#   4. every kernels/candidates/*.cu and kernels/candidates/buggy/*.cu at
#      W = 2, 4, 8 (problem = the file name's number prefix), small sizes;
#      buggy candidates on their first size only, with a shorter deadline.
# Writes OUT/suite.log, OUT/runs/*.log|jsonl, OUT/results.jsonl (all records)
# and OUT/summary.tsv + OUT/summary.md (written row by row, then completed
# at the end, also when the time budget runs out).
#
# Environment: PKB_SUITE_BUDGET (seconds after which no new run starts;
# default 470), PKB_GPU_BUILD (build dir), PKB_JOBS, PKB_RUN_TIMEOUT
# (seconds per run, default 100), PKB_DEADLINE (per-call deadline of correct
# candidates, default 20), PKB_BUGGY_DEADLINE (default 10), PKB_WORLDS
# (default "2 4 8"), PKB_KINDS (default "candidate buggy"), PKB_SKIP_CTEST=1
# (skip step 3, e.g. in a second call on the same warm machine), PKB_ONLY
# (an extended regular expression: only candidates whose file name without
# `.cu` matches it are run, e.g. PKB_ONLY='^(1_allreduce_push|8_.*)$').
#
# PKB_TIMED=1 is the same suite on a machine with at least max(PKB_WORLDS)
# GPUs: one rank per GPU (no --oversubscribe), NCCL references, and the
# correct candidates timed against NCCL at two sizes (a small, latency-bound
# one and a large, bandwidth-bound one: PKB_TIMED_SIZES overrides them) with
# speedup and fraction of the NVLink roofline in the summary; buggy
# candidates stay correctness-only. Used on nvidia-h200-x2 (docs/results.md).
set -uo pipefail
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1
START=$(date +%s)
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
OUT=${1:-${OUT:-$ROOT/out}}
B=${PKB_GPU_BUILD:-/tmp/pkb-build-gpu}
JOBS=${PKB_JOBS:-$(nproc)}
BUDGET=${PKB_SUITE_BUDGET:-470}
RUN_TIMEOUT=${PKB_RUN_TIMEOUT:-100}
DEADLINE=${PKB_DEADLINE:-20}
BUGGY_DEADLINE=${PKB_BUGGY_DEADLINE:-10}
WORLDS=${PKB_WORLDS:-"2 4 8"}
KINDS=${PKB_KINDS:-"candidate buggy"}
TIMED=${PKB_TIMED:-0}
mkdir -p "$OUT/runs"
LOG=$OUT/suite.log
exec > >(tee -a "$LOG") 2>&1
elapsed() { echo $(( $(date +%s) - START )); }
step() { echo; echo "=== $(date -u +%H:%M:%S) (+$(elapsed)s) $*"; }
SUMMARY=$OUT/summary.tsv
printf "kind\tkernel\tproblem\tworld\tsize\tverdict\texpected\tstatus\tseconds\tspeedup\troofline\n" > "$SUMMARY"
RT=$B/bin/pkbcheck-rt
CACHE=${PKB_CACHE_DIR:-$(mktemp -d /tmp/pkb-cache-XXXX)}
export PKB_CACHE_DIR=$CACHE # the GPU tests compile into the same cache

write_markdown() {
  {
    echo "# Oversubscribed correctness suite ($(date -u +%Y-%m-%dT%H:%M:%SZ), $(elapsed) s)"
    echo
    if [ "$TIMED" = 1 ]; then
      echo "Mode: one rank per GPU ($(nvidia-smi -L 2>/dev/null | wc -l) GPU(s)), NCCL references; correct candidates timed (speedup = NCCL median / candidate median; roofline = achieved fraction of the NVLink roofline)."
    else
      echo "Mode: correctness-only (W ranks on $(nvidia-smi -L 2>/dev/null | wc -l) GPU(s)); no timing."
    fi
    echo
    echo "| kind | kernel | problem | W | size | verdict | expected | status | s | speedup | roofline |"
    echo "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |"
    tail -n +2 "$SUMMARY" | awk -F'\t' '{printf "| %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |\n",$1,$2,$3,$4,$5,$6,$7,$8,$9,$10,$11}'
    echo
    for k in candidate buggy; do
      awk -F'\t' -v k=$k 'NR>1 && $1==k {n++; c[$8]++} END {printf "%s: %d rows", k, n; for (s in c) printf ", %s %d", s, c[s]; printf "\n"}' "$SUMMARY"
    done
    [ -f "$OUT/ctest-gpu.log" ] && grep -E "tests passed|tests failed" "$OUT/ctest-gpu.log" | sed 's/^/GPU ctest: /'
    [ -f "$OUT/ctest-cpu.log" ] && grep -E "tests passed|tests failed" "$OUT/ctest-cpu.log" | sed 's/^/CPU ctest: /'
  } > "$OUT/summary.md"
}
trap write_markdown EXIT

step machine
{ nvidia-smi; nvidia-smi -q 2>/dev/null | grep -iE "compute mode|MIG Mode" -A1
  nvcc --version; cmake --version | head -1; g++ --version | head -1
  uname -r; nproc; } > "$OUT/machine.txt" 2>&1
head -25 "$OUT/machine.txt"
MODE=$(nvidia-smi --query-gpu=compute_mode --format=csv,noheader 2>/dev/null | head -1)
echo "compute mode: ${MODE:-unknown}"
case "$MODE" in
  *Exclusive*|*Prohibited*)
    echo "GPU compute mode '$MODE' allows one process per GPU: several ranks"
    echo "per GPU are impossible here. Not changing it (machine settings)."
    printf "setup\t-\t-\t-\t-\tskipped\t-\tcompute mode %s\t0\n" "$MODE" >> "$SUMMARY"
    exit 0 ;;
esac

step "configure (runtime only)"
DEPS_ARGS=()
[ -d "$ROOT/.deps" ] && DEPS_ARGS=(-DPKB_DEPS_DIR="$ROOT/.deps")
timeout 120 cmake -S "$ROOT" -B "$B" -G Ninja -DCMAKE_BUILD_TYPE=Release \
  -DPKB_ENABLE_ANALYZER=OFF -DPKB_ENABLE_RUNTIME=ON "${DEPS_ARGS[@]}" \
  -DCMAKE_CUDA_COMPILER=/usr/local/cuda/bin/nvcc >"$OUT/build.log" 2>&1 \
  || { tail -60 "$OUT/build.log"; exit 1; }

step "build pkbcheck-rt"
timeout 300 cmake --build "$B" -j "$JOBS" --target pkbcheck-rt >>"$OUT/build.log" 2>&1 \
  || { grep -E "error|FAILED" -A5 "$OUT/build.log" | head -80; exit 1; }

step "compile every candidate into $CACHE (background) + build the tests"
KERNELS=("$ROOT"/kernels/candidates/*.cu "$ROOT"/kernels/candidates/buggy/*.cu \
         "$ROOT"/runtime/testdata/*.cu)
( printf '%s\0' "${KERNELS[@]}" | timeout 240 xargs -0 -P "$JOBS" -n 1 \
    "$RT" compile --cache-dir "$CACHE" --kernel > "$OUT/compile.log" 2>&1 ) &
COMPILE_PID=$!
timeout 300 cmake --build "$B" -j "$JOBS" --target pkb_runtime_cpu_tests \
  pkb_runtime_gpu_tests >>"$OUT/build.log" 2>&1 \
  || { grep -E "error|FAILED" -A5 "$OUT/build.log" | head -40; echo "test build failed"; }
grep -c "warning" "$OUT/build.log" | sed 's/^/compiler warnings: /'
wait $COMPILE_PID
grep -E "^(compiled|cached|compile-error)" "$OUT/compile.log" | awk '{print $1}' | sort | uniq -c

if [ "${PKB_SKIP_CTEST:-0}" != 1 ]; then
step "ctest: CPU suites (background) and GPU suites"
CPU_SUITES='^(Compare|Stats|Roofline|Problems|Bench|Verdicts|ResultStore|RankEnv|Wire|Launcher|FakeRun|MergeCase|MergeCaseResult|WorkerConfig|FailureKind|RunPlan|CaseMerger|PluggedWorker|ProblemCatalogue|Compiler|CompilerNvcc|Placement|OversubscribedRun|OversubscribeCli|LocalReference)\.'
( cd "$B" && timeout 300 ctest -R "$CPU_SUITES" --output-on-failure --timeout 120 -j4 \
    > "$OUT/ctest-cpu.log" 2>&1 ) &
CTEST_CPU_PID=$!
(cd "$B" && timeout 200 ctest -L gpu --output-on-failure --timeout 120 -j1) \
  > "$OUT/ctest-gpu.log" 2>&1
grep -E "Test +#|tests passed|tests failed|Total Test" "$OUT/ctest-gpu.log" | tail -25
wait $CTEST_CPU_PID
grep -E "tests passed|tests failed|\(Failed\)|\*\*\*" "$OUT/ctest-cpu.log" | tail -10
fi

PROBLEMS_JSON=$("$RT" problems --json 2>/dev/null)
problem_of() { # file name prefix -> name of a problem with a spec (the
  # binary's catalogue, `problems --json`: one object per line)
  local id name
  id=$(basename "$1" | cut -d_ -f1)
  name=$(grep -F "\"id\":$id," <<<"$PROBLEMS_JSON" | grep -F '"has_spec":true' \
    | grep -o '"name":"[^"]*"' | cut -d'"' -f4)
  echo "${name:-unknown}"
}
sizes_of() { # two small sizes valid for W up to 8
  case "$1" in
    allreduce) echo 2048,65536 ;;
    broadcast|reduce) echo 2048,131072 ;;
    gemm_allreduce) echo 128,1024 ;;
    tp_rms_norm) echo 128,1024 ;;
    *) echo 1024,65536 ;;
  esac
}
timed_sizes_of() { # a latency-bound and a bandwidth-bound size
  case "$1" in
    allreduce | broadcast | reduce) echo 65536,16777216 ;;
    gemm_allreduce) echo 1024,4096 ;;
    tp_rms_norm) echo 1024,16384 ;;
    *) echo 65536,16777216 ;;
  esac
}
expected_of() { # what a buggy candidate should get (by its name)
  case "$(basename "$1")" in
    *deadlock*) echo deadlock ;;
    *wrong_offset*) echo wrong-output ;;
    *no_exit_barrier*) echo wrong-output ;;
    *missing_fence*) echo wrong-output ;;
    *) echo caught ;;
  esac
}

# One run: kind file W; appends one summary row per size.
run_one() {
  local kind=$1 f=$2 w=$3 name prob sizes deadline exp tag t0 rc
  name=$(basename "$f" .cu); prob=$(problem_of "$f")
  tag=$kind-$name-W$w
  if [ -n "${PKB_ONLY:-}" ] && ! grep -Eq "$PKB_ONLY" <<<"$name"; then
    return
  fi
  if [ "$prob" = unknown ]; then
    printf "%s\t%s\t?\t%s\t-\tskipped\t-\tunknown problem prefix\t0\n" "$kind" "$name" "$w" >> "$SUMMARY"
    return
  fi
  if [ "$(elapsed)" -ge "$BUDGET" ]; then
    printf "%s\t%s\t%s\t%s\t-\tskipped\t-\ttime budget (%ss) spent\t0\n" "$kind" "$name" "$prob" "$w" "$BUDGET" >> "$SUMMARY"
    return
  fi
  sizes=$(sizes_of "$prob"); deadline=$DEADLINE; exp=pass
  local place=(--oversubscribe) timing=()
  if [ "$TIMED" = 1 ]; then
    place=()
    if [ "$kind" = candidate ]; then
      sizes=${PKB_TIMED_SIZES:-$(timed_sizes_of "$prob")}
    else
      timing=(--no-timing)
    fi
  fi
  if [ "$kind" = buggy ]; then
    sizes=${sizes%%,*}; deadline=$BUGGY_DEADLINE; exp=$(expected_of "$f")
  fi
  echo "--- $tag: $prob sizes $sizes deadline ${deadline}s (+$(elapsed)s)"
  t0=$(date +%s)
  # Own session: whatever is left of this run after a timeout (its workers
  # live in their own process groups) is killed by session id, nothing else.
  local sidfile=$OUT/runs/$tag.sid
  setsid --wait bash -c 'echo $$ > "$0"; exec "$@"' "$sidfile" \
    timeout -k 5 "$RUN_TIMEOUT" "$RT" run --problem "$prob" --kernel "$f" \
    --gpus "$w" "${place[@]}" "${timing[@]}" --sizes "$sizes" --deadline "$deadline" \
    --cache-dir "$CACHE" --results "$OUT/runs/$tag.jsonl" \
    > "$OUT/runs/$tag.log" 2>&1
  rc=$?
  [ -s "$sidfile" ] && pkill -KILL -s "$(cat "$sidfile")" 2>/dev/null
  rm -f "$sidfile"
  local secs=$(( $(date +%s) - t0 ))
  cat "$OUT/runs/$tag.jsonl" >> "$OUT/results.jsonl" 2>/dev/null
  grep -E "^==|^ +[0-9]+ +[a-z-]+ |^    " "$OUT/runs/$tag.log" | head -8
  local rows=0 line size verdict status speedup roof
  while IFS= read -r line; do
    # Records have sorted keys: the last "size"/"verdict" are the case's own
    # (the per-rank entries come earlier, under "ranks").
    size=$(grep -o '"size":[0-9]*' <<<"$line" | tail -1 | cut -d: -f2)
    verdict=$(grep -o '"verdict":"[^"]*"' <<<"$line" | tail -1 | cut -d'"' -f4)
    speedup=$(grep -o '"speedup":[0-9.e+-]*' <<<"$line" | tail -1 | cut -d: -f2)
    roof=$(grep -o '"achieved_fraction":[0-9.e+-]*' <<<"$line" | head -1 | cut -d: -f2)
    if [ "$kind" = candidate ]; then
      [ "$verdict" = pass ] && status=ok || status=UNEXPECTED
    elif [ "$verdict" = pass ]; then
      status=ESCAPED
    elif [ "$verdict" = "$exp" ]; then
      status="caught as expected"
    else
      status="caught as $verdict (expected $exp)"
    fi
    printf "%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n" "$kind" "$name" "$prob" "$w" \
      "$size" "$verdict" "$exp" "$status" "$secs" "${speedup:--}" "${roof:--}" >> "$SUMMARY"
    rows=$((rows + 1))
  done < <(cat "$OUT/runs/$tag.jsonl" 2>/dev/null)
  if [ "$rows" -eq 0 ]; then
    printf "%s\t%s\t%s\t%s\t%s\tno-record\t%s\tharness exit %s (see runs/%s.log)\t%s\n" \
      "$kind" "$name" "$prob" "$w" "$sizes" "$exp" "$rc" "$tag" "$secs" >> "$SUMMARY"
    tail -5 "$OUT/runs/$tag.log"
  fi
  write_markdown
}

for w in $WORLDS; do
  if [[ " $KINDS " == *" candidate "* ]]; then
    step "candidates at W = $w ($([ "$TIMED" = 1 ] && echo "one rank per GPU, timed" || echo "oversubscribed on one GPU"))"
    for f in "$ROOT"/kernels/candidates/*.cu; do run_one candidate "$f" "$w"; done
  fi
  if [[ " $KINDS " == *" buggy "* ]]; then
    step "buggy candidates at W = $w"
    for f in "$ROOT"/kernels/candidates/buggy/*.cu; do run_one buggy "$f" "$w"; done
  fi
done

step "summary ($OUT/summary.md)"
write_markdown
column -t -s $'\t' "$SUMMARY" 2>/dev/null || cat "$SUMMARY"
echo
tail -4 "$OUT/summary.md"
step finished
