#!/usr/bin/python3
# SPDX-License-Identifier: BSD-3-Clause
"""Seed corpora for the fuzz targets in tests/fuzz, written with scapy.

    gen_corpus.py TARGET OUTDIR  (TARGET: pkt switch switch_diff pfc rc
                                 profile gen all)

Valid frames of every kind the switch and the RoCE endpoints meet
(IPv4/IPv6 UDP and RoCEv2 data, ACK, NAK, CNP; VLAN, QinQ, IPv4 options,
fragments, IPv6 extension headers; ARP, LLDP, PFC, PAUSE; TCP, ICMP), the
hostile frames of tests/integration/test_malformed.py, and every profile in
profiles/ (also with --set strings). Each seed is encoded in the input
format its target's header comment describes. File names are the SHA-1 of
the content, as libFuzzer names corpus files.
"""
import hashlib
import os
import struct
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.environ.get("AIFAB_SOURCE_ROOT") or os.path.dirname(
    os.path.dirname(HERE))
sys.path.insert(0, os.path.join(ROOT, "tests", "integration"))

from scapy.all import (ARP, ICMP, IP, IPv6, TCP, UDP, Dot1AD, Dot1Q, Ether,  # noqa: E402
                       IPOption_RR, IPv6ExtHdrDestOpt, IPv6ExtHdrFragment,
                       IPv6ExtHdrHopByHop, IPv6ExtHdrRouting, Raw)
from scapy.contrib.roce import AETH, BTH  # noqa: E402

PORT_MAC = ["02:aa:00:00:00:%02x" % i for i in range(4)]
NBR_MAC = ["02:bb:00:00:00:%02x" % i for i in range(4)]
NBR_IP4 = ["10.0.%d.2" % i for i in range(4)]
NBR_IP6 = ["fd00:0:0:%d::2" % i for i in range(4)]
PFC_DMAC = "01:80:c2:00:00:01"


def reth(va=0x1000, rkey=0x1234, dlen=256):
    return struct.pack("!QII", va, rkey, dlen)


def roce4(port, dst, opcode, psn, payload=b"", pad=0, dscp=26, ecn=2,
          extra=b"", ackreq=False, dqpn=0x101):
    b = BTH(opcode=opcode, padcount=pad, dqpn=dqpn, psn=psn,
            ackreq=int(ackreq))
    p = (Ether(dst=PORT_MAC[port], src=NBR_MAC[port]) /
         IP(src=NBR_IP4[port], dst=dst, tos=dscp << 2 | ecn, flags="DF") /
         UDP(sport=0xc001 + psn % 64, dport=4791, chksum=0) / b /
         Raw(extra + payload + bytes(pad)))
    raw = bytes(p)
    icrc = bytes(p[BTH].compute_icrc(None)) if ecn is not None else b"\0" * 4
    return raw + icrc


def roce6(port, dst, opcode, psn, payload=b""):
    p = (Ether(dst=PORT_MAC[port], src=NBR_MAC[port]) /
         IPv6(src=NBR_IP6[port], dst=dst, tc=26 << 2 | 2, hlim=64) /
         UDP(sport=0xc100, dport=4791) /
         BTH(opcode=opcode, dqpn=0x103, psn=psn) / Raw(payload))
    return bytes(p) + b"\0\0\0\0"


def pfc(src, enable, quanta):
    body = struct.pack("!HH8H", 0x0101, enable, *quanta)
    fr = bytes(Ether(dst=PFC_DMAC, src=src, type=0x8808)) + body
    return fr + bytes(60 - len(fr))


def pause(src, t):
    fr = bytes(Ether(dst=PFC_DMAC, src=src, type=0x8808)) + \
        struct.pack("!HH", 1, t)
    return fr + bytes(60 - len(fr))


