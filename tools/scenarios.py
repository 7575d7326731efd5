#!/usr/bin/env python3
"""Run the shipped fabric scenarios (profiles/scenarios/*.ini) and print the
"cost of a dropped packet" table: one row per scenario, read from each
run's JSON report. docs/scenarios.md explains the rows.

  tools/scenarios.py [--exe PATH] [--only a,b] [--set sect.key=value ...]
                     [--duration S] [--json FILE] [--keep DIR]

Installed (meson install, the Debian package) it is dpdk-aifab-scenarios:
it then runs the dpdk-aifab beside it and the installed scenarios
(<prefix>/share/dpdk-aifab/profiles/scenarios); from the source tree,
build/app/dpdk-aifab and profiles/scenarios.

The scenarios run on the virtual clock (docs/virtual-time.md): every
figure is the model's, the same on every run and under any load; the
whole table takes about a minute of wall time here. --set is passed to
every run (e.g. --set general.clock=realtime to run them on the TSC);
--json writes the table and every report's summary.
Exit status: 0 when every run exited 0, else 1."""
import argparse
import json
import os
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
INSTALLED = os.path.basename(__file__).startswith("dpdk-aifab-")
PROFILES = os.path.join(ROOT, "share", "dpdk-aifab", "profiles") \
    if INSTALLED else os.path.join(ROOT, "profiles")
EXE = os.path.join(HERE, "dpdk-aifab") if INSTALLED else \
    os.path.join(ROOT, "build", "app", "dpdk-aifab")
ORDER = ["clean", "latency", "loss", "latency-loss", "incast-lossless",
         "incast-lossy", "ecn-dcqcn", "pfc-storm", "ecmp-polarization",
         "ecmp-polarization-seeded"]


def scenarios(only):
    d = os.path.join(PROFILES, "scenarios")
    have = sorted(f[:-4] for f in os.listdir(d) if f.endswith(".ini"))
    names = [n for n in ORDER if n in have] + \
        [n for n in have if n not in ORDER]
    if only:
        want = only.split(",")
        bad = [w for w in want if w not in have]
        if bad:
            sys.exit("scenarios.py: no scenario %s; allowed: %s"
                     % (", ".join(bad), ", ".join(names)))
        names = [n for n in names if n in want]
    return [(n, os.path.join(d, n + ".ini")) for n in names]


def port_sum(rep, group, key):
    return sum(p.get(group, {}).get(key, 0) for p in rep["ports"].values())


def tc_sum(rep, key):
    return sum(t.get(key, 0) for p in rep["ports"].values()
               for t in p.get("tc", {}).values())


CONSUMED = ("mac_control", "arp", "lldp")


def summary(name, rep):
    """One row from a report (see docs/scenarios.md for each column)."""
    g = rep.get("generator", {})
    c = g.get("collective", {})
    rc = g.get("rc", {})
    dq = g.get("dcqcn", {})
    # frames lost in the fabric: not the control frames a switch consumes
    # (the PFC frames it receives, ARP, LLDP), which end there by design
    drops = sum(v for p in rep["ports"].values()
                for k, v in p.get("drops", {}).items()
                if k not in CONSUMED)
    # busiest member / mean member, by packets, of the worst group of any
    # switch (the default switch's groups, then each named switch's)
    imb = [e.get("imbalance_packets", 0)
           for e in rep.get("ecmp", {}).values()]
    imb += [s.get("ecmp_imbalance_max", 0)
            for s in rep.get("switches", {}).values()]
    return {
        "scenario": name,
        "end": rep["end"],
        "finished": rep["end"] == "input_consumed",
        "iterations": c.get("iterations", 0),
        "time_us": c.get("time_us", {}).get("avg", 0.0),
        "time_min_us": c.get("time_us", {}).get("min", 0.0),
        "time_max_us": c.get("time_us", {}).get("max", 0.0),
        "ideal_us": g.get("ideal_us", 0.0),
        "busbw_gbps": c.get("busbw_gbps", 0.0),
        "retx_packets": rc.get("retx_packets", 0),
        "timeouts": rc.get("timeouts", 0),
        "naks": rc.get("naks_rx", 0),
        "drops": drops,
        "pfc_xoff_sent": tc_sum(rep, "pfc_xoff_sent"),
        "pfc_paused_us": round(tc_sum(rep, "paused_ns") / 1000.0, 1),
        "pfcwd_storms": tc_sum(rep, "pfcwd_storms"),
        "ecn_marked": tc_sum(rep, "ecn_marked") +
        port_sum(rep, "fault", "ce_marked"),
        "cnps": dq.get("cnp_tx", 0),
        "rate_cuts": dq.get("rate_cuts", 0),
        "ecmp_imbalance": max(imb) if imb else None,
        "wait_usd": g.get("wait_cost_usd", 0.0),
        "mempool_in_use_at_exit": rep.get("mempool_in_use_at_exit"),
    }


