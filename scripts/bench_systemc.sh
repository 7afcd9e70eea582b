#!/usr/bin/env bash
# What the SystemC platform costs against the native loop on the same
# workload (docs/performance.md): each program runs natively and on the
# platform N times, interleaved (both see the same machine load); every run
# must end at the same simulated cycle; prints the median CPU seconds (user
# + system) and wall seconds of each, the ratios and simulated cycles per
# CPU second, as Markdown. On a loaded machine the CPU times are the
# steadier measure.
#
#   scripts/bench_systemc.sh <build dir> [runs]   (default runs: 5)
#
# Workloads: the RDMA WRITE benchmark (busy: 64 + 64 + 16 WRs back to back),
# the demo (every opcode, one at a time), and the demo with 10 % frame loss
# (RNIC_WIRE_DROP=0.1, seed 5: retransmission timeouts, i.e. 50 M mostly
# idle cycles that both fast-forward).
set -euo pipefail
[ $# -ge 1 ] || { sed -n '2,13p' "$0" >&2; exit 2; }
b="$(cd "$1" && pwd)"
runs="${2:-5}"
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
declare -A native=([bench_write]="$b/tb/bench/rnic_bench_write" [demo]="$b/tb/bench/rnic_demo"
                   [demo_drop]="$b/tb/bench/rnic_demo")
declare -A sc=([bench_write]="$b/tb/systemc/rnic_sc_bench_write" [demo]="$b/tb/systemc/rnic_sc_demo"
               [demo_drop]="$b/tb/systemc/rnic_sc_demo")
declare -A envs=([bench_write]="" [demo]="" [demo_drop]="RNIC_WIRE_DROP=0.1 RNIC_WIRE_SEED=5")
work="bench_write demo demo_drop"
for w in $work; do
  for p in "${native[$w]}" "${sc[$w]}"; do
    [ -x "$p" ] || { echo "no $p: build it first" >&2; exit 1; }
  done
done
TIMEFORMAT='%R %U %S'
for r in $(seq "$runs"); do
  for w in $work; do
    for k in native sc; do
      if [ $k = native ]; then p="${native[$w]}"; else p="${sc[$w]}"; fi
      { time env ${envs[$w]} RNIC_TIMELINE=0 RNIC_FFWD_STATS=1 "$p" \
          >/dev/null 2>"$tmp/$w.$k.$r.err"; } 2>"$tmp/$w.$k.$r.time"
      sed -n 's/.*fast-forward [a-z]*: [0-9]* of \([0-9]*\) cycles.*/\1/p' \
        "$tmp/$w.$k.$r.err" >"$tmp/$w.$k.$r.cyc"
      cmp -s "$tmp/$w.$k.$r.cyc" "$tmp/$w.native.1.cyc" ||
        { echo "$w: $k run $r ended at another cycle" >&2; exit 1; }
    done
  done
done
median() { sort -g | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
wall() { awk '{print $1}' "$@"; }
cpu() { awk '{print $2 + $3}' "$@"; }
echo "| workload | simulated cycles | native CPU s | SystemC CPU s | SystemC / native (CPU) | native wall s | SystemC wall s | SystemC / native (wall) | native cycles/CPU s | SystemC cycles/CPU s |"
echo "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|"
for w in $work; do
  cyc=$(cat "$tmp/$w.native.1.cyc")
  nc=$(cpu "$tmp"/$w.native.*.time | median)
  sc_=$(cpu "$tmp"/$w.sc.*.time | median)
  nw=$(wall "$tmp"/$w.native.*.time | median)
  sw=$(wall "$tmp"/$w.sc.*.time | median)
  awk -v w="$w" -v c="$cyc" -v nc="$nc" -v sc="$sc_" -v nw="$nw" -v sw="$sw" 'BEGIN {
    printf "| %s | %d | %.3f | %.3f | %.2f | %.3f | %.3f | %.2f | %.3g | %.3g |\n", w, c, nc, sc,
           sc / nc, nw, sw, sw / nw, c / nc, c / sc }'
done
echo
echo "(median of $runs runs each, interleaved; seconds of the whole process)"
