#!/usr/bin/env bash
# One formal proof of a block contract: Yosys reads the RTL and a property
# wrapper from tb/formal/ (read_verilog -formal) and the wrapper's assertions
# are proved bounded (BMC from reset, by ABC's &bmcs on the AIGER model Yosys
# writes) and, with --ind, by k-induction (Yosys's SAT solver).
# docs/verification.md.
#
# Usage: formal.sh --name NAME --top WRAPPER --depth N [--ind] [--defer] [--show SIG]...
#                  [--define D]... [--mutate FILE SED] [--expect-fail]
#                  [--solver satoko|glucose] [--out DIR] -- FILE...
#   --show SIG         also trace SIG (a wrapper signal, or dut.<register>) in
#                      the counterexample; without it the VCD has the ports
#                      at every step and the registers' initial values only
#   --defer            elaborate modules only with the wrapper's parameters
#                      (read_verilog -defer): a block whose defaults are large
#                      (1024 QPs) is never built at its default size
#   --mutate FILE SED  prove a copy of FILE edited by the sed expression SED,
#                      which must change exactly one line (the injected bug)
#   --expect-fail      succeed only if an assertion fails (the proof catches
#                      the injected bug); its trace is kept as a VCD
#   --solver S         the SAT solver of ABC's &bmcs: satoko (the default) or
#                      glucose (&bmcs -g), whichever proves the model sooner
# A failing proof prints the failed assertions (file:line) and the
# counterexample's VCD path (GTKWave opens it).
# FV_ENGINE=sat runs the BMC with Yosys's SAT solver instead of ABC.
set -euo pipefail
name="" top="" depth="" ind=0 expect_fail=0 out="" mut_file="" mut_sed="" defer="" solver=""
defines=()
shows=()
while [ $# -gt 0 ]; do
  case "$1" in
    --name) name=$2; shift 2 ;;
    --top) top=$2; shift 2 ;;
    --depth) depth=$2; shift 2 ;;
    --ind) ind=1; shift ;;
    --defer) defer=-defer; shift ;;
    --show) shows+=("-show" "$2"); shift 2 ;;
    --define) defines+=("-D$2"); shift 2 ;;
    --mutate) mut_file=$2; mut_sed=$3; shift 3 ;;
    --expect-fail) expect_fail=1; shift ;;
    --solver)
      case "$2" in
        satoko) solver="" ;;
        glucose) solver=-g ;;
        *) echo "formal.sh: unknown solver $2" >&2; exit 2 ;;
      esac
      shift 2 ;;
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

# Yosys's own SAT solver proves the assertions under the assumptions.
# Asynchronous resets become synchronous ones it can step. As in the
# Verilated model, BMC starts with every register at zero (rnic_sq_fetch
# relies on it: docs/verification.md) and undefined values (a memory never
# written) read as zero; rst_ni is low in step 1 (the wrappers keep it high
# afterwards). BMC checks steps 1..depth from reset; induction
# (-tempinduct-inductonly) shows that depth consecutive steps without a
# failure are never followed by one, from any state.
#
# The model both engines read (every register and memory zero before the
# first optimisation, which would otherwise simplify with unset values).
model="read_verilog -formal -sv $defer ${defines[*]} ${files[*]}
prep -flatten -top $top
memory -nomap
setundef -zero
memory_map
setundef -zero -init
async2sync
dffunmap
opt -full"

# run <mode> <sat options>: 0 proved, 1 an assertion failed, 2 tool failure.
run() {
  local mode=$1
  shift
  local log="$out/$mode.log" vcd="$out/$mode.vcd"
  rm -f "$vcd"
  timeout "${FV_TIMEOUT:-300}" yosys -l "$log" -p "$model
sat -prove-asserts -set-assumes -maxsteps $depth $* -dump_vcd $vcd -show-ports ${shows[*]} $top" \
    >/dev/null 2>&1 || true
  if grep -q "model found for base case: FAIL" "$log" ||
     grep -q "Temporal induction proof finished - model found: FAIL" "$log"; then
    echo "$name: $mode depth $depth: FAILED (an assertion fails)"
    return 1
  elif [ $mode = bmc ] && grep -q "proved base case for $depth steps: SUCCESS" "$log"; then
    echo "$name: $mode depth $depth: PASSED"
    return 0
  elif [ $mode = induction ] && grep -q "Induction step proven: SUCCESS" "$log"; then
    echo "$name: $mode depth $depth: PASSED ($(grep -o 'Trying induction with length [0-9]*' "$log" | tail -n 1 | grep -o '[0-9]*$') steps)"
    return 0
  elif [ $mode = induction ] && grep -q "Reached maximum number of time steps" "$log"; then
    echo "$name: induction did not close within $depth steps (log: $log)"
    return 3
  fi
  grep -iE "error" "$log" | tail -n 10
  echo "$name: $mode: Yosys did not finish the proof (log: $log)"
  return 2
}

