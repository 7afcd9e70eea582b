#!/usr/bin/env bash
# A long run of both fuzz harnesses with the deterministic driver (the gcc
# Release build's fuzz_wqe and fuzz_verbs, docs/fuzzing.md), one per core,
# each from its own seed, until the time is up or an input fails. This is
# how the findings since stop 42 were found: the CTest's bounded runs (seed
# 1) reach none of them.
#
#   scripts/fuzz_campaign.sh [-m MINUTES] [-s SEED] [-o DIR] [BUILD]
#
# MINUTES per harness (default 20); SEED for harness A (fuzz_wqe), SEED + 1
# for harness B (fuzz_verbs) (default 4400); DIR gets each harness's log and
# failing input (default fuzz-campaign-SEED); BUILD is a configured Release
# build (default build). The binaries are copied into DIR first, so a
# rebuild during the run does not change what runs. Prints, per harness, the
# inputs run, the rate and the failure with its reproduce command; exits 1
# if either harness failed.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
minutes=20 seed=4400 out=""
while getopts "m:s:o:" opt; do
  case "$opt" in
    m) minutes=$OPTARG ;;
    s) seed=$OPTARG ;;
    o) out=$OPTARG ;;
    *) echo "usage: $0 [-m minutes] [-s seed] [-o dir] [build]" >&2; exit 2 ;;
  esac
done
shift $((OPTIND - 1))
build=${1:-build}
out=${out:-fuzz-campaign-$seed}
case "$build" in /*) ;; *) build="$root/$build" ;; esac
for h in wqe verbs; do
  [ -x "$build/tb/fuzz/fuzz_$h" ] || {
    echo "fuzz_campaign: $build/tb/fuzz/fuzz_$h missing (cmake --build $build --target fuzz_$h)" >&2
    exit 2
  }
done
mkdir -p "$out"
out="$(cd "$out" && pwd)"
secs=$((minutes * 60))

pids=()
s=$seed
for h in wqe verbs; do
  cp "$build/tb/fuzz/fuzz_$h" "$out/fuzz_$h"
  mkdir -p "$out/$h"
  # The corpus is replayed first (tb/fuzz/corpus/<h>), as in the CTest.
  (cd "$out/$h" && RNIC_FUZZ_ARTIFACTS="$out/$h" \
     timeout "$secs" "$out/fuzz_$h" -n 1000000000 -s "$s" "$root/tb/fuzz/corpus/$h" \
     >"$out/$h.log" 2>&1) &
  pids+=($!)
  s=$((s + 1))
done
for p in "${pids[@]}"; do wait "$p" || true; done

rc=0
s=$seed
for h in wqe verbs; do
  last=$(grep -E '^fuzz: [0-9]+ inputs, ' "$out/$h.log" | tail -n 1 || true)
  fail=$(ls "$out/$h"/fuzz-failure-* 2>/dev/null | head -n 1 || true)
  echo "fuzz_$h seed $s: ${last#fuzz: }"
  if [ -n "$fail" ]; then
    rc=1
    grep -m 1 'FUZZ FAILURE' "$out/$h.log" || true
    echo "  input: $fail"
    echo "  reproduce: RNIC_FUZZ_VERBOSE=1 $build/tb/fuzz/fuzz_$h $fail"
  else
    echo "  no failure"
  fi
  s=$((s + 1))
done
exit $rc
