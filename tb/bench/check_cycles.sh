#!/usr/bin/env bash
# The simulated cycle counts of a few rnic_bench_op runs against the record
# (tb/bench/cycles.recorded): every count must be the recorded one, higher or
# lower. A change that moves cycles (an RTL step, a refactor that should move
# none) then shows here, and the record and docs/performance.md are updated
# with it. Only simulated cycles are compared, never wall time.
# Usage: check_cycles.sh <rnic_bench_op> <record> [--update]
set -euo pipefail
bench=$1
record=$2
update=${3:-}
keys="cycles lat_min lat_p99 load_lat_p50 sim_cycle_end"
out=$(mktemp)
trap 'rm -f "$out"' EXIT
fail=0
while IFS= read -r line; do
	case $line in
	'#'* | '') echo "$line" >>"$out"; continue ;;
	esac
	args=${line%%|*}
	args=${args% }
	kv=$("$bench" $args --kv)
	got=""
	for k in $keys; do
		v=$(tr ' ' '\n' <<<"$kv" | sed -n "s/^$k=//p")
		got="$got $k=$v"
	done
	got=${got# }
	echo "$args | $got" >>"$out"
	want=${line#*| }
	if [ "$got" != "$want" ]; then
		echo "check_cycles: $args"
		echo "  recorded: $want"
		echo "  now:      $got"
		fail=1
	fi
done <"$record"
if [ "$update" = "--update" ]; then
	cp "$out" "$record"
	echo "check_cycles: $record updated"
	exit 0
fi
if [ $fail -ne 0 ]; then
	echo "check_cycles: simulated cycles changed; if intended, run" \
	     "$0 $bench $record --update and explain the change in docs/performance.md"
	exit 1
fi
echo "check_cycles: $(grep -vc '^#' "$record") runs, every count as recorded"
