#!/usr/bin/env python3
"""One report for one collective run over several servers.

  tools/merge_reports.py REPORT.json... [--json FILE] [--html FILE]

Each host of the collective ran `dpdk-aifab --host NAME --report-json
REPORT.json` on its share of the ranks (docs/lab.md, "Several servers").
This joins their reports and prints what nccl-tests would print for the
whole collective:

* time of timed iteration k = the latest end of k over the hosts - the
  earliest start of k over the hosts (each host's start and end are its
  ranks' first start and last end, on its wall clock, CLOCK_REALTIME);
  algbw = S / (mean time), busbw = algbw x 2(N-1)/N (AllReduce) or
  x (N-1)/N (ReduceScatter, AllGather, all-to-all): the single-process
  report's formulas (docs/generator.md);
* per host: its ranks, how it started, the start skew it saw, its own
  mean iteration time, bytes and resends; per rank: payload sent, delivered
  to it, resent;
* the error the hosts' clocks put on the times (see docs/lab.md).

Reports of different profiles (digest), seeds, rank counts, a rank
claimed twice or by nobody are refused with a line saying which: exit 1.
--json writes the merged figures, --html a self-contained page."""
import argparse
import html
import json
import sys

REDOP = {"allreduce": "sum", "reducescatter": "sum", "allgather": "none",
         "alltoall": "none"}


def busbw_factor(op, n):
    if op == "allreduce":
        return 2.0 * (n - 1) / n
    if op in ("reducescatter", "allgather", "alltoall"):
        return (n - 1) / n
    return 1.0


class Refused(Exception):
    pass


def load(paths):
    reps = []
    for p in paths:
        try:
            r = json.load(open(p))
        except (OSError, ValueError) as e:
            raise Refused("%s: cannot read: %s" % (p, e))
        if "multihost" not in r or "generator" not in r:
            raise Refused("%s: not a generator report with a 'multihost' "
                          "object (dpdk-aifab with [generator], this "
                          "version or newer)" % p)
        r["_path"] = p
        reps.append(r)
    return reps


def same(reps, what, get):
    vals = {}
    for r in reps:
        vals.setdefault(get(r), []).append(r["_path"])
    if len(vals) > 1:
        raise Refused("reports of different %s: %s" % (what, "; ".join(
            "%s %s" % (", ".join(ps), v) for v, ps in vals.items())))


def check(reps):
    same(reps, "profiles (profile digest)",
         lambda r: r["multihost"]["digest"])
    same(reps, "seeds", lambda r: r["multihost"]["seed"])
    same(reps, "rank counts", lambda r: r["multihost"]["ranks"])
    n = reps[0]["multihost"]["ranks"]
    owner = {}
    for r in reps:
        for k in r["multihost"]["owned_ranks"]:
            if k in owner:
                raise Refused("rank %d is emulated by %s and %s (host '%s' "
                              "twice?)" % (k, owner[k], r["_path"],
                                           r["multihost"]["host"]))
            owner[k] = r["_path"]
    missing = [k for k in range(n) if k not in owner]
    if missing:
        raise Refused("rank(s) %s in no report: a host's report is "
                      "missing" % " ".join(map(str, missing)))


