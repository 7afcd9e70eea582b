#!/usr/bin/env bash
# One formal proof of a block contract: Yosys reads the RTL and a property
# wrapper from tb/formal/, writes an SMT-LIB2 model, and yosys-smtbmc (z3)
# checks it, bounded (BMC) and, with --ind, by k-induction. docs/verification.md.
#
# Usage: formal.sh --name NAME --top WRAPPER --depth N [--ind]
#                  [--define D]... [--mutate FILE SED] [--expect-fail]
#                  [--out DIR] -- FILE...
#   --mutate FILE SED  prove a copy of FILE edited by the sed expression SED,
#                      which must change exactly one line (the injected bug)
#   --expect-fail      succeed only if an assertion fails (the proof catches
#                      the injected bug); its trace is kept as a VCD
# A failing proof prints the counterexample's VCD path (GTKWave opens it).
set -euo pipefail
name="" top="" depth="" ind=0 expect_fail=0 out="" mut_file="" mut_sed=""
defines=()
while [ $# -gt 0 ]; do
  case "$1" in
    --name) name=$2; shift 2 ;;
    --top) top=$2; shift 2 ;;
    --depth) depth=$2; shift 2 ;;
    --ind) ind=1; shift ;;
    --define) defines+=("-D$2"); shift 2 ;;
    --mutate) mut_file=$2; mut_sed=$3; shift 3 ;;
    --expect-fail) expect_fail=1; shift ;;
    --out) out=$2; shift 2 ;;
    --) shift; break ;;
    *) echo "formal.sh: unknown option $1" >&2; exit 2 ;;
  esac
done
[ -n "$name" ] && [ -n "$top" ] && [ -n "$depth" ] && [ $# -gt 0 ] || {
  echo "usage: formal.sh --name NAME --top WRAPPER --depth N [--ind] [--expect-fail] -- FILE..." >&2
  exit 2
}
out=${out:-${TMPDIR:-/tmp}/rnic-formal}/$name
rm -rf "$out"
mkdir -p "$out"

files=()
for f in "$@"; do
  if [ -n "$mut_file" ] && [ "$(basename "$f")" = "$(basename "$mut_file")" ]; then
    m="$out/$(basename "$f")"
    sed -e "$mut_sed" "$f" >"$m"
    n=$(diff "$f" "$m" | grep -c '^>' || true)
    if [ "$n" != 1 ]; then
      echo "formal.sh: the mutation '$mut_sed' changed $n lines of $f (must be 1)" >&2
      exit 2
    fi
    echo "injected bug in $(basename "$f"):"
    diff "$f" "$m" | grep '^[<>]' || true
    f=$m
  fi
  files+=("$f")
done
if [ -n "$mut_file" ] && ! printf '%s\n' "${files[@]}" | grep -q "^$out/"; then
  echo "formal.sh: $mut_file is not among the files" >&2
  exit 2
fi

# Asynchronous resets become synchronous ones the solver can step; undriven
# wires are free in each cycle.
if ! yosys -q -l "$out/yosys.log" -p "
read_verilog -formal -sv ${defines[*]} ${files[*]}
prep -flatten -top $top
async2sync
setundef -anyseq
dffunmap
check -assert
write_smt2 -wires $out/model.smt2" >/dev/null 2>&1; then
  grep -iE "error|warning" "$out/yosys.log" | tail -n 20
  echo "formal.sh: $name: Yosys failed (log: $out/yosys.log)"
  exit 2
fi

# run <mode> <log> <vcd> [smtbmc options]: 0 proved, 1 an assertion failed,
# 2 the tools failed.
run() {
  local mode=$1 log=$2 vcd=$3
  shift 3
  yosys-smtbmc -s z3 --presat "$@" -t "$depth" --dump-vcd "$vcd" "$out/model.smt2" >"$log" 2>&1 || true
  if grep -q "Status: PASSED" "$log"; then
    echo "$name: $mode depth $depth: PASSED"
    return 0
  elif grep -q "Status: FAILED" "$log"; then
    echo "$name: $mode depth $depth: FAILED"
    grep -E "Assert failed|failed assert|Assumptions are unsatisfiable" "$log" | head -n 5 || true
    return 1
  fi
  tail -n 20 "$log"
  echo "$name: $mode: the solver did not finish (log: $log)"
  return 2
}

rc=0
run bmc "$out/bmc.log" "$out/bmc.vcd" || rc=$?
if [ $rc = 0 ] && [ $ind = 1 ]; then
  run induction "$out/ind.log" "$out/ind.vcd" -i || rc=$?
  if [ $rc = 1 ]; then
    echo "$name: induction did not close at depth $depth; counterexample to induction: $out/ind.vcd"
  fi
fi

if [ $expect_fail = 1 ]; then
  if [ $rc = 1 ] && [ -s "$out/bmc.vcd" ]; then
    echo "$name: the injected bug is caught; counterexample: $out/bmc.vcd"
    exit 0
  fi
  [ $rc = 2 ] && exit 2
  echo "$name: the injected bug is NOT caught by the proof"
  exit 1
fi
if [ $rc = 1 ] && [ -s "$out/bmc.vcd" ]; then
  echo "$name: counterexample: $out/bmc.vcd"
fi
exit $rc
