#!/usr/bin/python3
# SPDX-License-Identifier: BSD-3-Clause
"""The collective generator run by the real binary (profiles/gen-open-loop.ini
over two net_pcap ports), judged by independent tools.

Usage: test_generator_app.py PATH/TO/dpdk-aifab

For ring AllReduce, halving-doubling AllReduce, all-to-all and ring
AllGather:
* every frame of every tx_pcap passes check_generator.py (ICRC = scapy
  compute_icrc = zlib; tshark opcode / dest QP / PSN; opcode order
  first/middle*/last or only per message; PSN +1 per packet; RETH DMA
  length; DSCP 26 / ECN 2);
* payload bytes per rank read from the pcap (struct, headers, RETH, pad and
  ICRC taken off) = nccl-tests' schedule: 2(N-1)/N x S per iteration for
  AllReduce (ring and halving-doubling), (N-1)/N x S for all-to-all and
  AllGather; the peers each rank sends to (ring successor, r XOR 2^k, every
  other rank, evenly); each rank's frames leave from port r % 2;
* dest QPs are receiver QPNs qpn_base + 2i + 1, UDP source ports the Linux
  formula of (qpn_base + 2i, qpn_base + 2i + 1);
* the JSON report: tx_packets / tx_bytes = the pcaps; time_us min <= avg <=
  max, each at least the wire time of one rank's share at its rate (open
  loop: time = time to send); algbw = S / avg time; busbw = algbw x
  2(N-1)/N (AllReduce) or (N-1)/N (all-to-all, AllGather).
Loss / reordering / duplicates: a first run's own frames, fed back into the
generator's RX (net_pcap rx_pcap) with one frame dropped, two swapped and
one duplicated (plus an ARP and a RoCE frame to an unknown QP), must come
out in the report as exactly qps.lost 1, reordered 1, duplicates 1.
"""
import os
import socket
import struct
import subprocess
import sys
import tempfile

from lib_aifab import (Checks, _remove_runtime_dir, exe_path, file_prefix,
                       icrc_zlib, linux_sport, read_pcap, read_report,
                       source_root, tshark_fields, write_pcap)

N_PORTS = 2
RANKS = 4
QPN_BASE = 256
MTU = 1024
BASE_IP = (10 << 24) | (100 << 16) | 1
HERE = os.path.dirname(os.path.abspath(__file__))
OP_FIRST, OP_MIDDLE, OP_LAST, OP_ONLY = 0x06, 0x07, 0x08, 0x0A
FACTOR = {"allreduce_ring": lambda n: 2 * (n - 1) / n,
          "allreduce_hd": lambda n: 2 * (n - 1) / n,
          "alltoall": lambda n: (n - 1) / n,
          "allgather_ring": lambda n: (n - 1) / n}
OP_NAME = {"allreduce_ring": "allreduce", "allreduce_hd": "allreduce",
           "alltoall": "alltoall", "allgather_ring": "allgather"}


def profile():
    return os.path.join(source_root(), "profiles", "gen-open-loop.ini")


def run(exe, d, sets, rx=None, tag="gen"):
    """One run; rx: frames fed into p0's RX (rx_pcap), else TX only."""
    prefix = file_prefix(tag)
    cmd = [exe, "--no-huge", "-m", "512", "--no-pci", "--file-prefix", prefix]
    for i in range(N_PORTS):
        spec = "net_pcap%d,tx_pcap=%s" % (i, os.path.join(d, "out%d.pcap" % i))
        if rx is not None and i == 0:
            write_pcap(os.path.join(d, "in0.pcap"), rx)
            spec += ",rx_pcap=" + os.path.join(d, "in0.pcap")
        cmd += ["--vdev", spec]
    cmd += ["--", "--profile", profile(), "--quiet", "--report-json",
            os.path.join(d, "report.json")]
    for s in sets:
        cmd += ["--set", s]
    p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                       text=True, timeout=120)
    _remove_runtime_dir(prefix)
    rep = read_report(os.path.join(d, "report.json"))
    outs = [read_pcap(os.path.join(d, "out%d.pcap" % i)) or []
            for i in range(N_PORTS)]
    return p, rep, outs, " ".join(cmd)


