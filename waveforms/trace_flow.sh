#!/usr/bin/env bash
# Run one flow program of tb/flows/ with a trace window around the flow, and
# open the waveform in GTKWave with the flow's layout.
#
#   waveforms/trace_flow.sh <flow> [build dir]     (default build dir: build)
#
#   flows: send_recv  write  read  bad_rkey  atomic  retransmit  ud_send
#
# The window opens at the first SQ doorbell the program posts on node 0 (its
# flow; everything before is setup) and lasts RNIC_TRACE_CYCLES cycles
# (default 2000, 4000 for retransmit) after the last one. retransmit runs
# with RNIC_WIRE_DOWN_0_TX=0:1500: node 0's link loses the WRITE's first
# copy (tb/flows/flow_retransmit.c). Writes into <build>/waveforms/:
#   flow_<flow>.fst            the waveform of both nodes
#   flow_<flow>.timeline.txt   per-WR cycle table and summary
#   flow_<flow>.json           the same WRs as Chrome/Perfetto trace JSON
# Without a display (or without gtkwave) it prints the paths and the command
# to open them instead.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
flows="send_recv write read bad_rkey atomic retransmit ud_send"
flow="${1:-}"
if [ -z "$flow" ] || ! [[ " $flows " == *" $flow "* ]]; then
  echo "usage: $0 <flow> [build dir]; flows: $flows" >&2
  exit 2
fi
build="$(cd "${2:-$here/../build}" && pwd)"
prog="$build/tb/flows/flow_$flow"
[ -x "$prog" ] || { echo "no $prog: build first (see README)" >&2; exit 1; }

out="$build/waveforms"
mkdir -p "$out"
base="$out/flow_$flow"
rm -f "$base.fst" "$base.timeline.txt" "$base.json"
cycles=2000
extra=()
if [ "$flow" = retransmit ]; then
  cycles=4000
  extra=(RNIC_WIRE_DOWN_0_TX=0:1500)
fi
env "${extra[@]}" RNIC_TRACE="$base.fst" RNIC_TRACE_QPN="any@0" \
  RNIC_TRACE_CYCLES="${RNIC_TRACE_CYCLES:-$cycles}" \
  RNIC_TIMELINE="$base.timeline.txt" RNIC_TIMELINE_JSON="$base.json" "$prog" > "$base.log"
layout="$here/flow_$flow.gtkw"
cat "$base.log"
echo "trace:    $base.fst ($(stat -c %s "$base.fst") bytes)"
echo "layout:   $layout"
echo "timeline: $base.timeline.txt (cycle of each step of each WR; cycle c at (c + 8) * 4000 + 2000 ps)"
echo "perfetto: $base.json (open in https://ui.perfetto.dev or chrome://tracing)"
if [ -n "${DISPLAY:-}" ] && command -v gtkwave > /dev/null; then
  cd "$here" && exec gtkwave "$base.fst" "$layout"
else
  echo "no display: open it with"
  echo "  cd $here && gtkwave $base.fst flow_$flow.gtkw"
fi
