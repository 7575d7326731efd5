#!/usr/bin/env python3
"""The collective-time recipe: nccl-tests' size sweep (-b -e -f) with
dpdk-aifab's generator, one run per size, one table, a verdict.

  tools/sweep.py [--exe PATH] [--profile FILE] [-b 8] [-e 128M] [-f 2]
                 [--set sect.key=value ...] [--limits FILE]
                 [--min-busbw GBPS] [--busbw-from SIZE]
                 [--max-time SIZE=US ...]
                 [--json FILE] [--html FILE] [-- EAL options]

Each size S runs `dpdk-aifab [EAL options] -- --profile FILE --set
generator.size_bytes=S ...` (the profile's collective, ranks, ports and
loop; against a switch under test: generator ports cabled to it,
[generator] gateway_macs, closed_loop = true; see docs/lab.md), reads its
JSON report and prints the row nccl-tests would: size, count, type, redop,
time (us), algbw, busbw, #wrong (N/A: there is no data to check).

Then a verdict table, one row per size and check: the collective completed
(the run ended by itself), every mbuf came back, busbw >= --min-busbw for
sizes >= --busbw-from (default: the largest size only), time <= the
--max-time given for that size. Limits may also come from an ini file
(--limits: [sweep] min_busbw, busbw_from; [max_time_us] SIZE = US); the
command line wins. The overall verdict is PASS when every size passed and
every run exited 0. Exit status 0 on PASS, 1 otherwise.

--json writes the table, the checks and the verdict; --html a
self-contained page (no scripts) with the tables and inline SVG charts of
time, algbw and busbw against size.

Installed (meson install, the Debian package) it is dpdk-aifab-sweep and
runs the dpdk-aifab beside it; from the source tree, build/app/dpdk-aifab.
--profile takes a file or a shipped profile's name (dpdk-aifab
--list-profiles)."""
import argparse
import configparser
import html
import json
import math
import os
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
EXE = os.path.join(HERE, "dpdk-aifab") \
    if os.path.basename(__file__).startswith("dpdk-aifab-") else \
    os.path.join(os.path.dirname(HERE), "build", "app", "dpdk-aifab")
REDOP = {"allreduce": "sum", "reducescatter": "sum", "allgather": "none",
         "alltoall": "none"}


def busbw_factor(op, n):
    """nccl-tests' bus bandwidth factor (doc/PERFORMANCE.md)."""
    if n < 1:
        return 1.0
    if op.startswith("allreduce"):
        return 2.0 * (n - 1) / n
    if op in ("reducescatter", "allgather", "alltoall"):
        return (n - 1) / n
    return 1.0


def size_arg(s):
    """nccl-tests sizes: 8, 64K, 128M, 1G (powers of 1024)."""
    mult = {"K": 1 << 10, "M": 1 << 20, "G": 1 << 30}
    t = s.strip().upper()
    try:
        if t and t[-1] in mult:
            return int(t[:-1]) * mult[t[-1]]
        return int(t)
    except ValueError:
        raise argparse.ArgumentTypeError(
            "size %r; allowed: an integer, optionally with K, M or G" % s)


def max_time_arg(s):
    if "=" not in s:
        raise argparse.ArgumentTypeError(
            "--max-time %r; allowed: SIZE=US (e.g. 1M=5000)" % s)
    k, v = s.split("=", 1)
    try:
        us = float(v)
    except ValueError:
        us = -1
    if us <= 0:
        raise argparse.ArgumentTypeError(
            "--max-time %r: time %r; allowed: microseconds above 0" % (s, v))
    return size_arg(k), us


def sizes(b, e, f):
    out, s = [], b
    while s <= e:
        out.append(s)
        s *= f
    return out


