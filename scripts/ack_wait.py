#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""ack_wait.py - where an RC send WR's acknowledgement waited.

    RNIC_TIMELINE=tl.txt RNIC_PCAP=x.pcap build/tb/bench/rnic_bench_op ARGS
    scripts/ack_wait.py tl.txt x.pcap [--node 0] [--op WRITE]

Joins the per-WR timeline (docs/observability.md) with the wire's capture:
for every WR of the node and opcode that has the stamps, its request frame
on the wire (the first frame the node handed its link at or after the WR's
first_tx), then the first ACK to the node's QP with a PSN at or after that
frame's whose hand-over to the peer's link is not before the WR's placement
at the peer (place_last). Prints the means of three legs: the request's last
TX beat to its placement at the peer, placement to the ACK handed to the
peer's link, and the ACK handed to the node's RX taking it (acked: the wire,
and the queue in front of the node's RX). Node n is 10.0.0.<n+1>; the pcap's
timestamps are cycles x 4 ns, the frame's last beat. Needs tshark.
"""
import argparse
import bisect
import collections
import subprocess
import sys


def frames(pcap):
    """(cycle, src ip, opcode, dest QPN, PSN) of every RoCE frame."""
    out = subprocess.run(['tshark', '-r', pcap, '-T', 'fields', '-e', 'frame.time_epoch',
                          '-e', 'ip.src', '-e', 'infiniband.bth.opcode', '-e',
                          'infiniband.bth.destqp', '-e', 'infiniband.bth.psn'],
                         check=True, capture_output=True, text=True).stdout
    for line in out.splitlines():
        f = line.split('\t')
        if len(f) < 5 or not f[2]:
            continue
        yield (round(float(f[0]) * 250e6), f[1], int(f[2]), int(f[3], 16), int(f[4]))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    ap.add_argument('timeline')
    ap.add_argument('pcap')
    ap.add_argument('--node', type=int, default=0)
    ap.add_argument('--op', default='WRITE')
    a = ap.parse_args()
    me = '10.0.0.%d' % (a.node + 1)
    sent = []                            # the node's frames: (cycle, opcode, PSN)
    acks = collections.defaultdict(list)  # ACKs to the node, per QPN: (cycle, PSN)
    nacks = 0
    for t, src, op, qpn, psn in frames(a.pcap):
        if src == me:
            sent.append((t, op, psn))
        elif op == 17:                   # ACKNOWLEDGE
            acks[qpn].append((t, psn))
            nacks += 1
    times = [s[0] for s in sent]
    legs, n = [0, 0, 0], 0
    for line in open(a.timeline):
        f = line.split()
        if line.startswith('#') or len(f) < 19 or f[0] != str(a.node) or f[3] != a.op:
            continue
        if '-' in (f[10], f[11], f[15], f[16]):
            continue
        qpn, first_tx, last_tx, place_last, acked = (int(f[1]), int(f[10]), int(f[11]),
                                                     int(f[15]), int(f[16]))
        i = bisect.bisect_left(times, first_tx)
        if i == len(sent):
            continue
        psn = sent[i][2]
        for t, p in acks[qpn]:
            if t >= place_last and ((p - psn) & 0xffffff) < 0x800000:
                legs[0] += place_last - last_tx
                legs[1] += t - place_last
                legs[2] += acked - t
                n += 1
                break
    if not n:
        sys.exit('ack_wait: no %s WR of node %d with every stamp and its ACK' % (a.op, a.node))
    print('%d %s WRs of node %d, %d ACK frames to it' % (n, a.op, a.node, nacks))
    print('last_tx -> placed at the peer   %8.0f' % (legs[0] / n))
    print('placed -> ACK handed to link    %8.0f' % (legs[1] / n))
    print('ACK handed -> taken by RX       %8.0f' % (legs[2] / n))


if __name__ == '__main__':
    main()
