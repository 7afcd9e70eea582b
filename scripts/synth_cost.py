#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""synth_cost.py - hardware cost of every RTL block for build-time variants.

    scripts/synth_cost.py --out docs/data/synth_cost.csv --md docs/data/synth_cost.md \\
        [--variant RNIC_DATA_W=128 --variant RNIC_DATA_W=256,RNIC_NQP=2048 ...]

For each variant (the CMake parameters of scripts/sweep.py --build:
RNIC_DATA_W, RNIC_NQP, RNIC_NCQ, RNIC_NMR, RNIC_INFL_DEPTH, RNIC_TX_RING,
RNIC_TX_FRAMES, RNIC_RWQE_CACHE, RNIC_ATOMIC_DEPTH; defaults 256, 1024, 8, 16384, 11, 64 and 16) and each
module of rtl/ (one module per file), Yosys synthesizes the module as the
top with the parameters rnic_top gives it (DataW, NQp, NCq, NMr, InflDepth,
TxRingBytes, TxFrames, RwqeCache, AtomicDepth, or their names in rnic_tx_builder,
rnic_rwqe_cache and rnic_atomic_unit, where the module has them; the others keep their defaults), flattens it with the
blocks below it, and reports the numbers below. --tables N (default 8, as
scripts/synth_check.sh) synthesizes with N QP, CQ and MR contexts instead
of the variant's: with 1024 the per-QP and per-CQ flag arrays that are
flip-flops, not RAM, make a single rnic_top run take over half an hour on
two cores. Memory bits and those flag arrays grow linearly with the table
sizes; the datapath logic does not depend on them. --tables 0 uses the
variant's own sizes.

  cells     generic gates after techmap + abc -fast (the flow of
            scripts/synth_check.sh), each inferred memory counted as 1
  ffs       flip-flop bits (every $_DFF*/$_SDFF*/$_DLATCH* cell)
  mem_bits  bits of the memories Yosys inferred ($mem_v2 WIDTH x SIZE):
            RAM macros in a real flow, left unexpanded
  mems      how many memories