def valid_frames():
    """(name, frame) of every kind, as a neighbour of p0/p1 sends them."""
    f = []
    e0 = Ether(dst=PORT_MAC[0], src=NBR_MAC[0])
    f.append(("udp4", bytes(e0 / IP(src=NBR_IP4[0], dst=NBR_IP4[1]) /
                            UDP(sport=1, dport=2) / Raw(b"x" * 64))))
    f.append(("tcp4", bytes(e0 / IP(src=NBR_IP4[0], dst="192.0.2.9") /
                            TCP(sport=1, dport=2) / Raw(b"x" * 20))))
    f.append(("icmp4", bytes(e0 / IP(src=NBR_IP4[0], dst="10.0.0.1") /
                             ICMP())))
    f.append(("opts4", bytes(e0 / IP(src=NBR_IP4[0], dst=NBR_IP4[2],
                                     options=[IPOption_RR()]) /
                             UDP() / Raw(b"o" * 30))))
    f.append(("frag4_first", bytes(e0 / IP(src=NBR_IP4[0], dst=NBR_IP4[1],
                                           flags="MF") /
                                   UDP(dport=4791, len=1000) /
                                   Raw(b"f" * 64))))
    f.append(("frag4_later", bytes(e0 / IP(src=NBR_IP4[0], dst=NBR_IP4[1],
                                           frag=100, proto=17) /
                                   Raw(b"f" * 64))))
    for op, name in ((0x06, "write_first"), (0x07, "write_middle"),
                     (0x08, "write_last"), (0x0a, "write_only"),
                     (0x04, "send_only")):
        extra = reth() if op in (0x06, 0x0a) else b""
        f.append((name, roce4(0, "10.9.8.7", op, 100, b"\x5a" * 256,
                              extra=extra, ackreq=op in (0x08, 0x0a))))
    f.append(("write_pad3", roce4(1, NBR_IP4[0], 0x0a, 7, b"p" * 61, pad=3,
                                  extra=reth(dlen=61))))
    f.append(("ack", roce4(2, NBR_IP4[0], 0x11, 99, extra=bytes(AETH(
        syndrome=0x1f, msn=3)))))
    f.append(("nak", roce4(2, NBR_IP4[0], 0x11, 42, extra=bytes(AETH(
        syndrome=0x60, msn=3)))))
    f.append(("cnp", roce4(3, NBR_IP4[0], 0x81, 0, extra=bytes(16),
                           dscp=48, ecn=1)))
    f.append(("roce_ce", roce4(0, "10.9.8.7", 0x07, 5, b"c" * 64, ecn=3)))
    f.append(("roce6", roce6(1, "fd00:0:0:2::2", 0x0a, 5, reth() + b"6" * 64)))
    e1 = Ether(dst=PORT_MAC[1], src=NBR_MAC[1])
    for ext, name in ((IPv6ExtHdrHopByHop(), "hbh"),
                      (IPv6ExtHdrRouting(), "rh"),
                      (IPv6ExtHdrDestOpt(), "dst"),
                      (IPv6ExtHdrFragment(m=1), "frag6_first"),
                      (IPv6ExtHdrFragment(offset=10), "frag6_later")):
        f.append(("ip6_" + name, bytes(e1 / IPv6(src=NBR_IP6[1],
                                                  dst="2001:db8::1") /
                                       ext / UDP(dport=4791) /
                                       BTH(opcode=0x07, psn=3) /
                                       Raw(b"e" * 40))))
    f.append(("vlan", bytes(Ether(dst=PORT_MAC[0], src=NBR_MAC[0]) /
                            Dot1Q(vlan=10, prio=3) /
                            IP(src=NBR_IP4[0], dst=NBR_IP4[3]) /
                            UDP() / Raw(b"v" * 40))))
    f.append(("qinq", bytes(Ether(dst=PORT_MAC[0], src=NBR_MAC[0]) /
                            Dot1AD(vlan=100) / Dot1Q(vlan=10, prio=5) /
                            IPv6(src=NBR_IP6[0], dst=NBR_IP6[3]) /
                            UDP() / Raw(b"q" * 40))))
    f.append(("arp", bytes(Ether(dst="ff:ff:ff:ff:ff:ff", src=NBR_MAC[0]) /
                           ARP(psrc=NBR_IP4[0], pdst="10.0.0.1"))))
    f.append(("lldp", bytes(Ether(dst="01:80:c2:00:00:0e", src=NBR_MAC[0],
                                  type=0x88cc) / Raw(bytes(46)))))
    f.append(("pfc_xoff3", pfc(NBR_MAC[2], 0x08,
                               [0, 0, 0, 0xffff, 0, 0, 0, 0])))
    f.append(("pfc_xon3", pfc(NBR_MAC[2], 0x08, [0] * 8)))
    f.append(("pfc_all", pfc(NBR_MAC[3], 0xff, [1, 2, 3, 4, 5, 6, 7, 8])))
    f.append(("pause", pause(NBR_MAC[2], 0x100)))
    f.append(("jumbo", roce4(0, "10.9.8.7", 0x07, 9, b"j" * 8900)))
    return f


