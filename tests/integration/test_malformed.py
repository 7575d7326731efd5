#!/usr/bin/python3
# SPDX-License-Identifier: BSD-3-Clause
"""A hostile-traffic corpus replayed through the switch and the generator's
receive side.

Usage: test_malformed.py PATH/TO/dpdk-aifab

scapy writes one pcap of frames a broken or malicious peer could send, all
into p0 (profiles/pcap-leaf.ini, p1 MTU 9000 for the jumbo cases):

* a RoCEv2 frame (untagged, VLAN, QinQ, IPv6) and a PFC frame cut at every
  header boundary and one byte either side; the same cuts with IP and UDP
  lengths made consistent (short but well-formed RoCEv2, forwarded);
* IPv4 IHL 0..15, total length below / at / beyond the frame, bad
  checksum, fragments (first, later, RoCEv2), IPv4 options;
* one, two, three and four VLAN tags (802.1Q and 802.1ad);
* jumbo frames (several 2 KB mbufs each: net_pcap chains them) forwarded
  to p1 and dropped at the 1500-byte uplinks, a jumbo with a bad total
  length;
* PFC and PAUSE with bad class-enable vectors, cut bodies, padding;
* BTH reserved opcodes (forwarded untouched), bad PadCnt, BTH and ICRC cut,
  zero-length and too long UDP;
* IPv6 extension-header chains (valid, too many, hop-by-hop not first,
  length beyond the payload, past the 256-byte header window).

Each frame states what must become of it. The switch run must exit 0,
count every frame once (rx_packets = forwarded + drops by reason, each
reason equal to what the corpus implies), forward exactly the frames
marked so with the router's rewrite, and leave no mbuf in use.

The same pcap then feeds a [generator] port (generator.ports = p0): the
generator must receive every frame (rx_packets on p0 = corpus size), count
each in exactly the class the corpus implies (rx_malformed.<parse error>,
PFC, PAUSE, RoCE, not RoCE), not crash, and leave no mbuf in use.

Last, a run whose mbuf pool runs dry ([general] mbufs = 1024, a slow p1):
allocation failures are not fatal, the run ends by itself, every frame
received is forwarded or dropped by reason, the report's ports.p0.rx_nombuf
(the ethdev's count) makes up the rest, no mbuf is left in use.
"""
import struct
import sys

from scapy.all import (IP, UDP, IPv6, Dot1AD, Dot1Q, Ether, IPOption_NOP,
                       IPOption_Router_Alert, IPOption_RR, IPv6ExtHdrDestOpt,
                       IPv6ExtHdrFragment, IPv6ExtHdrHopByHop,
                       IPv6ExtHdrRouting, PadN, Raw)
from scapy.contrib.roce import BTH
from scapy.utils import checksum as inet_checksum

from lib_aifab import (NBR_IP4, NBR_IP6, NBR_MAC, PARSER_DROPS, PORT_MAC,
                       CaseSet, Checks, Run, exe_path, icrc_zlib,
                       verify_outputs, verify_report)

H0, H1 = NBR_IP4[0], NBR_IP4[1]
G0, G1 = NBR_IP6[0], NBR_IP6[1]
FAR4 = "172.16.9.9"
ROCE = 4791
PFC_DMAC = "01:80:c2:00:00:01"
FWD, DROP = "fwd", "drop"
# p1 takes jumbo frames; the uplinks stay at 1500.
SETS = ["port.p0.mtu=9000", "port.p1.mtu=9000"]


def l2(vlans=()):
    p = Ether(dst=PORT_MAC[0], src=NBR_MAC[0])
    for v in vlans:
        p = p / v
    return p


def ip4_fix(b, l3):
    """Recompute the IPv4 header checksum of frame bytes b (IP at l3)."""
    b = bytearray(b)
    ihl = (b[l3] & 0xf) * 4
    b[l3 + 10:l3 + 12] = b"\0\0"
    b[l3 + 10:l3 + 12] = struct.pack("!H", inet_checksum(bytes(b[l3:l3 + ihl])))
    return bytes(b)


def roce4(tag, vlans=(), ident=1, dst=H1, opcode=0x0A, pad=0, paylen=64,
          sport=0xC000):
    pay = (tag + bytes(max(0, paylen - len(tag))))[:paylen]
    return bytes(l2(vlans) / IP(src=H0, dst=dst, id=ident, flags="DF",
                                tos=0x68) /
                 UDP(sport=sport, dport=ROCE, chksum=0) /
                 BTH(opcode=opcode, padcount=pad, dqpn=0x11, psn=ident) /
                 Raw(pay + bytes(pad)))


