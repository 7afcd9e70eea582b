#!/bin/sh
# rc_faults_check.sh <stats file> <program> [args...]
#
# Runs a verbs program over the faulty wire the RNIC_WIRE_* variables of the
# environment describe, with RNIC_WIRE_STATS=<stats file>. Passes when the
# program passed, and for every node the RTL took every frame the wire
# delivered (CNT_RX_PKTS) and dropped exactly those that fail the ICRC
# (CNT_RX_DROP == the wire's bad count), and at least one was dropped.
set -u
stats=$1
shift
rm -f "$stats"
RNIC_WIRE_STATS="$stats" "$@"
rc=$?
if [ ! -s "$stats" ]; then
	echo "rc_faults_check: no statistics in $stats"
	exit 1
fi
cat "$stats"
awk '
$2 == "rx" { deliv[$1] = $11; bad[$1] = $13 }
$2 == "rtl" {
	pkts[$1] = $4; drop[$1] = $6
	if (NF > 6) { print "node " $1 ": the wire did not go idle"; err = 1 }
}
END {
	for (n in pkts) {
		if (pkts[n] != deliv[n] || drop[n] != bad[n]) {
			printf "node %s: RTL took %s and dropped %s frames; the wire delivered %s, %s bad\n",
			       n, pkts[n], drop[n], deliv[n], bad[n]
			err = 1
		}
		total += drop[n]
	}
	if (!total) { print "no frame was corrupted into a drop: choose another seed"; err = 1 }
	exit err
}' "$stats" || exit 1
if [ "$rc" -ne 0 ]; then
	echo "rc_faults_check: $* failed under faults (exit $rc)"
	exit 1
fi
echo "rc_faults_check: passed"
