#!/usr/bin/python3
# SPDX-License-Identifier: BSD-3-Clause
"""Soak: the demo fabric (profiles/demo.ini: 8 ranks in closed loop, cabled
in memory to a leaf) with fault injection on, for as long as asked; memory
must stay flat, the counters must add up, nothing may leak.

Usage: test_soak.py PATH/TO/dpdk-aifab [--seconds N] [--interval S]
                    [--warmup S] [--keep]

The collective runs until SIGINT (1000000 iterations), with the leaf's
fault stage busy on every port (FAULTS below: 0.1% loss on sending, delay
and jitter, CE marking, every-Nth loss on receive, a bandwidth limit), so
go-back-N, retransmit timeouts, CNPs/DCQCN and the delay lines run all
along. Every interval it prints the process RSS (/proc/<pid>/status), the
mbufs in use (telemetry /aifab/mempool where the binary has it, else
DPDK's /mempool/info, which in 22.11 has no free count: "n/a") and the
fabric's counters (telemetry /aifab/ports), and checks them: the counters
grow, and, from two reads A then B (counters never go backwards), the
leaf sent no more than it received (tx(A) - PFC(B) <= rx(B)), dropped no
more than it received, received no more than the ranks sent and the ranks
no more than the leaf sent, and what is in flight fits in the mbuf pools.
After --seconds it sends SIGINT mid-traffic.

At the end: exit 0 with end "signal"; mempool_in_use_at_exit 0; the
leaf's every received frame forwarded or dropped by a named reason (TX =
forwarded + PFC frames it generated; a frame its receive-side fault stage
loses is lost on the wire into the port: counted in the port's drops, not
in its rx_packets); every frame the leaf sent reached a rank; each fault acted; RSS after the warm-up grew by less than 5 % (+ 2
MB); mbufs in use (where reported live) without a growth trend.

tools/soak.sh runs this for minutes (docs/reliability.md); CI runs 60 s.
"""
import argparse
import json
import os
import signal
import subprocess
import sys
import tempfile
import time

from lib_aifab import Checks, Telemetry, telemetry_path

