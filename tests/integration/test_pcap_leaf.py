#!/usr/bin/python3
# SPDX-License-Identifier: BSD-3-Clause
"""dpdk-aifab over four net_pcap ports with the pcap-leaf profile.

Usage: test_pcap_leaf.py PATH/TO/dpdk-aifab [main|jumbo|all]

main:  scapy builds one input pcap per port: IPv4/IPv6 UDP both ways,
       RoCEv2 RDMA WRITE flows (several QPs / UDP source ports) to connected
       and default-routed (ECMP) destinations, VLAN and QinQ tagged frames,
       IPv4 options, fragments, MTU boundaries (p1 MTU 1000) and one frame
       per drop reason the profile can trigger. Every frame carries a unique
       tag; every output frame is matched to its input and judged with
       scapy / zlib (ICRC, checksums) and tshark (dissected fields); the
       report's per-port counters must equal what the inputs imply.
jumbo: p0/p2/p3 at MTU 9000: ~8000- and 9000-byte RoCEv2 frames (several
       2 KB mbufs each) are forwarded with the ICRC intact where the egress
       MTU allows, dropped as mtu_exceeded where it does not.
"""
import struct

from scapy.all import (ARP, IP, IPv6, UDP, Dot1AD, Dot1Q, Ether,
                       IPOption_Router_Alert, IPv6ExtHdrDestOpt,
                       IPv6ExtHdrFragment, IPv6ExtHdrHopByHop, PadN, Raw)
from scapy.contrib.roce import BTH

from scapy.utils import checksum as inet_checksum

from lib_aifab import (NBR_IP4, NBR_IP6, NBR_MAC, PORT_IP4, PORT_IP6,
                       PORT_MAC, UPLINKS, CaseSet, Run, icrc_zlib,
                       run_scenarios, verify_run)

# Off-leaf destinations (default route -> uplink ECMP group).
FAR4 = ["172.16.5.9", "172.16.7.3", "192.168.100.20"]
FAR6 = ["2001:db8::5", "2001:db8:1::7"]
ROCE = 4791


# ---- frame builders (scapy) ------------------------------------------------

def l2(port, dst=None, src=None):
    return Ether(dst=dst or PORT_MAC[port], src=src or NBR_MAC[port])


def udp4(port, src, dst, tag, size=64, ttl=64, tos=0, sport=1000,
         dport=5000, vlans=(), ipkw=None, eth_dst=None):
    """IPv4/UDP whose IP total length is `size` (payload starts with tag)."""
    pay = tag + bytes((i * 7) & 0xff for i in range(max(0, size - 28 - len(tag))))
    p = l2(port, dst=eth_dst)
    for v in vlans:
        p = p / v
    kw = {"id": int(tag[2:8]) & 0xffff}
    kw.update(ipkw or {})
    ip = IP(src=src, dst=dst, ttl=ttl, tos=tos, **kw)
    pkt = p / ip / UDP(sport=sport, dport=dport) / Raw(pay)
    b = bytes(pkt)
    return b


def udp6(port, src, dst, tag, size=80, hlim=64, sport=2000, dport=6000,
         ext=None, vlans=()):
    """IPv6/UDP with IP length (40 + payload length) = `size`."""
    hdr = 40 + 8 + (len(bytes(ext)) if ext is not None else 0)
    pay = tag + bytes((i * 13) & 0xff for i in range(max(0, size - hdr - len(tag))))
    p = l2(port)
    for v in vlans:
        p = p / v
    ip = IPv6(src=src, dst=dst, hlim=hlim, fl=int(tag[2:8]) & 0xfffff)
    if ext is not None:
        ip = ip / ext
    return bytes(p / ip / UDP(sport=sport, dport=dport) / Raw(pay))


def reth(va, rkey, length):
    return struct.pack("!QII", va, rkey, length)


