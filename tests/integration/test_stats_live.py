#!/usr/bin/python3
# SPDX-License-Identifier: BSD-3-Clause
"""Live statistics of a running dpdk-aifab, judged from outside.

The switch forwards a tiny pcap replayed forever (net_pcap infinite_rx=1,
plus a PFC frame so PFC counters move) for a few seconds. While it runs:

* rte_telemetry answers on its socket (/var/run/dpdk/<prefix>/
  dpdk_telemetry.v2, SOCK_SEQPACKET) and through Debian's
  `dpdk-telemetry.py -f <prefix>`: every /aifab/... command, lib/stats'
  /aifab/sw and DPDK's own /ethdev/...; two rounds of answers are
  monotonic and, after the run, no larger than the final JSON report;
* the --prometheus file passes `promtool check metrics`
  (dpdk-dumpcap has its own test, test_dumpcap.py, on hugepages it makes);

and afterwards the --stats-jsonl lines parse and grow, and the
--report-html page has its SVG charts (html.parser) and renders in
headless Chromium to a PNG.

Usage: test_stats_live.py PATH/TO/dpdk-aifab
"""
import html.parser
import json
import os
import shutil
import socket
import struct
import subprocess
import sys
import tempfile
import time

from lib_aifab import (NBR_IP4, NBR_MAC, PORT_MAC, Checks, exe_path,
                       file_prefix, leaf_profile, pfc_frame, write_pcap,
                       _remove_runtime_dir)
from scapy.all import IP, UDP, Ether, Raw

DURATION_S = 6
AIFAB_CMDS = ["/aifab/ports", "/aifab/ports,p1", "/aifab/tc", "/aifab/tc,p1",
              "/aifab/pfc", "/aifab/pfc,p0", "/aifab/ecmp",
              "/aifab/generator", "/aifab/lcores", "/aifab/sw,rx_pkts"]


def frames():
    """p0 -> p1's neighbour (DSCP 26: TC 3), one TTL-1 frame (a drop), one
    PFC frame pausing priority 3 of p0's egress."""
    out = []
    for i in range(8):
        out.append(bytes(Ether(src=NBR_MAC[0], dst=PORT_MAC[0]) /
                         IP(src=NBR_IP4[0], dst=NBR_IP4[1], tos=26 << 2 | 2) /
                         UDP(sport=1000 + i, dport=4791) / Raw(b"x" * 200)))
    out.append(bytes(Ether(src=NBR_MAC[0], dst=PORT_MAC[0]) /
                     IP(src=NBR_IP4[0], dst=NBR_IP4[1], ttl=1) /
                     UDP(sport=5, dport=6) / Raw(b"y" * 50)))
    out.append(pfc_frame(NBR_MAC[0], 1 << 3, [0, 0, 0, 100, 0, 0, 0, 0]))
    return out


def hugepages_usable(pages=256):
    """Free 2 MB hugepages and a hugetlbfs mount (then EAL uses them)."""
    free = 0
    with open("/proc/meminfo") as f:
        for line in f:
            if line.startswith("HugePages_Free:"):
                free = int(line.split()[1])
    with open("/proc/mounts") as f:
        mounted = any(" hugetlbfs " in line for line in f)
    return free >= pages and mounted


def runtime_dir(prefix):
    if os.geteuid() == 0:
        return os.path.join("/var/run/dpdk", prefix)
    base = os.environ.get("XDG_RUNTIME_DIR", "/tmp")
    return os.path.join(base, "dpdk", prefix)


