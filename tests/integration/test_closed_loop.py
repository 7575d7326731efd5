#!/usr/bin/python3
# SPDX-License-Identifier: BSD-3-Clause
"""The generator's closed loop, run by the real binary.

Usage: test_closed_loop.py PATH/TO/dpdk-aifab [base|drop|tail|ce|pfc|all]

Wiring: one net_ring vdev without arguments is a port whose TX ring is its
own RX ring, so all 4 ranks sit on it and everything a rank sends (data,
ACK, NAK, CNP) reaches its peer on the next poll. The generator runs on
its virtual clock (virtual_tick_ns = 1000: one poll = 1 us), so runs are
repeatable and the capture (--capture DIR, DIR/tx_p0.pcap) is stamped
with that clock. Ring AllReduce, 4 ranks, 256 KiB, IB MTU 1024, 10 Gb/s
per rank, window 16, ACK every 4.

base: no impairment: 2 iterations complete, nothing resent, no NAK, and a
      second run gives a byte- and time-identical capture.
drop: the fault stage at RX drops data frame number K (counted in arrival
      order, which on the loop is capture order). Judged from the capture
      with our own pcap reader and tshark: the K-th data frame in the
      capture is the lost one; exactly one NAK (opcode 17, AETH syndrome
      0x60, valid ICRC by zlib and scapy) names its PSN to the sender's QP
      (its dest QP - 1); go-back-N resends exactly the PSNs from it up to
      the highest that QP had sent before the NAK reached it (the NAK is
      received one poll after it was sent), in order, each once more; the
      report's rc.retx_packets / retx_bytes equal that count and those
      payload bytes; the collective still completes. The iteration that
      lost the frame (its payload tag) carries the resends and the NAK in
      per_iteration (summing to rc), is the slowest, blames the lost
      frame's step and sender, and takes at least the NAK round trip (2
      polls) longer than without the drop; per_qp lists that QP first
      with its resends (reordered 1, duplicates resent - 1).
tail: the run's last data frame is lost: no NAK, one timeout; the resend
      leaves >= retx_timeout after the last ACK progress; per_iteration
      as above with timeouts 1; the iteration grows by at least
      retx_timeout - (loss - last progress).
ce:   the fault stage marks every 10th data frame CE (DCQCN on). The NP
      rule (a CNP for a CE packet unless that QP had one in the last
      50 us) applied to the marked frames predicts every CNP: tshark must
      show exactly those frames with infiniband.bth.opcode 129, each to
      the marked frame's sender QP (its dest QP - 1, infiniband.bth.destqp)
      from the receiver's address to the sender's, at the predicted time,
      74 bytes, DSCP 48, BECN set, valid ICRC; the report's cnp_tx, cnp_rx,
      ce_rx match; DCQCN cut rates (rate_cuts > 0, minimum QP rate below
      10 Gb/s) and the collective takes longer than without CE.
pfc:  open loop over a net_pcap port whose input holds one PFC frame made
      by scapy (XOFF, 20000 quanta). XOFF for priority 3 (DSCP 26's TC):
      the first data frame leaves at the first poll at or after
      20000 x 512 / 100 Gb/s = 102.4 us, the report's tc.3 pfc_paused_ns is
      102400 and pfc_rx 1; XOFF for priority 4 instead: data leaves at
      once, tc.3 pauses nothing, tc.4 records 102400.
"""
import json
import os
import shutil
import struct
import subprocess
import sys
import tempfile

from lib_aifab import (Checks, _remove_runtime_dir, exe_path, file_prefix,
                       icrc_scapy, icrc_zlib, tshark_fields)

TICK_NS = 1000
RANKS = 4
SIZE = 262144
MTU = 1024
RATE_GBPS = 10
QPN_BASE = 0x100
BASE_IP = "10.100.0.1"
DROP_K = 300
CE_EVERY = 10
CNP_INTERVAL_NS = 50000
PFC_QUANTA = 20000
SPEED_GBPS = 100

