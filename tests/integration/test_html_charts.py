#!/usr/bin/python3
"""The --report-html charts of every shipped scenario, as headless Chromium
sees them (issue 16).

Every profiles/scenarios/*.ini (found by glob: whatever the directory
holds) runs on the whole-process virtual clock with --report-html and
--report-json. Chromium (--headless --dump-dom) loads each page; the
charts are read back from Chromium's DOM (the SVG polylines it parsed),
and judged against the run's report, which the app writes from the
pipelines' own counters, not from the stats history the charts are drawn
from:

* the page has a time axis: at least 50 snapshots (the virtual clock's
  default interval aims at ~200), and Chromium's DOM has the same <svg>s
  and polylines as the file;
* each chart whose counter the report says moved shows a series that is
  not flat at zero (lib/stats leaves a chart with no activity empty: "no
  activity"), and a chart the report says did not move shows none:
  throughput (rx/tx bytes), egress queue depth and shared buffer (a queue
  high-water mark of 16 jumbo frames or more: levels are sampled, a frame
  passing through is not a queue), PFC pause frames sent and received,
  time paused by received PFC (paused_ns), ECN CE marks (ecn_marked),
  drops (tail drops), over every switch instance (each has its charts);
* counters' charts are rates between snapshots: their integral over the
  time axis is the report's total (ECN marks, PFC frames sent and received
  by the NICs, DCQCN rate cuts; within 3%: SVG coordinates have 2
  decimals);
* the generator's per-iteration time has one point per timed iteration,
  at the report's per-iteration times; its DCQCN rate cuts and the PFC
  frames its NICs received show (and add up) when the report counts some;
* by name, as a floor the report must also meet (so the test cannot pass
  on a scenario where nothing happens): PFC pauses in incast-lossless and
  pfc-storm, ECN marks and DCQCN rate cuts in ecn-dcqcn, queue depth in
  the incasts, per-iteration times everywhere.
"""
import glob
import json
import os
import shutil
import subprocess
import sys
import tempfile
from html.parser import HTMLParser

import lib_aifab

RUN_TIMEOUT_S = 300
MIN_SNAPSHOTS = 50
# Queue depth and buffer are levels sampled at the snapshots: a frame or
# two passing through a port (store and forward) is not a queue a sample
# must catch. A high-water mark of 16 jumbo frames is.
QUEUE_BUILT = 16 * 4200

# Scenario name -> charts that must show activity (the list).
BY_NAME = {
    "incast-lossless": ["PFC pause frames sent", "Egress queue depth"],
    "pfc-storm": ["PFC pause frames sent"],
    "ecn-dcqcn": ["ECN CE marks", "DCQCN rate cuts"],
    "incast-lossy": ["Egress queue depth"],
}


class Charts(HTMLParser):
    """h2 title -> [{"series": {label: [(x, y), ...]}, "ymax": float,
    "tmax": str, "empty": bool}, ...]: the <svg> that follows each <h2>
    (one per switch instance for the switch's charts)."""

    def __init__(self):
        super().__init__()
        self.charts = {}
        self.order = []
        self.title = None
        self.cur = None
        self.text_class = None
        self.in_h2 = False
        self.p_text = []
        self.svgs = 0

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if tag == "h2":
            self.in_h2 = True
            self.title = ""
        elif tag == "svg":
            self.svgs += 1
            self.cur = {"series": {}, "ymax": None, "tmax": None,
                        "empty": False}
            if self.title is not None:
                self.charts.setdefault(self.title, []).append(self.cur)
                self.order.append(self.title)
        elif tag == "polyline" and self.cur is not None and \
                "series" in a.get("class", ""):
            pts = []
            for p in a.get("points", "").split():
                x, y = p.split(",")
                pts.append((float(x), float(y)))
            self.cur["series"][a.get("data-series", "?")] = pts
        elif tag == "text" and self.cur is not None:
            self.text_class = a.get("class", "")

    def handle_endtag(self, tag):
        if tag == "h2":
            self.in_h2 = False
        elif tag == "svg":
            self.cur = None
            self.title = None
        elif tag == "text":
            self.text_class = None

    def handle_data(self, data):
        if self.in_h2:
            self.title += data
        elif self.cur is not None and self.text_class == "ymax":
            self.cur["ymax"] = float(data)
        elif self.cur is not None and self.text_class == "tmax":
            self.cur["tmax"] = data
        elif self.cur is not None and data.strip() == "no activity":
            self.cur["empty"] = True
        elif self.cur is None:
            self.p_text.append(data)


# lib/stats' chart geometry (lib/stats/stats_html.c: PLOT_*), to turn
# SVG coordinates back into values.
PLOT_X, PLOT_Y, PLOT_W, PLOT_H = 70, 15, 560, 200