def roce4(port, src, dst, tag, opcode, dqpn, psn, sport, paylen=256, pad=0,
          ttl=64, tos=0x68, ext=b"", vlans=(), eth_dst=None):
    """IPv4 RoCEv2 (DSCP 26, ECT(0) by default), ICRC by scapy."""
    # paylen 0: no payload (ACK); the test finds it by its headers then.
    data = (tag + bytes((psn + i) & 0xff for i in range(paylen - len(tag)))
            if paylen else b"")
    p = l2(port, dst=eth_dst)
    for v in vlans:
        p = p / v
    pkt = (p / IP(src=src, dst=dst, ttl=ttl, tos=tos, flags="DF",
                  id=int(tag[2:8]) & 0xffff) /
           UDP(sport=sport, dport=ROCE, chksum=0) /
           BTH(opcode=opcode, padcount=pad, dqpn=dqpn, psn=psn, ackreq=1) /
           Raw(ext + data + b"\x00" * pad))
    b = bytes(pkt)
    # The test's own sanity: scapy's ICRC agrees with PROTOCOLS.md.
    assert icrc_zlib(b, 14 + 4 * len(vlans)) == b[-4:], "scapy ICRC mismatch"
    return b


def roce6(port, src, dst, tag, opcode, dqpn, psn, sport, paylen=256, pad=0,
          hlim=64, tc=0x68, ext=b""):
    """IPv6 RoCEv2; scapy cannot ICRC IPv6, so zlib per PROTOCOLS.md."""
    data = tag + bytes((psn * 3 + i) & 0xff for i in range(paylen - len(tag)))
    pkt = (l2(port) / IPv6(src=src, dst=dst, hlim=hlim, tc=tc, fl=psn) /
           UDP(sport=sport, dport=ROCE, chksum=0) /
           BTH(opcode=opcode, padcount=pad, dqpn=dqpn, psn=psn, icrc=0) /
           Raw(ext + data + b"\x00" * pad))
    b = bytes(pkt)
    return b[:-4] + icrc_zlib(b, 14)


def ip_id_for_checksum_zero(src, dst, ttl, size):
    """The IP id that makes the from-scratch header checksum of a plain
    IPv4/UDP header (as udp4 builds it) with this TTL come out 0x0000: the
    one's complement corner case of incremental updates (RFC 1624 sec. 3)."""
    hdr = bytes(IP(src=src, dst=dst, ttl=ttl, id=0, len=size, proto=17,
                   chksum=0))
    return inet_checksum(hdr)


def set_ip4_checksum_bad(b, l3_off=14):
    b = bytearray(b)
    b[l3_off + 10] ^= 0x5a
    return bytes(b)


# ---- the main scenario -----------------------------------------------------