PROFILE = """[general]
name = closed-loop-it
seed = 7

[switch]
enabled = false

[port.p0]
device = %(device)s
speed_gbps = %(speed)d
mtu = 9000

[generator]
enabled = true
ranks = %(ranks)d
size_bytes = %(size)d
ib_mtu = %(mtu)d
iterations = 2
warmup = 0
rate_gbps = %(rate)d
qpn_base = %(qpn)d
closed_loop = true
window = 16
ack_every = 4
retx_timeout_us = 1000
dcqcn = false
virtual_tick_ns = %(tick)d
"""


class LoopRun:
    """One run of dpdk-aifab on one port (net_ring loop or net_pcap)."""

    def __init__(self, exe, tag, sets=(), device="net_ring0", vdev=None,
                 extra=()):
        self.exe = exe
        self.extra = list(extra)   # more app options; DIR: the run's dir
        self.dir = tempfile.mkdtemp(prefix="aifab-cl-%s-" % tag)
        self.prefix = file_prefix("cl-" + tag)
        self.sets = list(sets)
        self.device = device
        self.vdev = vdev or device
        self.rc = None
        self.report = None
        self.out = ""

    def path(self, name):
        return os.path.join(self.dir, name)

    def run(self, timeout=120):
        prof = self.path("cl.ini")
        with open(prof, "w") as f:
            f.write(PROFILE % dict(device=self.device, speed=SPEED_GBPS,
                                   ranks=RANKS, size=SIZE, mtu=MTU,
                                   rate=RATE_GBPS, qpn=QPN_BASE,
                                   tick=TICK_NS))
        cmd = [self.exe, "--no-huge", "-m", "512", "--no-pci",
               "--file-prefix", self.prefix, "--vdev", self.vdev, "--",
               "--profile", prof, "--report-json", self.path("report.json"),
               "--capture", self.path("cap"), "--quiet"]
        for s in self.sets:
            cmd += ["--set", s]
        cmd += [self.path(x[4:]) if x.startswith("DIR/") else x
                for x in self.extra]
        self.cmd = cmd
        try:
            p = subprocess.run(cmd, stdout=subprocess.PIPE,
                               stderr=subprocess.STDOUT, text=True,
                               timeout=timeout)
            self.rc, self.out = p.returncode, p.stdout
        except subprocess.TimeoutExpired as e:
            self.rc, self.out = "timeout", str(e.output)
        _remove_runtime_dir(self.prefix)
        try:
            with open(self.path("report.json")) as f:
                self.report = json.load(f)
        except (OSError, ValueError):
            self.report = None
        return self

    def cap(self):
        return self.path("cap/tx_p0.pcap")

    def gen(self):
        return (self.report or {}).get("generator", {})

    def cleanup(self):
        if os.environ.get("AIFAB_IT_KEEP"):
            print("kept %s" % self.dir)
        else:
            shutil.rmtree(self.dir, ignore_errors=True)


def run_ok(ck, r, what):
    r.run()
    ok = ck.eq(r.rc, 0, "%s: exit status" % what)
    if not ok:
        print(" ".join(r.cmd))
        print("\n".join(r.out.splitlines()[-20:]))
    ok = ck.check(r.report is not None and "generator" in r.report,
                  "%s: report with a generator section" % what) and ok
    if ok:
        ck.eq(r.report.get("mempool_in_use_at_exit"), 0,
              "%s: mempool_in_use_at_exit" % what)
    return ok


# ---- reading the capture (struct only) -------------------------------------

def read_pcap(path):
    """[(t_ns, bytes)] of a classic pcap (us or ns magic)."""
    with open(path, "rb") as f:
        data = f.read()
    magic = struct.unpack_from("<I", data, 0)[0]
    mult = {0xa1b2c3d4: 1000, 0xa1b23c4d: 1}[magic]
    out, off = [], 24
    while off + 16 <= len(data):
        sec, frac, incl, _ = struct.unpack_from("<IIII", data, off)
        off += 16
        out.append((sec * 10**9 + frac * mult, data[off:off + incl]))
        off += incl
    return out