def roce6(tag, ext=None, hlim=64, fl=1):
    ip = IPv6(src=G0, dst=G1, hlim=hlim, fl=fl)
    if ext is not None:
        ip = ip / ext
    return bytes(l2() / ip / UDP(sport=0xC100, dport=ROCE, chksum=0) /
                 BTH(opcode=0x0A, dqpn=0x12, psn=fl) / Raw(tag + bytes(56)))


def udp4(tag, size=100, dst=H1, ident=7, vlans=(), ipkw=None, udpkw=None):
    pay = tag + bytes(max(0, size - 28 - len(tag)))
    kw = {"id": ident}
    kw.update(ipkw or {})
    return bytes(l2(vlans) / IP(src=H0, dst=dst, **kw) /
                 UDP(sport=1234, dport=5678, **(udpkw or {})) / Raw(pay))


def pfc(enable_hi, enable, quanta, pad_to=60):
    fr = (bytes(Ether(dst=PFC_DMAC, src=NBR_MAC[0], type=0x8808)) +
          struct.pack("!HBB8H", 0x0101, enable_hi, enable, *quanta))
    return fr + bytes(max(0, pad_to - len(fr)))


def cut_reason(cut, l3, ip6=False):
    """What the parser says of a frame cut to `cut` bytes whose headers are
    otherwise intact (length fields still those of the whole frame)."""
    if cut < l3:
        return "truncated_l2"
    if cut < l3 + (40 if ip6 else 20):
        return "truncated_l3"
    return "ipv6_bad_length" if ip6 else "ipv4_bad_length"


