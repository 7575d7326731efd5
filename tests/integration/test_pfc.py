#!/usr/bin/python3
# SPDX-License-Identifier: BSD-3-Clause
"""PFC in virtual time: lossless incast, honouring received PFC, watchdog.

Usage: test_pfc.py PATH/TO/dpdk-aifab
           [incast|pause|long_pause|headroom_short|mixed|prio_map|
            hw_offload|port_keys|watchdog|hysteresis|small_pool|
            multi_worker|all]

incast:   10^6 small RoCEv2 frames (122 bytes: 64-byte payload; DSCP 26 ->
          TC3, lossless) from p0, p2 and p3 at line rate into p1, with
          profiles/incast-lossless.ini (pcap-leaf's ports, a 1 MiB shared
          buffer). The
          pcaps are written with struct and zlib (an ICRC per frame, the PSN
          varies), never with scapy per packet. The switch must send PFC
          that tshark decodes (macc.opcode 0x0101, macc.cbfc.enbv 0x0008,
          pause_time.c3 65535 for XOFF, 0 for XON, counts equal to the
          report's pfc_xoff_sent / pfc_xon_sent), drop nothing (every drop
          counter 0, every input frame in the capture exactly once, routed
          byte for byte), while the same input with --set
          tc.3.lossless=false tail-drops (tail_drops > 0, no PFC) and
          forwarded + tail_drops = 10^6.
pause:    p0 sends TC3 and p2 TC0 to p1 at line rate (1026-byte frames:
          84 ns each at 100G); scapy-free PFC frames (PROTOCOLS.md layout)
          arrive on p1: XOFF c3 = 20000 quanta at T1 (TC0's timer set but
          its class not enabled: ignored), then XOFF c3 = 65535 at T2 and
          XON at T3. TC3 departures stop from T1 to T1 + 20000 x 512 / 100e9 s
          and from T2 to T3, TC0 fills the link meanwhile; pfc_rx = 3 and
          paused_ns = 102400 + (T3 - T2) on p1 TC3, 0 on TC0.
long_pause: p1 at 10G (65535 quanta = 3355392 ns) receives XOFF c3 =
          65535 every 3 ms for 4.5 s (watchdog off): p1 tc.3.paused_ns lies
          in [last - first, last - first + 3355392] ns, above 2^32 (a 32-bit
          sum wraps after 4.29 s), and pfc_rx = the frames sent.
headroom_short: p0 and p2 send TC3 at line rate into p1 with
          tc.3.pfc_headroom_bytes = 1024 (far below what a 100G port
          needs): lossless frames are dropped on headroom overflow, and for
          each ingress port with headroom_overflow > 0 in the report, stderr
          carries one WARNING line naming the port, TC 3 (priority 3), the same
          count and "headroom is misconfigured"; no line for other ports.
mixed:    lossy TC0 from p0 and p2 and lossless TC3 from p3, all at line
          rate into p1 with [qos] limit_mode = static (TC0 may fill the
          whole shared pool) and a static XOFF TC3 never reaches
          (4000000): TC0 tail-drops on the full buffer, every TC3 frame
          leaves (the PFC headroom of each lossless (port, priority) is
          kept out of the shared buffer, TC3 spills into it and p3 is
          paused), p3 is sent XOFF (tshark), nothing overflows.
prio_map: [qos] pcp_to_tc swaps priorities 3 and 5 (3 -> TC5, 5 -> TC3);
          p0 sends TC3 (DSCP 26) and p2 TC0 into p1 at line rate. PFC
          bits are 802.1p priorities: XOFF c5 = 20000 received on p1 at
          T1 stops TC3 for 20000 x 5.12 ns; XOFF c3 = 65535 at T2 does not
          (priority 3 is TC5's); the report's pfc_rx / paused_ns per
          priority say so; the XOFF/XON p0 is sent (TC3 backs up) carry
          priority 5 only (tshark: enbv 0x0020, c5 65535 or 0).
hw_offload: the pause case with --set pfc.hw_offload=true on net_pcap
          ports, which have no PFC: one line per port says so and that PFC
          stays in software, and it does (p1 TC3 paused_ns as in pause).
port_keys: p0 at 100G into p1 at 25G (TC3) with [tc.3] pfc_xoff_bytes =
          100000 (XON at 80000) overridden for p0 by [port.p0]
          pfc_xoff_bytes = 600000, pfc_xon_bytes = 200000 (absolute): every
          frame leaves and each XOFF..XON pause spans >= 400000 bytes
          leaving (the TC's own thresholds would need only 20000); with
          [port.p0] pfc = false instead p0 is sent no PFC and TC3 from it
          tail-drops (no headroom kept or lent for it), forwarded + drops
          = sent.
watchdog: a storm of XOFF c3 = 65535 (335.5 us at 100G) every 160 us for
          150 ms on p1 (--set pfc.detection_ms=100 pfc.restoration_ms=100)
          while p0 sends one TC3 frame to p1 every 100 us and p2 one TC0
          frame every 100 us: the storm is detected at first XOFF + 100 ms,
          the queue is flushed and TC3 to p1 dropped (pfcwd_drops = frames
          that arrived from the storm's start until restoration), restored
          at exactly last XOFF + 100 ms (pfcwd_restored = 1), and
          TC3 flows again afterwards; TC0 flows throughout; every count and
          instant is computed from the inputs.
multi_worker: two switch workers in real time (EAL --lcores 0@0,1@1,2@1:
          two worker lcores share CPU 1), net_pcap ports with an RX queue
          per rx_pcap and a TX queue per worker, --capture per TX queue.
          (1) a scapy-built XOFF c3 = 65535 (335.5 ms at 100 Mb/s) on p1's
          queue 0 (worker 0) stops TC3 out of p1 on both workers' TX
          queues for one common window of >= 0.8 x the pause while TC0 of
          both leaves inside it; pfc_rx 1 and paused_ns = the pause,
          counted once. (2) lossless TC3 shards of 80 and 200 ~1 kB frames
          (one per worker) into p1 at 10 Mb/s, XOFF 80000 / XON 40000: both
          workers send XOFF, exactly one XON goes to p0, the last PFC frame,
          and when it leaves every shard (admitted minus sent, from the
          captures) is at or below its XON (20 ms slack); no drops.
          Virtual time is not used: each worker's virtual clock follows
          only its own inputs.
"""
import os
import shutil
import struct
import tempfile
import zlib

from lib_aifab import (N_PORTS, NBR_IP4, NBR_MAC, PORT_MAC,
                       PORT_NAMES, VT_EPOCH_NS, Departures,
                       PcapWriter, RoceFlow, Run, VRun,
                       check_xon_hysteresis, icrc_scapy, icrc_zlib,
                       iter_pcap_ns, pfc_episodes, pfc_frame, quanta_ns,
                       read_pcap_ns, roce_match, run_ok, run_scenarios,
                       source_root, tshark_fields, wire_ns, write_pcap_timed)

DST = NBR_IP4[1]
GBPS = 100
QUANTUM_NS = quanta_ns(1, GBPS)          # 5.12 ns at 100G

PFC_FIELDS = ["frame.len", "eth.dst", "eth.src", "eth.type", "macc.opcode",
              "macc.cbfc.enbv"] + ["macc.cbfc.pause_time.c%d" % i
                                   for i in range(8)]


def all_drops(rep_port):
    return {k: v for k, v in rep_port.get("drops", {}).items() if v}