class Fr:
    """The fields of a captured frame the checks need (IPv4 RoCEv2)."""

    def __init__(self, idx, t, b):
        self.idx, self.t, self.b = idx, t, b
        self.roce = (len(b) >= 58 and b[12:14] == b"\x08\x00" and
                     b[23] == 17 and struct.unpack_from("!H", b, 36)[0] ==
                     4791)
        if not self.roce:
            return
        self.tos = b[15]
        self.src, self.dst = b[26:30], b[30:34]
        self.op = b[42]
        self.pad = (b[43] >> 4) & 3
        self.becn = bool(b[46] & 0x40)
        self.dqpn = int.from_bytes(b[47:50], "big")
        self.psn = int.from_bytes(b[51:54], "big")
        self.data = self.op <= 0x0B
        hdr = 54 + (16 if self.op in (0x06, 0x0A) else 0)
        self.payload = len(b) - hdr - self.pad - 4 if self.data else 0
        self.syndrome = b[54] if self.op == 0x11 else None
        # The generator's payload tag: "AIFB", rank, step, iteration.
        self.tag = None
        if self.data and b[hdr:hdr + 4] == b"AIFB":
            self.tag = struct.unpack_from("!HHI", b, hdr + 4)


def frames(path):
    return [Fr(i, t, b) for i, (t, b) in enumerate(read_pcap(path))]


def psn_after(a, b):
    """a - b modulo 2^24 as a signed number."""
    d = (a - b) & 0xFFFFFF
    return d - 0x1000000 if d & 0x800000 else d


def icrc_ok(fr):
    want = fr.b[-4:]
    return icrc_zlib(fr.b, 14) == want and icrc_scapy(fr.b) in (want, None)


# ---- cases ---------------------------------------------------------------------

