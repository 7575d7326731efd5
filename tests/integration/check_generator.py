#!/usr/bin/python3
# SPDX-License-Identifier: BSD-3-Clause
"""Check a generator TX pcap with independent tools (scapy, tshark, zlib).

For every frame:
* RoCEv2 over IPv4/UDP 4791, UDP checksum 0, source port in 0xC000-0xFFFF,
  IPv4 header checksum good (tshark), DF set;
* ICRC on the wire == scapy BTH.compute_icrc == a zlib.crc32 recomputation
  from PROTOCOLS.md's masking rules;
* BTH PadCnt makes payload + pad a multiple of 4, pad bytes zero, payload
  of at most --mtu bytes, and full MTU on first/middle packets.
Per QP (tshark infiniband.bth.destqp, with opcode and psn from tshark):
* opcodes per message: WRITE only, or first, middle*, last;
* PSN +1 per packet (mod 2^24), AckReq exactly on last/only;
* RETH on first/only, its DMA length equal to the message's payload bytes.
--dscp/--ecn check the IPv4 TOS of every frame.

Usage:
  check_generator.py [--mtu N] [--dscp D] [--ecn E] FILE.pcap
  check_generator.py [...] --run PATH/TO/gen_smoke   (writes a temp pcap)
Exit 0 when everything holds, 1 with a message per problem (first 50).
Run with /usr/bin/python3 (Debian's python3-scapy).
"""
import argparse
import os
import subprocess
import sys
import tempfile

from scapy.all import IP, UDP, Ether, raw, rdpcap
from scapy.contrib.roce import BTH

from lib_aifab import icrc_zlib, tshark_fields

ROCE_PORT = 4791
OP_FIRST, OP_MIDDLE, OP_LAST, OP_ONLY = 0x06, 0x07, 0x08, 0x0A
OP_NAMES = {OP_FIRST: "first", OP_MIDDLE: "middle", OP_LAST: "last",
            OP_ONLY: "only"}

errors = []


def fail(n, msg):
    errors.append("frame %d: %s" % (n, msg))


TSHARK_BTH = ["infiniband.bth.opcode", "infiniband.bth.destqp",
              "infiniband.bth.psn"]


def to_int(v):
    return int(v, 0) if v else None


class Qp:
    def __init__(self):
        self.psn = None
        self.in_msg = False
        self.msg_left = 0
        self.frames = 0
        self.msgs = 0
        self.bytes = 0


def check_frame(n, pkt, args):
    """Per-frame checks; returns (opcode, psn, dqpn, payload_len, dma_len,
    ack_req) or None."""
    if IP not in pkt or UDP not in pkt or pkt[UDP].dport != ROCE_PORT:
        fail(n, "not RoCEv2 over IPv4: %s" % pkt.summary())
        return None
    ip, udp = pkt[IP], pkt[UDP]
    if udp.chksum != 0:
        fail(n, "UDP checksum 0x%04x, want 0" % udp.chksum)
    if not 0xC000 <= udp.sport <= 0xFFFF:
        fail(n, "UDP sport 0x%04x outside 0xC000-0xFFFF" % udp.sport)
    if not ip.flags.DF:
        fail(n, "IPv4 DF not set")
    if args.dscp is not None and ip.tos >> 2 != args.dscp:
        fail(n, "DSCP %d, want %d" % (ip.tos >> 2, args.dscp))
    if args.ecn is not None and ip.tos & 3 != args.ecn:
        fail(n, "ECN %d, want %d" % (ip.tos & 3, args.ecn))
    l3 = bytes(raw(ip))
    if len(l3) != ip.len:
        fail(n, "IPv4 total length %d, frame holds %d" % (ip.len, len(l3)))
    wire = l3[-4:]
    if wire != icrc_zlib(l3, 0):
        fail(n, "ICRC %s, zlib recomputation %s" % (wire.hex(),
                                                     icrc_zlib(l3, 0).hex()))
    bth = pkt[BTH]
    sc = bth.compute_icrc(None)
    if wire != sc:
        fail(n, "ICRC %s, scapy BTH.compute_icrc %s" % (wire.hex(), sc.hex()))
    body = bytes(raw(udp))[8 + 12:-4]      # after BTH, before ICRC
    op = bth.opcode
    dma_len = None
    if op in (OP_FIRST, OP_ONLY):
        if len(body) < 16:
            fail(n, "no room for a RETH")
            return None
        dma_len = int.from_bytes(body[12:16], "big")
        body = body[16:]
    pad = bth.padcount
    if pad > len(body) or len(body) % 4 != 0:
        fail(n, "payload+pad %d bytes with PadCnt %d" % (len(body), pad))
        return None
    if any(body[len(body) - pad:]):
        fail(n, "pad bytes not zero")
    plen = len(body) - pad
    if plen > args.mtu:
        fail(n, "payload %d > MTU %d" % (plen, args.mtu))
    if op in (OP_FIRST, OP_MIDDLE) and plen != args.mtu:
        fail(n, "%s packet with %d payload bytes, want MTU %d"
             % (OP_NAMES[op], plen, args.mtu))
    return op, bth.psn, bth.dqpn, plen, dma_len, bool(bth.ackreq)