def merge(reps):
    g0 = reps[0]["generator"]["collective"]
    op, size, n = g0["op"], g0["size"], reps[0]["multihost"]["ranks"]
    its = [r["multihost"]["iterations"] for r in reps]
    k_all = min(len(i) for i in its)
    iters = []
    for k in range(k_all):
        t0 = min(i[k]["start_ns"] for i in its)
        t1 = max(i[k]["end_ns"] for i in its)
        iters.append({"start_ns": t0, "end_ns": t1,
                      "time_us": (t1 - t0) / 1e3})
    times = [x["time_us"] for x in iters]
    avg = sum(times) / len(times) if times else 0.0
    algbw = size / (avg * 1e-6) / 1e9 if avg > 0 else 0.0
    hosts, per_rank = [], {}
    for r in reps:
        mh, g = r["multihost"], r["generator"]
        st = mh["start"]
        hosts.append({
            "host": mh["host"], "report": r["_path"],
            "ranks": mh["owned_ranks"], "leader": mh["leader"],
            "start_mode": st["mode"], "start_state": st["state"],
            "start_ns": st["at_ns"], "skew_ns": st["skew_ns"],
            "end": r["end"], "iterations": len(mh["iterations"]),
            "time_us_avg": g["collective"]["time_us"]["avg"],
            "tx_bytes": g["tx_bytes"],
            "retx_bytes": g.get("rc", {}).get("retx_bytes", 0),
            "fault_dropped": g["fault"]["dropped"]})
        for e in mh["per_rank"]:
            per_rank[e["rank"]] = dict(e, host=mh["host"])
    starts = [h["start_ns"] for h in hosts if h["start_ns"] is not None]
    skews = [abs(h["skew_ns"]) for h in hosts if h["skew_ns"] is not None]
    return {
        "tool": "merge_reports", "digest": reps[0]["multihost"]["digest"],
        "seed": reps[0]["multihost"]["seed"],
        "collective": {
            "op": op, "size": size, "ranks": n, "iterations": len(iters),
            "time_us": {"min": min(times) if times else 0.0, "avg": avg,
                        "max": max(times) if times else 0.0},
            "algbw_gbps": algbw,
            "busbw_gbps": algbw * busbw_factor(op, n)},
        "iterations": iters, "hosts": hosts,
        "per_rank": {str(k): per_rank[k] for k in sorted(per_rank)},
        "error": {
            "start_spread_ns": max(starts) - min(starts) if starts else None,
            "max_skew_ns": max(skews) if skews else None,
            "note": "each iteration's time is the latest end minus the "
                    "earliest start, read on different hosts' clocks: it "
                    "is off by at most the spread of their offsets (PTP "
                    "with hardware timestamps: well under 1 us; without "
                    "PTP: unknown, NTP gives milliseconds). Start skew "
                    "lands in the first iteration (a warm-up one when "
                    "warmup >= 1): closed loop, the early hosts wait."}}


def print_table(m, f):
    c = m["collective"]
    f.write("# %s: %d ranks over %d hosts, %d timed iteration(s); time = "
            "latest end - earliest start over the hosts\n" % (
                c["op"], c["ranks"], len(m["hosts"]), c["iterations"]))
    f.write("#%11s %12s %8s %6s %10s %8s %8s %6s\n" % (
        "size", "count", "type", "redop", "time", "algbw", "busbw",
        "#wrong"))
    f.write("#%11s %12s %8s %6s %10s %8s %8s %6s\n" % (
        "(B)", "(elements)", "", "", "(us)", "(GB/s)", "(GB/s)", ""))
    f.write("%12d %12d %8s %6s %10.1f %8.2f %8.2f %6s\n" % (
        c["size"], c["size"] // 4, "float", REDOP.get(c["op"], "none"),
        c["time_us"]["avg"], c["algbw_gbps"], c["busbw_gbps"], "N/A"))
    f.write("# time min/avg/max %.1f/%.1f/%.1f us\n" % (
        c["time_us"]["min"], c["time_us"]["avg"], c["time_us"]["max"]))
    f.write("# per host: host ranks start skew_us own_avg_us tx_bytes "
            "retx_bytes dropped end\n")
    for h in m["hosts"]:
        f.write("#   %-8s %-12s %-7s %9s %10.1f %12d %10d %7d %s\n" % (
            h["host"], ranges(h["ranks"]), h["start_mode"],
            "-" if h["skew_ns"] is None else "%.1f" % (h["skew_ns"] / 1e3),
            h["time_us_avg"], h["tx_bytes"], h["retx_bytes"],
            h["fault_dropped"], h["end"]))
    f.write("# per rank: rank host sent_bytes delivered_bytes retx_bytes\n")
    for k, e in m["per_rank"].items():
        f.write("#   %4s %-8s %12d %12d %10d\n" % (
            k, e["host"], e["sent_bytes"], e["delivered_bytes"],
            e["retx_bytes"]))
    er = m["error"]
    f.write("# clocks: start skew: hosts began %s us apart (largest skew "
            "a host saw: %s us); %s\n" % (
                "-" if er["start_spread_ns"] is None else
                "%.1f" % (er["start_spread_ns"] / 1e3),
                "-" if er["max_skew_ns"] is None else
                "%.1f" % (er["max_skew_ns"] / 1e3), er["note"]))


