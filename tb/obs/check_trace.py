#!/usr/bin/env python3
"""CTest (label trace): tracing never changes what is simulated, and the
trace windows hold exactly the cycles they should.

    check_trace.py <rnic_demo> <trace_api> <scratch dir>

1. Determinism: the demo's per-WR timeline (every stamp of every WR, in
   cycles) and its output are identical with tracing off, on for the whole
   run, limited to a cycle range, triggered by an SQ doorbell, limited to one
   node, and with per-link captures and progress printing on.
2. Windows (read back with fst2vcd): a cycle range [S, E) dumps the levels of
   edges S .. E-1 and nothing else; a doorbell trigger starts at the cycle the
   first SQ doorbell of node 0 was posted (the first WR's "posted" stamp) and
   ends N cycles after the last one; RNIC_TRACE_NODES=1 traces only node1;
   RNIC_TRACE_API=1 with rnic_verbs_trace_begin()/end() dumps exactly the
   cycles between the two calls.
"""
import os
import subprocess
import sys

PS = 4000
RESET = 8


def run(prog, scratch, name, env_add):
    tl = os.path.join(scratch, name + ".timeline.txt")
    env = dict(os.environ, RNIC_TIMELINE=tl)
    for k in ("RNIC_TRACE", "RNIC_PCAP", "RNIC_PROGRESS", "RNIC_TRACE_START", "RNIC_TRACE_END",
              "RNIC_TRACE_QPN", "RNIC_TRACE_CYCLES", "RNIC_TRACE_NODES", "RNIC_TRACE_API"):
        env.pop(k, None)
    env.update(env_add)
    out = subprocess.run([prog], check=True, env=env, capture_output=True, text=True).stdout
    return out, (open(tl).read() if os.path.exists(tl) else "")


def fst_times(path):
    """(scopes of the top level, sorted dump times in ps)."""
    vcd = subprocess.run(["fst2vcd", path], check=True, capture_output=True,
                         text=True).stdout.splitlines()
    tops, depth, times, body = [], 0, [], False
    for line in vcd:
        if not body:
            w = line.split()
            if w and w[0] == "$scope":
                if depth == 0:
                    tops.append(w[2])
                depth += 1
            elif w and w[0] == "$upscope":
                depth -= 1
            elif w and w[0] == "$enddefinitions":
                body = True
        elif line.startswith("#"):
            times.append(int(line[1:]))
    return tops, times


def first_stamp(timeline, col):
    """Column @col (0 = posted) of the first WR row of node 0."""
    for line in timeline.splitlines():
        w = line.split()
        if w and not line.startswith("#") and w[0] == "0":
            return int(w[5 + col])
    raise ValueError("no WR of node 0 in the timeline")


def last_posted(timeline):
    return max(int(line.split()[5]) for line in timeline.splitlines()
               if line.strip() and not line.startswith("#") and line.split()[0] == "0")


def main(demo, api, scratch):
    os.makedirs(scratch, exist_ok=True)
    bad = 0

    def fail(msg):
        nonlocal bad
        print("FAIL: " + msg)
        bad += 1

    f = lambda n: os.path.join(scratch, n)
    ref_out, ref_tl = run(demo, scratch, "off", {})
    if not ref_tl.count("\n"):
        fail("no timeline from the demo")
    start, end, ncyc = 900, 1400, 300
    modes = {
        "full": {"RNIC_TRACE": f("full.fst")},
        "range": {"RNIC_TRACE": f("range.fst"), "RNIC_TRACE_START": str(start),
                  "RNIC_TRACE_END": str(end)},
        "trigger": {"RNIC_TRACE": f("trigger.fst"), "RNIC_TRACE_QPN": "any@0",
                    "RNIC_TRACE_CYCLES": str(ncyc)},
        "node1": {"RNIC_TRACE": f("node1.fst"), "RNIC_TRACE_NODES": "1"},
        "pcap_progress": {"RNIC_PCAP": f("links") + "/", "RNIC_PROGRESS": "0.000001"},
    }
    for m, env in modes.items():
        out, tl = run(demo, scratch, m, env)
        if out != ref_out or tl != ref_tl:
            fail("%s: the cycles differ from the run without tracing" % m)
        else:
            print("%-14s same cycles as without tracing (%d timeline lines)"
                  % (m, tl.count("\n")))

    tops, t = fst_times(f("full.fst"))
    if tops != ["node0", "node1"] or not t or t[0] != 0:
        fail("full trace: scopes %s, first time %s" % (tops, t[:1]))
    tops, t = fst_times(f("range.fst"))
    want = [(c + RESET) * PS + h for c in range(start, end) for h in (0, PS // 2)]
    if t != want:
        fail("range trace: %d dumps from %s to %s, expected %d from %d to %d"
             % (len(t), t[:1], t[-1:], len(want), want[0], want[-1]))
    tops, t = fst_times(f("trigger.fst"))
    p0 = first_stamp(ref_tl, 0)
    pl = last_posted(ref_tl)
    if not t or t[0] != (p0 + RESET) * PS or t[-1] != (pl + ncyc - 1 + RESET) * PS + PS // 2:
        fail("trigger trace: dumps %s .. %s, expected from cycle %d to %d"
             % (t[:1], t[-1:], p0, pl + ncyc - 1))
    tops, t = fst_times(f("node1.fst"))
    if tops != ["node1"]:
        fail("RNIC_TRACE_NODES=1: scopes %s" % tops)

    env = dict(os.environ, RNIC_TRACE=f("api.fst"), RNIC_TRACE_API="1")
    env.pop("RNIC_TIMELINE", None)
    out = subprocess.run([api], check=True, env=env, capture_output=True, text=True).stdout
    c0, c1 = [int(x) for x in out.split("window")[1].split()[:2]]
    tops, t = fst_times(f("api.fst"))
    want = [(c + RESET) * PS + h for c in range(c0, c1) for h in (0, PS // 2)]
    if t != want:
        fail("API window: %d dumps %s .. %s, expected %d for cycles %d .. %d"
             % (len(t), t[:1], t[-1:], len(want), c0, c1 - 1))
    else:
        print("API window    cycles %d .. %d dumped, nothing else" % (c0, c1 - 1))
    print("%d problem(s)" % bad)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1], sys.argv[2], sys.argv[3]))
