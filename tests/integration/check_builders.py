#!/usr/bin/python3
# SPDX-License-Identifier: BSD-3-Clause
"""Cross-check lib/pkt's frame builders with independent tools.

test_pkt writes one frame of every kind the builders make to a pcap when
AIFAB_PKT_DUMP=<file> is set. This script reads that pcap and checks:

* every RoCEv2 frame's ICRC: scapy's BTH.compute_icrc (IPv4) and a
  zlib.crc32 recomputation from PROTOCOLS.md's masking rules (IPv4, IPv6);
* IPv4 header checksums with scapy and tshark (ip.check_checksum);
* BTH opcode / destination QP / PSN with tshark and scapy against EXPECT;
* the PFC frame with tshark (macc.opcode, macc.cbfc.enbv, pause_time.c0-c7)
  and byte-for-byte against PROTOCOLS.md's layout.

Usage:
  check_builders.py FILE.pcap
  check_builders.py --run PATH/TO/test_pkt   (writes a temporary pcap)

Exit status 0 when everything matches, 1 with a message per mismatch.
Run with /usr/bin/python3 (Debian's python3-scapy).
"""
import os
import subprocess
import sys
import tempfile

from scapy.all import IP, UDP, Dot1Q, Ether, IPv6, raw, rdpcap
from scapy.contrib.roce import BTH

from lib_aifab import icrc_zlib, tshark_fields

ROCE_PORT = 4791

# In pcap order; keep in step with dump_specs[] and test_dump_pcap in
# tests/unit/test_pkt.c. (kind, ip version, opcode, dqpn, psn, padcnt, vlan)
EXPECT = [
    ("roce", 4, 0x06, 0x000101, 100, 0, None),       # WRITE first + RETH
    ("roce", 4, 0x07, 0x000101, 101, 0, None),       # WRITE middle
    ("roce", 4, 0x08, 0x000101, 102, 3, None),       # WRITE last, 1021 B
    ("roce", 4, 0x0A, 0x000202, 0xFFFFFF, 3, None),  # WRITE only + RETH
    ("roce", 4, 0x11, 0x000303, 102, 0, None),       # ACK + AETH
    ("roce", 6, 0x0A, 0x000404, 7, 2, None),         # IPv6 WRITE only
    ("roce", 4, 0x04, 0x000505, 8, 0, (3, 10)),      # SEND only, VLAN 10
    ("cnp", 4, 0x81, 0x000606, 0, 0, None),
    ("pfc", None, None, None, None, None, None),
]

# PROTOCOLS.md's PFC layout for enable 0x28, time[3]=0xffff, time[6]=0x1234.
PFC_WANT = bytes.fromhex(
    "0180c2000001" "020000000001" "8808" "0101" "0028"
    "0000" "0000" "0000" "ffff" "0000" "0000" "1234" "0000") + bytes(26)
PFC_TIMES = [0, 0, 0, 0xFFFF, 0, 0, 0x1234, 0]

errors = []


def fail(frame_no, msg):
    errors.append("frame %d: %s" % (frame_no, msg))


def tshark_int(v):
    return int(v, 0) if v else None


def check_ipv4(n, pkt, ts):
    ip = pkt[IP]
    again = IP(raw(ip))
    again.chksum = None
    want = IP(raw(again)).chksum
    if ip.chksum != want:
        fail(n, "IPv4 checksum 0x%04x, scapy says 0x%04x" % (ip.chksum, want))
    if ts.get("ip.checksum.status") != "1":
        fail(n, "tshark says IPv4 checksum status %r (want 1 = good)"
             % ts.get("ip.checksum.status"))
    if ip.len != len(raw(ip)):
        fail(n, "IPv4 total length %d, frame holds %d" % (ip.len,
                                                         len(raw(ip))))