def switch_cases():
    cs = CaseSet(first_tag=1)

    # ---- cuts at every header boundary, and one byte either side ----
    for name, vlans in (("untagged", ()), ("VLAN", (Dot1Q(vlan=5),)),
                        ("QinQ", (Dot1AD(vlan=6), Dot1Q(vlan=7)))):
        full = roce4(b"<C>", vlans=vlans, paylen=64)
        l3 = 14 + 4 * len(vlans)
        bounds = sorted({b + d for b in (6, 12, 14, 18, 22, l3, l3 + 20,
                                         l3 + 28, l3 + 40, len(full) - 4)
                         for d in (-1, 0, 1) if 0 < b + d < len(full)})
        for c in bounds:
            # inside a VLAN tag the parser still wants the tag: l2 short
            r = "truncated_l2" if c < l3 else cut_reason(c, l3)
            cs.add(0, full[:c], "RoCEv2 %s cut at %d of %d" %
                   (name, c, len(full)), DROP, reason=r, l3_off=l3)
    full6 = roce6(b"<C>")
    for c in (13, 14, 15, 53, 54, 55, 61, 62, 63, 74, len(full6) - 1):
        cs.add(0, full6[:c], "RoCEv2 IPv6 cut at %d" % c, DROP,
               reason=cut_reason(c, 14, ip6=True))
    full_pfc = pfc(0, 0x08, [0, 0, 0, 0xffff, 0, 0, 0, 0])
    for c in (13, 14, 15, 16, 17, 20, 33):
        cs.add(0, full_pfc[:c], "PFC cut at %d" % c, DROP,
               reason="truncated_l2" if c < 14 else "mac_ctrl_malformed")
    cs.add(0, full_pfc[:34], "PFC cut at 34 (body complete)", DROP,
           reason="mac_control")

    # ---- the same cuts with IP and UDP lengths made consistent ----
    full = roce4(b"", ident=40, paylen=64)
    for c in (14 + 20 + 8, 14 + 20 + 8 + 4, 14 + 20 + 8 + 15,
              14 + 20 + 8 + 16, 14 + 20 + 8 + 12 + 5):
        b = bytearray(full[:c])
        tl = c - 14
        b[16:18] = struct.pack("!H", tl)
        b[14 + 4:14 + 6] = struct.pack("!H", 100 + c)   # IP id: unique
        b[38:40] = struct.pack("!H", tl - 20)
        udp_pay = tl - 28
        fr = ip4_fix(bytes(b), 14)
        if udp_pay < 16:
            cs.add(0, fr, "RoCEv2 datagram of %d bytes after UDP" % udp_pay,
                   DROP, reason="truncated_bth")
        else:
            cs.add(0, fr, "RoCEv2 datagram of %d bytes after UDP, lengths "
                   "consistent" % udp_pay, FWD, egress=(1,),
                   seen=("rx_roce",))

    # ---- IPv4 header fields ----
    for ihl in range(0, 5):
        cs.add(0, lambda t, ihl=ihl: udp4(t, ident=200 + ihl,
                                          ipkw={"ihl": ihl}),
               "IPv4 IHL %d" % ihl, DROP, reason="ipv4_bad_ihl")
    for ihl in (6, 8, 15):
        nops = [IPOption_NOP()] * ((ihl - 5) * 4)
        cs.add(0, lambda t, nops=nops, ihl=ihl:
               udp4(t, ident=210 + ihl, ipkw={"options": nops}),
               "IPv4 IHL %d (NOP options)" % ihl, FWD, egress=(1,),
               seen=("rx_ipv4_options",))
    # IHL 15 over a plain UDP header: the "UDP header" is read 40 bytes
    # into the payload (zeros): length 0
    cs.add(0, lambda t: ip4_fix(bytes(bytearray(udp4(t, ident=230))[:14] +
                                      bytes([0x4f]) +
                                      udp4(t, ident=230)[15:]), 14),
           "IPv4 IHL 15 over a 20-byte header (UDP read from the payload)",
           DROP, reason="udp_bad_length")
    cs.add(0, lambda t: udp4(t, ident=231, ipkw={"ihl": 15, "len": 40}),
           "IPv4 IHL 15, total length 40 (< header)", DROP,
           reason="ipv4_bad_length")
    for tl in (0, 19):
        cs.add(0, lambda t, tl=tl: udp4(t, ident=240 + tl, ipkw={"len": tl}),
               "IPv4 total length %d" % tl, DROP, reason="ipv4_bad_length")
    cs.add(0, lambda t: udp4(t, ident=260, ipkw={"len": 20}),
           "IPv4 total length 20 (header only, proto UDP)", DROP,
           reason="udp_bad_length")
    cs.add(0, lambda t: udp4(t, ident=261, ipkw={"len": 101}),
           "IPv4 total length one beyond the frame", DROP,
           reason="ipv4_bad_length")
    cs.add(0, lambda t: udp4(t, ident=262, size=46) + bytes(20),
           "IPv4 total length below the frame (Ethernet padding)", FWD,
           egress=(1,))
    cs.add(0, lambda t: udp4(t, ident=263, ipkw={"version": 6}),
           "IPv4 EtherType, version 6", DROP, reason="ipv4_bad_version")
    cs.add(0, lambda t: udp4(t, ident=264, ipkw={"chksum": 0x1234}),
           "IPv4 bad checksum", DROP, reason="ipv4_bad_checksum")
    # fragments
    cs.add(0, lambda t: bytes(l2() / IP(src=H0, dst=H1, id=270, flags="MF") /
                              UDP(sport=1, dport=2, len=3000) /
                              Raw(t + bytes(100))),
           "IPv4 first fragment (UDP length beyond it)", FWD, egress=(1,),
           seen=("rx_fragments",))
    cs.add(0, lambda t: bytes(l2() / IP(src=H0, dst=H1, id=270, frag=14,
                                        proto=17) / Raw(t + bytes(60))),
           "IPv4 later fragment", FWD, egress=(1,), seen=("rx_fragments",))
    cs.add(0, lambda t: bytes(l2() / IP(src=H0, dst=H1, id=271, flags="MF") /
                              UDP(sport=0xC000, dport=ROCE, len=5000,
                                  chksum=0) /
                              BTH(opcode=0x06, psn=1) / Raw(t + bytes(80))),
           "IPv4 first fragment of a RoCEv2 datagram", FWD, egress=(1,),
           seen=("rx_fragments", "rx_roce"))
    cs.add(0, lambda t: bytes(l2() / IP(src=H0, dst=H1, id=272, frag=1,
                                        proto=17) / Raw(b"\x12\xb7" + t)),
           "IPv4 later fragment, 2-byte body", FWD, egress=(1,),
           seen=("rx_fragments",))
    # options
    for k, opt in enumerate((IPOption_RR(), IPOption_Router_Alert())):
        cs.add(0, lambda t, opt=opt, k=k: udp4(t, ident=280 + k,
                                               ipkw={"options": [opt]}),
               "IPv4 option %s" % opt.__class__.__name__, FWD, egress=(1,),
               seen=("rx_ipv4_options",))

    # ---- VLAN stacks ----
    stacks = [((Dot1Q(vlan=1),), FWD), ((Dot1AD(vlan=2), Dot1Q(vlan=3)), FWD),
              ((Dot1Q(vlan=4), Dot1Q(vlan=5)), FWD),
              ((Dot1AD(vlan=6), Dot1Q(vlan=7), Dot1Q(vlan=8)), DROP),
              ((Dot1Q(vlan=9),) * 4, DROP)]
    for k, (st, kind) in enumerate(stacks):
        seen = ("rx_vlan_tagged",) + (("rx_qinq",) if len(st) == 2 else ())
        kw = ({"egress": (1,), "l3_off": 14 + 4 * len(st), "seen": seen}
              if kind == FWD else {"reason": "vlan_too_deep"})
        cs.add(0, lambda t, st=st, k=k: udp4(t, ident=290 + k, vlans=st),
               "%d VLAN tags" % len(st), kind, **kw)

    # ---- jumbo frames (multi-segment mbufs) ----
    cs.add(0, lambda t: udp4(t, size=9000, ident=300),
           "IPv4 9000 bytes to p1 (MTU 9000)", FWD, egress=(1,))
    cs.add(0, lambda t: udp4(t, size=8000, ident=301, vlans=(Dot1Q(vlan=3),)),
           "IPv4 8000 bytes VLAN to p1", FWD, egress=(1,), l3_off=18,
           seen=("rx_vlan_tagged",))
    cs.add(0, lambda t: udp4(t, size=9001, ident=302),
           "IPv4 9001 bytes to p1 (MTU 9000)", DROP, reason="mtu_exceeded")
    cs.add(0, lambda t: udp4(t, size=4000, ident=303, dst=FAR4),
           "IPv4 4000 bytes to the uplinks (MTU 1500)", DROP,
           reason="mtu_exceeded")
    cs.add(0, lambda t: udp4(t, size=9000, ident=304)[:-1000],
           "IPv4 9000-byte total length in an 8000-byte jumbo", DROP,
           reason="ipv4_bad_length")
    cs.add(0, lambda t: udp4(t, size=6000, ident=305,
                             ipkw={"chksum": 0xdead}),
           "IPv4 6000-byte jumbo, bad checksum", DROP,
           reason="ipv4_bad_checksum")

    # ---- PFC / PAUSE ----
    q3 = [0, 0, 0, 0xffff, 0, 0, 0, 0]
    for hi in (0x01, 0x80, 0xff):
        cs.add(0, pfc(hi, 0x08, q3), "PFC class-enable vector 0x%02x08" % hi,
               DROP, reason="mac_ctrl_malformed")
    for en, q, what in ((0x00, q3, "empty class-enable vector"),
                        (0xff, [0] * 8, "XON for every priority"),
                        (0x08, [0, 0, 0, 0, 0, 0, 0, 7], "timer for a "
                         "priority not enabled")):
        cs.add(0, pfc(0, en, q), "PFC " + what, DROP, reason="mac_control")
    cs.add(0, pfc(0, 0x08, [0] * 8, pad_to=1500), "PFC padded to 1500 bytes",
           DROP, reason="mac_control")
    cs.add(0, bytes(Ether(dst=PFC_DMAC, src=NBR_MAC[0], type=0x8808)) +
           struct.pack("!H", 0x0001), "PAUSE without its timer", DROP,
           reason="mac_ctrl_malformed")
    cs.add(0, bytes(Ether(dst=PFC_DMAC, src=NBR_MAC[0], type=0x8808)) +
           struct.pack("!HH", 0x0002, 0) + bytes(42),
           "MAC control opcode 0x0002", DROP, reason="mac_control")

    # ---- BTH ----
    for k, op in enumerate((0x18, 0x1F, 0x7F, 0xC0, 0xFF)):
        cs.add(0, lambda t, op=op, k=k: roce4(t, ident=320 + k, opcode=op),
               "BTH reserved opcode 0x%02x" % op, FWD, egress=(1,),
               seen=("rx_roce",))
    # PadCnt beyond the payload: datagram = BTH + ICRC (+ n bytes)
    for k, (pay, pad) in enumerate(((0, 1), (0, 3), (2, 3))):
        cs.add(0, bytes(l2() / IP(src=H0, dst=H1, id=330 + k) /
                        UDP(sport=0xC000, dport=ROCE, chksum=0) /
                        BTH(opcode=0x04, padcount=pad, psn=k) /
                        Raw(bytes(pay))),
               "BTH PadCnt %d with %d payload bytes" % (pad, pay), DROP,
               reason="bth_bad_padcnt")
    cs.add(0, lambda t: roce4(t, ident=335, pad=3, paylen=61),
           "BTH PadCnt 3, 61 bytes + 3 pad", FWD, egress=(1,),
           seen=("rx_roce",))
    for k, ln in enumerate((0, 7)):
        cs.add(0, lambda t, ln=ln, k=k: udp4(t, ident=340 + k,
                                             udpkw={"len": ln}),
               "UDP length %d" % ln, DROP, reason="udp_bad_length")
    cs.add(0, lambda t: udp4(t, ident=342, udpkw={"len": 200}),
           "UDP length beyond the IP packet", DROP, reason="udp_bad_length")
    cs.add(0, bytes(l2() / IP(src=H0, dst=H1, id=343) /
                    UDP(sport=5, dport=6)),
           "UDP with no payload (length 8)", FWD, egress=(1,))
    cs.add(0, bytes(l2() / IP(src=H0, dst=H1, id=344) /
                    UDP(sport=0xC000, dport=ROCE, chksum=0)),
           "UDP 4791 with no payload", DROP, reason="truncated_bth")

    # ---- IPv6 extension headers ----
    chains = [
        (IPv6ExtHdrHopByHop() / IPv6ExtHdrRouting() / IPv6ExtHdrDestOpt(),
         FWD, None),
        (IPv6ExtHdrDestOpt() / IPv6ExtHdrFragment(m=1, id=9), FWD, None),
        (IPv6ExtHdrFragment(offset=100, id=10), FWD, None),
        (IPv6ExtHdrDestOpt() / IPv6ExtHdrHopByHop(), DROP,
         "ipv6_bad_ext_header"),
        (IPv6ExtHdrDestOpt() / IPv6ExtHdrDestOpt() / IPv6ExtHdrDestOpt() /
         IPv6ExtHdrDestOpt() / IPv6ExtHdrDestOpt() / IPv6ExtHdrDestOpt() /
         IPv6ExtHdrDestOpt() / IPv6ExtHdrDestOpt() / IPv6ExtHdrDestOpt(),
         DROP, "ipv6_bad_ext_header"),
        # the parser reads a 256-byte header window (AIFAB_PKT_HDR_WINDOW)
        (IPv6ExtHdrHopByHop(options=[PadN(optdata=bytes(196))]), DROP,
         "truncated_l4"),
        (IPv6ExtHdrHopByHop(options=[PadN(optdata=bytes(188))]), DROP,
         "truncated_bth"),
        (IPv6ExtHdrHopByHop(options=[PadN(optdata=bytes(180))]) /
         IPv6ExtHdrDestOpt(options=[PadN(optdata=bytes(60))]), DROP,
         "truncated_l3"),
    ]
    for k, (ext, kind, reason) in enumerate(chains):
        frag = kind == FWD and "Fragment" in repr(ext)
        seen = ("rx_ipv6",) + (("rx_fragments",) if frag else ()) + \
            (("rx_roce",) if kind == FWD and "offset=100" not in repr(ext)
             else ())
        kw = {"egress": (1,), "seen": seen} if kind == FWD else \
            {"reason": reason, "seen": ("rx_ipv6",)}
        cs.add(0, lambda t, ext=ext, k=k: roce6(t, ext=ext, fl=400 + k),
               "IPv6 extension chain %d (%s)" % (k, ext.summary()), kind,
               **kw)
    # an extension header longer than the payload
    b = bytearray(roce6(b"", fl=420, ext=IPv6ExtHdrDestOpt()))
    b[14 + 40 + 1] = 200
    cs.add(0, bytes(b), "IPv6 destination options longer than the payload",
           DROP, reason="ipv6_bad_ext_header", seen=("rx_ipv6",))
    return cs


