#!/usr/bin/python3
"""Issues 8 and 16: the shipped scenarios (profiles/scenarios, 400G links,
100G for the incast's slow port and the Clos fabric, on the virtual clock)
through tools/scenarios.py, each row judged from its JSON report against a
closed form derived here from the profile's own parameters (not from a
previous run); and the switch ports' fault stage (bandwidth limit, link
down, every-Nth loss, jitter, a TX PFC storm) against the formulas it must
obey; SIGINT mid-collective ends a run cleanly.

The clock is the model's (docs/virtual-time.md): every figure is the same
on every run and under any load, so the rows are asserted as values:

* clean: 2(N-1) ring steps, each the chunk's wire time + the last frame's
  store-and-forward + two cables, + the ACKs that share the links, + the
  last ACK's way back;
* latency (+d on every leaf egress): the same with d per step and one more
  for the last ACK; the ACKs then fall into the idle wait (d > a chunk's
  wire time) but one per step;
* loss (every Kth data frame at every leaf egress: each rank's ring sees
  the same losses): clean + per ring chain (re-sent frames x frame time +
  NAKs x NAK time + timeouts x RTO); one tail loss: + RTO;
* latency-loss: per lost frame the NAK's and the re-send's way, 2d + 3
  frame times + 4 cables + 2 ACK times;
* incast lossless: all it sends through the slow port at its rate, plus
  the first frame's way in and the last ACK's way out; lossy: no faster,
  plus the drops' recoveries; ECN/DCQCN: the same bytes, CNPs one per
  QP per cnp_interval at most, every CNP a rate cut;
* PFC storm: XOFFs one per pause time; the watchdog detects at the first
  XOFF + detection_ms (action forward: the queue leaves at that instant);
* ECMP polarization: the spines' choice repeats the leaves' (max/mean
  exactly 2), a seed per spine spreads it.

Egress is exact (docs/virtual-time.md): a frame leaves at the instant its
serialization starts, a busy wire carries the fraction of a ns from frame
to frame; only the model's instants are whole ns (an idle wire starts on
a whole ns, a frame is delivered at the first whole ns of its arrival).
So a formula holds to within 1 ns per such instant on its critical path
(ROUND below: 4 per ring step - the leaf's arrival and egress start, the
receiver's arrival and its next wire start -, one more per delay line,
4 per recovery), not to a poll step; counts (XOFFs, drops, re-sends) are
asserted exactly, and where a row has no closed form (the lossy incast)
its exact invariants are."""
import configparser
import json
import math
import os
import signal
import subprocess
import sys
import tempfile
import time

import lib_aifab
from lib_aifab import Checks, exe_path, source_root

exe = exe_path()
root = source_root()
scen = os.path.join(root, "profiles", "scenarios")
ck = Checks("test_scenarios")
check = ck.got

# ---- the profiles' parameters ----------------------------------------------

# Frame sizes (PROTOCOLS.md): a RoCEv2 RDMA WRITE frame adds Ethernet 14,
# IPv4 20, UDP 8, BTH 12, ICRC 4 to its payload, RETH 16 on a message's
# first frame; an ACK is Ethernet + IPv4 + UDP + BTH + AETH 4 + ICRC = 62.
# On the wire every frame adds FCS 4, preamble 8, inter-frame gap 12.
HDR = 14 + 20 + 8 + 12 + 4
WIRE = 24
RETH = 16
ACK = 14 + 20 + 8 + 12 + 4 + 4 + WIRE
# profile defaults (docs/profiles.md)
DEF = {"ack_every": "8", "cable_m": "3", "retx_timeout_us": "67109",
       "window": "128", "cnp_interval_us": "50", "shaper_burst_bytes":
       "32768", "iterations": "1", "warmup": "0"}


class Prof:
    """A shipped scenario profile, as the run read it."""

    def __init__(self, name):
        self.cp = configparser.ConfigParser(
            inline_comment_prefixes=(";", "#"))
        self.cp.read(os.path.join(scen, name + ".ini"))

    def get(self, sect, key):
        return self.cp.get(sect, key, fallback=DEF.get(key))

    def gen(self, key):
        return self.get("generator", key)

    def gbps(self, port):           # bits per ns
        return float(self.get("port." + port, "speed_gbps"))

    def cable_ns(self, a, b):       # 5 ns/m, the longer end's cable_m
        return 5 * max(int(self.get("port." + a, "cable_m")),
                       int(self.get("port." + b, "cable_m")))


def rounding(steps, delays=0, recoveries=0, extra=2):
    """ROUND: the most the model's whole-ns instants can move a critical
    path, ns: 1 ns per instant (4 per ring step, 1 per delay line on it,
    4 per NAK'd recovery, `extra` for the first and last frame's way)."""
    return 4 * steps + delays + 4 * recoveries + extra


