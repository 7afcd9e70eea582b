#!/usr/bin/env python3
"""CTest check of the waveform layouts.

    check_layouts.py <rnic_demo> <scratch dir>

1. The committed layouts and filters equal what gen_layouts.py makes now
   (so they follow the RTL's constants).
2. Every signal a layout names exists in an FST trace of the demo (so a
   renamed or removed RTL signal breaks this test, not a user's session).
"""
import filecmp
import os
import subprocess
import sys

import gen_layouts

HERE = os.path.dirname(os.path.abspath(__file__))


def fst_signals(path):
    """Full names (with [msb:lsb]) of every variable of an FST file."""
    vcd = subprocess.run(["fst2vcd", path], check=True, capture_output=True, text=True).stdout
    names, scope = set(), []
    for line in vcd.splitlines():
        w = line.split()
        if not w:
            continue
        if w[0] == "$enddefinitions":
            break
        if w[0] == "$scope":
            scope.append(w[2])
        elif w[0] == "$upscope":
            scope.pop()
        elif w[0] == "$var":
            name = w[4] + (w[5] if w[5].startswith("[") else "")
            names.add(".".join(scope + [name]))
    return names


def main(demo, scratch):
    bad = 0
    gen = os.path.join(scratch, "gen")
    gen_layouts.generate(gen)
    for root, _, files in os.walk(gen):
        for f in files:
            new = os.path.join(root, f)
            old = os.path.join(HERE, os.path.relpath(new, gen))
            if not os.path.exists(old) or not filecmp.cmp(new, old, shallow=False):
                print("stale: %s (run waveforms/gen_layouts.py)" % os.path.relpath(old, HERE))
                bad += 1

    trace = os.path.join(scratch, "demo.fst")
    env = dict(os.environ, RNIC_TRACE=trace, RNIC_TIMELINE="0")
    subprocess.run([demo], check=True, env=env, stdout=subprocess.DEVNULL)
    have = fst_signals(trace)
    want = gen_layouts.all_signals()
    for s in want:
        if s not in have:
            print("missing in the trace: %s" % s)
            bad += 1
    print("%d layout signals checked against %d traced signals, %d problem(s)"
          % (len(want), len(have), bad))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1], sys.argv[2]))