rnic_top is the whole RNIC. Blocks run in parallel (--jobs, default the
core count); a block Yosys rejects is reported and the others go on.
"""
import argparse
import concurrent.futures
import csv
import glob
import json
import os
import re
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DEFAULTS = {"RNIC_DATA_W": "256", "RNIC_NQP": "1024", "RNIC_NCQ": "1024", "RNIC_NMR": "1024",
            "RNIC_INFL_DEPTH": "8", "RNIC_TX_RING": "16384", "RNIC_TX_FRAMES": "11",
            "RNIC_RWQE_CACHE": "64", "RNIC_ATOMIC_DEPTH": "16"}
PARAM_OF = {"DataW": "RNIC_DATA_W", "NQp": "RNIC_NQP", "NCq": "RNIC_NCQ", "NMr": "RNIC_NMR",
            "InflDepth": "RNIC_INFL_DEPTH", "TxRingBytes": "RNIC_TX_RING",
            "TxFrames": "RNIC_TX_FRAMES", "RwqeCache": "RNIC_RWQE_CACHE",
            "AtomicDepth": "RNIC_ATOMIC_DEPTH"}
# Parameters a block names differently from rnic_top.
PARAM_OF_BLOCK = {"rnic_tx_builder": {"RingBytes": "RNIC_TX_RING", "NFrames": "RNIC_TX_FRAMES"},
                  "rnic_rwqe_cache": {"Entries": "RNIC_RWQE_CACHE"},
                  "rnic_atomic_unit": {"Depth": "RNIC_ATOMIC_DEPTH"}}


def sources():
    pkg = os.path.join(ROOT, "rtl", "rnic_pkg.sv")
    mods = sorted(glob.glob(os.path.join(ROOT, "rtl", "*.sv")) +
                  glob.glob(os.path.join(ROOT, "rtl", "*", "*.sv")))
    return pkg, [m for m in mods if m != pkg]


def module_params(path):
    with open(path) as f:
        text = f.read()
    m = re.search(r"^module\s+\w+\s*#\((.*?)\)\s*\(", text, re.S | re.M)
    head = m.group(1) if m else ""
    return set(re.findall(r"parameter\s+(?:int\s+unsigned\s+|int\s+)?(\w+)\s*=", head))


def synth(block, path, pkg, mods, variant, abc):
    names = dict(PARAM_OF, **PARAM_OF_BLOCK.get(block, {}))
    sets = " ".join("-set %s %s" % (p, variant[c]) for p, c in names.items()
                    if p in module_params(path))
    with tempfile.TemporaryDirectory() as d:
        js = os.path.join(d, "out.json")
        script = os.path.join(d, "s.ys")
        incs = " ".join("-I" + x for x in [os.path.join(ROOT, "rtl")] +
                        sorted(glob.glob(os.path.join(ROOT, "rtl", "*/"))))
        with open(script, "w") as f:
            f.write("read_verilog -defer -sv %s %s %s\n" % (incs, pkg, " ".join(mods)))
            if sets:
                f.write("chparam %s %s\n" % (sets, block))
            f.write("hierarchy -top %s\nsynth -run begin:fine\nopt -fast -full\ntechmap\n"
                    "opt -fast\n%sflatten\nopt_clean\nwrite_json %s\n"
                    % (block, "abc -fast\nopt -fast\n" if abc else "", js))
        t0 = time.monotonic()
        r = subprocess.run(["yosys", "-q", "-s", script], stdout=subprocess.PIPE,
                           stderr=subprocess.STDOUT, text=True)
        sec = time.monotonic() - t0
        if r.returncode:
            err = [l for l in r.stdout.splitlines() if "ERROR" in l][-1:]
            return {"block": block, "status": "yosys: %s" % (err[0] if err else r.returncode)}
        with open(js) as f:
            design = json.load(f)
    mod = design["modules"][block] if block in design["modules"] else \
        next(m for n, m in design["modules"].items() if n.endswith(block))
    cells = ffs = mem_bits = mems = 0
    for c in mod["cells"].values():
        t = c["type"]
        cells += 1
        if re.match(r"\$_(S?DFF|DFFE|SDFFE|SDFFCE|DLATCH|ALDFF|DFFSR)", t):
            ffs += 1
        elif t.startswith("$mem"):
            mems += 1
            p = c["parameters"]
            mem_bits += int(p["WIDTH"], 2) * int(p["SIZE"], 2)
    return {"block": block, "status": "ok", "cells": cells, "ffs": ffs,
            "mem_bits": mem_bits, "mems": mems, "yosys_s": "%.1f" % sec}


def write_out(path, rows):
    """The CSV, sorted; written after every run, so a stopped run keeps its rows."""
    keys = sorted(DEFAULTS)
    rows.sort(key=lambda r: tuple(int(r[k]) for k in keys) +
              (r["block"] != "rnic_top", r["block"]))
    cols = keys + ["tables", "flow", "block", "status", "cells", "ffs", "mem_bits", "mems",
                   "yosys_s"]
    os.makedirs(os.path.dirname(os.path.abspath(path)), exist_ok=True)
    with open(path, "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=cols, restval="")
        w.writeheader()
        w.writerows(rows)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter,
                                 epilog=__doc__.split("\n", 2)[2])
    ap.add_argument("--variant", action="append",
                    help="NAME=V[,NAME=V] (default: the default build)")
    ap.add_argument("--blocks", help="comma-separated modules (default: every one)")
    ap.add_argument("--out", required=True, help="CSV")
    ap.add_argument("--md", help="Markdown table")
    ap.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    ap.add_argument("--no-abc", action="store_true",
                    help="count the gates techmap makes, without abc (much faster on wide "
                         "datapaths; more cells than the abc flow)")
    ap.add_argument("--top", action="store_true",
                    help="also rnic_top, the whole RNIC (over 25 minutes per variant with abc "
                         "on a loaded 2-core machine)")
    ap.add_argument("--summarize", action="store_true",
                    help="run nothing: add the blocks_total rows to --out and write --md")
    ap.add_argument("--tables", type=int, default=8,
                    help="QP/CQ/MR contexts to synthesize with (0: the variant's)")
    a = ap.parse_args()

    if a.summarize:
        with open(a.out) as f:
            rows = [r for r in csv.DictReader(f) if r["block"] != "blocks_total"]
        # Rows of a CSV written before a parameter was known have its default.
        for r in rows:
            for k, v in DEFAULTS.items():
                if not r.get(k):
                    r[k] = v
        rows += totals(rows)
        write_out(a.out, rows)
        write_md(a.md, rows)
        return 0
    pkg, mods = sources()
    blocks = [(os.path.splitext(os.path.basename(m))[0], m) for m in mods]
    if not a.top and not a.blocks:
        blocks = [b for b in blocks if b[0] != "rnic_top"]
    if a.blocks:
        want = a.blocks.split(",")
        blocks = [b for b in blocks if b[0] in want]
    variants = []
    for v in a.variant or [""]:
        d = dict(DEFAULTS)
        for kv in filter(None, v.split(",")):
            k, val = kv.split("=", 1)
            if k not in DEFAULTS:
                sys.exit("synth_cost: unknown parameter %s" % k)
            d[k] = val
        variants.append(d)
    def synth_params(v):
        d = dict(v)
        if a.tables:
            for k in ("RNIC_NQP", "RNIC_NCQ", "RNIC_NMR"):
                d[k] = str(a.tables)
        return d
    jobs = [(v, b, p) for v in variants for b, p in blocks]
    # The smallest first: rows are written as they finish, so a run stopped
    # early still has most blocks.
    jobs.sort(key=lambda j: os.path.getsize(j[2]) if j[1] != "rnic_top" else 1e9)
    rows, t0, failed = [], time.monotonic(), 0
    with concurrent.futures.ThreadPoolExecutor(max_workers=max(1, a.jobs)) as ex:
        futs = {ex.submit(synth, b, p, pkg, mods, synth_params(v), not a.no_abc): (v, b)
                for v, b, p in jobs}
        for i, f in enumerate(concurrent.futures.as_completed(futs)):
            v, b = futs[f]
            r = f.result()
            r.update(v)
            r["tables"] = a.tables or ""
            rows.append(r)
            r["flow"] = "techmap" if a.no_abc else "abc"
            write_out(a.out, rows)
            if r["status"] != "ok":
                failed += 1
                sys.stderr.write("synth_cost: %s (%s): %s\n" % (b, v, r["status"]))
            sys.stderr.write("synth_cost: %d/%d %s %s %.0fs\n" % (
                i + 1, len(jobs), b, ",".join("%s=%s" % kv for kv in sorted(v.items())),
                time.monotonic() - t0))
    keys = sorted(DEFAULTS)
    write_out(a.out, rows)
    if not a.top:
        rows += totals(rows)
        write_out(a.out, rows)
    write_md(a.md, rows)
    print("synth_cost: %d runs, %d failed; %s" % (len(rows), failed, a.out))
    return 1 if failed else 0


def top_children():
    """The modules rnic_top instantiates, but rnic_fifo (its doorbell queues
    have other widths than the module's defaults)."""
    with open(os.path.join(ROOT, "rtl", "rnic_top.sv")) as f:
        names = re.findall(r"^\s+(rnic_[a-z0-9_]+)\s+(?:#|u_)", f.read(), re.M)
    return sorted(set(names) - {"rnic_fifo"})


def totals(rows):
    """Per variant, blocks_total: the sum over the blocks rnic_top instantiates
    (each synthesized with the blocks below it), without rnic_top's own glue
    and its two doorbell FIFOs."""
    out, kids = [], top_children()
    keys = sorted(DEFAULTS)
    for v in sorted({tuple(r[k] for k in keys) for r in rows}):
        rs = [r for r in rows if tuple(r[k] for k in keys) == v and r["block"] in kids]
        if len(rs) != len(kids) or any(r["status"] != "ok" for r in rs):
            continue
        t = dict(rs[0])
        t.update(block="blocks_total", status="ok", yosys_s="")
        for c in ("cells", "ffs", "mem_bits", "mems"):
            t[c] = sum(int(r[c]) for r in rs)
        out.append(t)
    return out


def write_md(path, rows):
    if path:
        keys = sorted(DEFAULTS)
        vary = [k for k in keys if len({r[k] for r in rows}) > 1] or ["RNIC_DATA_W"]
        with open(path, "w") as f:
            f.write("| %s | block | cells | flip-flops | memory bits (memories) |\n" %
                    " | ".join(vary))
            f.write("|%s---|---:|---:|---:|\n" % ("---:|" * len(vary)))
            for r in rows:
                f.write("| %s | %s | %s | %s | %s (%s) |\n" % (
                    " | ".join(r[k] for k in vary), r["block"], r.get("cells", r["status"]),
                    r.get("ffs", ""), r.get("mem_bits", ""), r.get("mems", "")))


if __name__ == "__main__":
    sys.exit(main())