def build_main():
    cs = CaseSet(first_tag=1)
    fwd, drop = "fwd", "drop"
    H0, H1 = NBR_IP4[0], NBR_IP4[1]
    G0, G1 = NBR_IP6[0], NBR_IP6[1]

    # IPv4 UDP downlink -> downlink, both ways.
    for k in range(3):
        cs.add(0, lambda t, k=k: udp4(0, H0, H1, t, size=100 + 50 * k,
                                      sport=1000 + k),
               "IPv4 UDP 10.0.0.2->10.0.1.2", fwd, egress=(1,),
               flow=("v4", H0, H1, 1000 + k))
    for k in range(2):
        cs.add(1, lambda t, k=k: udp4(1, H1, H0, t, size=200, sport=3000 + k),
               "IPv4 UDP 10.0.1.2->10.0.0.2", fwd, egress=(0,),
               flow=("v4", H1, H0, 3000 + k))
    # A minimum-size frame with Ethernet padding: forwarded as it came.
    cs.add(0, lambda t: udp4(0, H0, H1, t, size=28 + 10) + b"\x00" * 8,
           "IPv4 UDP 46-byte IP in a 60-byte frame (Ethernet pad)", fwd,
           egress=(1,), flow=("v4", H0, H1, 1999))
    # TTL boundary: 2 is forwarded (leaves with 1).
    cs.add(0, lambda t: udp4(0, H0, H1, t, ttl=2, sport=1100),
           "IPv4 TTL 2", fwd, egress=(1,), flow=("v4", H0, H1, 1100))

    # RFC 1624 corner cases: the decremented header's checksum is 0x0000
    # (a naive HC + m + ~m' update gives 0xFFFF), and an input whose
    # checksum is 0x0000.
    cid = ip_id_for_checksum_zero(H0, H1, 63, 100)
    cs.add(0, lambda t: udp4(0, H0, H1, t, size=100, sport=1600,
                             ipkw={"id": cid}),
           "IPv4 whose checksum after TTL-1 is 0x0000 (id 0x%04x)" % cid, fwd,
           egress=(1,), flow=("v4", H0, H1, 1600))
    cid = ip_id_for_checksum_zero(H0, H1, 64, 100)
    cs.add(0, lambda t: udp4(0, H0, H1, t, size=100, sport=1601,
                             ipkw={"id": cid}),
           "IPv4 with checksum 0x0000 on input (id 0x%04x)" % cid, fwd,
           egress=(1,), flow=("v4", H0, H1, 1601))
    for ttl in (255, 128, 17):
        cs.add(0, lambda t, ttl=ttl: udp4(0, H0, H1, t, ttl=ttl, sport=1602),
               "IPv4 TTL %d" % ttl, fwd, egress=(1,),
               flow=("v4", H0, H1, 1602))

    # RoCEv2 RDMA WRITE: first (RETH) / middle / last (pad 3), per QP.
    def write_msg(port, src, dst, qpn, sport, psn0, egress, what, v6=False):
        ops = [(0x06, reth(0x7f0000000000 + qpn * 0x1000, 0x1234, 768), 0),
               (0x07, b"", 0), (0x08, b"", 3)]
        for i, (op, ext, pad) in enumerate(ops):
            if v6:
                fn = (lambda t, op=op, ext=ext, pad=pad, i=i:
                      roce6(port, src, dst, t, op, qpn, psn0 + i, sport,
                            paylen=256 - pad, pad=pad, ext=ext))
            else:
                fn = (lambda t, op=op, ext=ext, pad=pad, i=i:
                      roce4(port, src, dst, t, op, qpn, psn0 + i, sport,
                            paylen=256 - pad, pad=pad, ext=ext))
            cs.add(port, fn, "%s RoCEv2 op 0x%02x qp 0x%x sport 0x%x" %
                   (what, op, qpn, sport), fwd, egress=egress, roce=True,
                   flow=("roce", src, dst, sport),
                   seen=("rx_roce",) + (("rx_ipv6",) if v6 else ()))

    # Connected destination (p1) ...
    for qpn, sport in ((0x000101, 0xC001), (0x000102, 0xE8F1)):
        write_msg(0, H0, H1, qpn, sport, 100, (1,), "IPv4 ->10.0.1.2")
    # ... and default-routed ones (ECMP over p2/p3), several QPs.
    for j, (qpn, sport) in enumerate(((0x000201, 0xC123), (0x000202, 0xD456),
                                      (0x000203, 0xF00D), (0x000204, 0xC7A1))):
        write_msg(0, H0, FAR4[j % 2], qpn, sport, 0xFFFFFE, UPLINKS,
                  "IPv4 ->%s" % FAR4[j % 2])
    write_msg(1, H1, FAR4[2], 0x000301, 0xCAFE, 7, UPLINKS,
              "IPv4 ->%s" % FAR4[2])
    # Spine -> host, and an ACK back.
    write_msg(2, FAR4[0], H0, 0x000401, 0xC555, 50, (0,), "IPv4 from uplink")
    cs.add(1, lambda t: roce4(1, H1, H0, t, 0x11, 0x000101, 102, 0xC001,
                              paylen=0, ext=bytes([0x1f, 0, 0, 3])),
           "IPv4 RoCEv2 ACK (AETH) 10.0.1.2->10.0.0.2", fwd, egress=(0,),
           roce=True, flow=("roce", H1, H0, 0xC001), seen=("rx_roce",))
    # IPv6 RoCEv2 to a default-routed destination and from the uplink.
    write_msg(0, G0, FAR6[0], 0x000501, 0xC999, 1, UPLINKS,
              "IPv6 ->%s" % FAR6[0], v6=True)
    write_msg(3, FAR6[1], G1, 0x000601, 0xDDDD, 9, (1,),
              "IPv6 from uplink p3", v6=True)

    # IPv6 UDP both ways and to a default-routed destination.
    for k in range(2):
        cs.add(0, lambda t, k=k: udp6(0, G0, G1, t, size=120, sport=2000 + k),
               "IPv6 UDP fd00:0:0:0::2->fd00:0:0:1::2", fwd, egress=(1,),
               flow=("v6", G0, G1, 2000 + k), seen=("rx_ipv6",))
        cs.add(1, lambda t, k=k: udp6(1, G1, G0, t, size=300, sport=2100 + k),
               "IPv6 UDP fd00:0:0:1::2->fd00:0:0:0::2", fwd, egress=(0,),
               flow=("v6", G1, G0, 2100 + k), seen=("rx_ipv6",))
        cs.add(1, lambda t, k=k: udp6(1, G1, FAR6[k], t, size=90, sport=2200),
               "IPv6 UDP ->%s (default route)" % FAR6[k], fwd,
               egress=UPLINKS, flow=("v6", G1, FAR6[k], 2200),
               seen=("rx_ipv6",))
    cs.add(2, lambda t: udp6(2, FAR6[0], G0, t, size=200, sport=2300),
           "IPv6 UDP from uplink ->fd00:0:0:0::2", fwd, egress=(0,),
           flow=("v6", FAR6[0], G0, 2300), seen=("rx_ipv6",))
    cs.add(0, lambda t: udp6(0, G0, G1, t, hlim=2, sport=2400),
           "IPv6 hop limit 2", fwd, egress=(1,), flow=("v6", G0, G1, 2400),
           seen=("rx_ipv6",))
    cs.add(0, lambda t: udp6(0, G0, G1, t, size=200, sport=2500,
                             ext=IPv6ExtHdrFragment(offset=0, m=1, id=77)),
           "IPv6 first fragment (fragment header)", fwd, egress=(1,),
           flow=("v6", G0, G1, 2500), seen=("rx_ipv6", "rx_fragments"))
    cs.add(0, lambda t: udp6(0, G0, G1, t, size=200, sport=2600,
                             ext=IPv6ExtHdrHopByHop(options=[PadN(optdata=b"\0" * 4)])),
           "IPv6 with a hop-by-hop header", fwd, egress=(1,),
           flow=("v6", G0, G1, 2600), seen=("rx_ipv6",))

    # VLAN: tags are carried through unchanged.
    cs.add(0, lambda t: udp4(0, H0, H1, t, size=300, sport=1200,
                             vlans=[Dot1Q(vlan=100, prio=3)]),
           "IPv4 VLAN 100 PCP 3", fwd, egress=(1,), l3_off=18,
           flow=("v4", H0, H1, 1200), seen=("rx_vlan_tagged",))
    cs.add(2, lambda t: udp4(2, FAR4[1], H1, t, size=300, sport=1201,
                             vlans=[Dot1AD(vlan=200), Dot1Q(vlan=300)]),
           "IPv4 QinQ 802.1ad 200 / 802.1Q 300", fwd, egress=(1,), l3_off=22,
           flow=("v4", FAR4[1], H1, 1201),
           seen=("rx_vlan_tagged", "rx_qinq"))
    cs.add(0, lambda t: roce4(0, H0, FAR4[0], t, 0x0A, 0x000701, 5, 0xCC01,
                              ext=reth(0x1000, 1, 256), vlans=[Dot1Q(vlan=7, prio=3)]),
           "IPv4 RoCEv2 WRITE only, VLAN 7", fwd, egress=UPLINKS, l3_off=18,
           roce=True, flow=("roce", H0, FAR4[0], 0xCC01),
           seen=("rx_vlan_tagged", "rx_roce"))
    # IPv4 options and fragments.
    cs.add(0, lambda t: udp4(0, H0, H1, t, size=120, sport=1300,
                             ipkw={"options": [IPOption_Router_Alert()]}),
           "IPv4 with Router Alert option (IHL 6)", fwd, egress=(1,),
           flow=("v4", H0, H1, 1300), seen=("rx_ipv4_options",))
    cs.add(3, lambda t: udp4(3, FAR4[2], H0, t, size=400, sport=1301,
                             ipkw={"flags": "MF", "frag": 0}),
           "IPv4 first fragment (MF)", fwd, egress=(0,),
           flow=("v4", FAR4[2], H0, 1301), seen=("rx_fragments",))
    cs.add(3, lambda t: bytes(l2(3) / IP(src=FAR4[2], dst=H0, proto=17,
                                         frag=47, id=9) / Raw(t + b"z" * 40)),
           "IPv4 later fragment (offset 376)", fwd, egress=(0,),
           seen=("rx_fragments",))

    # MTU on p1 is 1000 in this run (--set port.p1.mtu=1000).
    cs.add(0, lambda t: udp4(0, H0, H1, t, size=1000, sport=1400),
           "IPv4 total length 1000 = p1 MTU", fwd, egress=(1,),
           flow=("v4", H0, H1, 1400))
    cs.add(0, lambda t: udp4(0, H0, H1, t, size=1000, sport=1401,
                             vlans=[Dot1Q(vlan=5)]),
           "IPv4 total length 1000 VLAN-tagged (tag not counted)", fwd,
           egress=(1,), l3_off=18, flow=("v4", H0, H1, 1401),
           seen=("rx_vlan_tagged",))
    cs.add(0, lambda t: udp4(0, H0, H1, t, size=1001, sport=1402),
           "IPv4 total length 1001 > p1 MTU", drop, reason="mtu_exceeded")
    cs.add(0, lambda t: udp4(0, H0, H1, t, size=1200, sport=1403),
           "IPv4 1200 bytes > p1 MTU", drop, reason="mtu_exceeded")
    cs.add(0, lambda t: udp6(0, G0, G1, t, size=1000, sport=1404),
           "IPv6 length 1000 = p1 MTU", fwd, egress=(1,),
           flow=("v6", G0, G1, 1404), seen=("rx_ipv6",))
    cs.add(0, lambda t: udp6(0, G0, G1, t, size=1001, sport=1405),
           "IPv6 length 1001 > p1 MTU", drop, reason="mtu_exceeded",
           seen=("rx_ipv6",))
    cs.add(2, lambda t: udp4(2, FAR4[0], H1, t, size=1200, sport=1406),
           "IPv4 1200 bytes uplink -> p1 (MTU 1000)", drop,
           reason="mtu_exceeded")
    # ... but p0 keeps MTU 1500.
    cs.add(2, lambda t: udp4(2, FAR4[0], H0, t, size=1500, sport=1407),
           "IPv4 total length 1500 -> p0 (MTU 1500)", fwd, egress=(0,),
           flow=("v4", FAR4[0], H0, 1407))

    # ---- drops: the switch's reasons ----
    cs.add(0, lambda t: udp4(0, H0, H1, t, ttl=1), "IPv4 TTL 1", drop,
           reason="ttl_expired")
    cs.add(0, lambda t: udp4(0, H0, FAR4[0], t, ttl=0), "IPv4 TTL 0", drop,
           reason="ttl_expired")
    cs.add(0, lambda t: udp6(0, G0, G1, t, hlim=1), "IPv6 hop limit 1", drop,
           reason="ttl_expired", seen=("rx_ipv6",))
    cs.add(2, lambda t: roce4(2, FAR4[0], H0, t, 0x0A, 1, 1, 0xC000, ttl=1,
                              ext=reth(0, 0, 256)),
           "IPv4 RoCEv2 TTL 1 from uplink", drop, reason="ttl_expired",
           seen=("rx_roce",))
    cs.add(0, lambda t: udp4(0, H0, PORT_IP4[0], t),
           "IPv4 to the ingress port's own address", drop, reason="own_address")
    cs.add(0, lambda t: udp4(0, H0, PORT_IP4[2], t),
           "IPv4 to another port's address 10.0.2.1", drop,
           reason="own_address")
    cs.add(1, lambda t: udp6(1, G1, PORT_IP6[1], t),
           "IPv6 to the port's own address", drop, reason="own_address",
           seen=("rx_ipv6",))
    cs.add(0, lambda t: udp4(0, H0, "10.0.1.77", t),
           "IPv4 to 10.0.1.77 (p1 subnet, no neighbour)", drop,
           reason="no_neighbor")
    cs.add(0, lambda t: udp6(0, G0, "fd00:0:0:1::77", t),
           "IPv6 to fd00:0:0:1::77 (no neighbour)", drop,
           reason="no_neighbor", seen=("rx_ipv6",))
    cs.add(0, lambda t: udp4(0, H0, H1, t, eth_dst=PORT_MAC[1]),
           "IPv4 to p1's MAC arriving on p0", drop, reason="dst_mac_mismatch")
    cs.add(0, lambda t: udp4(0, H0, H1, t, eth_dst="ff:ff:ff:ff:ff:ff"),
           "IPv4 to broadcast MAC", drop, reason="dst_mac_mismatch")
    cs.add(3, lambda t: roce4(3, FAR4[0], H0, t, 0x0A, 3, 3, 0xC003,
                              ext=reth(0, 0, 256), eth_dst=PORT_MAC[0]),
           "IPv4 RoCEv2 to p0's MAC arriving on p3", drop,
           reason="dst_mac_mismatch", seen=("rx_roce",))
    cs.add(0, lambda t: bytes(Ether(dst=PORT_MAC[0], src=NBR_MAC[0],
                                    type=0x88b5) / Raw(t + bytes(40))),
           "EtherType 0x88b5 (local experimental)", drop, reason="non_ip")
    cs.add(0, lambda t: bytes(Ether(dst="ff:ff:ff:ff:ff:ff", src=NBR_MAC[0]) /
                              ARP(op=1, hwsrc=NBR_MAC[0], psrc=H0,
                                  pdst=PORT_IP4[0]) / Raw(t)),
           "ARP request for 10.0.0.1", drop, reason="arp")
    cs.add(1, lambda t: bytes(Ether(dst="01:80:c2:00:00:0e", src=NBR_MAC[1],
                                    type=0x88cc)) +
           bytes.fromhex("0207" "04" "02bb00000001" "0403" "05" "7031"
                         "0602" "0078" "0000") + t,
           "LLDP frame", drop, reason="lldp")
    pfc = (bytes.fromhex("0180c2000001") + bytes.fromhex("02bb00000000") +
           bytes.fromhex("8808" "0101" "0008" "0000" "0000" "0000" "ffff"
                         "0000" "0000" "0000" "0000"))
    cs.add(0, lambda t: pfc + t + bytes(26 - len(t)),
           "PFC XOFF priority 3", drop, reason="mac_control")
    cs.add(2, lambda t: (bytes.fromhex("0180c2000001" "02bb00000002" "8808"
                                       "0001" "ffff") + t + bytes(42 - len(t))),
           "802.3x PAUSE", drop, reason="mac_control")

    # ---- drops: the parser's reasons ----
    cs.add(0, lambda t: bytes.fromhex("02aa000000000200"),
           "8-byte frame", drop, reason="truncated_l2")
    cs.add(0, lambda t: bytes(l2(0) / Dot1Q(vlan=4))[:16],
           "VLAN tag cut after 2 bytes", drop, reason="truncated_l2")
    cs.add(0, lambda t: udp4(0, H0, H1, t)[:14 + 12],
           "IPv4 header cut at 12 bytes", drop, reason="truncated_l3")
    cs.add(0, lambda t: udp6(0, G0, G1, t)[:14 + 30],
           "IPv6 header cut at 30 bytes", drop, reason="truncated_l3")
    # The parser reads 256 bytes of headers (AIFAB_PKT_HDR_WINDOW): a UDP
    # header that starts beyond that window cannot be read.
    cs.add(0, lambda t: udp6(0, G0, G1, t, size=400, sport=2700,
                             ext=IPv6ExtHdrHopByHop(options=[PadN(optdata=b"\0" * 196)])),
           "IPv6 + 200-byte hop-by-hop: UDP at offset 254, past the 256-byte "
           "header window", drop, reason="truncated_l4")
    cs.add(0, lambda t: bytes(l2(0) / IP(src=H0, dst=H1, id=1) /
                              UDP(sport=0xC000, dport=ROCE, chksum=0) /
                              Raw(b"\x0a\x00\xff\xff\x00\x00\x00\x01\x00\x00")),
           "UDP 4791 with 10 bytes (BTH + ICRC need 16)", drop,
           reason="truncated_bth")
    cs.add(0, lambda t: udp4(0, H0, H1, t, sport=1500,
                             vlans=[Dot1AD(vlan=1), Dot1Q(vlan=2), Dot1Q(vlan=3)]),
           "three VLAN tags", drop, reason="vlan_too_deep")
    cs.add(0, lambda t: set_ip4_checksum_bad(udp4(0, H0, H1, t)),
           "IPv4 bad header checksum", drop, reason="ipv4_bad_checksum")
    cs.add(0, lambda t: udp4(0, H0, H1, t, size=100)[:-20],
           "IPv4 total length 100 in an 80-byte IP packet", drop,
           reason="ipv4_bad_length")
    cs.add(0, lambda t: udp4(0, H0, H1, t, ipkw={"len": 19}),
           "IPv4 total length 19 (< header)", drop, reason="ipv4_bad_length")
    cs.add(0, lambda t: udp4(0, H0, H1, t, ipkw={"ihl": 4}),
           "IPv4 IHL 4", drop, reason="ipv4_bad_ihl")
    cs.add(0, lambda t: udp4(0, H0, H1, t, ipkw={"version": 5}),
           "EtherType IPv4, version 5", drop, reason="ipv4_bad_version")
    cs.add(0, lambda t: bytes(Ether(dst=PORT_MAC[0], src=NBR_MAC[0],
                                    type=0x86dd) /
                              Raw(bytes(IP(src=H0, dst=H1) / UDP() /
                                        Raw(t + bytes(40))))),
           "EtherType IPv6 carrying an IPv4 header", drop,
           reason="ipv6_bad_version")
    cs.add(0, lambda t: udp6(0, G0, G1, t, size=120)[:-30],
           "IPv6 payload length beyond the frame", drop,
           reason="ipv6_bad_length")
    cs.add(0, lambda t: udp6(0, G0, G1, t, ext=IPv6ExtHdrDestOpt(nh=0) /
                             IPv6ExtHdrHopByHop()),
           "IPv6 hop-by-hop header not first", drop,
           reason="ipv6_bad_ext_header")
    cs.add(0, lambda t: bytes(l2(0) / IP(src=H0, dst=H1) /
                              UDP(sport=9, dport=9, len=6) / Raw(t)),
           "UDP length 6", drop, reason="udp_bad_length")
    cs.add(0, lambda t: bytes(l2(0) / IP(src=H0, dst=H1) /
                              UDP(sport=9, dport=9, len=200) / Raw(t)),
           "UDP length beyond the IP packet", drop, reason="udp_bad_length")
    cs.add(0, lambda t: bytes(l2(0) / IP(src=H0, dst=H1, id=3) /
                              UDP(sport=0xC000, dport=ROCE, chksum=0) /
                              BTH(opcode=0x04, padcount=3, dqpn=1, psn=1)),
           "BTH PadCnt 3 with no payload", drop, reason="bth_bad_padcnt")
    cs.add(0, lambda t: (bytes.fromhex("0180c2000001" "02bb00000000" "8808"
                                       "0101" "01ff") + t + bytes(40 - len(t))),
           "PFC with a non-zero class-enable high byte", drop,
           reason="mac_ctrl_malformed")
    cs.add(3, lambda t: bytes.fromhex("0180c2000001" "02bb00000003" "8808" "01"),
           "MAC control frame with a 1-byte body", drop,
           reason="mac_ctrl_malformed")
    return cs