def check_qp_seq(n, q, op, psn, plen, dma_len, ack):
    if q.psn is not None and psn != (q.psn + 1) & 0xFFFFFF:
        fail(n, "PSN %d after %d" % (psn, q.psn))
    q.psn = psn
    q.frames += 1
    q.bytes += plen
    starts = op in (OP_FIRST, OP_ONLY)
    if starts == q.in_msg:
        fail(n, "opcode %s %s a message" % (OP_NAMES.get(op, hex(op)),
                                            "inside" if q.in_msg else
                                            "outside"))
    if ack != (op in (OP_LAST, OP_ONLY)):
        fail(n, "AckReq %d on %s" % (ack, OP_NAMES.get(op, hex(op))))
    if starts:
        q.msg_left = dma_len
        q.msgs += 1
    q.msg_left -= plen
    q.in_msg = op in (OP_FIRST, OP_MIDDLE)
    if not q.in_msg and q.msg_left != 0:
        fail(n, "message ends %d bytes off its RETH DMA length"
             % q.msg_left)


def check(pcap, args):
    pkts = rdpcap(pcap)
    ts = dict(enumerate(tshark_fields(pcap, TSHARK_BTH +
                                      ["ip.checksum.status"]), 1))
    qps = {}
    for i, p in enumerate(pkts):
        n = i + 1
        pkt = Ether(raw(p))
        got = check_frame(n, pkt, args)
        if got is None:
            continue
        op, psn, dqpn, plen, dma_len, ack = got
        t = ts.get(n, {})
        tv = tuple(to_int(t.get(f)) for f in TSHARK_BTH)
        if tv != (op, dqpn, psn):
            fail(n, "tshark opcode/destqp/psn %r, scapy %r"
                 % (tv, (op, dqpn, psn)))
        if t and t["ip.checksum.status"] != "1":
            fail(n, "tshark IPv4 checksum status %r"
                 % t["ip.checksum.status"])
        if op not in OP_NAMES:
            fail(n, "opcode 0x%02x is not RDMA WRITE" % op)
            continue
        check_qp_seq(n, qps.setdefault(dqpn, Qp()), op, psn, plen, dma_len,
                     ack)
    for dqpn, q in sorted(qps.items()):
        if q.in_msg:
            errors.append("QP 0x%06x: capture ends inside a message" % dqpn)
    msgs = sum(q.msgs for q in qps.values())
    byts = sum(q.bytes for q in qps.values())
    print("check_generator: %d frames, %d QPs, %d messages, %d payload bytes"
          % (len(pkts), len(qps), msgs, byts))
    return len(pkts)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--mtu", type=int, default=1024)
    ap.add_argument("--dscp", type=int)
    ap.add_argument("--ecn", type=int)
    ap.add_argument("--run", metavar="GEN_SMOKE")
    ap.add_argument("pcap", nargs="?")
    args = ap.parse_args()
    if args.run:
        with tempfile.TemporaryDirectory() as d:
            pcap = os.path.join(d, "gen.pcap")
            subprocess.run([args.run, "pcap", pcap], check=True,
                           stdout=subprocess.DEVNULL)
            n = check(pcap, args)
    elif args.pcap:
        n = check(args.pcap, args)
    else:
        ap.print_usage(sys.stderr)
        return 2
    if n == 0:
        errors.append("no frames")
    for e in errors[:50]:
        print("ERROR", e)
    if errors:
        print("check_generator: %d error(s)" % len(errors))
        return 1
    print("check_generator: OK")
    return 0


if __name__ == "__main__":
    sys.exit(main())
