#!/usr/bin/env bash
# Build the model, driver, verbs library and tests with ASan and UBSan (the
# Verilated RTL stays uninstrumented, see CMakeLists.txt) and run every test
# that runs C or C++ code (all but lint and synth).
# Any sanitizer report fails the run. Usage: scripts/test_sanitize.sh [build_dir]
set -euo pipefail
cd "$(dirname "$0")/.."
dir=${1:-build-san}
cmake -S . -B "$dir" -DCMAKE_BUILD_TYPE=Release -DRNIC_SANITIZE=ON
cmake --build "$dir" -j2
export ASAN_OPTIONS=detect_leaks=1:abort_on_error=1
export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
ctest --test-dir "$dir" -LE 'lint|synth' --output-on-failure -j2