def ok_run(ck, what, p, rep, cmd):
    good = ck.eq(p.returncode, 0, "%s: exit status" % what)
    if not good:
        print("command: %s\nstderr:\n%s" % (cmd, "\n".join(
            p.stderr.splitlines()[-15:])))
    good = ck.check(isinstance(rep, dict) and "generator" in rep,
                    "%s: report with a generator block" % what) and good
    if good:
        ck.eq(rep.get("end"), "input_consumed", "%s: end" % what)
        ck.eq(rep.get("mempool_in_use_at_exit"), 0,
              "%s: mempool_in_use_at_exit" % what)
    return good


def parse(fr):
    """(src rank, dst rank, dqpn, sport, opcode, payload bytes) of a frame
    (IPv4 IHL 5, untagged: what the generator sends), by struct."""
    ihl = (fr[14] & 0xf) * 4
    src, dst = struct.unpack_from("!II", fr, 14 + 12)
    u = 14 + ihl
    sport, _dport, ulen = struct.unpack_from("!HHH", fr, u)
    bth = u + 8
    op = fr[bth]
    pad = (fr[bth + 1] >> 4) & 3
    dqpn = int.from_bytes(fr[bth + 5:bth + 8], "big")
    reth = 16 if op in (OP_FIRST, OP_ONLY) else 0
    pay = ulen - 8 - 12 - reth - pad - 4
    return src - BASE_IP, dst - BASE_IP, dqpn, sport, op, pay


def expected_peers(coll, r, n):
    if coll in ("allreduce_ring", "allgather_ring"):
        return {(r + 1) % n}
    if coll == "allreduce_hd":
        out, k = set(), 1
        while k < n:
            out.add(r ^ k)
            k *= 2
        return out
    return set(range(n)) - {r}


def check_collective(ck, exe, coll, size, iters, warmup, rate_gbps):
    what = coll
    sets = ["generator.collective=%s" % coll,
            "generator.size_bytes=%d" % size,
            "generator.iterations=%d" % iters,
            "generator.warmup=%d" % warmup,
            "generator.rate_gbps=%s" % rate_gbps,
            "generator.rx=false"]
    with tempfile.TemporaryDirectory(prefix="aifab-it-gen-") as d:
        p, rep, outs, cmd = run(exe, d, sets)
        if not ok_run(ck, what, p, rep, cmd):
            return
        ck.section(what + ": every frame (check_generator.py)")
        for i in range(N_PORTS):
            c = subprocess.run(
                ["/usr/bin/python3", os.path.join(HERE, "check_generator.py"),
                 "--mtu", str(MTU), "--dscp", "26", "--ecn", "2",
                 os.path.join(d, "out%d.pcap" % i)],
                stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                timeout=600)
            ck.check(c.returncode == 0, "%s: out%d.pcap passes "
                     "check_generator.py (%s)" % (what, i,
                                                 c.stdout.strip().splitlines()
                                                 [-1] if c.stdout else ""),
                     c.stdout[-1500:])
        ck.section(what + ": the schedule, from the pcaps")
        total = iters + warmup
        pay = {}                       # (src, dst) -> payload bytes
        bad_port, bad_qp = [], set()
        conn_of = {}
        for i in range(N_PORTS):
            for fr in outs[i]:
                s, t, dqpn, sport, _op, n = parse(fr)
                pay[(s, t)] = pay.get((s, t), 0) + n
                if s % N_PORTS != i:
                    bad_port.append((i, s))
                if (dqpn < QPN_BASE or (dqpn - QPN_BASE) % 2 != 1 or
                        sport != linux_sport(dqpn - 1, dqpn)):
                    bad_qp.add((dqpn, sport))
                conn_of.setdefault(dqpn, set()).add((s, t))
        ck.check(not bad_port, what + ": rank r sends from port r % 2",
                 repr(bad_port[:5]))
        ck.check(not bad_qp, what + ": dest QPs qpn_base + 2i + 1, sport = "
                 "Linux formula(qpn_base + 2i, qpn_base + 2i + 1)",
                 repr(sorted(bad_qp)[:5]))
        ck.check(all(len(v) == 1 for v in conn_of.values()),
                 what + ": one (source, destination) rank pair per QP")
        f = FACTOR[coll](RANKS)
        for r in range(RANKS):
            mine = {t: b for (s, t), b in pay.items() if s == r}
            ck.eq(sum(mine.values()), round(f * size * total),
                  "%s: rank %d payload = %s x S x %d iterations" %
                  (what, r, "2(N-1)/N" if f > 1 else "(N-1)/N", total))
            ck.eq(set(mine), expected_peers(coll, r, RANKS),
                  "%s: rank %d's peers" % (what, r))
            if coll == "alltoall":
                ck.check(all(b == size // RANKS * total for b in
                             mine.values()), "%s: rank %d sends S/N to each"
                         % (what, r), repr(mine))
        ck.section(what + ": report")
        g = rep["generator"]
        col = g.get("collective", {})
        frames = sum(len(o) for o in outs)
        nbytes = sum(len(x) for o in outs for x in o)
        ck.eq(g.get("tx_packets"), frames, what + ": tx_packets = pcap frames")
        ck.eq(g.get("tx_bytes"), nbytes, what + ": tx_bytes = pcap bytes")
        ck.eq(g.get("tx_dropped"), 0, what + ": tx_dropped")
        for i in range(N_PORTS):
            pr = rep["ports"]["p%d" % i]
            ck.eq((pr["tx_packets"], pr["tx_bytes"]),
                  (len(outs[i]), sum(len(x) for x in outs[i])),
                  what + ": p%d tx counters = out%d.pcap" % (i, i))
        ck.eq(col.get("op"), OP_NAME[coll], what + ": op")
        ck.eq(col.get("size"), size, what + ": size")
        ck.eq(col.get("ranks"), RANKS, what + ": ranks")
        ck.eq(col.get("iterations"), iters, what + ": timed iterations")
        t = col.get("time_us", {})
        tmin, tavg, tmax = t.get("min", 0), t.get("avg", 0), t.get("max", 0)
        ck.check(0 < tmin <= tavg <= tmax, what + ": time_us min <= avg <= max",
                 repr(t))
        # Open loop: an iteration lasts at least one rank's bytes on the
        # wire at its rate (the busiest rank; 24 = FCS + preamble + IFG).
        wire = max(sum(len(x) + 24 for x in outs[r % N_PORTS]
                       if parse(x)[0] == r) for r in range(RANKS))
        # (less two MTU frames: the bucket starts full)
        floor_us = (wire / total - 2 * (MTU + 90)) * 8 / \
            (float(rate_gbps) * 1e3)
        ck.check(tmin >= floor_us, "%s: time_us min %.1f >= wire "
                 "time of a rank's share %.1f us at %s Gbit/s" %
                 (what, tmin, floor_us, rate_gbps))
        algbw = size / (tavg * 1e-6) / 1e9
        ck.check(abs(col.get("algbw_gbps", 0) - algbw) <= algbw * 1e-3,
                 "%s: algbw_gbps %.6f = S / avg time %.6f" %
                 (what, col.get("algbw_gbps", 0), algbw))
        ck.check(abs(col.get("busbw_gbps", 0) - algbw * f) <= algbw * f * 1e-3,
                 "%s: busbw_gbps %.6f = algbw x %s = %.6f" %
                 (what, col.get("busbw_gbps", 0),
                  "2(N-1)/N" if f > 1 else "(N-1)/N", algbw * f))


