#!/usr/bin/python3
# SPDX-License-Identifier: BSD-3-Clause
"""ECMP over pcap-leaf's default routes (0.0.0.0/0 and ::/0 over p2 and p3).

Usage: test_ecmp.py PATH/TO/dpdk-aifab

Many RoCEv2 flows (one QP each: UDP source port from the QP numbers as
Linux derives it, PROTOCOLS.md) from both downlinks to off-leaf IPv4 and
IPv6 destinations, a few frames per flow, in virtual time at low load (no
queueing) with --capture. For each run:

* every frame leaves exactly once, on an uplink, byte-identical to its
  input but for the router rewrite (MACs, TTL / hop limit, IPv4 checksum
  recomputed with scapy's checksum()); nothing leaves on the downlinks;
* every flow leaves on exactly one uplink, and both uplinks carry flows;
* ecmp.<route>.members.<"p2 via ...">.{packets,bytes} equal what the
  capture shows on that port, and ecmp.<route>.imbalance equals
  max(member bytes) / mean(member bytes) computed from the capture.

Runs: the defaults (crc32c, seed 0, sip,dip,proto,sport,dport);
--set ecmp.seed=2654435761 (a different, still consistent split); and
--set ecmp.fields=sip,dip (every flow of one source/destination pair takes
one path, while the default run spreads the flows of each pair).

Usage: test_ecmp.py PATH/TO/dpdk-aifab link_down

An uplink's link goes down and comes back ([port.p2] fault_tx_down_at_us /
_for_us): judged from the capture's virtual departure stamps and each
output's (QP, PSN) -> input time: nothing leaves p2 inside the window;
flows on p3 never move; p2's flows go to p3 while it is down and return
after; nothing is lost but frames in flight at an edge (= p2's
drops.link_down); the report's down_events / remaps. Resilient and plain
groups (with two members both re-hash alike). Then both members down at
once (p3 inside p2's window): a frame that arrives then has no member and
is dropped at ingress (drops.ecmp_no_member), never sent nor counted to
a member; every frame is sent or counted as dropped.
"""
import struct
import sys

from lib_aifab import (N_PORTS, NBR_IP6, NBR_MAC, PORT_MAC,
                       PORT_NAMES, UPLINKS, VT_EPOCH_NS, Checks, RoceFlow,
                       RoceMatch, VRun, exe_path, icrc_zlib, linux_sport,
                       mac_bytes, run_ok, tshark_fields)

FAR4 = ["172.16.5.9", "172.16.7.3", "192.168.100.20", "198.51.100.7"]
FAR6 = ["2001:db8::5", "2001:db8:1::7"]
SRC_PORTS = (0, 1)
FLOWS_PER_PAIR4 = 24
FLOWS_PER_PAIR6 = 12
FRAMES_PER_FLOW = 4
SPACING_NS = 1000      # one frame per microsecond per input: no queueing

ROUTE4, ROUTE6 = "0.0.0.0/0", "::/0"
MEMBERS4 = {2: "p2 via 10.0.2.2", 3: "p3 via 10.0.3.2"}
MEMBERS6 = {2: "p2 via fd00:0:0:2::2", 3: "p3 via fd00:0:0:3::2"}


def ip6_bytes(a):
    import socket
    return socket.inet_pton(socket.AF_INET6, a)


class RoceFlow6:
    """IPv6 RoCEv2 flow: struct-built headers (fixed flow label), ICRC by
    zlib per PROTOCOLS.md (lib_aifab.icrc_zlib)."""

    def __init__(self, port, src, dst, dqpn, sport, paylen=128, tc=0x6a,
                 flow_label=0):
        self.port, self.src, self.dst = port, src, dst
        self.dqpn, self.sport = dqpn, sport
        plen = 8 + 12 + paylen + 4
        self.l2 = mac_bytes(PORT_MAC[port]) + mac_bytes(NBR_MAC[port]) + \
            b"\x86\xdd"
        self.ip = struct.pack("!IHBB", 6 << 28 | tc << 20 | flow_label,
                              plen, 17, 64) + ip6_bytes(src) + ip6_bytes(dst)
        self.udp = struct.pack("!HHHH", sport, 4791, plen, 0)
        self.paylen = paylen

    def frame(self, psn):
        bth = struct.pack("!BBHI", 0x07, 0, 0xffff, self.dqpn & 0xffffff) + \
            struct.pack("!I", psn & 0xffffff)
        b = self.l2 + self.ip + self.udp + bth + \
            bytes((psn + i) & 0xff for i in range(self.paylen)) + bytes(4)
        return b[:-4] + icrc_zlib(b, 14)

    def routed(self, psn, egress):
        b = bytearray(self.frame(psn))
        b[0:6] = mac_bytes(NBR_MAC[egress])
        b[6:12] = mac_bytes(PORT_MAC[egress])
        b[14 + 7] -= 1
        return bytes(b)

    @staticmethod
    def key(frame):
        return (int.from_bytes(frame[67:70], "big"),
                int.from_bytes(frame[71:74], "big"))