def hostile_frames():
    try:
        import test_malformed
    except Exception as e:  # pragma: no cover
        sys.stderr.write("gen_corpus: no hostile frames (%s)\n" % e)
        return []
    return [("hostile_%d" % i, c.frame)
            for i, c in enumerate(test_malformed.switch_cases().cases)]


# ---- per-target encodings ---------------------------------------------------

def rec_switch(port, frame, poll=True, seg=False, step=0):
    ctl = (port & 3) | (4 if poll else 0) | (8 if seg else 0) | (step << 4)
    return bytes([ctl]) + struct.pack("!H", len(frame)) + frame


def seeds_pkt():
    out = []
    for _name, fr in valid_frames() + hostile_frames():
        out.append(b"\x00" + fr)
        out.append(b"\x01" + fr)
        out.append(b"\x0b" + fr)      # chained in small segments
    return out


def seeds_switch():
    fr = valid_frames()
    out = []
    for v in range(4):
        # every frame once, from the port its MACs belong to
        s = bytes([v])
        for i, (_n, f) in enumerate(fr):
            port = int.from_bytes(f[5:6], "big") & 3 if f[0] == 2 else 2
            s += rec_switch(port, f, poll=i % 3 == 0, seg=i % 5 == 0,
                            step=i % 4)
        out.append(s)
        # a RoCE burst into the slow / lossless paths, PFC back at it
        s = bytes([v])
        for i in range(40):
            s += rec_switch(i % 2, roce4(i % 2, "10.9.8.7", 0x07, i,
                                         b"b" * 1000), poll=i % 8 == 7)
        s += rec_switch(2, pfc(NBR_MAC[2], 0x08, [0, 0, 0, 0xffff, 0, 0, 0,
                                                  0]), step=6)
        for i in range(12):
            s += rec_switch(3, pfc(NBR_MAC[3], 0x09, [0xffff] * 8),
                            step=9)
        out.append(s)
    hs = bytes([0])
    for _n, f in hostile_frames():
        hs += rec_switch(0, f, poll=False)
    out.append(hs)
    return out


def seeds_pfc():
    out = []
    frames = [pfc(NBR_MAC[0], e, q) for e, q in (
        (0x08, [0, 0, 0, 0xffff, 0, 0, 0, 0]), (0x08, [0] * 8),
        (0xff, [0xffff] * 8), (0x01, [2, 0, 0, 0, 0, 0, 0, 0]))]
    frames.append(pause(NBR_MAC[0], 5))
    for hdr in (b"\x0f\xa0\x00\xff\x08\x00", b"\x00\x01\x01\x0b\xff\x41",
                b"\xff\xff\x03\x06\x28\x82"):
        s = hdr
        for i, f in enumerate(frames * 3):
            s += bytes([(i * 7 % 30) << 2 | 0, len(f)]) + f
            s += bytes([1 << 2 | 1, 3]) + struct.pack("!H", 1500)
            s += bytes([2 << 2 | 2, 3]) + struct.pack("!H", 700)
        s += bytes([40 << 2 | 3]) + struct.pack("!I", 5000)
        out.append(s)
    return out


