#!/usr/bin/env python3
"""Render a flow's waveform (FST) as a PNG timing diagram with matplotlib.

    render_flow.py <trace.fst> <flow> <out.png> [--timeline <file>]

<flow> is one of the flow layouts of gen_layouts.py (send_recv, write, read,
bad_rkey, atomic, retransmit, ud_send). The rows are a readable subset of that layout (PICK), in its order
and groups; values are shown the way GTKWave shows them with the layout: state
machines by their enum names (read from the RTL source, since fst2vcd drops
the FST's enum tables), opcodes and statuses through the translate filters.
With --timeline (RNIC_TIMELINE's table), the stamps of the flow's first WR are
drawn as labelled vertical lines. The trace is converted with fst2vcd
(package gtkwave). Deterministic: the same trace gives the same picture.
"""
import os
import re
import subprocess
import sys

import matplotlib
matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

import gen_layouts as gl  # noqa: E402
import timeline_table  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))

# Rows of the pictures: signal names below node<n>.rnic_top (state registers
# without their width, which follows the RTL).
PICK = {
    "mmio_valid_i", "mmio_addr_i[15:0]", "u_mmio.sq_db_valid_o", "u_sq_fetch.rd_req_valid_o",
    "u_sq_fetch.rd_rsp_valid_i", "u_sq_fetch.wqe_valid_o", "u_requester.st_q",
    "u_requester.w_op[7:0]", "u_requester.psn_q[23:0]", "u_requester.txd_valid_o",
    "dma_rd_req_valid_o", "dma_rd_req_tag_o[7:0]", "dma_rd_rsp_valid_i", "u_tx_arb.valid_i[1:0]",
    "tx_valid_o", "tx_last_o", "rx_valid_i", "u_rx_parser.op[7:0]", "u_rx_parser.good",
    "u_rx_parser.pkt_valid_o", "u_responder.st_q", "u_responder.op[7:0]",
    "u_completer.st_q", "u_completer.op[7:0]", "u_responder.epsn[23:0]",
    "u_responder.rd_req_valid_o", "u_responder.rd_rsp_valid_i",
    "u_responder.rwc_hint_valid_o", "g_rwqe_cache.u_rwqe_cache.rd_req_valid_o",
    "u_responder.rwc_lk_hit_i", "u_atomic_unit.op_valid_i",
    "u_atomic_unit.rd_req_valid_o", "u_atomic_unit.wr_valid_o", "u_atomic_unit.job_valid_o",
    "u_responder.chk_key[31:0]", "u_responder.chk_ok",
    "u_responder.err_syn_q[7:0]", "u_responder.place_start_o", "dma_wr_valid_o",
    "dma_wr_addr_o[63:0]", "dma_wr_len_o[15:0]", "u_cqe_writer.cqe_valid_i",
    "u_cqe_writer.wr_valid_o", "u_cqe_writer.ev_send_o", "u_cqe_writer.ev_recv_o",
    "u_rd_resp.job_valid_i", "u_rd_resp.j_syn[7:0]", "u_rd_resp.txd_valid_o",
    "u_completer.nak_status_q[7:0]", "u_completer.scqe_valid_o",
    "u_responder.rcqe_valid_o", "u_completer.tmr_v_q",
    "u_completer.tmr_exp_v", "u_completer.rewind_valid_o",
    "u_sq_fetch.rewind_idx_i[15:0]", "u_requester.wepoch_q[7:0]", "u_tx_builder.dst_qpn[23:0]",
    "u_tx_builder.noack_valid_o", "u_completer.noack_mode_q",
    "u_responder.rx_avail", "u_responder.ud_pass1_q",
    "u_responder.moff_q[31:0]",
}

# Enum state machines: signal below rnic_top (without its width) -> RTL file.
ENUMS = {
    "u_requester.st_q": gl.REQ_RTL,
    "u_responder.st_q": gl.ENG_RTL,
    "u_completer.st_q": gl.ENG_RTL,
}

STAMPS = timeline_table.STAMPS
PS_PER_CYCLE = 4000
RESET_CYCLES = 8