def build():
    """Flows and per-port timed inputs. Returns (flows4, flows6, inputs,
    pair_of: dqpn -> (src, dst))."""
    flows4, flows6, pair_of = [], [], {}
    per_port = {p: [] for p in SRC_PORTS}
    q = 0x1000
    for p in SRC_PORTS:
        for dst in FAR4:
            for k in range(FLOWS_PER_PAIR4):
                q += 1
                f = RoceFlow(p, dst, q, linux_sport(0x11 + k, q),
                             paylen=128)
                flows4.append(f)
                pair_of[q] = (f.src, dst)
                per_port[p].append(f)
        for dst in FAR6:
            for k in range(FLOWS_PER_PAIR6):
                q += 1
                f = RoceFlow6(p, NBR_IP6[p], dst, q, linux_sport(0x51 + k, q),
                              flow_label=q & 0xfffff)
                flows6.append(f)
                pair_of[q] = (NBR_IP6[p], dst)
                per_port[p].append(f)
    inputs = {}
    for p, fl in per_port.items():
        lst, t = [], VT_EPOCH_NS
        for psn in range(FRAMES_PER_FLOW):
            for f in fl:
                lst.append((f.frame(psn), t))
                t += SPACING_NS
        inputs[p] = lst
    return flows4, flows6, inputs, pair_of


def judge(ck, run, flows4, flows6, what, both_used=True):
    """Checks of one run; returns dqpn -> egress port (or None)."""
    caps = run.captures
    if not all(ck.check(caps[p] is not None, "%s: tx_%s.pcap written" %
                        (what, PORT_NAMES[p])) for p in range(N_PORTS)):
        return None
    for p in SRC_PORTS:
        ck.eq(len(caps[p]), 0, "%s: nothing leaves on downlink %s" %
              (what, PORT_NAMES[p]))
    m4 = RoceMatch(flows4)
    f6 = {f.dqpn: f for f in flows6}
    seen6, bad6, ports6 = {}, [], {}
    stats = {ROUTE4: {2: [0, 0], 3: [0, 0]}, ROUTE6: {2: [0, 0], 3: [0, 0]}}
    for e in UPLINKS:
        v4 = [fr for _t, fr in caps[e] if fr[12:14] == b"\x08\x00"]
        v6 = [fr for _t, fr in caps[e] if fr[12:14] == b"\x86\xdd"]
        other = len(caps[e]) - len(v4) - len(v6)
        ck.eq(other, 0, "%s: only IPv4/IPv6 frames on %s" %
              (what, PORT_NAMES[e]))
        m4.add_port(e, v4, {f.dqpn: FRAMES_PER_FLOW for f in flows4})
        for fr in v6:
            q, psn = RoceFlow6.key(fr)
            f = f6.get(q)
            if f is None or psn >= FRAMES_PER_FLOW or (q, psn) in seen6:
                bad6.append("%s: unknown or repeated IPv6 QP %#x PSN %d" %
                            (PORT_NAMES[e], q, psn))
                continue
            seen6[(q, psn)] = e
            ports6.setdefault(q, set()).add(e)
            if fr != f.routed(psn, e):
                bad6.append("%s: IPv6 QP %#x PSN %d is not its input routed"
                            % (PORT_NAMES[e], q, psn))
        stats[ROUTE4][e] = [len(v4), sum(len(x) for x in v4)]
        stats[ROUTE6][e] = [len(v6), sum(len(x) for x in v6)]
    m4.report_problems(ck, what)
    ck.check(not bad6, "%s: every IPv6 output is its input routed (MACs, "
             "hop limit - 1)" % what, "; ".join(bad6[:5]))
    n4 = sum(m4.count.values())
    ck.eq(n4, len(flows4) * FRAMES_PER_FLOW,
          "%s: every IPv4 frame left exactly once" % what)
    ck.eq(len(seen6), len(flows6) * FRAMES_PER_FLOW,
          "%s: every IPv6 frame left exactly once" % what)
    path = {}
    split = []
    for f in flows4:
        ports = m4.port_of[f.dqpn]
        if len(ports) != 1:
            split.append(f.dqpn)
        path[f.dqpn] = min(ports) if ports else None
    for f in flows6:
        ports = ports6.get(f.dqpn, set())
        if len(ports) != 1:
            split.append(f.dqpn)
        path[f.dqpn] = min(ports) if ports else None
    ck.check(not split, "%s: each of %d flows leaves on exactly one uplink" %
             (what, len(path)), "split or missing: %s" %
             [hex(q) for q in split[:10]])
    for fam, fl in (("IPv4", flows4), ("IPv6", flows6)):
        used = {path[f.dqpn] for f in fl}
        desc = "%s: %s flows: %d on p2, %d on p3" % (
            what, fam, sum(1 for f in fl if path[f.dqpn] == 2),
            sum(1 for f in fl if path[f.dqpn] == 3))
        if both_used:
            ck.eq(sorted(x for x in used if x is not None), list(UPLINKS),
                  desc + ": both uplinks used")
        else:
            print(desc + " (few src/dst pairs: one uplink may take all)")
    check_report(ck, run, stats, what)
    return path