def check_pfc_frames(ck, run, port, what, xoff_quanta=65535):
    """tshark decodes every frame the switch sent out of `port` as PFC for
    priority 3; returns (xoff, xon) counts."""
    rows = tshark_fields(run.cap_path(port), PFC_FIELDS)
    pn = PORT_NAMES[port]
    xoff = xon = 0
    bad = []
    seq = []
    for i, r in enumerate(rows):
        ok = (r["frame.len"] == "60" and r["eth.dst"] == "01:80:c2:00:00:01"
              and r["eth.src"] == PORT_MAC[port] and r["eth.type"] == "0x8808"
              and r["macc.opcode"] == "0x0101"
              and r["macc.cbfc.enbv"] == "0x0008"
              and all(r["macc.cbfc.pause_time.c%d" % c] == "0"
                      for c in range(8) if c != 3))
        c3 = r["macc.cbfc.pause_time.c3"]
        if ok and c3 == str(xoff_quanta):
            xoff += 1
            seq.append("F")
        elif ok and c3 == "0":
            xon += 1
            seq.append("N")
        else:
            bad.append((i, r))
    ck.check(rows and not bad, "%s: tshark decodes all %d frames sent on %s "
             "as PFC: 60 bytes to 01:80:c2:00:00:01 from %s, macc.opcode "
             "0x0101, macc.cbfc.enbv 0x0008, c3 %d (XOFF) or 0 (XON), other "
             "timers 0" % (what, len(rows), pn, PORT_MAC[port], xoff_quanta),
             "bad: %r" % bad[:3] if bad else "no frames")
    s = "".join(seq)
    ck.check(s.startswith("F") and "NN" not in s,
             "%s: %s: an XON only ever follows an XOFF" % (what, pn), s[:80])
    tc3 = run.tc(port, 3)
    ck.eq((xoff, xon), (tc3.get("pfc_xoff_sent"), tc3.get("pfc_xon_sent")),
          "%s: %s: tshark XOFF/XON counts = tc.3.pfc_xoff_sent/xon_sent" %
          (what, pn))
    ck.eq(run.port_rep(port).get("tx_packets"), len(rows),
          "%s: %s tx_packets = PFC frames captured" % (what, pn))
    return xoff, xon


# ---- incast ----------------------------------------------------------------

INCAST_TOTAL = 10**6
INCAST_PAYLEN = 64                       # 122-byte frames
# profiles/incast-lossless.ini: pcap-leaf's ports, virtual time on, a
# 1 MiB shared buffer, TC3 lossless with ECN (the test restates the buffer
# so that it does not depend on the profile's comment being kept true).
INCAST_PROFILE = os.path.join(source_root(), "profiles", "incast-lossless.ini")
INCAST_SETS = ["qos.buffer_bytes=1048576"]


def incast_flows():
    n = [INCAST_TOTAL // 3 + (1 if i < INCAST_TOTAL % 3 else 0)
         for i in range(3)]
    return [(RoceFlow(p, DST, 0x600 + p, 0xC600 + p, paylen=INCAST_PAYLEN,
                      dscp=26, ecn=2), k) for p, k in zip((0, 2, 3), n)]