def build_jumbo():
    cs = CaseSet(first_tag=500)
    H0, H1 = NBR_IP4[0], NBR_IP4[1]
    G0 = NBR_IP6[0]
    # ~8000-byte RoCEv2 WRITE only, p0 (9000) -> uplinks (9000).
    for k, (qpn, sport) in enumerate(((0x0901, 0xC011), (0x0902, 0xD022))):
        cs.add(0, lambda t, qpn=qpn, sport=sport:
               roce4(0, H0, FAR4[k], t, 0x0A, qpn, 10, sport, paylen=7924,
                     ext=reth(0x10000, 0x42, 7924)),
               "IPv4 RoCEv2 WRITE only, 8000-byte frame -> uplink", "fwd",
               egress=UPLINKS, roce=True, flow=("roce", H0, FAR4[k], sport),
               seen=("rx_roce",))
    # IPv6 RoCEv2 with IP length exactly 9000 from the uplink to p0.
    cs.add(2, lambda t: roce6(2, FAR6[0], G0, t, 0x07, 0x0903, 11, 0xC033,
                              paylen=9000 - 40 - 8 - 12 - 4),
           "IPv6 RoCEv2 WRITE middle, IP length 9000 = MTU, uplink -> p0",
           "fwd", egress=(0,), roce=True,
           flow=("roce", FAR6[0], G0, 0xC033), seen=("rx_roce", "rx_ipv6"))
    cs.add(2, lambda t: udp4(2, FAR4[0], H0, t, size=9001, sport=77),
           "IPv4 total length 9001 uplink -> p0 (MTU 9000)", "drop",
           reason="mtu_exceeded")
    # p1 keeps the default 1500.
    cs.add(0, lambda t: roce4(0, H0, H1, t, 0x0A, 0x0904, 12, 0xC044,
                              paylen=7924, ext=reth(0, 0x42, 7924)),
           "IPv4 RoCEv2 8000-byte frame -> p1 (MTU 1500)", "drop",
           reason="mtu_exceeded", seen=("rx_roce",))
    cs.add(0, lambda t: udp4(0, H0, H1, t, size=1500, sport=78),
           "IPv4 total length 1500 -> p1 (default MTU 1500)", "fwd",
           egress=(1,), flow=("v4", H0, H1, 78))
    cs.add(0, lambda t: udp4(0, H0, H1, t, size=1501, sport=79),
           "IPv4 total length 1501 -> p1 (default MTU 1500)", "drop",
           reason="mtu_exceeded")
    # A small frame after the big ones: the pool must not be leaking.
    cs.add(3, lambda t: udp4(3, FAR4[1], H1, t, size=64, sport=80),
           "IPv4 small frame uplink -> p1", "fwd", egress=(1,),
           flow=("v4", FAR4[1], H1, 80))
    return cs