def check_report(ck, run, stats, what):
    ecmp = (run.report or {}).get("ecmp", {})
    for route, names in ((ROUTE4, MEMBERS4), (ROUTE6, MEMBERS6)):
        grp = ecmp.get(route, {})
        mem = grp.get("members", {})
        ck.eq(sorted(mem), sorted(names.values()),
              "%s: report ecmp.%s members" % (what, route))
        for e, name in names.items():
            got = mem.get(name, {})
            ck.eq((got.get("packets"), got.get("bytes")),
                  tuple(stats[route][e]),
                  "%s: ecmp.%s.members.%s packets/bytes = capture of %s" %
                  (what, route, name, PORT_NAMES[e]))
        b = [stats[route][e][1] for e in names]
        want = max(b) * len(b) / sum(b) if sum(b) else 0.0
        got = grp.get("imbalance")
        ck.check(isinstance(got, (int, float)) and abs(got - want) <= 1e-6,
                 "%s: ecmp.%s.imbalance = max/mean of member bytes (%.6f)" %
                 (what, route, want), "report says %r" % got)
    for e in UPLINKS:
        pr = run.port_rep(e)
        ck.eq(pr.get("tx_packets"), len(run.captures[e]),
              "%s: %s tx_packets = capture" % (what, PORT_NAMES[e]))


def run_case(ck, exe, inputs, flows4, flows6, sets, what):
    run = VRun(exe, inputs, sets=sets, tag="ecmp")
    with run.kept_if_failed(ck):
        ck.section(what)
        if not run_ok(ck, run, what):
            return None
        path = judge(ck, run, flows4, flows6, what,
                     both_used="ecmp.fields=sip,dip" not in sets)
        if path is not None and not sets:
            rows = tshark_fields(run.cap_path(2), ["ip.checksum.status",
                                                   "ipv6.hlim", "udp.dstport"])
            ck.check(rows and all(r["udp.dstport"] == "4791" for r in rows),
                     "%s: tshark: every p2 frame is UDP 4791" % what)
            ck.check(all(r["ip.checksum.status"] in ("1", "") for r in rows),
                     "%s: tshark: IPv4 checksums good on p2" % what)
        return path


# ---- link down of an ECMP member ([port.p2] fault_tx_down_*) ---------------

LD_FLOWS_PER_PORT = 40
LD_SPAN_NS = 1_200_000     # inputs over 1.2 ms, one frame per us per port
LD_AT_US, LD_FOR_US = 400, 400
EDGE_NS = 20_000           # frames this close to a window edge: not judged