def write_incast(dirname, flows):
    """One pcap per sender, every frame stamped at the epoch: the switch
    takes them at line rate (wire time (122 + 24) x 8 / 100 = 11.68 ns).
    Same as PcapWriter.add(f.frame(psn), VT_EPOCH_NS) per frame, with the
    constant record header and frame head hoisted out of the loop."""
    for f, n in flows:
        w = PcapWriter(os.path.join(dirname, "in%d.pcap" % f.port))
        rec = struct.pack("<IIII", VT_EPOCH_NS // 10**9, 0, f.len, f.len)
        pre, pay, crc0 = rec + f.head, f.payload, f.crc0
        crc32, pack = zlib.crc32, struct.Struct("<I").pack
        assert pre[16:] + f.frame(7)[len(f.head):] == f.frame(7)
        for lo in range(0, n, 65536):
            out = []
            for psn in range(lo, min(n, lo + 65536)):
                tail = psn.to_bytes(3, "big") + pay
                out.append(pre + tail + pack(crc32(tail, crc0)))
            w.f.write(b"".join(out))
        w.close()


def link_inputs(src_dir):
    def writer(run):
        for f in os.listdir(src_dir):
            os.link(os.path.join(src_dir, f), run.path(f))
    return writer


def verify_big_capture(ck, run, flows, what):
    """Stream tx_p1.pcap: each input exactly once, routed, ECN only ECT(0)
    -> CE; returns the number of marked frames."""
    fl = {f.dqpn: (f, n) for f, n in flows}
    seen = {q: bytearray(n) for q, (f, n) in fl.items()}
    heads = {q: (f.out_head(1, False), f.out_head(1, True))
             for q, (f, n) in fl.items()}
    hl = len(flows[0][0].head)
    marked = total = dups = 0
    bad = []
    last_t = 0
    back = 0
    deps = Departures()
    crc32, pack = zlib.crc32, struct.Struct("<I").pack
    for t, fr in iter_pcap_ns(run.cap_path(1)):
        total += 1
        deps.add(t, len(fr))
        if t < last_t:
            back += 1
        last_t = t
        q = int.from_bytes(fr[47:50], "big")
        psn = int.from_bytes(fr[51:54], "big")
        ent = fl.get(q)
        if ent is None or psn >= ent[1]:
            bad.append("frame %d: unknown QP %#x PSN %d" % (total, q, psn))
            continue
        if seen[q][psn]:
            dups += 1
            continue
        seen[q][psn] = 1
        h = fr[:hl]
        if h == heads[q][1]:
            marked += 1
        elif h != heads[q][0]:
            bad.append("frame %d QP %#x PSN %d: headers are not the routed "
                       "input's" % (total, q, psn))
        # PSN, payload, ICRC: the input's (the ICRC recomputed with zlib
        # from the flow's invariant prefix and this PSN).
        if (fr[hl + 3:-4] != ent[0].payload or
                fr[-4:] != pack(crc32(fr[hl:-4], ent[0].crc0))):
            bad.append("frame %d QP %#x PSN %d: PSN/payload/ICRC changed" %
                       (total, q, psn))
    ck.eq(total, INCAST_TOTAL, "%s: %d frames in tx_p1.pcap" %
          (what, INCAST_TOTAL))
    ck.eq(dups, 0, "%s: no frame twice" % what)
    ck.check(not bad, "%s: every frame is a routed input (MACs, TTL-1, "
             "checksum recomputed, ECN unchanged or ECT(0)->CE, PSN, payload "
             "and ICRC unchanged)" % what, "%d bad: %s" % (len(bad), bad[:5]))
    for q, (f, n) in fl.items():
        ck.eq(n - sum(seen[q]), 0, "%s: every one of %s's %d frames in the "
              "capture" % (what, PORT_NAMES[f.port], n))
    ck.eq(back, 0, "%s: departure stamps never go back" % what)
    return marked, deps


def check_incast(ck, exe):
    flows = incast_flows()
    tmp = tempfile.mkdtemp(prefix="aifab-it-pfc-in-")
    try:
        import time
        t0 = time.monotonic()
        write_incast(tmp, flows)
        print("wrote %d frames (%s) in %.1f s" % (
            INCAST_TOTAL, ", ".join("%s %d" % (PORT_NAMES[f.port], n)
                                    for f, n in flows), time.monotonic() - t0))
        incast_lossless(ck, exe, tmp, flows)
        incast_lossy(ck, exe, tmp, flows)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def incast_lossless(ck, exe, src, flows):
    what = "lossless TC3 incast (10^6 x 122 B, 1 MiB buffer)"
    ck.section(what)
    run = VRun(exe, writer=link_inputs(src), sets=INCAST_SETS, tag="pfc-in",
               load=False, profile=INCAST_PROFILE)
    n_failed = len(ck.failures)
    try:
        if not run_ok(ck, run, what, timeout=120):
            return
        for f, n in flows:
            pr = run.port_rep(f.port)
            ck.eq(pr.get("rx_packets"), n, "%s: %s rx_packets = frames sent"
                  % (what, PORT_NAMES[f.port]))
        for p in range(N_PORTS):
            ck.eq(all_drops(run.port_rep(p)), {}, "%s: %s drops nothing "
                  "(every drop reason 0)" % (what, PORT_NAMES[p]))
        t3 = run.tc(1, 3)
        ck.eq(t3.get("tail_drops"), 0, "%s: p1 tc.3.tail_drops" % what)
        ck.eq(t3.get("tx_packets"), INCAST_TOTAL, "%s: p1 tc.3.tx_packets" %
              what)
        for f, _n in flows:
            ck.eq(run.tc(f.port, 3).get("headroom_overflow"), 0,
                  "%s: %s tc.3.headroom_overflow" % (what, PORT_NAMES[f.port]))
        marked, deps = verify_big_capture(ck, run, flows, what)
        ck.eq(t3.get("ecn_marked"), marked,
              "%s: p1 tc.3.ecn_marked = CE frames in the capture" % what)
        for f, _n in flows:
            xoff, _xon = check_pfc_frames(ck, run, f.port, what)
            ck.check(xoff > 0, "%s: %s was sent XOFF" %
                     (what, PORT_NAMES[f.port]))
            if t3.get("tail_drops") == 0 and t3.get("headroom_admits") == 0:
                check_xon_hysteresis(ck, what, f.port, pfc_episodes(
                    read_pcap_ns(run.cap_path(f.port))), deps)
        # tshark over the start of the data capture (the whole of it would
        # take longer than the rest of the test).
        rows = tshark_fields(run.cap_path(1), [
            "ip.checksum.status", "infiniband.bth.opcode",
            "infiniband.invariant.crc"], extra=["-c", "3000"])
        ck.check(len(rows) == 3000 and all(
            r["ip.checksum.status"] == "1" and
            r["infiniband.bth.opcode"] == "7"
            and r["infiniband.invariant.crc"] for r in rows),
            "%s: tshark: first 3000 frames RoCEv2 WRITE middle with good IPv4 "
            "checksums" % what)
        first = next(iter_pcap_ns(run.cap_path(1)))[1]
        ck.eq(icrc_zlib(first, 14), first[-4:],
              "%s: ICRC of the first output valid by zlib" % what)
        ck.eq(icrc_scapy(first), first[-4:],
              "%s: ICRC of the first output valid by scapy" % what)
    finally:
        if len(ck.failures) > n_failed:
            print("(run directory not kept: ~0.5 GB of pcaps; set "
                  "AIFAB_IT_KEEP=1 to keep it)")
        run.cleanup()


def incast_lossy(ck, exe, src, flows):
    what = "same input, tc.3.lossless=false"
    ck.section(what)
    run = VRun(exe, writer=link_inputs(src),
               sets=INCAST_SETS + ["tc.3.lossless=false"], tag="pfc-lossy",
               load=False, profile=INCAST_PROFILE)
    n_failed = len(ck.failures)
    try:
        if not run_ok(ck, run, what, timeout=120):
            return
        t3 = run.tc(1, 3)
        drops = t3.get("tail_drops", 0)
        ck.check(drops > 0, "%s: p1 tc.3.tail_drops > 0" % what, repr(t3))
        n_out = ce = 0
        for _t, fr in iter_pcap_ns(run.cap_path(1)):
            n_out += 1
            ce += (fr[15] & 3) == 3
        ck.eq(t3.get("ecn_marked"), ce, "%s: p1 tc.3.ecn_marked = CE frames "
              "in the capture (a frame dropped after the ECN decision must "
              "not count as marked)" % what)
        ck.eq(n_out + drops, INCAST_TOTAL, "%s: frames captured on p1 (%d) "
              "+ tail_drops = 10^6" % (what, n_out))
        ck.eq(run.port_rep(1).get("tx_packets"), n_out,
              "%s: p1 tx_packets = capture" % what)
        for f, _n in flows:
            ck.eq(run.tc(f.port, 3).get("pfc_xoff_sent"), 0,
                  "%s: no XOFF to %s" % (what, PORT_NAMES[f.port]))
            ck.eq(os.path.getsize(run.cap_path(f.port)), 24,
                  "%s: nothing sent on %s" % (what, PORT_NAMES[f.port]))
    finally:
        if len(ck.failures) > n_failed:
            print("(run directory not kept: ~0.5 GB of pcaps; set "
                  "AIFAB_IT_KEEP=1 to keep it)")
        run.cleanup()



def p1_matched(ck, run, what, flows, n_of):
    """What left p1 as (ns since the epoch, frame), and its RoceMatch
    against `flows` (problems reported)."""
    cap = [(t - VT_EPOCH_NS, fr) for t, fr in run.captures[1]]
    return cap, roce_match(ck, what, flows, 1, cap, n_of)

# ---- pause -----------------------------------------------------------------

PAYLEN = 968                    # 1026-byte frames: 84 ns at 100G
LINE_NS = 84
US = 1000


def pause_case():
    n = 6000                    # 504 us of line rate per sender
    f3 = RoceFlow(0, DST, 0x700, 0xC700, paylen=PAYLEN, dscp=26, ecn=2)
    f0 = RoceFlow(2, DST, 0x702, 0xC702, paylen=PAYLEN, dscp=0, ecn=2)
    t1, q1 = 50 * US, 20000
    t2, t3 = 200 * US, 260 * US
    z = [0] * 8
    pfc = [
        # c3 = 20000 quanta; c0 carries a timer but class 0 is not enabled.
        (pfc_frame(NBR_MAC[1], 0x08, [65535, 0, 0, q1, 0, 0, 0, 0]), t1),
        (pfc_frame(NBR_MAC[1], 0x08, [0, 0, 0, 65535, 0, 0, 0, 0]), t2),
        (pfc_frame(NBR_MAC[1], 0x08, z), t3),
    ]
    inputs = {0: [(f3.frame(k), VT_EPOCH_NS) for k in range(n)],
              2: [(f0.frame(k), VT_EPOCH_NS) for k in range(n)],
              1: [(fr, VT_EPOCH_NS + t) for fr, t in pfc]}
    windows = [(t1, t1 + quanta_ns(q1, GBPS)), (t2, t3)]
    return f3, f0, n, inputs, windows


def check_pause(ck, exe):
    what = "PFC received on p1"
    f3, f0, n, inputs, windows = pause_case()
    ck.section("%s: TC3 from p0 and TC0 from p2 into p1 at line rate; "
               "pauses %s ns" % (what, ["%d-%d" % (a, b) for a, b in windows]))
    run = VRun(exe, inputs, tag="pfc-pause")
    with run.kept_if_failed(ck):
        if not run_ok(ck, run, what):
            return
        cap, m = p1_matched(ck, run, what, [f3, f0], {f3.dqpn: n, f0.dqpn: n})
        ck.eq(m.count[f3.dqpn], n, "%s: every TC3 frame forwarded "
              "(lossless)" % what)
        tc3 = [t for t, fr in cap if RoceFlow.key(fr)[0] == f3.dqpn]
        tc0 = [t for t, fr in cap if RoceFlow.key(fr)[0] == f0.dqpn]
        frame_ns = wire_ns(1026, GBPS)
        # At the pause's end the port may be sending a TC0 frame, and the
        # scheduler may finish TC0's DWRR turn (at most one quantum: 9216 +
        # 24 bytes) before TC3 goes again (test_vt_exact.py pause: alone,
        # TC3 starts at exactly the end).
        slack = frame_ns + (9216 + 24) * 8 / GBPS
        for a, b in windows:
            w = "%s: pause %d..%d ns" % (what, a, b)
            before = [t for t in tc3 if t <= a]
            ck.check(before and a - before[-1] <= 1 * US,
                     "%s: TC3 was departing right before the pause "
                     "(queue backlogged)" % w,
                     "last TC3 departure before: %s" %
                     (before[-1] if before else None))
            inside = [t for t in tc3 if a < t < b]
            ck.eq(inside, [], "%s: no TC3 departure inside" % w)
            after = [t for t in tc3 if t >= b]
            ck.check(after and after[0] <= b + slack,
                     "%s: TC3 departs again within %.0f ns of the end "
                     "(one frame + one DWRR quantum)" % (w, slack),
                     "first after: %s" % (after[0] if after else None))
            n0 = sum(1 for t in tc0 if a < t < b)
            want = (b - a) / frame_ns
            ck.check(abs(n0 - want) <= 2, "%s: TC0 keeps the link busy: %d "
                     "departures inside, (end - start) / %.2f ns = %.1f" %
                     (w, n0, frame_ns, want))
        t3r, t0r = run.tc(1, 3), run.tc(1, 0)
        paused = int(sum(b - a for a, b in windows))
        ck.eq(t3r.get("pfc_rx"), 3, "%s: p1 tc.3.pfc_rx" % what)
        ck.eq(t3r.get("paused_ns"), paused, "%s: p1 tc.3.paused_ns = "
              "20000 x 5.12 ns + (T3 - T2)" % what)
        ck.eq((t0r.get("pfc_rx"), t0r.get("paused_ns")), (0, 0),
              "%s: p1 TC0 not paused (class 0 not enabled, its timer "
              "ignored)" % what)
        ck.eq(t3r.get("pfcwd_storms"), 0, "%s: no watchdog storm" % what)
        pr = run.port_rep(1)
        ck.eq(pr.get("seen", {}).get("rx_pfc_frames"), 3,
              "%s: p1 seen.rx_pfc_frames" % what)
        lost0 = n - m.count[f0.dqpn]
        want = {"mac_control": 3}
        if lost0:
            want["egress_queue"] = lost0
        ck.eq(all_drops(pr), want, "%s: p1 drops: the 3 PFC frames "
              "(mac_control) and the TC0 frames missing from the capture "
              "(egress_queue: lossy TC0 at 2x line rate)" % what)
        ck.eq(t0r.get("tail_drops"), lost0, "%s: p1 tc.0.tail_drops = TC0 "
              "frames missing" % what)
        xoff, xon = check_pfc_frames(ck, run, 0, what)
        ck.check(xoff > 0, "%s: TC3 backed up: p0 was sent XOFF" % what)
        # Only p1 sends data; nothing is released without leaving (TC0
        # drops are refused at admission, ECN is off on TC0).
        ck.eq((t3r.get("headroom_admits"), t0r.get("ecn_drop_not_ect"),
               t0r.get("tail_drop_fifo_full")), (0, 0, 0),
              "%s: no buffer headroom, ECN or FIFO drops on p1" % what)
        deps = Departures()
        deps.extend(run.captures[1])
        check_xon_hysteresis(ck, what, 0, pfc_episodes(run.captures[0]),
                             deps)


# ---- watchdog --------------------------------------------------------------

MS = 1000 * US


def storm_case():
    storm_start, period, n_pfc = 1 * MS, 160 * US, 938
    data_off, data_period, n_data = 50 * US, 100 * US, 3500
    tc0_off, n_tc0 = 70 * US, 3500
    f3 = RoceFlow(0, DST, 0x800, 0xC800, paylen=256, dscp=26, ecn=2)
    f0 = RoceFlow(2, DST, 0x802, 0xC802, paylen=256, dscp=0, ecn=2)
    xoff = pfc_frame(NBR_MAC[1], 0x08, [0, 0, 0, 65535, 0, 0, 0, 0])
    inputs = {
        1: [(xoff, VT_EPOCH_NS + storm_start + k * period)
            for k in range(n_pfc)],
        0: [(f3.frame(k), VT_EPOCH_NS + data_off + k * data_period)
            for k in range(n_data)],
        2: [(f0.frame(k), VT_EPOCH_NS + tc0_off + k * data_period)
            for k in range(n_tc0)],
    }
    last_pfc = storm_start + (n_pfc - 1) * period
    arrivals3 = [data_off + k * data_period for k in range(n_data)]
    arrivals0 = [tc0_off + k * data_period for k in range(n_tc0)]
    events = sorted(set(arrivals3 + arrivals0 +
                        [storm_start + k * period for k in range(n_pfc)]))
    return dict(f3=f3, f0=f0, inputs=inputs, start=storm_start,
                last=last_pfc, n_pfc=n_pfc, a3=arrivals3, a0=arrivals0,
                events=events)


def check_watchdog(ck, exe):
    what = "PFC storm on p1"
    c = storm_case()
    det, res = 100 * MS, 100 * MS
    # Detection: the first instant the switch runs at or after first XOFF +
    # detection time (paused throughout: each XOFF lasts 335.5 us and comes
    # 160 us after the last). Here that instant is an XOFF arrival itself.
    detect = c["start"] + det
    ck.check(detect in c["events"], "test setup: an input event falls "
             "exactly at storm start + detection_ms")
    # Restoration: exactly last XOFF + 100 ms (an egress event of its own,
    # even with the stormed queue empty).
    restore = c["last"] + res
    a3 = c["a3"]
    pre = [k for k, t in enumerate(a3) if t < c["start"]]
    dropped = [k for k, t in enumerate(a3) if c["start"] <= t < restore]
    post = [k for k, t in enumerate(a3) if t >= restore]
    pause_ns = int(c["last"] + quanta_ns(65535, GBPS) - c["start"])
    ck.section("%s: %d XOFF c3=65535 every 160 us from %d us; detection at "
               "%d us, restoration at %d us; TC3 frames before/dropped/after:"
               " %d/%d/%d" % (what, c["n_pfc"], c["start"] // US,
                              detect // US, restore // US, len(pre),
                              len(dropped), len(post)))
    run = VRun(exe, c["inputs"], tag="pfc-wd",
               sets=["pfc.detection_ms=100", "pfc.restoration_ms=100"])
    with run.kept_if_failed(ck):
        if not run_ok(ck, run, what):
            return
        f3, f0 = c["f3"], c["f0"]
        cap, m = p1_matched(ck, run, what, [f3, f0],
                            {f3.dqpn: len(a3), f0.dqpn: len(c["a0"])})
        got3 = sorted(m.seen[f3.dqpn])
        ck.eq(got3, pre + post, "%s: TC3 frames that left: those before the "
              "storm and those from restoration on (by PSN)" % what)
        ck.eq(m.count[f0.dqpn], len(c["a0"]),
              "%s: every TC0 frame left (TC0 not stormed)" % what)
        t3 = sorted((t, RoceFlow.key(fr)[1]) for t, fr in cap
                    if RoceFlow.key(fr)[0] == f3.dqpn)
        inside = [x for x in t3 if c["start"] < x[0] < restore]
        ck.eq(inside, [], "%s: no TC3 departure between the storm's start "
              "and restoration" % what)
        after = [x for x in t3 if x[0] >= restore]
        # The first frame after restoration leaves at its arrival (the
        # port idle, TC3 no longer paused).
        ck.check(after and after[0] == (a3[post[0]], post[0]),
                 "%s: first TC3 departure after restoration is PSN %d, "
                 "at its arrival %d ns" % (what, post[0], a3[post[0]]),
                 "got %r" % (after[:1],))
        tc0_in = sum(1 for t in c["a0"] if c["start"] < t < restore)
        tc0_out = sum(1 for t, fr in cap if RoceFlow.key(fr)[0] == f0.dqpn
                      and c["start"] < t < restore)
        ck.check(tc0_out >= tc0_in - 1 and tc0_out > 0,
                 "%s: TC0 departures during the storm (%d) = TC0 arrivals "
                 "(%d)" % (what, tc0_out, tc0_in))
        r3 = run.tc(1, 3)
        ck.eq(r3.get("pfcwd_storms"), 1, "%s: p1 tc.3.pfcwd_storms" % what)
        ck.eq(r3.get("pfcwd_restored"), 1, "%s: p1 tc.3.pfcwd_restored" %
              what)
        ck.eq(r3.get("pfcwd_drops"), len(dropped), "%s: p1 tc.3.pfcwd_drops ="
              " TC3 frames arrived from the storm's start to restoration" %
              what)
        ck.eq(run.port_rep(1).get("drops", {}).get("pfcwd"), len(dropped),
              "%s: p1 drops.pfcwd" % what)
        ck.eq(r3.get("pfc_rx"), c["n_pfc"], "%s: p1 tc.3.pfc_rx" % what)
        ck.eq(r3.get("paused_ns"), pause_ns, "%s: p1 tc.3.paused_ns = last "
              "XOFF + 65535 x 5.12 ns - first XOFF (the pause the peer asked "
              "for)" % what)
        ck.eq(run.tc(1, 0).get("pfcwd_storms"), 0, "%s: TC0 not stormed" %
              what)
        ck.eq(run.port_rep(1).get("seen", {}).get("rx_pfc_frames"),
              c["n_pfc"], "%s: p1 seen.rx_pfc_frames" % what)
    check_watchdog_forward(ck, exe, c, detect, restore, pre)


def check_watchdog_forward(ck, exe, c, detect, restore, pre):
    """action=forward: the stormed TC ignores PFC from the detection on, so
    the frames queued since the storm began leave at the detection instant
    (this pins it down: with action=drop they are flushed unseen)."""
    what = "PFC storm on p1, pfc.action=forward"
    ck.section(what)
    run = VRun(exe, c["inputs"], tag="pfc-wdf",
               sets=["pfc.detection_ms=100", "pfc.restoration_ms=100",
                     "pfc.action=forward"])
    with run.kept_if_failed(ck):
        if not run_ok(ck, run, what):
            return
        f3, f0 = c["f3"], c["f0"]
        cap, m = p1_matched(ck, run, what, [f3, f0],
                            {f3.dqpn: len(c["a3"]), f0.dqpn: len(c["a0"])})
        ck.eq((m.count[f3.dqpn], m.count[f0.dqpn]),
              (len(c["a3"]), len(c["a0"])),
              "%s: every TC3 and TC0 frame leaves" % what)
        t3 = [(t, RoceFlow.key(fr)[1]) for t, fr in cap
              if RoceFlow.key(fr)[0] == f3.dqpn and t > c["start"]]
        ck.check(t3 and t3[0] == (detect, len(pre)),
                 "%s: the first TC3 departure after the storm began is the "
                 "first frame queued in it (PSN %d), at exactly first XOFF + "
                 "detection_ms = %d ns" % (what, len(pre), detect),
                 "got %r" % (t3[:1],))
        r3 = run.tc(1, 3)
        ck.eq((r3.get("pfcwd_storms"), r3.get("pfcwd_restored"),
               r3.get("pfcwd_drops")), (1, 1, 0),
              "%s: p1 tc.3 pfcwd_storms/restored/drops" % what)


# ---- XON hysteresis ------------------------------------------------------

def check_hysteresis(ck, exe):
    """XON only after the ingress use fell pfc_xon_offset_bytes below XOFF:
    p0 at 100G into p1 at 25G (TC3), so p0 is paused again and again."""
    n = 6000
    f = RoceFlow(0, DST, 0x900, 0xC900, paylen=PAYLEN, dscp=26, ecn=2)
    inputs = {0: [(f.frame(k), VT_EPOCH_NS) for k in range(n)]}
    for sets, offset, alpha, what in (
            (["tc.3.pfc_xon_offset_bytes=500000"], 500000, 1.0,
             "dynamic XOFF (alpha 1 x free), XON offset 500000"),
            (["tc.3.pfc_xoff_bytes=600000",
              "tc.3.pfc_xon_offset_bytes=300000"], 300000, 0.0,
             "static XOFF 600000, XON offset 300000")):
        ck.section("XON hysteresis: %s" % what)
        run = VRun(exe, inputs, sets=["port.p1.speed_gbps=25"] + sets,
                   tag="pfc-hyst")
        with run.kept_if_failed(ck):
            if not run_ok(ck, run, what):
                continue
            ck.eq(run.tc(1, 3).get("headroom_admits"), 0,
                  "%s: no buffer headroom in use" % what)
            # Static: XOFF at use >= 600000, XON at use <= 300000 and only
            # p0's bytes are buffered: 300000 bytes must leave (alpha 0 in
            # the bound check_xon_hysteresis takes gives exactly that).
            check_paused_again(ck, run, what, f, n, offset, alpha)


def check_paused_again(ck, run, what, f, n, offset, alpha):
    """p0's flow f (n frames) into a slower p1: every frame leaves, p0 is
    paused and resumed again and again by PFC frames tshark decodes, and
    each pause lets the XON hysteresis (offset, alpha) drain first."""
    m = roce_match(ck, what, [f], 1, run.captures[1], {f.dqpn: n})
    ck.eq(m.count[f.dqpn], n, "%s: every frame forwarded" % what)
    eps = pfc_episodes(run.captures[0])
    ck.check(len(eps) >= 3, "%s: p0 paused and resumed %d times" %
             (what, len(eps)))
    check_pfc_frames(ck, run, 0, what)
    deps = Departures()
    deps.extend(run.captures[1])
    check_xon_hysteresis(ck, what, 0, eps, deps, offset=offset, alpha=alpha)


# ---- a small mbuf pool ---------------------------------------------------

def check_small_pool(ck, exe):
    """--set general.mbufs=1024 (the smallest pool allowed) under a lossless
    incast: fewer mbufs than the buffer could hold. Whatever the switch does
    when the pool runs dry, no input frame may vanish: rx_packets must equal
    the frames in each pcap, and (TC3 being lossless) every frame must leave
    on p1 or be counted in a drop reason."""
    what = "lossless incast with general.mbufs=1024"
    ck.section(what)
    n = 3000
    flows = [RoceFlow(p, DST, 0xA00 + p, 0xCA00 + p, paylen=232, dscp=26,
                      ecn=2) for p in (0, 2, 3)]
    inputs = {f.port: [(f.frame(k), VT_EPOCH_NS) for k in range(n)]
              for f in flows}
    run = VRun(exe, inputs, sets=["general.mbufs=1024"], tag="pfc-pool")
    with run.kept_if_failed(ck):
        if not run_ok(ck, run, what):
            return
        for f in flows:
            ck.eq(run.port_rep(f.port).get("rx_packets"), n,
                  "%s: %s rx_packets = frames in its pcap (none lost "
                  "uncounted)" % (what, PORT_NAMES[f.port]))
        m = roce_match(ck, what, flows, 1, run.captures[1],
                       {f.dqpn: n for f in flows})
        dropped = sum(sum(run.port_rep(p).get("drops", {}).values())
                      for p in range(N_PORTS))
        ck.eq(sum(m.count.values()) + dropped, 3 * n,
              "%s: frames out on p1 + frames counted as dropped = frames "
              "sent" % what)

def check_long_pause(ck, exe):
    what = "PFC pause of 4.5 s on p1 at 10G"
    ck.section(what)
    period, span = 3000 * US, 4500000 * US
    xoff = pfc_frame(NBR_MAC[1], 0x08, [0, 0, 0, 65535, 0, 0, 0, 0])
    times = list(range(0, span + 1, period))
    pause = quanta_ns(65535, 10)                 # 3355392 ns at 10G
    assert pause > period
    run = VRun(exe, {1: [(xoff, VT_EPOCH_NS + t) for t in times]},
               sets=["port.p1.speed_gbps=10", "pfc.watchdog=false"],
               tag="pfc-long")
    with run.kept_if_failed(ck):
        if not run_ok(ck, run, what):
            return
        t3 = run.tc(1, 3)
        lo, hi = times[-1] - times[0], times[-1] - times[0] + pause
        got = t3.get("paused_ns")
        print("%s: paused_ns %s, want %d..%d (2^32 = %d)" %
              (what, got, lo, hi, 1 << 32))
        ck.eq(t3.get("pfc_rx"), len(times), "%s: p1 tc.3.pfc_rx" % what)
        ck.check(isinstance(got, int) and lo <= got <= hi,
                 "%s: p1 tc.3.paused_ns in [last - first XOFF, + one pause "
                 "of %d ns] (64-bit: no wrap at 2^32 ns)" % (what, pause),
                 repr(got))
        ck.check(lo > 1 << 32, "%s: the case pauses longer than 2^32 ns"
                 % what)

def check_headroom_short(ck, exe):
    import re
    what = "PFC headroom 1024 bytes"
    ck.section(what)
    n = 3000
    flows = [RoceFlow(port, DST, 0x720 + port, 0xC720 + port, paylen=PAYLEN,
                      dscp=26, ecn=2) for port in (0, 2)]
    inputs = {f.port: [(f.frame(k), VT_EPOCH_NS) for k in range(n)]
              for f in flows}
    run = VRun(exe, inputs, sets=["tc.3.pfc_headroom_bytes=1024"],
               tag="pfc-hr")
    with run.kept_if_failed(ck):
        if not run_ok(ck, run, what):
            return
        lines = [ln for ln in run.stderr.splitlines()
                 if "headroom_overflow" in ln]
        print("%s: stderr lines:\n  %s" % (what, "\n  ".join(lines)))
        total = 0
        for port in range(N_PORTS):
            got = run.tc(port, 3).get("headroom_overflow", 0)
            total += got
            pat = re.compile(r"^WARNING: switch: port %s TC 3 \(802\.1p "
                             r"priorities 0x08\): headroom_overflow = "
                             r"(\d+): .*headroom is misconfigured" %
                             PORT_NAMES[port])
            mine = [int(m.group(1)) for m in map(pat.match, lines) if m]
            ck.eq(mine, [got] if got else [],
                  "%s: %s: one stderr warning with the report's "
                  "headroom_overflow (%d), none if 0" %
                  (what, PORT_NAMES[port], got))
        ck.check(total > 0, "%s: some lossless frames overflowed the "
                 "headroom (the case exercises the warning)" % what)
        ck.eq(len(lines), sum(1 for port in range(N_PORTS)
                              if run.tc(port, 3).get("headroom_overflow")),
              "%s: no other headroom_overflow line" % what)

def check_mixed(ck, exe):
    what = "lossy TC0 and lossless TC3 into p1"
    ck.section(what)
    n = 6000
    # Frames of equal arrival time enter in port order: the lossy ones
    # first, so they take what a departure frees and TC3 finds it full.
    f3 = RoceFlow(3, DST, 0x743, 0xC743, paylen=PAYLEN, dscp=26, ecn=2)
    f0 = [RoceFlow(port, DST, 0x740 + port, 0xC740 + port, paylen=PAYLEN,
                   dscp=0, ecn=2) for port in (0, 2)]
    flows = [f3] + f0
    inputs = {f.port: [(f.frame(k), VT_EPOCH_NS) for k in range(n)]
              for f in flows}
    # A static XOFF the TC3 queue never reaches: only the full shared
    # pool (TC0 filled it) can make TC3 spill into its headroom and pause.
    run = VRun(exe, inputs, sets=["qos.limit_mode=static",
                                  "tc.3.pfc_xoff_bytes=4000000"],
               tag="pfc-mixed")
    with run.kept_if_failed(ck):
        if not run_ok(ck, run, what):
            return
        m = roce_match(ck, what, flows, 1, run.captures[1],
                       {f.dqpn: n for f in flows})
        t3, t0 = run.tc(1, 3), run.tc(1, 0)
        print("%s: out TC3 %d, TC0 %d of %d each; p1 tc.0 %r; p1 tc.3 %r" %
              (what, m.count[f3.dqpn], sum(m.count[f.dqpn] for f in f0), n,
               t0, t3))
        ck.eq(m.count[f3.dqpn], n, "%s: every lossless TC3 frame leaves"
              % what)
        ck.eq(t3.get("tail_drops"), 0, "%s: p1 tc.3.tail_drops" % what)
        lost0 = 2 * n - sum(m.count[f.dqpn] for f in f0)
        ck.check(lost0 > 0, "%s: lossy TC0 at 2x line rate drops" % what)
        ck.eq(t0.get("tail_drops"), lost0, "%s: p1 tc.0.tail_drops = TC0 "
              "frames missing" % what)
        ck.check(t0.get("tail_drop_buffer_full", 0) > 0,
                 "%s: TC0 filled the shared pool (tail_drop_buffer_full > "
                 "0)" % what, repr(t0))
        ck.check(t3.get("headroom_admits", 0) > 0,
                 "%s: TC3 used the headroom reserve (headroom_admits > 0)"
                 % what, repr(t3))
        for port in range(N_PORTS):
            ck.eq(run.tc(port, 3).get("headroom_overflow"), 0,
                  "%s: %s tc.3.headroom_overflow" % (what, PORT_NAMES[port]))
        xoff, _xon = check_pfc_frames(ck, run, 3, what)
        ck.check(xoff > 0, "%s: p3 was sent XOFF" % what)

def check_prio_map(ck, exe):
    what = "pcp_to_tc 3<->5"
    ck.section("%s: PFC priorities through the priority -> TC map" % what)
    n = 6000
    f3 = RoceFlow(0, DST, 0x760, 0xC760, paylen=PAYLEN, dscp=26, ecn=2)
    f0 = RoceFlow(2, DST, 0x762, 0xC762, paylen=PAYLEN, dscp=0, ecn=2)
    t1, q1, t2 = 50 * US, 20000, 200 * US
    pfc = [(pfc_frame(NBR_MAC[1], 0x20, [0, 0, 0, 0, 0, q1, 0, 0]), t1),
           (pfc_frame(NBR_MAC[1], 0x08, [0, 0, 0, 65535, 0, 0, 0, 0]), t2)]
    inputs = {0: [(f3.frame(k), VT_EPOCH_NS) for k in range(n)],
              2: [(f0.frame(k), VT_EPOCH_NS) for k in range(n)],
              1: [(fr, VT_EPOCH_NS + t) for fr, t in pfc]}
    run = VRun(exe, inputs, sets=["qos.pcp_to_tc=0:0,1:1,2:2,3:5,4:4,5:3,"
                                  "6:6,7:7"], tag="pfc-map")
    with run.kept_if_failed(ck):
        if not run_ok(ck, run, what):
            return
        cap, m = p1_matched(ck, run, what, [f3, f0], {f3.dqpn: n, f0.dqpn: n})
        ck.eq(m.count[f3.dqpn], n, "%s: every TC3 frame forwarded" % what)
        tc3 = [t for t, fr in cap if RoceFlow.key(fr)[0] == f3.dqpn]
        end1 = t1 + quanta_ns(q1, GBPS)
        inside = [t for t in tc3 if t1 < t < end1]
        ck.eq(inside, [], "%s: priority 5 XOFF stops TC3 from %d to %.0f ns"
              % (what, t1, end1))
        ck.check(any(t < t1 for t in tc3) and any(t >= end1 for t in tc3),
                 "%s: TC3 departs before and after that pause" % what)
        end2 = t2 + quanta_ns(65535, GBPS)
        n2 = sum(1 for t in tc3 if t2 < t < end2)
        ck.check(n2 > 100, "%s: priority 3 XOFF does not stop TC3: %d TC3 "
                 "departures in %d..%.0f ns" % (what, n2, t2, end2))
        r5, r3 = run.tc(1, 5), run.tc(1, 3)
        ck.eq((r5.get("pfc_rx"), r5.get("paused_ns")),
              (1, int(quanta_ns(q1, GBPS))),
              "%s: p1 priority 5: pfc_rx 1, paused_ns 20000 x 5.12" % what)
        ck.eq((r3.get("pfc_rx"), r3.get("paused_ns")),
              (1, int(quanta_ns(65535, GBPS))),
              "%s: p1 priority 3: pfc_rx 1, paused_ns 65535 x 5.12 (floor)"
              % what)
        rows = tshark_fields(run.cap_path(0), PFC_FIELDS)
        xoff = xon = 0
        bad = []
        for r in rows:
            ok = (r["frame.len"] == "60" and r["macc.opcode"] == "0x0101"
                  and r["eth.dst"] == "01:80:c2:00:00:01"
                  and r["macc.cbfc.enbv"] == "0x0020"
                  and all(r["macc.cbfc.pause_time.c%d" % c] == "0"
                          for c in range(8) if c != 5))
            c5 = r["macc.cbfc.pause_time.c5"]
            if ok and c5 == "65535":
                xoff += 1
            elif ok and c5 == "0":
                xon += 1
            else:
                bad.append(r)
        ck.check(rows and not bad, "%s: tshark: every PFC frame sent on p0 "
                 "(%d) enables priority 5 only (enbv 0x0020), c5 65535 or 0"
                 % (what, len(rows)), repr(bad[:2]) if bad else "no frames")
        ck.check(xoff > 0, "%s: p0 was sent XOFF (TC3 backs up)" % what)
        t0r = run.tc(0, 3)
        ck.eq((xoff, xon), (t0r.get("pfc_xoff_sent"), t0r.get("pfc_xon_sent")),
              "%s: tshark XOFF/XON = p0 tc.3 pfc_xoff_sent/xon_sent (per TC)"
              % what)

def check_hw_offload(ck, exe):
    import re
    what = "[pfc] hw_offload on net_pcap"
    ck.section(what)
    _f3, _f0, _n, inputs, windows = pause_case()
    run = VRun(exe, inputs, sets=["pfc.hw_offload=true"], tag="pfc-hw")
    with run.kept_if_failed(ck):
        if not run_ok(ck, run, what):
            return
        for port in range(N_PORTS):
            pat = re.compile(r"^port %s \(net_pcap%d\): \[pfc\] hw_offload: "
                             r"the NIC does not take PFC for priority 3 "
                             r"\(.+\); PFC stays in software$" %
                             (PORT_NAMES[port], port))
            got = [ln for ln in run.stdout.splitlines() if pat.match(ln)]
            ck.eq(len(got), 1, "%s: %s: one line: no NIC PFC, software "
                  "PFC" % (what, PORT_NAMES[port]))
        paused = int(sum(b - a for a, b in windows))
        ck.eq(run.tc(1, 3).get("paused_ns"), paused, "%s: software PFC "
              "still honours the pauses (p1 tc.3.paused_ns)" % what)
        ck.check(run.tc(0, 3).get("pfc_xoff_sent", 0) > 0,
                 "%s: software PFC still sends XOFF to p0" % what)

def check_port_keys(ck, exe):
    n = 6000
    f = RoceFlow(0, DST, 0x780, 0xC780, paylen=PAYLEN, dscp=26, ecn=2)
    inputs = {0: [(f.frame(k), VT_EPOCH_NS) for k in range(n)]}
    base = ["port.p1.speed_gbps=25", "tc.3.pfc_xoff_bytes=100000"]
    what = "[port.p0] XOFF 600000, absolute XON 200000"
    ck.section(what)
    run = VRun(exe, inputs, sets=base + ["port.p0.pfc_xoff_bytes=600000",
                                         "port.p0.pfc_xon_bytes=200000"],
               tag="pfc-port")
    with run.kept_if_failed(ck):
        if run_ok(ck, run, what):
            # XOFF at use >= 600000, XON at use <= 200000, only p0's bytes
            # are buffered: 400000 bytes leave in between (alpha 0).
            check_paused_again(ck, run, what, f, n, 400000, 0.0)

    what = "[port.p0] pfc = false"
    ck.section(what)
    run = VRun(exe, inputs, sets=base + ["port.p0.pfc=false"],
               tag="pfc-port-off")
    with run.kept_if_failed(ck):
        if run_ok(ck, run, what):
            m = roce_match(ck, what, [f], 1, run.captures[1], {f.dqpn: n})
            t3 = run.tc(1, 3)
            lost = n - m.count[f.dqpn]
            ck.eq(run.port_rep(0).get("tx_packets"), 0,
                  "%s: p0 is sent no PFC frame" % what)
            ck.eq(run.tc(0, 3).get("pfc_xoff_sent"), 0,
                  "%s: p0 tc.3.pfc_xoff_sent" % what)
            ck.check(lost > 0, "%s: TC3 from p0 at 4x the egress drops "
                     "(%d)" % (what, lost))
            ck.eq(t3.get("tail_drops"), lost, "%s: p1 tc.3.tail_drops = "
                  "frames missing" % what)
            ck.eq(t3.get("headroom_admits"), 0, "%s: no headroom reserve "
                  "lent to a port without PFC" % what)


SCENARIOS = {"incast": check_incast, "pause": check_pause,
             "port_keys": check_port_keys,
             "hw_offload": check_hw_offload,
             "prio_map": check_prio_map,
             "mixed": check_mixed,
             "headroom_short": check_headroom_short,
             "long_pause": check_long_pause,
             "watchdog": check_watchdog, "hysteresis": check_hysteresis,
             "small_pool": check_small_pool}


# ---- two workers -----------------------------------------------------------

MW_LCORES = "0@0,1@1,2@1"   # main + two switch workers on 2 CPUs


class MRun(Run):
    """A real-time run with two switch workers (EAL --lcores: lcores 1 and
    2 share CPU 1, so it runs on a 2-core machine): every port has two TX
    queues (two tx_pcap=/dev/null: TX queue w is worker w's) and as many RX
    queues as `rx[port]` lists pcaps (queue q is polled by worker q % 2);
    --capture writes tx_<port>_q<w>.pcap per worker, stamped with the
    departure TSC in ns (one clock for both workers). Virtual time is not
    used: each worker's virtual clock follows only its own inputs, so a
    pause published by one worker would be judged against another's
    unrelated clock."""

    def __init__(self, exe, rx, sets=(), tag="mw"):
        super().__init__(exe, [[] for _ in range(N_PORTS)], tag=tag,
                         tx_null=True)
        self.rx = rx                      # port -> [[frames of queue q]]
        self.cap_dir = self.path("cap")
        # every input fits in the pool: arrivals are never held back
        self.app_args = ["--capture", self.cap_dir,
                         "--set", "general.mbufs=8192"]
        for x in sets:
            self.app_args += ["--set", x]
        self.captures = None

    def command(self, mem_mb=1024, eal_extra=("--lcores", MW_LCORES)):
        return Run.command(self, mem_mb, eal_extra)

    def vdev(self, i):
        qs = self.rx.get(i) or [[]]
        spec = "net_pcap%d" % i
        for q in range(len(qs)):
            spec += ",rx_pcap=%s" % self.path("in%d_%d.pcap" % (i, q))
        return spec + ",tx_pcap=/dev/null,tx_pcap=/dev/null"

    def prepare(self):
        for i in range(N_PORTS):
            for q, frames in enumerate(self.rx.get(i) or [[]]):
                write_pcap_timed(self.path("in%d_%d.pcap" % (i, q)),
                                 [(fr, VT_EPOCH_NS) for fr in frames])

    def cap(self, port, w):
        return read_pcap_ns(os.path.join(
            self.cap_dir, "tx_%s_q%d.pcap" % (PORT_NAMES[port], w))) or []

    def _collect(self):
        VRun._collect(self)    # report only (self.load is not set)

    tc = VRun.tc
    port_rep = VRun.port_rep
    load = False


def scapy_pfc(src_mac, enable, quanta):
    """A PFC frame built by scapy (MAC Control, class-based flow control),
    padded to 60 bytes; must equal PROTOCOLS.md's layout (pfc_frame)."""
    from scapy.all import Ether
    from scapy.contrib.mac_control import MACControlClassBasedFlowControl
    kw = {"c%d_enabled" % i: (enable >> i) & 1 for i in range(8)}
    kw.update({"c%d_pause_time" % i: quanta[i] for i in range(8)})
    fr = bytes(Ether(src=src_mac, dst="01:80:c2:00:00:01", type=0x8808) /
               MACControlClassBasedFlowControl(**kw))
    return fr + bytes(max(0, 60 - len(fr)))


def gaps(times, start):
    """[(a, b)]: the intervals between consecutive `times`, the first
    from `start`."""
    t = [start] + sorted(times)
    return [(t[i], t[i + 1]) for i in range(len(t) - 1)]


def check_mw_pause(ck, exe):
    """Two workers: XOFF c3 = 65535 (335.5 ms at 100 Mb/s) arrives on p1's
    only RX queue, worker 0's. p0 has two RX queues, one per worker, each
    with TC3 (DSCP 26) and TC0 frames for p1: TC3 must stop on BOTH
    workers' TX queues of p1 for one common window of about the pause,
    while TC0 of both keeps leaving inside it."""
    what = "2 workers, PFC received by worker 0"
    gbps, n = 0.1, 300
    pause_ns = quanta_ns(65535, gbps)
    flows = {}
    rx0 = []
    for w in range(2):
        f3 = RoceFlow(0, DST, 0x900 + w, 0xC900 + w, paylen=944, dscp=26,
                      ecn=0)
        f0 = RoceFlow(0, DST, 0x910 + w, 0xC910 + w, paylen=944, dscp=0,
                      ecn=0)
        flows[w] = (f3, f0)
        q = []
        for k in range(n):
            q += [f3.frame(k), f0.frame(k)]
        rx0.append(q)
    xoff = scapy_pfc(NBR_MAC[1], 0x08, [0, 0, 0, 65535, 0, 0, 0, 0])
    ck.eq(xoff, pfc_frame(NBR_MAC[1], 0x08, [0, 0, 0, 65535, 0, 0, 0, 0]),
          "%s: scapy's PFC frame = PROTOCOLS.md's layout" % what)
    ck.section("%s: TC3 + TC0 from both workers into p1 (%g Gb/s); "
               "pause %.1f ms" % (what, gbps, pause_ns / 1e6))
    run = MRun(exe, {0: rx0, 1: [[xoff]]}, tag="pfc-mw-pause", sets=[
        "port.p1.speed_gbps=%g" % gbps, "tc.3.lossless=false",
        "tc.3.ecn=false", "qos.buffer_bytes=8388608",
        "qos.limit_mode=static"])
    with run.kept_if_failed(ck):
        if not run_ok(ck, run, what, timeout=120):
            return
        win = []
        for w in range(2):
            f3, f0 = flows[w]
            cap = run.cap(1, w)
            t3 = [t for t, fr in cap if RoceFlow.key(fr)[0] == f3.dqpn]
            t0 = [t for t, fr in cap if RoceFlow.key(fr)[0] == f0.dqpn]
            others = [fr for t, fr in cap
                      if RoceFlow.key(fr)[0] not in (f3.dqpn, f0.dqpn)]
            ck.eq((len(t3), len(t0), len(others)), (n, n, 0),
                  "%s: worker %d's TX queue of p1 carries its %d TC3 and "
                  "%d TC0 frames, nothing else" % (what, w, n, n))
            if not t3 or not t0:
                return
            start = min(t3[0], t0[0])
            a, b = max(gaps(t3, start), key=lambda g: g[1] - g[0])
            inside0 = sum(1 for t in t0 if a < t < b)
            ck.check(b - a >= 0.8 * pause_ns and inside0 >= 10,
                     "%s: worker %d: TC3 stops for >= 0.8 x %.1f ms while "
                     ">= 10 of its TC0 frames leave (paused by a frame "
                     "another worker may have parsed)" %
                     (what, w, pause_ns / 1e6),
                     "longest TC3 gap %.1f ms, TC0 inside %d" %
                     ((b - a) / 1e6, inside0))
            win.append((a, b))
        lo, hi = max(a for a, _ in win), min(b for _, b in win)
        ck.check(hi - lo >= 0.8 * pause_ns,
                 "%s: both workers' TC3 gaps share >= 0.8 x the pause "
                 "(one pause for the port)" % what,
                 "common %.1f ms" % ((hi - lo) / 1e6))
        t3r = run.tc(1, 3)
        ck.eq(t3r.get("pfc_rx"), 1, "%s: p1 tc.3.pfc_rx counted once" % what)
        ck.eq(t3r.get("paused_ns"), int(pause_ns), "%s: p1 tc.3.paused_ns = "
              "65535 x 512 / 100 Mb/s, counted once for the port" % what)
        ck.eq(run.tc(1, 0).get("paused_ns"), 0, "%s: p1 TC0 not paused" %
              what)
        ck.eq(all_drops(run.port_rep(1)), {"mac_control": 1},
              "%s: p1 drops: only the PFC frame (mac_control)" % what)


def check_mw_xon(ck, exe):
    """Two workers, lossless TC3 from p0 into p1 (10 Mb/s: 5 Mb/s per
    worker, a 1600-byte shaper bucket so that a shard cannot leave before
    it has all arrived): worker 0's shard is 80 frames, worker 1's 200
    (~1 kB each), XOFF 80000 / XON 40000 / headroom 400000 bytes (per
    worker: half). Both shards cross XOFF (each worker sends XOFF); worker
    0's falls to XON ~190 ms before worker 1's. The peer (p0) must get XON only once every shard is at
    XON: at each XON's departure stamp + 20 ms (slack for a stamp taken
    before the worker's last check), every worker's shard, bytes it
    admitted minus bytes it sent, is at most its XON (20000). Nothing is
    dropped."""
    what = "2 workers, lossless incast shards"
    gbps, paylen = 0.01, 944
    shards = (80, 200)
    xon_w = 20000
    rx0, flows = [], []
    for w in range(2):
        f = RoceFlow(0, DST, 0xA00 + w, 0xCA00 + w, paylen=paylen, dscp=26,
                     ecn=0)
        flows.append(f)
        rx0.append([f.frame(k) for k in range(shards[w])])
    ck.section("%s: %s frames of %d bytes into p1 at %g Gb/s" %
               (what, shards, flows[0].len, gbps))
    run = MRun(exe, {0: rx0}, tag="pfc-mw-xon", sets=[
        "port.p1.speed_gbps=%g" % gbps, "port.p0.speed_gbps=1",
        "tc.3.ecn=false", "tc.3.pfc_xoff_bytes=80000",
        "tc.3.pfc_xon_bytes=40000", "tc.3.pfc_headroom_bytes=400000",
        "qos.buffer_bytes=8388608", "qos.shaper_burst_bytes=1600"])
    with run.kept_if_failed(ck):
        if not run_ok(ck, run, what, timeout=120):
            return
        dep = []
        for w in range(2):
            cap = run.cap(1, w)
            mine = [(t, len(fr)) for t, fr in cap
                    if RoceFlow.key(fr)[0] == flows[w].dqpn]
            ck.eq((len(mine), len(cap)), (shards[w], shards[w]),
                  "%s: worker %d's TX queue of p1 carries its whole shard "
                  "(every lossless frame forwarded)" % (what, w))
            dep.append(sorted(mine))
        total = [shards[w] * flows[w].len for w in range(2)]
        # PFC out of p0, decoded by tshark, stamped from the capture.
        pfc, bad = [], []
        for w in range(2):
            path = os.path.join(run.cap_dir, "tx_p0_q%d.pcap" % w)
            rows = tshark_fields(path, PFC_FIELDS)
            for (t, _fr), r in zip(run.cap(0, w), rows):
                c3 = r["macc.cbfc.pause_time.c3"]
                if (r["macc.opcode"] == "0x0101" and
                        r["macc.cbfc.enbv"] == "0x0008" and
                        r["eth.src"] == PORT_MAC[0] and
                        c3 in ("65535", "0")):
                    pfc.append((t, w, "N" if c3 == "0" else "F"))
                else:
                    bad.append(r)
            ck.eq(len(rows), len(run.cap(0, w)), "%s: tshark reads every "
                  "frame of tx_p0_q%d.pcap" % (what, w))
        ck.eq(bad, [], "%s: every frame out of p0 is PFC for priority 3 "
              "(tshark: opcode 0x0101, enbv 0x0008, c3 65535 or 0)" % what)
        pfc.sort()
        seq = "".join(k for _t, _w, k in pfc)
        xons = [(t, w) for t, w, k in pfc if k == "N"]
        ck.check(seq.startswith("F") and
                 {w for _t, w, k in pfc if k == "F"} == {0, 1},
                 "%s: p0 is sent XOFF first, by both workers (both shards "
                 "crossed XOFF)" % what, "%s %s" % (seq, [w for _t, w, _k
                                                       in pfc]))
        ck.eq(len(xons), 1, "%s: exactly one XON (sent when the last "
              "shard fell to XON; the first shard's fall sends none)" % what)
        slack = 20 * 10**6
        for t, w in xons:
            left = [total[v] - sum(ln for td, ln in dep[v] if td <= t + slack)
                    for v in range(2)]
            ck.check(all(x <= xon_w for x in left),
                     "%s: XON at %.1f ms (worker %d): every shard at or "
                     "below its XON (%d bytes) by then" %
                     (what, (t - pfc[0][0]) / 1e6, w, xon_w),
                     "shards still buffered: %s" % left)
        ck.check(pfc and pfc[-1][2] == "N", "%s: the XON is the last PFC "
                 "frame (no shard above XOFF after it)" % what, seq[-10:])
        for port in range(N_PORTS):
            ck.eq(all_drops(run.port_rep(port)), {},
                  "%s: %s: no drops" % (what, PORT_NAMES[port]))
        t3 = run.tc(0, 3)
        ck.eq((t3.get("pfc_xoff_sent"), t3.get("pfc_xon_sent"),
               t3.get("headroom_overflow")),
              (seq.count("F"), seq.count("N"), 0),
              "%s: p0 tc.3 pfc_xoff_sent / pfc_xon_sent = frames captured, "
              "headroom_overflow 0" % what)


def check_multi_worker(ck, exe):
    check_mw_pause(ck, exe)
    check_mw_xon(ck, exe)


SCENARIOS["multi_worker"] = check_multi_worker


def main():
    run_scenarios("test_pfc", SCENARIOS)


if __name__ == "__main__":
    main()
