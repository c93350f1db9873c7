#!/usr/bin/env bash
# build.sh OUT_DIR [-j JOBS] - builds one harness binary per tested corpus file.
# Then, on a machine with >= 2 GPUs:  OUT_DIR/run_all.sh  (see docs/corpus.md).
set -eu
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
REPO="$(cd "$HERE/../../../.." && pwd)"
CORPUS="$REPO/kernels/corpus"
OUT="$1"
JOBS="${3:-2}"
NVCC="${NVCC:-/usr/local/cuda/bin/nvcc}"
mkdir -p "$OUT"

# name:test-macro:file
TESTS=(
  c01:T_C01:correct/c01_allreduce_oneshot_peerview.cu
  c02:T_C02:correct/c02_allreduce_twoshot_ptx.cu
  c03:T_C03:correct/c03_allgather_push_rawptr.cu
  c04:T_C04:correct/c04_allgather_pull_addrtab.cu
  c05:T_C05:correct/c05_alltoall_push_peerview.cu
  c06:T_C06:correct/c06_reducescatter_pull_atomicref.cu
  c07:T_C07:correct/c07_broadcast_push_ptx.cu
  c08:T_C08:correct/c08_ring_shift_rawptr.cu
  c09:T_C09:correct/c09_halo_exchange_peerview.cu
  c10:T_C10:correct/c10_counter_barrier_ptx.cu
  c11:T_C11:correct/c11_cas_signal_atomicref.cu
  c12:T_C12:correct/c12_double_buffered_rawptr.cu
  c13:T_C13:correct/c13_allreduce_gridsync_coop.cu
  c20:T_C20:correct/c20_ring_allreduce_ptx.cu
  c21:T_C21:correct/c21_alltoall_pull_rawptr.cu
  c22:T_C22:correct/c22_reducescatter_pull_peerview.cu
  c25:T_C25:correct/c25_device_epoch_addrtab.cu
  c26:T_C26:correct/c26_butterfly_step_atomicref.cu
  bar002_01:T_BAR002_01:buggy/bar002_01_peerview.cu
  bar002_02:T_BAR002_02:buggy/bar002_02_ptx.cu
  bar005_01:T_BAR005_01:buggy/bar005_01_rawptr.cu
  part003_01:T_PART003_01:buggy/part003_01_rawptr.cu
  ord004_01:T_ORD004_01:buggy/ord004_01_rawptr.cu
)

build_one() {
  IFS=: read -r name macro file <<<"$1"
  if "$NVCC" -std=c++17 -O2 -arch=sm_90a -I"$REPO/runtime/include" -I"$HERE" \
      -D"$macro" -DCORPUS_FILE="\"$CORPUS/$file\"" "$HERE/harness.cu" -o "$OUT/$name" \
      >"$OUT/$name.log" 2>&1; then
    echo "built $name"
  else
    echo "BUILD FAILED $name"; cat "$OUT/$name.log"; return 1
  fi
}
export -f build_one
export NVCC REPO HERE CORPUS OUT
printf '%s\n' "${TESTS[@]}" | xargs -P "$JOBS" -I{} bash -c 'build_one "$@"' _ {}

cat >"$OUT/run_all.sh" <<'EOF'
#!/usr/bin/env bash
# Runs every harness binary in this directory; W from 2 to the GPU count.
cd "$(dirname "$0")"
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1
status=0
for t in c01 c02 c03 c04 c05 c06 c07 c08 c09 c10 c11 c12 c13 c20 c21 c22 c25 c26 part003_01; do
  timeout 300 ./$t 2 || status=1
done
# Buggy files whose predicted effect is a hang: one W per process.
timeout 60 ./bar002_02 2 2 1000 || status=1
timeout 60 ./bar002_02 3 3 1000 || status=1
timeout 60 ./bar002_01 2 2 1000 || status=1
timeout 60 ./bar005_01 2 2 || status=1
# Informational: does nvcc hoist the plain poll of ord004_01?
timeout 60 ./ord004_01 2 2 1000 || echo "ord004_01: hung or failed (plain poll hoisted?)"
exit $status
EOF
chmod +x "$OUT/run_all.sh"