def build_link_down():
    """IPv4 RoCE flows from p0 and p1, frames round robin, one per us per
    port. Returns (flows, inputs, t_in: (dqpn, psn) -> input time)."""
    flows, inputs, t_in = [], {}, {}
    q = 0x3000
    for p in SRC_PORTS:
        fl = []
        for k in range(LD_FLOWS_PER_PORT):
            q += 1
            fl.append(RoceFlow(p, FAR4[k % len(FAR4)], q,
                               linux_sport(0x21 + k, q), paylen=128))
        flows += fl
        lst, psn, t = [], {f.dqpn: 0 for f in fl}, VT_EPOCH_NS
        i = 0
        while t < VT_EPOCH_NS + LD_SPAN_NS:
            f = fl[i % len(fl)]
            lst.append((f.frame(psn[f.dqpn]), t))
            t_in[(f.dqpn, psn[f.dqpn])] = t
            psn[f.dqpn] += 1
            t += SPACING_NS
            i += 1
        inputs[p] = lst
    return flows, inputs, t_in


def link_run(ck, run, what):
    """Run a link-down case (its section @p what); None if it failed,
    else the captures, having checked that nothing left on a downlink
    (every flow goes to the default route's uplinks)."""
    ck.section(what)
    if not run_ok(ck, run, what):
        return None
    caps = run.captures
    for p in SRC_PORTS:
        ck.eq(len(caps[p] or []), 0, "%s: nothing leaves on %s" %
              (what, PORT_NAMES[p]))
    return caps


def link_down_case(ck, exe, sets, what):
    """p2 (an uplink, member of the default route's group) goes down at
    400 us for 400 us, counted from its TX fault stage's origin (the
    worker's first egress run, at the first arrival). Judged from the capture (virtual departure stamps, ns) and the
    input times of the (QP, PSN) each output frame carries."""
    flows, inputs, t_in = build_link_down()
    sets = ["port.p2.fault_tx_down_at_us=%d" % LD_AT_US,
            "port.p2.fault_tx_down_for_us=%d" % LD_FOR_US] + sets
    run = VRun(exe, inputs, sets=sets, tag="ecmpld")
    with run.kept_if_failed(ck):
        caps = link_run(ck, run, what)
        if caps is None:
            return
        m4 = RoceMatch(flows)
        out = {}                        # (dqpn, psn) -> (port, t_out)
        for e in UPLINKS:
            m4.add_port(e, [fr for _t, fr in caps[e]])
            for t, fr in caps[e]:
                out[RoceFlow.key(fr)] = (e, t)
        m4.report_problems(ck, what)
        p2_times = [t for t, _fr in caps[2]]
        if not ck.check(p2_times, "%s: p2 carries frames" % what):
            return
        # The stage's origin lies between the first input and the first
        # frame out of p2: the window is known to within that.
        o_lo, o_hi = VT_EPOCH_NS, min(p2_times)
        down_lo, down_hi = o_lo + LD_AT_US * 1000, o_hi + LD_AT_US * 1000
        up_lo = o_lo + (LD_AT_US + LD_FOR_US) * 1000
        up_hi = o_hi + (LD_AT_US + LD_FOR_US) * 1000
        print("%s: origin within [0, %d] ns of the first input" %
              (what, o_hi - o_lo))
        inside = [t for t in p2_times if down_hi <= t < up_lo]
        ck.check(not inside, "%s: no frame leaves p2 while it is down "
                 "([%d, %d) ns after the first input)" %
                 (what, down_hi - VT_EPOCH_NS, up_lo - VT_EPOCH_NS),
                 "%d frames, first at +%d ns" % (
                     len(inside), (min(inside) if inside else 0) -
                     VT_EPOCH_NS))
        # Per flow: its port before, during and after the window.
        phase = {}
        missing = []
        for k, t in t_in.items():
            if t < down_lo - EDGE_NS:
                ph = "before"
            elif down_hi + EDGE_NS <= t < up_lo - EDGE_NS:
                ph = "down"
            elif t >= up_hi + EDGE_NS:
                ph = "after"
            else:
                ph = None
            if k not in out:
                missing.append((k, ph))
                continue
            if ph is not None:
                phase.setdefault(k[0], {}).setdefault(ph, set()).add(
                    out[k][0])
        judged_lost = [k for k, ph in missing if ph is not None]
        ck.check(not judged_lost, "%s: no frame lost away from the "
                 "window's edges" % what, repr(judged_lost[:5]))
        rep = run.report or {}
        p2 = run.port_rep(2)
        ck.eq(p2.get("drops", {}).get("link_down", 0), len(missing),
              "%s: frames missing (%d, in flight at an edge) = p2 "
              "drops.link_down" % (what, len(missing)))
        one = [q for q, d in phase.items()
               if any(len(v) != 1 for v in d.values())]
        ck.check(not one, "%s: each flow on one port per phase" % what,
                 repr([hex(q) for q in one[:5]]))
        if one:
            return
        at = {q: {ph: min(v) for ph, v in d.items()}
              for q, d in phase.items()}
        full = [q for q in at if len(at[q]) == 3]
        ck.eq(len(full), len(flows), "%s: every flow has frames in every "
              "phase" % what)
        on2 = [q for q in full if at[q]["before"] == 2]
        on3 = [q for q in full if at[q]["before"] == 3]
        print("%s: before the link-down %d flows on p2, %d on p3" %
              (what, len(on2), len(on3)))
        ck.check(on2 and on3, "%s: both uplinks carry flows before" % what)
        moved3 = [q for q in on3 if at[q]["down"] != 3 or at[q]["after"] != 3]
        ck.check(not moved3, "%s: flows on the live member p3 never move "
                 "(%d flows)" % (what, len(on3)),
                 repr([hex(q) for q in moved3[:5]]))
        stay2 = [q for q in on2 if at[q]["down"] != 3]
        ck.check(not stay2, "%s: p2's %d flows move to p3 while p2 is "
                 "down" % (what, len(on2)), repr([hex(q) for q in stay2[:5]]))
        back2 = [q for q in on2 if at[q]["after"] != 2]
        ck.check(not back2, "%s: p2's flows return to p2 when it is back"
                 % what, repr([hex(q) for q in back2[:5]]))
        grp = rep.get("ecmp", {}).get(ROUTE4, {})
        mem = grp.get("members", {})
        ck.eq(mem.get(MEMBERS4[2], {}).get("down_events"), 1,
              "%s: ecmp.%s.members.%s.down_events" % (what, ROUTE4,
                                                      MEMBERS4[2]))
        ck.eq(mem.get(MEMBERS4[3], {}).get("down_events"), 0,
              "%s: ecmp.%s.members.%s.down_events" % (what, ROUTE4,
                                                      MEMBERS4[3]))
        ck.eq(grp.get("remaps"), 2, "%s: ecmp.%s.remaps (down, up)" %
              (what, ROUTE4))
        # A member counts the frames hashed to it, those its port's fault
        # stage then lost at the edge included.
        for e in UPLINKS:
            lost = len(missing) if e == 2 else 0
            ck.eq(mem.get(MEMBERS4[e], {}).get("packets"),
                  len(caps[e]) + lost,
                  "%s: ecmp member %s packets = capture of %s + %d lost" %
                  (what, MEMBERS4[e], PORT_NAMES[e], lost))
        ck.eq(p2.get("link", {}).get("down_events"), 1,
              "%s: ports.p2.link.down_events" % what)
        ck.eq(run.port_rep(3).get("link", {}).get("down_events", 0), 0,
              "%s: p3 never went down" % what)
        return grp


