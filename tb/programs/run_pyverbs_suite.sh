#!/bin/sh
# run_pyverbs_suite.sh LIBDIR WORKDIR DEV TEST...
#
# Runs rdma-core's own pyverbs tests, as python3-pyverbs ships them
# (/usr/share/doc/rdma-core/tests, some files gzipped), on device DEV with
# our libibverbs.so.1 from LIBDIR. TEST names modules or single tests
# (tests.test_pd, tests.test_cq_events.CqEventsTestCase.test_cq_events_rc).
# Passes when unittest reports OK, no test failed or erred, and every skip
# gives one of the reasons below: a feature the device does not have
# (docs/verbs.md, "rdma-core's pyverbs tests"), or dma-buf memory that the
# machine cannot allocate (no GPU).
set -u
lib=$1 work=$2 dev=$3
shift 3
src=/usr/share/doc/rdma-core/tests
if [ ! -f "$src/run_tests.py" ]; then
	echo "no $src (python3-pyverbs not installed)"
	exit 1
fi
rm -rf "$work"
mkdir -p "$work"
cp -r "$src" "$work/tests"
gunzip -f "$work"/tests/*.gz
out="$work/out.txt"
cd "$work" || exit 1
LD_LIBRARY_PATH="$lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" \
	/usr/bin/python3 tests/run_tests.py --dev "$dev" -v "$@" > "$out" 2>&1
rc=$?
cat "$out"
echo "== exit $rc"
ok=1
[ $rc -eq 0 ] || ok=0
grep -Eq '^OK( \(skipped=[0-9]+\))?$' "$out" || { echo "unittest did not report OK"; ok=0; }
grep -Eq '^Ran [1-9][0-9]* tests? in' "$out" || { echo "no test ran"; ok=0; }
if grep -E '\.\.\. (FAIL|ERROR)$' "$out"; then ok=0; fi
grep -E '\.\.\. skipped ' "$out" | sed "s/.*\.\.\. skipped '//; s/'\$//" | sort -u |
while IFS= read -r why; do
	case $why in
	'Device memory is not supported'|\
	'All gid indices populated, cannot check bad flow'|\
	'Allocating dmabuf is not supported by '*|\
	'Rereg MR is not supported'*|\
	'Resize CQ is not supported'|\
	'Create XRCD is not supported'|\
	'Create Raw Packet QP '*'is not supported'|\
	'Extended QP is not supported on this device'|\
	'Importing a device is not supported')
		echo "skip allowed: $why" ;;
	*)
		echo "skip not allowed: $why"
		echo bad > "$work/bad_skip" ;;
	esac
done
[ -f "$work/bad_skip" ] && ok=0
[ $ok -eq 1 ] && echo PASS || echo FAIL
[ $ok -eq 1 ]
