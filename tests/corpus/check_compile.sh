#!/usr/bin/env bash
# check_compile.sh - compile every corpus kernel with the real CUDA toolkit and
# lint the ground-truth annotations.
#
#   tests/corpus/check_compile.sh [-j JOBS] [FILE...]
#
# .cu files:  nvcc -std=c++17 -arch=sm_90a -I runtime/include -c FILE
# .py files:  CUDA_SRC is extracted by tools/extract_cuda.py (PyTorch includes
#             replaced by tools/torch_shim.h, line numbers preserved) and
#             compiled the same way.
# Exit status is non-zero if any file fails to compile or the annotation lint
# (tools/check_annotations.py) fails. No GPU is needed.
set -u

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
REPO="$(cd "$HERE/../.." && pwd)"
CORPUS="$REPO/kernels/corpus"
NVCC="${NVCC:-/usr/local/cuda/bin/nvcc}"
JOBS=2
if [[ "${1:-}" == "-j" ]]; then
  JOBS="$2"
  shift 2
fi

if [[ $# -gt 0 ]]; then
  FILES=("$@")
else
  mapfile -t FILES < <(find "$CORPUS/buggy" "$CORPUS/correct" -maxdepth 1 \( -name '*.cu' -o -name '*.py' \) | sort)
fi

WORK="$(mktemp -d)"
trap 'rm -rf "$WORK"' EXIT

compile_one() {
  local f="$1" base src
  base="$(basename "$f")"
  src="$f"
  if [[ "$f" == *.py ]]; then
    src="$WORK/${base%.py}.cu"
    if ! python3 "$HERE/tools/extract_cuda.py" "$f" "$src" 2>"$WORK/$base.log"; then
      echo "FAIL $f (extract)"
      cat "$WORK/$base.log"
      return 1
    fi
  fi
  if "$NVCC" -std=c++17 -arch=sm_90a -I"$REPO/runtime/include" -I"$HERE/tools" \
      -c "$src" -o "$WORK/$base.o" >"$WORK/$base.log" 2>&1; then
    if [[ -s "$WORK/$base.log" ]]; then
      echo "PASS $f (with warnings)"
      sed "s|$src|$f|g" "$WORK/$base.log"
    else
      echo "PASS $f"
    fi
    return 0
  fi
  echo "FAIL $f"
  sed "s|$src|$f|g" "$WORK/$base.log"
  return 1
}
export -f compile_one
export NVCC REPO HERE CORPUS WORK

printf '%s\n' "${FILES[@]}" | xargs -P "$JOBS" -I{} bash -c 'compile_one "$@"' _ {} \
  | tee "$WORK/results.txt"

pass=$(grep -c '^PASS' "$WORK/results.txt" || true)
fail=$(grep -c '^FAIL' "$WORK/results.txt" || true)
echo "compile: $pass passed, $fail failed (of ${#FILES[@]})"

status=0
[[ "$fail" -eq 0 ]] || status=1
if [[ $# -eq 0 ]]; then
  # Print the problems (every line that is not a per-file OK line) and the
  # summary; the status is the lint's own.
  python3 "$HERE/tools/check_annotations.py" "$CORPUS" >"$WORK/lint.txt" || status=1
  grep -Ev ': (correct|[A-Z]+-[0-9]{3})$' "$WORK/lint.txt"
fi
exit $status