def psn_of(fr):
    return int.from_bytes(fr[14 + 20 + 8 + 9:14 + 20 + 8 + 12], "big")


def dqpn_of(fr):
    return int.from_bytes(fr[14 + 20 + 8 + 5:14 + 20 + 8 + 8], "big")


def check_rx(ck, exe):
    """The generator's own frames back into its RX, with a gap, a swap and a
    duplicate on three different QPs."""
    what = "rx psn"
    sets = ["generator.size_bytes=65536", "generator.iterations=1",
            "generator.warmup=0", "generator.rate_gbps=0.05",
            "generator.rx=true"]
    with tempfile.TemporaryDirectory(prefix="aifab-it-gen-") as d:
        p, rep, outs, cmd = run(exe, d, sets, tag="gen1")
        if not ok_run(ck, what + " (first run)", p, rep, cmd):
            return
        frames = outs[0] + outs[1]
        ck.check(len(frames) > 50, what + ": first run sent %d frames" %
                 len(frames))
        by_qp = {}
        for n, fr in enumerate(frames):
            by_qp.setdefault(dqpn_of(fr), []).append(n)
        qps = sorted(q for q, v in by_qp.items() if len(v) >= 6)
        if not ck.check(len(qps) >= 3, what + ": three QPs with 6+ frames",
                        repr({q: len(v) for q, v in by_qp.items()})):
            return
        qa, qb, qc = qps[:3]
        drop = by_qp[qa][2]                   # a middle frame: a gap
        sw1, sw2 = by_qp[qb][2], by_qp[qb][3]  # a swap
        dup = by_qp[qc][4]                    # a duplicate
        crafted = []
        for n, fr in enumerate(frames):
            if n == drop:
                continue
            if n == sw1:
                crafted.append(frames[sw2])
                crafted.append(fr)
                continue
            if n == sw2:
                continue
            crafted.append(fr)
            if n == dup:
                crafted.append(fr)
        # Not RoCE, and RoCE to a sender QP (even offset: nobody receives).
        crafted.append(bytes.fromhex("ffffffffffff0e00000000090806") +
                       bytes(46))
        unk = bytearray(frames[0])
        unk[14 + 20 + 8 + 5:14 + 20 + 8 + 8] = QPN_BASE.to_bytes(3, "big")
        unk[-4:] = icrc_zlib(unk, 14)   # the ICRC covers the dest QP
        crafted.append(bytes(unk))
    with tempfile.TemporaryDirectory(prefix="aifab-it-gen-") as d:
        p, rep, outs2, cmd = run(exe, d, sets, rx=crafted, tag="gen2")
        if not ok_run(ck, what + " (crafted RX)", p, rep, cmd):
            return
        def key(fs):   # ranks interleave by timing: compare as sets
            return sorted((dqpn_of(f), psn_of(f), len(f)) for f in fs)
        ck.check(key(outs2[0] + outs2[1]) == key(frames), what + ": same "
                 "seed, same QPs, PSNs and lengths sent as the first run")
        g = rep["generator"]
        q = g.get("qps", {})
        ck.eq(g.get("rx_packets"), len(crafted), what + ": rx_packets")
        ck.eq(g.get("rx_roce"), len(crafted) - 1, what + ": rx_roce")
        ck.eq(q.get("lost"), 1, what + ": qps.lost (one frame dropped)")
        ck.eq(q.get("reordered"), 1, what + ": qps.reordered (one swap)")
        ck.eq(q.get("duplicates"), 1, what + ": qps.duplicates (one copy)")
        ck.eq(q.get("stale"), 0, what + ": qps.stale")
        gp = rep["ports"]["p0"].get("generator", {})
        ck.eq(gp.get("rx_not_roce"), 1, what + ": p0 rx_not_roce (the ARP)")
        ck.eq(gp.get("rx_unknown_qp"), 1,
              what + ": p0 rx_unknown_qp (a sender's QPN)")


