#!/usr/bin/python3
# SPDX-License-Identifier: BSD-3-Clause
"""ECN marking, Not-ECT drops, the marking ramp, determinism and the port
shaper, in virtual time (--set general.virtual_time=true, --capture).

Usage: test_qos_ecn.py PATH/TO/dpdk-aifab [incast|ramp|static|shaper|all]

All inputs are RoCEv2 frames built with struct + zlib (lib_aifab.RoceFlow:
ICRC per PROTOCOLS.md) of 1026 bytes, so one frame takes exactly
(1026 + 24) x 8 / 100 = 84 ns on a 100G wire and arrivals at line rate fall
on whole nanoseconds. Every output is matched to its input by (dest QP, PSN)
and compared byte for byte with the routed form of the input; only
independent tools judge (scapy's checksum(), zlib, tshark).

incast:  p0 (downlink) and p2, p3 (uplinks) send at line rate into p1:
         TC3 (DSCP 26, lossless, ECN by default) with ECT(0), ECT(1), CE and
         Not-ECT flows, and TC0 (DSCP 0, lossy) with the same four, ECN on
         TC0 via --set with a low ramp. ECT frames are marked CE and the
         marks equal the report's ecn_marked per TC; CE inputs stay CE;
         Not-ECT is never marked, dropped on lossy TC0 (ecn_drop_not_ect)
         and forwarded on lossless TC3; tshark agrees (ip.dsfield.ecn,
         ip.checksum.status, infiniband.invariant.crc). The same run twice
         gives byte-identical captures (timestamps included) and identical
         reports but for elapsed_s and lcores.
ramp:    a burst from p2 builds a standing queue that p0's line-rate stream
         then holds steady (three depths); the depth each frame saw at
         enqueue (or, with --set qos.ecn_at=dequeue, at dequeue) is
         reconstructed from the capture (arrival times are known, departures
         are stamped) and the marks must agree with sum p(q) of the DCQCN ramp
         (Kmin 400000, Kmax 1600000, Pmax 20 %) within 4.5 sigma, and
         exactly: no mark at a depth <= Kmin, a mark above Kmax; deeper
         standing queues and higher overload (1.5x, 2x, 3x) give strictly
         more marks.
static:  [qos] limit_mode = static on lossy TC0, p0 and p2 at line rate into
         p1 (2x overload, 2000 frames each): with queue_limit_bytes = 0
         ("no limit but the shared buffer") the standing queue fits the
         4 MB buffer and every frame leaves; with queue_limit_bytes = 65536
         frames are tail-dropped (tail_drop_queue_limit) with the queue
         never above 65536 bytes, and forwarded + drops = sent.
shaper:  one line-rate 100G input into p1 set to 10G (lossless TC3, PFC
         pauses the input): every frame leaves, at sum(len + 24) x 8 /
         (last - first departure) within 1 % of 10 Gb/s, each exactly one
         10G wire time (840 ns) after the one before.
"""
import bisect
import math
import os

from lib_aifab import (N_PORTS, NBR_IP4, PORT_NAMES, VT_EPOCH_NS,
                       Departures, RoceFlow, VRun, check_xon_hysteresis,
                       icrc_scapy, icrc_zlib, pfc_episodes, roce_match,
                       run_ok, run_scenarios, tshark_fields, wire_ns)

PAYLEN = 968            # 14 + 20 + 8 + 12 + 968 + 4 = 1026-byte frames
FRAME_LEN = 1026
LINE_NS = 84            # (1026 + 24) * 8 / 100 Gb/s
DST = NBR_IP4[1]        # 10.0.1.2, out of p1

# pcap-leaf's defaults for TC3 (docs/profiles.md).
KMIN, KMAX, PMAX = 400000, 1600000, 0.20

TC0_ECN = ["tc.0.ecn=true", "tc.0.ecn_kmin_bytes=20000",
           "tc.0.ecn_kmax_bytes=200000", "tc.0.ecn_pmax_percent=20"]
ECN_NAMES = {0: "Not-ECT", 1: "ECT(1)", 2: "ECT(0)", 3: "CE"}