SCENARIOS = {
    "main": (build_main, ["--set", "port.p1.mtu=1000"],
             "pcap-leaf main (p1 MTU 1000)"),
    "jumbo": (build_jumbo, ["--set", "port.p0.mtu=9000",
                            "--set", "port.p2.mtu=9000",
                            "--set", "port.p3.mtu=9000",
                            "--set", "port.p3.speed_gbps=25"],
              "pcap-leaf jumbo (p0/p2/p3 MTU 9000, p3 25G)"),
}

# Port speeds the report must show (pcap-leaf: 100G; --set overrides).
SPEEDS = {"main": [100000] * 4, "jumbo": [100000, 100000, 100000, 25000]}


def run_scenario(ck, exe, name):
    build, args, what = SCENARIOS[name]
    cs = build()
    ck.section("%s: %d input frames (%s)" % (
        what, len(cs.cases), ", ".join("%s %d" % (p, n) for p, n in
                                       zip(("p0", "p1", "p2", "p3"),
                                           map(len, cs.inputs())))))
    kinds = {}
    for c in cs.cases:
        key = c.reason if c.kind == "drop" else "forward"
        kinds[key] = kinds.get(key, 0) + 1
    print("expected: " + ", ".join("%s %d" % kv for kv in sorted(kinds.items())))
    run = Run(exe, cs.inputs(), app_args=args, tag=name)
    run.run()
    try:
        egress_of = verify_run(ck, run, cs, what)
        if run.report and isinstance(run.report.get("ports"), dict):
            for i, sp in enumerate(SPEEDS[name]):
                ck.eq(run.report["ports"].get("p%d" % i, {}).get("speed_mbps"),
                      sp, "%s: p%d speed_mbps" % (what, i))
        ups = [egress_of.get(c.tag) for c in cs.cases
               if c.kind == "fwd" and c.egress == UPLINKS]
        print("ECMP: default-routed frames left on p2 %d, p3 %d" %
              (ups.count(2), ups.count(3)))
    finally:
        if ck.failures:
            run.keep = True
        run.cleanup()


def main():
    run_scenarios("test_pcap_leaf", SCENARIOS, run_scenario)


if __name__ == "__main__":
    main()
