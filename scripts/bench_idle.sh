#!/usr/bin/env bash
# Wall-clock cost of idle simulated time: runs tb/bench/bench_idle.c (20,000
# empty polls on an idle device, a 1.05 ms ACK timeout, a 1.28 ms RNR wait)
# with the plain cycle loop (RNIC_FFWD=0 RNIC_EVAL_ALL=1), with the
# edge-only evaluation alone (RNIC_FFWD=0) and with the defaults (fast-forward
# on), N times each (interleaved); checks that the simulated cycles are the
# same in every run and prints the median wall time of each wait and the
# ratio plain / default as a Markdown table.
#
#   scripts/bench_idle.sh [build dir] [runs]      (defaults: build, 3)
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
build="$(cd "${1:-$root/build}" && pwd)"
runs="${2:-3}"
bench="$build/tb/bench/rnic_bench_idle"
[ -x "$bench" ] || { echo "no $bench: build first" >&2; exit 1; }
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT

modes="plain edge ffwd"
declare -A envs=(
  [plain]="RNIC_FFWD=0 RNIC_EVAL_ALL=1"
  [edge]="RNIC_FFWD=0 RNIC_EVAL_ALL=0"
  [ffwd]="RNIC_FFWD=1 RNIC_EVAL_ALL=0"
)
for r in $(seq "$runs"); do
  for m in $modes; do
    env ${envs[$m]} "$bench" > "$tmp/$m.$r.out"
  done
done

# Rows of the benchmark's table: | wait | cycles | ms simulated | wall ms |
rows() { grep '^| [0-9A-Z]' "$1" | grep -v '^| wait'; }
ref="$(rows "$tmp/plain.1.out" | cut -d'|' -f2-4)"
for f in "$tmp"/*.out; do
  [ "$(rows "$f" | cut -d'|' -f2-4)" = "$ref" ] ||
    { echo "simulated cycles differ in $f" >&2; exit 1; }
done

median() { sort -g | awk '{a[NR] = $1} END {print (NR % 2) ? a[(NR + 1) / 2] : (a[NR / 2] + a[NR / 2 + 1]) / 2}'; }
echo "| wait | simulated cycles | plain loop, wall ms | edge-only eval, wall ms | fast-forward, wall ms | plain / fast-forward |"
echo "|---|---:|---:|---:|---:|---:|"
nrows=$(rows "$tmp/plain.1.out" | wc -l)
for i in $(seq "$nrows"); do
  name="$(rows "$tmp/plain.1.out" | sed -n "${i}p" | cut -d'|' -f2 | sed 's/^ *//; s/ *$//')"
  cyc="$(rows "$tmp/plain.1.out" | sed -n "${i}p" | cut -d'|' -f3 | tr -d ' ')"
  declare -A med=()
  for m in $modes; do
    med[$m]="$(for r in $(seq "$runs"); do rows "$tmp/$m.$r.out" | sed -n "${i}p" |
                cut -d'|' -f5 | tr -d ' '; done | median)"
  done
  awk -v n="$name" -v c="$cyc" -v p="${med[plain]}" -v e="${med[edge]}" -v f="${med[ffwd]}" \
    'BEGIN { printf "| %s | %s | %.1f | %.1f | %.2f | %.0fx |\n", n, c, p, e, f, p / f }'
done
echo
echo "Medians of $runs runs each; $(nproc) cores, load average $(cut -d' ' -f1-3 /proc/loadavg)."
