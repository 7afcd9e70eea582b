#!/usr/bin/env bash
# Regenerate the pictures of docs/img/ from real traces:
#   flow_<flow>.png    timing diagram of each flow program of tb/flows/
#                      (waveforms/trace_flow.sh, then waveforms/render_flow.py)
#   demo_timeline.png  per-WR phases of the demo (waveforms/render_timeline.py)
#
#   scripts/render_flows.sh [build dir]      (default: build; built first)
#
# Needs python3 with matplotlib (Debian package python3-matplotlib) and
# fst2vcd (package gtkwave). The simulation is deterministic, so the same
# RTL gives the same pictures.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
build="$(cd "${1:-$root/build}" && pwd)"
# The Python that has Debian's matplotlib (a pyenv python3 may not).
py=python3
"$py" -c "import matplotlib" 2> /dev/null || py=/usr/bin/python3
img="$root/docs/img"
mkdir -p "$img"
for flow in send_recv write read bad_rkey atomic retransmit ud_send; do
  env -u DISPLAY "$root/waveforms/trace_flow.sh" "$flow" "$build" > /dev/null
  (cd "$root/waveforms" && "$py" render_flow.py "$build/waveforms/flow_$flow.fst" "$flow" \
     "$img/flow_$flow.png" --timeline "$build/waveforms/flow_$flow.timeline.txt")
  echo "$img/flow_$flow.png"
done
RNIC_TIMELINE="$build/waveforms/demo.timeline.txt" "$build/tb/bench/rnic_demo" > /dev/null
"$py" "$root/waveforms/render_timeline.py" "$build/waveforms/demo.timeline.txt" \
  "$img/demo_timeline.png" "rnic_demo: the phases of every WR of both nodes (cycles)"
echo "$img/demo_timeline.png"