def seeds_rc():
    out = []
    data = [roce4(0, NBR_IP4[1], op, psn, b"d" * n,
                  extra=reth() if op in (0x06, 0x0a) else b"",
                  ackreq=op in (0x08, 0x0a))
            for op, psn, n in ((0x06, 0, 256), (0x07, 1, 256),
                               (0x08, 2, 100), (0x0a, 3, 0), (0x0a, 5, 8),
                               (0x0a, 4, 8), (0x04, 6, 4))]
    acks = [roce4(0, NBR_IP4[1], 0x11, psn, extra=bytes(AETH(syndrome=syn)))
            for psn, syn in ((0, 0x1f), (2, 0x1f), (1, 0x60), (9, 0x1f))]
    for hdr in (b"\x00\x00\x00\x00\x10\x02\x01",
                b"\xff\xff\xfe\x00\x04\x00\x04"):
        s = hdr
        s += b"\x02" + b"\x00\x10\x00"            # post 4096 + ...
        s += b"\x02" + b"\x00\x00\x00"            # post 0
        s += b"\x04\x10"                          # send 16
        for f in data + acks:
            s += b"\x00" + struct.pack("!H", len(f)) + f
        s += b"\xfd"                              # timer, big step
        s += b"\x04\x10\x06"                      # send, reap
        for i in range(8):
            s += bytes([7, 0x40 | i])             # in-order frames
        s += bytes([3, 0x09, 3, 0x8a, 6])         # ACK, NAK, reap
        out.append(s)
    return out


def seeds_profile():
    out = []
    pdir = os.path.join(ROOT, "profiles")
    sets = [b"port.p0.speed_gbps=25", b"tc.3.ecn_kmin_bytes=100000",
            b"routes.0.0.0.0/0=10.0.3.2", b"qos.dscp_to_tc=26:3,48:6,46:5",
            b"neighbors.10.0.0.2=02:bb:00:00:00:00", b"general.seed=7",
            b"tc.3.pfc_xoff_bytes=30000", b"generator.enabled=true",
            b"ecmp.rss_key=" + b"6d5a" * 20, b"switch.lcores=1-3"]
    for name in sorted(os.listdir(pdir)):
        if not name.endswith(".ini"):
            continue
        with open(os.path.join(pdir, name), "rb") as f:
            text = f.read()
        out.append(text)
        out.append(text + b"\0" + b"\0".join(sets[:5]))
        out.append(text + b"\0" + b"\0".join(sets[5:]))
    out.append(b"[general]\nname = x\n[port.a]\nipv4 = 10.0.0.1/24\n")
    return out


# ---- fuzz_gen: frames addressed to the generator's ranks and QPs -----------

M64 = (1 << 64) - 1


class Xoshiro:
    """lib/rng (xoshiro256** seeded by splitmix64), for the QPs' PSNs."""

    def __init__(self, seed, stream):
        x = (seed ^ (stream * 0xD1B54A32D192ED03)) & M64
        self.s = []
        for _ in range(4):
            x = (x + 0x9E3779B97F4A7C15) & M64
            z = x
            z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & M64
            z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & M64
            self.s.append(z ^ (z >> 31))

    def u64(self):
        s = self.s

        def rotl(v, k):
            return ((v << k) | (v >> (64 - k))) & M64
        res = (rotl((s[1] * 5) & M64, 7) * 9) & M64
        t = (s[1] << 17) & M64
        s[2] ^= s[0]
        s[3] ^= s[1]
        s[1] ^= s[2]
        s[0] ^= s[3]
        s[2] ^= t
        s[3] = rotl(s[3], 45)
        return res

    def u32(self):
        return self.u64() >> 32


def gen_qps(n_conns, seed=1):
    """(start_psn, remote_va, rkey) of connection i, as generator_setup.c
    draws them (seed [general] seed, stream 0x9e4)."""
    r = Xoshiro(seed, 0x9e4)
    out = []
    for _ in range(n_conns):
        psn = r.u32() & 0xffffff
        va = r.u64() & 0x00007FFFFFFFF000
        out.append((psn, va, r.u32()))
    return out


