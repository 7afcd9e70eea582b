#!/usr/bin/env python3
"""Render a per-WR cycle timeline (RNIC_TIMELINE's table) as a PNG Gantt chart.

    render_timeline.py <timeline.txt> <out.png> [title]

One row per WR (requester WRs, then receive WRs), one coloured bar per phase
between consecutive stamps: the phases of "where the cycles went" in the
table's summary. Deterministic: the same table gives the same picture.
"""
import sys

import matplotlib
matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

import timeline_table  # noqa: E402

SEND = [("posted", "db", "MMIO doorbell", "#95a5a6"),
        ("db", "fetched", "WQE fetch", "#5dade2"),
        ("fetched", "first_tx", "requester + TX build", "#2874a6"),
        ("first_tx", "last_tx", "packets out", "#f5b041"),
        ("last_tx", "acked", "wire + responder + ACK/READ response back", "#e67e22"),
        ("acked", "cqe", "completer + CQE write", "#27ae60"),
        ("cqe", "polled", "CQE waits for the poll", "#bdc3c7"),
        # Over the phase it happens in (READ: at the responder).
        ("dma_issued", "dma_returned", "payload DMA read, first packet", "#8e44ad")]
RECV = [("posted", "db", "MMIO doorbell", "#95a5a6"),
        ("arr_first", "arr_last", "RECV: message arrives", "#f7dc6f"),
        ("arr_last", "cqe", "RECV: responder WQE read, placement, CQE", "#82e0aa"),
        ("cqe", "polled", "CQE waits for the poll", "#bdc3c7")]


def read(path):
    rows = []
    for r in timeline_table.rows(path):
        rows.append(("node%s q%s #%s %s %sB" % (r["node"], r["qpn"], r["wqe"], r["opcode"],
                                                r["bytes"]), r["opcode"],
                     timeline_table.stamps(r)))
    # Requester WRs first, then receive WRs, each by posting cycle.
    rows.sort(key=lambda r: (r[1] == "RECV", r[2].get("posted", 0)))
    return rows


def main(argv):
    if len(argv) < 3:
        print(__doc__)
        return 2
    rows = read(argv[1])
    title = argv[3] if len(argv) > 3 else "per-WR timeline"
    fig, ax = plt.subplots(figsize=(16, 0.42 * len(rows) + 1.9), dpi=100)
    used = {}
    for y, (label, op, t) in enumerate(rows):
        for a, b, name, color in RECV if op == "RECV" else SEND:
            if a in t and b in t and t[b] >= t[a]:
                bar = ax.barh(y, max(t[b] - t[a], 0.6), left=t[a], color=color,
                              edgecolor="white", height=0.6)
                used.setdefault(name, bar)
                if t[b] - t[a] >= 25:
                    ax.text((t[a] + t[b]) / 2, y, str(t[b] - t[a]), ha="center",
                            va="center", fontsize=7)
        if "posted" in t and "cqe" in t:
            ax.text(t.get("polled", t["cqe"]) + 4, y, "post->cqe %d" % (t["cqe"] - t["posted"]),
                    va="center", fontsize=7.5)
    ax.set_yticks(range(len(rows)))
    ax.set_yticklabels([r[0] for r in rows], fontsize=8, family="monospace")
    ax.invert_yaxis()
    ax.set_xlabel("cycle (250 MHz core clock, 4 ns each)")
    ax.set_title(title, loc="left", fontsize=11)
    ax.grid(axis="x", color="#dddddd", linewidth=0.6)
    ax.set_axisbelow(True)
    ax.legend(used.values(), used.keys(), loc="upper center", bbox_to_anchor=(0.5, -0.5 / (0.42 * len(rows) + 1.9) - 0.08),
              ncol=4, fontsize=8, frameon=False)
    fig.tight_layout()
    fig.savefig(argv[2])
    plt.close(fig)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
