#!/usr/bin/python3
"""The main job: a bare dpdk-aifab runs the embedded in-memory fabric demo
(8 ranks cabled to a leaf at 400G, 64 MiB ring AllReduce in closed loop,
on the virtual clock) and ends by itself, within a minute, each iteration
at its ideal time (the frames' wire time) within 1%.

Judged from the JSON report against nccl-tests' formulas (PROTOCOLS.md):
busbw = algbw x 2(N-1)/N; each rank sends 2(N-1)/N x S of payload; no frame
dropped anywhere; every mbuf returned. The nccl-tests style table on stdout
(size count type redop time algbw busbw #wrong) agrees with the report."""
import json
import os
import subprocess
import sys
import tempfile
import time

exe = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else
                      os.environ["AIFAB_EXE"])
fails = []


def check(ok, what, got=""):
    print("%s  %s%s" % ("ok  " if ok else "FAIL", what,
                        "" if ok else ": got %s" % (got,)))
    if not ok:
        fails.append(what)


with tempfile.TemporaryDirectory() as d:
    t0 = time.monotonic()
    # Bare: no EAL options, no profile, no report option; the demo writes
    # dpdk-aifab-report.json where it runs.
    p = subprocess.run([exe], capture_output=True, text=True, timeout=120,
                       cwd=d)
    took = time.monotonic() - t0
    check(p.returncode == 0, "exit 0", (p.returncode, p.stderr[-500:]))
    check(took < 60, "ends by itself within a minute", "%.1f s" % took)
    rep = os.path.join(d, "dpdk-aifab-report.json")
    check(os.path.exists(rep) and
          "report: dpdk-aifab-report.json" in p.stdout,
          "writes its report, dpdk-aifab-report.json, and says so",
          os.listdir(d))
    r = json.load(open(rep))

# The run ends with a few lines on what the PFC/ECN/ECMP counters say;
# they must agree with the report.
out = p.stdout
check("what the fabric counters say:" in out,
      "the console explains the PFC, ECN and ECMP counters", out[-600:])
xoff = sum(t.get("pfc_xoff_sent", 0) for q in r["ports"].values()
           for t in q.get("tc", {}).values())
check(("PFC   no pause" in out) == (xoff == 0),
      "the PFC line agrees with pfc_xoff_sent in the report", xoff)
check("ECMP  no multi-path route" in out and not r.get("ecmp"),
      "the ECMP line: a single leaf has no multi-path route", r.get("ecmp"))
check(r["end"] == "input_consumed", "ended because the collective completed",
      r["end"])
check(r["profile"]["name"] == "demo", "the embedded demo profile ran",
      r["profile"])
g = r["generator"]
c = g["collective"]
N, S = c["ranks"], c["size"]
check(N == 8 and c["op"] == "allreduce", "8 ranks of AllReduce", c)
check(c["iterations"] == 5, "every timed iteration completed", c["iterations"])
check(g["closed_loop"] is True, "closed loop (ACK/NAK, RC)", g["closed_loop"])
# The demo runs on the virtual clock: the links set the pace, not the CPU.
# 400G links, 64 MiB: ring AllReduce is bandwidth-bound, so every timed
# iteration takes the same time, within 1% above the ideal (the frames'
# wire time: each rank sends 2(N-1) chunks of S/N in 4 KiB frames of
# 4096 + 82 wire bytes, the first of a message + 16 for RETH).
check(r["clock"] == "virtual", "the demo runs on the virtual clock",
      r.get("clock"))
