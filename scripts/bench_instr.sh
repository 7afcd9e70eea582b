#!/usr/bin/env bash
# Host instructions per verbs data-path call (tb/bench/bench_instr.c),
# counted by valgrind's callgrind, which makes the count exact and
# reproducible. Target: <= 100 per ibv_post_send (one SGE) and per polled
# CQE, simulation excluded.
#
# The program switches callgrind's instrumentation and collection on only
# around each measured loop and dumps the counts under the operation's name;
# the simulation runs uninstrumented in between. This script runs it under
# callgrind, reads the dumps and prints a markdown table, one row per
# measured loop:
#
#   Ir/unit     all instructions of the loop / WRs posted or CQEs polled
#   verbs call  of these, inside the library call (inclusive: libverbs,
#               and the model's MMIO write queue it calls for the doorbell)
#   doorbell    of these, in rnic_sim_mmio_write() (queues the posted MMIO
#               write in the model; no simulated cycle runs)
#   caller      the rest: the benchmark's loop around the call (the inline
#               ibv_post_send()/ibv_poll_cq() of verbs.h, the sum of return
#               codes, the loop counter)
#
# All rows are steady state: the program's unmeasured warm-up has already
# grown the model's MMIO queues to K pending doorbells once. post_send is
# measured in three rounds (rows 1, 2, 4); they must agree.
#
# Usage: scripts/bench_instr.sh [build_dir] [--annotate]
#   build_dir   default: build
#   --annotate  also print callgrind_annotate --inclusive=yes of each dump
# Environment: KEEP=1 keeps the callgrind files (their directory is printed).
set -euo pipefail

build=build
annotate=0
for a in "$@"; do
	case "$a" in
	--annotate) annotate=1 ;;
	-h | --help)
		sed -n '2,/^set -e/p' "$0" | sed '$d; s/^# \{0,1\}//'
		exit 0
		;;
	*) build=$a ;;
	esac
done

bin=$build/tb/bench/rnic_bench_instr
if [ ! -x "$bin" ]; then
	echo "bench_instr.sh: $bin not found; build it with" >&2
	echo "  cmake --build $build --target rnic_bench_instr" >&2
	exit 1
fi
command -v valgrind >/dev/null || {
	echo "bench_instr.sh: valgrind not installed (Debian package valgrind)" >&2
	exit 1
}

dir=$(mktemp -d)
if [ "${KEEP:-0}" = 1 ]; then
	echo "callgrind files kept in $dir" >&2
else
	trap 'rm -rf "$dir"' EXIT
fi

# LD_BIND_NOW: no lazy PLT resolution inside a bracket (the program warms up
# too). Only the instructions between the client requests are counted.
if ! LD_BIND_NOW=1 valgrind --tool=callgrind --instr-atstart=no \
	--collect-atstart=no --callgrind-out-file="$dir/cg.out" \
	--log-file="$dir/valgrind.log" "$bin" >"$dir/stdout"; then
	cat "$dir/stdout" "$dir/valgrind.log" >&2
	echo "bench_instr.sh: the benchmark failed" >&2
	exit 1
fi

mapfile -t runs < <(grep '^BENCH ' "$dir/stdout")
[ "${#runs[@]}" -gt 0 ] || {
	echo "bench_instr.sh: no BENCH lines in the output" >&2
	exit 1
}

# One dump: "label total calls_from_bench incl_of_those mmio_write_incl".
# Callgrind format: fn=/cfn=/ob=/cob= name compressed as "(id) name" on
# first use in a file, "(id)" afterwards; "calls=N target" is followed by a
# cost line whose last field is the inclusive Ir of those calls.
parse_dump() {
	awk '
	function name(s, kind,   id) {
		sub(/^[a-z]+=/, "", s)
		if (match(s, /^\([0-9]+\)/)) {
			id = kind substr(s, 1, RLENGTH)
			s = substr(s, RLENGTH + 1)
			sub(/^ /, "", s)
			if (s != "")
				names[id] = s
			return names[id]
		}
		return s
	}
	/^desc: Trigger: Client Request: / {
		label = $0
		sub(/^desc: Trigger: Client Request: /, "", label)
	}
	/^summary: / { total = $2 }
	/^ob=/ { ob = name($0, "o"); next }
	/^fn=/ { name($0, "f"); next }
	/^cob=/ { cob = name($0, "o"); next }
	/^cfn=/ { cfn = name($0, "f"); next }
	/^calls=/ {
		split($1, c, "=")
		ncalls = c[2]
		incall = 1
		next
	}
	incall && /^[-+*0-9]/ {
		tob = cob != "" ? cob : ob
		if (ob ~ /rnic_bench_instr$/ && tob !~ /rnic_bench_instr$/) {
			bcalls += ncalls
			bincl += $NF
		}
		if (cfn == "rnic_sim_mmio_write")
			mmio += $NF
		incall = 0
		cob = ""
	}
	END { printf "%s %d %d %d %d\n", label, total, bcalls, bincl, mmio }
	' "$1"
}

printf '| # | operation | calls | WRs/CQEs | Ir total | Ir per WR/CQE | verbs call | doorbell (model queue) | caller loop |\n'
printf '|---:|---|---:|---:|---:|---:|---:|---:|---:|\n'
i=0
for r in "${runs[@]}"; do
	i=$((i + 1))
	read -r _ label calls units <<<"$r"
	f=$dir/cg.out.$i
	[ -f "$f" ] || { echo "bench_instr.sh: $f missing" >&2; exit 1; }
	read -r dlabel total bcalls bincl mmio < <(parse_dump "$f")
	if [ "$dlabel" != "$label" ] || [ "$bcalls" != "$calls" ]; then
		echo "bench_instr.sh: dump $i is '$dlabel' with $bcalls calls; expected '$label' with $calls" >&2
		exit 1
	fi
	awk -v i="$i" -v l="$label" -v c="$calls" -v u="$units" -v t="$total" \
		-v b="$bincl" -v m="$mmio" 'BEGIN {
		printf "| %d | %s | %d | %d | %d | **%.1f** | %.1f | %.1f | %.1f |\n",
		       i, l, c, u, t, t / u, b / u, m / u, (t - b) / u
	}'
	if [ "$annotate" = 1 ]; then
		ann+=$'\n'"### dump $i: $label"$'\n\n```\n'
		ann+=$(callgrind_annotate --inclusive=yes --threshold=100 "$f")
		ann+=$'\n```\n'
	fi
done
printf '\nPer-unit columns are divided by WRs or CQEs (for poll_cq_16, 16 CQEs per call).\n'
printf 'valgrind --tool=callgrind --instr-atstart=no --collect-atstart=no, LD_BIND_NOW=1; %s\n' \
	"$(valgrind --version)"
if [ "$annotate" = 1 ]; then
	printf '%s\n' "$ann"
fi