def case_base(ck, exe):
    ck.section("base: closed loop on a net_ring loop, no impairment")
    a = LoopRun(exe, "base")
    b = LoopRun(exe, "base2")
    try:
        if not run_ok(ck, a, "base") or not run_ok(ck, b, "base again"):
            return None
        g = a.gen()
        ck.eq(g.get("closed_loop"), True, "base: closed_loop in the report")
        ck.eq(g["collective"]["iterations"], 2, "base: iterations")
        ck.eq(len(g.get("per_iteration", [])), 2, "base: per_iteration")
        ck.eq(g["rc"]["retx_packets"], 0, "base: nothing resent")
        ck.eq(g["rc"]["naks_tx"], 0, "base: no NAK")
        ck.check(g["rc"]["acks_tx"] > 0 and
                 g["rc"]["acks_tx"] == g["rc"]["acks_rx"],
                 "base: ACKs sent = ACKs received",
                 "%s" % g["rc"])
        pay = SIZE * 2 * (RANKS - 1) / RANKS * 8 / (RATE_GBPS * 1e3)
        ck.check(abs(g["ideal_payload_us"] - pay) < 1e-3,
                 "base: ideal_payload_us = S x 2(N-1)/N / rate",
                 "%s vs %s" % (g["ideal_payload_us"], pay))
        # ideal: the same frames' wire bytes. A chunk of S/N in MTU frames;
        # each frame adds Ethernet 14, IPv4 20, UDP 8, BTH 12, ICRC 4, FCS
        # 4, preamble 8, gap 12 (PROTOCOLS.md), the first RETH 16.
        chunk = SIZE // RANKS
        n_fr = -(-chunk // MTU)
        ideal = pay * (chunk + n_fr * 82 + 16) / chunk
        ck.check(abs(g["ideal_us"] - ideal) < 1e-3,
                 "base: ideal_us = that x the frames' wire bytes / payload",
                 "%s vs %s" % (g["ideal_us"], ideal))
        waited = sum(max(0, it["time_us"] - ideal)
                     for it in g["per_iteration"])
        ck.check(abs(g["wait_beyond_ideal_us"] - waited) < 0.01,
                 "base: wait_beyond_ideal_us = sum of (time - ideal)")
        cost = waited / 3600e6 * RANKS * 30.0
        ck.check(abs(g["wait_cost_usd"] - cost) < 1e-9,
                 "base: wait_cost_usd at $30 per GPU-hour x ranks",
                 "%s vs %s" % (g["wait_cost_usd"], cost))
        with open(a.cap(), "rb") as fa, open(b.cap(), "rb") as fb:
            ck.check(fa.read() == fb.read(),
                     "base: two runs give identical captures (virtual "
                     "clock)")
        data = [f for f in frames(a.cap()) if f.roce and f.data]
        return [it["time_us"] for it in g["per_iteration"]], len(data)
    finally:
        a.cleanup()
        b.cleanup()


def rank_of(ip):
    return int.from_bytes(ip, "big") - int.from_bytes(
        bytes(int(x) for x in BASE_IP.split(".")), "big")


def check_iteration_blame(ck, g, it, lost, want_iter, what):
    """per_iteration[it] carries this drop's RC events and blames the
    lost frame's sender and step; the other iteration carries none."""
    per = g["per_iteration"]
    for k in want_iter:
        ck.eq(per[it].get(k), want_iter[k], "%s: per_iteration[%d].%s" %
              (what, it, k))
        ck.eq(per[1 - it].get(k), 0, "%s: per_iteration[%d].%s" %
              (what, 1 - it, k))
        ck.eq(sum(x.get(k, 0) for x in per), g["rc"][k],
              "%s: per-iteration %s sum to rc.%s" % (what, k, k))
    ck.check(per[it]["time_us"] == max(x["time_us"] for x in per),
             "%s: the iteration that lost a frame is the slowest" % what,
             str([x["time_us"] for x in per]))
    sl = per[it].get("slowest", {})
    ck.eq((sl.get("rank"), sl.get("step")), (rank_of(lost.src), lost.tag[1]),
          "%s: iteration %d's slowest step is the lost frame's step, "
          "waiting for its sender" % (what, it))


def check_qp_blame(ck, g, lost, resent, what):
    """per_qp: the QP that lost a frame is listed first with its resends;
    its receiver saw the lost PSN late once (reordered) and every other
    resent PSN twice (duplicates)."""
    pq = g.get("per_qp", {})
    ck.eq(pq.get("qps"), RANKS, "%s: per_qp.qps (one QP per ring hop)" %
          what)
    rows = pq.get("slowest", [])
    if not ck.eq(len(rows), RANKS, "%s: every QP listed" % what):
        return
    q = rows[0]
    ck.eq((q["qpn"], q["src"], q["dst"]),
          (lost.dqpn - 1, rank_of(lost.src), rank_of(lost.dst)),
          "%s: the first (slowest) QP is the one that lost the frame" % what)
    ck.eq((q["retx_packets"], q["lost"], q["reordered"], q["duplicates"]),
          (resent, 0, 1, resent - 1),
          "%s: that QP resent %d, lost 0, reordered 1, duplicates %d" %
          (what, resent, resent - 1))
    ck.check(all(x["retx_packets"] == 0 and x["lost"] == 0 and
                 x["reordered"] == 0 and x["duplicates"] == 0
                 for x in rows[1:]), "%s: the other QPs are clean" % what)
    ck.check(all(x["rate_avg_mbps"] == RATE_GBPS * 1000 and
                 x["rate_min_mbps"] == RATE_GBPS * 1000 for x in rows),
             "%s: DCQCN off: every QP at the rank's rate" % what)
    ck.eq(pq.get("with_reorder"), 1, "%s: per_qp.with_reorder" % what)


def iteration_of(g, fs, t):
    start = fs[0].t
    return 0 if t - start < g["per_iteration"][0]["time_us"] * 1e3 else 1


def case_drop(ck, exe, base_times):
    ck.section("drop: data frame %d lost at RX; go-back-N" % DROP_K)
    r = LoopRun(exe, "drop", sets=["generator.fault_drop_index=%d" % DROP_K])
    try:
        if not run_ok(ck, r, "drop"):
            return
        g = r.gen()
        ck.eq(g["collective"]["iterations"], 2, "drop: collective completes")
        ck.eq(g["fault"]["dropped"], 1, "drop: fault stage dropped 1")
        fs = frames(r.cap())
        data = [f for f in fs if f.roce and f.data]
        lost = data[DROP_K - 1]
        print("lost: QP 0x%x PSN %d at %d ns" % (lost.dqpn, lost.psn,
                                                lost.t))
        naks = [f for f in fs if f.roce and f.op == 0x11 and
                f.syndrome == 0x60]
        if not ck.eq(len(naks), 1, "drop: exactly one NAK"):
            return
        nak = naks[0]
        ck.eq(nak.psn, lost.psn, "drop: NAK names the lost PSN")
        ck.eq(nak.dqpn, lost.dqpn - 1, "drop: NAK to the sender's QP")
        ck.eq((nak.src, nak.dst), (lost.dst, lost.src),
              "drop: NAK from the receiver to the sender")
        ck.check(icrc_ok(nak), "drop: NAK ICRC (zlib, scapy)")
        # tshark reads the NAK the same way
        rows = tshark_fields(r.cap(), ["infiniband.bth.opcode",
                                       "infiniband.bth.psn",
                                       "infiniband.aeth.syndrome"],
                             ["-Y", "frame.number == %d" % (nak.idx + 1)])
        ck.check(rows and rows[0]["infiniband.bth.opcode"] == "17" and
                 int(rows[0]["infiniband.bth.psn"]) == lost.psn and
                 int(rows[0]["infiniband.aeth.syndrome"], 0) == 0x60,
                 "drop: tshark: opcode 17, PSN, syndrome 0x60", str(rows))
        # What the sender had sent from the lost PSN before the NAK
        # arrived (one poll after it left; at that poll RX comes first).
        arrive = nak.t + TICK_NS
        qp = [f for f in data if f.dqpn == lost.dqpn]
        before = [f for f in qp if f.t < arrive and
                  psn_after(f.psn, lost.psn) >= 0]
        hi = max(psn_after(f.psn, lost.psn) for f in before)
        want = {}
        for f in before:
            want.setdefault(f.psn, f.payload)
        ck.eq(sorted(psn_after(p, lost.psn) for p in want),
              list(range(hi + 1)),
              "drop: first transmissions from the lost PSN are contiguous")
        resent = [f.psn for f in qp if f.t >= arrive][:hi + 1]
        ck.eq(resent, [(lost.psn + i) & 0xFFFFFF for i in range(hi + 1)],
              "drop: go-back-N resends them in order from the lost PSN")
        n_seen = {}
        for f in qp:
            n_seen[f.psn] = n_seen.get(f.psn, 0) + 1
        ck.check(all(n_seen[p] == 2 for p in want) and
                 sum(1 for v in n_seen.values() if v > 1) == len(want),
                 "drop: exactly those PSNs appear twice in the capture")
        print("go-back-N: %d packets, %d bytes resent" %
              (len(want), sum(want.values())))
        ck.eq(g["rc"]["retx_packets"], len(want), "drop: rc.retx_packets")
        ck.eq(g["rc"]["retx_bytes"], sum(want.values()),
              "drop: rc.retx_bytes = payload bytes resent")
        ck.eq(g["rc"]["naks_tx"], 1, "drop: rc.naks_tx")
        ck.eq(g["rc"]["naks_rx"], 1, "drop: rc.naks_rx")
        ck.eq(g["rc"]["timeouts"], 0, "drop: no timeout")
        # The collective reacts: the iteration that lost the frame.
        it = iteration_of(g, fs, lost.t)
        ck.eq(lost.tag and lost.tag[2], it, "drop: the lost frame's tag "
              "names iteration %d" % it)
        check_iteration_blame(ck, g, it, lost, {
            "retx_packets": len(want), "retx_bytes": sum(want.values()),
            "naks_rx": 1, "timeouts": 0}, "drop")
        check_qp_blame(ck, g, lost, len(want), "drop")
        t_drop = g["per_iteration"][it]["time_us"]
        if base_times:
            print("iteration %d: %.1f us without the drop, %.1f us with it"
                  % (it, base_times[it], t_drop))
            # Loss recovery by NAK costs at least the loop's round trip:
            # the NAK crosses it (one poll), then the resent frame (one
            # more); the resent packets and load only add to that.
            rtt_us = 2 * TICK_NS / 1e3
            ck.check(t_drop - base_times[it] >= rtt_us,
                     "drop: the iteration grows by >= the NAK round trip "
                     "(%.0f us)" % rtt_us,
                     "%.1f vs %.1f us" % (t_drop, base_times[it]))
            other = 1 - it
            ck.check(abs(g["per_iteration"][other]["time_us"] -
                         base_times[other]) <= 2 * TICK_NS / 1e3 or
                     other < it,
                     "drop: the other iteration is unaffected (or after)")
    finally:
        r.cleanup()


def case_tail(ck, exe, base_times, n_data):
    ck.section("tail: the run's last data frame (%d) lost; only the "
               "retransmit timeout recovers it" % n_data)
    r = LoopRun(exe, "tail", sets=["generator.fault_drop_index=%d" % n_data])
    try:
        if not run_ok(ck, r, "tail"):
            return
        g = r.gen()
        ck.eq(g["collective"]["iterations"], 2, "tail: collective completes")
        ck.eq(g["fault"]["dropped"], 1, "tail: fault stage dropped 1")
        fs = frames(r.cap())
        data = [f for f in fs if f.roce and f.data]
        lost = data[n_data - 1]
        qp = [f for f in data if f.dqpn == lost.dqpn]
        again = [f for f in qp if f.t > lost.t and
                 psn_after(f.psn, lost.psn) <= 0]
        ck.check(again and again[-1].psn == lost.psn,
                 "tail: the lost PSN is sent again")
        ck.eq(len([f for f in fs if f.roce and f.op == 0x11 and
                   f.syndrome == 0x60]), 0, "tail: no NAK (nothing after "
              "the lost frame shows the gap)")
        ck.eq(g["rc"]["timeouts"], 1, "tail: rc.timeouts")
        # The timer restarts on progress: the last ACK to the sender's QP
        # before the resend (received one poll after it left).
        acks = [f.t + TICK_NS for f in fs if f.roce and f.op == 0x11 and
                f.dqpn == lost.dqpn - 1 and again and f.t < again[0].t]
        timeout_ns = 1000 * 1000
        if not ck.check(acks and again, "tail: ACKs and the resend seen"):
            return
        ck.check(again[0].t - acks[-1] >= timeout_ns,
                 "tail: the resend comes >= retx_timeout after the last "
                 "progress", "%d ns" % (again[0].t - acks[-1]))
        resent = len(again)
        it = iteration_of(g, fs, lost.t)
        check_iteration_blame(ck, g, it, lost, {
            "retx_packets": resent, "retx_bytes": sum(f.payload
                                                      for f in again),
            "naks_rx": 0, "timeouts": 1}, "tail")
        if base_times:
            # Without the loss the frame arrived one poll after it left;
            # now not before the timer (started by the last progress
            # before the loss) expires.
            before = max(a for a in acks if a <= lost.t + TICK_NS) \
                if any(a <= lost.t + TICK_NS for a in acks) else lost.t
            bound_us = (timeout_ns - (lost.t - before)) / 1e3
            grew = g["per_iteration"][it]["time_us"] - base_times[it]
            print("iteration %d grew by %.1f us (bound %.1f us)" %
                  (it, grew, bound_us))
            ck.check(grew >= bound_us, "tail: the iteration grows by >= "
                     "retx_timeout - (loss - last progress)",
                     "%.1f < %.1f us" % (grew, bound_us))
    finally:
        r.cleanup()


def case_ce(ck, exe, base_times):
    ck.section("ce: every %dth data frame CE-marked at RX; CNPs, DCQCN"
               % CE_EVERY)
    r = LoopRun(exe, "ce", sets=["generator.fault_ce_every=%d" % CE_EVERY,
                                 "generator.dcqcn=true"])
    try:
        if not run_ok(ck, r, "ce"):
            return
        g = r.gen()
        ck.eq(g["collective"]["iterations"], 2, "ce: collective completes")
        fs = frames(r.cap())
        data = [f for f in fs if f.roce and f.data]
        marked = data[CE_EVERY - 1::CE_EVERY]
        # NP rule on arrival (one poll after the frame left).
        last, want = {}, []
        for f in marked:
            ta = f.t + TICK_NS
            if f.dqpn not in last or ta - last[f.dqpn] >= CNP_INTERVAL_NS:
                last[f.dqpn] = ta
                want.append((ta, f.dqpn - 1, f.dst, f.src))
        cnps = [f for f in fs if f.roce and f.op == 0x81]
        got = [(f.t, f.dqpn, f.src, f.dst) for f in cnps]
        print("%d CE-marked data frames, %d CNPs predicted, %d captured" %
              (len(marked), len(want), len(got)))
        ck.check(len(want) > 1, "ce: some CNPs expected")
        ck.eq(got, want, "ce: CNPs exactly as the NP rule predicts (time, "
              "sender QP, receiver -> sender)")
        ck.check(all(len(f.b) == 74 and f.tos >> 2 == 48 and f.becn and
                     f.b[54:70] == bytes(16) and icrc_ok(f) for f in cnps),
                 "ce: CNPs 74 bytes, DSCP 48, BECN, 16 zero bytes, ICRC")
        rows = tshark_fields(r.cap(), ["frame.number",
                                       "infiniband.bth.destqp"],
                             ["-Y", "infiniband.bth.opcode == 129"])
        ck.eq([(int(x["frame.number"]) - 1, int(x["infiniband.bth.destqp"],
                                                 0)) for x in rows],
              [(f.idx, f.dqpn) for f in cnps],
              "ce: tshark shows opcode 129 to the sender QPs")
        ck.check(all((f.dqpn - QPN_BASE) % 2 == 0 for f in cnps),
                 "ce: CNP dest QPs are sender QPs (qpn_base + 2i)")
        d = g["dcqcn"]
        ck.eq(d["ce_rx"], len(marked), "ce: dcqcn.ce_rx")
        ck.eq(d["cnp_tx"], len(want), "ce: dcqcn.cnp_tx")
        ck.eq(d["cnp_rx"], len(want), "ce: dcqcn.cnp_rx")
        ck.check(d["rate_cuts"] > 0, "ce: DCQCN cut rates", str(d))
        ck.check(d["qp_rate_min_mbps"] < RATE_GBPS * 1000,
                 "ce: the lowest QP rate fell below line rate", str(d))
        # Per QP: a QP whose sender got a CNP (capture) was cut below the
        # rank's rate, the others never; listed slowest (lowest mean) first.
        pq = g.get("per_qp", {})
        rows = pq.get("slowest", [])
        got_cnp = {f.dqpn for f in cnps}
        ck.eq(len(rows), RANKS, "ce: per_qp lists every QP")
        ck.check(all((q["rate_min_mbps"] < RATE_GBPS * 1000) ==
                     (q["qpn"] in got_cnp) for q in rows),
                 "ce: per QP, rate_min below line rate iff it got a CNP",
                 str([(q["qpn"], q["rate_min_mbps"]) for q in rows]) +
                 " cnp to " + str(sorted(got_cnp)))
        avgs = [q["rate_avg_mbps"] for q in rows]
        ck.check(avgs == sorted(avgs) and
                 all(q["rate_min_mbps"] <= q["rate_avg_mbps"] for q in rows),
                 "ce: per_qp slowest first, min <= mean per QP", str(avgs))
        ck.eq([pq["rate_avg_mbps"][k] for k in ("min", "p50", "max")],
              [avgs[0], avgs[1], avgs[-1]],
              "ce: per_qp.rate_avg_mbps min/p50 (nearest rank)/max")
        ck.check(abs(d["qp_rate_avg_mbps"] - sum(avgs) / len(avgs)) < 1e-3
                 and d["qp_rate_min_mbps"] ==
                 min(q["rate_min_mbps"] for q in rows),
                 "ce: dcqcn.qp_rate_avg/min agree with per_qp")
        if base_times:
            ck.check(g["collective"]["time_us"]["avg"] >
                     sum(base_times) / len(base_times),
                     "ce: the collective takes longer with DCQCN reacting")
    finally:
        r.cleanup()


def pfc_run(ck, exe, prio):
    from scapy.all import Ether, Raw, wrpcap
    tag = "pfc%d" % prio
    d = tempfile.mkdtemp(prefix="aifab-cl-pfcin-")
    inp = os.path.join(d, "in.pcap")
    quanta = [0] * 8
    quanta[prio] = PFC_QUANTA
    body = struct.pack("!HH8H", 0x0101, 1 << prio, *quanta)
    fr = Ether(dst="01:80:c2:00:00:01", src="02:00:00:00:00:99",
               type=0x8808) / Raw(body)
    fr = fr / Raw(bytes(60 - len(fr)))
    wrpcap(inp, [fr])
    rows = tshark_fields(inp, ["macc.opcode", "macc.cbfc.enbv",
                               "macc.cbfc.pause_time.c%d" % prio])
    ck.check(rows and int(rows[0]["macc.opcode"], 0) == 0x0101 and
             int(rows[0]["macc.cbfc.pause_time.c%d" % prio]) == PFC_QUANTA,
             "pfc prio %d: tshark reads the injected frame as PFC" % prio,
             str(rows))
    r = LoopRun(exe, tag, device="net_pcap0",
                vdev="net_pcap0,rx_pcap=%s,tx_pcap=/dev/null" % inp,
                sets=["generator.closed_loop=false",
                      "generator.iterations=1"])
    try:
        if not run_ok(ck, r, tag):
            return None
        fs = frames(r.cap())
        # The virtual clock starts at 0 with the first poll, which also
        # receives the PFC frame.
        first = next(f.t for f in fs if f.roce and f.data)
        tc = r.report["ports"]["p0"].get("tc", {})
        return first, tc, r.gen()
    finally:
        r.cleanup()
        shutil.rmtree(d, ignore_errors=True)


def case_pfc(ck, exe):
    ck.section("pfc: a PFC frame on the generator's port pauses its TX")
    pause_ns = PFC_QUANTA * 512 * 1000 // (SPEED_GBPS * 1000)  # 102400
    res = pfc_run(ck, exe, 3)
    if res:
        first, tc, g = res
        want = -(-pause_ns // TICK_NS) * TICK_NS
        print("XOFF prio 3 for %d ns: first data frame at %d ns" %
              (pause_ns, first))
        ck.eq(first, want, "pfc prio 3: first data frame at the first "
              "poll after %d quanta x 512 bit / %d Gb/s" % (PFC_QUANTA,
                                                            SPEED_GBPS))
        ck.eq(tc.get("3", {}).get("pfc_paused_ns"), pause_ns,
              "pfc prio 3: tc.3.pfc_paused_ns")
        ck.eq(tc.get("3", {}).get("pfc_rx"), 1, "pfc prio 3: tc.3.pfc_rx")
        ck.eq(g["pfc"]["rx_frames"], 1, "pfc prio 3: generator.pfc")
        ck.check(abs(g["pfc"]["paused_us"] - pause_ns / 1e3) < 1e-6,
                 "pfc prio 3: generator.pfc.paused_us")
    res = pfc_run(ck, exe, 4)
    if res:
        first, tc, g = res
        ck.eq(first, 0, "pfc prio 4: data (priority 3) not paused")
        ck.eq(tc.get("3", {}).get("pfc_paused_ns"), 0,
              "pfc prio 4: tc.3 not paused")
        ck.eq(tc.get("4", {}).get("pfc_paused_ns"), pause_ns,
              "pfc prio 4: tc.4.pfc_paused_ns")
        ck.eq(g["pfc"]["paused_us"], 0, "pfc prio 4: data priority paused 0")


def main():
    exe = exe_path()
    what = sys.argv[2] if len(sys.argv) > 2 else "all"
    ck = Checks("closed_loop")
    base, n_data = None, 0
    if what in ("base", "drop", "tail", "ce", "all"):
        base, n_data = case_base(ck, exe) or (None, 0)
    if what in ("drop", "all"):
        case_drop(ck, exe, base)
    if what in ("tail", "all") and n_data:
        case_tail(ck, exe, base, n_data)
    if what in ("ce", "all"):
        case_ce(ck, exe, base)
    if what in ("pfc", "all"):
        case_pfc(ck, exe)
    ck.finish()


if __name__ == "__main__":
    main()