# The same model as an AIGER file for ABC: every flip-flop starts at zero
# (setundef -init, write_aiger -zinit), the wrapper's assumptions become
# invariant constraints (folded into the property by ABC's fold), its
# assertions bad-state outputs. ABC's &bmcs checks frames 0..depth-1, the
# same depth steps as the SAT flow (the wrappers hold rst_ni low in the
# first: assume (rst_ni == ran)). A counterexample is replayed on the same
# model by Yosys's simulator, which names the failed assertions and writes
# the VCD; a trace that fails no assertion there is a tool failure.
#
# No opt between techmap and abc: ABC simplifies the gates itself, and
# Yosys's opt on the gate netlist took 60 of the 143 s that preparing the
# RX engine's model took.
#
# &bmcs (the Satoko SAT solver on the unrolled AIG) rather than bmc3: on
# the same models it took the RX parser's depth-10 proof from 94 to 31 s,
# the TX arbiter's from 7.5 to 2.9, and the 37 tests' runs from 342 to 253 s of
# solver time (docs/verification.md).
#
# run_abc: 0 proved, 1 an assertion failed, 2 tool failure.
run_abc() {
  local log="$out/bmc.log" prep="$out/prep.log" vcd="$out/bmc.vcd"
  rm -f "$vcd" "$out/trace.aiw"
  if ! timeout "${FV_TIMEOUT:-300}" yosys -q -l "$prep" -p "$model
setattr -unset keep
delete -output
techmap
dffunmap
abc -g AND -fast
opt_clean
write_rtlil $out/model.il
write_aiger -zinit -map $out/model.aim $out/model.aig" >/dev/null 2>&1; then
    grep -iE "error" "$prep" | tail -n 10
    echo "$name: bmc: Yosys did not write the model (log: $prep)"
    return 2
  fi
  # write_aiger makes an undriven bit a free input (and warns): none of the
  # proofs has one, so one is a modelling mistake.
  if grep -q "undriven" "$prep"; then
    echo "$name: bmc: the model has undriven bits (log: $prep)"
    return 2
  fi
  timeout "${FV_TIMEOUT:-300}" yosys-abc -c "read_aiger $out/model.aig; fold; strash;
&get; &bmcs $solver -F $depth -v; write_cex -a $out/trace.aiw" >"$log" 2>&1 || true
  if grep -q "No output failed in $depth frames" "$log"; then
    echo "$name: bmc depth $depth: PASSED"
    return 0
  fi
  if ! grep -q "was asserted in frame" "$log" || [ ! -s "$out/trace.aiw" ]; then
    tail -n 5 "$log"
    echo "$name: bmc: ABC did not finish the proof (log: $log)"
    return 2
  fi
  local frame
  frame=$(grep -o "asserted in frame *[0-9]*" "$log" | grep -o "[0-9]*$" | head -n 1)
  yosys -q -l "$out/replay.log" -p "read_rtlil $out/model.il
sim -r $out/trace.aiw -map $out/model.aim -clock clk_i -hdlname -vcd $vcd $top" \
    >/dev/null 2>&1 || true
  if ! grep -q "^Warning: Assert .* failed" "$out/replay.log"; then
    echo "$name: bmc: ABC's counterexample does not replay (log: $out/replay.log)"
    return 2
  fi
  grep "^Warning: Assert .* failed" "$out/replay.log" | sort -u |
    sed -e 's/^Warning: Assert [^ ]* (\(.*\)) failed\./  assertion \1 fails/'
  echo "$name: bmc depth $depth: FAILED at step $((frame + 1)) (an assertion fails)"
  return 1
}

rc=0
if [ "${FV_ENGINE:-abc}" = sat ]; then
  run bmc -tempinduct-baseonly -set-init-zero -set-at 1 rst_ni 0 || rc=$?
else
  run_abc || rc=$?
fi
if [ $rc = 0 ] && [ $ind = 1 ]; then
  run induction -tempinduct-inductonly || rc=$?
fi

if [ $expect_fail = 1 ]; then
  if [ $rc = 1 ] && [ -s "$out/bmc.vcd" ]; then
    echo "$name: the injected bug is caught; counterexample: $out/bmc.vcd"
    exit 0
  fi
  [ $rc = 1 ] || [ $rc = 0 ] || exit 2
  echo "$name: the injected bug is NOT caught by the proof"
  exit 1
fi
for m in bmc induction; do
  if [ $rc = 1 ] && [ -s "$out/$m.vcd" ]; then
    echo "$name: counterexample ($m): $out/$m.vcd"
  fi
done
exit $rc