def ranges(ks):
    out, i = [], 0
    while i < len(ks):
        j = i
        while j + 1 < len(ks) and ks[j + 1] == ks[j] + 1:
            j += 1
        out.append("%d" % ks[i] if i == j else "%d-%d" % (ks[i], ks[j]))
        i = j + 1
    return ",".join(out)


def write_html(path, m):
    c, e = m["collective"], html.escape

    def table(head, rows):
        return ("<table><tr>" + "".join("<th>%s</th>" % e(x) for x in head)
                + "</tr>" + "".join("<tr>" + "".join(
                    "<td>%s</td>" % e(str(x)) for x in r) + "</tr>"
                    for r in rows) + "</table>")
    body = ["<h1>dpdk-aifab: %s over %d hosts</h1>" % (
        e(c["op"]), len(m["hosts"])),
        "<p>profile digest <code>%s</code>, seed %d</p>" % (
            e(m["digest"]), m["seed"]),
        table(["size (B)", "count", "type", "redop", "time (us)",
               "algbw (GB/s)", "busbw (GB/s)"],
              [[c["size"], c["size"] // 4, "float",
                REDOP.get(c["op"], "none"), "%.1f" % c["time_us"]["avg"],
                "%.3f" % c["algbw_gbps"], "%.3f" % c["busbw_gbps"]]]),
        "<h2>Iterations</h2>",
        table(["#", "time (us)", "earliest start (ns)", "latest end (ns)"],
              [[i, "%.1f" % x["time_us"], x["start_ns"], x["end_ns"]]
               for i, x in enumerate(m["iterations"])]),
        "<h2>Hosts</h2>",
        table(["host", "ranks", "start", "skew (us)", "own avg (us)",
               "tx bytes", "resent bytes", "dropped", "end"],
              [[h["host"], ranges(h["ranks"]), h["start_mode"],
                "-" if h["skew_ns"] is None else "%.1f" % (
                    h["skew_ns"] / 1e3), "%.1f" % h["time_us_avg"],
                h["tx_bytes"], h["retx_bytes"], h["fault_dropped"],
                h["end"]] for h in m["hosts"]]),
        "<h2>Ranks</h2>",
        table(["rank", "host", "sent bytes", "delivered bytes",
               "resent bytes"],
              [[k, r["host"], r["sent_bytes"], r["delivered_bytes"],
                r["retx_bytes"]] for k, r in m["per_rank"].items()]),
        "<h2>Clocks</h2><p>%s</p>" % e(m["error"]["note"])]
    with open(path, "w") as f:
        f.write("<!DOCTYPE html><html><head><meta charset=\"utf-8\">"
                "<title>merged collective</title><style>body{font-family:"
                "sans-serif;margin:1em}table{border-collapse:collapse}"
                "td,th{border:1px solid #999;padding:2px 6px;text-align:"
                "right}</style></head><body>%s</body></html>\n"
                % "\n".join(body))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("reports", nargs="+")
    ap.add_argument("--json")
    ap.add_argument("--html")
    a = ap.parse_args()
    try:
        reps = load(a.reports)
        check(reps)
    except Refused as e:
        sys.stderr.write("merge_reports: %s; refused\n" % e)
        return 1
    m = merge(reps)
    print_table(m, sys.stdout)
    if a.json:
        with open(a.json, "w") as f:
            json.dump(m, f, indent=2)
            f.write("\n")
    if a.html:
        write_html(a.html, m)
    return 0


if __name__ == "__main__":
    sys.exit(main())
