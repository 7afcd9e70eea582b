#!/usr/bin/env python3
"""CTest (label trace): the per-WR timeline's payload DMA and placement stamps are real.

    check_timeline_dma.py <scratch dir> [--faults | --drops=K] <program> ...

Runs each program with RNIC_TIMELINE=<file> and checks every WR of the
table (waveforms/timeline_table.py reads it):

- a WR with payload DMA stamps has both, in the order of its life: a send WR
  fetched <= dma_issued <= dma_returned <= first_tx (its first packet's
  reads come back before that packet leaves); a READ first_tx <=
  dma_issued <= dma_returned <= acked (the responder reads the data after
  the request left and before the last response came back);
- a SEND, SEND_IMM, SEND_INV, WRITE, WRITE_IMM or READ of at least one byte
  that went out (first_tx) has them; after --faults (wire loss, reordering,
  duplication) at least 95 % of them, since the monitor cannot attribute a
  READ response whose READ no longer waits;
- the table's summary has a payload DMA phase for each class with DMA;
- placement: a SEND/WRITE of at least one byte whose last packet arrived
  (arr_last) has place_first and place_last, with arr_first <= place_first
  <= place_last and arr_last <= place_last (the responder writes a packet
  after taking it); a READ whose response came back (acked) has them with
  dma_returned <= place_first <= place_last <= cqe (the requester writes
  the responses, then completes). After --faults at least 95 % of them
  (and arr_last, the last copy of a packet sent again, may come after the
  placement of the first); --drops=K: exactly K of them are messages the
  program makes its receiver drop (UD wrong Q_Key, UC/UD with no receive).
"""
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "waveforms"))

import timeline_table  # noqa: E402

PAYLOAD_OPS = {"SEND", "SEND_IMM", "SEND_INV", "WRITE", "WRITE_IMM", "READ"}


def check(prog, out, faults, drops):
    env = dict(os.environ, RNIC_TIMELINE=out)
    env.pop("RNIC_TIMELINE_JSON", None)
    r = subprocess.run([prog], env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                       text=True)
    name = os.path.basename(prog)
    if r.returncode:
        print("%s: exit %d: %s" % (name, r.returncode, r.stderr[-2000:]))
        return 1
    bad = want = have = pwant = phave = 0
    for w in timeline_table.rows(out):
        if w["opcode"] == "RECV":
            continue
        if w["opcode"] in PAYLOAD_OPS and w["bytes"] > 0 and \
                ("acked" if w["opcode"] == "READ" else "arr_last") in w:
            pwant += 1
            p = [s for s in ("place_first", "place_last") if s in w]
            phave += len(p) == 2
            if w["opcode"] == "READ":
                chains = [["dma_returned", "place_first", "place_last", "cqe"]]
            else:
                chains = [["arr_first", "place_first", "place_last"]]
                if not faults:
                    chains.append(["arr_last", "place_last"])
            for chain in chains:
                v = [w[s] for s in chain if s in w]
                if len(p) == 2 and v != sorted(v):
                    if bad < 5:
                        print("%s: placement stamps out of order (%s): %s"
                              % (name, " <= ".join(chain), w))
                    bad += 1
        d = [s for s in ("dma_issued", "dma_returned") if s in w]
        if w["opcode"] in PAYLOAD_OPS and w["bytes"] > 0 and "first_tx" in w:
            want += 1
            have += len(d) == 2
        if not d:
            continue
        if w["opcode"] == "READ":
            chain = ["first_tx", "dma_issued", "dma_returned", "acked"]
        else:
            chain = ["fetched", "dma_issued", "dma_returned", "first_tx"]
        v = [w[s] for s in chain if s in w]
        if len(d) != 2 or v != sorted(v):
            if bad < 5:
                print("%s: payload DMA stamps out of order (%s): %s"
                      % (name, " <= ".join(chain), w))
            bad += 1
    need = want if not faults else (want * 95 + 99) // 100
    if have < need:
        print("%s: %d of %d WRs with payload have payload DMA stamps (want %d)"
              % (name, have, want, need))
        bad += 1
    pneed = pwant - drops if not faults else (pwant * 95 + 99) // 100
    if phave < pneed or (drops and phave != pneed):
        print("%s: %d of %d WRs with payload have placement stamps (want %d)"
              % (name, phave, pwant, pneed))
        bad += 1
    summary = [line for line in open(out) if "->dma_issued" in line]
    if have and not summary:
        print("%s: no payload DMA phase in the summary" % name)
        bad += 1
    print("%-22s %4d WRs with payload, %4d with payload DMA stamps, %4d of %4d placed "
          "with placement stamps, %d problem(s)" % (name, want, have, phave, pwant, bad))
    return bad


def main(argv):
    scratch = argv[1]
    os.makedirs(scratch, exist_ok=True)
    bad, faults, drops = 0, False, 0
    for a in argv[2:]:
        if a == "--faults":
            faults = True
            continue
        if a.startswith("--drops="):
            drops = int(a[len("--drops="):])
            continue
        bad += check(a, os.path.join(scratch, os.path.basename(a) + ".timeline.txt"), faults,
                     drops)
        faults, drops = False, 0
    print("%d problem(s)" % bad)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