# fuzz_gen.c's variants: (ranks, generator ports, QPs per connection,
# qpn_base, IB MTU, closed loop); ring collectives: connection i (of
# qps_per_conn QPs) is rank i -> rank i + 1.
GEN_VARIANTS = [(4, 1, 1, 256, 1024, True), (4, 2, 1, 256, 512, False),
                (4, 1, 2, 256, 256, True), (2, 2, 1, 256, 1024, True),
                (4, 2, 1, 4096, 1024, True)]


def gen_mac(r):
    return "02:a1:fa:00:00:%02x" % r


def gen_ip(r):
    return "10.100.0.%d" % (1 + r)


def gen_roce(src, dst, opcode, dqpn, psn, extra=b"", payload=b"", ecn=2,
             dscp=26, ackreq=False, pad=0):
    """A RoCEv2 frame rank src -> rank dst (ICRC computed)."""
    p = (Ether(dst=gen_mac(dst), src=gen_mac(src)) /
         IP(src=gen_ip(src), dst=gen_ip(dst), tos=dscp << 2 | ecn,
            flags="DF") /
         UDP(sport=0xc000 | dqpn & 0x3fff, dport=4791, chksum=0) /
         BTH(opcode=opcode, dqpn=dqpn, psn=psn & 0xffffff,
             ackreq=int(ackreq), padcount=pad) /
         Raw(extra + payload + bytes(pad)))
    return bytes(p) + bytes(p[BTH].compute_icrc(None))