sp = {q["speed_mbps"] for q in r["ports"].values()}
check(sp == {400000}, "every link 400G", sp)
chunk = S // N
wire = 2 * (N - 1) * (chunk + -(-chunk // 4096) * 82 + 16)
ideal = wire * 8 / 400e3  # us
check(abs(g["ideal_us"] - ideal) < 1e-3,
      "ideal_us = 2(N-1) x the chunk's wire bytes / 400G", (g["ideal_us"],
                                                          ideal))
its = [i["time_us"] for i in g["per_iteration"]]
check(len(set(its)) == 1 and ideal <= its[0] <= 1.01 * ideal,
      "every iteration the same, at the ideal within 1%", (its, ideal))
algbw = S / (c["time_us"]["avg"] * 1e-6) / 1e9
check(abs(c["algbw_gbps"] - algbw) <= 1e-3 * algbw,
      "algbw = S / avg time", (c["algbw_gbps"], algbw))
check(abs(c["busbw_gbps"] - c["algbw_gbps"] * 2 * (N - 1) / N)
      <= 2e-6 + 1e-5 * c["busbw_gbps"],  # JSON keeps 6 decimals
      "busbw = algbw x 2(N-1)/N", (c["busbw_gbps"], c["algbw_gbps"]))
check(c["time_us"]["min"] <= c["time_us"]["avg"] <= c["time_us"]["max"],
      "time min <= avg <= max", c["time_us"])
check(g["qps"]["lost"] == 0 and g["qps"]["duplicates"] == 0,
      "no PSN lost or duplicated", g["qps"])
drops = {p: {k: v for k, v in q["drops"].items() if v}
         for p, q in r["ports"].items()}
check(not any(drops.values()), "no frame dropped on any port", drops)
# Each switch port s<i> forwards what its rank g<i> sent it.
for i in range(8):
    s, gp = r["ports"]["s%d" % i], r["ports"]["g%d" % i]
    check(s["rx_packets"] == gp["tx_packets"] and
          gp["rx_packets"] == s["tx_packets"],
          "cable g%d <-> s%d carries what each side sent" % (i, i),
          (gp["tx_packets"], s["rx_packets"], s["tx_packets"],
           gp["rx_packets"]))
check(r["mempool_in_use_at_exit"] == 0, "every mbuf returned",
      r["mempool_in_use_at_exit"])

# The nccl-tests style table on stdout: its header names nccl-tests'
# columns, in nccl-tests' order, and its one row (one size) carries the
# report's figures, printed to the table's precision.
lines = out.splitlines()
want = ["size", "count", "type", "redop", "time", "algbw", "busbw",
        "#wrong"]
hdr = [i for i, ln in enumerate(lines)
       if ln.startswith("#") and ln.lstrip("#").split() == want]
check(len(hdr) == 1, "stdout: one nccl-tests header (size count type "
      "redop time algbw busbw #wrong)", out[:1500])
row = None
if hdr:
    units = lines[hdr[0] + 1].lstrip("#").split()
    check(units == ["(B)", "(elements)", "(us)", "(GB/s)", "(GB/s)"],
          "stdout: the units line under it", lines[hdr[0] + 1])
    for ln in lines[hdr[0] + 2:]:
        if ln.strip() and not ln.startswith("#"):
            row = ln.split()
            break
check(row is not None and len(row) == 8, "stdout: a data row of 8 columns",
      row)
if row is not None and len(row) == 8:
    check(int(row[0]) == S and int(row[1]) == S // 4 and row[2] == "float",
          "row: size = S, count = S / 4 floats", row[:3])
    check(row[3] == "sum", "row: redop sum (AllReduce)", row[3])
    check(abs(float(row[4]) - c["time_us"]["avg"]) <= 0.051,
          "row: time = the report's average time (0.1 us printed)",
          (row[4], c["time_us"]["avg"]))
    check(abs(float(row[5]) - c["algbw_gbps"]) <= 0.0051 and
          abs(float(row[6]) - c["busbw_gbps"]) <= 0.0051,
          "row: algbw and busbw = the report's (0.01 GB/s printed)",
          (row[5:7], c["algbw_gbps"], c["busbw_gbps"]))
    check(row[7] == "N/A", "row: #wrong N/A (no data check)", row[7])

print("test_demo: %d failed" % len(fails))
sys.exit(1 if fails else 0)