ROOT = os.environ.get("AIFAB_SOURCE_ROOT") or os.path.dirname(
    os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
RANKS = 8

# The fault stage on the leaf's ports (docs/profiles.md, [port.X] fault_*).
# s3 has only a receive-side loss, so its fault_loss count is that loss.
FAULTS = ["port.s%d.fault_tx_drop_ppm=1000" % i for i in range(RANKS)
          if i != 3] + [
    "port.s1.fault_tx_delay_us=50", "port.s1.fault_tx_jitter_us=50",
    "port.s2.fault_tx_ce_ppm=20000",
    "port.s3.fault_rx_drop_every=1000",
    "port.s4.fault_tx_rate_gbps=20",
]
# until SIGINT; a short retransmit timer so losses at a message's tail
# cost 5 ms, not 67 (more iterations, more recoveries per minute)
# The demo runs on the virtual clock at 400G with 64 MiB; a soak is wall
# time: the TSC clock and the demo's former 4 MiB message.
RUN_SETS = ["general.clock=realtime", "generator.size_bytes=4194304",
            "generator.iterations=1000000", "generator.retx_timeout_us=5000"]


# ---- DPDK telemetry (v2 socket: JSON over SOCK_SEQPACKET) ---------------------

def mempools(tel):
    """(mbufs in use or -1, total pool size or -1, source)."""
    size = 0
    names = tel.query("/mempool/list").get("/mempool/list") or []
    infos = []
    for n in names:
        i = tel.query("/mempool/info,%s" % n).get("/mempool/info") or {}
        infos.append(i)
        size += i.get("size", 0)
    if "/aifab/mempool" in tel.cmds:
        d = tel.query("/aifab/mempool").get("/aifab/mempool") or {}
        # total_in_use: every pool of the process (the generator's too),
        # the figure mempool_in_use_at_exit gives at the end
        if isinstance(d.get("total_in_use"), int):
            return d["total_in_use"], size or -1, "/aifab/mempool"
    # DPDK 22.11's /mempool/info has no free count: not available then
    if infos and all("common_pool_count" in i for i in infos):
        return sum(i["size"] - i["common_pool_count"] -
                   i.get("total_cache_count", 0) for i in infos), size, \
            "/mempool/info"
    return -1, size or -1, "n/a"


def ports(tel):
    """/aifab/ports: {name: {rx, tx, drops, pfc_tx}}."""
    d = tel.query("/aifab/ports").get("/aifab/ports") or {}
    out = {}
    for i, n in enumerate(d.get("ports", [])):
        out[n] = {k: d[k][i] for k in ("rx_packets", "tx_packets", "drops",
                                       "pfc_tx")}
    return out


def sums(p):
    s = [n for n in p if n.startswith("s")]
    g = [n for n in p if n.startswith("g")]

    def tot(names, k):
        return sum(p[n][k] for n in names)
    return {"rx_s": tot(s, "rx_packets"), "tx_s": tot(s, "tx_packets"),
            "drops_s": tot(s, "drops"), "pfc_s": tot(s, "pfc_tx"),
            "rx_g": tot(g, "rx_packets"), "tx_g": tot(g, "tx_packets")}


def sanity(a, b, pool):
    """Counter checks from read A then read B; [] when all hold."""
    bad = []
    if a["tx_s"] - b["pfc_s"] > b["rx_s"]:
        bad.append("leaf sent %d (less PFC %d) > received %d"
                   % (a["tx_s"], b["pfc_s"], b["rx_s"]))
    if a["drops_s"] > b["rx_s"]:
        bad.append("leaf dropped %d > received %d" % (a["drops_s"],
                                                      b["rx_s"]))
    if a["rx_s"] > b["tx_g"]:
        bad.append("leaf received %d > ranks sent %d" % (a["rx_s"],
                                                          b["tx_g"]))
    if a["rx_g"] > b["tx_s"]:
        bad.append("ranks received %d > leaf sent %d" % (a["rx_g"],
                                                          b["tx_s"]))
    inflight = a["rx_s"] - b["drops_s"] - (b["tx_s"] - b["pfc_s"])
    if pool > 0 and inflight > pool:
        bad.append("in flight in the leaf %d > %d mbufs" % (inflight, pool))
    return bad


def rss_kb(pid):
    with open("/proc/%d/status" % pid) as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    return 0


# ---- the run -------------------------------------------------------------------

def soak(ck, exe, seconds, interval, warmup, keep):
    d = tempfile.mkdtemp(prefix="aifab-soak-")
    rep_path = os.path.join(d, "report.json")
    prefix = "aifab-soak-%d" % os.getpid()
    cmd = [exe, "--no-huge", "-m", "1024", "--no-pci", "--file-prefix",
           prefix, "--", "--profile", os.path.join(ROOT, "profiles",
                                                   "demo.ini"),
           "--quiet", "--report-json", rep_path]
    for s in RUN_SETS + FAULTS:
        cmd += ["--set", s]
    print("run: %s" % " ".join(cmd), flush=True)
    log = open(os.path.join(d, "console.txt"), "w")
    proc = subprocess.Popen(cmd, stdout=log, stderr=subprocess.STDOUT)
    t0 = time.monotonic()
    tel = None
    samples = []     # (t, rss_kb, mbufs in use, iterations)
    insane = []
    grew_ok = True
    prev = None
    print("%7s %10s %8s %10s %12s %12s %9s  %s" % (
        "t (s)", "RSS (KB)", "mbufs", "iters", "leaf rx", "leaf tx",
        "drops", "counters"), flush=True)
    while time.monotonic() - t0 < seconds and proc.poll() is None:
        time.sleep(min(interval, max(0.1, seconds -
                                     (time.monotonic() - t0))))
        if proc.poll() is not None:
            break
        if tel is None:
            path = telemetry_path(prefix)
            if path:
                try:
                    tel = Telemetry(path)
                except OSError as e:
                    print("telemetry: %s" % e)
        inuse, pool, src, it, a, bad = -1, -1, "n/a", 0, None, []
        if tel is not None:
            try:
                a = sums(ports(tel))
                inuse, pool, src = mempools(tel)
                it = (tel.query("/aifab/generator").get("/aifab/generator")
                      or {}).get("iterations", 0)
                b = sums(ports(tel))
                bad = sanity(a, b, pool)
            except (OSError, ValueError, KeyError) as e:
                print("telemetry query failed: %s" % e)
                a = None
        t = time.monotonic() - t0
        samples.append((t, rss_kb(proc.pid), inuse, it))
        if a is not None:
            if prev is not None and not (a["rx_s"] > prev["rx_s"] and
                                         it > samples[-2][3]):
                grew_ok = False
                bad.append("no progress since the last sample")
            prev = a
        insane += ["t=%.0f s: %s" % (t, x) for x in bad]
        print("%7.1f %10d %8s %10d %12s %12s %9s  %s" % (
            t, samples[-1][1], inuse if inuse >= 0 else "n/a", it,
            a["rx_s"] if a else "-", a["tx_s"] if a else "-",
            a["drops_s"] if a else "-",
            "; ".join(bad) if bad else "sane"), flush=True)
    if tel is not None:
        tel.close()
    alive = proc.poll() is None
    ck.check(alive, "still running after %d s (no crash)" % seconds,
             "exited with %r" % proc.poll())
    if alive:
        proc.send_signal(signal.SIGINT)
    try:
        rc = proc.wait(timeout=60)
    except subprocess.TimeoutExpired:
        proc.kill()
        rc = proc.wait()
    log.close()
    ck.eq(rc, 0, "exit status 0 after SIGINT mid-traffic")
    if rc != 0:
        print(open(os.path.join(d, "console.txt")).read()[-3000:])
    ck.check(tel is not None, "telemetry answered (live counters read)")
    ck.check(grew_ok, "the collective kept going: iterations and the "
             "leaf's rx grew every interval")
    ck.check(not insane, "live counters sane at every sample "
             "(sent <= received + generated, drops <= received, in flight "
             "<= mbufs)", "; ".join(insane[:5]))
    try:
        rep = json.load(open(rep_path))
    except (OSError, ValueError) as e:
        rep = None
        ck.check(False, "report written", str(e))
    if rep is not None:
        check_report(ck, rep)
    check_memory(ck, samples, warmup)
    if keep:
        print("kept: %s" % d)
    else:
        for f in os.listdir(d):
            os.unlink(os.path.join(d, f))
        os.rmdir(d)


def check_report(ck, rep):
    ck.section("report")
    ck.eq(rep.get("end"), "signal", "report end")
    ck.eq(rep.get("mempool_in_use_at_exit"), 0, "mempool_in_use_at_exit")
    P = rep["ports"]
    s = [n for n in P if n.startswith("s")]
    g = [n for n in P if n.startswith("g")]
    rx = sum(P[n]["rx_packets"] for n in s)
    tx = sum(P[n]["tx_packets"] for n in s)
    drops = sum(v for n in s for v in P[n]["drops"].values())
    pfc = sum(c.get("pfc_xoff_sent", 0) + c.get("pfc_xon_sent", 0)
              for n in s for c in P[n].get("tc", {}).values())
    reasons = {}
    for n in s:
        for r, v in P[n]["drops"].items():
            if v:
                reasons[r] = reasons.get(r, 0) + v
    grx = sum(P[n]["rx_packets"] for n in g)
    gtx = sum(P[n]["tx_packets"] for n in g)
    gen = rep["generator"]
    print("leaf rx %d, tx %d (PFC %d), dropped %d: %s; ranks tx %d rx %d; "
          "%d iterations" % (rx, tx, pfc, drops, reasons, gtx, grx,
                             gen["collective"]["iterations"]))
    ck.check(rx > 100000, "the soak moved traffic (%d frames)" % rx)
    # s3's fault_loss is its receive-side loss only (FAULTS): those frames
    # are in drops but never were in rx_packets
    wire = P["s3"]["drops"].get("fault_loss", 0)
    ck.eq(rx + wire, tx - pfc + drops, "leaf: every frame received was "
          "forwarded or dropped by a named reason (TX = forwarded + PFC "
          "sent; + %d lost on the wire into s3)" % wire)
    ck.eq(grx, tx, "every frame the leaf sent reached a rank")
    ck.check(rx <= gtx, "the leaf received no more than the ranks sent",
             "%d > %d" % (rx, gtx))
    # each fault acted
    fl = sum(P[n]["drops"].get("fault_loss", 0) for n in s)
    ck.check(fl > 0, "faults: frames lost by the fault stage (%d)" % fl)
    ck.check(P["s1"].get("fault", {}).get("delayed", 0) > 0,
             "faults: s1's delay line delayed frames",
             str(P["s1"].get("fault")))
    ck.check(P["s3"]["drops"].get("fault_loss", 0) > 0,
             "faults: s3 lost frames on receive (every 1000th)",
             str(P["s3"]["drops"].get("fault_loss")))
    ck.check(gen["dcqcn"]["cnp_tx"] > 0,
             "faults: s2's CE marks made the receivers send CNPs",
             str(gen["dcqcn"]))
    ck.check(gen["rc"]["retx_packets"] > 0 and gen["rc"]["timeouts"] > 0,
             "faults: losses recovered by go-back-N and by the timer",
             str(gen["rc"]))


def check_memory(ck, samples, warmup):
    ck.section("memory")
    after = [x for x in samples if x[0] >= warmup]
    if not ck.check(len(after) >= 2, "at least two samples after the %d s "
                    "warm-up" % warmup, "%d samples" % len(after)):
        return
    r0, r1 = after[0][1], after[-1][1]
    limit = r0 * 1.05 + 2048
    ck.check(r1 <= limit, "RSS after warm-up: %d KB -> %d KB (+%.1f %%), "
             "limit 5 %% + 2 MB" % (r0, r1, 100.0 * (r1 - r0) / max(r0, 1)),
             "grew beyond %d KB" % limit)
    use = [x[2] for x in after if x[2] >= 0]
    if len(use) >= 3:
        third = max(1, len(use) // 3)
        first, last = max(use[:third]), max(use[-third:])
        ck.check(last <= first + max(512, max(use) // 10),
                 "mbufs in use stay bounded (max %d in the first third "
                 "after warm-up, %d in the last)" % (first, last))
    else:
        print("note: telemetry gave no live mempool figures; RSS and "
              "mempool_in_use_at_exit checked")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("exe", nargs="?", default=os.environ.get("AIFAB_EXE"))
    ap.add_argument("--seconds", type=float, default=60)
    ap.add_argument("--interval", type=float, default=5)
    ap.add_argument("--warmup", type=float, default=None)
    ap.add_argument("--keep", action="store_true")
    a = ap.parse_args()
    if not a.exe or not os.access(a.exe, os.X_OK):
        sys.stderr.write("FAIL: dpdk-aifab binary not given\n")
        return 1
    warmup = a.warmup if a.warmup is not None else min(a.seconds / 3, 120)
    ck = Checks("soak")
    ck.section("soak: demo fabric with faults, %d s, sample every %d s, "
               "warm-up %d s" % (a.seconds, a.interval, warmup))
    soak(ck, a.exe, a.seconds, a.interval, warmup, a.keep)
    ck.finish()


if __name__ == "__main__":
    sys.exit(main())
