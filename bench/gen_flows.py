#!/usr/bin/python3
# SPDX-License-Identifier: BSD-3-Clause
"""Write a pcap of RoCEv2 RDMA-WRITE frames, one frame per flow, for bench/.

Every frame enters the leaf on port --port (dst MAC 02:aa:00:00:00:0<port>,
src MAC 02:bb:00:00:00:0<port>, src IP 10.0.<port>.2) and is addressed to an
off-leaf IPv4 destination, so profiles/pcap-leaf.ini (and bench/leaf-800g.ini)
route it over the default route: ECMP over the uplinks p2/p3.

Flow k (0 <= k < --flows) differs from the others in its UDP source port
(0xC000 | k % 16384, the RoCEv2 entropy range), its destination QP
(0x000100 + k) and, past 16384 flows, its destination address
(10.100.0.0 + k // 16384 + 2): so every frame is a distinct 5-tuple and a
distinct QP. DSCP 26 (RoCE data, TC 3 by default) with ECT(0); UDP
checksum 0; BTH opcode RDMA WRITE middle (0x07); the ICRC is computed with
zlib's CRC-32 as PROTOCOLS.md describes (checked against its test vector at
start-up).

--size is the frame length as DPDK sees it (pkt_len, no FCS):
  * 64: BTH + 4 B payload is a 62 B frame; 2 B of Ethernet padding after
    the IP packet make it 64 B (IP total length stays 48).
  * anything >= 62: payload = size - 58 rounded down to 4 bytes (so 4154
    gives the 4096 B IB-MTU payload), padding fills the rest.

Only the fields that change are rewritten per frame, into a template, with
struct; 1,000,000 64 B frames take a few seconds. Debian's python3, no
third-party modules.
"""
import argparse
import struct
import sys
import zlib

ETH_LEN, IP_LEN, UDP_LEN, BTH_LEN, ICRC_LEN = 14, 20, 8, 12, 4
HDR_LEN = ETH_LEN + IP_LEN + UDP_LEN + BTH_LEN          # 54
ROCE_PORT = 4791
DSCP_ROCE, ECT0 = 26, 0x2
OPCODE_WRITE_MIDDLE = 0x07
PCAP_GLOBAL = struct.pack("<IHHiIII", 0xA1B2C3D4, 2, 4, 0, 0, 65535, 1)

# PROTOCOLS.md ICRC test vector: frame without ICRC, then the ICRC bytes.
_VEC = bytes.fromhex(
    "0200000000020200000000010800456a003c00010000401166440a0000010a000002"
    "c00012b7002800000400ffff0000001280000005") + b"\x41" * 16
_VEC_ICRC = bytes.fromhex("8a62293a")


def ip_csum(hdr):
    s = sum(struct.unpack("!10H", hdr))
    s = (s & 0xFFFF) + (s >> 16)
    s = (s & 0xFFFF) + (s >> 16)
    return (~s) & 0xFFFF


def icrc(l3):
    """ICRC of an IPv4 RoCEv2 packet (IP header .. payload+pad), as bytes."""
    m = bytearray(l3)
    m[1] = 0xFF                      # TOS
    m[8] = 0xFF                      # TTL
    m[10:12] = b"\xff\xff"           # header checksum
    m[IP_LEN + 6:IP_LEN + 8] = b"\xff\xff"   # UDP checksum
    m[IP_LEN + UDP_LEN + 4] = 0xFF   # BTH FECN/BECN/resv
    return struct.pack("<I", zlib.crc32(b"\xff" * 8 + bytes(m)))


def layout(size):
    """(payload bytes incl. pad, pad count, trailing Ethernet padding)."""
    if size < HDR_LEN + 4 + ICRC_LEN - 2:
        raise SystemExit(f"--size {size}: at least 60")
    body = max(size - HDR_LEN - ICRC_LEN, 0)
    pay = body - body % 4
    if pay == 0:
        pay = 4
    trailer = size - (HDR_LEN + pay + ICRC_LEN)
    if trailer < 0:
        raise SystemExit(f"--size {size}: no RoCEv2 frame of that length")
    return pay, 0, trailer