def table(rows):
    hdr = ("scenario", "done", "time us", "min us", "ideal us", "x ideal",
           "busbw GB/s",
           "retx pkts", "timeouts", "drops", "PFC XOFF", "paused us",
           "wd storms", "ECN CE", "CNPs", "ECMP max/mean", "wait $")
    out = [hdr]
    for r in rows:
        x = (r["time_us"] / r["ideal_us"]) if r["ideal_us"] else None
        out.append((r["scenario"], "yes" if r["finished"] else "NO",
                    "%.1f" % r["time_us"], "%.1f" % r["time_min_us"],
                    "%.1f" % r["ideal_us"],
                    "%.2f" % x if x else "-",
                    "%.3f" % r["busbw_gbps"], str(r["retx_packets"]),
                    str(r["timeouts"]), str(r["drops"]),
                    str(r["pfc_xoff_sent"]), "%.1f" % r["pfc_paused_us"],
                    str(r["pfcwd_storms"]), str(r["ecn_marked"]),
                    str(r["cnps"]),
                    "%.2f" % r["ecmp_imbalance"]
                    if r["ecmp_imbalance"] is not None else "-",
                    "%.6f" % r["wait_usd"]))
    w = [max(len(row[i]) for row in out) for i in range(len(hdr))]
    return "\n".join("  ".join(c.rjust(w[i]) if i else c.ljust(w[i])
                               for i, c in enumerate(row)) for row in out)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--exe", default=EXE)
    ap.add_argument("--only", default="")
    ap.add_argument("--set", action="append", default=[])
    ap.add_argument("--duration", type=float, default=60.0,
                    help="seconds a run may take before it is stopped "
                    "(counted as not finished)")
    ap.add_argument("--json", default=None)
    ap.add_argument("--keep", default=None,
                    help="keep each run's report and console here")
    a = ap.parse_args()
    if not os.access(a.exe, os.X_OK):
        sys.exit("scenarios.py: %s is not an executable; build first "
                 "(tools/setup.sh build) or pass --exe" % a.exe)
    rows, reports, ok = [], {}, True
    with tempfile.TemporaryDirectory() as tmp:
        d = a.keep or tmp
        os.makedirs(d, exist_ok=True)
        for name, path in scenarios(a.only):
            rep_path = os.path.join(d, name + ".json")
            cmd = [a.exe, "--", "--profile", path, "--report-json", rep_path,
                   "--duration", str(a.duration), "--quiet"]
            for s in a.set:
                cmd += ["--set", s]
            p = subprocess.run(cmd, capture_output=True, text=True,
                               timeout=a.duration + 120)
            with open(os.path.join(d, name + ".log"), "w") as f:
                f.write(p.stdout + p.stderr)
            if p.returncode != 0 or not os.path.exists(rep_path):
                ok = False
                print("%s: exit %d: %s" % (name, p.returncode,
                                           p.stderr.strip()[-400:]),
                      file=sys.stderr)
                continue
            with open(rep_path) as f:
                rep = json.load(f)
            reports[name] = rep
            rows.append(summary(name, rep))
            print("%-18s %s" % (name, "done" if rows[-1]["finished"]
                                else "stopped: " + rows[-1]["end"]),
                  file=sys.stderr, flush=True)
    print(table(rows))
    if a.json:
        with open(a.json, "w") as f:
            json.dump({"rows": rows, "reports": reports}, f, indent=1)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
