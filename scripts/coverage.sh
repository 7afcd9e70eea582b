#!/usr/bin/env bash
# RTL coverage of the regression (docs/coverage.md).
#
# Builds the RNIC with coverage-instrumented Verilated models
# (cmake -DRNIC_COVERAGE=ON: lines, branches and the FSM cover points of
# rtl/common/rnic_fsm_cover.sv; -DRNIC_COVERAGE_TOGGLE=ON adds toggles) in
# build-cov, runs every test that simulates RTL (all but lint, synth and
# formal) with RNIC_COVERAGE_DIR set, so that every process writes its counts
# there, merges them with verilator_coverage and writes <dir>/coverage/:
#   merged.dat    all counts
#   exact.dat     the counts without the multi-process fabric's nodes
#   report.md     per module: lines, branches, FSM states, and every line and
#                 branch point never hit, with its reason from
#                 tb/coverage/reasons.txt
#   figures.json  exact.dat's per-module figures (what --check compares)
#   annotated/    the RTL sources with the count of every point
#
# Usage: scripts/coverage.sh [--check] [--record] [build_dir]
#        scripts/coverage.sh --toggle [build_dir]
#        scripts/coverage.sh --report-only [--check] [--record] build_dir
#   --check        fail when a module's line or branch figure, or the FSM
#                  states it enters, drop below tb/coverage/recorded.json
#   --record       write this run's figures to tb/coverage/recorded.json
#   --report-only  merge and report what the tests of build_dir wrote into
#                  build_dir/coverage/data (scripts/test_sanitize.sh)
#   --toggle       count signal toggles too (-DRNIC_COVERAGE_TOGGLE=ON, in
#                  build-tog): the model runs about 20 times slower than the
#                  normal one, so this run leaves out the ffwd label (the
#                  same programs again with the fast-forward off) and the
#                  fast-forward check tests; its figures are not checked
set -euo pipefail
cd "$(dirname "$0")/.."
do_check=0 record=0 report_only=0 toggle=0
dir=
for a in "$@"; do
	case $a in
	--check) do_check=1 ;;
	--record) record=1 ;;
	--report-only) report_only=1 ;;
	--toggle) toggle=1 ;;
	-*) echo "usage: $0 [--report-only|--toggle] [--check] [--record] [build_dir]" >&2; exit 2 ;;
	*) dir=$a ;;
	esac
done
if ((toggle && (do_check || record))); then
	echo "coverage: --toggle figures are not checked or recorded" >&2
	exit 2
fi
if [[ -z $dir ]]; then
	if ((toggle)); then dir=build-tog; else dir=build-cov; fi
fi
recorded=tb/coverage/recorded.json
out=$dir/coverage

if ((!report_only)); then
	skip='lint|synth|formal'
	tog=OFF
	only=()
	if ((toggle)); then
		# The fast-forward's check mode compares the whole model state
		# after a skip with the state after evaluating the same cycles;
		# the toggle counters' copies of the counters a skip advances
		# (the timers' clocks) differ, so those tests are left out too.
		skip+='|ffwd'
		only=(-E ffwd_check)
		tog=ON
	fi
	cmake -S . -B "$dir" -DCMAKE_BUILD_TYPE=Release -DRNIC_COVERAGE=ON \
		-DRNIC_COVERAGE_TOGGLE=$tog >/dev/null
	cmake --build "$dir" -j2
	rm -rf "$out"
	mkdir -p "$out/data"
	RNIC_COVERAGE_DIR=$PWD/$out/data \
		ctest --test-dir "$dir" -LE "$skip" "${only[@]}" --output-on-failure -j2
fi

shopt -s nullglob
files=("$out"/data/*.dat)
if ((${#files[@]} == 0)); then
	echo "coverage: no coverage data in $out/data (a build without -DRNIC_COVERAGE=ON?)" >&2
	exit 1
fi
# verilator_coverage sums the counts of equal points; the merged file is
# about as large as one process's. The report shows every run; the figures
# that are checked leave out the fabric's nodes (fab-*.dat): what two
# processes reach depends on how their calls interleave, so those counts
# differ from run to run.
exact=()
for f in "${files[@]}"; do
	case ${f##*/} in fab-*) ;; *) exact+=("$f") ;; esac
done
verilator_coverage --write "$out/merged.dat" "${files[@]}" >/dev/null
verilator_coverage --write "$out/exact.dat" "${exact[@]}" >/dev/null
rm -rf "$out/annotated"
verilator_coverage --annotate "$out/annotated" --annotate-min 1 "$out/merged.dat" >/dev/null
rm -rf "$out/data"

python3 scripts/coverage_report.py "$out/merged.dat" --rtl rtl --md "$out/report.md" \
	--reasons tb/coverage/reasons.txt
args=("$out/exact.dat" --rtl rtl --json "$out/figures.json")
((do_check)) && args+=(--check "$recorded" --reasons tb/coverage/reasons.txt)
python3 scripts/coverage_report.py "${args[@]}" >/dev/null
if ((record)); then
	cp "$out/figures.json" "$recorded"
	echo "coverage: recorded $recorded"
fi
echo "coverage: ${#files[@]} data files; report in $out/report.md, sources in $out/annotated"