def check_gateways(ck, exe):
    """[generator] gateway_macs: frames leave each port addressed to the
    DUT's MAC given for it (read back by tshark); a bad list is refused."""
    gws = ["02:dd:00:00:00:0a", "02:dd:00:00:00:0b"]
    with tempfile.TemporaryDirectory() as d:
        p, rep, outs, cmd = run(exe, d, [
            "generator.collective=allreduce_ring",
            "generator.size_bytes=65536", "generator.iterations=1",
            "generator.warmup=0",
            "generator.gateway_macs=" + " ".join(gws)], tag="gengw")
        if ok_run(ck, "gateway_macs", p, rep, cmd):
            for i in range(N_PORTS):
                dst = {row["eth.dst"] for row in tshark_fields(
                    os.path.join(d, "out%d.pcap" % i), ["eth.dst"])}
                ck.eq(dst, {gws[i]}, "gateway_macs: every frame of port "
                      "%d goes to %s (tshark eth.dst)" % (i, gws[i]))
        p, rep, outs, cmd = run(exe, d, [
            "generator.gateway_macs=02:dd:00:00:00:0a 01:00:5e:00:00:01"],
            tag="gengwbad")
        ck.check(p.returncode != 0 and "gateway_macs" in p.stderr and
                 "allowed" in p.stderr,
                 "gateway_macs: a multicast MAC is refused, naming the key",
                 p.stderr.strip()[-300:])


RANK_TABLE = [  # rank, MAC, IPv4, port (None: the round robin, r % 2)
    (0, "02:00:5e:10:00:0a", "192.168.7.10", "p1"),
    (1, "02:00:5e:10:00:0b", "192.168.9.3", "p1"),
    (2, "0a:bb:cc:dd:ee:02", "172.16.0.2", "p0"),
    (3, "02:00:5e:10:00:33", "10.1.2.3", None),
]


