#!/usr/bin/env python3
"""Read the per-WR table RNIC_TIMELINE writes (docs/observability.md).

    rows(path) -> [{"node": 0, "qpn": 2, "wqe": 0, "opcode": "SEND", "bytes": 200,
                    "posted": 390, ..., "polled": 710}, ...]

Columns are found by the table's header line (the line that starts with
"# node"), so new stamps do not move anyone's columns; a stamp shown as "-"
(it did not happen) is left out of the row.
"""

STAMPS = ["posted", "db", "fetched", "dma_issued", "dma_returned", "first_tx", "last_tx",
          "arr_first", "arr_last", "place_first", "place_last", "acked", "cqe", "polled"]


def rows(path):
    out, head = [], None
    for line in open(path):
        w = line.split()
        if not w:
            continue
        if line.startswith("#"):
            if len(w) > 2 and w[1] == "node" and w[2] == "qpn":
                head = w[1:]
            continue
        if not head:
            continue
        r = {}
        for name, v in zip(head, w):
            if name == "opcode":
                r[name] = v
            elif v != "-":
                r[name] = int(v)
        out.append(r)
    return out


def stamps(row):
    """{stamp: cycle} of a row, only the stamps of STAMPS."""
    return {s: row[s] for s in STAMPS if s in row}
