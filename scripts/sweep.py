#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""sweep.py - run a benchmark (or any verbs program) over a grid of parameters.

    scripts/sweep.py --bench 'rnic_bench_op --op write --size {size} --kv' \\
        --arg size=8,64,512 --env RNIC_MEM_RD_LATENCY=25,50,100 \\
        --build RNIC_DATA_W=128,256 --out sweeps/x \\
        --plot x=size,y=goodput_gbps,series=RNIC_DATA_W,logx

Parameters (each NAME=v1,v2,... or NAME=lo:hi:*k / lo:hi:+k; the grid is
their cross product):
  --env NAME=...    an environment variable of the run (the model's and the
                    library's RNIC_* knobs, docs/time-model.md)
  --arg NAME=...    substituted for {NAME} in the command
  --build NAME=...  a CMake cache variable (RNIC_DATA_W, RNIC_NQP, ...):
                    each variant is configured and built once into
                    <build-root>/<NAME=value,...> and reused by later sweeps
                    (a variant whose values --build-dir already has runs
                    there)

The command's first word is a program of the build (looked up under the
build directory, built with `cmake --build --target` when missing or
stale) or a path to any program; LD_LIBRARY_PATH points at the build's
libibverbs.so.1, so unmodified verbs programs run on the simulated NIC.

Every point runs in its own process, up to --jobs at a time (default: the
core count). Each stdout line made only of key=value pairs is one CSV row
(a benchmark that reports several sizes gives several rows); a program
that prints none gives one row. Every row also has: point, status (ok or
the failure), wall_s, and sim_cycles (the final simulated cycle, from
RNIC_FFWD_STATS). A point that fails is reported and the sweep goes on;
the exit status is 1 if any failed.

