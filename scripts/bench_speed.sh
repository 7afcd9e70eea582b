#!/usr/bin/env bash
# Simulation speed of two builds: runs the RDMA WRITE benchmark
# (tb/bench/bench_write.c) of each N times (interleaved, so both see the same
# machine load), checks that every simulated number is the same in every run
# of both, and prints the median wall and user CPU seconds of a whole run and
# the median simulated cycles per second of each phase as a Markdown table.
#
#   scripts/bench_speed.sh <base build dir> <build dir> [runs]   (default runs: 5)
#
# E.g. a build of an older commit against this tree's:
#   git archive <commit> | tar -x -C /tmp/base && cmake -S /tmp/base -B /tmp/base-build &&
#   cmake --build /tmp/base-build -j2 --target rnic_bench_write &&
#   scripts/bench_speed.sh /tmp/base-build build 5
set -euo pipefail
[ $# -ge 2 ] || { sed -n '2,13p' "$0" >&2; exit 2; }
runs="${3:-5}"
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
names="base new"
declare -A bench=([base]="$(cd "$1" && pwd)/tb/bench/rnic_bench_write"
                  [new]="$(cd "$2" && pwd)/tb/bench/rnic_bench_write")
for b in $names; do
  [ -x "${bench[$b]}" ] || { echo "no ${bench[$b]}: build it first" >&2; exit 1; }
done
TIMEFORMAT='%R %U'
for r in $(seq "$runs"); do
  for b in $names; do
    { time env RNIC_TIMELINE=0 "${bench[$b]}" > "$tmp/$b.$r.out"; } 2> "$tmp/$b.$r.time"
  done
done
# Simulated results (everything but the wall-clock column) must not change.
strip() { sed 's/| [0-9.e+]* |$/|/' "$1"; }
for f in "$tmp"/*.out; do
  cmp -s <(strip "$f") <(strip "$tmp/base.1.out") ||
    { echo "simulated numbers differ: $f" >&2; exit 1; }
done
median() { sort -g | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
cps() { grep "^| $2 " "$1" | awk -F'|' '{gsub(/ /,"",$11); print $11}'; }
echo "| build | wall s | user s | 8 B: sim cycles/s | 4 KiB: sim cycles/s | 64 KiB: sim cycles/s |"
echo "|---|---:|---:|---:|---:|---:|"
for b in $names; do
  w=$(awk '{print $1}' "$tmp"/$b.*.time | median)
  u=$(awk '{print $2}' "$tmp"/$b.*.time | median)
  row="| $b ($runs runs, medians) | $w | $u"
  for size in "8 B" "4 KiB" "64 KiB"; do
    row="$row | $(for r in $(seq "$runs"); do cps "$tmp/$b.$r.out" "$size"; done | median)"
  done
  echo "$row |"
done
bw=$(awk '{print $1}' "$tmp"/base.*.time | median)
nw=$(awk '{print $1}' "$tmp"/new.*.time | median)
bu=$(awk '{print $2}' "$tmp"/base.*.time | median)
nu=$(awk '{print $2}' "$tmp"/new.*.time | median)
awk -v bw="$bw" -v nw="$nw" -v bu="$bu" -v nu="$nu" \
  'BEGIN {printf "speedup: %.2fx wall, %.2fx user CPU\n", bw / nw, bu / nu}'