def l2_payload(b):
    """(EtherType, offset of what follows) past any VLAN tags."""
    off = 12
    while off + 4 <= len(b) and b[off:off + 2] in (b"\x81\x00", b"\x88\xa8"):
        off += 4
    return (b[off:off + 2], off + 2) if off + 2 <= len(b) else (b"", off)


def icrc_right(b, off):
    """The ICRC at the end of the datagram of RoCEv2 frame @b (IP header
    at @off) is the zlib recomputation over it (PROTOCOLS.md; IPv6
    extension headers covered as they are). scapy writes a right one for
    IPv4 and zeros for IPv6."""
    if b[off] >> 4 == 4:
        end = off + struct.unpack_from("!H", b, off + 2)[0]
        udp = off + (b[off] & 15) * 4
    else:
        end = off + 40 + struct.unpack_from("!H", b, off + 4)[0]
        nh, udp = b[off + 6], off + 40
        while nh in (0, 43, 44, 60):   # hop-by-hop, routing, frag, dest
            nh, udp = b[udp], udp + (8 if nh == 44 else 8 * (b[udp + 1] + 1))
    end = min(end, udp + struct.unpack_from("!H", b, udp + 4)[0])
    return icrc_zlib(b[:end], off, udp - off) == b[end - 4:end]


