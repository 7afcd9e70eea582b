#!/bin/sh
# run_pair.sh FABRIC_BIN LIBDIR WORKDIR PORT EXPECT PROG ARGS...
#
# Runs an unmodified RDMA program as a server on rnic1 and as a client on
# rnic0, two processes on one rnic-fabric (docs/fabric.md), with our
# libibverbs.so.1 in LIBDIR. Passes when both exit 0, the switch stops
# cleanly on SIGTERM, and each program's output matches every extended
# regular expression of EXPECT (separated by %%: the lines that report what
# was transferred; one written client:RE applies to the client only).
#
# perftest converts its TSC readings to microseconds with a CPU frequency it
# samples against gettimeofday() (get_cpu_mhz()); when the host preempts it
# at the wrong moment the fit fails ("Correlation coefficient r^2: ... <
# 0.9"), and perftest prints inf or refuses to report. That is the host's
# clock, not the NIC: such a run, and only such a run, is repeated (at most
# three runs), and each repetition says so.
set -u
fab=$1 lib=$2 dir=$3 port=$4 expect=$5
shift 5
export LD_LIBRARY_PATH="$lib" RNIC_FABRIC="$dir/fabric" RNIC_FABRIC_BIN="$fab"

# One run; the program and its arguments are the function's.
run_once() {
	rm -rf "$dir"
	mkdir -p "$dir"

	"$fab" "$dir/fabric" > "$dir/fabric.out" 2>&1 &
	fpid=$!
	n=0
	while [ ! -S "$dir/fabric/node1.sock" ] && [ $n -lt 500 ]; do sleep 0.02; n=$((n + 1)); done

	timeout 600 "$@" -d rnic1 -p "$port" > "$dir/server.out" 2>&1 &
	spid=$!
	# The client may only start once the server listens on its TCP port.
	hex=$(printf '%04X' "$port")
	n=0
	until awk -v p=":$hex" '$4 == "0A" && substr($2, length($2) - 4) == p { f = 1 } END { exit !f }' \
		/proc/net/tcp /proc/net/tcp6 2>/dev/null; do
		if ! kill -0 $spid 2>/dev/null || [ $n -ge 3000 ]; then
			echo "server did not start listening"; cat "$dir/server.out"
			kill $spid $fpid 2>/dev/null; return 1
		fi
		sleep 0.02
		n=$((n + 1))
	done

	timeout 600 "$@" -d rnic0 -p "$port" 127.0.0.1 > "$dir/client.out" 2>&1
	crc=$?
	wait $spid
	src=$?
	kill -TERM $fpid
	wait $fpid
	frc=$?

	echo "== server (rnic1), exit $src"; cat "$dir/server.out"
	echo "== client (rnic0), exit $crc"; cat "$dir/client.out"
	echo "== rnic-fabric, exit $frc"; cat "$dir/fabric.out"
	ok=1
	[ $src -eq 0 ] && [ $crc -eq 0 ] && [ $frc -eq 0 ] || ok=0
	rest=$expect
	while [ -n "$rest" ]; do
		re=${rest%%\%\%*}
		[ "$re" = "$rest" ] && rest="" || rest=${rest#*%%}
		sides="server client"
		case $re in
		client:*) re=${re#client:}; sides=client ;;
		esac
		for side in $sides; do
			grep -Eq "$re" "$dir/$side.out" || { echo "$side output lacks /$re/"; ok=0; }
		done
	done
	[ $ok -eq 1 ]
}

attempt=1
while :; do
	if run_once "$@"; then
		echo PASS
		exit 0
	fi
	if [ $attempt -ge 3 ] || ! grep -qF "Correlation coefficient r^2" "$dir/server.out" "$dir/client.out" 2>/dev/null; then
		echo FAIL
		exit 1
	fi
	attempt=$((attempt + 1))
	echo "== perftest could not calibrate its clock (above); run $attempt of at most 3"
done
