#!/bin/sh
# sc_exact.sh <dir> <native program> <systemc platform> [platform options...]
#
# Proof that the SystemC platform runs the model cycle for cycle like the
# native loop (docs/systemc.md): runs the same verbs program natively and
# inside the SystemC platform, in the same environment (faults, latencies:
# set by the caller), each with its per-WR timeline (RNIC_TIMELINE: every
# stamp of every WR - posted, doorbell, fetched, DMA, sent, arrived,
# placed, acked, CQE, polled) and its final cycle (RNIC_FFWD_STATS). Passes
# when both exit 0 and their timelines, final cycles and outputs (but the
# last column of markdown table rows: wall-clock rates) are identical. SC_EXACT_EXPECT_FAULTS=1 also requires the wire to have
# dropped, corrupted, duplicated or reordered frames, as many in both
# (native: RNIC_WIRE_STATS, in a third run since it runs the model after
# the program; SystemC: the link's counts the platform prints), and both
# runs' RNIC_WIRE_STATS identical. SC_EXACT_WIRE_STATS=1: the last alone.
set -u
dir=$1
native=$2
platform=$3
shift 3
mkdir -p "$dir"

run() {
	name=$1
	shift
	rm -f "$dir/$name.tl"
	env RNIC_TIMELINE="$dir/$name.tl" RNIC_FFWD_STATS=1 "$@" \
		>"$dir/$name.out" 2>"$dir/$name.err"
	echo $? >"$dir/$name.rc"
	sed -n 's/.*fast-forward [a-z]*: \([0-9]*\) of \([0-9]*\) cycles.*/\2/p' \
		"$dir/$name.err" | tail -n 1 >"$dir/$name.cyc"
	# Tables: the last column is a wall-clock rate.
	sed -e '/^|/s/|[^|]*|[[:space:]]*$/|/' "$dir/$name.out" >"$dir/$name.cmp"
}

run native "$native"
run systemc "$platform" "$@"

fail=0
for n in native systemc; do
	if [ "$(cat "$dir/$n.rc")" != 0 ]; then
		echo "sc_exact: $n run exited $(cat "$dir/$n.rc"):"
		tail -n 20 "$dir/$n.err"
		fail=1
	fi
	if [ ! -s "$dir/$n.cyc" ] || [ ! -s "$dir/$n.tl" ]; then
		echo "sc_exact: $n run: no final cycle or no timeline"
		fail=1
	fi
done
[ "$fail" = 0 ] || exit 1
echo "sc_exact: final cycle $(cat "$dir/native.cyc") (native) $(cat "$dir/systemc.cyc") (SystemC)"
grep '^sc_platform:' "$dir/systemc.err"
if ! cmp -s "$dir/native.cyc" "$dir/systemc.cyc"; then
	echo "sc_exact: final cycles differ"
	fail=1
fi
if ! grep -q "edges evaluated" "$dir/systemc.err"; then
	echo "sc_exact: the SystemC run did not report its platform counts"
	fail=1
fi
if ! cmp -s "$dir/native.tl" "$dir/systemc.tl"; then
	echo "sc_exact: timelines differ:"
	diff "$dir/native.tl" "$dir/systemc.tl" | head -n 20
	fail=1
fi
if ! cmp -s "$dir/native.cmp" "$dir/systemc.cmp"; then
	echo "sc_exact: outputs differ:"
	diff "$dir/native.cmp" "$dir/systemc.cmp" | head -n 20
	fail=1
fi
if [ "${SC_EXACT_EXPECT_FAULTS:-0}" = 1 ] || [ "${SC_EXACT_WIRE_STATS:-0}" = 1 ]; then
	# Runs of their own: the statistics run the model after the program.
	rm -f "$dir/native.wire" "$dir/systemc.wire"
	RNIC_WIRE_STATS="$dir/native.wire" "$native" >/dev/null 2>&1
	RNIC_WIRE_STATS="$dir/systemc.wire" "$platform" "$@" >/dev/null 2>&1
	if [ ! -s "$dir/native.wire" ] || ! cmp -s "$dir/native.wire" "$dir/systemc.wire"; then
		echo "sc_exact: RNIC_WIRE_STATS differ:"
		diff "$dir/native.wire" "$dir/systemc.wire" | head -n 20
		fail=1
	else
		echo "sc_exact: RNIC_WIRE_STATS identical ($(grep -c ' tx \| rx ' "$dir/native.wire") link directions)"
	fi
fi
if [ "${SC_EXACT_EXPECT_FAULTS:-0}" = 1 ]; then
	# Columns: node dir frames dropped corrupted duplicated reordered ...
	nf=$(awk '$2 == "tx" || $2 == "rx" { s += $4 + $5 + $6 + $7 } END { print s + 0 }' \
		"$dir/native.wire" 2>/dev/null)
	sf=$(sed -n 's/.*link faults: \([0-9]*\).*/\1/p' "$dir/systemc.err")
	echo "sc_exact: frames dropped, corrupted, duplicated or reordered: ${nf:-0} (native) ${sf:-0} (SystemC)"
	if [ "${nf:-0}" = 0 ] || [ "${nf:-0}" != "${sf:-0}" ]; then
		echo "sc_exact: no faults, or not the same ones"
		fail=1
	fi
fi
echo "sc_exact: $(grep -c '^ *[0-9]' "$dir/native.tl") WR rows compared"
exit $fail