def load_limits(path):
    """[sweep] min_busbw, busbw_from; [max_time_us] SIZE = US."""
    cp = configparser.ConfigParser()
    try:
        with open(path) as fh:
            cp.read_file(fh)
    except (OSError, configparser.Error) as e:
        sys.exit("sweep.py: --limits %s: %s" % (path, e))
    out = {"min_busbw": None, "busbw_from": None, "max_time": {}}
    for sect in cp.sections():
        if sect not in ("sweep", "max_time_us"):
            sys.exit("sweep.py: %s: section [%s]; allowed: [sweep], "
                     "[max_time_us]" % (path, sect))
    if cp.has_section("sweep"):
        for k, v in cp.items("sweep"):
            if k == "min_busbw":
                try:
                    out["min_busbw"] = float(v)
                except ValueError:
                    out["min_busbw"] = -1
                if out["min_busbw"] < 0:
                    sys.exit("sweep.py: %s: [sweep] min_busbw = %r; allowed: "
                             "GB/s >= 0" % (path, v))
            elif k == "busbw_from":
                try:
                    out["busbw_from"] = size_arg(v)
                except argparse.ArgumentTypeError as e:
                    sys.exit("sweep.py: %s: [sweep] busbw_from: %s"
                             % (path, e))
            else:
                sys.exit("sweep.py: %s: [sweep] %s; allowed: min_busbw, "
                         "busbw_from" % (path, k))
    if cp.has_section("max_time_us"):
        for k, v in cp.items("max_time_us"):
            try:
                out["max_time"][size_arg(k)] = max_time_arg(
                    "%s=%s" % (k, v))[1]
            except argparse.ArgumentTypeError as e:
                sys.exit("sweep.py: %s: [max_time_us] %s = %s: %s"
                         % (path, k, v, e))
    return out


def judge(row, min_busbw, busbw_from, max_time):
    """The checks of one size: (what, limit, got, pass)."""
    s = row["size"]
    checks = [("the collective completed", "input_consumed", row["end"],
               row["finished"]),
              ("every mbuf returned", "0", str(row["mempool_in_use_at_exit"]),
               row["mempool_in_use_at_exit"] == 0)]
    if min_busbw is not None and s >= busbw_from:
        checks.append(("busbw (GB/s)", ">= %g" % min_busbw,
                       "%.4f" % row["busbw_gbps"],
                       row["busbw_gbps"] >= min_busbw))
    if s in max_time:
        checks.append(("time (us)", "<= %g" % max_time[s],
                       "%.1f" % row["time_us"],
                       row["time_us"] <= max_time[s]))
    return [{"check": c, "limit": lim, "got": got, "pass": bool(ok)}
            for c, lim, got, ok in checks]


# ---- HTML --------------------------------------------------------------