def route_of(k, routes, flows):
    """The route flow k is addressed to: spread evenly over the table
    (k * N // flows) when there are fewer flows than routes, so 1000 flows
    over 100k routes touch 1000 routes 100 apart (far apart in the LPM's
    tbl24, as a real table's destinations are), else k % N."""
    return k * routes // flows if flows < routes else k % routes


def dst_of(k, routes, flows=1):
    """Flow k's destination: 10.100.0.2 + k // 16384, or with --routes N the
    host .2 of route route_of(k) (64.0.0.0/24 + 256 * i: the route-scale
    case's /24s, bench/gen_routes.py)."""
    if routes:
        return struct.pack("!I", (64 << 24) +
                           (route_of(k, routes, flows) << 8) + 2)
    return struct.pack("!I", (10 << 24 | 100 << 16) + (k >> 14) + 2)


def write(path, flows, size, port, ts_step_ns=0, routes=0):
    pay, padcnt, trailer = layout(size)
    ip_total = IP_LEN + UDP_LEN + BTH_LEN + pay + ICRC_LEN
    eth = bytes.fromhex(f"02aa0000000{port:x}02bb0000000{port:x}0800")
    payload = bytes((i * 7 + 1) & 0xFF for i in range(pay))
    src_ip = bytes((10, 0, port, 2))
    rec_hdr = struct.Struct("<IIII")
    ip_fmt = struct.Struct("!BBHHHBBH4s4s")
    udp_fmt = struct.Struct("!HHHH")
    bth_fmt = struct.Struct("!BBHII")
    with open(path, "wb", buffering=1 << 22) as f:
        f.write(PCAP_GLOBAL)
        chunk = []
        for k in range(flows):
            dst_ip = dst_of(k, routes, flows)
            sport = 0xC000 | (k & 0x3FFF)
            ip = ip_fmt.pack(0x45, DSCP_ROCE << 2 | ECT0, ip_total,
                             k & 0xFFFF, 0x4000, 64, 17, 0, src_ip, dst_ip)
            ip = ip[:10] + struct.pack("!H", ip_csum(ip)) + ip[12:]
            udp = udp_fmt.pack(sport, ROCE_PORT, ip_total - IP_LEN, 0)
            bth = bth_fmt.pack(OPCODE_WRITE_MIDDLE, padcnt << 4, 0xFFFF,
                               (0x100 + k) & 0xFFFFFF, k & 0xFFFFFF)
            l3 = ip + udp + bth + payload
            frame = eth + l3 + icrc(l3) + b"\x00" * trailer
            ns = k * ts_step_ns
            chunk.append(rec_hdr.pack(ns // 10**9, (ns % 10**9) // 1000,
                                      size, size))
            chunk.append(frame)
            if len(chunk) >= 8192:
                f.write(b"".join(chunk))
                chunk.clear()
        f.write(b"".join(chunk))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--flows", type=int, required=True,
                    help="number of distinct flows = frames in the pcap")
    ap.add_argument("--size", type=int, default=64,
                    help="frame length without FCS (default 64)")
    ap.add_argument("--port", type=int, default=0, choices=range(4),
                    help="ingress port of pcap-leaf (default 0)")
    ap.add_argument("--routes", type=int, default=0,
                    help="address the flows over N /24s from 64.0.0.0 "
                    "(bench/gen_routes.py's; spread evenly when N > flows, "
                    "else flow k to route k %% N; default 0: "
                    "10.100.0.0/16, the default route)")
    ap.add_argument("-o", "--output", required=True)
    a = ap.parse_args()
    if icrc(_VEC[ETH_LEN:]) != _VEC_ICRC:
        sys.exit("ICRC self-check against PROTOCOLS.md's vector failed")
    if a.flows < 1:
        sys.exit("--flows: at least 1")
    if not 0 <= a.routes <= 1 << 20:
        sys.exit("--routes: 0 to 1048576")
    write(a.output, a.flows, a.size, a.port, routes=a.routes)


if __name__ == "__main__":
    main()