def check_rank_table(ck, exe):
    """[generator] rank_table: each rank's frames carry its MAC and IPv4
    from the file (source, and destination of its peers' frames) and
    leave from the port it names; bad tables are refused in one line
    naming the profile, key, file, line and value."""
    with tempfile.TemporaryDirectory() as d:
        tab = os.path.join(d, "ranks.txt")
        with open(tab, "w") as f:
            f.write("# rank mac ipv4 [port]\n")
            for r, mac, ip, port in RANK_TABLE:
                f.write("%d %s %s%s\n" % (r, mac, ip,
                                          " " + port if port else ""))
        p, rep, outs, cmd = run(exe, d, ["generator.rank_table=" + tab,
                                         "generator.iterations=1",
                                         "generator.warmup=0"],
                                tag="ranktab")
        if not ok_run(ck, "rank table", p, rep, cmd):
            return
        want_port = {r: (port or "p%d" % (r % 2))
                     for r, _, _, port in RANK_TABLE}
        by_ip = {socket.inet_aton(ip): (r, bytes.fromhex(
            mac.replace(":", ""))) for r, mac, ip, _ in RANK_TABLE}
        seen, bad = set(), []
        for pi, frames in enumerate(outs):
            for fr in frames:
                b = fr if isinstance(fr, bytes) else fr[1]
                src, dst = by_ip.get(b[26:30]), by_ip.get(b[30:34])
                if src is None or dst is None:
                    bad.append("unknown IPs %s" % b[26:34].hex())
                    continue
                if b[6:12] != src[1] or b[0:6] != dst[1]:
                    bad.append("rank %d -> %d: MACs %s" %
                               (src[0], dst[0], b[0:12].hex()))
                if want_port[src[0]] != "p%d" % pi:
                    bad.append("rank %d left from p%d" % (src[0], pi))
                seen.add(src[0])
        ck.check(not bad, "rank table: every frame has its ranks' MACs "
                 "and IPv4s from the file and leaves from the rank's "
                 "port", "; ".join(bad[:5]))
        ck.eq(sorted(seen), [0, 1, 2, 3], "rank table: every rank sent")
        cases = [
            ("0 02:00:00:00:00:01 10.0.0.1\n1 02:00:00:00:00:02 10.0.0.2\n"
             "2 02:00:00:00:00:03 10.0.0.3\n", "rank 3 missing"),
            ("0 02:00:00:00:00:01 10.0.0.1\n0 02:00:00:00:00:02 10.0.0.2\n",
             "line 2: rank 0 listed twice"),
            ("0 zz:00:00:00:00:01 10.0.0.1\n", "line 1: MAC 'zz:00:00:00:00:01'"),
            ("0 01:00:5e:00:00:01 10.0.0.1\n", "line 1: MAC '01:00:5e"),
            ("0 02:00:00:00:00:01 10.0.0.300\n", "line 1: IPv4 '10.0.0.300'"),
            ("0 02:00:00:00:00:01 10.0.0.1 p9\n",
             "line 1: port 'p9' is not a generator port; allowed: p0, p1"),
            ("7 02:00:00:00:00:01 10.0.0.1\n", "line 1: rank '7'; allowed: 0..3"),
        ]
        for i, (text, want) in enumerate(cases):
            bt = os.path.join(d, "bad%d.txt" % i)
            with open(bt, "w") as f:
                f.write(text)
            p, rep, outs, cmd = run(exe, d, ["generator.rank_table=" + bt],
                                    tag="ranktab-bad")
            lines = [x for x in p.stderr.splitlines() if "dpdk-aifab" in x
                     or "rank_table" in x]
            ck.check(p.returncode == 1 and len(lines) == 1 and
                     "[generator] rank_table = '%s'" % bt in lines[0] and
                     want in lines[0] and profile() in lines[0],
                     "bad rank table refused: %s" % want, p.stderr[-300:])


