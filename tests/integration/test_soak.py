#!/usr/bin/python3
# SPDX-License-Identifier: BSD-3-Clause
"""Soak: the switch under endless RoCEv2 load with ECN and PFC busy; memory
must stay flat and nothing may leak.

Usage: test_soak.py PATH/TO/dpdk-aifab [--seconds N] [--interval S]
                    [--warmup S] [--keep]

p0 and p1 replay a pcap of RoCEv2 WRITEs (DSCP 26 -> TC 3, lossless with
ECN; several QPs) and some TC 0 UDP forever (net_pcap infinite_rx=1)
towards off-leaf destinations, i.e. the ECMP uplinks p2/p3, which are
shaped to 1 Gb/s: their queues fill, ECN marks, PFC XOFF goes back out of
p0/p1, lossy traffic tail-drops. Every interval it prints the process RSS
(/proc/<pid>/status), mbufs in use (DPDK telemetry /mempool/info, where
the DPDK version reports free counts; 22.11 does not: "n/a") and the
ports' packet counters (telemetry /ethdev/stats), and checks the counters
only grow. After --seconds it sends SIGINT mid-traffic.

Checks: exit 0 with end "signal"; mempool_in_use_at_exit 0; every frame
received was forwarded, dropped by a named reason (including
flushed_at_stop) - PFC frames the switch generated are the only extra TX;
ECN marked and PFC was sent (the soak exercised them); RSS after the
warm-up grew by less than 5 % (+ 2 MB); mbufs in use stayed bounded (no
growth trend between the first and the last third after warm-up).

tools/soak.sh runs this for minutes (docs/reliability.md); CI runs 60 s.
"""
import argparse
import json
import os
import signal
import socket
import sys
import time

from scapy.all import IP, UDP, Ether, Raw
from scapy.contrib.roce import BTH

from lib_aifab import (NBR_IP4, NBR_MAC, PORT_MAC, PORT_NAMES, Checks, Run,
                       icrc_zlib)

FAR4 = ["172.16.%d.%d" % (i, j) for i in range(4) for j in (3, 7)]


def roce(port, dst, qpn, psn, paylen=1024):
    p = (Ether(dst=PORT_MAC[port], src=NBR_MAC[port]) /
         IP(src=NBR_IP4[port], dst=dst, tos=26 << 2 | 2, flags="DF") /
         UDP(sport=0xC000 + qpn, dport=4791, chksum=0) /
         BTH(opcode=0x07, dqpn=qpn, psn=psn, icrc=0) /
         Raw(bytes(paylen)))
    b = bytes(p)
    return b[:-4] + icrc_zlib(b, 14)


def udp(port, dst, k):
    return bytes(Ether(dst=PORT_MAC[port], src=NBR_MAC[port]) /
                 IP(src=NBR_IP4[port], dst=dst, id=k) /
                 UDP(sport=2000 + k, dport=3000) / Raw(bytes(600)))