def svg_chart(title, unit, xs, series, logy):
    """A log2-x line chart of `series` [(label, colour, ys)], inline SVG."""
    W, H, X0, Y0, PW, PH = 560, 260, 70, 30, 360, 180
    pts = [y for _, _, ys in series for y in ys if y is not None and
           (y > 0 or not logy)]
    if not xs or not pts:
        return "<p>%s: no data</p>" % html.escape(title)
    lx = [math.log2(x) for x in xs]
    x_lo, x_hi = min(lx), max(lx)
    if x_hi == x_lo:
        x_hi = x_lo + 1
    if logy:
        y_lo = math.floor(math.log10(min(pts)))
        y_hi = math.ceil(math.log10(max(pts)))
        if y_hi == y_lo:
            y_hi += 1
    else:
        y_lo, y_hi = 0.0, max(pts) * 1.1 or 1.0

    def px(x):
        return X0 + (math.log2(x) - x_lo) / (x_hi - x_lo) * PW

    def py(y):
        v = math.log10(y) if logy else y
        return Y0 + PH - (v - y_lo) / (y_hi - y_lo) * PH

    o = ['<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" '
         'role="img" aria-label="%s">' % (W, H, html.escape(title)),
         '<text x="%d" y="16" font-size="13">%s</text>'
         % (X0, html.escape(title)),
         '<rect x="%d" y="%d" width="%d" height="%d" fill="none" '
         'stroke="#999"/>' % (X0, Y0, PW, PH)]
    if logy:
        ticks = [10 ** k for k in range(int(y_lo), int(y_hi) + 1)]
    else:
        ticks = [y_lo + (y_hi - y_lo) * k / 4 for k in range(5)]
    fmt = "%g" if logy else "%.3g"
    for t in ticks:
        o.append('<text x="%d" y="%.1f" font-size="10" text-anchor="end">'
                 '%s</text>' % (X0 - 4, py(t) + 3, fmt % t))
    o.append('<text x="8" y="%d" font-size="10">%s</text>'
             % (Y0 + PH // 2, html.escape(unit)))
    step = max(1, len(xs) // 8)
    for x in xs[::step]:
        o.append('<text x="%.1f" y="%d" font-size="10" text-anchor="middle">'
                 '%s</text>' % (px(x), Y0 + PH + 14, human(x)))
    o.append('<text x="%d" y="%d" font-size="10">size (bytes)</text>'
             % (X0 + PW // 2 - 30, Y0 + PH + 30))
    for j, (label, colour, ys) in enumerate(series):
        p = ["%.1f,%.1f" % (px(x), py(y)) for x, y in zip(xs, ys)
             if y is not None and (y > 0 or not logy)]
        o.append('<polyline fill="none" stroke="%s" stroke-width="2" '
                 'points="%s"><title>%s</title></polyline>'
                 % (colour, " ".join(p), html.escape(label)))
        for q in p:
            cx, cy = q.split(",")
            o.append('<circle cx="%s" cy="%s" r="2.5" fill="%s"/>'
                     % (cx, cy, colour))
        o.append('<text x="%d" y="%d" font-size="11" fill="%s">%s</text>'
                 % (X0 + PW + 10, Y0 + 12 + 16 * j, colour,
                    html.escape(label)))
    o.append("</svg>")
    return "\n".join(o)


def human(n):
    for suf, m in (("G", 1 << 30), ("M", 1 << 20), ("K", 1 << 10)):
        if n >= m and n % m == 0:
            return "%d%s" % (n // m, suf)
    return str(n)


def write_html(path, res):
    rows = res["rows"]
    e = html.escape
    o = ["<!DOCTYPE html>", "<html><head><meta charset=\"utf-8\">",
         "<title>dpdk-aifab sweep: %s</title>" % e(res["verdict"]),
         "<style>body{font-family:sans-serif;margin:1em}"
         "table{border-collapse:collapse}td,th{border:1px solid #ccc;"
         "padding:2px 8px;text-align:right}.PASS{color:#080}"
         ".FAIL{color:#b00;font-weight:bold}</style></head><body>",
         "<h1>Collective time sweep</h1>",
         "<p>%s, %d ranks, %s; busbw = algbw x %.4f (nccl-tests' factor); "
         "command: <code>%s</code></p>"
         % (e(res["op"] or "?"), res["ranks"] or 0,
            "closed loop" if res["closed_loop"] else "open loop",
            res["busbw_factor"], e(" ".join(res["command"]))),
         "<h2>Verdict: <span class=\"%s\">%s</span></h2>"
         % (res["verdict"], res["verdict"]),
         "<table><tr><th>size (B)</th><th>check</th><th>limit</th>"
         "<th>got</th><th>verdict</th></tr>"]
    for r in rows:
        for c in r["checks"]:
            v = "PASS" if c["pass"] else "FAIL"
            o.append("<tr><td>%d</td><td style=\"text-align:left\">%s</td>"
                     "<td>%s</td><td>%s</td><td class=\"%s\">%s</td></tr>"
                     % (r["size"], e(c["check"]), e(c["limit"]),
                        e(c["got"]), v, v))
    for f in res["failed_runs"]:
        o.append("<tr><td>%d</td><td style=\"text-align:left\">run exited "
                 "%d: %s</td><td></td><td></td><td class=\"FAIL\">FAIL</td>"
                 "</tr>" % (f["size"], f["exit"], e(f["stderr"])))
    o.append("</table>")
    o.append("<h2>Results</h2><table><tr><th>size (B)</th><th>count</th>"
             "<th>time (us)</th><th>algbw (GB/s)</th><th>busbw (GB/s)</th>"
             "<th>retx</th><th>PFC rx</th><th>verdict</th></tr>")
    for r in rows:
        o.append("<tr><td>%d</td><td>%d</td><td>%.1f</td><td>%.3f</td>"
                 "<td>%.3f</td><td>%d</td><td>%d</td><td class=\"%s\">%s"
                 "</td></tr>" % (r["size"], r["count"], r["time_us"],
                                 r["algbw_gbps"], r["busbw_gbps"],
                                 r["retx_packets"], r["pfc_rx"],
                                 r["verdict"], r["verdict"]))
    o.append("</table><p>Average bus bandwidth: %.4f GB/s</p>"
             % res["avg_busbw_gbps"])
    xs = [r["size"] for r in rows]
    o.append("<h2>Charts</h2>")
    o.append(svg_chart("Collective time vs size", "us", xs,
                       [("time", "#1f77b4", [r["time_us"] for r in rows])],
                       True))
    o.append(svg_chart("Bandwidth vs size", "GB/s", xs,
                       [("algbw", "#2ca02c",
                         [r["algbw_gbps"] for r in rows]),
                        ("busbw", "#d62728",
                         [r["busbw_gbps"] for r in rows])], False))
    o.append("</body></html>")
    with open(path, "w") as fh:
        fh.write("\n".join(o) + "\n")


# ---- main --------------------------------------------------------------

def main():
    argv = sys.argv[1:]
    eal = []
    if "--" in argv:
        eal = argv[argv.index("--") + 1:]
        argv = argv[:argv.index("--")]
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--exe", default=EXE)
    ap.add_argument("--profile", default=None,
                    help="default: the embedded demo")
    ap.add_argument("-b", "--minbytes", type=size_arg, default=8)
    ap.add_argument("-e", "--maxbytes", type=size_arg, default=128 << 20)
    ap.add_argument("-f", "--stepfactor", type=int, default=2)
    ap.add_argument("--set", action="append", default=[])
    ap.add_argument("--limits", default=None,
                    help="ini: [sweep] min_busbw, busbw_from; "
                    "[max_time_us] SIZE = US")
    ap.add_argument("--min-busbw", type=float, default=None,
                    help="verdict: GB/s sizes >= --busbw-from must reach")
    ap.add_argument("--busbw-from", type=size_arg, default=None,
                    help="smallest size judged on busbw (default: the "
                    "largest size only)")
    ap.add_argument("--max-time", type=max_time_arg, action="append",
                    default=[], help="SIZE=US: that size's time limit")
    ap.add_argument("--duration", type=float, default=120.0)
    ap.add_argument("--json", default=None)
    ap.add_argument("--html", default=None)
    a = ap.parse_args(argv)
    if a.stepfactor < 2 or a.minbytes < 1 or a.maxbytes < a.minbytes:
        sys.exit("sweep.py: -b %d -e %d -f %d; allowed: 1 <= b <= e, f >= 2"
                 % (a.minbytes, a.maxbytes, a.stepfactor))
    if a.min_busbw is not None and a.min_busbw < 0:
        sys.exit("sweep.py: --min-busbw %g; allowed: GB/s >= 0"
                 % a.min_busbw)
    if not os.access(a.exe, os.X_OK):
        sys.exit("sweep.py: %s is not an executable; build first "
                 "(tools/setup.sh build) or pass --exe" % a.exe)
    lim = load_limits(a.limits) if a.limits else \
        {"min_busbw": None, "busbw_from": None, "max_time": {}}
    todo = sizes(a.minbytes, a.maxbytes, a.stepfactor)
    min_busbw = a.min_busbw if a.min_busbw is not None else lim["min_busbw"]
    busbw_from = a.busbw_from if a.busbw_from is not None else \
        lim["busbw_from"] if lim["busbw_from"] is not None else todo[-1]
    max_time = dict(lim["max_time"])
    max_time.update(dict(a.max_time))
    for s in max_time:
        if s not in todo:
            sys.exit("sweep.py: max time for size %d; allowed: a size of "
                     "the sweep (%s)" % (s, " ".join(map(str, todo))))
    rows, failed = [], []
    op, ranks, closed = None, None, None
    command = [a.exe] + eal + ["--"] + \
        (["--profile", a.profile] if a.profile else []) + \
        sum((["--set", x] for x in a.set), [])
    with tempfile.TemporaryDirectory() as d:
        for s in todo:
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
                failed.append({"size": s, "exit": p.returncode,
                               "stderr": p.stderr.strip()[-300:]})
                print("size %d: exit %d: %s" % (s, p.returncode,
                                                p.stderr.strip()[-300:]),
                      file=sys.stderr)
                continue
            with open(rep) as fh:
                r = json.load(fh)
            g = r["generator"]
            c = g["collective"]
            if op is None:
                op, ranks = c["op"], c["ranks"]
                closed = bool(g.get("closed_loop"))
                print("# %s: %d ranks, %s" % (
                    op, ranks, "closed loop" if closed else "open loop"))
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
                   "end": r["end"],
                   "retx_packets": g.get("rc", {}).get("retx_packets", 0),
                   "pfc_rx": g.get("pfc", {}).get("rx_frames", 0),
                   "mempool_in_use_at_exit": r.get("mempool_in_use_at_exit")}
            row["checks"] = judge(row, min_busbw, busbw_from, max_time)
            row["verdict"] = "PASS" if all(x["pass"] for x in
                                           row["checks"]) else "FAIL"
            rows.append(row)
            print(" %11d %12d %8s %6s %10.1f %8.2f %8.2f %6s%s" % (
                s, s // 4, "float", REDOP.get(op.split("_")[0], "none"),
                row["time_us"], row["algbw_gbps"], row["busbw_gbps"], "N/A",
                "" if done else "  (stopped: " + r["end"] + ")"),
                flush=True)
    avg = sum(r["busbw_gbps"] for r in rows) / len(rows) if rows else 0.0
    if rows:
        print("# Out of bounds values : %d %s" % (
            sum(r["verdict"] == "FAIL" for r in rows),
            "OK" if all(r["verdict"] == "PASS" for r in rows) else "FAIL"))
        print("# Avg bus bandwidth    : %.4f" % avg)
    verdict = "PASS" if rows and not failed and \
        all(r["verdict"] == "PASS" for r in rows) else "FAIL"
    print("# verdict")
    for r in rows:
        for c in r["checks"]:
            print("  %11d  %-26s %-16s %-16s %s" % (
                r["size"], c["check"], c["limit"], c["got"],
                "PASS" if c["pass"] else "FAIL"))
    for f in failed:
        print("  %11d  %-26s %-16s %-16s %s" % (
            f["size"], "run exited 0", "0", str(f["exit"]), "FAIL"))
    print("# sweep: %s; %d sizes, %d failed runs" % (verdict, len(todo),
                                                      len(failed)),
          flush=True)
    res = {"tool": "sweep", "op": op, "ranks": ranks, "closed_loop": closed,
           "busbw_factor": busbw_factor(op or "", ranks or 0),
           "command": command,
           "limits": {"min_busbw_gbps": min_busbw, "busbw_from": busbw_from,
                      "max_time_us": {str(k): v for k, v in
                                      sorted(max_time.items())}},
           "rows": rows, "failed_runs": failed, "avg_busbw_gbps": avg,
           "verdict": verdict}
    if a.json:
        with open(a.json, "w") as fh:
            json.dump(res, fh, indent=1)
    if a.html:
        write_html(a.html, res)
    return 0 if verdict == "PASS" else 1


if __name__ == "__main__":
    sys.exit(main())
