#!/usr/bin/env bash
# Trace the demo (two nodes, SEND / SEND_IMM / WRITE / WRITE_IMM / READ) into
# an FST file and open it in GTKWave with the post/poll layout.
#
#   waveforms/trace_demo.sh [build dir]      (default: build)
#
# Without a display (or without gtkwave) it prints the paths and the command
# to open them instead.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
build="$(cd "${1:-$here/../build}" && pwd)"
demo="$build/tb/bench/rnic_demo"
[ -x "$demo" ] || { echo "no $demo: build first (see README)" >&2; exit 1; }

out="$build/waveforms"
mkdir -p "$out"
trace="$out/demo.fst"
rm -f "$trace"
RNIC_TRACE="$trace" RNIC_TIMELINE="$out/demo.timeline.txt" "$demo" > "$out/demo.log"
layout="$here/post_poll.gtkw"
echo "trace:    $trace ($(stat -c %s "$trace") bytes)"
echo "layout:   $layout"
echo "timeline: $out/demo.timeline.txt (cycle of each step of each WR; 1 cycle = 4000 ps in the trace)"
if [ -n "${DISPLAY:-}" ] && command -v gtkwave > /dev/null; then
  cd "$here" && exec gtkwave "$trace" "$layout"
else
  echo "no display: open it with"
  echo "  cd $here && gtkwave $trace post_poll.gtkw"
fi