Outputs in --out: results.csv, one PNG per --plot (matplotlib), log/ with
each point's stdout and stderr, and summary.md (a Markdown table of the
columns given with --table). --from-csv re-plots an existing CSV without
running anything (with --cost and the --build names: joined again, written
to --out). --cost FILE joins the hardware cost of each build
variant (scripts/synth_cost.py's CSV: the rnic_top row, or without one the
blocks_total row; --cost-block NAME: that block's row) as cells, ffs and
mem_bits.
"""
import argparse
import concurrent.futures
import csv
import itertools
import os
import re
import shlex
import subprocess
import sys
import threading
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
FIXED = ["point", "status", "wall_s", "sim_cycles"]
KV = re.compile(r"^[A-Za-z_][A-Za-z0-9_.]*=\S*$")


def values(spec):
    """'a,b,c' or 'lo:hi:*k' (geometric) or 'lo:hi:+k' (arithmetic)."""
    m = re.fullmatch(r"(-?\d+):(-?\d+):([*+])(\d+)", spec)
    if not m:
        return [v for v in spec.split(",") if v != ""]
    lo, hi, kind, k = int(m[1]), int(m[2]), m[3], int(m[4])
    if (kind == "*" and k < 2) or (kind == "+" and k < 1):
        sys.exit("sweep: bad step in %s" % spec)
    out, v = [], lo
    while v <= hi:
        out.append(str(v))
        v = v * k if kind == "*" else v + k
    return out


def params(items, kind):
    out = []
    for it in items or []:
        if "=" not in it:
            sys.exit("sweep: --%s %s: expected NAME=values" % (kind, it))
        name, spec = it.split("=", 1)
        vals = values(spec)
        if not vals:
            sys.exit("sweep: --%s %s: no values" % (kind, it))
        out.append((kind, name, vals))
    return out


def variant_dir(root, build):
    if not build:
        return None
    return os.path.join(root, ",".join("%s=%s" % kv for kv in sorted(build.items())))


def cache_vars(bdir):
    """The CMake cache variables of a build directory ({} if none)."""
    out = {}
    try:
        with open(os.path.join(bdir, "CMakeCache.txt")) as f:
            for line in f:
                m = re.match(r"^([A-Za-z_][A-Za-z0-9_]*):[A-Z]+=(.*)$", line.strip())
                if m:
                    out[m.group(1)] = m.group(2)
    except OSError:
        pass
    return out


def find_prog(bdir, name):
    for sub in ("tb/bench", "tb/system", "tb/programs", "tb/conformance", "tb/fabric",
                "tb/flows", "model", ""):
        p = os.path.join(bdir, sub, name)
        if os.path.isfile(p) and os.access(p, os.X_OK):
            return p
    return None


def build_variant(src, bdir, build, target, jobs, log):
    """Configure (once) and build target in bdir; returns an error or None."""
    cmds = []
    if not os.path.exists(os.path.join(bdir, "CMakeCache.txt")):
        cmds.append(["cmake", "-S", src, "-B", bdir, "-DCMAKE_BUILD_TYPE=Release"] +
                    ["-D%s=%s" % kv for kv in sorted(build.items())])
    cmds.append(["cmake", "--build", bdir, "-j%d" % jobs, "--target", target, "ibverbs"])
    for c in cmds:
        log.write("$ %s\n" % " ".join(c))
        log.flush()
        r = subprocess.run(c, stdout=log, stderr=subprocess.STDOUT)
        if r.returncode:
            return "%s failed (%d)" % (" ".join(c[:3]), r.returncode)
    return None


class Progress:
    def __init__(self, total, quiet):
        self.total, self.done, self.failed = total, 0, 0
        self.t0 = time.monotonic()
        self.quiet = quiet or not total
        self.tty = sys.stderr.isatty()
        self.shown = -1
        self.lock = threading.Lock()

    def step(self, ok, what):
        with self.lock:
            self.done += 1
            self.failed += 0 if ok else 1
            if not ok:
                sys.stderr.write("\rsweep: point failed: %s\n" % what)
            self.draw()

    def draw(self):
        if self.quiet:
            return
        el = time.monotonic() - self.t0
        left = el / self.done * (self.total - self.done) if self.done else 0
        w = 30
        fill = w * self.done // self.total
        # Not a terminal (a log, CTest): one line per tenth of the points.
        if not self.tty:
            tenth = 10 * self.done // self.total
            if tenth == self.shown:
                return
            self.shown = tenth
        sys.stderr.write("%s[%s%s] %d/%d  failed %d  elapsed %s  left ~%s %s" % (
            "\r" if self.tty else "", "#" * fill, "." * (w - fill), self.done, self.total,
            self.failed, fmt_t(el), fmt_t(left) if self.done else "?",
            "" if self.tty else "\n"))
        if self.tty and self.done == self.total:
            sys.stderr.write("\n")
        sys.stderr.flush()


def fmt_t(s):
    s = int(s + 0.5)
    return "%dm%02ds" % (s // 60, s % 60) if s >= 60 else "%ds" % s


def run_point(idx, point, cmd_tmpl, bdir, logdir, timeout):
    """Runs one point; returns a list of row dicts."""
    args = {n: v for (k, n), v in point.items() if k == "arg"}
    env = dict(os.environ)
    env.update({n: v for (k, n), v in point.items() if k == "env"})
    env["RNIC_FFWD_STATS"] = "1"
    try:
        argv = shlex.split(cmd_tmpl.format(**args))
    except (KeyError, IndexError) as e:
        return [{"status": "bad command template: %s" % e}]
    prog = argv[0]
    if os.sep not in prog:
        p = find_prog(bdir, prog)
        if p:
            argv[0] = p
    env["LD_LIBRARY_PATH"] = os.path.join(bdir, "libverbs") + (
        ":" + env["LD_LIBRARY_PATH"] if env.get("LD_LIBRARY_PATH") else "")
    t0 = time.monotonic()
    try:
        r = subprocess.run(argv, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                           timeout=timeout, text=True, errors="replace")
        out, err, rc = r.stdout, r.stderr, r.returncode
        status = "ok" if rc == 0 else "exit %d" % rc
    except subprocess.TimeoutExpired as e:
        out = (e.stdout or b"").decode(errors="replace") if isinstance(e.stdout, bytes) else (e.stdout or "")
        err = (e.stderr or b"").decode(errors="replace") if isinstance(e.stderr, bytes) else (e.stderr or "")
        status = "timeout %ds" % timeout
    except OSError as e:
        out, err, status = "", str(e), "cannot run: %s" % e
    wall = time.monotonic() - t0
    with open(os.path.join(logdir, "point%04d.out" % idx), "w") as f:
        f.write("$ %s\n%s" % (" ".join(shlex.quote(a) for a in argv), out))
    with open(os.path.join(logdir, "point%04d.err" % idx), "w") as f:
        f.write(err)
    m = re.search(r"fast-forward \S+: \d+ of (\d+) cycles", err)
    base = {"point": idx, "status": status, "wall_s": "%.3f" % wall,
            "sim_cycles": m.group(1) if m else ""}
    if status != "ok":
        last = [l for l in err.strip().splitlines() if "fast-forward" not in l][-1:]
        if last:
            base["status"] = "%s: %s" % (status, last[0][:160].replace(",", ";"))
    rows = []
    for line in out.splitlines():
        toks = line.split()
        if len(toks) >= 2 and all(KV.match(t) for t in toks):
            row = dict(base)
            row.update(t.split("=", 1) for t in toks)
            rows.append(row)
    return rows or [base]


def num(v):
    try:
        return float(v)
    except (TypeError, ValueError):
        return None


def plot(rows, spec, outdir, img_dir, name):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    opts = {}
    flags = set()
    for part in spec.split(","):
        if "=" in part:
            k, v = part.split("=", 1)
            opts[k] = v
        elif part:
            flags.add(part)
    x, ys = opts.get("x"), opts.get("y", "").split("+")
    if not x or not ys[0]:
        sys.exit("sweep: --plot %s: needs x=COL,y=COL[+COL]" % spec)
    series = opts.get("series")
    fname = opts.get("file") or "%s_%s_vs_%s.png" % (name, "+".join(ys), x)
    where = {}
    for f in opts.get("where", "").split(";"):
        if ":" in f:
            k, v = f.split(":", 1)
            where[k] = v
    data = [r for r in rows if r.get("status") == "ok" and
            all(str(r.get(k)) == v for k, v in where.items())]
    fig, ax = plt.subplots(figsize=(6.4, 4.2))
    groups = {}
    for r in data:
        groups.setdefault(r.get(series, "") if series else "", []).append(r)

    def skey(s):
        return (num(s) is None, num(s) or 0, str(s))
    for g in sorted(groups, key=skey):
        for y in ys:
            pts = sorted((num(r.get(x)), num(r.get(y))) for r in groups[g]
                         if num(r.get(x)) is not None and num(r.get(y)) is not None)
            if not pts:
                continue
            label = ", ".join(p for p in (("%s=%s" % (series, g)) if series else "",
                                          y if len(ys) > 1 else "") if p)
            ax.plot([p[0] for p in pts], [p[1] for p in pts], marker="o",
                    label=label or None)
    if "logx" in flags:
        ax.set_xscale("log", base=2)
    if "logy" in flags:
        ax.set_yscale("log")
    ax.set_xlabel(opts.get("xlabel", x))
    ax.set_ylabel(opts.get("ylabel", " / ".join(ys)))
    if opts.get("title"):
        ax.set_title(opts["title"])
    ax.grid(True, alpha=0.3)
    if ax.get_legend_handles_labels()[0]:
        ax.legend(fontsize="small")
    fig.tight_layout()
    dest = os.path.join(img_dir or outdir, fname)
    fig.savefig(dest, dpi=100)
    plt.close(fig)
    return dest


def write_csv(path, rows, pcols):
    cols = list(pcols) + [c for c in FIXED if c not in pcols]
    for r in rows:
        for k in r:
            if k not in cols:
                cols.append(k)
    with open(path, "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=cols, restval="")
        w.writeheader()
        for r in rows:
            w.writerow(r)


def join_cost(rows, cost_csv, bnames, block=None, base=None):
    """base: the default build's cache; a parameter the sweep does not vary
    must have its value there in the cost row."""
    with open(cost_csv) as f:
        cost = [c for c in csv.DictReader(f) if c.get("status") == "ok"]
    fixed = {k: v for k, v in (base or {}).items()
             if k not in bnames and cost and k in cost[0]}
    cost = [c for c in cost if all(c[k] == v for k, v in fixed.items())]
    if block:
        cost = [c for c in cost if c.get("block") == block]
    else:
        # The whole RNIC if it was synthesized, else the sum of its blocks.
        whole = [c for c in cost if c.get("block") == "rnic_top"]
        cost = whole or [c for c in cost if c.get("block") == "blocks_total"]
    for r in rows:
        for c in cost:
            if all(str(c.get(b)) == str(r.get(b)) for b in bnames):
                for k in ("cells", "ffs", "mem_bits"):
                    r[k] = c.get(k, "")


def summary(path, rows, cols):
    cols = [c for c in cols if c]
    with open(path, "w") as f:
        f.write("| %s |\n|%s\n" % (" | ".join(cols), "---:|" * len(cols)))
        for r in rows:
            f.write("| %s |\n" % " | ".join(str(r.get(c, "")) for c in cols))


def need_matplotlib():
    """Debian's python3-matplotlib lives in /usr/bin/python3's path; another
    python3 first in PATH (pyenv, a venv) may lack it: run again under that one."""
    try:
        import matplotlib  # noqa: F401
    except ImportError:
        if os.path.realpath(sys.executable) != os.path.realpath("/usr/bin/python3") and \
                os.path.exists("/usr/bin/python3"):
            os.execv("/usr/bin/python3", ["/usr/bin/python3"] + sys.argv)
        sys.exit("sweep: needs matplotlib (Debian package python3-matplotlib)")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter,
                                 epilog=__doc__.split("\n", 2)[2])
    ap.add_argument("--bench", help="command line, {NAME} replaced by --arg values")
    ap.add_argument("--env", action="append", metavar="NAME=VALUES")
    ap.add_argument("--arg", action="append", metavar="NAME=VALUES")
    ap.add_argument("--build", action="append", metavar="NAME=VALUES")
    ap.add_argument("--out", required=True, help="output directory")
    ap.add_argument("--name", default="sweep", help="prefix of the plot files")
    ap.add_argument("--img-dir", help="write the plots here instead of --out")
    ap.add_argument("--plot", action="append", default=[],
                    help="x=COL,y=COL[+COL],series=COL[,logx][,logy][,where=COL:V;COL:V]"
                         "[,title=T][,xlabel=T][,ylabel=T][,file=NAME.png]")
    ap.add_argument("--table", help="comma-separated columns of summary.md")
    ap.add_argument("--cost", help="hardware cost CSV to join (scripts/synth_cost.py)")
    ap.add_argument("--cost-block", help="join this block's cost (default: the whole RNIC)")
    ap.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    ap.add_argument("--build-dir", default=os.path.join(ROOT, "build"),
                    help="build used when no --build parameter is given")
    ap.add_argument("--build-root", default=os.path.join(ROOT, "build-sweep"),
                    help="where build-time variants are built")
    ap.add_argument("--src", default=ROOT)
    ap.add_argument("--no-build", action="store_true",
                    help="use the build directories as they are")
    ap.add_argument("--timeout", type=int, default=1800, help="seconds per point")
    ap.add_argument("--from-csv", help="plot this CSV; run nothing")
    ap.add_argument("--quiet", action="store_true", help="no progress bar")
    a = ap.parse_args()
    if a.plot:
        need_matplotlib()

    os.makedirs(a.out, exist_ok=True)
    if a.img_dir:
        os.makedirs(a.img_dir, exist_ok=True)
    grid = params(a.build, "build") + params(a.env, "env") + params(a.arg, "arg")
    pcols = [n for _, n, _ in grid]
    failed = 0
    if a.from_csv:
        with open(a.from_csv) as f:
            rows = list(csv.DictReader(f))
        if a.cost:
            join_cost(rows, a.cost, [n for k, n, _ in grid if k == "build"], a.cost_block,
                      cache_vars(a.build_dir))
            write_csv(os.path.join(a.out, "results.csv"), rows, pcols)
    else:
        if not a.bench:
            sys.exit("sweep: --bench is required (or --from-csv)")
        points = [dict(zip([(k, n) for k, n, _ in grid], combo))
                  for combo in itertools.product(*[v for _, _, v in grid])]
        logdir = os.path.join(a.out, "log")
        os.makedirs(logdir, exist_ok=True)
        target = os.path.basename(shlex.split(a.bench)[0])
        # Build-time variants: each built once, in order, before any point runs.
        variants = {}
        for p in points:
            b = {n: v for (k, n), v in p.items() if k == "build"}
            key = tuple(sorted(b.items()))
            if key not in variants:
                # A variant the default build already is: that build.
                cv = cache_vars(a.build_dir)
                same = b and all(cv.get(n) == v for n, v in b.items())
                variants[key] = ((a.build_dir if same else variant_dir(a.build_root, b)) or
                                 a.build_dir, None)
        with open(os.path.join(a.out, "build.log"), "w") as blog:
            for key, (bdir, _) in variants.items():
                err = None
                if not a.no_build and os.sep not in shlex.split(a.bench)[0]:
                    if not a.quiet:
                        sys.stderr.write("sweep: building %s in %s\n" % (target, bdir))
                    err = build_variant(a.src, bdir, dict(key), target, a.jobs, blog)
                variants[key] = (bdir, err)
        prog = Progress(len(points), a.quiet)
        prog.draw()
        rows_of = {}

        def one(i, p):
            b = tuple(sorted((n, v) for (k, n), v in p.items() if k == "build"))
            bdir, err = variants[b]
            if err:
                rows = [{"point": i, "status": "build: %s" % err}]
            else:
                rows = run_point(i, p, a.bench, bdir, logdir, a.timeout)
            for r in rows:
                r.update({n: v for (k, n), v in p.items()})
            ok = all(r["status"] == "ok" for r in rows)
            prog.step(ok, "%d (%s): %s" % (i, " ".join("%s=%s" % (n, v) for (k, n), v in p.items()),
                                           rows[0]["status"]))
            return i, rows

        with concurrent.futures.ThreadPoolExecutor(max_workers=max(1, a.jobs)) as ex:
            for i, rows in ex.map(lambda ip: one(*ip), enumerate(points)):
                rows_of[i] = rows
        rows = [r for i in sorted(rows_of) for r in rows_of[i]]
        failed = prog.failed
        if a.cost:
            join_cost(rows, a.cost, [n for k, n, _ in grid if k == "build"], a.cost_block,
                      cache_vars(a.build_dir))
        write_csv(os.path.join(a.out, "results.csv"), rows, pcols)
        print("sweep: %d points, %d failed; %s" % (len(points), failed,
                                                  os.path.join(a.out, "results.csv")))
    for spec in a.plot:
        print("sweep: plot %s" % plot(rows, spec, a.out, a.img_dir, a.name))
    if a.table:
        summary(os.path.join(a.out, "summary.md"), rows, a.table.split(","))
        print("sweep: table %s" % os.path.join(a.out, "summary.md"))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