def gen_frames(v):
    """(kind, frame, port) that reach every branch of the generator's RX:
    the responder's (data of each opcode in order, ahead, behind, CE),
    the requester's (ACK, NAK of each syndrome, CNP), PFC and PAUSE."""
    ranks, nports, nq, qpn, mtu, _closed = GEN_VARIANTS[v]
    qps = gen_qps(ranks * nq)
    out = []
    for c in range(min(len(qps), 2 * nq)):
        src = c // nq
        dst = (src + 1) % ranks
        psn, va, rkey = qps[c]
        rq, sq = qpn + 2 * c + 1, qpn + 2 * c
        rx_port = dst % nports
        tx_port = src % nports
        rth = struct.pack("!QII", va, rkey, 3 * mtu)
        body = bytes(range(256)) * (mtu // 256)
        # a three-packet message, a one-packet one, CE-marked, ACK asked
        out.append(("first", gen_roce(src, dst, 0x06, rq, psn, rth, body),
                    rx_port))
        out.append(("middle", gen_roce(src, dst, 0x07, rq, psn + 1,
                                       payload=body, ecn=3), rx_port))
        out.append(("last", gen_roce(src, dst, 0x08, rq, psn + 2,
                                     payload=body[:100], ackreq=True,
                                     pad=0), rx_port))
        out.append(("only", gen_roce(src, dst, 0x0a, rq, psn + 3,
                                     struct.pack("!QII", va, rkey, 61),
                                     b"o" * 61, pad=3, ackreq=True),
                    rx_port))
        out.append(("only_imm", gen_roce(src, dst, 0x0b, rq, psn + 4,
                                         struct.pack("!QIII", va, rkey, 8,
                                                     7), b"i" * 8),
                    rx_port))
        out.append(("ahead", gen_roce(src, dst, 0x07, rq, psn + 9,
                                      payload=body), rx_port))
        out.append(("dup", gen_roce(src, dst, 0x06, rq, psn, rth, body),
                    rx_port))
        out.append(("stale", gen_roce(src, dst, 0x07, rq, psn - 5000,
                                      payload=body), rx_port))
        out.append(("send", gen_roce(src, dst, 0x04, rq, psn + 5,
                                     payload=b"s" * 32), rx_port))
        # to the requester: ACKs (credit syndromes), NAKs, a CNP
        for k, syn in ((0, 0x1f), (2, 0x1f), (3, 0x00), (1, 0x60),
                       (2, 0x61), (2, 0x62), (2, 0x63), (2, 0x20),
                       (1 << 22, 0x1f), (-3, 0x1f)):
            out.append(("aeth_%02x" % syn, gen_roce(
                dst, src, 0x11, sq, psn + k,
                struct.pack("!I", syn << 24 | (k & 0xffffff))), tx_port))
        out.append(("cnp", gen_roce(dst, src, 0x81, sq, 0, bytes(16),
                                    dscp=48, ecn=1), tx_port))
        out.append(("ack_short", gen_roce(dst, src, 0x11, sq, psn)[:-4],
                    tx_port))
        out.append(("rdma_read", gen_roce(dst, src, 0x0c, sq, psn, rth),
                    tx_port))
    # QPs nobody has, and the other end of a known one
    out.append(("unknown_rq", gen_roce(0, 1, 0x0a, qpn + 4097, 0,
                                       reth(), b"u" * 8), 0))
    out.append(("unknown_sq", gen_roce(1, 0, 0x11, qpn - 2, 0,
                                       bytes(4)), 0))
    out.append(("cnp_rq", gen_roce(1, 0, 0x81, qpn + 1, 0, bytes(16)), 0))
    for p in range(nports):
        src = "02:bb:00:00:00:%02x" % p
        out.append(("pfc_xoff_data", pfc(src, 0x08, [0, 0, 0, 0xffff, 0, 0,
                                                     0, 0]), p))
        out.append(("pfc_xoff_cnp", pfc(src, 0x40, [0, 0, 0, 0, 0, 0,
                                                    0xffff, 0]), p))
        out.append(("pfc_xon", pfc(src, 0xff, [0] * 8), p))
        out.append(("pause", pause(src, 0xffff), p))
    return out


def rec_gen(port, frame, poll=True, reflect=False, seg=False, step=0):
    ctl = (port & 1) | (2 if reflect else 0) | (4 if poll else 0) | \
        (8 if seg else 0) | (step << 4)
    return bytes([ctl]) + struct.pack("!H", len(frame)) + frame


def seeds_gen():
    out = []
    for v in range(len(GEN_VARIANTS)):
        fr = gen_frames(v)
        # every frame once, polls and clock steps between
        s = bytes([v])
        for i, (_k, f, p) in enumerate(fr):
            s += rec_gen(p, f, poll=i % 2 == 0, seg=i % 7 == 3,
                         step=(0, 1, 3, 5)[i % 4])
        out.append(s)
        # the loop closed (what it sends comes back), then the fuzzed
        # frames into the running collective, a PFC storm, a long pause
        s = bytes([v])
        for i in range(24):
            s += rec_gen(i, b"", reflect=True, step=1)
        for i, (_k, f, p) in enumerate(fr):
            s += rec_gen(p, f, reflect=True, poll=i % 3 != 2, step=2)
        for i in range(16):
            s += rec_gen(i, pfc("02:bb:00:00:00:00", 0x48, [0xffff] * 8),
                         reflect=True, step=3)
        s += rec_gen(0, b"", reflect=True, step=12)
        for i in range(16):
            s += rec_gen(i, b"", reflect=True, step=4)
        out.append(s)
    hs = bytes([0])
    for _n, f in valid_frames() + hostile_frames():
        hs += rec_gen(0, f, poll=len(hs) % 3 == 0, reflect=True)
    out.append(hs)
    return out


# fuzz_switch_diff's variants (tests/fuzz/fuzz_switch_variants.h): an
# input's first byte modulo this picks one; bit 0 of the quotient picks
# the gathered RX
DIFF_VARIANTS = 7


def seeds_switch_diff():
    # fuzz_switch's encoding, three more variants (4: ECN at enqueue, 5:
    # shallow static PFC thresholds, 6: ECN at enqueue a few frames deep)
    out = seeds_switch()
    for s in seeds_switch()[:2]:
        out.append(bytes([4]) + s[1:])
    # egress runs (switch_tx.c sw_take_run): 20 frames for p2 in one poll
    # of one DWRR TC (a lone TC's run through several quanta), then of
    # two (their runs end on the deficit, in turn)
    for v in (0, 2):
        for mix in (False, True):
            s = bytes([v])
            for i in range(20):
                dscp = 0 if mix and i % 2 else 26
                s += rec_switch(0, roce4(0, NBR_IP4[2], 0x07, i,
                                         b"q" * 1400, dscp=dscp),
                                poll=i == 19)
            out.append(s)
    # fused bursts (switch_route.c sw_fused: every frame of the poll the
    # common one, CRC32C ECMP in variants 0, 1 and 4) whose frames change
    # target: the neighbours' own routes and the default route's group
    dsts = [NBR_IP4[2], "10.9.8.7", "10.9.8.8", NBR_IP4[3], NBR_IP4[1],
            "10.200.0.1"]
    for v in (0, 1, 4):
        s = bytes([v])
        for i in range(24):
            s += rec_switch(0, roce4(0, dsts[i % len(dsts)], 0x07, i,
                                     b"t" * (64 + 40 * i),
                                     dscp=26 if i % 3 else 0),
                            poll=i % 12 == 11)
        out.append(s)
    # gathered RX (the first byte: variant + DIFF_VARIANTS): the
    # fast switch reads every port's chunk into one burst of per-port
    # segments (switch_poll.c sw_rx_gather(), sw_fused_segs()); frames
    # from all four ports, the common ones fused at once; a burst with an
    # IPv6 frame among them (each segment its own way); a lossless
    # incast from three ports into the slow one in variant 5, whose PFC
    # accounting (per ingress port) crosses XOFF on each
    for v in (0, 1, 4, 5):
        s = bytes([v + DIFF_VARIANTS])
        for i in range(32):
            p = i % 4
            s += rec_switch(p, roce4(p, dsts[i % len(dsts)], 0x07, i,
                                     b"g" * (64 + 24 * i),
                                     dscp=26 if i % 3 else 0),
                            poll=i % 8 == 7)
        out.append(s)
        s = bytes([v + DIFF_VARIANTS])
        for i in range(8):
            p = (i + 1) % 4
            f = (roce6(p, NBR_IP6[(p + 1) % 4], 0x07, i, b"h" * 80)
                 if i == 5 else
                 roce4(p, NBR_IP4[(p + 2) % 4], 0x07, i, b"h" * 200))
            s += rec_switch(p, f, poll=i == 7)
        out.append(s)
        s = bytes([v + DIFF_VARIANTS])
        for i in range(12):
            p = i % 3
            s += rec_switch(p, roce4(p, NBR_IP4[3], 0x07, i, b"i" * 1400),
                            poll=i % 6 == 5)
        out.append(s)
    # variant 6: bursts of four 1 KB frames over the default route's
    # ECMP pair (kmin 3000 B: the whole burst is over it, each uplink's
    # share of an empty queue under it; the slow p2's queue then grows
    # past it), each way of reading RX
    for first in (6, 6 + DIFF_VARIANTS):
        s = bytes([first])
        for i in range(32):
            s += rec_switch(0, roce4(0, "10.9.8.%d" % (7 + i % 5), 0x07, i,
                                     b"e" * 1000, dscp=26 if i % 3 else 0),
                            poll=i % 4 == 3)
        out.append(s)
    return out


TARGETS = {"pkt": seeds_pkt, "switch": seeds_switch,
           "switch_diff": seeds_switch_diff, "pfc": seeds_pfc,
           "rc": seeds_rc, "profile": seeds_profile, "gen": seeds_gen}


def generate(target, outdir):
    os.makedirs(outdir, exist_ok=True)
    n = 0
    for s in TARGETS[target]():
        name = hashlib.sha1(s).hexdigest()
        with open(os.path.join(outdir, name), "wb") as f:
            f.write(s)
        n += 1
    return n


def main():
    if len(sys.argv) != 3 or sys.argv[1] not in list(TARGETS) + ["all"]:
        sys.stderr.write(__doc__)
        return 2
    targets = list(TARGETS) if sys.argv[1] == "all" else [sys.argv[1]]
    for t in targets:
        d = sys.argv[2] if len(targets) == 1 else os.path.join(sys.argv[2], t)
        print("%s: %d seeds in %s" % (t, generate(t, d), d))
    return 0


if __name__ == "__main__":
    sys.exit(main())
