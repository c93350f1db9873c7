#!/usr/bin/env bash
# pkbcheck set-up. Two uses (see README), plus one for CI (docs/ci-lint.md):
#   bash setup.sh        install dependencies, build, run the main job (eval of kernels/ -> report.html)
#   bash setup.sh test   install dependencies, build, run the test suite
#   bash setup.sh build  install dependencies, build only (no tests, no Chromium, no main job)
# Installs Debian/Ubuntu packages with apt-get when run as root (or via sudo)
# and something is missing. Build directory: build/ (binary: build/bin/pkbcheck).
set -euo pipefail
cd "$(dirname "$0")"
MODE="${1:-main}"
case "$MODE" in
  main | test | build) ;;
  *)
    echo "usage: bash setup.sh [test|build]" >&2
    exit 2
    ;;
esac
JOBS="${PKB_JOBS:-$(nproc)}"

PACKAGES=(build-essential cmake ninja-build git pkg-config
  llvm-19-dev libclang-19-dev clang-19 libz3-dev
  libcli11-dev nlohmann-json3-dev libfmt-dev)
# Build mode (CI lint jobs) needs the binary only: no test or benchmark
# libraries, no clang-format.
if [ "$MODE" != build ]; then
  PACKAGES+=(libgtest-dev libgmock-dev libbenchmark-dev clang-format-19)
fi

# The test suite also renders the HTML report in headless Chromium
# and runs the libFuzzer targets (tests/fuzz) built with Clang's runtime.
if [ "$MODE" = test ]; then PACKAGES+=(chromium libclang-rt-19-dev); fi

missing=()
for p in "${PACKAGES[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "ok installed" || missing+=("$p")
done
if ((${#missing[@]})); then
  SUDO=""
  if [ "$(id -u)" != 0 ]; then SUDO="sudo"; fi
  echo "setup: installing ${missing[*]}"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi

if [ "$MODE" = build ]; then
  cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release -DPKB_WERROR=ON \
    -DPKB_BUILD_TESTS=OFF -DPKB_BUILD_BENCHMARKS=OFF
  cmake --build build -j "$JOBS" --target pkbcheck
else
  # Tests and benchmarks on explicitly: an earlier `setup.sh build` in the
  # same build directory turned them off.
  cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release -DPKB_WERROR=ON \
    -DPKB_BUILD_TESTS=ON -DPKB_BUILD_BENCHMARKS=ON
  cmake --build build -j "$JOBS"
fi

case "$MODE" in
  build)
    echo "setup: built build/bin/pkbcheck"
    ;;
  test)
    # Fuzz targets first (a fixed budget each, label `fuzz`; docs/reliability.md),
    # then the suite, whose summary closes the output.
    CC=clang-19 CXX=clang++-19 cmake -S . -B build-fuzz -G Ninja \
      -DCMAKE_BUILD_TYPE=RelWithDebInfo -DPKB_WERROR=ON \
      -DPKB_ENABLE_ANALYZER=OFF -DPKB_ENABLE_RUNTIME=OFF -DPKB_BUILD_TESTS=OFF \
      -DPKB_BUILD_BENCHMARKS=OFF -DPKB_BUILD_FUZZERS=ON \
      -DPKB_FUZZ_SECONDS="${PKB_FUZZ_SECONDS:-30}"
    cmake --build build-fuzz -j "$JOBS" --target pkb_fuzzers
    ctest --test-dir build-fuzz -L fuzz --output-on-failure
    ctest --test-dir build --output-on-failure -j "$JOBS"
    ;;
  main)
    # The main job: screen every bundled candidate statically, run the
    # survivors on GPUs when this build has the runtime and GPUs are visible,
    # and write an HTML report. Results start fresh on every set-up run.
    rm -f pkb-eval.jsonl
    build/bin/pkbcheck eval kernels/ -j "$JOBS" --progress -o pkb-eval.jsonl
    build/bin/pkbcheck report pkb-eval.jsonl --format html -o report.html
    build/bin/pkbcheck report pkb-eval.jsonl --format md -o report.md
    sed -n '1,30p' report.md
    echo "setup: records in pkb-eval.jsonl, reports in report.html and report.md"
    ;;
esac
