#!/usr/bin/env bash
# A profile-guided (gcc -fprofile-use) build for long simulations: the model
# and everything else are built once with -fprofile-generate, the training
# runs below record which branches of the Verilated RTL are taken, and the
# same build directory is then rebuilt with those profiles. The simulated
# results are the same as a Release build's (the check at the end compares
# the WRITE benchmark's cycle counts); only the host code's layout changes.
# docs/performance.md ("A profile-guided build") has its speed.
#
#   scripts/build_pgo.sh [build dir]    (default: build-pgo)
#
# Then use <build dir> as a Release build: its tests, benchmarks and
# libibverbs.so.1 (perftest, pyverbs, the fabric).
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
dir="${1:-$root/build-pgo}"
ref="${RNIC_PGO_REF:-}"

configure() {
  cmake -S "$root" -B "$dir" -DCMAKE_BUILD_TYPE=Release \
        -DCMAKE_C_FLAGS="$1" -DCMAKE_CXX_FLAGS="$1" \
        -DCMAKE_EXE_LINKER_FLAGS="$2" -DCMAKE_SHARED_LINKER_FLAGS="$2" > /dev/null
}

# 1. Instrumented build of the benchmarks (the model is shared by all).
configure "-fprofile-generate -fprofile-update=single" "-fprofile-generate"
find "$dir" -name '*.gcda' -delete
cmake --build "$dir" -j2 --target rnic_bench_write rnic_bench_rate rnic_bench_op rnic_demo

# 2. Training: every opcode, large and small messages, 1 to 16 QPs.
b="$dir/tb/bench"
export RNIC_TIMELINE=0
# One host thread: with batches on two (RNIC_THREADS=auto, the default since
# stop 44) both threads update the same counters of the Verilated code and
# gcc rejects the profiles as corrupted. The batch code keeps no profile.
export RNIC_THREADS=0
"$b/rnic_demo" > /dev/null
"$b/rnic_bench_write" > /dev/null
"$b/rnic_bench_rate" 2048 > /dev/null
for op in send read write fadd; do
  "$b/rnic_bench_op" --op "$op" --size 64 --qps 16 --window 4 --msgs 2048 \
                     --poll-batch 64 > /dev/null
done
"$b/rnic_bench_op" --op send --size 4096 --qps 2 --window 8 --msgs 256 > /dev/null

# 3. The same directory rebuilt with the profiles. Sources the training did
# not run (the tests' own code) have none and are built as before.
configure "-fprofile-use -fprofile-partial-training -Wno-missing-profile" ""
cmake --build "$dir" -j2

# 4. The simulated numbers are unchanged (wall-clock column left out).
strip() { sed 's/| [0-9.e+]* |$/|/'; }
if [ -n "$ref" ]; then
  cmp <("$ref/tb/bench/rnic_bench_write" | strip) <("$b/rnic_bench_write" | strip)
  echo "build_pgo: $dir/tb/bench/rnic_bench_write prints the cycles of $ref's"
fi
echo "build_pgo: profile-guided build in $dir"
