#!/bin/sh
# perftest_pair.sh [BUILD] TOOL ARGS...
#
# Runs one of perftest's tools (Debian's binary) as a server on rnic1 and a
# client on rnic0, two processes on one rnic-fabric (docs/fabric.md), and
# prints what perftest printed, what the client's per-WR timeline says the
# simulated NIC reached (throughput and post -> CQE cycles), and the wall
# time. Example: scripts/perftest_pair.sh ib_write_bw -x 0 -n 1000 -s 4096
set -u
build=build
if [ -d "${1:-}" ]; then
	build=$1
	shift
fi
tool=$1
shift
build=$(cd "$build" && pwd)
dir=$(mktemp -d /tmp/rnic_perftest.XXXXXX)
port=$((20000 + $$ % 10000))
export LD_LIBRARY_PATH="$build/libverbs" RNIC_FABRIC="$dir/fabric"
export RNIC_FABRIC_BIN="$build/model/rnic-fabric"

"$RNIC_FABRIC_BIN" --quiet "$dir/fabric" > "$dir/fabric.out" 2>&1 &
fpid=$!
t0=$(date +%s.%N)
"$tool" -d rnic1 -p $port "$@" > "$dir/server.out" 2>&1 &
spid=$!
# The client may only start once the server listens on its TCP port.
hex=$(printf '%04X' $port)
until awk -v p=":$hex" '$4 == "0A" && substr($2, length($2) - 4) == p { f = 1 } END { exit !f }' \
	/proc/net/tcp /proc/net/tcp6 2>/dev/null; do
	kill -0 $spid 2>/dev/null || break
	sleep 0.02
done
RNIC_TIMELINE="$dir/timeline.txt" "$tool" -d rnic0 -p $port "$@" 127.0.0.1 > "$dir/client.out" 2>&1
crc=$?
wait $spid
src=$?
t1=$(date +%s.%N)
kill -TERM $fpid
wait $fpid

echo "== $tool $* (client exit $crc, server exit $src)"
sed -n '/#bytes/,$p' "$dir/client.out" | grep -v '^-*$'
echo "== simulated (client's timeline, 4 ns cycles)"
sed -n '/post->cqe cycles by opcode/,/where the cycles went/p' "$dir/timeline.txt" | grep -v 'where the cycles'
echo "== wall: $(echo "$t1 - $t0" | bc) s"
rm -rf "$dir"
[ $crc -eq 0 ] && [ $src -eq 0 ]