def all_down_case(ck, exe, sets, what):
    """Both members of the default route's group go down together: p2 at
    400 us for 400 us as above, p3 at 500 us for 200 us (each counted
    from its own TX fault stage's origin). A frame routed while neither
    is up has no member: it is dropped at ingress and counted
    (drops.ecmp_no_member of its RX port), never sent anywhere nor
    counted to a member; before and after, the frames flow."""
    flows, inputs, t_in = build_link_down()
    sets = ["port.p2.fault_tx_down_at_us=%d" % LD_AT_US,
            "port.p2.fault_tx_down_for_us=%d" % LD_FOR_US,
            "port.p3.fault_tx_down_at_us=%d" % (LD_AT_US + 100),
            "port.p3.fault_tx_down_for_us=%d" % (LD_FOR_US - 200)] + sets
    run = VRun(exe, inputs, sets=sets, tag="ecmpad")
    with run.kept_if_failed(ck):
        caps = link_run(ck, run, what)
        if caps is None:
            return
        out = set()
        for e in UPLINKS:
            for _t, fr in caps[e] or []:
                out.add(RoceFlow.key(fr))
        firsts = [min(t for t, _fr in caps[e]) for e in UPLINKS
                  if caps[e]]
        if not ck.eq(len(firsts), 2, "%s: both uplinks carry frames" %
                     what):
            return
        # Both down: p3's window, inside p2's (each origin between the
        # first input and the port's first frame out).
        o_lo, o_hi = VT_EPOCH_NS, max(firsts)
        both_hi = o_hi + (LD_AT_US + 100) * 1000
        both_lo_end = o_lo + (LD_AT_US + LD_FOR_US - 100) * 1000
        first_down = o_lo + LD_AT_US * 1000
        last_up = o_hi + (LD_AT_US + LD_FOR_US) * 1000
        inside = [k for k, t in t_in.items()
                  if both_hi + EDGE_NS <= t < both_lo_end - EDGE_NS]
        ck.check(len(inside) > 100, "%s: frames arrive while both "
                 "members are down (%d)" % (what, len(inside)))
        sent = [k for k in inside if k in out]
        ck.check(not sent, "%s: no frame that arrived while both members "
                 "were down leaves" % what, repr(sent[:5]))
        away = [k for k, t in t_in.items()
                if (t < first_down - EDGE_NS or t >= last_up + EDGE_NS)
                and k not in out]
        ck.check(not away, "%s: every frame away from the windows leaves"
                 % what, repr(away[:5]))
        drops = {}
        for p in range(4):
            for r, v in run.port_rep(p).get("drops", {}).items():
                drops[r] = drops.get(r, 0) + v
        nomem = drops.get("ecmp_no_member", 0)
        ck.check(nomem >= len(inside), "%s: drops.ecmp_no_member %d >= "
                 "the %d frames that arrived while both were down" %
                 (what, nomem, len(inside)))
        missing = len(t_in) - len(out)
        ck.eq(nomem + drops.get("link_down", 0), missing,
              "%s: frames not sent (%d) = drops.ecmp_no_member + "
              "drops.link_down" % (what, missing))
        mem = (run.report or {}).get("ecmp", {}).get(ROUTE4, {}).get(
            "members", {})
        counted = sum(mem.get(MEMBERS4[e], {}).get("packets", 0)
                      for e in UPLINKS)
        ck.eq(counted, len(t_in) - nomem, "%s: the members count every "
              "frame but those with no member (%d)" % (what, nomem))


