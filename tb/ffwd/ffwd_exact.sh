#!/bin/sh
# ffwd_exact.sh <dir> <program> [args...]
#
# Proof that the fast-forward and the edge-only evaluation change nothing
# simulated (docs/time-model.md): runs a verbs program twice, once with the
# plain cycle loop (RNIC_FFWD=0 RNIC_EVAL_ALL=1: every clock level of every
# cycle evaluated with eval()) and once with the defaults, each with its
# per-WR timeline (RNIC_TIMELINE) and its final cycle (RNIC_FFWD_STATS).
# Passes when both runs exit 0, their timelines (every stamp of every WR)
# and final cycles are identical, their outputs too (the last column of
# markdown table rows, which benchmarks use for wall-clock rates, and the
# RNIC_FFWD value a benchmark prints left out), and the default run skipped
# cycles (else nothing was shown). The default run also lets a quiet node
# lag while the other works (its edges taken later as one skip); the
# summary says how many node-edges it left out so, and FFWD_EXACT_LAGS=1
# requires some (else the lags were not shown).
#
# FFWD_EXACT_MODE=check: the second run is RNIC_FFWD=check, which evaluates
# every skipped edge as well and aborts unless the RTL state after them is
# byte for byte the state the skip gave.
#
# FFWD_EXACT_THREADS=1: the second run has RNIC_THREADS=2 (batches of
# cycles with each node on a host thread of its own, docs/time-model.md),
# and some of its cycles must have run so; otherwise it has the default
# (auto: batches while they are faster than one thread).
set -u
dir=$1
shift
mode=${FFWD_EXACT_MODE:-1}
mkdir -p "$dir"

run() {
	name=$1
	shift
	rm -f "$dir/$name.tl"
	env "$@" RNIC_TIMELINE="$dir/$name.tl" RNIC_FFWD_STATS=1 "$prog" $args \
		>"$dir/$name.out" 2>"$dir/$name.err"
	echo $? >"$dir/$name.rc"
	# Final cycle and cycles skipped, from the stats line at exit.
	sed -n 's/.*fast-forward [a-z]*: \([0-9]*\) of \([0-9]*\) cycles.*alone: \([0-9]*\) .*/\2 \1 \3/p' \
		"$dir/$name.err" | tail -n 1 >"$dir/$name.cyc"
	# Tables: the last column is wall-clock; the mode a benchmark prints.
	sed -e '/^|/s/|[^|]*|[[:space:]]*$/|/' -e 's/RNIC_FFWD=[^) ]*//' \
		"$dir/$name.out" >"$dir/$name.cmp"
}

prog=$1
shift
args="$*"
# The second run's host threads: RNIC_THREADS=2 for FFWD_EXACT_THREADS=1,
# else the default (auto: batches where they are faster).
threads=auto
[ "${FFWD_EXACT_THREADS:-0}" = 1 ] && threads=2
run plain RNIC_FFWD=0 RNIC_EVAL_ALL=1 RNIC_THREADS=0
run fast RNIC_FFWD=$mode RNIC_EVAL_ALL=0 RNIC_THREADS=$threads

fail=0
for n in plain fast; do
	if [ "$(cat "$dir/$n.rc")" != 0 ]; then
		echo "ffwd_exact: $prog ($n) exited $(cat "$dir/$n.rc"):"
		tail -n 20 "$dir/$n.err"
		fail=1
	fi
	if [ ! -s "$dir/$n.cyc" ]; then
		echo "ffwd_exact: $prog ($n): no fast-forward statistics at exit"
		fail=1
	fi
done
[ "$fail" = 0 ] || exit 1
read -r pc ps _ <"$dir/plain.cyc"
read -r fc fs fl <"$dir/fast.cyc"
echo "ffwd_exact: $prog: final cycle $pc (plain) $fc (RNIC_FFWD=$mode), $fs cycles skipped," \
	"$fl node-edges lagged"
if [ "$pc" != "$fc" ]; then
	echo "ffwd_exact: final cycles differ"
	fail=1
fi
if [ "$fs" = 0 ]; then
	echo "ffwd_exact: nothing was skipped"
	fail=1
fi
if [ "$threads" = 2 ]; then
	bc=$(sed -n 's/.*two threads[^:]*: \([0-9]*\) cycles in \([0-9]*\) batches.*/\1 \2/p' \
		"$dir/fast.err" | tail -n 1)
	echo "ffwd_exact: RNIC_THREADS=2: cycles and batches on two threads: ${bc:-none}"
	case "$bc" in
	"" | 0*)
		echo "ffwd_exact: no cycle ran on two threads"
		fail=1
		;;
	esac
fi
if [ "${FFWD_EXACT_LAGS:-0}" = 1 ] && [ "${fl:-0}" = 0 ]; then
	echo "ffwd_exact: no node lagged"
	fail=1
fi
# A program that posts no WR writes no timeline.
if { [ -e "$dir/plain.tl" ] || [ -e "$dir/fast.tl" ]; } &&
   ! cmp -s "$dir/plain.tl" "$dir/fast.tl"; then
	echo "ffwd_exact: timelines differ:"
	diff "$dir/plain.tl" "$dir/fast.tl" | head -n 20
	fail=1
fi
if ! cmp -s "$dir/plain.cmp" "$dir/fast.cmp"; then
	echo "ffwd_exact: outputs differ:"
	diff "$dir/plain.cmp" "$dir/fast.cmp" | head -n 20
	fail=1
fi
[ -s "$dir/plain.tl" ] && echo "ffwd_exact: $(grep -c '^ *[0-9]' "$dir/plain.tl") WR rows compared"
exit $fail