def filter_names(name):
    out = {}
    for line in open(os.path.join(HERE, "filters", name)):
        w = line.split()
        if len(w) == 2 and not line.startswith("#"):
            out[int(w[0])] = w[1]
    return out


def read_vcd(fst, wanted):
    """{full name: [(time ps, int value or None)]} of the wanted signals."""
    vcd = subprocess.run(["fst2vcd", fst], check=True, capture_output=True,
                         text=True).stdout.splitlines()
    ids, scope, i = {}, [], 0
    for i, line in enumerate(vcd):
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
            name = ".".join(scope + [w[4] + (w[5] if w[5].startswith("[") else "")])
            if name in wanted:
                ids.setdefault(w[3], []).append(name)
    waves = {n: [] for n in wanted}
    t = 0
    for line in vcd[i + 1:]:
        if not line:
            continue
        c = line[0]
        if c == "#":
            t = int(line[1:])
            continue
        if c == "b":
            val, vid = line[1:].split()
        elif c in "01xzXZ":
            val, vid = c, line[1:]
        else:
            continue
        if vid not in ids:
            continue
        v = None if re.search(r"[xzXZ]", val) else int(val, 2)
        for n in ids[vid]:
            waves[n].append((t, v))
    return waves


def read_timeline(path):
    """Stamps of the first WR of the table: {stamp: cycle}."""
    rows = timeline_table.rows(path)
    return timeline_table.stamps(rows[0]) if rows else {}


