#!/usr/bin/env python3
"""The collective-time recipe: nccl-tests' size sweep (-b -e -f) with
dpdk-aifab's generator, one run per size, one table, a verdict.

  tools/sweep.py [--exe PATH] [--profile FILE] [-b 8] [-e 128M] [-f 2]
                 [--set sect.key=value ...] [--min-busbw GBPS]
                 [--json FILE] [-- EAL options]

Each size S runs `dpdk-aifab [EAL options] -- --profile FILE --set
generator.size_bytes=S ...` (the profile's collective, ranks, ports and
loop; against a switch under test: generator ports cabled to it,
[generator] gateway_macs, closed_loop = true; see docs/lab.md), reads its
JSON report and prints the row nccl-tests would: size, count, type, redop,
time (us), algbw, busbw, #wrong (N/A: there is no data to check). With
--min-busbw the verdict is PASS if the largest size reached it. Exit
status 0 when every run exited 0 (and the verdict, if asked, passed)."""
import argparse
import json
import os
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
REDOP = {"allreduce": "sum", "reducescatter": "sum", "allgather": "none",
         "alltoall": "none"}


def size_arg(s):
    """nccl-tests sizes: 8, 64K, 128M, 1G (powers of 1024)."""
    mult = {"K": 1 << 10, "M": 1 << 20, "G": 1 << 30}
    s = s.strip().upper()
    if s and s[-1] in mult:
        return int(s[:-1]) * mult[s[-1]]
    return int(s)


def sizes(b, e, f):
    out, s = [], b
    while s <= e:
        out.append(s)
        s *= f
    return out


def main():
    argv = sys.argv[1:]
    eal = []
    if "--" in argv:
        eal = argv[argv.index("--") + 1:]
        argv = argv[:argv.index("--")]
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--exe", default=os.path.join(ROOT, "build", "app",
                                                  "dpdk-aifab"))
    ap.add_argument("--profile", default=None,
                    help="default: the embedded demo")
    ap.add_argument("-b", "--minbytes", type=size_arg, default=8)
    ap.add_argument("-e", "--maxbytes", type=size_arg, default=128 << 20)
    ap.add_argument("-f", "--stepfactor", type=int, default=2)
    ap.add_argument("--set", action="append", default=[])
    ap.add_argument("--min-busbw", type=float, default=None,
                    help="verdict: GB/s the largest size must reach")
    ap.add_argument("--duration", type=float, default=120.0)
    ap.add_argument("--json", default=None)
    a = ap.parse_args(argv)
    if a.stepfactor < 2 or a.minbytes < 1 or a.maxbytes < a.minbytes:
        sys.exit("sweep.py: -b %d -e %d -f %d; allowed: 1 <= b <= e, f >= 2"
                 % (a.minbytes, a.maxbytes, a.stepfactor))
    if not os.access(a.exe, os.X_OK):
        sys.exit("sweep.py: %s is not an executable; build first "
                 "(tools/setup.sh build) or pass --exe" % a.exe)
    rows, ok = [], True
    head = None
    with tempfile.TemporaryDirectory() as d:
        for s in sizes(a.minbytes, a.maxbytes, a.stepfactor):
            rep = os.path.join(d, "%d.json" % s)
            cmd = [a.exe] + eal + ["--"]
            if a.profile:
                cmd += ["--profile", a.profile]
            cmd += ["--quiet", "--report-json", rep, "--duration",
                    str(a.duration), "--set", "generator.size_bytes=%d" % s]
            for x in a.set:
                cmd += ["--set", x]
            p = subprocess.run(cmd, capture_output=True, text=True,
                               timeout=a.duration + 120)
            if p.returncode != 0 or not os.path.exists(rep):
                ok = False
                print("size %d: exit %d: %s" % (s, p.returncode,
                                                p.stderr.strip()[-300:]),
                      file=sys.stderr)
                continue
            with open(rep) as fh:
                r = json.load(fh)
            g = r["generator"]
            c = g["collective"]
            if head is None:
                head = "# %s: %d ranks, %s" % (
                    c["op"], c["ranks"],
                    "closed loop" if g.get("closed_loop") else "open loop")
                print(head)
                print("#%11s %12s %8s %6s %10s %8s %8s %6s" % (
                    "size", "count", "type", "redop", "time", "algbw",
                    "busbw", "#wrong"))
                print("#%11s %12s %8s %6s %10s %8s %8s %6s" % (
                    "(B)", "(elements)", "", "", "(us)", "(GB/s)", "(GB/s)",
                    ""))
            done = r["end"] == "input_consumed"
            row = {"size": s, "count": s // 4, "time_us":
                   c["time_us"]["avg"], "algbw_gbps": c["algbw_gbps"],
                   "busbw_gbps": c["busbw_gbps"], "finished": done,
                   "retx_packets": g.get("rc", {}).get("retx_packets", 0),
                   "pfc_rx": g.get("pfc", {}).get("rx_frames", 0),
                   "mempool_in_use_at_exit": r.get("mempool_in_use_at_exit")}
            rows.append(row)
            print(" %11d %12d %8s %6s %10.1f %8.2f %8.2f %6s%s" % (
                s, s // 4, "float", REDOP.get(c["op"], "none"),
                row["time_us"], row["algbw_gbps"], row["busbw_gbps"], "N/A",
                "" if done else "  (stopped: " + r["end"] + ")"),
                flush=True)
    verdict = None
    if a.min_busbw is not None and rows:
        verdict = "PASS" if rows[-1]["busbw_gbps"] >= a.min_busbw and \
            rows[-1]["finished"] else "FAIL"
        print("# verdict: busbw %.2f GB/s at %d B >= %.2f: %s" % (
            rows[-1]["busbw_gbps"], rows[-1]["size"], a.min_busbw, verdict))
    if rows:
        avg = sum(r["busbw_gbps"] for r in rows) / len(rows)
        print("# Avg bus bandwidth    : %.4f" % avg)
    if a.json:
        with open(a.json, "w") as fh:
            json.dump({"rows": rows, "verdict": verdict}, fh, indent=1)
    return 0 if ok and verdict != "FAIL" else 1


if __name__ == "__main__":
    sys.exit(main())
