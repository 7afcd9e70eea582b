#!/usr/bin/env python3
"""CTest (label waveforms): the one-command flow traces work end to end.

    check_flows.py <build dir> <flow> [<flow> ...]

For each flow, runs waveforms/trace_flow.sh <flow> <build dir> without a
display and checks what it wrote: the program passed; the FST starts at the
cycle the flow's first WR was posted and holds every signal the flow's
layout names; the timeline table has the WR with its posted, doorbell,
fetched, first/last packet, CQE and polled stamps in that order, and its
payload DMA stamps where the flow moves payload: fetched <= dma_issued <=
dma_returned <= first_tx (a READ: the responder's reads, first_tx <=
dma_issued <= dma_returned <= acked), none for an atomic; the Perfetto JSON
parses (python3 json) and has a slice per phase of that WR (the payload DMA
track too).
"""
import json
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
WAVE = os.path.join(HERE, "..", "..", "waveforms")
sys.path.insert(0, WAVE)

import check_layouts  # noqa: E402
import gen_layouts  # noqa: E402
import timeline_table  # noqa: E402

# The flows whose first WR moves no payload.
NO_DMA = {"atomic"}


def dma_order(flow, row):
    """What is wrong with the payload DMA stamps of the flow's first WR, or None."""
    has = "dma_issued" in row or "dma_returned" in row
    if flow in NO_DMA:
        return "payload DMA stamps on a WR without payload" if has else None
    if row.get("opcode") == "READ":
        chain = ["first_tx", "dma_issued", "dma_returned", "acked"]
    else:
        chain = ["fetched", "dma_issued", "dma_returned", "first_tx"]
    if any(s not in row for s in chain):
        return "missing some of %s" % chain
    v = [row[s] for s in chain]
    if v != sorted(v):
        return "not in the order %s" % " <= ".join(chain)
    return None


def main(build, flows):
    bad = 0
    env = dict(os.environ)
    env.pop("DISPLAY", None)
    for flow in flows:
        base = os.path.join(build, "waveforms", "flow_" + flow)
        r = subprocess.run(["bash", os.path.join(WAVE, "trace_flow.sh"), flow, build],
                           env=env, capture_output=True, text=True)
        if r.returncode or "no display" not in r.stdout:
            print("%s: trace_flow.sh failed (%d): %s%s" % (flow, r.returncode, r.stdout, r.stderr))
            bad += 1
            continue
        row = ([r for r in timeline_table.rows(base + ".timeline.txt") if r["node"] == 0]
               or [None])[0]
        names = ("posted", "db", "fetched", "first_tx", "last_tx", "cqe", "polled")
        if not row or any(s not in row for s in names) or \
                [row[s] for s in names] != sorted(row[s] for s in names):
            print("%s: first WR's stamps %s" % (flow, row))
            bad += 1
            continue
        why = dma_order(flow, row)
        if why:
            print("%s: payload DMA stamps: %s: %s" % (flow, why, row))
            bad += 1
        have = check_layouts.fst_signals(base + ".fst")
        want = [s for _, sigs in gen_layouts.layouts(256)["flow_%s.gtkw" % flow][1]
                for s in [x[0] for x in sigs]]
        missing = [s for s in want if s not in have]
        if missing:
            print("%s: %d layout signals missing in the trace, e.g. %s"
                  % (flow, len(missing), missing[0]))
            bad += 1
        vcd = subprocess.run(["fst2vcd", base + ".fst"], check=True, capture_output=True,
                             text=True).stdout
        t0 = int(vcd.split("\n#", 1)[1].split()[0])
        if t0 != (int(row["posted"]) + 8) * 4000:
            print("%s: trace starts at %d ps, the flow at cycle %s" % (flow, t0, row["posted"]))
            bad += 1
        ev = json.load(open(base + ".json"))["traceEvents"]
        slices = [e for e in ev if e.get("ph") == "X" and e["args"]["node"] == 0 and
                  e["args"]["wqe"] == 0]
        tracks = {e["tid"] // 100 for e in slices}
        want_tracks = {0, 1, 2, 3, 4, 7, 8} | (set() if flow in NO_DMA else {9})
        if not want_tracks <= tracks:
            print("%s: Perfetto slices of the first WR on tracks %s" % (flow, sorted(tracks)))
            bad += 1
        print("%-10s trace from cycle %s, %d layout signals, %d Perfetto events, "
              "payload DMA %s..%s" % (flow, row["posted"], len(want), len(ev),
                                      row.get("dma_issued", "-"), row.get("dma_returned", "-")))
    print("%d problem(s)" % bad)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1], sys.argv[2:]))