def gen_expect(cs):
    """What the generator's receive side (the same parser, IPv4 checksums
    not checked) must count for each corpus frame: a parse error by its
    name, else PFC / PAUSE (MAC control opcode), RoCE (the switch saw it
    as RoCE; a bad-checksum frame: IPv4 UDP to 4791) with its ICRC right,
    else dropped for a bad ICRC (rx_check_icrc = full), or not RoCE."""
    exp = {"rx_pfc": 0, "rx_pause_802_3x": 0, "rx_roce": 0,
           "rx_bad_icrc": 0, "rx_not_roce": 0}
    mal = {r: 0 for r in PARSER_DROPS if r != "ipv4_bad_checksum"}
    for c in cs.cases:
        b = bytes(c.frame)
        et, off = l2_payload(b)
        if c.reason in mal:
            mal[c.reason] += 1
            exp["rx_not_roce"] += 1
        elif c.reason == "mac_control" and et == b"\x88\x08":
            op = b[off:off + 2]
            k = {b"\x01\x01": "rx_pfc", b"\x00\x01": "rx_pause_802_3x"}.get(
                op, "rx_not_roce")
            exp[k] += 1
        elif "rx_roce" in c.seen or (
                c.reason == "ipv4_bad_checksum" and et == b"\x08\x00" and
                b[off + 9] == 17 and
                struct.unpack_from("!H", b, off + (b[off] & 15) * 4 + 2)[0]
                == ROCE):
            exp["rx_roce" if icrc_right(b, off) else "rx_bad_icrc"] += 1
        else:
            exp["rx_not_roce"] += 1
    return exp, mal


