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
by at least the wire time of the frame before (serialization starts), and
every frame leaves the switch at its arrival there or when its port is
free, whichever is later (exact egress: no polling step). On the lossless
incast scenario (thresholds pinned), every XOFF/XON the switch sends is the
one the depths at the frames' arrival and departure instants (rebuilt from
the captures) call for, at that instant or when its port's frame ends. A
realtime run says `realtime`. Skipping a switch's polls before its next
event changes no report, capture or stats line (AIFAB_VCLOCK_POLL_ALL)."""
import filecmp
import hashlib
import json
import os
import shutil
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


def serial(frames, mbps):
    """A port's transmitter as the model has it (app_serial_start(): the
    wire time exact, its fraction of a ns carried, an idle port starting on
    a whole ns), over a capture's (stamp, frame)s in order: per frame
    (its start, the port free before it, the port free after it)."""
    free = frac = 0
    out = []
    for t, fr in frames:
        bits = (len(fr) + 24) * 8000
        before = free
        if t > free:
            free, frac = t, 0
        start = free
        free += bits // mbps
        frac += bits % mbps
        if frac >= mbps:
            frac -= mbps
            free += 1
        out.append((start, before, free))
    return out


def bth_key(fr):  # IPv4 addresses, UDP ports, BTH: one frame's
    return fr[26:38] + fr[42:54]


def expected_pfc(evs, xoff, xon, headroom, refresh):
    """The XOFF/XON one ingress port's lossless TC sends (PROTOCOLS.md,
    docs/profiles.md: static XOFF, XON at XOFF - offset with the headroom
    empty, XOFF refreshed every half pause while above XON), from its
    frames' arrivals (kind 0) and departures (kind 1) at the switch, in
    the model's order at one instant: arrivals, the PFC frame due, the
    departures, an XON they made due. Returns [(kind, instant)]."""
    want = told = False
    b = h = nr = 0
    exp, k = [], 0
    evs = sorted(evs)
    while k < len(evs):
        t = evs[k][0]
        while want and told and nr < t:  # refreshes between events
            exp.append(("xoff", nr))
            nr += refresh
        while k < len(evs) and evs[k][:2] == (t, 0):
            ln = evs[k][2]
            if b + ln > xoff:
                h += ln
            b += ln
            want = want or b >= xoff
            k += 1
        if want and (not told or t >= nr):
            exp.append(("xoff", t))
            nr, told = t + refresh, True
        elif not want and told:
            exp.append(("xon", t))
            told = False
        while k < len(evs) and evs[k][0] == t:
            ln = evs[k][2]
            h -= min(ln, h)
            b -= ln
            if want and b <= xon and h == 0:
                want = False
            k += 1
        if not want and told:
            exp.append(("xon", t))
            told = False
    return exp


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

    # No gap the model does not explain: a frame leaves the switch (s<i>)
    # at its arrival there, or when its port has serialized the frame
    # before, whichever is later, to the ns the carried fraction adds. Its
    # arrival is its serialization start on the rank's port (g<i>), plus
    # its wire time, plus the cable (a constant: the least such delay).
    mbps = {n: a["ports"][n[3:-5]]["speed_mbps"] for n in names}

    sent = {}
    for n in names:
        if n.startswith("tx_g"):
            for t, fr in lib_aifab.read_pcap_ns(os.path.join(cap_a, n)):
                sent[bth_key(fr)] = t + (len(fr) + 24) * 8000 // mbps[n]
    deps = [(n, pk) for n in names if n.startswith("tx_s")
            for pk in [lib_aifab.read_pcap_ns(os.path.join(cap_a, n))]]
    found = [(t - sent[bth_key(fr)]) for _n, pk in deps for t, fr in pk
             if bth_key(fr) in sent]
    cable = min(found) if found else 0
    late, waited, through = [], 0, 0
    for n, pk in deps:
        end = None
        for t, fr in pk:
            if bth_key(fr) not in sent:
                continue
            start = sent[bth_key(fr)] + cable
            if end is not None and end > start:
                start = end
                waited += 1
            if not 0 <= t - start <= 1:
                late.append((n, t, start))
            end = t + (len(fr) + 24) * 8000 // mbps[n]
            through += 1
    check(through == sum(len(pk) for _n, pk in deps) and through > 0 and
          0 <= cable <= 50000 and not late,
          "every switch departure at max(its arrival, the port free), to "
          "1 ns (cable %d ns; %d of %d behind the frame before)" %
          (cable, waited, through), late[:3])

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

# PFC at the exact depths: a lossless alltoall (the incast scenario, its
# thresholds pinned here). From the captures alone: each frame's arrival
# at the switch (its start on the rank's port, its exact wire time, the
# cable) and its departure (its stamp on the switch's port); per ingress
# port, the XOFF/XON it must send at the instants those depths cross the
# thresholds, each stamped then or when the frame on its wire ends.
XOFF, XON_OFF, HR, PAUSE = 131072, 16384, 196608, 65535
with tempfile.TemporaryDirectory() as d:
    prof = os.path.join(lib_aifab.source_root(), "profiles", "scenarios",
                        "incast-lossless.ini")
    sets = ["general.clock=virtual", "tc.3.lossless=true", "tc.3.ecn=false",
            "tc.3.pfc_xoff_bytes=%d" % XOFF,
            "tc.3.pfc_xon_offset_bytes=%d" % XON_OFF,
            "tc.3.pfc_headroom_bytes=%d" % HR,
            "tc.3.pfc_pause_quanta=%d" % PAUSE]
    _, inc, cap = run(d, "incast", ["--profile", prof] + [
        x for kv in sets for x in ("--set", kv)])
    ports = sorted(n[3:-5] for n in os.listdir(cap))
    mbps = {n: inc["ports"][n]["speed_mbps"] for n in ports}
    pk = {n: lib_aifab.read_pcap_ns(os.path.join(cap, "tx_%s.pcap" % n))
          for n in ports}
    peer = {}
    for name in ports:  # rank port g<i> is cabled to switch port s<i>
        if name.startswith("g") and "s" + name[1:] in pk:
            peer[name] = "s" + name[1:]
    sent, unserial = {}, []
    for g in peer:
        for (t, fr), (st, _b, end) in zip(pk[g], serial(pk[g], mbps[g])):
            if st != t:
                unserial.append((g, t, st))
            sent[bth_key(fr)] = (peer[g], end, len(fr))
    data = [(s, t, fr) for s in peer.values() for t, fr in pk[s]
            if fr[12:14] != b"\x88\x08"]
    cable = min((t - sent[bth_key(fr)][1] for _s, t, fr in data
                 if bth_key(fr) in sent), default=0)
    evs = {s: [] for s in peer.values()}
    for _s, t, fr in data:
        i, end, ln = sent[bth_key(fr)]
        evs[i] += [(end + cable, 0, ln), (t, 1, ln)]
    bad, n_pfc = [], 0
    for s in sorted(evs):
        exp = expected_pfc(evs[s], XOFF, XOFF - XON_OFF, HR,
                           PAUSE // 2 * 512 * 1000 // mbps[s])
        got = [("xoff" if int.from_bytes(fr[24:26], "big") else "xon",
                t, before)
               for (t, fr), (_st, before, _e) in zip(pk[s], serial(pk[s],
                                                                  mbps[s]))
               if fr[12:14] == b"\x88\x08"]
        n_pfc += len(got)
        if [g[0] for g in got] != [e[0] for e in exp]:
            bad.append((s, "kinds", len(got), len(exp)))
            continue
        bad += [(s, g, e) for g, e in zip(got, exp)
                if g[1] != max(e[1], g[2])][:1]
    check(not unserial and len(data) == sum(
        len(v) for v in evs.values()) // 2 and data,
          "incast: every rank's frame starts as its port serializes it and "
          "reaches the switch", (unserial[:3], len(data)))
    check(n_pfc > 0 and not bad,
          "incast: all %d PFC frames are the XOFF/XON the depths at the "
          "frames' arrival and departure instants call for, each at that "
          "instant or when its port's frame ends (cable %d ns)" %
          (n_pfc, cable), bad[:3])

# Polls skipped change nothing. A switch instance with one worker is
# polled only at its own next event, the frames reaching it and its
# counter mirrors (next_event_exact); AIFAB_VCLOCK_POLL_ALL=1 makes the
# loop poll it at every step while it has an event, as before. Both ways
# must give the same report, the same capture files and the same stats
# lines (but their wall-clock time and the lcores' load), and the default
# must poll less (it skipped something). PFC (lossless incast), the
# watchdog and a storm stage (pfc-storm: reports and stats lines only,
# its captures are GBs), fault stages' delay and loss (latency-loss), four
# switch instances (clos.ini), a link-down window and a rate limit.
def stats_lines(path):
    def strip_line(o):
        if isinstance(o, dict):
            return {k: strip_line(v) for k, v in o.items()
                    if k != "time" and "lcore" not in k}
        if isinstance(o, list):
            return [strip_line(v) for v in o]
        return o
    with open(path) as f:
        return [strip_line(json.loads(x)) for x in f]


def digest_dir(path):
    out = {}
    for n in sorted(os.listdir(path)):
        h = hashlib.sha256()
        with open(os.path.join(path, n), "rb") as f:
            for blk in iter(lambda: f.read(1 << 20), b""):
                h.update(blk)
        out[n] = h.hexdigest()
    return out


root = lib_aifab.source_root()
cases = [
    ("incast-lossless", os.path.join(root, "profiles", "scenarios",
                                     "incast-lossless.ini"), [], True),
    ("pfc-storm", os.path.join(root, "profiles", "scenarios",
                               "pfc-storm.ini"), [], False),
    ("latency-loss", os.path.join(root, "profiles", "scenarios",
                                  "latency-loss.ini"),
     ["--set", "generator.size_bytes=1048576",
      "--set", "generator.iterations=2"], True),
    ("clos", os.path.join(root, "profiles", "clos.ini"),
     ["--set", "generator.size_bytes=1048576",
      "--set", "generator.iterations=2"], True),
    # a fault stage's link-down window (its edges are events: ECMP
    # members out and back) and its rate limit, go-back-N resends
    ("link-down", os.path.join(root, "profiles", "scenarios", "clean.ini"),
     ["--set", "generator.size_bytes=1048576",
      "--set", "generator.iterations=3",
      "--set", "port.s2.fault_tx_down_at_us=50",
      "--set", "port.s2.fault_tx_down_for_us=5000",
      "--set", "generator.retx_timeout_us=2000",
      "--set", "port.s3.fault_tx_rate_gbps=100"], True),
]
for name, prof, extra, capture in cases:
    with tempfile.TemporaryDirectory() as d:
        got = {}
        for mode in ("skip", "all"):
            env = dict(os.environ)
            env.pop("AIFAB_VCLOCK_POLL_ALL", None)
            if mode == "all":
                env["AIFAB_VCLOCK_POLL_ALL"] = "1"
            rep = os.path.join(d, mode + ".json")
            jl = os.path.join(d, mode + ".jsonl")
            cap = os.path.join(d, mode)
            cmd = [exe, "--profile", prof, "--set", "general.clock=virtual",
                   "--report-json", rep, "--stats-jsonl", jl,
                   "--quiet"] + extra + (["--capture", cap] if capture
                                         else [])
            p = subprocess.run(cmd, capture_output=True, text=True,
                               timeout=600, cwd=d, env=env)
            check(p.returncode == 0, "%s (%s): exit 0" % (name, mode),
                  (p.returncode, p.stderr[-500:]))
            line = [x for x in p.stdout.splitlines()
                    if x.startswith("virtual clock: ")]
            polls = int(line[0].split(" polls")[0].split()[-1]) \
                if line and " polls" in line[0] else -1
            got[mode] = (strip(json.load(open(rep))), stats_lines(jl),
                         digest_dir(cap) if capture else {}, polls)
            os.remove(jl)
            if capture:
                shutil.rmtree(cap)
        a, b = got["skip"], got["all"]
        check(a[0] == b[0], "%s: the same report with every poll" % name,
              [k for k in a[0] if a[0].get(k) != b[0].get(k)])
        check(len(a[1]) > 0 and a[1] == b[1],
              "%s: the same %d stats lines with every poll" %
              (name, len(a[1])),
              next((i for i, (x, y) in enumerate(zip(a[1], b[1]))
                    if x != y), (len(a[1]), len(b[1]))))
        check(a[2] == b[2] and (a[2] or not capture),
              "%s: the same %d capture files with every poll" %
              (name, len(a[2])),
              sorted(k for k in set(a[2]) | set(b[2])
                     if a[2].get(k) != b[2].get(k)))
        check(0 < a[3] < b[3],
              "%s: fewer polls than with every poll (%d < %d)" %
              (name, a[3], b[3]), (a[3], b[3]))

# The scenarios' closed forms (clean, +latency = clean + (2(N-1) + 1) x
# the delay, ...) are tests/integration/test_scenarios.py's.

ck.finish()
