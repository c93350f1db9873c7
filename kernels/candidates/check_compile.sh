#!/usr/bin/env bash
# Compiles every candidate under kernels/candidates (and buggy/) the way the
# harness does: nvcc -std=c++17 sm_90a shared object against the ABI header.
# Usage: kernels/candidates/check_compile.sh [nvcc]   (exit 1 if any fails)
set -u
HERE="$(cd "$(dirname "$0")" && pwd)"
ROOT="$(cd "$HERE/../.." && pwd)"
NVCC="${1:-${PKB_NVCC:-/usr/local/cuda/bin/nvcc}}"
OUT="$(mktemp -d)"
trap 'rm -rf "$OUT"' EXIT
Fail=0
for F in "$HERE"/*.cu "$HERE"/buggy/*.cu; do
  [ -e "$F" ] || continue
  if "$NVCC" -std=c++17 -gencode=arch=compute_90a,code=sm_90a -shared \
      -Xcompiler -fPIC -I"$ROOT/runtime/include" "$F" \
      -o "$OUT/$(basename "$F" .cu).so" >"$OUT/log" 2>&1; then
    if grep -q "warning" "$OUT/log"; then
      echo "WARN $F"; cat "$OUT/log"
    else
      echo "ok   $F"
    fi
  else
    echo "FAIL $F"; cat "$OUT/log"; Fail=1
  fi
done
exit $Fail