def msg_frames(n, mtu):
    """(frames, wire bytes of all, wire bytes of the last) of an n-byte
    RDMA WRITE message in mtu frames (the last padded to 4 bytes)."""
    f = -(-n // mtu)
    last = n - (f - 1) * mtu
    pad = (4 - last % 4) % 4
    return f, n + pad + RETH + f * (HDR + WIRE), last + pad + HDR + WIRE


def ring(p, delay_ns=0):
    """Closed form of one clean ring AllReduce iteration on the 8-rank leaf
    (g<r> - s<r>, one speed), ns. Rank r sends its chunk c = S/N of step k
    to r+1 once chunk k-1 from r-1 has arrived, so a step lasts the
    chunk's wire time W + the last frame's store-and-forward at the leaf
    (Tl) + two cables (2 dc): the receiver starts step k+1 when the last
    frame is in. The receivers' ACKs (one per ack_every frames, and one
    per message) share the senders' links: on a clean fabric they come
    while the link sends its own chunk and add their wire time Ta each;
    the iteration ends when the last ACK is back (2 Ta + 2 dc).
    With a delay d > W on every leaf egress a step lasts d longer, the
    ACKs arrive while the link waits for the next chunk, but the one sent
    as the next step starts (one per step), and the last ACK takes d too.
    """
    n = int(p.gen("ranks"))
    s = int(p.gen("size_bytes"))
    mtu = int(p.gen("ib_mtu"))
    g = p.gbps("s0")
    f, w, tl = msg_frames(s // n, mtu)
    W, Tl, Ta = w * 8 / g, tl * 8 / g, ACK * 8 / g
    dc = p.cable_ns("s0", "g0")
    steps = 2 * (n - 1)
    if delay_ns == 0:
        acks = steps * -(-f // int(p.gen("ack_every"))) + 2
        return steps * (W + Tl + 2 * dc) + acks * Ta + 2 * dc
    assert delay_ns > W, "the latency formula wants d > a chunk's time"
    return steps * (W + Tl + 2 * dc + delay_ns + Ta) + delay_ns + 2 * dc + \
        2 * Ta


def ideal_ns(p, rate_port):
    """The report's ideal: the data frames' wire bytes a rank sends (busbw
    factor x S, in mtu frames; a chunk split over qps_per_conn QPs, one
    message each) at rate_port's speed (docs/generator.md)."""
    n = int(p.gen("ranks"))
    s = int(p.gen("size_bytes"))
    q = int(p.gen("qps_per_conn") or 1)
    c = s // n
    w = sum(msg_frames(c // q + (i < c % q), int(p.gen("ib_mtu")))[1]
            for i in range(q))
    msgs = 2 * (n - 1) if p.gen("collective") == "allreduce_ring" else n - 1
    return msgs * w * 8 / p.gbps(rate_port)


def port_sum(rep, key):
    return sum(v.get(key, 0) for v in rep["ports"].values())


def tc3(rep, port, key):
    return rep["ports"][port]["tc"]["3"][key]


def tc_all(rep, key):
    return sum(t.get(key, 0) for q in rep["ports"].values()
               for t in q.get("tc", {}).values())


def near(got_ns, want_ns, tol_ns, what):
    check(abs(got_ns - want_ns) <= tol_ns,
          "%s (%.3f us, formula %.3f us, within %.0f ns)"
          % (what, got_ns / 1e3, want_ns / 1e3, tol_ns),
          (got_ns, want_ns, got_ns - want_ns))


# ---- every shipped scenario through tools/scenarios.py ---------------------

with tempfile.TemporaryDirectory() as d:
    out = os.path.join(d, "s.json")
    t0 = time.monotonic()
    p = subprocess.run([sys.executable,
                        os.path.join(root, "tools", "scenarios.py"),
                        "--exe", exe, "--json", out],
                       capture_output=True, text=True, timeout=1200)
    print(p.stdout)
    print("tools/scenarios.py: %.1f s wall" % (time.monotonic() - t0))
    check(p.returncode == 0, "tools/scenarios.py exit 0",
          (p.returncode, p.stderr[-800:]))
    res = json.load(open(out))
    # AIFAB_SCENARIOS_JSON=FILE keeps the table and the reports (tools/
    # scenarios.py --json): repeated runs are compared with them
    # (docs/virtual-time.md, "Deterministic")
    if os.environ.get("AIFAB_SCENARIOS_JSON"):
        with open(os.environ["AIFAB_SCENARIOS_JSON"], "w") as f:
            json.dump(res, f, sort_keys=True)
rows = {r["scenario"]: r for r in res["rows"]}
reps = res["reports"]
want = sorted(f[:-4] for f in os.listdir(scen) if f.endswith(".ini"))
check(sorted(rows) == want, "a row per shipped scenario", sorted(rows))

for n, r in rows.items():
    check(r["finished"], "%s: the collective completed" % n, r["end"])
    check(reps[n].get("mempool_in_use_at_exit") == 0,
          "%s: every mbuf returned (mempool_in_use_at_exit)" % n,
          reps[n].get("mempool_in_use_at_exit"))
    check(reps[n].get("clock") == "virtual", "%s: on the virtual clock" % n,
          reps[n].get("clock"))
    # the report's ideal is the frames' wire time at the slowest rank
    pr = Prof(n)
    slow = min(pr.cp.sections(), key=lambda s: float(pr.cp.get(
        s, "speed_gbps")) if s.startswith("port.g") else 1e9)
    near(reps[n]["generator"]["ideal_us"] * 1e3, ideal_ns(pr, slow[5:]), 1,
         "%s: ideal_us = its frames' wire bytes at the slowest rank" % n)


def its(name, key="time_us"):
    return [i[key] for i in reps[name]["generator"]["per_iteration"]]


# --- clean ------------------------------------------------------------------
P = Prof("clean")
N = int(P.gen("ranks"))
STEPS = 2 * (N - 1)
T_CLEAN = ring(P)
c = rows["clean"]
check(c["drops"] == 0 and c["naks"] == 0 and c["retx_packets"] == 0,
      "clean: no drop, no NAK, no re-send",
      (c["drops"], c["naks"], c["retx_packets"]))
tc = its("clean")
check(len(set(tc)) == 1, "clean: every timed iteration the same", tc)
# (measured 12.96 ns under the formula)
near(tc[0] * 1e3, T_CLEAN, rounding(STEPS), "clean: time = 2(N-1) x (W + Tl + 2 dc) + "
     "ACKs x Ta + 2 dc")
check(tc[0] <= 1.01 * c["ideal_us"],
      "clean: within 1% of the ideal (bandwidth-bound)", (tc[0],
                                                          c["ideal_us"]))

# --- latency ----------------------------------------------------------------
P = Prof("latency")
delay = int(P.get("port.s0", "fault_tx_delay_us"))
check(all(int(P.get("port.s%d" % i, "fault_tx_delay_us")) == delay
          for i in range(N)), "latency: the same delay on every leaf "
      "egress", delay)
T_LAT = ring(P, delay * 1000)
tl = its("latency")
lat = rows["latency"]
check(lat["drops"] == 0 and lat["retx_packets"] == 0,
      "latency: nothing lost", lat)
check(len(set(tl)) == 1, "latency: every timed iteration the same", tl)
near(tl[0] * 1e3, T_LAT, rounding(STEPS, STEPS + 1), "latency: time = 2(N-1) x (W + Tl + 2 dc + d "
     "+ Ta) + d + 2 dc + 2 Ta")
# the same thing said against clean: (2(N-1) + 1) x d, less the ACKs that
# moved out of the steps (all but one per step)
f, _, _ = msg_frames(int(P.gen("size_bytes")) // N, int(P.gen("ib_mtu")))
ta = ACK * 8 / P.gbps("s0")
near(tl[0] * 1e3, tc[0] * 1e3 + (2 * (N - 1) + 1) * delay * 1e3 -
     2 * (N - 1) * (-(-f // int(P.gen("ack_every"))) - 1) * ta,
     rounding(STEPS) + rounding(STEPS, STEPS + 1),
     "latency = clean + (2(N-1) + 1) x d - the ACKs' time off the steps")
lg = reps["latency"]["generator"]
check(lg["latency_ns"]["min"] >= delay * 1000,
      "latency: every frame's one-way latency >= the added %d us" % delay,
      lg["latency_ns"])
check(reps["clean"]["generator"]["latency_ns"]["max"] < delay * 1000,
      "clean: frames arrive without it",
      reps["clean"]["generator"]["latency_ns"])


# --- loss, latency-loss -----------------------------------------------------
def loss_check(name, base_ns, per_nak_ns):
    """Every Kth data frame lost at every leaf egress: each leaf port
    carries the same frames in the same order, so each rank's chain of
    ring steps meets the same losses (the counts divide by N) and one
    chain's recoveries add up: time = base + (NAKs x the cost of a NAK'd
    loss + timeouts x RTO) / N."""
    pr = Prof(name)
    k = int(pr.get("port.s0", "fault_tx_drop_every"))
    check(k > 0 and all(int(pr.get("port.s%d" % i, "fault_tx_drop_every"))
                        == k for i in range(N)),
          "%s: every %dth data frame lost at every leaf egress" % (name, k),
          k)
    rto = int(pr.gen("retx_timeout_us")) * 1000
    r = rows[name]
    fl = sum(q["drops"]["fault_loss"] for q in reps[name]["ports"].values())
    check(fl == r["drops"] and fl > 0, "%s: every drop is the fault "
          "stage's" % name, (fl, r["drops"]))
    # the data frames offered to s<i>'s TX stage: those g<i> received
    # (each carries a latency tag) and those lost
    per = [(reps[name]["ports"]["s%d" % i]["drops"]["fault_loss"],
            reps[name]["ports"]["g%d" % i]["latency_ns"]["samples"])
           for i in range(N)]
    check(all(lo == (got + lo) // k for lo, got in per),
          "%s: each port lost exactly floor(data frames offered / K)" % name,
          per)
    check(reps[name]["generator"]["qps"]["lost"] == 0,
          "%s: nothing lost end to end (RC)" % name,
          reps[name]["generator"]["qps"])
    for i, it in enumerate(reps[name]["generator"]["per_iteration"]):
        nk, to, rx = it["naks_rx"], it["timeouts"], it["retx_packets"]
        check(nk % N == 0 and to % N == 0 and rx % N == 0,
              "%s it %d: the same recoveries on every rank" % (name, i),
              (nk, to, rx))
        want = base_ns + per_nak_ns(rx / N, nk / N) + to / N * rto
        # (measured within 44 ns: latency-loss, 14 recoveries)
        dl = STEPS + 1 + 2 * nk / N if delay_of(pr) else 0
        near(it["time_us"] * 1e3, want, rounding(STEPS, dl, nk / N),
             "%s it %d: time = %s + per "
             "chain (%d NAK'd losses, %d re-sent, %d timeouts)" %
             (name, i, "clean" if delay_of(pr) == 0 else "latency",
              nk / N, rx / N, to / N))


def delay_of(pr):
    return int(pr.get("port.s0", "fault_tx_delay_us") or 0)


tf = (int(P.gen("ib_mtu")) + HDR + WIRE) * 8 / P.gbps("s0")
# No delay: the NAK comes back while the sender still sends the message,
# so the link never idles and a loss costs its re-sent frames at line rate
# plus the NAK's own wire time on the receiver's link.
loss_check("loss", tc[0] * 1e3, lambda rx, nk: rx * tf + nk * ta)
# With d on every leaf egress (2d > W) the sender has finished the message
# when the NAK is back: a loss costs the way the NAK takes (the next frame
# in, Tf + 2 dc + d, the NAK out, 2 Ta + 2 dc + d) and the re-send's last
# frame one more store-and-forward: 2d + 3 Tf + 4 dc + 2 Ta; the re-sent
# frames go on an otherwise idle link.
dc = P.cable_ns("s0", "g0")
loss_check("latency-loss", tl[0] * 1e3,
           lambda rx, nk: nk * (2 * delay * 1e3 + 3 * tf + 4 * dc + 2 * ta))
check(rows["latency-loss"]["retx_packets"] > rows["loss"]["retx_packets"],
      "go-back-N: more re-sent with latency (the whole rest of the message "
      "is in flight when the NAK comes back)",
      (rows["latency-loss"]["retx_packets"], rows["loss"]["retx_packets"]))


def run(profile, sets, name, extra=()):
    """One run of a shipped scenario profile with --set overrides."""
    with tempfile.TemporaryDirectory() as d:
        rep = os.path.join(d, "r.json")
        cmd = [exe, "--", "--profile", os.path.join(scen, profile + ".ini"),
               "--report-json", rep, "--quiet", "--duration", "60"] + \
            list(extra)
        for s in sets:
            cmd += ["--set", s]
        p = subprocess.run(cmd, capture_output=True, text=True, timeout=300)
        check(p.returncode == 0, "%s: exit 0" % name,
              (p.returncode, p.stderr[-500:]))
        return json.load(open(rep))


# One loss in the first message of every rank (the generator drops its
# Nth data frame on each port; the same frame on every rank): in the
# middle it costs the re-sent frames and the NAK, exactly; a tail loss
# (the message's last frame: nothing behind it reveals it) waits for the
# retransmit timer, below.
one = ["generator.iterations=1", "generator.warmup=0"]
cold = run("clean", one, "one iteration")["generator"]["per_iteration"][0]
P = Prof("clean")
rto = int(P.gen("retx_timeout_us")) * 1000
ae = int(P.gen("ack_every"))
f, _, _ = msg_frames(int(P.gen("size_bytes")) // N, int(P.gen("ib_mtu")))
r = run("clean", one + ["generator.fault_drop_index=%d" % (f // 4)],
        "mid-message loss")["generator"]
it = r["per_iteration"][0]
check(it["naks_rx"] == N and it["timeouts"] == 0,
      "mid-message loss: one NAK per rank, no timeout", it)
near(it["time_us"] * 1e3, cold["time_us"] * 1e3 + it["retx_packets"] / N *
     tf + ta, rounding(0, 0, 1), "mid-message loss: time = clean + re-sent "
     "x Tf + Ta")
r = run("clean", one + ["generator.fault_drop_index=%d" % f],
        "tail loss")["generator"]
it = r["per_iteration"][0]
check(it["timeouts"] == N and it["naks_rx"] == 0 and
      it["retx_packets"] == N * ae,
      "tail loss: one timeout per rank, go-back-N from the last ACKed PSN "
      "(ack_every = %d frames)" % ae, it)
t, base = it["time_us"] * 1e3, cold["time_us"] * 1e3 + rto
check(base <= t <= base + ae * tf,
      "tail loss: time = clean + RTO + less than the %d re-sent frames "
      "(%.3f us, RTO %.0f us; the exact sum from a capture below)" %
      (ae, t / 1e3, rto / 1e3), (t, base))
check(it["time_us"] > 100 * tc[0],
      "tail loss: one lost frame costs over 100 clean iterations",
      (it["time_us"], tc[0]))


def bth(fr):
    """(opcode, dest QP, PSN, IPv4 dst) of a RoCEv2 frame (PROTOCOLS.md:
    Ethernet 14, IPv4 20, UDP 8 to port 4791, then the BTH), else None."""
    if len(fr) < 54 or fr[12:14] != b"\x08\x00" or fr[23] != 17 or \
            int.from_bytes(fr[36:38], "big") != 4791:
        return None
    return (fr[42], int.from_bytes(fr[47:50], "big"),
            int.from_bytes(fr[51:54], "big"), bytes(fr[30:34]))


# The tail loss's cost, read off the captures of a 1 MiB ring (32 frames
# a chunk; the shipped 16 MiB would be 0.5 GB of pcap): the sender's last
# ACK (for PSN lost - a) leaves the leaf at t_s and is in at t_a =
# ceil(t_s + Ta + dc) (a frame is delivered at the first whole ns of its
# arrival), which restarts the timer; it fires at exactly t_a + RTO and
# go-back-N re-sends the a frames from that PSN on, back to back at line
# rate (the ACKs the rank sends meanwhile take their wire time between
# them); the lost frame's re-send leaves (a - 1) Tf + those ACKs later.
# Everything after is the clean ring, so the iteration lasts
#   clean + RTO + (t_a - t_lost) + (a - 1) Tf + k Ta
# (t_lost: the lost frame's first departure; the same on every rank):
# +0.370 us at 1 MiB, and at 16 MiB the test's +0.453 us above.
S_T = 1048576
f1 = S_T // N // int(P.gen("ib_mtu"))
cold1 = run("clean", one + ["generator.size_bytes=%d" % S_T],
            "one 1 MiB iteration")["generator"]["per_iteration"][0]
with tempfile.TemporaryDirectory() as d:
    cap = os.path.join(d, "cap")
    r = run("clean", one + ["generator.size_bytes=%d" % S_T,
                            "generator.fault_drop_index=%d" % f1],
            "1 MiB tail loss, captured", ["--capture", cap])
    it1 = r["generator"]["per_iteration"][0]
    pred, why = [], []
    for rk in range(N):
        ip = lambda k: bytes([10, 100, k % N, 1])
        g = [(t, bth(fr), len(fr)) for t, fr in lib_aifab.read_pcap_ns(
            os.path.join(cap, "tx_g%d.pcap" % rk))]
        sl = [(t, bth(fr)) for t, fr in lib_aifab.read_pcap_ns(
            os.path.join(cap, "tx_s%d.pcap" % rk))]
        data = [(t, b) for t, b, _ in g if b and b[3] == ip(rk + 1) and
                b[0] in (6, 7, 8)]
        t_lost, lb = next((t, b) for t, b in data if b[0] == 8)
        res = [(t, b) for t, b in data if t > t_lost and
               (lb[2] - b[2]) % (1 << 24) < ae]
        acks = [(t, b) for t, b in sl if b and b[0] == 0x11 and
                b[3] == ip(rk) and b[1] == lb[1] - 1 and t < res[0][0]]
        t_a = math.ceil(acks[-1][0] + ta + dc)
        # wire time between the first and the last re-send: the re-sent
        # frames but the last, and what else the rank sent between them
        between = sum((n + WIRE) * 8 / P.gbps("g0") for t, b, n in g
                      if res[0][0] <= t < res[-1][0])
        ok = ([b[2] for _, b in res] == [(lb[2] - ae + 1 + i) % (1 << 24)
                                          for i in range(ae)] and
              acks[-1][1][2] == (lb[2] - ae) % (1 << 24) and
              res[0][0] == t_a + rto and
              abs(res[-1][0] - res[0][0] - between) <= 1)
        why.append((rk, ok, t_lost, acks[-1][0], res[0][0] - t_a,
                    res[-1][0] - res[0][0], round(between, 2)))
        pred.append(t_a - t_lost + between)
    check(all(w[1] for w in why), "tail loss (1 MiB, capture): on every "
          "rank the last ACK (lost PSN - %d) restarts the timer, the "
          "re-sends of PSNs lost - %d .. lost leave at its arrival + RTO "
          "exactly, back to back at line rate" % (ae, ae - 1), why)
    near(it1["time_us"] * 1e3, cold1["time_us"] * 1e3 + rto + max(pred),
         2, "tail loss (1 MiB): time = clean + RTO + (t_a - t_lost) + "
         "(a - 1) Tf + k Ta = clean + RTO + %.3f us" % (max(pred) / 1e3))

# ack_every beyond the window: a window inside a long message would get no
# ACK (the requester sets AckReq on a message's last packet only) and wait
# for the retransmit timer; the profile is refused, naming both keys.
# ack_every = window still runs without a timeout.
w_ = 64
p = subprocess.run([exe, "--", "--profile", os.path.join(scen, "clean.ini"),
                    "--quiet", "--set", "generator.window=%d" % w_, "--set",
                    "generator.ack_every=%d" % (w_ + 1)],
                   capture_output=True, text=True, timeout=120)
check(p.returncode == 1 and "ack_every = '%d' > window = '%d'" % (w_ + 1, w_)
      in p.stderr and "allowed: 1..window" in p.stderr,
      "ack_every > window: refused at start-up, naming both and the range",
      (p.returncode, p.stderr[-300:]))
r = run("clean", one + ["generator.window=%d" % w_,
                        "generator.ack_every=%d" % w_], "ack_every = window")
check(r["generator"]["rc"]["timeouts"] == 0 and r["end"] ==
      "input_consumed", "ack_every = window (%d, a chunk of %d frames): "
      "no retransmit timeout" % (w_, f), r["generator"]["rc"])

# --- incast: lossless vs lossy vs ECN/DCQCN ---------------------------------
P = Prof("incast-lossless")
R_I = rounding(0)           # the first frame's way in, the last ACK's out
n_i = int(P.gen("ranks"))
slow, fast = P.gbps("s0"), P.gbps("s1")
check(P.gbps("g0") == slow and slow < fast and P.gen("collective") ==
      "alltoall" and int(P.gen("iterations")) == 1,
      "incast: all-to-all once, rank 0's link the slow one", (slow, fast))
fi, wi, _ = msg_frames(int(P.gen("size_bytes")) // n_i, int(P.gen("ib_mtu")))
# Everything rank 0 receives (N-1 messages of S/N) and the ACKs of what it
# sends (N-1 messages) leave s0 at its rate; with PFC holding the senders
# the queue never runs dry, so s0 is busy from the first frame's arrival
# (its wire time at the senders' rate + a cable) to the last ACK (+ the
# cable to g0). Rank 0 sends as much on g0, at the same rate.
B = (n_i - 1) * wi + (n_i - 1) * -(-fi // int(P.gen("ack_every"))) * ACK
dci = P.cable_ns("s0", "g0")
T_INC = (int(P.gen("ib_mtu")) + HDR + WIRE + RETH) * 8 / fast + dci + \
    B * 8 / slow + dci
il, iy, ec = (reps[n] for n in ("incast-lossless", "incast-lossy",
                                "ecn-dcqcn"))
ti = its("incast-lossless")[0] * 1e3
# (measured 0.76 ns over)
near(ti, T_INC, R_I, "lossless incast: time = first frame in + (N-1) x "
     "(S/N + ACKs) wire bytes / slow rate + a cable")


def s0b(r):
    """Wire bytes s0 sent."""
    return r["ports"]["s0"]["tx_bytes"] + WIRE * r["ports"]["s0"]["tx_packets"]


check(s0b(il) == B, "lossless incast: s0 sent exactly those bytes",
      (s0b(il), B))
check(rows["incast-lossless"]["drops"] == 0 and il["generator"]["qps"][
    "lost"] == 0 and rows["incast-lossless"]["retx_packets"] == 0,
      "lossless incast: nothing dropped, lost or re-sent",
      rows["incast-lossless"])
xo_il = tc_all(il, "pfc_xoff_sent")
check(xo_il > 0 and il["generator"]["pfc"]["rx_frames"] ==
      2 * xo_il and tc_all(il, "pfc_xon_sent") == xo_il,
      "lossless incast: the leaf paused the senders (every XOFF and its "
      "XON reached a NIC)", (xo_il, il["generator"]["pfc"]))
# PFC holds the slow port's queue at about the senders' XOFF thresholds
xoff = int(P.get("tc.3", "pfc_xoff_bytes"))
hwm = tc3(il, "s0", "queue_hwm_bytes")
check((n_i - 1) * xoff * 0.9 <= hwm <= (n_i - 1) * xoff + int(
    P.get("tc.3", "pfc_headroom_bytes")),
      "lossless incast: s0's queue peaks at about (N-1) x pfc_xoff_bytes",
      (hwm, (n_i - 1) * xoff))

# lossy: s0 can send no faster than its rate (drops' re-sends included),
# and a lost tail waits for the retransmit timer
ty = its("incast-lossy")[0] * 1e3
rto_i = int(Prof("incast-lossy").gen("retx_timeout_us")) * 1000
iyr = rows["incast-lossy"]
check(iy["ports"]["s0"]["drops"]["egress_queue"] == iyr["drops"] > 0 and
      iyr["pfc_xoff_sent"] == 0,
      "lossy incast: the slow port's queue drops (and only it), no PFC",
      (iy["ports"]["s0"]["drops"]["egress_queue"], iyr["drops"]))
check(iyr["retx_packets"] >= iyr["drops"] and iy["generator"]["qps"][
    "lost"] == 0, "lossy incast: every drop re-sent, nothing lost end to "
      "end", iyr)
check(ty >= (int(P.gen("ib_mtu")) + HDR + WIRE + RETH) * 8 / fast +
      s0b(iy) * 8 / slow + dci and s0b(iy) > B,
      "lossy incast: time >= what s0 sent (re-sends included) / its rate",
      (ty, s0b(iy)))
check(iyr["timeouts"] > 0 and ty >= rto_i,
      "lossy incast: lost tails waited for the retransmit timer: at least "
      "one RTO", (ty, iyr["timeouts"]))
check(ty > ti, "lossy incast: slower than lossless", (ty, ti))
# No closed form for the time or the drops: which frames the shared
# buffer's dynamic threshold refuses depends on how the seven senders'
# frames interleave at s0 from instant to instant, and each drop's cost
# on whether a later frame of its QP reveals it (NAK) or not (a tail: 67
# ms). The exact invariants instead, switch counters against the
# generator's RC counters (independent books):
rc_y = iy["generator"]["rc"]
fi_y, _, _ = msg_frames(int(P.gen("size_bytes")) // n_i,
                        int(P.gen("ib_mtu")))
check(rc_y["delivered_bytes"] == n_i * (n_i - 1) *
      (int(P.gen("size_bytes")) // n_i),
      "lossy incast: every rank's S/N delivered to every other exactly "
      "once (N (N-1) S/N bytes accepted)", rc_y)
# every frame s0 dropped is one the generator sent and no rank accepted:
# data (sent = accepted + re-sent; received = accepted + out of sequence
# + duplicates) and ACKs/NAKs (sent - received)
lost_e2e = (rc_y["retx_packets"] - rc_y["out_of_sequence_rx"] -
            rc_y["duplicates_rx"]) + (rc_y["acks_tx"] - rc_y["acks_rx"]) + \
    (rc_y["naks_tx"] - rc_y["naks_rx"])
check(iyr["drops"] == lost_e2e, "lossy incast: drops at s0 = frames sent "
      "and never received end to end (re-sent - out of sequence - "
      "duplicates + ACKs and NAKs lost)", (iyr["drops"], lost_e2e, rc_y))
check(iy["ports"]["g0"]["rx_packets"] == iy["ports"]["s0"]["tx_packets"]
      and iy["ports"]["g0"]["rx_psn"]["duplicates"] ==
      rc_y["out_of_sequence_rx"] + rc_y["duplicates_rx"],
      "lossy incast: the cable to rank 0 carries what s0 sent; its PSN "
      "tracker sees again (duplicates) exactly the frames the responders "
      "discarded and had re-sent",
      (iy["ports"]["g0"], rc_y))

# ECN/DCQCN: the same incast and PFC thresholds with ECN marking
e = rows["ecn-dcqcn"]
te = its("ecn-dcqcn")[0] * 1e3
Pe = Prof("ecn-dcqcn")
check(te >= T_INC - R_I and s0b(ec) == B,
      "ecn-dcqcn: the same bytes through s0, so no faster than lossless",
      (te, T_INC, s0b(ec)))
dq = ec["generator"]["dcqcn"]
check(tc3(ec, "s0", "ecn_marked") > 0 and dq["ce_rx"] > 0,
      "ecn-dcqcn: the slow port marks CE, the receivers see it",
      (tc3(ec, "s0", "ecn_marked"), dq))
check(dq["ce_rx"] <= tc_all(ec, "ecn_marked"),
      "ecn-dcqcn: the receivers saw no more CE than the leaf marked",
      (dq, tc_all(ec, "ecn_marked")))
# Notification point: at most one CNP per QP per cnp_interval_us; reaction
# point: every CNP a rate cut
qps = n_i * (n_i - 1) * int(Pe.gen("qps_per_conn") or 1)
per = int(Pe.gen("cnp_interval_us")) * 1000
check(0 < dq["cnp_tx"] <= min(dq["ce_rx"], qps * (te // per + 1)),
      "ecn-dcqcn: CNPs <= CE frames and <= one per QP per %d us" %
      (per // 1000), (dq, qps, te))
check(dq["cnp_tx"] == dq["cnp_rx"] == dq["rate_cuts"],
      "ecn-dcqcn: every CNP reached its sender and cut its rate", dq)
check(sum(tc3(ec, q, "tail_drops") + tc3(ec, q, "headroom_overflow")
          for q in ec["ports"] if q.startswith("s")) == 0 and
      e["retx_packets"] == 0, "ecn-dcqcn: nothing lost", e)
# DCQCN, not PFC, holds the queue after the first moments (every QP starts
# at line rate and no CNP is back yet): far fewer pauses
check(e["pfc_xoff_sent"] * 4 < xo_il,
      "ecn-dcqcn: PFC XOFF < 1/4 of the lossless incast's",
      (e["pfc_xoff_sent"], xo_il))
check(ec["generator"]["pfc"]["paused_us"] * 4 <
      il["generator"]["pfc"]["paused_us"],
      "ecn-dcqcn: the NICs spent < 1/4 of the lossless incast's time paused",
      (ec["generator"]["pfc"]["paused_us"],
       il["generator"]["pfc"]["paused_us"]))
check(tc3(ec, "s0", "queue_hwm_bytes") <= hwm,
      "ecn-dcqcn: the slow port's queue peaks no higher than with PFC alone",
      (tc3(ec, "s0", "queue_hwm_bytes"), hwm))

# --- PFC storm: watchdog detects, drops, restores ---------------------------
P = Prof("pfc-storm")
ps = reps["pfc-storm"]
s5 = ps["ports"]["s5"]
at = int(P.get("port.s5", "fault_rx_pfc_storm_at_us")) * 1000
dur = int(P.get("port.s5", "fault_rx_pfc_storm_for_us")) * 1000
det = int(P.get("pfc", "detection_ms")) * 1000000
rest = int(P.get("pfc", "restoration_ms")) * 1000000
# The storm sends an XOFF (65535 quanta) when the last one's pause has run
# out or 100 us later, whichever comes first (lib/fault/link.c); the leaf
# sees the end of a pause at its instant.
pause = min(65535 * 512 / P.gbps("s5"), 100000)
sf = s5.get("fault", {}).get("pfc_storm_frames", 0)
check(sf == 1 + dur // pause,
      "pfc-storm: one XOFF per pause time (%.3f us) for %d ms at s5"
      % (pause / 1e3, dur // 1000000), (sf, dur / pause))
check(tc3(ps, "s5", "pfc_rx") == sf, "pfc-storm: the leaf acted on each",
      (tc3(ps, "s5", "pfc_rx"), sf))
check(tc3(ps, "s5", "pfcwd_storms") == 1 and
      tc3(ps, "s5", "pfcwd_restored") == 1 and
      tc3(ps, "s5", "pfcwd_drops") > 0 and
      s5["drops"]["pfcwd"] == tc3(ps, "s5", "pfcwd_drops"),
      "pfc-storm: detected once on s5 TC 3, its traffic dropped, restored",
      s5["tc"]["3"])
check(all(tc3(ps, q, "pfcwd_storms") == 0 for q in ps["ports"]
          if q.startswith("s") and q != "s5"),
      "pfc-storm: no other port stormed", "")
check(rows["pfc-storm"]["retx_packets"] > 0 and ps["generator"]["qps"][
    "lost"] == 0, "pfc-storm: what the watchdog dropped was re-sent",
      rows["pfc-storm"])
# Traffic to rank 5 is held, then dropped, until the watchdog restores the
# queue (restoration_ms after the last XOFF); then the next retransmit
# timer's re-send and the rest of the job: the run ends within one RTO and
# the remaining iterations' clean time of that.
mt = ps["virtual_clock"]["model_time_ns"]
rto_s = int(P.gen("retx_timeout_us")) * 1000
lo = at + dur + rest
hi = lo + rto_s + (int(P.gen("iterations")) + 1) * 1.01 * T_CLEAN
check(lo <= mt <= hi, "pfc-storm: the job ends between restoration "
      "(%.1f ms) and one RTO + the clean iterations later" % (lo / 1e6),
      (mt, lo, hi))

# The detection instant, seen in a capture: with action = forward the
# queue the storm held leaves at the instant the watchdog detects, the
# first XOFF + detection_ms, exactly (the XOFF is taken at its arrival,
# the detection is an egress event of its own). A 1 MiB collective, the
# storm from 10 us.
with tempfile.TemporaryDirectory() as d:
    cap = os.path.join(d, "cap")
    at_f = 10000
    r = run("pfc-storm", ["pfc.action=forward", "generator.size_bytes="
                          "1048576", "generator.iterations=1",
                          "generator.warmup=0",
                          "port.s5.fault_rx_pfc_storm_at_us=%d" %
                          (at_f // 1000)], "storm, action forward",
            ["--capture", cap])
    pk = lib_aifab.read_pcap_ns(os.path.join(cap, "tx_s5.pcap")) or []
    after = [t for t, _ in pk if t >= at_f + det // 2]
    first = after[0] if after else None
    check(first == at_f + det, "pfc-storm forward: the held queue leaves "
          "s5 at the first XOFF + detection_ms = %.3f ms exactly: at %s ns" %
          ((at_f + det) / 1e6, first), (first, at_f + det))
    # (the 20 ms retransmit timer fires while the queue is held: re-sends,
    # but nothing lost)
    check(tc3(r, "s5", "pfcwd_storms") == 1 and
          tc3(r, "s5", "pfcwd_drops") == 0 and
          r["generator"]["qps"]["lost"] == 0 and
          r["end"] == "input_consumed",
          "pfc-storm forward: one storm, nothing dropped, the job done",
          r["ports"]["s5"]["tc"]["3"])

# --- ECMP polarization -----------------------------------------------------
pol, sd = reps["ecmp-polarization"], reps["ecmp-polarization-seeded"]
Pp = Prof("ecmp-polarization")
for sw in ("spine0", "spine1"):
    # every flow reaching spine S has bit 0 of the shared hash = S, so it
    # takes one of the spine's two links to a leaf: busiest / mean = 2
    check(pol["switches"][sw]["ecmp_imbalance_max"] == 2.0,
          "polarized: %s puts every flow on one of its two links (max/mean "
          "= 2 exactly)" % sw, pol["switches"][sw])
    check(sd["switches"][sw]["ecmp_imbalance_max"] < 1.5,
          "seeded: %s spreads them (max/mean < 1.5)" % sw,
          sd["switches"][sw])
for sw in ("leaf0", "leaf1"):
    check(pol["switches"][sw]["ecmp_imbalance_max"] < 1.5,
          "polarized: %s itself spreads over its four uplinks" % sw,
          pol["switches"][sw])
# With exact egress a pause stops a spine's port at the frame boundary
# it names, so the headroom absorbs what is on the cable: no overflow,
# nothing lost (before issue 16's exact egress, a switch handed a poll
# step's burst to its port at once and overflowed a few times). The
# frames the switches consume are the PFC frames they receive
# (drops.mac_control), not losses: the table's drops column leaves them out.
for n, rep in (("ecmp-polarization", pol), ("ecmp-polarization-seeded",
                                             sd)):
    lost = {q: {k: v for k, v in p_["drops"].items() if v and k not in
                ("mac_control",)} for q, p_ in rep["ports"].items()}
    lost = {q: v for q, v in lost.items() if v}
    check(not lost and tc_all(rep, "headroom_overflow") == 0 and
          rows[n]["drops"] == 0 and rep["generator"]["rc"]["retx_packets"]
          == 0, "%s: no headroom overflow, nothing dropped or re-sent" % n,
          (lost, tc_all(rep, "headroom_overflow"), rows[n]["drops"]))
    mc = sum(p_["drops"]["mac_control"] for p_ in rep["ports"].values())
    prx = sum(t.get("pfc_rx", 0) for q, p_ in rep["ports"].items()
              if not q.startswith("g") for t in p_.get("tc", {}).values())
    check(mc == prx and (mc > 0 or n != "ecmp-polarization"),
          "%s: the switches consumed exactly the PFC frames they received "
          "(%d)" % (n, mc), (mc, prx))
tp, ts = sum(its("ecmp-polarization")), sum(its("ecmp-polarization-seeded"))
check(ts < tp, "seeded: the collective finishes sooner", (ts, tp))
for n, rep in (("ecmp-polarization", pol), ("ecmp-polarization-seeded",
                                             sd)):
    # no link sends faster than its rate: the run lasts at least the
    # busiest fabric link's wire time
    busy = max((q["tx_bytes"] + WIRE * q["tx_packets"]) * 8 /
               Pp.gbps(name) for name, q in rep["ports"].items()
               if not name.startswith("g") and "h" not in name)
    check(rep["virtual_clock"]["model_time_ns"] >= busy,
          "%s: the run >= its busiest fabric link's wire time" % n,
          (rep["virtual_clock"]["model_time_ns"], busy))


# --- fault stage on a switch port ------------------------------------------
# On the clean fabric (400G) with a 1 MiB AllReduce, 3 iterations.
S1 = 1048576


def frun(sets, name):
    return run("clean", ["generator.size_bytes=%d" % S1,
                         "generator.iterations=3"] + sets, name)


# s3 -> g3 limited to a quarter of the links' 400G: ring AllReduce puts
# 2(N-1)/N x S of payload through every link, s3 -> g3 included
r = frun(["port.s3.fault_tx_rate_gbps=100"], "rate limit")
t = r["generator"]["collective"]["time_us"]["min"]
bound = 2 * (N - 1) / N * S1 * 8 / 100e3
check(t >= bound,
      "rate limit: time >= 2(N-1)/N x S / 100 Gb/s = %.1f us" % bound, t)
check(bound > 3.5 * r["generator"]["ideal_us"],
      "rate limit: that bound is ~4x the links' own ideal",
      (bound, r["generator"]["ideal_us"]))
check(r["ports"]["s3"]["fault"]["delayed"] ==
      r["ports"]["s3"]["tx_packets"],
      "rate limit: every frame s3 sent went through its delay line",
      (r["ports"]["s3"]["fault"], r["ports"]["s3"]["tx_packets"]))
check(r["end"] == "input_consumed" and r["mempool_in_use_at_exit"] == 0,
      "rate limit: completed, every mbuf returned", r["end"])

# s2 down from 50 us (mid-collective) for 5 ms; a 2 ms retransmit timer
r = frun(["port.s2.fault_tx_down_at_us=50",
          "port.s2.fault_tx_down_for_us=5000",
          "generator.retx_timeout_us=2000"], "link down")
dn = r["ports"]["s2"]["drops"]["link_down"]
check(dn > 0, "link down: frames lost while s2 was down", dn)
check(r["generator"]["rc"]["retx_packets"] > 0,
      "link down: the lost frames were re-sent", r["generator"]["rc"])
check(r["virtual_clock"]["model_time_ns"] >= 5050000,
      "link down: the job outlasts the down window",
      r["virtual_clock"]["model_time_ns"])
check(r["end"] == "input_consumed" and r["mempool_in_use_at_exit"] == 0,
      "link down: the job recovered and completed, every mbuf returned",
      (r["end"], r["mempool_in_use_at_exit"]))
check(r["generator"]["qps"]["lost"] == 0,
      "link down: nothing lost end to end (RC)", r["generator"]["qps"])

# Every Nth: exactly every 100th data frame s2 sends is lost. The data
# frames offered to s2's TX stage are those g2 received (each carries a
# latency tag) plus those lost.
r = frun(["port.s2.fault_tx_drop_every=100"], "every 100th")
lost = r["ports"]["s2"]["drops"]["fault_loss"]
got = r["ports"]["g2"]["latency_ns"]["samples"]
check(lost > 0 and lost == (got + lost) // 100,
      "every 100th: s2 lost exactly floor(data frames offered / 100)",
      (lost, got + lost))
check(r["generator"]["rc"]["naks_rx"] > 0 and
      r["generator"]["rc"]["retx_packets"] >= lost,
      "every 100th: found by NAK and re-sent", r["generator"]["rc"])
check(r["end"] == "input_consumed" and r["mempool_in_use_at_exit"] == 0 and
      r["generator"]["qps"]["lost"] == 0,
      "every 100th: completed, nothing lost end to end, every mbuf returned",
      (r["end"], r["mempool_in_use_at_exit"], r["generator"]["qps"]))

# Jitter: +100 us + U(0, 200) us on s1, FIFO (a frame never overtakes the
# one before). Latency to g1 at least the delay, its median at least
# delay + a quarter of the jitter; nothing reordered, no gap, no NAK, and
# on the virtual clock no spurious timer either.
r = frun(["port.s1.fault_tx_delay_us=100", "port.s1.fault_tx_jitter_us=200"],
         "jitter")
lat = r["ports"]["g1"]["latency_ns"]
check(lat["min"] >= 100000 and lat["max"] <= 300000 + 100000,
      "jitter: every frame to g1 100 us .. 300 us (+ queueing) late", lat)
check(lat["p50"] >= 150000,
      "jitter: the median >= 100 us + 1/4 of the 200 us jitter", lat)
psn = r["ports"]["g1"]["rx_psn"]
rc_ = r["generator"]["rc"]
check(psn["reordered"] == 0 and psn["gap"] == 0 and psn["lost"] == 0 and
      psn["duplicates"] == 0 and rc_["naks_tx"] == 0 and
      rc_["retx_packets"] == 0,
      "jitter: the delay line keeps FIFO order (no reordering, gap, "
      "duplicate, NAK or re-send)", (psn, rc_))
check(r["ports"]["s1"]["fault"]["delayed"] ==
      r["ports"]["s1"]["tx_packets"],
      "jitter: every frame s1 sent went through its delay line",
      r["ports"]["s1"]["fault"])

# PFC storm on TX: from 20 us for 20 ms the leaf's s4 sends an XOFF for
# priority 3 every 100 us towards rank 4's NIC, which honours each: 65535
# quanta = 83.885 us at 400G, shorter than the 100 us between XOFFs, so
# the NIC is paused exactly XOFFs x 65535 x 512 / 400G.
r = frun(["port.s4.fault_tx_pfc_storm=3", "port.s4.fault_tx_pfc_storm_at_us="
          "20", "port.s4.fault_tx_pfc_storm_for_us=20000"], "tx pfc storm")
sf = r["ports"]["s4"].get("fault", {}).get("pfc_storm_frames", 0)
check(0 < sf <= 20000 // 100 + 1,
      "tx pfc storm: s4 sent XOFF (<= 1 per 100 us for 20 ms)", sf)
check(r["generator"]["pfc"]["rx_frames"] == sf,
      "tx pfc storm: rank 4's NIC received every storm XOFF",
      (r["generator"]["pfc"], sf))
q_ns = 65535 * 512 / Prof("clean").gbps("g4")
check(abs(r["generator"]["pfc"]["paused_us"] * 1e3 - sf * q_ns) <= sf,
      "tx pfc storm: the NIC paused XOFFs x 65535 quanta (%.3f us each)" %
      (q_ns / 1e3), (r["generator"]["pfc"], sf * q_ns))
check(r["ports"]["g4"]["rx_packets"] == r["ports"]["s4"]["tx_packets"],
      "tx pfc storm: the XOFFs are frames on the cable (g4 rx = s4 tx)",
      (r["ports"]["g4"]["rx_packets"], r["ports"]["s4"]["tx_packets"]))
check(r["end"] == "input_consumed" and r["mempool_in_use_at_exit"] == 0 and
      r["generator"]["qps"]["lost"] == 0,
      "tx pfc storm: completed, nothing lost end to end, every mbuf "
      "returned", (r["end"], r["mempool_in_use_at_exit"]))

# --- SIGINT mid-collective with frames in the delay lines -------------------
# The latency scenario with a collective far longer than the test (100000
# iterations): every leaf egress holds frames in its delay line nearly all
# the time. SIGINT after ~2 s must end the run cleanly: exit 0, the report
# written with end "signal", the frames still in the delay lines freed
# (drops.flushed_at_stop) and every mbuf back in its pool.
with tempfile.TemporaryDirectory() as d:
    rep = os.path.join(d, "r.json")
    p = subprocess.Popen(
        [exe, "--", "--profile", os.path.join(scen, "latency.ini"),
         "--report-json", rep, "--quiet", "--duration", "120",
         "--set", "generator.iterations=100000"],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    # running (its telemetry answers: EAL is slower under ASan or load),
    # then 2 s of traffic: the delay lines hold frames
    check(lib_aifab.wait_app_ready("aifab-%d" % p.pid, p),
          "sigint: the app runs (its telemetry answers)", p.poll())
    time.sleep(2.0)
    check(p.poll() is None, "sigint: still running after 2 s", p.returncode)
    p.send_signal(signal.SIGINT)
    try:
        out, err = p.communicate(timeout=60)
    except subprocess.TimeoutExpired:
        p.kill()
        out, err = p.communicate()
    check(p.returncode == 0, "sigint: exit 0", (p.returncode, err[-500:]))
    try:
        r = json.load(open(rep))
    except (OSError, ValueError) as e:
        check(False, "sigint: report written", e)
        r = None
if r is not None:
    check(r["end"] == "signal", "sigint: report end == signal", r["end"])
    check(r["mempool_in_use_at_exit"] == 0,
          "sigint: every mbuf returned (mempool_in_use_at_exit)",
          r["mempool_in_use_at_exit"])
    fl = sum(q["drops"].get("flushed_at_stop", 0)
             for n, q in r["ports"].items() if n.startswith("s"))
    check(fl > 0, "sigint: frames were in the delay lines, freed at stop",
          fl)
    it = r["generator"]["collective"]["iterations"]
    check(it < 100000, "sigint: stopped mid-collective", it)

ck.finish()
