#!/usr/bin/env bash
# Coverage-guided fuzzing of one harness with libFuzzer (clang from Debian),
# with ASan, UBSan and LSan (docs/fuzzing.md).
#
#   scripts/fuzz.sh <wqe|verbs> [<N>|<N>s|<N>r] [libFuzzer options...]
#
# <N> or <N>s: run for N seconds (default 600); <N>r: N inputs. The build is
# build-fuzz (or $RNIC_FUZZ_BUILD), configured on first use with clang,
# ASan and UBSan everywhere, -fsanitize=fuzzer-no-link for the C code
# (harnesses, verbs library, driver) and the cheaper edge counters
# (-fsanitize-coverage=inline-8bit-counters,pc-table) for the C++ code (the
# model and the Verilated RTL: coverage of the RTL's branches guides the
# fuzzer without comparison tracing in every eval), and -DRNIC_LIBFUZZER=ON. The working corpus is <build>/corpus/<harness>,
# seeded from tb/fuzz/corpus/<harness>; crashes, timeouts and leaks go to
# <build>/artifacts/<harness>/. Known findings are excluded as in the CTest
# (tb/fuzz/findings/EXCLUDE) unless RNIC_FUZZ_EXCLUDE is set (none: all).
# Reproduce an artifact: <build>/tb/fuzz/fuzz_<harness>_lf <file>; the gcc
# build's fuzz_<harness> runs it too (RNIC_FUZZ_VERBOSE=1 to see each step).
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
h="${1:-}"
case "$h" in
  wqe|verbs) ;;
  *) echo "usage: $0 <wqe|verbs> [<seconds>|<seconds>s|<runs>r] [libFuzzer options]" >&2
     exit 2 ;;
esac
limit="${2:-600}"
shift $(( $# >= 2 ? 2 : 1 ))
case "$limit" in
  *r) lim_opt="-runs=${limit%r}" ;;
  *s) lim_opt="-max_total_time=${limit%s}" ;;
  *)  lim_opt="-max_total_time=$limit" ;;
esac

# clang and its runtime (libFuzzer, sanitizers) from Debian, if missing.
missing=""
for p in clang libclang-rt-14-dev; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" ||
    missing="$missing $p"
done
if [ -n "$missing" ]; then
  echo "installing:$missing"
  sudo=""
  [ "$(id -u)" = 0 ] || sudo="sudo"
  export DEBIAN_FRONTEND=noninteractive
  $sudo apt-get update -qq
  $sudo apt-get install -y -qq --no-install-recommends $missing
fi

build="${RNIC_FUZZ_BUILD:-$root/build-fuzz}"
if [ ! -f "$build/CMakeCache.txt" ]; then
  cmake -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=Release \
    -DCMAKE_C_COMPILER=clang -DCMAKE_CXX_COMPILER=clang++ \
    -DCMAKE_C_FLAGS="-fsanitize=fuzzer-no-link -g" \
    -DCMAKE_CXX_FLAGS="-fsanitize-coverage=inline-8bit-counters,pc-table -g" \
    -DRNIC_SANITIZE=ON -DRNIC_LIBFUZZER=ON
fi
cmake --build "$build" -j2 --target "fuzz_${h}_lf"

corpus="$build/corpus/$h"
artifacts="$build/artifacts/$h"
mkdir -p "$corpus" "$artifacts"
if [ -z "${RNIC_FUZZ_EXCLUDE+x}" ]; then
  RNIC_FUZZ_EXCLUDE="$(grep -v '^#' "$root/tb/fuzz/findings/EXCLUDE" | awk 'NF{print $1}' |
                       paste -sd, -)"
  export RNIC_FUZZ_EXCLUDE
fi
export ASAN_OPTIONS="${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=1}"
export UBSAN_OPTIONS="${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}"
echo "fuzz_${h}_lf: $lim_opt, excluded findings: ${RNIC_FUZZ_EXCLUDE:-none}"
cd "$build"
# -len_control=0: whole programs from the start (every input finds new RTL
# counters, so libFuzzer would otherwise stay at inputs of a few bytes).
exec "$build/tb/fuzz/fuzz_${h}_lf" "$lim_opt" -max_len=2048 -len_control=0 -timeout=300 \
  -rss_limit_mb=4096 -print_final_stats=1 -artifact_prefix="$artifacts/" "$@" \
  "$corpus" "$root/tb/fuzz/corpus/$h"
