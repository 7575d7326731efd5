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
"""
import struct

from lib_aifab import (N_PORTS, NBR_IP6, NBR_MAC, PORT_MAC,
                       PORT_NAMES, UPLINKS, VT_EPOCH_NS, Checks, RoceFlow,
                       RoceMatch, VRun, exe_path, icrc_zlib, mac_bytes,
                       run_ok, tshark_fields)

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


def linux_sport(lqpn, rqpn):
    """RoCEv2 UDP source port from the QP numbers (PROTOCOLS.md)."""
    fl = lqpn * rqpn
    fl ^= fl >> 20
    fl ^= fl >> 40
    fl &= 0xFFFFF
    return ((fl & 0x3FFF) ^ ((fl & 0xFC000) >> 14)) | 0xC000


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
    n_failed = len(ck.failures)
    try:
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
    finally:
        if len(ck.failures) > n_failed:
            run.keep = True
        run.cleanup()


def main():
    exe = exe_path()
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