def line_rate(flows_psns, t0=VT_EPOCH_NS):
    """Frames of (flow, psn) pairs all stamped t0: the switch spaces them
    at the ingress line rate (84 ns each)."""
    return [(f.frame(psn), t0) for f, psn in flows_psns]


def interleave(flows, n):
    """n frames round robin over flows: [(flow, psn)]."""
    return [(flows[i % len(flows)], i // len(flows)) for i in range(n)]


def sent_counts(inputs):
    n = {}
    for lst in inputs.values():
        for f, _psn in lst:
            n[f.dqpn] = n.get(f.dqpn, 0) + 1
    return n


def tc_of(f):
    return 3 if f.tos >> 2 == 26 else 0


# ---- incast ----------------------------------------------------------------

def build_incast(n_per_port):
    fl = {}
    # p0: TC3 ECT(0) (the usual RoCE sender).
    fl[0] = [RoceFlow(0, DST, 0x300, 0xC300, paylen=PAYLEN, dscp=26, ecn=2)]
    # p2: TC3 ECT(1), CE and Not-ECT.
    fl[2] = [RoceFlow(2, DST, 0x301 + k, 0xC301 + k, paylen=PAYLEN, dscp=26,
                      ecn=e) for k, e in enumerate((1, 3, 0))]
    # p3: TC0 (DSCP 0) Not-ECT, ECT(0), CE, ECT(1).
    fl[3] = [RoceFlow(3, DST, 0x310 + k, 0xC310 + k, paylen=PAYLEN, dscp=0,
                      ecn=e) for k, e in enumerate((0, 2, 3, 1))]
    return fl, {p: interleave(fl[p], n_per_port) for p in fl}


def incast_run(exe, inputs, tag):
    timed = {p: line_rate(v) for p, v in inputs.items()}
    return VRun(exe, timed, sets=TC0_ECN, tag=tag)


def check_incast(ck, exe):
    what = "incast p0+p2+p3 -> p1"
    ck.section("%s: TC3 ECT(0)/ECT(1)/CE/Not-ECT and TC0 with ECN (%s)" %
               (what, " ".join(TC0_ECN)))
    n_per_port = 3000
    fl, inputs = build_incast(n_per_port)
    flows = [f for p in fl for f in fl[p]]
    n_of = sent_counts(inputs)
    run = incast_run(exe, inputs, "ecn-incast")
    with run.kept_if_failed(ck):
        if not run_ok(ck, run, what):
            return
        judge_incast(ck, run, flows, n_of, what)
        check_determinism(ck, exe, run, inputs, what)


def judge_incast(ck, run, flows, n_of, what):
    caps = run.captures
    for p in range(N_PORTS):
        ck.check(caps[p] is not None, "%s: capture tx_%s.pcap written" %
                 (what, PORT_NAMES[p]))
    if caps[1] is None:
        return
    m = roce_match(ck, what, flows, 1, caps[1], n_of)
    for p in (0, 2, 3):
        data = [fr for _t, fr in (caps[p] or []) if fr[12:14] != b"\x88\x08"]
        ck.eq(len(data), 0, "%s: nothing but PFC leaves on %s" %
              (what, PORT_NAMES[p]))
    rep1 = run.port_rep(1)
    t3, t0 = run.tc(1, 3), run.tc(1, 0)
    ck.section("%s: ECN per flow" % what)
    marked = {0: 0, 3: 0}
    missing = {0: 0, 3: 0}
    missing_not_ect_tc0 = 0
    for f in flows:
        q, tc, ecn = f.dqpn, tc_of(f), f.tos & 3
        n_in, n_out = n_of[q], m.count[q]
        missing[tc] += n_in - n_out
        if tc == 0 and ecn == 0:
            missing_not_ect_tc0 = n_in - n_out
        marked[tc] += m.marked[q]
        desc = "QP %#x TC%d %s (%d in, %d out, %d marked CE)" % (
            q, tc, ECN_NAMES[ecn], n_in, n_out, m.marked[q])
        if tc == 3:
            ck.eq(n_out, n_in, "%s: %s: lossless TC3 forwards every frame" %
                  (what, desc))
        if ecn == 3:
            ck.eq(m.ce_out[q], n_out, "%s: %s: CE stays CE" % (what, desc))
        elif ecn == 0:
            ck.eq(m.ce_out[q], 0, "%s: %s: Not-ECT is never marked" %
                  (what, desc))
        else:
            ck.check(m.marked[q] > 0, "%s: %s: ECT frames are marked" %
                     (what, desc))
            ck.check(m.marked[q] < n_out, "%s: %s: not every frame is "
                     "marked (the queue starts empty)" % (what, desc))
        if tc == 0 and ecn != 0:
            # ECT on a lossy TC is marked, never dropped for ECN: only a
            # full queue may drop it.
            ck.check(n_in - n_out <= t0.get("tail_drops", 0),
                     "%s: %s: losses within TC0's non-ECN tail drops" %
                     (what, desc))
    ck.section("%s: report vs capture" % what)
    ck.eq(t3.get("ecn_marked"), marked[3],
          "%s: p1 tc.3.ecn_marked = ECT->CE frames in the capture" % what)
    ck.eq(t0.get("ecn_marked"), marked[0],
          "%s: p1 tc.0.ecn_marked = ECT->CE frames in the capture" % what)
    ck.check(t3.get("ecn_selected", 0) >= marked[3],
             "%s: tc.3.ecn_selected >= ecn_marked" % what, repr(t3))
    ck.eq(t3.get("ecn_drop_not_ect"), 0,
          "%s: lossless TC3 drops no Not-ECT frame" % what)
    ck.eq(t3.get("tail_drops"), 0, "%s: TC3 tail_drops" % what)
    ck.check(t0.get("ecn_drop_not_ect", 0) > 0,
             "%s: TC0 (lossy, ECN on) drops Not-ECT frames the ramp "
             "selects: ecn_drop_not_ect > 0" % what, repr(t0))
    ck.check(missing_not_ect_tc0 >= t0.get("ecn_drop_not_ect", 0),
             "%s: TC0 Not-ECT frames missing >= ecn_drop_not_ect" % what,
             "missing %d" % missing_not_ect_tc0)
    ck.eq(t0.get("tail_drops", 0) + t0.get("ecn_drop_not_ect", 0),
          missing[0], "%s: TC0 frames missing from the capture = "
          "tc.0.tail_drops + ecn_drop_not_ect (tail_drops counts no ECN "
          "drop)" % what)
    ck.eq(t0.get("tail_drops"), sum(t0.get(k, 0) for k in (
        "tail_drop_queue_limit", "tail_drop_buffer_full",
        "tail_drop_headroom_full", "tail_drop_fifo_full")),
        "%s: tc.0.tail_drops = the sum of the tail_drop_* reasons" % what)
    ck.check(t0.get("ecn_selected", 0) >= marked[0] +
             t0.get("ecn_drop_not_ect", 0),
             "%s: tc.0.ecn_selected >= marked + Not-ECT drops" % what,
             repr(t0))
    ck.eq(rep1.get("drops", {}).get("egress_queue"), missing[0],
          "%s: p1 drops.egress_queue = frames missing" % what)
    ck.eq(rep1.get("tx_packets"), len(caps[1]),
          "%s: p1 tx_packets = capture frames" % what)
    ck.eq(rep1.get("tx_bytes"), sum(len(fr) for _t, fr in caps[1]),
          "%s: p1 tx_bytes = capture bytes" % what)
    ck.eq((t3.get("tx_packets"), t0.get("tx_packets")),
          (sum(m.count[f.dqpn] for f in flows if tc_of(f) == 3),
           sum(m.count[f.dqpn] for f in flows if tc_of(f) == 0)),
          "%s: p1 tc.3/tc.0 tx_packets = capture frames per TC" % what)
    ts = [t for t, _fr in caps[1]]
    ck.check(all(ts[i] <= ts[i + 1] for i in range(len(ts) - 1)),
             "%s: capture departure stamps never go back" % what)
    check_tshark_incast(ck, run, m, what)


def check_tshark_incast(ck, run, m, what):
    ck.section("%s: tshark on tx_p1.pcap" % what)
    fields = ["ip.dsfield.ecn", "ip.checksum.status", "infiniband.bth.destqp",
              "infiniband.bth.psn", "infiniband.invariant.crc"]
    rows = tshark_fields(run.cap_path(1), fields)
    frames = [fr for _t, fr in run.captures[1]]
    ck.eq(len(rows), len(frames), "%s: tshark reads every frame" % what)
    ce = sum(1 for r in rows if r["ip.dsfield.ecn"] == "3")
    ck.eq(ce, sum(m.ce_out.values()),
          "%s: tshark ip.dsfield.ecn == 3 count = marked + CE inputs" % what)
    bad = [i for i, r in enumerate(rows) if r["ip.checksum.status"] != "1"]
    ck.check(not bad, "%s: tshark ip.checksum.status good on every frame"
             % what, "%d bad, first %s" % (len(bad), bad[:5]))
    bad = []
    for i, (r, fr) in enumerate(zip(rows, frames)):
        q, psn = RoceFlow.key(fr)
        crc = r["infiniband.invariant.crc"]
        if (r["infiniband.bth.destqp"] == "" or
                int(r["infiniband.bth.destqp"], 0) != q or
                int(r["infiniband.bth.psn"] or -1) != psn or
                crc == "" or int(crc, 16) != int.from_bytes(fr[-4:], "big")):
            bad.append(i)
    ck.check(not bad, "%s: tshark dissects RoCEv2 (dest QP, PSN, invariant "
             "CRC) like the bytes say" % what, "first bad %s" % bad[:5])
    # ICRC valid per PROTOCOLS.md (zlib), and per scapy, on a sample of
    # marked and unmarked frames.
    sample = frames[::97] + [fr for fr in frames if fr[15] & 3 == 3][:50]
    bad = [i for i, fr in enumerate(sample) if icrc_zlib(fr, 14) != fr[-4:]]
    ck.check(not bad, "%s: ICRC valid by zlib.crc32 (%d sampled frames)" %
             (what, len(sample)), "bad %s" % bad[:5])
    bad = [i for i, fr in enumerate(sample[:60]) if icrc_scapy(fr) != fr[-4:]]
    ck.check(not bad, "%s: ICRC valid by scapy compute_icrc (60 frames)" %
             what, "bad %s" % bad[:5])


def check_determinism(ck, exe, first, inputs, what):
    ck.section("%s: the same run again" % what)
    run = incast_run(exe, inputs, "ecn-incast2")
    try:
        if not run_ok(ck, run, what + " (2nd)"):
            return
        for p in range(N_PORTS):
            a, b = first.cap_path(p), run.cap_path(p)
            with open(a, "rb") as fa, open(b, "rb") as fb:
                da, db = fa.read(), fb.read()
            ck.check(da == db, "%s: tx_%s.pcap byte-identical across runs "
                     "(%d bytes, timestamps included)" %
                     (what, PORT_NAMES[p], len(da)),
                     "sizes %d / %d" % (len(da), len(db)))
        ra, rb = dict(first.report), dict(run.report)
        for k in ("elapsed_s", "lcores"):
            ck.check(k in ra, "%s: report has %s" % (what, k))
            ra.pop(k, None)
            rb.pop(k, None)
        diff = [k for k in set(ra) | set(rb) if ra.get(k) != rb.get(k)]
        ck.check(not diff, "%s: reports identical but for elapsed_s and "
                 "lcores" % what, "differ: %s" % diff)
    finally:
        if ck.failures:
            run.keep = True
        run.cleanup()


# ---- ramp ------------------------------------------------------------------

def ramp_p(q, kmin=KMIN, kmax=KMAX, pmax=PMAX):
    """DCQCN marking probability at queue depth q bytes (PROTOCOLS.md)."""
    if q <= kmin:
        return 0.0
    if q <= kmax:
        return pmax * (q - kmin) / (kmax - kmin)
    return 1.0


def queue_seen(deps, arrs, at_dequeue):
    """Per frame in FIFO (= capture) order, the bytes queued ahead of it
    when the switch took its ECN decision: at enqueue, the frames before it
    not yet departed at its arrival; at dequeue, the frames after it
    already arrived at its departure. At one instant arrivals come first,
    then departures (docs/virtual-time.md): a frame whose serialization
    starts at another's arrival instant still counts in the depth that
    arrival sees, and a frame arriving at a departure's instant counts in
    the depth that departure sees. All frames FRAME_LEN."""
    out = []
    for i, (d, a) in enumerate(zip(deps, arrs)):
        if at_dequeue:
            n = bisect.bisect_right(arrs, d) - (i + 1)
        else:
            n = i - bisect.bisect_left(deps, a, 0, i)
        out.append(max(n, 0) * FRAME_LEN)
    return out


def ramp_case(ck, exe, what, senders, ecn_at="enqueue"):
    """senders: port -> (n frames, spacing in units of LINE_NS). Returns
    (marked, forwarded, pfc frames sent) or None."""
    flows, timed, arrival = [], {}, {}
    for p, (n, gap) in senders.items():
        f = RoceFlow(p, DST, 0x400 + p, 0xC400 + p, paylen=PAYLEN,
                     dscp=26, ecn=2)
        flows.append(f)
        # Stamped when the frame is due. The switch takes a frame at its
        # pcap time (net_pcap keeps whole microseconds) but never before its
        # ingress link is free (84 ns after the previous frame's arrival).
        timed[p] = [(f.frame(k), VT_EPOCH_NS + k * gap * LINE_NS)
                    for k in range(n)]
        prev = None
        for k in range(n):
            a = (k * gap * LINE_NS) // 1000 * 1000
            if prev is not None:
                a = max(a, prev + LINE_NS)
            arrival[(f.dqpn, k)] = prev = a
    sets = ["qos.ecn_at=%s" % ecn_at]
    run = VRun(exe, timed, sets=sets, tag="ramp")
    with run.kept_if_failed(ck):
        if not run_ok(ck, run, what):
            return None
        cap = run.captures[1] or []
        m = roce_match(ck, what, flows, 1, cap,
                       {f.dqpn: senders[f.port][0] for f in flows})
        fwd = sum(m.count.values())
        ck.eq(fwd, sum(n for n, _g in senders.values()),
              "%s: every frame forwarded (lossless TC3)" % what)
        marked = sum(m.marked.values())
        ck.eq(run.tc(1, 3).get("ecn_marked"), marked,
              "%s: tc.3.ecn_marked = CE frames in the capture" % what)
        pfc = sum(run.tc(p, 3).get("pfc_xoff_sent", 0) for p in senders)
        if pfc == 0:
            deps = [t - VT_EPOCH_NS for t, _fr in cap]
            arrs = [arrival[RoceFlow.key(fr)] for _t, fr in cap]
            in_order = all(arrs[i] <= arrs[i + 1]
                           for i in range(len(arrs) - 1))
            ck.check(in_order, "%s: TC3 leaves in arrival order (FIFO)" % what)
            qs = queue_seen(deps, arrs, ecn_at == "dequeue")
            # Exact where the ramp draws nothing: the depths are the ones
            # at the frames' instants (no egress step), so a frame that saw
            # at most Kmin is never marked, one that saw more than Kmax
            # always (ECT(0) inputs; CE = TOS bits 11).
            ce = [fr[15] & 3 == 3 for _t, fr in cap]
            wrong = [(i, q, c) for i, (q, c) in enumerate(zip(qs, ce))
                     if (q <= KMIN and c) or (q > KMAX and not c)]
            ck.check(not wrong, "%s: no mark at a depth <= Kmin, a mark at "
                     "every depth > Kmax (%d frames at or below Kmin, %d "
                     "above Kmax)" % (what, sum(q <= KMIN for q in qs),
                                      sum(q > KMAX for q in qs)),
                     "(frame, depth, CE): %r" % wrong[:4])
            ps = [ramp_p(q) for q in qs]
            mean = sum(ps)
            sd = math.sqrt(sum(p * (1 - p) for p in ps))
            qbar = sum(qs) / len(qs)
            print("%s: queue seen per frame: mean %.0f B, max %d B; "
                  "expected marks %.1f +- %.1f, got %d" %
                  (what, qbar, max(qs), mean, sd, marked))
            ck.check(abs(marked - mean) <= 4.5 * sd + 2,
                     "%s: marks = sum of p(q) over frames within 4.5 sigma "
                     "(ramp %d/%d B, Pmax %.0f %%, ECN at %s)" %
                     (what, KMIN, KMAX, PMAX * 100, ecn_at),
                     "got %d, expected %.1f +- %.1f" % (marked, mean, sd))
        return marked, fwd, pfc


def check_ramp(ck, exe):
    ck.section("standing queues: a burst from p2, then p0 at exactly the "
               "p1 line rate")
    n_steady = 4000
    fracs = []
    for burst in (700, 1000, 1300):
        modes = ("enqueue", "dequeue") if burst == 1000 else ("enqueue",)
        for ecn_at in modes:
            what = "standing queue ~%d frames, ECN at %s" % (burst, ecn_at)
            r = ramp_case(ck, exe, what, {0: (burst + n_steady, 1),
                                          2: (burst, 1)}, ecn_at)
            if r is None:
                return
            ck.eq(r[2], 0, "%s: no PFC (the queue stays below XOFF)" % what)
            if ecn_at == "enqueue":
                fracs.append((burst, r[0] / r[1]))
    print("marked fraction by standing queue: %s" %
          ", ".join("%d frames %.4f" % bf for bf in fracs))
    ck.check(all(fracs[i][1] < fracs[i + 1][1] for i in range(len(fracs) - 1)),
             "deeper standing queue -> strictly more marks", repr(fracs))
    ck.section("overload: 1.5x, 2x, 3x line rate into p1 for the same time")
    n = 3000
    fracs = []
    for name, senders in (
            ("1.5x", {0: (n, 1), 2: (n // 2, 2)}),
            ("2x", {0: (n, 1), 2: (n, 1)}),
            ("3x", {0: (n, 1), 2: (n, 1), 3: (n, 1)})):
        r = ramp_case(ck, exe, "overload %s" % name, senders)
        if r is None:
            return
        fracs.append((name, r[0] / r[1]))
    print("marked fraction by overload: %s" %
          ", ".join("%s %.4f" % x for x in fracs))
    ck.check(all(fracs[i][1] < fracs[i + 1][1] for i in range(len(fracs) - 1)),
             "higher overload -> strictly larger marked fraction", repr(fracs))


# ---- shaper ----------------------------------------------------------------

def check_shaper(ck, exe):
    what = "p0 at 100G into p1 at 10G"
    ck.section(what)
    n = 10000
    f = RoceFlow(0, DST, 0x500, 0xC500, paylen=PAYLEN, dscp=26, ecn=2)
    run = VRun(exe, {0: line_rate([(f, k) for k in range(n)])},
               sets=["port.p1.speed_gbps=10"], tag="shaper")
    with run.kept_if_failed(ck):
        if not run_ok(ck, run, what):
            return
        ck.eq(run.port_rep(1).get("speed_mbps"), 10000,
              "%s: report p1 speed_mbps" % what)
        cap = run.captures[1] or []
        m = roce_match(ck, what, [f], 1, cap, {f.dqpn: n})
        ck.eq(m.count[f.dqpn], n, "%s: every frame leaves (TC3 lossless: "
              "PFC pauses the input instead of dropping)" % what)
        ck.check(run.tc(0, 3).get("pfc_xoff_sent", 0) > 0,
                 "%s: p0 sent XOFF (the 10G port backs up)" % what,
                 repr(run.tc(0, 3)))
        deps = Departures()
        deps.extend(cap)
        check_xon_hysteresis(ck, what, 0, pfc_episodes(run.captures[0]),
                             deps)
        if len(cap) < 2:
            return
        t_first, t_last = cap[0][0], cap[-1][0]
        bits = sum(len(fr) + 24 for _t, fr in cap) * 8
        rate = bits / (t_last - t_first)          # bits per ns = Gb/s
        print("%s: %d frames, %d wire bytes over %.3f us: %.4f Gb/s" %
              (what, len(cap), bits // 8, (t_last - t_first) / 1e3, rate))
        ck.check(abs(rate - 10.0) <= 0.1,
                 "%s: sum(len+24)*8 / (last - first departure) within 1 %% "
                 "of 10 Gb/s" % what, "%.4f Gb/s" % rate)
        # Steady state, past the shaper's initial bucket (32768 B).
        k = 100
        bits = sum(len(fr) + 24 for _t, fr in cap[k + 1:]) * 8
        rate2 = bits / (t_last - cap[k][0])
        print("%s: from frame %d on: %.4f Gb/s" % (what, k, rate2))
        ck.check(abs(rate2 - 10.0) <= 0.02,
                 "%s: steady rate (from frame %d on) within 0.2 %% of 10 "
                 "Gb/s" % (what, k), "%.4f Gb/s" % rate2)
        gaps = [cap[i + 1][0] - cap[i][0] for i in range(len(cap) - 1)]
        wire = wire_ns(FRAME_LEN, 10)
        print("%s: one frame is %.0f ns at 10G; departure gaps %d..%d ns" %
              (what, wire, min(gaps), max(gaps)))
        # PFC keeps p1's queue backlogged from the second frame on: every
        # frame starts exactly when the one before has left (the port is
        # the transmitter; no shaper bucket burst, no egress step).
        ck.eq(sorted(set(gaps)), [int(wire)], "%s: every departure exactly "
              "one 10G wire time (%d ns) after the one before" %
              (what, wire))

def check_static_limit(ck, exe):
    n = 2000
    flows = [RoceFlow(port, DST, 0x600 + port, 0xC600 + port, paylen=PAYLEN,
                      dscp=0, ecn=2) for port in (0, 2)]
    inputs = {f.port: line_rate([(f, k) for k in range(n)]) for f in flows}
    for limit in (0, 65536):
        what = "limit_mode=static, tc.0.queue_limit_bytes=%d" % limit
        ck.section(what)
        sets = ["qos.limit_mode=static"]
        if limit:
            sets.append("tc.0.queue_limit_bytes=%d" % limit)
        run = VRun(exe, inputs, sets=sets, tag="static%d" % limit)
        with run.kept_if_failed(ck):
            if not run_ok(ck, run, what):
                continue
            cap = run.captures[1] or []
            m = roce_match(ck, what, flows, 1, cap, {f.dqpn: n for f in flows})
            out = sum(m.count.values())
            t0 = run.tc(1, 0)
            ql = t0.get("tail_drop_queue_limit")
            other = sum(t0.get(k, 0) for k in (
                "tail_drop_buffer_full", "tail_drop_headroom_full",
                "tail_drop_fifo_full", "ecn_drop_not_ect"))
            print("%s: %d of %d frames out, p1 tc.0: %r" %
                  (what, out, 2 * n, t0))
            ck.eq(other, 0, "%s: no buffer, headroom, FIFO or ECN drops"
                  % what)
            if limit == 0:
                ck.eq(out, 2 * n, "%s: every frame leaves (0 = no limit "
                      "but the 4 MB shared buffer; the queue peaks near "
                      "2000 frames)" % what)
                ck.eq(ql, 0, "%s: p1 tc.0.tail_drop_queue_limit" % what)
            else:
                ck.check(ql is not None and ql > 0,
                         "%s: p1 tc.0.tail_drop_queue_limit > 0" % what)
                ck.eq(out + (ql or 0), 2 * n,
                      "%s: forwarded + tail_drop_queue_limit = sent" % what)
                hwm = t0.get("queue_hwm_bytes", 1 << 62)
                ck.check(0 < hwm <= limit, "%s: p1 tc.0 queue_hwm_bytes "
                         "in 1..%d" % (what, limit), repr(hwm))


SCENARIOS = {"incast": check_incast, "ramp": check_ramp,
             "static": check_static_limit, "shaper": check_shaper}


def main():
    run_scenarios("test_qos_ecn", SCENARIOS)


if __name__ == "__main__":
    os.environ.setdefault("PYTHONDONTWRITEBYTECODE", "1")
    main()