def values(chart, label):
    """(t in s, value) of one series, from its SVG points."""
    tmax = float(chart["tmax"].split()[0])
    ymax = chart["ymax"]
    return [((x - PLOT_X) / PLOT_W * tmax,
             (PLOT_Y + PLOT_H - y) / PLOT_H * ymax)
            for x, y in chart["series"][label]]


def integral(charts):
    """Sum over the charts' series of rate x interval: the count they
    show. Point k is the rate over (t[k-1], t[k]]; the first over
    (0, t[0]]."""
    total = 0.0
    for chart in charts:
        for label in chart["series"]:
            prev = 0.0
            for t, v in values(chart, label):
                total += v * (t - prev)
                prev = t
    return total


def active(charts):
    """Some chart of the title draws a series not flat at zero."""
    base = PLOT_Y + PLOT_H
    return any(not ch["empty"] and
               any(any(y < base - 0.005 for _, y in pts)
                   for pts in ch["series"].values())
               for ch in charts or [])


def report_totals(rep):
    """What the report's own counters say moved, over every switch port
    and TC (a port with a "generator" object is a NIC's: its PFC and
    drops are the generator's, charted in its own section)."""
    tot = {"rx_bytes": 0, "tx_bytes": 0, "queue_hwm": 0, "pfc_tx": 0,
           "pfc_rx": 0, "paused_ns": 0, "ecn": 0, "drops": 0}
    for p in rep["ports"].values():
        if "generator" in p:
            continue
        tot["rx_bytes"] += p.get("rx_bytes", 0)
        tot["tx_bytes"] += p.get("tx_bytes", 0)
        for tc in p.get("tc", {}).values():
            tot["queue_hwm"] = max(tot["queue_hwm"],
                                   tc.get("queue_hwm_bytes", 0))
            tot["pfc_tx"] += tc.get("pfc_xoff_sent", 0) + \
                tc.get("pfc_xon_sent", 0)
            tot["pfc_rx"] += tc.get("pfc_rx", 0)
            tot["paused_ns"] += tc.get("paused_ns", 0)
            tot["ecn"] += tc.get("ecn_marked", 0)
            tot["drops"] += tc.get("tail_drops", 0)
        tot["drops"] += sum((p.get("drops") or {}).values())
    return tot


def gen_rate_cuts(rep):
    return ((rep.get("generator") or {}).get("dcqcn") or {}).get(
        "rate_cuts", 0)


def per_iteration_us(rep):
    g = rep.get("generator") or {}
    return [it["time_us"] for it in g.get("per_iteration", [])
            if "time_us" in it]




class Ck:
    """lib_aifab.Checks with any value as the detail."""

    def __init__(self, ck):
        self.ck = ck

    def section(self, title):
        self.ck.section(title)

    def check(self, ok, what, got=""):
        return self.ck.check(ok, what, "" if ok else "got %r" % (got,))


