#!/usr/bin/python3
# SPDX-License-Identifier: BSD-3-Clause
"""Check lib/stats' exporters with independent tools.

test_stats writes t.prom, t.jsonl and t.html when AIFAB_STATS_DUMP=<dir>
is set. This script checks:

* t.prom with `promtool check metrics` (Debian package `prometheus`):
  syntax, HELP/TYPE, counter `_total` suffixes, lint rules;
* t.jsonl with Python's json module: one object per line, with time, tsc,
  set and counters, every counter of the HELP list present;
* t.html: well-formed <svg> elements (xml.etree), one <polyline> per
  series with numeric points inside the viewBox, no <script>, no external
  resources.

Usage:
  check_stats_exports.py DIR
  check_stats_exports.py --run PATH/TO/test_stats   (temporary DIR)

Exit 0 when all pass, 1 with a message per problem, 77 (meson: skip) when
promtool is missing.
"""
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import xml.etree.ElementTree as ET

SVG_NS = "{http://www.w3.org/2000/svg}"
problems = []


def bad(msg):
    problems.append(msg)


def prom_families(text):
    return re.findall(r"^# TYPE (\S+) (counter|gauge)$", text, re.M)


def check_prom(path):
    with open(path) as f:
        text = f.read()
    r = subprocess.run(["promtool", "check", "metrics"], input=text,
                       capture_output=True, text=True)
    if r.returncode != 0:
        bad("promtool check metrics: rc %d: %s%s" %
            (r.returncode, r.stdout, r.stderr))
    fams = prom_families(text)
    if len(fams) < 10:
        bad("t.prom: only %d metric families" % len(fams))
    # set -> counter names (without aifab_<set>_ and _total)
    names = {}
    for fam, kind in fams:
        m = re.match(r"aifab_(sw|gen)_(\w+?)(_total)?$", fam)
        if m:
            if (kind == "counter") != bool(m.group(3)):
                bad("%s: type %s vs suffix" % (fam, kind))
            names.setdefault(m.group(1), set()).add(m.group(2))
    return names.get("sw", set())


def check_jsonl(path, counters):
    with open(path) as f:
        lines = f.read().split("\n")
    if lines[-1] != "" or len(lines) < 2:
        bad("t.jsonl: must be newline-terminated lines")
    for i, line in enumerate(lines[:-1]):
        try:
            obj = json.loads(line)
        except ValueError as e:
            bad("t.jsonl line %d: %s" % (i + 1, e))
            continue
        for k in ("time", "tsc", "set", "counters"):
            if k not in obj:
                bad("t.jsonl line %d: no %s" % (i + 1, k))
        missing = counters - set(obj.get("counters", {}))
        if missing:
            bad("t.jsonl line %d: missing %s" % (i + 1, sorted(missing)))


def check_html(path, counters):
    with open(path) as f:
        html = f.read()
    if re.search(r"<script|\bsrc=|href=|url\(", html, re.I):
        bad("t.html: scripts or external resources")
    svgs = re.findall(r"<svg.*?</svg>", html, re.S)
    if not svgs:
        bad("t.html: no <svg>")
    for s in svgs:
        try:
            root = ET.fromstring(s)
        except ET.ParseError as e:
            bad("t.html: svg not well-formed: %s" % e)
            continue
        _, _, w, h = (float(v) for v in root.get("viewBox").split())
        for pl in root.iter(SVG_NS + "polyline"):
            pts = [tuple(float(c) for c in p.split(","))
                   for p in pl.get("points").split()]
            if len(pts) < 2:
                bad("t.html: series %s has %d points" %
                    (pl.get("data-series"), len(pts)))
            if any(not (0 <= x <= w and 0 <= y <= h) for x, y in pts):
                bad("t.html: series %s leaves the chart" %
                    pl.get("data-series"))
    for c in counters:
        if '<td class="name">%s</td>' % c not in html:
            bad("t.html: counter %s not in the table" % c)


def main():
    if shutil.which("promtool") is None:
        print("promtool not found (apt-get install prometheus): skip")
        return 77
    tmp = None
    if sys.argv[1] == "--run":
        tmp = tempfile.mkdtemp(prefix="aifab-stats-")
        env = dict(os.environ, AIFAB_STATS_DUMP=tmp)
        r = subprocess.run([sys.argv[2]], env=env, capture_output=True,
                           text=True)
        if r.returncode != 0:
            print(r.stdout, r.stderr)
            bad("test_stats failed: rc %d" % r.returncode)
        d = tmp
    else:
        d = sys.argv[1]
    try:
        counters = check_prom(os.path.join(d, "t.prom"))
        check_jsonl(os.path.join(d, "t.jsonl"), counters)
        check_html(os.path.join(d, "t.html"), counters)
    finally:
        if tmp:
            shutil.rmtree(tmp)
    for p in problems:
        print("FAIL:", p)
    if not problems:
        print("stats exports: promtool, json and svg checks pass "
              "(%d counters)" % len(counters))
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