def check_channel_dscp(ck, exe):
    """channel_dscp: each channel's data frames carry its DSCP/ECN (the
    channel of connection i = qpn_base + 2i + 1 is i % C for a ring with
    one QP per connection: each rank opens channel 0's, then 1's)."""
    want = {0: (10, 2), 1: (34, 1)}   # "10 34/1"; ecn defaults to 2
    with tempfile.TemporaryDirectory() as d:
        p, rep, outs, cmd = run(exe, d, ["generator.channels=2",
                                         "generator.channel_dscp=10 34/1",
                                         "generator.iterations=1",
                                         "generator.warmup=0"],
                                tag="chdscp")
        if not ok_run(ck, "channel_dscp", p, rep, cmd):
            return
        qpn_base = 256
        got, bad = {0: 0, 1: 0}, []
        for frames in outs:
            for b in frames:
                i = (int.from_bytes(b[47:50], "big") - qpn_base - 1) // 2
                c = i % 2
                tos = (want[c][0] << 2) | want[c][1]
                got[c] += 1
                if b[15] != tos:
                    bad.append("QP %d (channel %d): TOS 0x%02x, want 0x%02x"
                               % (i, c, b[15], tos))
        ck.check(not bad and got[0] > 0 and got[0] == got[1],
                 "channel_dscp: channel 0 frames DSCP 10 ECT(0), channel 1 "
                 "DSCP 34 ECT(1) (%d + %d frames)" % (got[0], got[1]),
                 "; ".join(bad[:4]))
        for val, why in (("64", "'64'; allowed: dscp[/ecn]"),
                         ("10/4", "'10/4'; allowed"),
                         ("1 2 3", "'3' is one entry too many")):
            p, rep, outs, cmd = run(exe, d, ["generator.channels=2",
                                             "generator.channel_dscp=" + val],
                                    tag="chdscp-bad")
            lines = [x for x in p.stderr.splitlines() if "dpdk-aifab" in x]
            ck.check(p.returncode == 1 and len(lines) == 1 and
                     "[generator] channel_dscp = '%s'" % val in lines[0] and
                     why in lines[0], "channel_dscp = '%s' refused" % val,
                     p.stderr[-300:])


def check_rank_cap(ck, exe):
    """4096 ranks (lib/collective's limit) run; 4097 is refused in one
    line naming the key, the value and the range."""
    prefix = file_prefix("ranks")
    base = [exe, "--no-huge", "-m", "512", "--no-pci", "--file-prefix",
            prefix]
    for i in range(N_PORTS):
        base += ["--vdev", "net_pcap%d,tx_pcap=/dev/null" % i]
    base += ["--", "--profile", profile(), "--quiet"]
    p = subprocess.run(base + ["--set", "generator.ranks=4097"],
                       capture_output=True, text=True, timeout=60)
    _remove_runtime_dir(prefix)
    lines = [x for x in p.stderr.splitlines() if "dpdk-aifab" in x]
    ck.check(p.returncode == 1 and len(lines) == 1 and "ranks" in lines[0]
             and "4097" in lines[0] and "2..4096" in lines[0],
             "ranks = 4097 refused: key, value, allowed 2..4096",
             p.stderr[-300:])
    # Halving-doubling over 4096 ranks, S = 4096 bytes: each rank sends
    # S/2, S/4 ... 1 byte (12 steps) and back, to 12 distinct peers (12
    # QPs per rank); at IB MTU 1024 the two 2048-byte messages take two
    # packets each, the other 22 one: 26 packets per rank.
    with tempfile.TemporaryDirectory() as d:
        rj = os.path.join(d, "r.json")
        p = subprocess.run(base + [
            "--report-json", rj, "--set", "generator.ranks=4096",
            "--set", "generator.collective=allreduce_hd",
            "--set", "generator.size_bytes=4096",
            "--set", "generator.iterations=1", "--set", "generator.warmup=0"],
            capture_output=True, text=True, timeout=120)
        _remove_runtime_dir(prefix)
        rep = read_report(rj)
    if not ok_run(ck, "4096 ranks", p, rep, " ".join(base)):
        return
    g = rep["generator"]
    ck.eq(g["collective"]["ranks"], 4096, "4096 ranks: collective.ranks")
    ck.eq(g["collective"]["iterations"], 1, "4096 ranks: one iteration")
    ck.eq(g["tx_packets"], 4096 * 26, "4096 ranks: 26 packets per rank")
    ck.eq(g["per_qp"]["qps"], 4096 * 12, "4096 ranks: 12 QPs per rank")


def main():
    exe = os.path.abspath(exe_path())
    ck = Checks("test_generator_app")
    # 256 KiB with 1 warm-up + 2 timed iterations: a few thousand frames
    # for check_generator.py; rate 10 Gbit/s per rank.
    for coll in ("allreduce_ring", "allreduce_hd", "alltoall",
                 "allgather_ring"):
        ck.section(coll)
        check_collective(ck, exe, coll, 262144, 2, 1, "10")
    ck.section("loss / reordering / duplicates from PSNs")
    check_rx(ck, exe)
    ck.section("gateway MACs for a routing DUT")
    check_gateways(ck, exe)
    ck.section("rank table")
    check_rank_table(ck, exe)
    ck.section("per-channel DSCP/ECN")
    check_channel_dscp(ck, exe)
    ck.section("4096 ranks")
    check_rank_cap(ck, exe)
    ck.finish()


if __name__ == "__main__":
    sys.exit(main())
