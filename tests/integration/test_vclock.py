#!/usr/bin/python3
"""[general] clock = virtual on the in-memory demo (issue 16): the whole
process on one discrete-event clock.

Judged from the reports and the --capture files: two runs of the same
profile and seed, one of them while other processes load every CPU, give
the same report (but for elapsed_s and the lcores' cycle counts) and the
same capture files byte for byte; the report says which clock ran; every
frame the wires delivered was received by a port; the collective is never
faster than its ideal time (the links' rate) and every timed iteration of
a clean fabric takes the same time; departures in the captures are spaced
by at least the wire time of the frame before (serialization starts). A realtime run says `realtime`."""
import filecmp
import json
import os
import subprocess
import sys
import tempfile

import lib_aifab

exe = os.path.abspath(lib_aifab.exe_path())
ck = lib_aifab.Checks("test_vclock")


def check(ok, what, got=""):
    ck.check(ok, what, "" if ok else "got %r" % (got,))


def run(d, tag, extra, load=False):
    rep = os.path.join(d, tag + ".json")
    cap = os.path.join(d, tag)
    burners = []
    if load:  # keep every CPU busy while the run goes
        burners = [subprocess.Popen([sys.executable, "-c",
                                     "while True: pass"])
                   for _ in range(os.cpu_count() or 2)]
    try:
        p = subprocess.run([exe, "--report-json", rep, "--capture", cap]
                           + extra, capture_output=True, text=True,
                           timeout=300, cwd=d)
    finally:
        for b in burners:
            b.kill()
            b.wait()
    check(p.returncode == 0, "%s: exit 0" % tag,
          (p.returncode, p.stderr[-500:]))
    return p.stdout, json.load(open(rep)), cap


def strip(r):
    r = dict(r)
    for k in ("elapsed_s", "lcores"):  # the machine's, not the model's
        r.pop(k, None)
    mh = r.get("multihost")
    if mh is not None:  # wall-clock instants (CLOCK_REALTIME): the machine's
        mh = json.loads(json.dumps(mh))
        for k in ("start_ns", "end_ns"):
            mh.pop(k, None)
        mh.get("start", {}).pop("at_ns", None)
        for it in mh.get("iterations", []):
            it.pop("start_ns", None)
            it.pop("end_ns", None)
        r["multihost"] = mh
    return r