def main_link_down(exe):
    ck = Checks("test_ecmp_link_down")
    grp = link_down_case(ck, exe, [], "resilient (256 buckets)")
    if grp:
        # p2 had 128 of 256 buckets: they go to p3, then come back.
        ck.eq(grp.get("remap_buckets"), 256, "resilient: remap_buckets = "
              "128 down + 128 up")
    link_down_case(ck, exe, ["ecmp.resilient=false"], "plain (hash mod n)")
    all_down_case(ck, exe, [], "both members down, resilient")
    all_down_case(ck, exe, ["ecmp.resilient=false"],
                  "both members down, plain")
    ck.finish()


def main():
    exe = exe_path()
    if len(sys.argv) > 2 and sys.argv[2] == "link_down":
        main_link_down(exe)
        return
    ck = Checks("test_ecmp")
    flows4, flows6, inputs, pair_of = build()
    print("%d IPv4 + %d IPv6 flows, %d frames each, from p0 and p1" %
          (len(flows4), len(flows6), FRAMES_PER_FLOW))
    base = run_case(ck, exe, inputs, flows4, flows6, [],
                    "defaults (crc32c, seed 0, 5-tuple)")
    seeded = run_case(ck, exe, inputs, flows4, flows6,
                      ["ecmp.seed=2654435761"], "ecmp.seed=2654435761")
    if base and seeded:
        moved = [q for q in base if base[q] != seeded[q]]
        ck.check(moved, "another seed gives another split (%d of %d flows "
                 "moved)" % (len(moved), len(base)))
    pairs = run_case(ck, exe, inputs, flows4, flows6,
                     ["ecmp.fields=sip,dip"], "ecmp.fields=sip,dip")
    if pairs:
        by_pair, spread = {}, {}
        for q, e in pairs.items():
            by_pair.setdefault(pair_of[q], set()).add(e)
        for q, e in (base or {}).items():
            spread.setdefault(pair_of[q], set()).add(e)
        bad = {k: sorted(v) for k, v in by_pair.items() if len(v) != 1}
        ck.check(not bad, "fields=sip,dip: all flows of each of %d src/dst "
                 "pairs take one path" % len(by_pair), repr(bad))
        ck.check(all(len(v) == 2 for v in spread.values()),
                 "defaults: the flows of every src/dst pair use both "
                 "uplinks (the source port matters)",
                 repr({k: sorted(v) for k, v in spread.items()}))
    ck.finish()


if __name__ == "__main__":
    main()