def check_totals(ck, rep, cs, what):
    """rx = forwarded + every drop (the switch generated no PFC here)."""
    p = rep["ports"]
    rx = sum(p[n]["rx_packets"] for n in p)
    tx = sum(p[n]["tx_packets"] for n in p)
    drops = sum(v for n in p for r, v in p[n]["drops"].items()
                if r != "no_mbuf")
    ck.eq(rx, len(cs.cases), "%s: frames received = corpus size" % what)
    ck.eq(tx + drops, rx, "%s: forwarded + dropped = received" % what)


def main():
    exe = exe_path()
    ck = Checks("malformed")
    cs = switch_cases()
    n_fwd = sum(1 for c in cs.cases if c.kind == FWD)
    print("corpus: %d frames (%d to forward, %d to drop), all into p0" %
          (len(cs.cases), n_fwd, len(cs.cases) - n_fwd))

    # --- the switch ---
    sets = []
    for s in SETS:
        sets += ["--set", s]
    run = Run(exe, cs.inputs(), app_args=sets, tag="malformed")
    run.run(timeout=120)
    ok = ck.eq(run.rc, 0, "switch: exit status 0 (no crash)")
    if not ok:
        print(run.describe())
    if isinstance(run.report, dict) and "ports" in run.report:
        egress_of = verify_outputs(ck, run, cs, "switch")
        verify_report(ck, run, cs, egress_of, "switch")
        check_totals(ck, run.report, cs, "switch")
    else:
        ck.check(False, "switch: report written", run.describe())
    run.cleanup()

    # --- the generator's receive side on p0 ---
    ck.section("generator receives the corpus on p0")
    gsets = sets + ["--set", "generator.enabled=true",
                    "--set", "generator.ports=p0",
                    "--set", "generator.ranks=2",
                    "--set", "generator.size_bytes=4096",
                    "--set", "generator.iterations=1",
                    "--set", "generator.warmup=0",
                    "--duration", "3"]
    grun = Run(exe, cs.inputs(), app_args=gsets, tag="malformed-gen")
    grun.run(timeout=120)
    if not ck.eq(grun.rc, 0, "generator: exit status 0 (no crash)"):
        print(grun.describe())
    rep = grun.report if isinstance(grun.report, dict) else {}
    ck.eq(rep.get("mempool_in_use_at_exit"), 0,
          "generator: mempool_in_use_at_exit")
    p0 = rep.get("ports", {}).get("p0", {})
    ck.eq(p0.get("rx_packets"), len(cs.cases),
          "generator: p0 received every corpus frame")
    ck.check(p0.get("rx_bytes") == sum(len(c.frame) for c in cs.cases),
             "generator: p0 rx_bytes = corpus bytes", repr(p0.get("rx_bytes")))
    # Per reason: every frame in exactly one class, as the corpus implies.
    exp, mal = gen_expect(cs)
    got = p0.get("generator", {})
    for k in exp:
        ck.eq(got.get(k), exp[k], "generator: p0 generator.%s" % k)
    gm = p0.get("rx_malformed", {})
    for k in mal:
        ck.eq(gm.get(k, 0), mal[k], "generator: p0 rx_malformed.%s" % k)
    ck.eq(sum(gm.values()), sum(mal.values()),
          "generator: nothing else counted as malformed")
    ck.eq(sum(exp.values()), len(cs.cases),
          "generator: the classes cover the corpus")
    roce = got.get("rx_roce", 0)
    ck.eq(got.get("rx_unknown_qp", 0) + sum(
        v for k, v in p0.get("rx_psn", {}).items() if k != "lost"), roce,
        "generator: every RoCE frame went to a QP's PSN tracking or "
        "rx_unknown_qp")
    grun.cleanup()
    check_dry_pool(ck, exe)
    ck.finish()