def inputs():
    per = []
    for port in (0, 1):
        fr = []
        for i in range(64):
            fr.append(roce(port, FAR4[i % len(FAR4)], 0x100 + port * 16 +
                           i % 8, i))
            if i % 4 == 0:
                fr.append(udp(port, FAR4[(i // 4) % len(FAR4)], i))
        per.append(fr)
    return per + [[], []]


# ---- DPDK telemetry (v2 socket: JSON over SOCK_SEQPACKET) ---------------------

def telemetry_path(prefix):
    bases = ["/var/run/dpdk"]
    if os.environ.get("XDG_RUNTIME_DIR"):
        bases.append(os.path.join(os.environ["XDG_RUNTIME_DIR"], "dpdk"))
    bases.append("/tmp/dpdk")
    for b in bases:
        p = os.path.join(b, prefix, "dpdk_telemetry.v2")
        if os.path.exists(p):
            return p
    return None


class Telemetry:
    def __init__(self, path):
        self.s = socket.socket(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        self.s.settimeout(5)
        self.s.connect(path)
        self.s.recv(16384)          # greeting

    def query(self, cmd):
        self.s.send(cmd.encode())
        return json.loads(self.s.recv(1 << 20).decode())

    def close(self):
        self.s.close()


def mbufs_in_use(tel):
    """Sum over pools: size - free in the common pool - per-lcore caches."""
    total = 0
    names = tel.query("/mempool/list").get("/mempool/list") or []
    for n in names:
        i = tel.query("/mempool/info,%s" % n).get("/mempool/info") or {}
        # DPDK 22.11's /mempool/info has no free count: not available then
        if "size" not in i or "common_pool_count" not in i:
            return -1, names
        total += i["size"] - i["common_pool_count"] - \
            i.get("total_cache_count", 0)
    return total, names


def ethdev_packets(tel):
    out = []
    for pid in tel.query("/ethdev/list").get("/ethdev/list") or []:
        st = tel.query("/ethdev/stats,%d" % pid).get("/ethdev/stats") or {}
        out.append((st.get("ipackets", 0), st.get("opackets", 0),
                    st.get("rx_nombuf", 0)))
    return out


def rss_kb(pid):
    with open("/proc/%d/status" % pid) as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    return 0


# ---- the run -------------------------------------------------------------------

def soak(ck, exe, seconds, interval, warmup, keep):
    run = Run(exe, inputs(), tag="soak", tx_null=True, keep=keep,
              vdev_extra={0: "infinite_rx=1", 1: "infinite_rx=1"},
              app_args=["--set", "port.p2.speed_gbps=1",
                        "--set", "port.p3.speed_gbps=1"])
    proc = run.start()
    t0 = time.monotonic()
    tel = None
    samples = []     # (t, rss_kb, mbufs in use, [(ipk, opk, nombuf)])
    ok_flow = True
    print("%7s %10s %8s  %s" % ("t (s)", "RSS (KB)", "mbufs", "ports "
                                "rx/tx packets"), flush=True)
    while time.monotonic() - t0 < seconds and proc.poll() is None:
        time.sleep(min(interval, max(0.1, seconds -
                                     (time.monotonic() - t0))))
        if proc.poll() is not None:
            break
        if tel is None:
            path = telemetry_path(run.prefix)
            if path:
                try:
                    tel = Telemetry(path)
                except OSError as e:
                    print("telemetry: %s" % e)
        inuse, pk = -1, []
        if tel is not None:
            try:
                inuse, _ = mbufs_in_use(tel)
                pk = ethdev_packets(tel)
            except (OSError, ValueError) as e:
                print("telemetry query failed: %s" % e)
        t = time.monotonic() - t0
        samples.append((t, rss_kb(proc.pid), inuse, pk))
        print("%7.1f %10d %8s  %s" % (t, samples[-1][1], inuse if inuse >= 0
                                      else "n/a", " ".join(
            "%d/%d" % (a, b) for a, b, _ in pk)), flush=True)
        if len(samples) >= 2 and pk and samples[-2][3]:
            prev = samples[-2][3]
            grew = all(pk[i][0] > prev[i][0] for i in (0, 1))
            if not grew:
                ok_flow = False
                print("  !! p0/p1 rx counters did not grow this interval")
    if tel is not None:
        tel.close()
    alive = proc.poll() is None
    ck.check(alive, "still running after %d s (no crash)" % seconds,
             "exited with %r" % proc.poll())
    if alive:
        proc.send_signal(signal.SIGINT)
    run.finish(proc, timeout=60)
    ck.eq(run.rc, 0, "exit status 0 after SIGINT mid-traffic")
    if run.rc != 0:
        print(run.describe())
    ck.check(ok_flow, "traffic kept flowing: p0/p1 rx grew every interval")
    check_report(ck, run.report)
    check_memory(ck, samples, warmup)
    run.cleanup()


def check_report(ck, rep):
    ck.section("report")
    if not ck.check(isinstance(rep, dict) and "ports" in rep,
                    "report written"):
        return
    ck.eq(rep.get("end"), "signal", "report end")
    ck.eq(rep.get("mempool_in_use_at_exit"), 0, "mempool_in_use_at_exit")
    ports = rep["ports"]
    rx = sum(ports[p]["rx_packets"] for p in PORT_NAMES)
    tx = sum(ports[p]["tx_packets"] for p in PORT_NAMES)
    drops = sum(v for p in PORT_NAMES for r, v in ports[p]["drops"].items()
                if r != "no_mbuf")
    pfc = marked = 0
    for p in PORT_NAMES:
        for tc, c in ports[p].get("tc", {}).items():
            pfc += c.get("pfc_xoff_sent", 0) + c.get("pfc_xon_sent", 0)
            marked += c.get("ecn_marked", 0)
    reasons = {}
    for p in PORT_NAMES:
        for r, v in ports[p]["drops"].items():
            if v:
                reasons[r] = reasons.get(r, 0) + v
    print("rx %d, tx %d (of which PFC %d), dropped %d: %s; ECN marked %d" %
          (rx, tx, pfc, drops, reasons, marked))
    ck.check(rx > 10000, "the soak moved traffic (%d frames)" % rx)
    ck.eq(rx, tx - pfc + drops, "every frame received was forwarded or "
          "dropped by a named reason (TX = forwarded + PFC frames sent)")
    ck.check(marked > 0, "ECN marked frames (%d)" % marked)
    ck.check(pfc > 0, "PFC frames were sent (%d)" % pfc)


def check_memory(ck, samples, warmup):
    ck.section("memory")
    after = [s for s in samples if s[0] >= warmup]
    if not ck.check(len(after) >= 2, "at least two samples after the %d s "
                    "warm-up" % warmup, "%d samples" % len(after)):
        return
    r0, r1 = after[0][1], after[-1][1]
    limit = r0 * 1.05 + 2048
    ck.check(r1 <= limit, "RSS after warm-up: %d KB -> %d KB (+%.1f %%), "
             "limit 5 %% + 2 MB" % (r0, r1, 100.0 * (r1 - r0) / max(r0, 1)),
             "grew beyond %d KB" % limit)
    use = [s[2] for s in after if s[2] >= 0]
    if len(use) >= 3:
        third = max(1, len(use) // 3)
        first, last = max(use[:third]), max(use[-third:])
        size_hint = max(use) or 1
        ck.check(last <= first + max(512, size_hint // 10),
                 "mbufs in use stay bounded (max %d in the first third "
                 "after warm-up, %d in the last)" % (first, last))
    else:
        print("note: telemetry gave no mempool figures; only RSS checked")


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
    ck.section("soak: %d s, sample every %d s, warm-up %d s" %
               (a.seconds, a.interval, warmup))
    soak(ck, a.exe, a.seconds, a.interval, warmup, a.keep)
    ck.finish()


if __name__ == "__main__":
    sys.exit(main())