def cycle_of(t):
    # Edge c rises at (c + 8) * 4000 + 2000 ps (docs/waveforms.md).
    return (t - PS_PER_CYCLE // 2) / PS_PER_CYCLE - RESET_CYCLES


def fmt_value(v, fmt, names, width):
    if v is None:
        return "x"
    if names is not None:
        return names.get(v, str(v))
    if fmt == gl.F_HEX:
        return "%x" % v
    return str(v)


def rows_of(flow):
    title, groups = gl.layouts(256)["flow_%s.gtkw" % flow]
    # A signal two groups name is drawn in the later, more specific one.
    last = {}
    for gi, (g, sigs) in enumerate(groups):
        for s in sigs:
            last[s[0]] = gi
    rows = []
    for gi, (g, sigs) in enumerate(groups):
        pick = [s for s in sigs if last[s[0]] == gi and
                re.sub(r"st_q\[\d+:0\]$", "st_q", s[0].split(".%s." % gl.T, 1)[1]) in PICK]
        if pick:
            rows.append((g, pick))
    return title, rows


def render(fst, flow, out, timeline=None):
    title, groups = rows_of(flow)
    wanted = {s[0] for _, sigs in groups for s in sigs}
    waves = read_vcd(fst, wanted)
    stamps = read_timeline(timeline) if timeline else {}

    # Time span: the flow's first to last WR stamp, else all activity.
    changes = [cycle_of(t) for w in waves.values() for t, _ in w[1:]]
    if stamps:
        c0, c1 = min(stamps.values()) - 10, max(stamps.values()) + 15
    else:
        c0, c1 = min(changes) - 10, max(changes) + 10
    # Nothing before the first dumped time of a windowed trace.
    c0 = max(c0, min(cycle_of(w[0][0]) for w in waves.values() if w))

    nrows = sum(len(s) + 1 for _, s in groups)
    top = 5.0 if stamps else 0.8	# room for the stamp labels
    fig_h = 0.24 * (nrows + top) + 1.2
    fig, ax = plt.subplots(figsize=(18, fig_h), dpi=100)
    ax.set_xlim(c0, c1)
    ax.set_ylim(-nrows + 0.5, top)
    ax.set_yticks([])
    ax.set_xlabel("cycle (250 MHz core clock, 4 ns each; as in RNIC_TIMELINE)")
    ax.set_title(title, fontsize=11, loc="left")
    ax.grid(axis="x", color="#dddddd", linewidth=0.6)
    ax.set_axisbelow(True)

    y = 0
    colors = ["#eef3fb", "#fbf3ea"]
    for gi, (g, sigs) in enumerate(groups):
        node = int(g[4])
        ax.axhspan(y - len(sigs) - 0.5, y + 0.5, color=colors[node % 2], zorder=0)
        ax.text(c0, y, " " + g, fontsize=8.5, fontweight="bold", va="center", ha="left",
                color="#1f3b70" if node == 0 else "#7a3b00", clip_on=True)
        y -= 1
        for s in sigs:
            name, fmt = s[0], s[1]
            short = name.split(".%s." % gl.T, 1)[1]
            names = None
            if len(s) > 2:
                names = filter_names(s[2])
            elif fmt == gl.F_ENUM and short.split("[")[0] in ENUMS:
                names = dict(gl.enum_type(ENUMS[short.split("[")[0]], "st_q")[1])
            m = re.search(r"\[(\d+):(\d+)\]$", short)
            width = int(m.group(1)) - int(m.group(2)) + 1 if m else 1
            label = "node%d %s" % (node, short.split("[")[0])
            ax.text(c0 - (c1 - c0) * 0.005, y, label, fontsize=8, ha="right", va="center",
                    family="monospace")
            draw(ax, waves.get(name, []), y, c0, c1, width, fmt, names)
            y -= 1

    # Stamps closer than a label's height share one label.
    near = (c1 - c0) * 0.008
    labels = []
    for s, c in sorted(stamps.items(), key=lambda x: (x[1], STAMPS.index(x[0]))):
        ax.axvline(c, color="#c0392b", linewidth=0.8, linestyle="--", zorder=3)
        if labels and c - labels[-1][0] <= near:
            labels[-1][1].append((s, c))
        else:
            labels.append((c, [(s, c)]))
    for c, names in labels:
        parts = []
        for s, cyc in names:
            if parts and parts[-1][1] == cyc:
                parts[-1] = (parts[-1][0] + "," + s, cyc)
            else:
                parts.append((s, cyc))
        ax.text(c, 0.65, " ".join("%s %d" % p for p in parts), rotation=90, fontsize=7.5,
                color="#c0392b", ha="right", va="bottom")
    fig.subplots_adjust(left=0.17, right=0.99, top=1 - 0.45 / fig_h, bottom=0.55 / fig_h)
    fig.savefig(out)
    plt.close(fig)


def draw(ax, w, y, c0, c1, width, fmt, names):
    """One row: a line for a bit, boxes with values for a vector."""
    if not w:
        ax.text(c0, y, "  (not in trace)", fontsize=7, va="center", color="grey")
        return
    # Segments [start, end) of constant value, clipped to the span.
    segs = []
    for k, (t, v) in enumerate(w):
        a = cycle_of(t)
        b = cycle_of(w[k + 1][0]) if k + 1 < len(w) else c1
        if b <= c0 or a >= c1:
            continue
        segs.append((max(a, c0), min(b, c1), v))
    h = 0.35
    if width == 1:
        xs, ys = [], []
        for a, b, v in segs:
            lv = y - h if not v else y + h
            xs += [a, b]
            ys += [lv, lv]
            if v:
                ax.fill_between([a, b], y - h, y + h, color="#2e86c1", alpha=0.25, lw=0)
        ax.plot(xs, ys, color="#1b4f72", linewidth=1.0, drawstyle="default")
        return
    scale = (c1 - c0) / 18.0 / 100.0	# cycles per 1/100 inch
    for a, b, v in segs:
        txt = fmt_value(v, fmt, names, width)
        quiet = v == 0 and names is None and fmt != gl.F_ENUM
        d = min(0.6, (b - a) / 4)
        xs = [a, a + d, b - d, b, b - d, a + d, a]
        ys = [y, y + h, y + h, y, y - h, y - h, y]
        ax.fill(xs, ys, color="#f4f6f7" if quiet else "#d5f5e3", ec="#196f3d", lw=0.7)
        room = (b - a) / scale / 6.5	# characters that fit
        if not quiet and room >= 1.5:
            if len(txt) > room:
                txt = txt[:max(1, int(room) - 1)] + "~"
            ax.text((a + b) / 2, y, txt, fontsize=7, ha="center", va="center",
                    family="monospace", clip_on=True)


def main(argv):
    if len(argv) < 4:
        print(__doc__)
        return 2
    tl = None
    if "--timeline" in argv:
        tl = argv[argv.index("--timeline") + 1]
    render(argv[1], argv[2], argv[3], tl)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
