#!/bin/sh
# sc_timed.sh <dir> <native program> <systemc platform>
#
# The DMA timing option (docs/systemc.md): on the platform with
# --dma-timed, the memory's annotated delays set the DMA cycles instead of
# the model's latency model (left at its defaults, 50/25 cycles). With the
# memory annotating 200 cycles per read and 80 per write, every WR's WQE
# fetch (doorbell -> fetched) must take what it takes natively with the
# model's read latency at 200 (RNIC_MEM_RD_LATENCY=200
# RNIC_MEM_WR_LATENCY=80), and at least 200 cycles; the program must pass.
# Other stamps may differ by a few cycles: with an annotated delay a write's
# bytes are in memory when it is issued and only counted as visible later
# (a poll may see a CQE early).
set -u
dir=$1
native=$2
platform=$3
mkdir -p "$dir"
env RNIC_TIMELINE="$dir/native.tl" RNIC_MEM_RD_LATENCY=200 RNIC_MEM_WR_LATENCY=80 \
	"$native" >"$dir/native.out" 2>"$dir/native.err" || { echo "native run failed"; exit 1; }
env RNIC_TIMELINE="$dir/systemc.tl" "$platform" --dma-timed --mem-lat=200,80 \
	>"$dir/systemc.out" 2>"$dir/systemc.err" || { echo "SystemC run failed"; tail "$dir/systemc.err"; exit 1; }
fetch() {
	awk '/^ *[0-9]/ && $8 ~ /^[0-9]+$/ { printf "%d ", $8 - $7 } END { print "" }' "$1"
}
n=$(fetch "$dir/native.tl")
s=$(fetch "$dir/systemc.tl")
echo "sc_timed: doorbell -> fetched, native at 200/80: $n"
echo "sc_timed: doorbell -> fetched, SystemC annotated 200/80: $s"
[ -n "$n" ] && [ "$n" = "$s" ] || { echo "sc_timed: differ"; exit 1; }
for v in $s; do
	[ "$v" -ge 200 ] || { echo "sc_timed: a fetch took $v < 200 cycles"; exit 1; }
done
echo "sc_timed: ok"
