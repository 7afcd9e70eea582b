#!/usr/bin/env bash
# Wall-clock cost of FST tracing: runs the RDMA WRITE benchmark
# (tb/bench/bench_write.c) with tracing off, on for the whole run, on for a
# window of cycles, on for one node, and with the per-WR timeline (every
# stamp of every WR, no FST), N times each (interleaved), checks
# that the simulated cycles are the same in every run, and prints the median
# wall time and simulated cycles per second of each as a Markdown table.
#
#   scripts/bench_trace.sh [build dir] [runs]      (defaults: build, 3)
#
# Traces go to a scratch directory that is removed at the end.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
build="$(cd "${1:-$root/build}" && pwd)"
runs="${2:-3}"
bench="$build/tb/bench/rnic_bench_write"
[ -x "$bench" ] || { echo "no $bench: build first" >&2; exit 1; }
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT

modes="off full window node0 timeline"
declare -A envs=(
  [off]=""
  [full]="RNIC_TRACE=$tmp/t.fst"
  [window]="RNIC_TRACE=$tmp/t.fst RNIC_TRACE_START=20000 RNIC_TRACE_END=22000"
  [node0]="RNIC_TRACE=$tmp/t.fst RNIC_TRACE_NODES=0"
  [timeline]="RNIC_TIMELINE=$tmp/tl.txt"
)
declare -A what=(
  [off]="tracing off"
  [full]="RNIC_TRACE, every cycle of both nodes"
  [window]="RNIC_TRACE + RNIC_TRACE_START=20000 RNIC_TRACE_END=22000 (2000 of the run's ~78000 cycles)"
  [node0]="RNIC_TRACE + RNIC_TRACE_NODES=0 (one node, every cycle)"
  [timeline]="RNIC_TIMELINE (per-WR stamps of every WR, payload DMA included; no FST)"
)
for r in $(seq "$runs"); do
  for m in $modes; do
    s=$(date +%s.%N)
    env RNIC_TIMELINE=0 ${envs[$m]} "$bench" > "$tmp/$m.$r.out"
    e=$(date +%s.%N)
    awk -v s="$s" -v e="$e" 'BEGIN {print e - s}' > "$tmp/$m.$r.wall"
    size=0
    [ -f "$tmp/t.fst" ] && size=$(stat -c %s "$tmp/t.fst")
    echo "$size" > "$tmp/$m.$r.size"
    rm -f "$tmp/t.fst"
  done
done
# Simulated results (everything but the wall-clock column) must not change.
strip() { sed 's/| [0-9.e+]* |$/|/' "$1"; }
for f in "$tmp"/*.out; do
  cmp -s <(strip "$f") <(strip "$tmp/off.1.out") || { echo "simulated cycles differ: $f" >&2; exit 1; }
done
median() { sort -g | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
cps() { grep '^| 64 KiB' "$1" | awk -F'|' '{gsub(/ /,"",$11); print $11}'; }
off_wall=$(cat "$tmp"/off.*.wall | median)
echo "| tracing | wall s (median of $runs) | slowdown | 64 KiB phase: sim cycles/s (median) | FST bytes |"
echo "|---|---:|---:|---:|---:|"
for m in $modes; do
  w=$(cat "$tmp"/$m.*.wall | median)
  c=$(for r in $(seq "$runs"); do cps "$tmp/$m.$r.out"; done | median)
  sz=$(cat "$tmp"/$m.*.size | median)
  printf '| %s | %.2f | %.2fx | %s | %s |\n' "${what[$m]}" "$w" "$(awk -v w="$w" -v o="$off_wall" 'BEGIN {print w / o}')" "$c" "$sz"
done