def check_roce(n, pkt, exp, ts):
    kind, ver, opcode, dqpn, psn, pad, vlan = exp
    frame = raw(pkt)
    l3cls = IPv6 if ver == 6 else IP
    if l3cls not in pkt or UDP not in pkt or BTH not in pkt:
        fail(n, "not dissected as IPv%s/UDP/BTH: %s" % (ver, pkt.summary()))
        return
    udp = pkt[UDP]
    if udp.dport != ROCE_PORT or udp.chksum != 0:
        fail(n, "UDP dport %d checksum 0x%04x" % (udp.dport, udp.chksum))
    if not 0xC000 <= udp.sport <= 0xFFFF:
        fail(n, "UDP sport 0x%04x outside 0xC000-0xFFFF" % udp.sport)
    if vlan is not None:
        tag = pkt.getlayer(Dot1Q)
        if tag is None or (tag.prio, tag.vlan) != vlan:
            fail(n, "VLAN tag %r, want pcp/vid %r" % (tag, vlan))
    bth = pkt[BTH]
    got = (bth.opcode, bth.dqpn, bth.psn, bth.padcount)
    if got != (opcode, dqpn, psn, pad):
        fail(n, "scapy BTH opcode/dqpn/psn/pad %r, want %r"
             % (got, (opcode, dqpn, psn, pad)))
    if kind == "cnp" and (bth.becn, bth.fecn) != (1, 0):
        fail(n, "CNP BECN/FECN %d/%d, want 1/0" % (bth.becn, bth.fecn))
    if kind == "cnp" and len(frame) != 74:
        fail(n, "CNP frame is %d bytes, want 74" % len(frame))
    # tshark 4.0 decodes the BTH even of CNP (opcode 129, "Unknown").
    t = (tshark_int(ts.get("infiniband.bth.opcode")),
         tshark_int(ts.get("infiniband.bth.destqp")),
         tshark_int(ts.get("infiniband.bth.psn")))
    if t != (opcode, dqpn, psn):
        fail(n, "tshark BTH opcode/destqp/psn %r, want %r"
             % (t, (opcode, dqpn, psn)))
    wire = frame[-4:]
    mine = icrc_zlib(bytes(raw(pkt[l3cls])), 0)
    if wire != mine:
        fail(n, "ICRC on wire %s, zlib recomputation %s"
             % (wire.hex(), mine.hex()))
    if ver == 4:
        sc = bth.compute_icrc(None)
        if wire != sc:
            fail(n, "ICRC on wire %s, scapy BTH.compute_icrc %s"
                 % (wire.hex(), sc.hex()))
        check_ipv4(n, pkt, ts)


def check_pfc(n, pkt, ts):
    frame = raw(pkt)
    if frame != PFC_WANT:
        fail(n, "PFC bytes\n  got  %s\n  want %s" % (frame.hex(),
                                                      PFC_WANT.hex()))
    if tshark_int(ts.get("macc.opcode")) != 0x0101:
        fail(n, "tshark macc.opcode %r" % ts.get("macc.opcode"))
    if tshark_int(ts.get("macc.cbfc.enbv")) != 0x28:
        fail(n, "tshark macc.cbfc.enbv %r" % ts.get("macc.cbfc.enbv"))
    times = [tshark_int(ts.get("macc.cbfc.pause_time.c%d" % i))
             for i in range(8)]
    if times != PFC_TIMES:
        fail(n, "tshark pause times %r, want %r" % (times, PFC_TIMES))


FIELDS = ["infiniband.bth.opcode", "infiniband.bth.destqp",
          "infiniband.bth.psn", "ip.checksum.status", "macc.opcode",
          "macc.cbfc.enbv"] + ["macc.cbfc.pause_time.c%d" % i
                               for i in range(8)]


def check(pcap):
    pkts = rdpcap(pcap)
    if len(pkts) != len(EXPECT):
        fail(0, "%d frames in %s, want %d" % (len(pkts), pcap, len(EXPECT)))
        return
    ts = dict(enumerate(tshark_fields(pcap, FIELDS), 1))  # frame number
    for i, (pkt, exp) in enumerate(zip(pkts, EXPECT)):
        n = i + 1
        if exp[0] == "pfc":
            check_pfc(n, Ether(raw(pkt)), ts.get(n, {}))
        else:
            check_roce(n, Ether(raw(pkt)), exp, ts.get(n, {}))


def main(argv):
    if len(argv) == 3 and argv[1] == "--run":
        with tempfile.TemporaryDirectory() as d:
            pcap = os.path.join(d, "builders.pcap")
            env = dict(os.environ, AIFAB_PKT_DUMP=pcap)
            subprocess.run([argv[2]], env=env, check=True,
                           stdout=subprocess.DEVNULL)
            check(pcap)
    elif len(argv) == 2:
        check(argv[1])
    else:
        sys.stderr.write(__doc__)
        return 2
    for e in errors:
        print("MISMATCH", e)
    if errors:
        print("check_builders: %d mismatch(es)" % len(errors))
        return 1
    print("check_builders: %d frames OK (ICRC, IPv4 checksum, BTH, PFC)"
          % len(EXPECT))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
