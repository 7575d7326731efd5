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
--report-html page has its SVG charts (html.parser), renders in
headless Chromium to a PNG, and Chromium's own DOM (--dump-dom) holds the
same <svg> elements and series.

Then the generator (the demo profile: 8 ranks on in-memory wires, a
dropped frame and CE marks so RC and DCQCN counters move) runs one
iteration and waits out a 100 s gap until --duration: telemetry read once
the fabric is quiet equals the final JSON report (/aifab/ports and
/aifab/generator, every counter), and every generator counter the report
implies is in Prometheus (promtool-clean, HELP with unit), the JSON lines
and /aifab/generator, with the same final values. A last demo run's
--report-html charts the collective time and busbw of each timed
iteration: one point per iteration at the report's per_iteration values,
checked in our parse and in Chromium's DOM.

Usage: test_stats_live.py PATH/TO/dpdk-aifab
"""
import contextlib
import html.parser
import json
import os
import re
import shutil
import struct
import subprocess
import tempfile
import time

from lib_aifab import (NBR_IP4, NBR_MAC, PORT_MAC, Checks, chromium_dom,
                       Telemetry, exe_path,
                       file_prefix, leaf_profile, pfc_frame,
                       telemetry_path, write_pcap, _remove_runtime_dir)
from scapy.all import IP, UDP, Ether, Raw

DURATION_S = 6
AIFAB_CMDS = ["/aifab/ports", "/aifab/ports,p1", "/aifab/tc", "/aifab/tc,p1",
              "/aifab/pfc", "/aifab/pfc,p0", "/aifab/ecmp",
              "/aifab/generator", "/aifab/lcores", "/aifab/sw,rx_pkts",
              "/aifab/mempool"]


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


def wait_socket(prefix, proc, timeout=20):
    """The telemetry socket of @p prefix once it exists, else None."""
    end = time.time() + timeout
    while time.time() < end and proc.poll() is None:
        sock = telemetry_path(prefix)
        if sock is not None:
            return sock
        time.sleep(0.1)
    return telemetry_path(prefix)


@contextlib.contextmanager
def telemetry_app(ck, cmd, prefix):
    """Start the app; yield (its Popen, its telemetry socket's path) once
    the socket is there (fatal if it never comes). The app is killed if the
    block raises; its runtime directory is removed in any case."""
    print(" ".join(cmd))
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)
    try:
        sock = wait_socket(prefix, proc)
        if not ck.check(sock is not None,
                        "telemetry socket of --file-prefix " + prefix):
            proc.kill()
            out, err = proc.communicate()
            ck.fatal("app output", out[-2000:] + err[-2000:])
        yield proc, sock
    except Exception:
        proc.kill()
        proc.communicate()
        raise
    finally:
        _remove_runtime_dir(prefix)


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


def check_mempool(ck, mp):
    """/aifab/mempool: the app's pool is listed, per-pool in_use sums to
    total_in_use (one walk), app_in_use (read apart, while traffic runs)
    lies within the aifab_mbuf_s* pools' size."""
    names = mp.get("pools", [])
    size, in_use = mp.get("size", []), mp.get("in_use", [])
    ck.check(len(names) == len(size) == len(in_use) and
             "aifab_mbuf_s0" in names,
             "/aifab/mempool lists the pools with size and in_use",
             repr(mp)[:300])
    ck.check(all(0 <= u <= z for u, z in zip(in_use, size)),
             "/aifab/mempool: 0 <= in_use <= size per pool")
    ck.eq(sum(in_use), mp.get("total_in_use"),
          "/aifab/mempool: per-pool in_use sums to total_in_use")
    app = sum(z for n, z in zip(names, size) if n.startswith("aifab_mbuf_s"))
    ck.check(0 <= mp.get("app_in_use", -1) <= app,
             "/aifab/mempool: 0 <= app_in_use <= app pools' size %d" % app,
             repr(mp.get("app_in_use")))


# ---- a generator run: every counter in every exporter; telemetry after the
# traffic ended equals the final report ----------------------------------

# The demo runs on the virtual clock at 400G with 64 MiB; these checks
# read telemetry during seconds of wall-clock traffic: the TSC clock and
# the demo's former 4 MiB message.
GEN_SETS = ["general.clock=realtime", "generator.size_bytes=4194304",
            "generator.iterations=2", "generator.warmup=0",
            # iteration 1 waits 100 s: after iteration 0 the fabric is
            # quiet while the app runs on until --duration
            "generator.gap_us=100000000",
            # make the RC and DCQCN counters move
            "generator.fault_drop_index=200", "generator.fault_ce_every=40"]
GEN_DURATION_S = 8
# report "rc" keys -> the generator set's counters
RC_NAMES = {"retx_packets": "rc_retx_pkts", "retx_bytes": "rc_retx_bytes",
            "timeouts": "rc_timeouts", "naks_tx": "rc_naks_tx",
            "naks_rx": "rc_naks_rx", "acks_tx": "rc_acks_tx",
            "acks_rx": "rc_acks_rx", "duplicates_rx": "rc_duplicates_rx",
            "out_of_sequence_rx": "rc_out_of_sequence_rx",
            "delivered_bytes": "rc_delivered_bytes"}
DCQCN_NAMES = {"ce_rx": "dcqcn_ce_rx", "cnp_tx": "dcqcn_cnp_tx",
               "cnp_rx": "dcqcn_cnp_rx", "rate_cuts": "dcqcn_rate_cuts"}


def prom_samples(text):
    """{family: {labels-string: value}} and {family: (type, help)}."""
    fams, samples = {}, {}
    for line in text.splitlines():
        m = re.match(r"# HELP (\S+) (.*)$", line)
        if m:
            fams.setdefault(m.group(1), {})["help"] = m.group(2)
            continue
        m = re.match(r"# TYPE (\S+) (\S+)$", line)
        if m:
            fams.setdefault(m.group(1), {})["type"] = m.group(2)
            continue
        m = re.match(r"(\w+)(\{[^}]*\})? (\S+)$", line)
        if m:
            samples.setdefault(m.group(1), {})[m.group(2) or ""] = \
                float(m.group(3))
    return fams, samples


def gen_counter_names(rep):
    """Every generator counter the final report implies, as lib/stats
    names: per port tx/rx, its report group "generator", rx_malformed.*,
    the fault stage, PFC per priority, the run-wide RC and DCQCN ones."""
    names = {"tx_pkts", "tx_bytes", "rx_pkts", "rx_bytes", "pfc_rx",
             "pfc_paused_cycles", "dcqcn_rate_avg_bytes_per_second",
             "dcqcn_rate_min_bytes_per_second"}
    for p in rep["ports"].values():
        names |= set(p.get("generator", {}))
        names |= {"rx_malformed_" + k for k in p.get("rx_malformed", {})}
        names |= set(p.get("fault", {}))
    names |= set(RC_NAMES.values()) | set(DCQCN_NAMES.values())
    return names


def steady(answers):
    """Telemetry answers without what moves while idle (the reading's TSC,
    the lcores' idle cycles and polls)."""
    if answers is None:
        return None
    return [{k: v for k, v in (a or {}).items()
             if k != "tsc" and not k.startswith("lcore_")} for a in answers]


def gen_live_check(ck, exe, tmp):
    ck.section("generator: every counter in every exporter; telemetry "
               "after the traffic equals the final report")
    prefix = file_prefix("live-gen")
    paths = {k: os.path.join(tmp, "gen-" + v) for k, v in
             (("json", "r.json"), ("prom", "m.prom"),
              ("jsonl", "s.jsonl"))}
    cmd = [exe, "--no-huge", "-m", "1024", "--no-pci", "-l", "0-1",
           "--file-prefix", prefix, "--", "--profile",
           os.path.join(os.path.dirname(leaf_profile()), "demo.ini"),
           "--duration", str(GEN_DURATION_S), "--stats-interval", "0.5",
           "--report-json", paths["json"], "--prometheus", paths["prom"],
           "--stats-jsonl", paths["jsonl"], "--quiet"]
    for x in GEN_SETS:
        cmd += ["--set", x]
    quiet = None
    with telemetry_app(ck, cmd, prefix) as (proc, sock):
        tel = Telemetry(sock)
        # Iteration 0 done and two answers 0.5 s apart alike: the fabric
        # is quiet (the generator waits out its gap until --duration).
        prev, end = None, time.time() + GEN_DURATION_S - 2
        while time.time() < end:
            cur = (tel.ask("/aifab/generator"), tel.ask("/aifab/ports"))
            if cur[0] and cur[0].get("iterations", 0) >= 1 and \
                    steady(cur) == steady(prev):
                quiet = cur
                break
            prev = cur
            time.sleep(0.5)
        tel.close()
        out, err = proc.communicate(timeout=GEN_DURATION_S + 60)
    ck.eq(proc.returncode, 0, "generator run: exit status (%s)" %
          err.strip()[-300:])
    if not ck.check(quiet is not None, "generator run: telemetry went "
                    "quiet after iteration 0 before --duration ended"):
        return
    with open(paths["json"]) as f:
        rep = json.load(f)
    ck.eq(rep.get("end"), "duration", "generator run: ended by --duration")
    g, tp = quiet
    pnames = tp["ports"]
    ck.eq(g.get("ports"), pnames, "/aifab/generator ports = /aifab/ports")

    # /aifab/ports after the traffic = the final report.
    for k in ("rx_packets", "tx_packets", "rx_bytes", "tx_bytes"):
        ck.eq(tp.get(k), [rep["ports"][pn][k] for pn in pnames],
              "/aifab/ports %s after the traffic = final report" % k)
    # /aifab/generator: its summary figures ...
    rg = rep["generator"]
    for tk, rv in (("iterations", rg["collective"]["iterations"]),
                   ("tx_packets", rg["tx_packets"]),
                   ("tx_bytes", rg["tx_bytes"]),
                   ("tx_dropped", rg["tx_dropped"]),
                   ("rx_packets", rg["rx_packets"]),
                   ("rx_roce", rg["rx_roce"]),
                   ("rx_lost", rg["qps"]["lost"]),
                   ("rx_reordered", rg["qps"]["reordered"]),
                   ("rx_duplicates", rg["qps"]["duplicates"]),
                   ("lat_ns_p99", rg["latency_ns"]["p99"])):
        ck.eq(g.get(tk), rv, "/aifab/generator %s = final report" % tk)
    # ... and every counter of its set
    per_port = {}
    for pn in pnames:
        rp = rep["ports"][pn]
        pp = {"tx_pkts": rp["tx_packets"], "tx_bytes": rp["tx_bytes"],
              "rx_pkts": rp["rx_packets"], "rx_bytes": rp["rx_bytes"]}
        pp.update(rp.get("generator", {}))
        pp.update(("rx_malformed_" + k, v)
                  for k, v in rp.get("rx_malformed", {}).items())
        pp.update(rp.get("fault", {}))
        per_port[pn] = pp
    gen_ports = [pn for pn in pnames if "generator" in rep["ports"][pn]]
    ck.check(len(gen_ports) == 8, "the demo's 8 generator ports",
             str(gen_ports))
    bad = []
    for name in sorted(per_port[gen_ports[0]]):
        key = name + "_per_port" if name in ("tx_bytes", "tx_dropped",
                                             "rx_roce") else name
        got = g.get(key)
        want = [per_port[pn].get(name, 0) if pn in gen_ports else 0
                for pn in pnames]
        if got != want:
            bad.append("%s: %s != %s" % (key, got, want))
    ck.check(not bad, "/aifab/generator per-port counters = final report",
             "; ".join(bad)[:600])
    for rk, name in RC_NAMES.items():
        ck.eq(g.get(name), rg["rc"][rk], "/aifab/generator %s = report "
              "rc.%s" % (name, rk))
    for rk, name in DCQCN_NAMES.items():
        ck.eq(g.get(name), rg["dcqcn"][rk], "/aifab/generator %s = report "
              "dcqcn.%s" % (name, rk))
    ck.check(g.get("rc_retx_pkts", 0) > 0 and g.get("dcqcn_cnp_rx", 0) > 0,
             "the run resent packets and got CNPs (the counters moved)")
    ck.eq(round(g.get("dcqcn_rate_min_bytes_per_second", 0) * 8 / 1e6),
          round(rg["dcqcn"]["qp_rate_min_mbps"]),
          "/aifab/generator dcqcn_rate_min = report qp_rate_min_mbps")
    pfc = [sum(t.get("pfc_rx", 0) for t in
               rep["ports"][pn].get("tc", {}).values())
           for pn in pnames if pn in gen_ports]
    ck.eq(sum(g.get("pfc_rx", [])), sum(pfc),
          "/aifab/generator pfc_rx = report tc.*.pfc_rx")

    # Every generator counter in every exporter.
    want = gen_counter_names(rep)
    with open(paths["prom"]) as f:
        text = f.read()
    r = subprocess.run(["promtool", "check", "metrics"], input=text,
                       capture_output=True, text=True)
    ck.eq(r.returncode, 0, "generator run: promtool check metrics (%s)" %
          (r.stdout + r.stderr).strip()[:300])
    fams, samples = prom_samples(text)
    prom = {}
    for fam, info in fams.items():
        m = re.match(r"aifab_generator_(\w+?)(_total)?$", fam)
        if m:
            prom[m.group(1)] = (info, fam)
    miss = sorted(want - set(prom))
    ck.check(not miss, "Prometheus has every generator counter (%d)" %
             len(want), str(miss))
    nohelp = [n for n in want & set(prom)
              if not re.search(r"\S.* \(.+\)$", prom[n][0].get("help", ""))]
    ck.check(not nohelp, "each with HELP text and its unit", str(nohelp))
    with open(paths["jsonl"]) as f:
        last = [json.loads(x) for x in f if x.strip()][-1]
    jc = last.get("generator", {}).get("counters", {})
    miss = sorted(want - set(jc))
    ck.check(not miss, "the last JSON line's generator.counters has every "
             "generator counter", str(miss))
    tel_names = {k[:-len("_per_port")] if k.endswith("_per_port") else k
                 for k in g}
    miss = sorted(want - tel_names)
    ck.check(not miss, "/aifab/generator has every generator counter",
             str(miss))
    # The three agree on the final values (per port, run-wide).
    bad = []
    for name in sorted(want):
        fam = prom.get(name, (None, None))[1]
        for pn in gen_ports:
            if name in per_port.get(pn, {}) and fam:
                pv = samples.get(fam, {}).get('{port="%s"}' % pn)
                jv = jc.get(name, {}).get(pn)
                if pv != per_port[pn][name] or jv != per_port[pn][name]:
                    bad.append("%s[%s]: prom %s jsonl %s report %s" %
                               (name, pn, pv, jv, per_port[pn][name]))
        if name in RC_NAMES.values() or name in DCQCN_NAMES.values():
            rv = g.get(name)
            if samples.get(fam, {}).get("") != rv or jc.get(name) != rv:
                bad.append("%s: prom %s jsonl %s telemetry %s" %
                           (name, samples.get(fam, {}).get(""),
                            jc.get(name), rv))
    ck.check(not bad, "Prometheus, JSON lines and telemetry agree with "
             "the report at the end", "; ".join(bad)[:600])


G_X, G_Y, G_PW, G_PH = 70, 15, 560, 200   # app/export_html.c's plot box


def iter_series(page, title, series):
    """(ymax, [(x, y)]) of @p series in the chart titled @p title."""
    a = page.find("<h2>%s</h2>" % title)
    if a < 0:
        return None, []
    svg = page[a:page.find("</svg>", a)]
    m = re.search(r'class="ymax"[^>]*>([^<]+)<', svg)
    pm = re.search(r'<polyline class="series" data-series="%s"[^>]*'
                   r'points="([^"]*)"' % series, svg)
    if m is None or pm is None:
        return None, []
    pts = [tuple(float(v) for v in xy.split(","))
           for xy in pm.group(1).split()]
    return float(m.group(1)), pts


def html_gen_check(ck, exe, tmp):
    ck.section("generator: --report-html charts each iteration")
    prefix = file_prefix("live-html")
    page, rj = os.path.join(tmp, "gen.html"), os.path.join(tmp, "gen.json")
    cmd = [exe, "--no-huge", "-m", "1024", "--no-pci", "--file-prefix",
           prefix, "--", "--profile",
           os.path.join(os.path.dirname(leaf_profile()), "demo.ini"),
           "--set", "general.clock=realtime",
           "--set", "generator.size_bytes=4194304",
           "--set", "generator.iterations=6", "--set", "generator.warmup=1",
           "--set", "generator.fault_drop_index=500", "--report-html", page,
           "--report-json", rj, "--quiet"]
    try:
        r = subprocess.run(cmd, capture_output=True, text=True, timeout=120)
    finally:
        _remove_runtime_dir(prefix)
    if not ck.eq(r.returncode, 0, "html run: exit status (%s)" %
                 r.stderr.strip()[-300:]):
        return
    with open(rj) as f:
        per = json.load(f)["generator"]["per_iteration"]
    with open(page) as f:
        text = f.read()
    ck.eq(len(per), 6, "html run: 6 timed iterations in the report")
    for title, key in (("Collective time per iteration", "time_us"),
                       ("Bus bandwidth (busbw) per iteration",
                        "busbw_gbps")):
        ymax, pts = iter_series(text, title, "per iteration")
        if not ck.check(ymax and len(pts) == len(per),
                        "chart '%s': one point per iteration" % title,
                        "%s %d points" % (ymax, len(pts))):
            continue
        xs = [x for x, _ in pts]
        ck.check(all(abs(x - (G_X + i * G_PW / (len(per) - 1))) < 0.01
                     for i, x in enumerate(xs)),
                 "chart '%s': x = the iteration" % title)
        got = [(G_Y + G_PH - y) / G_PH * ymax for _, y in pts]
        tol = ymax / G_PH * 0.01
        ck.check(all(abs(a - it[key]) <= tol for a, it in zip(got, per)),
                 "chart '%s': y = the report's per_iteration %s" %
                 (title, key), "%s vs %s" %
                 (["%.2f" % v for v in got],
                  ["%.2f" % it[key] for it in per]))
    exe_c = shutil.which("chromium") or shutil.which("chromium-browser")
    if not ck.check(exe_c is not None, "chromium installed"):
        return
    prof = tempfile.mkdtemp(prefix="chromium-", dir=tmp)
    dom = chromium_dom_check(ck, exe_c, prof, page)
    if dom is not None:
        _, pts = iter_series(dom, "Collective time per iteration",
                             "per iteration")
        ck.eq(len(pts), len(per), "Chromium's DOM: the per-iteration "
              "time series has a point per iteration")
        ck.check(dom.count('class="point"') >= 4 * len(per),
                 "Chromium's DOM: a circle per iteration and series")


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
    chromium_dom_check(ck, exe, prof, page)




def chromium_dom_check(ck, exe, prof, page):
    """The SVG elements our parser sees are in Chromium's DOM too: same
    number of <svg>, same series polylines with the same points."""
    dom = chromium_dom(exe, prof, page, timeout=90)
    if not ck.check(dom is not None, "chromium --dump-dom serializes the "
                    "report's DOM"):
        return None
    with open(page) as f:
        ours = SvgCount()
        ours.feed(f.read())
    theirs = SvgCount()
    theirs.feed(dom)
    ck.eq(theirs.tags.get("svg", 0), ours.tags.get("svg", 0),
          "Chromium's DOM has every <svg> (%d)" % ours.tags.get("svg", 0))
    ck.check(theirs.series == ours.series and len(ours.series) > 0,
             "Chromium's DOM has the %d series polylines, same points" %
             len(ours.series))
    return dom


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
    ck.section("telemetry while running")
    with telemetry_app(ck, cmd, prefix) as (proc, sock):
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
        check_mempool(ck, second["/aifab/mempool"])

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
    gen_live_check(ck, exe, tmp)
    html_gen_check(ck, exe, tmp)

    if not ck.failures:
        shutil.rmtree(tmp, ignore_errors=True)
    else:
        print("outputs kept in " + tmp)
    ck.finish()


if __name__ == "__main__":
    main()