def check_dry_pool(ck, exe):
    """[general] mbufs at its minimum while p1 drains at 200 Mb/s: the
    pool runs dry, net_pcap fails allocations (counted by the ethdev as
    rx_nombuf), and the run must still end by itself, cleanly."""
    ck.section("pool runs dry")
    n = 6000
    frames = [udp4(b"<D%06d>" % i, size=1000, ident=i & 0xffff)
              for i in range(n)]
    run = Run(exe, [frames, [], [], []], tag="dry", tx_null=True,
              app_args=["--set", "general.mbufs=1024",
                        "--set", "general.mbuf_cache=32",
                        "--set", "port.p1.speed_gbps=0.2"])
    run.run(timeout=120)
    if not ck.eq(run.rc, 0, "dry pool: exit status 0"):
        print(run.describe())
    rep = run.report if isinstance(run.report, dict) else {}
    ck.eq(rep.get("end"), "input_consumed", "dry pool: ends by itself")
    ck.eq(rep.get("mempool_in_use_at_exit"), 0,
          "dry pool: mempool_in_use_at_exit")
    p = rep.get("ports", {})
    rx = p.get("p0", {}).get("rx_packets", 0)
    drops = sum(v for r, v in p.get("p0", {}).get("drops", {}).items()
                if r != "no_mbuf")
    tx = p.get("p1", {}).get("tx_packets", 0)
    ck.check(0 < rx < n, "dry pool: the pool did run dry (p0 received "
             "%d of %d)" % (rx, n), repr(rx))
    ck.eq(tx + drops, rx, "dry pool: every frame received was forwarded "
          "or dropped by reason")
    # The frames net_pcap could not allocate for never reach a pipeline:
    # only the ethdev counts them, and the report carries its count.
    nombuf = p.get("p0", {}).get("rx_nombuf")
    ck.check(isinstance(nombuf, int) and nombuf > 0,
             "dry pool: ports.p0.rx_nombuf reported and > 0", repr(nombuf))
    ck.eq(rx + (nombuf or 0), n, "dry pool: received + rx_nombuf = frames")
    ck.check(all(isinstance(p[x].get("imissed"), int) for x in p),
             "dry pool: every port reports imissed")
    run.cleanup()


if __name__ == "__main__":
    sys.exit(main())
