#!/bin/sh
# sc_trace.sh <dir> <native program> <systemc platform>
#
# Tracing on the platform (docs/systemc.md): the RTL's FST (RNIC_TRACE)
# and the platform's own signals by sc_trace (--vcd). Passes when the
# platform's FST declares the same scopes and signals as the native run's
# and has value changes at exactly the same times (values themselves are
# not compared: the IOVAs the driver maps are the program's heap addresses,
# which differ between the two executables), and when the platform's VCD
# has a clock that rose once per evaluated edge and the interrupt lines.
# The packet capture (RNIC_PCAP) of both runs must have the same frames:
# times, lengths, BTH opcodes and PSNs (tshark; payloads hold addresses).
set -u
dir=$1
native=$2
platform=$3
mkdir -p "$dir"
rm -f "$dir"/*.fst "$dir"/*.vcd
command -v fst2vcd >/dev/null || { echo "sc_trace: fst2vcd (gtkwave) not found"; exit 1; }
RNIC_TRACE="$dir/native.fst" RNIC_PCAP="$dir/native.pcap" "$native" >"$dir/native.out" 2>&1 ||
	{ echo "sc_trace: native run failed"; exit 1; }
RNIC_TRACE="$dir/systemc.fst" RNIC_PCAP="$dir/systemc.pcap" "$platform" --vcd="$dir/platform.vcd" \
	>"$dir/systemc.out" 2>&1 ||
	{ echo "sc_trace: SystemC run failed"; tail "$dir/systemc.out"; exit 1; }
fail=0
for n in native systemc; do
	fst2vcd "$dir/$n.fst" >"$dir/$n.vcd" 2>/dev/null
	sed -n '/\$scope/,/\$enddefinitions/p' "$dir/$n.vcd" >"$dir/$n.decl"
	grep '^#' "$dir/$n.vcd" >"$dir/$n.times"
done
echo "sc_trace: $(grep -c '\$var' "$dir/native.decl") signals, $(wc -l <"$dir/native.times") times (native), $(wc -l <"$dir/systemc.times") (SystemC)"
cmp -s "$dir/native.decl" "$dir/systemc.decl" || { echo "sc_trace: declarations differ"; fail=1; }
[ -s "$dir/native.times" ] && cmp -s "$dir/native.times" "$dir/systemc.times" ||
	{ echo "sc_trace: change times differ"; fail=1; }
# The platform's VCD: the clock's identifier, its rises, the irq lines.
clk=$(awk '$1 == "$var" && $5 == "clk" { print $4 }' "$dir/platform.vcd")
rises=$(grep -c "^1$clk\$" "$dir/platform.vcd")
edges=$(sed -n 's/.* \([0-9]*\) edges evaluated.*/\1/p' "$dir/systemc.out")
echo "sc_trace: platform VCD: clk rose $rises times, $edges edges evaluated"
[ -n "$clk" ] && [ "$rises" = "$edges" ] || { echo "sc_trace: clock rises differ"; fail=1; }
grep -q '\$var.* irq0 ' "$dir/platform.vcd" && grep -q '\$var.* irq1 ' "$dir/platform.vcd" ||
	{ echo "sc_trace: no irq lines"; fail=1; }
if command -v tshark >/dev/null; then
	for n in native systemc; do
		tshark -r "$dir/$n.pcap" -T fields -e frame.time_epoch -e frame.len \
			-e infiniband.bth.opcode -e infiniband.bth.psn >"$dir/$n.frames" 2>/dev/null
	done
	echo "sc_trace: pcap: $(wc -l <"$dir/native.frames") frames (native), $(wc -l <"$dir/systemc.frames") (SystemC)"
	[ -s "$dir/native.frames" ] && cmp -s "$dir/native.frames" "$dir/systemc.frames" ||
		{ echo "sc_trace: the captures differ"; fail=1; }
else
	echo "sc_trace: tshark not found, captures not compared"
fi
exit $fail