class Telemetry:
    """DPDK telemetry v2 client: one JSON reply per command."""

    def __init__(self, path):
        self.s = socket.socket(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        self.s.connect(path)
        self.info = json.loads(self.s.recv(16384).decode())

    def ask(self, cmd):
        self.s.send(cmd.encode())
        reply = json.loads(self.s.recv(1 << 17).decode())
        return reply.get(cmd.split(",")[0])

    def close(self):
        self.s.close()


def wait_for(path, proc, timeout=20):
    end = time.time() + timeout
    while time.time() < end and proc.poll() is None:
        if os.path.exists(path):
            return True
        time.sleep(0.1)
    return os.path.exists(path)


class SvgCount(html.parser.HTMLParser):
    def __init__(self):
        super().__init__()
        self.tags = {}
        self.series = []
        self.h2 = []
        self._in_h2 = False

    def handle_starttag(self, tag, attrs):
        self.tags[tag] = self.tags.get(tag, 0) + 1
        a = dict(attrs)
        if tag == "polyline" and a.get("class") == "series":
            self.series.append(a.get("points", ""))
        self._in_h2 = tag == "h2"

    def handle_data(self, data):
        if self._in_h2:
            self.h2.append(data)
            self._in_h2 = False


def png_size(path):
    with open(path, "rb") as f:
        head = f.read(24)
    if head[:8] != b"\x89PNG\r\n\x1a\n":
        return None
    return struct.unpack(">II", head[16:24])


def check_monotonic(ck, a, b, what):
    bad = [k for k in a if isinstance(a[k], list) and
           any(y < x for x, y in zip(a[k], b.get(k, [])))]
    ck.check(not bad, "%s: second answer >= first" % what, str(bad))


def telemetry_round(ck, tel, label):
    got = {}
    for cmd in AIFAB_CMDS:
        r = tel.ask(cmd)
        ck.check(isinstance(r, dict), "%s: %s answers a dict" % (label, cmd),
                 repr(r)[:200])
        got[cmd] = r if isinstance(r, dict) else {}
    return got


def chromium_check(ck, tmp, page):
    exe = shutil.which("chromium") or shutil.which("chromium-browser")
    if exe is None:
        ck.check(False, "chromium installed (tools/setup.sh installs it)")
        return
    png = os.path.join(tmp, "report.png")
    prof = tempfile.mkdtemp(prefix="chromium-", dir=tmp)
    cmd = [exe, "--headless", "--no-sandbox", "--disable-gpu",
           "--disable-quic", "--no-first-run",
           "--disable-background-networking", "--disable-component-update",
           "--disable-sync", "--user-data-dir=" + prof,
           "--window-size=1000,2400", "--screenshot=" + png,
           "file://" + page]
    try:
        subprocess.run(cmd, capture_output=True, timeout=90)
    except subprocess.TimeoutExpired:
        ck.check(False, "chromium rendered within 90 s")
        return
    size = png_size(png) if os.path.exists(png) else None
    ck.check(size is not None and size[0] >= 800 and
             os.path.getsize(png) > 10000,
             "headless Chromium renders the report to a PNG",
             "size %r, %d bytes" % (size, os.path.getsize(png)
                                    if os.path.exists(png) else 0))


def main():
    exe = exe_path()
    ck = Checks("stats_live")
    tmp = tempfile.mkdtemp(prefix="aifab-it-live-")
    prefix = file_prefix("live")
    in0, empty = os.path.join(tmp, "in0.pcap"), os.path.join(tmp, "e.pcap")
    write_pcap(in0, frames())
    write_pcap(empty, [])
    paths = {k: os.path.join(tmp, v) for k, v in
             (("json", "r.json"), ("prom", "m.prom"), ("jsonl", "s.jsonl"),
              ("html", "r.html"))}
    huge = hugepages_usable()
    eal = [] if huge else ["--no-huge", "-m", "512"]
    eal += ["--no-pci", "-l", "0-1", "--file-prefix", prefix,
            "--vdev", "net_pcap0,rx_pcap=%s,tx_pcap=/dev/null,infinite_rx=1"
            % in0]
    for p in (1, 2, 3):
        eal += ["--vdev", "net_pcap%d,rx_pcap=%s,tx_pcap=/dev/null" %
                (p, empty)]
    cmd = [exe] + eal + ["--", "--profile", leaf_profile(), "--duration",
                         str(DURATION_S), "--stats-interval", "0.5",
                         "--report-json", paths["json"], "--prometheus",
                         paths["prom"], "--stats-jsonl", paths["jsonl"],
                         "--report-html", paths["html"]]
    print(" ".join(cmd))
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)
    try:
        ck.section("telemetry while running")
        sock = os.path.join(runtime_dir(prefix), "dpdk_telemetry.v2")
        if not ck.check(wait_for(sock, proc), "telemetry socket " + sock):
            proc.kill()
            out, err = proc.communicate()
            ck.fatal("app output", out[-2000:] + err[-2000:])
        time.sleep(1.5)
        tel = Telemetry(sock)
        first = telemetry_round(ck, tel, "round 1")
        eth = tel.ask("/ethdev/list")
        ck.check(isinstance(eth, list) and len(eth) == 4,
                 "DPDK's /ethdev/list still answers", repr(eth))
        st = tel.ask("/ethdev/stats,0")
        ck.check(isinstance(st, dict) and st.get("ipackets", 0) > 0,
                 "DPDK's /ethdev/stats,0 counts RX", repr(st)[:200])
        time.sleep(1.0)
        second = telemetry_round(ck, tel, "round 2")
        full = tel.ask("/aifab/sw")
        tel.close()
        ck.check(isinstance(full, dict) and "rx_pkts" in full,
                 "/aifab/sw (lib/stats' whole set) answers")
        p1 = first["/aifab/ports"]
        ck.eq(p1.get("ports"), ["p0", "p1", "p2", "p3"],
              "/aifab/ports lists the ports")
        ck.check(p1.get("rx_packets", [0])[0] > 0 and
                 p1.get("tx_packets", [0, 0])[1] > 0,
                 "/aifab/ports: p0 receives and p1 sends",
                 repr(p1)[:300])
        for cmd in ("/aifab/ports", "/aifab/tc", "/aifab/pfc",
                    "/aifab/lcores"):
            check_monotonic(ck, first[cmd], second[cmd], cmd)
        ck.check(second["/aifab/pfc,p0"].get("pfc_rx", [0] * 8)[3] > 0,
                 "/aifab/pfc,p0: PFC received for priority 3",
                 repr(second["/aifab/pfc,p0"])[:300])
        ck.check(second["/aifab/tc,p1"].get("tc_tx_pkts", [0] * 8)[3] > 0,
                 "/aifab/tc,p1: TC 3 sends")
        ck.check(second["/aifab/lcores"].get("packets", [0])[0] > 0,
                 "/aifab/lcores counts packets")
        ck.check(len(second["/aifab/ecmp"].get("members", [])) == 4,
                 "/aifab/ecmp lists the default routes' members")
        ck.eq(second["/aifab/generator"].get("running"), 0,
              "/aifab/generator: no generator in this profile")

        # Debian's client, commands piped on stdin.
        r = subprocess.run(["dpdk-telemetry.py", "-f", prefix],
                           input="/aifab/ports\n/aifab/lcores\nquit\n",
                           capture_output=True, text=True, timeout=30)
        ck.check('"/aifab/ports"' in r.stdout and
                 '"/aifab/lcores"' in r.stdout,
                 "dpdk-telemetry.py -f <prefix> answers /aifab/ports and "
                 "/aifab/lcores", (r.stdout + r.stderr)[-300:])

        ck.section("Prometheus file while running")
        live_prom = os.path.join(tmp, "live.prom")
        shutil.copy(paths["prom"], live_prom)
        with open(live_prom) as f:
            text = f.read()
        r = subprocess.run(["promtool", "check", "metrics"], input=text,
                           capture_output=True, text=True)
        ck.eq(r.returncode, 0, "promtool check metrics (%s)" %
              (r.stdout + r.stderr).strip()[:300])
        for m in ("aifab_sw_rx_pkts_total{port=\"p0\"}",
                  "aifab_sw_queue_bytes{port=\"p1\",tc=\"3\"}",
                  "aifab_sw_pfc_rx_total{port=\"p0\",priority=\"3\"}",
                  "aifab_lcores_lcore_busy_cycles_total{lcore=\"1\"}"):
            ck.check(m in text, "Prometheus has " + m)

        out, err = proc.communicate(timeout=DURATION_S + 60)
    except Exception:
        proc.kill()
        proc.communicate()
        raise
    finally:
        _remove_runtime_dir(prefix)

    ck.section("after the run")
    ck.eq(proc.returncode, 0, "exit status (%s)" % err.strip()[-300:])
    ck.check("t=" in out and "Mpps" in out,
             "one progress line per interval when stdout is not a terminal")
    with open(paths["json"]) as f:
        rep = json.load(f)
    ports = rep["ports"]
    for k in ("rx_packets", "tx_packets", "rx_bytes", "tx_bytes"):
        for i, pn in enumerate(["p0", "p1", "p2", "p3"]):
            live = second["/aifab/ports"].get(k, [0] * 4)[i]
            ck.check(live <= ports[pn][k],
                     "telemetry %s[%s] %d <= final %d" % (k, pn, live,
                                                          ports[pn][k]))
    drops = sum(ports["p0"]["drops"].values())
    ck.check(second["/aifab/ports"]["drops"][0] <= drops,
             "telemetry drops <= final report's")
    ck.check(ports["p0"]["drops"].get("ttl_expired", 0) > 0,
             "the TTL-1 frame is dropped as ttl_expired")
    lc = rep.get("lcores", {}).get("1", {})
    ck.check(second["/aifab/lcores"]["packets"][0] <= lc.get("packets", 0),
             "telemetry lcore packets <= final report's")

    ck.section("JSON lines")
    with open(paths["jsonl"]) as f:
        lines = [json.loads(x) for x in f if x.strip()]
    ck.check(len(lines) >= DURATION_S, "%d lines (>= one per interval)" %
             len(lines))
    rx = [x["sw"]["counters"]["rx_pkts"]["p0"] for x in lines]
    ck.check(all(b >= a for a, b in zip(rx, rx[1:])) and rx[-1] > 0,
             "sw rx_pkts grows line by line")
    ck.eq(rx[-1], ports["p0"]["rx_packets"],
          "the last line holds the final count")
    ck.check(all("lcores" in x and "ports" in x and "t" in x for x in lines),
             "every line has t, ports, sw and lcores")

    ck.section("HTML report")
    with open(paths["html"]) as f:
        page = f.read()
    pc = SvgCount()
    pc.feed(page)
    ck.check(pc.tags.get("svg", 0) >= 6, "%d <svg> charts" %
             pc.tags.get("svg", 0))
    ck.check(len(pc.series) >= 3 and all(s.strip() for s in pc.series),
             "%d series polylines with points" % len(pc.series))
    ck.eq(pc.tags.get("script", 0), 0, "no <script>")
    ck.check("http://" not in page.replace("http://www.w3.org/2000/svg", ""),
             "no external resources")
    for t in ("Throughput received per port", "Egress queue depth",
              "PFC pause frames received", "Time paused by received PFC",
              "Lcores"):
        ck.check(t in pc.h2, "chart/section '%s'" % t)
    chromium_check(ck, tmp, paths["html"])

    if not ck.failures:
        shutil.rmtree(tmp, ignore_errors=True)
    else:
        print("outputs kept in " + tmp)
    ck.finish()


if __name__ == "__main__":
    main()