def check_scenario(ck, exe, chromium, tmp, ini):
    name = os.path.splitext(os.path.basename(ini))[0]
    ck.section(name)
    html = os.path.join(tmp, name + ".html")
    rj = os.path.join(tmp, name + ".json")
    cmd = [exe, "--file-prefix", lib_aifab.file_prefix("charts"), "--",
           "--profile", ini, "--set", "general.clock=virtual",
           "--report-html", html, "--report-json", rj, "--quiet"]
    try:
        p = subprocess.run(cmd, capture_output=True, text=True,
                           timeout=RUN_TIMEOUT_S, cwd=tmp)
    except subprocess.TimeoutExpired:
        ck.check(False, "%s: ran within %d s" % (name, RUN_TIMEOUT_S))
        return
    if not ck.check(p.returncode == 0 and os.path.exists(html),
                    "%s: exit 0 with an HTML report" % name,
                    "rc %d: %s" % (p.returncode, p.stderr[-400:])):
        return
    rep = json.load(open(rj))
    ck.check(rep.get("clock") == "virtual", "%s: on the virtual clock" % name,
             rep.get("clock"))
    prof = tempfile.mkdtemp(prefix="chromium-", dir=tmp)
    dom = lib_aifab.chromium_dom(chromium, prof, html)
    if not ck.check(dom is not None, "%s: Chromium loads the page and "
                    "dumps its DOM" % name):
        return
    ours, theirs = Charts(), Charts()
    ours.feed(open(html).read())
    theirs.feed(dom)
    ck.check(theirs.svgs == ours.svgs and theirs.order == ours.order and
             all([x["series"] for x in theirs.charts[t]] ==
                 [x["series"] for x in ours.charts[t]] for t in ours.order),
             "%s: Chromium's DOM has the file's %d charts, same series "
             "and points" % (name, ours.svgs),
             (theirs.svgs, ours.svgs, theirs.order))
    c = theirs.charts
    head = " ".join(theirs.p_text)
    n_snap = None
    for w in head.split("snapshots")[0].split()[-1:]:
        n_snap = int(w) if w.isdigit() else None
    ck.check(n_snap is not None and n_snap >= MIN_SNAPSHOTS,
             "%s: at least %d snapshots on the time axis" %
             (name, MIN_SNAPSHOTS), n_snap)

    tot = report_totals(rep)
    cuts = gen_rate_cuts(rep)
    expect = {
        "Throughput received per port": tot["rx_bytes"] > 0,
        "Throughput sent per port": tot["tx_bytes"] > 0,
        "Egress queue depth": tot["queue_hwm"] >= QUEUE_BUILT,
        "Shared buffer in use": tot["queue_hwm"] >= QUEUE_BUILT,
        "PFC pause frames sent": tot["pfc_tx"] > 0,
        "PFC pause frames received": tot["pfc_rx"] > 0,
        "Time paused by received PFC": tot["paused_ns"] > 0,
        "ECN CE marks": tot["ecn"] > 0,
        "Drops (all reasons)": tot["drops"] > 0,
    }
    if rep.get("generator") is not None:
        gpfc = rep["generator"].get("pfc") or {}
        expect["DCQCN rate cuts"] = cuts > 0
        expect["PFC pause frames the NICs received"] = \
            gpfc.get("rx_frames", 0) > 0
        expect["Time the NICs were paused by PFC"] = \
            gpfc.get("paused_us", 0) > 0
    for title, want in expect.items():
        if want:
            ck.check(active(c.get(title)), "%s: chart '%s' shows activity "
                     "(the report counts some)" % (name, title),
                     "no chart" if title not in c else
                     "%d chart(s), series %s" %
                     (len(c[title]), [list(x["series"]) for x in c[title]]))
        elif title in c:
            ck.check(not active(c[title]), "%s: chart '%s' empty (the "
                     "report counts none)" % (name, title),
                     [list(x["series"]) for x in c[title]])
    for title in BY_NAME.get(name, []):
        ck.check(active(c.get(title)), "%s: the scenario's point: chart "
                 "'%s' shows activity" % (name, title))
    # Counters drawn as rates: their integral is the report's count.
    nic_pfc = ((rep.get("generator") or {}).get("pfc") or {}).get(
        "rx_frames", 0)
    for title, want in (("ECN CE marks", tot["ecn"]),
                        ("PFC pause frames sent", tot["pfc_tx"]),
                        ("DCQCN rate cuts", cuts),
                        ("PFC pause frames the NICs received", nic_pfc)):
        if want > 0 and active(c.get(title)) and \
                all(len(x["series"]) < 32 for x in c[title]):
            got = integral(c[title])
            ck.check(abs(got - want) <= max(0.03 * want, 2),
                     "%s: chart '%s' adds up to the report's %d" %
                     (name, title, want), round(got, 1))
    # The collective, per timed iteration.
    per = per_iteration_us(rep)
    if rep.get("generator") is not None:
        ck.check(len(per) > 0, "%s: the report has per-iteration times" %
                 name, per)
        ch = (c.get("Collective time per iteration") or [None])[0]
        pts = ch["series"].get("per iteration", []) if ch else []
        ck.check(ch is not None and len(pts) == len(per) and len(per) > 0,
                 "%s: the per-iteration time chart has a point per timed "
                 "iteration" % name, (len(pts), len(per)))
        if ch is not None and len(pts) == len(per) and per:
            ymax = ch["ymax"]
            got = [(PLOT_Y + PLOT_H - y) / PLOT_H * ymax for _, y in pts]
            tol = ymax / PLOT_H * 0.01 + 1e-9
            ck.check(all(abs(a - b) <= tol for a, b in zip(got, per)),
                     "%s: its points are the report's per-iteration times" %
                     name, (got, per))


def main():
    exe = os.path.abspath(lib_aifab.exe_path())
    ck = lib_aifab.Checks("test_html_charts")
    chromium = shutil.which("chromium") or shutil.which("chromium-browser")
    if not ck.check(chromium is not None,
                    "chromium installed (tools/setup.sh's test packages)"):
        ck.finish()
        return
    inis = sorted(glob.glob(os.path.join(lib_aifab.source_root(), "profiles",
                                         "scenarios", "*.ini")))
    only = sys.argv[2:]  # argv[1]: the binary (lib_aifab.exe_path)
    if only:
        inis = [i for i in inis
                if os.path.splitext(os.path.basename(i))[0] in only]
    ck.check(len(inis) > 0, "scenario profiles found", inis)
    tmp = tempfile.mkdtemp(prefix="aifab-it-charts-")
    for ini in inis:
        check_scenario(Ck(ck), exe, chromium, tmp, ini)
    if not ck.failures:
        shutil.rmtree(tmp, ignore_errors=True)
    else:
        print("outputs kept in " + tmp)
    ck.finish()


main()
