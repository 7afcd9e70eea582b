#!/usr/bin/env bash
# Build the model, driver, verbs library and tests with ASan and UBSan (the
# Verilated RTL stays uninstrumented by them, see CMakeLists.txt) and run
# every test that runs C or C++ code (all but lint, synth and formal, and
# the fast-forward comparisons whose program is also a test of its own:
# label ffwd_rerun, tb/ffwd/CMakeLists.txt). Any sanitizer report fails the
# run. The tests labelled san_repeat (the fuzzers, the remaining fast-forward
# comparisons) run only here in the README's test command, not in the plain
# build's CTest run before it.
#
# The same run measures RTL coverage: the Verilated models of this build
# count lines, branches and FSM states (-DRNIC_COVERAGE=ON), and the run
# fails when a module's figure drops below tb/coverage/recorded.json
# (scripts/coverage.sh, docs/coverage.md).
# Usage: scripts/test_sanitize.sh [build_dir]
set -euo pipefail
cd "$(dirname "$0")/.."
dir=${1:-build-san}
cmake -S . -B "$dir" -DCMAKE_BUILD_TYPE=Release -DRNIC_SANITIZE=ON -DRNIC_COVERAGE=ON
cmake --build "$dir" -j2
export ASAN_OPTIONS=detect_leaks=1:abort_on_error=1
export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
rm -rf "$dir/coverage"
mkdir -p "$dir/coverage/data"
RNIC_COVERAGE_DIR=$PWD/$dir/coverage/data \
	ctest --test-dir "$dir" -LE 'lint|synth|formal|ffwd_rerun' --output-on-failure -j2
bash scripts/coverage.sh --report-only --check "$dir"