with tempfile.TemporaryDirectory() as d:
    # The demo (virtual by default) with a 4 MiB message: 172,000
    # frame-hops per run to capture, not 64 MiB's 3 million.
    small = ["--set", "generator.size_bytes=4194304"]
    vset = ["--set", "general.clock=virtual"] + small
    rset = ["--set", "general.clock=realtime"] + small
    out_a, a, cap_a = run(d, "a", vset)
    out_b, b, cap_b = run(d, "b", vset, load=True)
    out_r, rt, _ = run(d, "rt", rset + ["--duration", "30"])
    jl = os.path.join(d, "s.jsonl")
    _, sj, _ = run(d, "s", vset + ["--stats-jsonl", jl, "--quiet"])
    _, s20, _ = run(d, "s20", vset + ["--stats-jsonl", jl + "20",
                                      "--stats-interval", "20us",
                                      "--quiet"])
    bad = subprocess.run([exe, "--stats-interval", "20us"] + rset,
                         capture_output=True, text=True, timeout=60, cwd=d)

    check("clock: virtual (one discrete-event clock" in out_a,
          "the banner says the virtual clock runs", out_a[:400])
    check("clock: realtime (TSC)" in out_r,
          "a realtime run's banner says realtime", out_r[:400])
    check(a["clock"] == "virtual" and rt["clock"] == "realtime",
          "the report's clock field", (a.get("clock"), rt.get("clock")))
    check("virtual_clock" not in rt, "no virtual_clock object in realtime",
          rt.get("virtual_clock"))
    check(strip(a) == strip(b),
          "same report twice, the second run under CPU load",
          [k for k in strip(a) if strip(a).get(k) != strip(b).get(k)])
    names = sorted(os.listdir(cap_a))
    check(names and names == sorted(os.listdir(cap_b)),
          "both runs captured the same ports", names)
    same = [n for n in names
            if filecmp.cmp(os.path.join(cap_a, n), os.path.join(cap_b, n),
                           shallow=False)]
    check(same == names, "every capture file identical byte for byte",
          sorted(set(names) - set(same)))

    # Departure stamps: the instant each frame's serialization starts on
    # its port (400G in the demo): never before the previous frame has
    # left, and back to back (the wire time exactly, within the ns the
    # carried fraction adds) while a port is busy.
    short, b2b, frames = [], 0, 0
    for n in names:
        pk = lib_aifab.read_pcap_ns(os.path.join(cap_a, n)) or []
        frames += len(pk)
        for (t0, f0), (t1, _) in zip(pk, pk[1:]):
            wire = (len(f0) + 24) * 8000 // 400000
            if t1 - t0 < wire:
                short.append((n, t0, t1, len(f0)))
            elif t1 - t0 <= wire + 1:
                b2b += 1
    check(frames > 0 and not short,
          "no departure before the previous frame's serialization ended",
          short[:3])
    check(b2b > frames // 2,
          "most departures back to back at line rate (a bandwidth-bound "
          "ring)", (b2b, frames))

    # Live statistics in model time: --stats-interval 20us gives one line
    # per 20 us of the model (and the final one); the default about 200.
    lines = [json.loads(x) for x in open(jl)]
    l20 = [json.loads(x) for x in open(jl + "20")]
    end_s = s20["virtual_clock"]["model_time_ns"] / 1e9
    check(abs(len(l20) - (end_s / 20e-6 + 1)) <= 2,
          "--stats-interval 20us: one JSON line per 20 us of model time",
          (len(l20), end_s))
    ts = [x["t"] for x in l20]
    check(ts == sorted(ts) and abs(ts[-1] - end_s) < 2e-6 and
          abs(ts[0] - 20e-6) < 1e-6,
          "their t is model seconds, 20 us apart, up to the end",
          (ts[:3], ts[-1], end_s))
    check(150 <= len(lines) <= 260, "by default about 200 samples",
          len(lines))
    tx = [sum(x["sw"]["counters"]["tx_pkts"].values()) for x in lines]
    moving = sum(1 for u, v in zip(tx, tx[1:]) if v > u)
    check(moving >= len(tx) * 3 // 4, "the switch's tx_pkts grows from "
          "sample to sample (the charts show the run)", (moving, len(tx)))
    check(strip(sj) == strip(a), "sampling does not change the model "
          "(the same report with and without --stats-jsonl)",
          [k for k in strip(a) if strip(a).get(k) != strip(sj).get(k)])
    check(bad.returncode != 0 and "below 0.05 s only on the whole-process "
          "virtual clock" in bad.stderr,
          "realtime refuses --stats-interval 20us, saying why",
          bad.stderr[-300:])

    vc = a.get("virtual_clock", {})
    rx = sum(p["rx_packets"] for p in a["ports"].values())
    check(vc.get("frame_hops") == rx and rx > 0,
          "frame-hops the wires delivered = frames the ports received",
          (vc.get("frame_hops"), rx))
    check(a["end"] == "input_consumed", "the collective completed",
          a["end"])
    g = a["generator"]
    c = g["collective"]
    ideal = g["ideal_us"]
    its = [i["time_us"] for i in g["per_iteration"]]
    check(c["iterations"] == 5 and len(its) == 5, "5 timed iterations",
          its)
    check(min(its) >= ideal, "no iteration beats the links' ideal time",
          (its, ideal))
    check(max(its) == min(its),
          "a clean fabric: every timed iteration takes the same time", its)
    check(vc.get("model_time_ns", 0) >= 6 * ideal * 1e3,
          "model time covers warm-up + 5 iterations at >= ideal",
          (vc.get("model_time_ns"), ideal))
    drops = {p: {k: v for k, v in q["drops"].items() if v}
             for p, q in a["ports"].items()}
    check(not any(drops.values()), "no frame dropped on any port", drops)
    check(a["mempool_in_use_at_exit"] == 0, "every mbuf returned",
          a["mempool_in_use_at_exit"])
    print("virtual: %.1f us per iteration, ideal %.1f us (x%.4f); "
          "%d frame-hops" % (its[0], ideal, its[0] / ideal, rx))

# The scenarios' closed forms (clean, +latency = clean + (2(N-1) + 1) x
# the delay, ...) are tests/integration/test_scenarios.py's.

ck.finish()
