#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""sweep_check.py BUILD_DIR OUT_DIR - the sweep runner's CTest.

Runs scripts/sweep.py on 5 points: rnic_bench_op (8 and 512-byte WRITEs) at
host memory read latencies 25 and 100, plus one point with a size the
benchmark refuses. Checks that the sweep goes on past the failing point and
exits 1, that the CSV holds one row per point with the failure reported,
that every good row carries measurements (cycles, rate, latency
percentiles, wall time) that differ between the points as the model says
they must (the unloaded latency grows by 2 x 75 cycles: the WQE read and
the payload read), and that the plots are PNG files.
"""
import csv
import os
import subprocess
import sys

build, out = sys.argv[1], sys.argv[2]
root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
img = os.path.join(out, "img")
cmd = ["/usr/bin/python3", os.path.join(root, "scripts", "sweep.py"),
       "--bench", "rnic_bench_op --op write --size {size} --msgs 64 --lat-reps 4 --kv",
       "--arg", "size=8,512,0", "--env", "RNIC_MEM_RD_LATENCY=25,100",
       "--build-dir", build, "--no-build", "--jobs", "2", "--out", out,
       "--img-dir", img, "--name", "check",
       "--plot", "x=RNIC_MEM_RD_LATENCY,y=lat_p50,series=size",
       "--plot", "x=size,y=msg_rate_mpps,series=RNIC_MEM_RD_LATENCY,logx,file=rate.png"]
r = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
print(r.stdout)
fails = []


def check(cond, what):
    if not cond:
        fails.append(what)


check(r.returncode == 1, "sweep exit status %d, expected 1 (a point failed)" % r.returncode)
with open(os.path.join(out, "results.csv")) as f:
    rows = list(csv.DictReader(f))
check(len(rows) == 6, "%d rows, expected 6" % len(rows))
bad = [x for x in rows if x["size"] == "0"]
good = {(x["size"], x["RNIC_MEM_RD_LATENCY"]): x for x in rows if x["size"] != "0"}
check(len(bad) == 2 and all(x["status"].startswith("exit 2") for x in bad),
      "the size-0 points are not reported as failed: %s" % [x["status"] for x in bad])
check(len(good) == 4 and all(x["status"] == "ok" for x in good.values()),
      "good points: %s" % [x["status"] for x in good.values()])
for x in good.values():
    for k in ("cycles", "msg_rate_mpps", "lat_p50", "lat_p99", "load_lat_p99",
              "goodput_gbps", "wall_s", "sim_cycles"):
        check(x.get(k) not in (None, "") and float(x[k]) > 0, "%s missing in %s" % (k, x))
if len(good) == 4:
    for size in ("8", "512"):
        lo, hi = good[(size, "25")], good[(size, "100")]
        check(int(hi["lat_p50"]) - int(lo["lat_p50"]) == 150,
              "size %s: latency %s -> %s, expected +150" % (size, lo["lat_p50"], hi["lat_p50"]))
        check(float(hi["msg_rate_mpps"]) < float(lo["msg_rate_mpps"]),
              "size %s: rate did not drop with slower memory" % size)
        check(int(hi["sim_cycles"]) > int(lo["sim_cycles"]), "sim_cycles did not grow")
    check(good[("8", "25")]["cycles"] != good[("512", "25")]["cycles"],
          "8 and 512 bytes took the same cycles")
for p in ("check_lat_p50_vs_RNIC_MEM_RD_LATENCY.png", "rate.png"):
    path = os.path.join(img, p)
    ok = os.path.exists(path) and os.path.getsize(path) > 1000
    if ok:
        with open(path, "rb") as f:
            ok = f.read(8) == b"\x89PNG\r\n\x1a\n"
    check(ok, "plot %s not written" % path)
for f in fails:
    print("FAIL: " + f)
sys.exit(1 if fails else 0)
