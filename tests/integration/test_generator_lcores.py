#!/usr/bin/python3
# SPDX-License-Identifier: BSD-3-Clause
"""The generator on several lcores ([generator] lcores = 1-N, issue 15):
the ranks are sharded round robin over the workers, each with its own TX
queue on every port; the schedule is the same, only who sends changes.
Judged by independent tools (check_generator.py: scapy, tshark, zlib; our
own struct parsing; zlib ICRC), never by the generator's own view.

open:   profiles/gen-open-loop.ini (4 ranks, two net_pcap ports, one
        tx_pcap per TX queue) with 1, 2 and 3 lcores, for ring and
        halving-doubling AllReduce, all-to-all and ring AllGather: every
        queue's pcap passes check_generator.py (ICRC by scapy and zlib,
        PSN +1 per packet, opcode order, RETH length, DSCP/ECN); payload
        per rank = nccl-tests' schedule, peers as the collective says
        (ring successor, r XOR 2^k, every other rank); rank r's frames all
        leave from port r % 2 on TX queue r % lcores (the round robin);
        and per QP the frames are the one-lcore run's as a multiset (the
        payload tag's departure time masked: it is when, not what). The
        report's tx counters are the pcaps'.
vclock: profiles/scenarios/clean.ini ([general] clock = virtual: the
        generator behind an in-memory leaf switch, closed loop, 8 ranks)
        with 1, 2 and 3 generator workers, polled in order on the main
        lcore: the switch's captures are byte-identical, each generator
        port's frames (its queues merged) are the same (time, frame)
        multiset, the iteration times and delivered bytes are equal; a
        second 2-worker run gives byte-identical captures (determinism).
loss:   profiles/scenarios/loss.ini (every 50th data frame lost at the
        switch egress: 2%) on 2 workers: some frames lost and resent, yet each
        receiving rank got every byte exactly once (payload over distinct
        dest QP/PSN of the data frames the switch delivered, and
        rc.delivered_bytes), and the captures equal the one-worker run's.
icrc:   clean.ini on 2 workers, each worker's fault stage at TX flipping a
        bit of every 97th data frame: every frame with a wrong ICRC (zlib)
        in the generator's captures is counted rx_bad_icrc (summed over
        ports: exactly that many), none is delivered (delivered bytes as
        clean), each such PSN leaves again later with a right ICRC.
rings:  a net_ring vdev looped onto itself (16 queue pairs: worker w
        sends on queue w and receives on queue w; frames of the other
        worker's QPs are handed over through its ring), closed loop on
        the TSC with 2 workers on two real threads: the collective
        completes and each rank gets every byte once (rc.delivered_bytes);
        ring neighbours sit on different workers, so every frame came in
        on the other worker's queue and was handed over (rx_handoff =
        rx_packets; net_ring has no rte_flow rules); nothing timed is
        asserted.

serial: two generator ports wired to each other ([general] clock =
        virtual, open loop, 4 ranks, 3 workers: each port carries two
        ranks of two workers, on two TX queues): the --capture files of a
        port's queues, merged, never overlap in time at the port's speed
        (each frame starts at least (length + 24) x 8 / speed after the
        one before): one transmitter per port, whatever queue a frame
        took, as the wire serializes them.

bad:    virtual_tick_ns with several lcores, more lcores than a port has
        TX queues: refused, the message naming the key.

Usage: test_generator_lcores.py PATH/TO/dpdk-aifab [open|vclock|loss|icrc|rings|serial|bad|all]
The EAL maps 4 lcores onto this machine's CPUs (--lcores 0@0,1@1,2@1,3@0):
correctness, not speed.
"""
import json
import os
import struct
import subprocess
import sys
import tempfile
from collections import Counter, defaultdict

from lib_aifab import (Checks, _remove_runtime_dir, file_prefix, icrc_zlib,
                       read_pcap_ns, source_root)
from test_generator_app import FACTOR, MTU, N_PORTS, RANKS, \
    expected_peers, parse

HERE = os.path.dirname(os.path.abspath(__file__))
EAL_LCORES = "0@0,1@1,2@1,3@0"
COLLS = ["allreduce_ring", "allreduce_hd", "alltoall", "allgather_ring"]
OPEN_SIZE = 131072
OPEN_ITERS, OPEN_WARMUP = 1, 1
UDP_ROCE = 4791
OP_ACK, OP_CNP = 0x11, 0x81


def eal(tag, mem=1024):
    prefix = file_prefix(tag)
    return prefix, ["--no-huge", "-m", str(mem), "--no-pci", "--file-prefix",
                    prefix, "--lcores", EAL_LCORES]


def run_app(exe, tag, eal_extra, args, timeout=300):
    prefix, e = eal(tag)
    cmd = [exe] + e + eal_extra + ["--"] + args
    try:
        p = subprocess.run(cmd, stdout=subprocess.PIPE,
                           stderr=subprocess.STDOUT, text=True,
                           timeout=timeout)
        rc, out = p.returncode, p.stdout
    except subprocess.TimeoutExpired as ex:
        rc, out = "timeout", str(ex.output)
    _remove_runtime_dir(prefix)
    return rc, out, " ".join(cmd)


def report(path):
    try:
        with open(path) as f:
            return json.load(f)
    except (OSError, ValueError):
        return None


def ok_run(ck, what, rc, out, cmd, rep):
    good = ck.eq(rc, 0, "%s: exit status" % what)
    if not good:
        print("command: %s\n%s" % (cmd, "\n".join(out.splitlines()[-15:])))
    good = ck.check(isinstance(rep, dict) and "generator" in rep,
                    "%s: report with a generator block" % what) and good
    if good:
        ck.eq(rep.get("end"), "input_consumed", "%s: end" % what)
        ck.eq(rep.get("mempool_in_use_at_exit"), 0,
              "%s: mempool_in_use_at_exit" % what)
    return good


def lcores_set(n):
    return "generator.lcores=%s" % ("1" if n == 1 else "1-%d" % n)


# ---- frames (struct only) ---------------------------------------------------

def roce_fields(fr):
    """(ip src, ip dst, dest QP, PSN, opcode, payload off, payload len) of
    an untagged IPv4 RoCEv2 frame, else None."""
    if len(fr) < 14 + 20 + 8 + 12 + 4 or fr[12:14] != b"\x08\x00":
        return None
    ihl = (fr[14] & 0xf) * 4
    u = 14 + ihl
    if fr[14 + 9] != 17 or struct.unpack_from("!H", fr, u + 2)[0] != UDP_ROCE:
        return None
    src, dst = struct.unpack_from("!II", fr, 14 + 12)
    ulen = struct.unpack_from("!H", fr, u + 4)[0]
    bth = u + 8
    op = fr[bth]
    pad = (fr[bth + 1] >> 4) & 3
    dqpn = int.from_bytes(fr[bth + 5:bth + 8], "big")
    psn = int.from_bytes(fr[bth + 9:bth + 12], "big")
    reth = 16 if op in (0x06, 0x0A) else 0
    off = bth + 12 + reth
    plen = ulen - 8 - 12 - reth - pad - 4
    return src, dst, dqpn, psn, op, off, plen


def masked(fr):
    """The frame without the payload tag's departure time (bytes 16..23 of
    the tag, which opens the payload) and so without the ICRC over it."""
    f = roce_fields(fr)
    b = bytearray(fr)
    if f is not None and f[4] <= 0x0B and f[6] >= 24:
        b[f[5] + 16:f[5] + 24] = bytes(8)
        b[-4:] = bytes(4)
    return bytes(b)


# ---- open: the open loop over net_pcap, 1 / 2 / 3 lcores --------------------

def open_run(exe, d, coll, n):
    sets = ["generator.collective=%s" % coll,
            "generator.size_bytes=%d" % OPEN_SIZE,
            "generator.iterations=%d" % OPEN_ITERS,
            "generator.warmup=%d" % OPEN_WARMUP,
            "generator.rx=false", lcores_set(n)]
    vdevs = []
    for i in range(N_PORTS):
        spec = "net_pcap%d" % i + "".join(
            ",tx_pcap=" + os.path.join(d, "out%d_q%d.pcap" % (i, q))
            for q in range(n))
        vdevs += ["--vdev", spec]
    args = ["--profile", os.path.join(source_root(), "profiles",
                                      "gen-open-loop.ini"),
            "--quiet", "--report-json", os.path.join(d, "report.json")]
    for s in sets:
        args += ["--set", s]
    rc, out, cmd = run_app(exe, "lc-%s-%d" % (coll[:6], n), vdevs, args)
    rep = report(os.path.join(d, "report.json"))
    outs = [[[f for _t, f in (read_pcap_ns(os.path.join(
        d, "out%d_q%d.pcap" % (i, q))) or [])] for q in range(n)]
        for i in range(N_PORTS)]
    return rc, out, cmd, rep, outs


def check_generator_py(ck, what, path):
    c = subprocess.run(["/usr/bin/python3",
                        os.path.join(HERE, "check_generator.py"),
                        "--mtu", str(MTU), "--dscp", "26", "--ecn", "2",
                        path], stdout=subprocess.PIPE,
                       stderr=subprocess.STDOUT, text=True, timeout=600)
    last = c.stdout.strip().splitlines()[-1] if c.stdout.strip() else ""
    ck.check(c.returncode == 0, "%s: %s passes check_generator.py (%s)" %
             (what, os.path.basename(path), last), c.stdout[-1500:])


def per_qp(outs):
    """dest QP -> Counter of masked frames, over every port and queue."""
    m = defaultdict(Counter)
    for port in outs:
        for q in port:
            for fr in q:
                m[parse(fr)[2]][masked(fr)] += 1
    return m


def case_open(ck, exe):
    for coll in COLLS:
        base = None
        for n in (1, 2, 3):
            what = "open %s, %d lcore%s" % (coll, n, "s" if n > 1 else "")
            ck.section(what)
            with tempfile.TemporaryDirectory(prefix="aifab-it-lc-") as d:
                rc, out, cmd, rep, outs = open_run(exe, d, coll, n)
                if not ok_run(ck, what, rc, out, cmd, rep):
                    continue
                for i in range(N_PORTS):
                    for q in range(n):
                        if outs[i][q]:
                            check_generator_py(ck, what, os.path.join(
                                d, "out%d_q%d.pcap" % (i, q)))
                pay, misplaced = defaultdict(int), []
                for i in range(N_PORTS):
                    for q in range(n):
                        for fr in outs[i][q]:
                            s, t, _dq, _sp, _op, b = parse(fr)
                            pay[(s, t)] += b
                            if s % N_PORTS != i or s % n != q:
                                misplaced.append((i, q, s))
                ck.check(not misplaced, "%s: rank r's frames leave port "
                         "r %% 2 on TX queue r %% %d" % (what, n),
                         repr(misplaced[:5]))
                f = FACTOR[coll](RANKS)
                total = OPEN_ITERS + OPEN_WARMUP
                for r in range(RANKS):
                    mine = {t: b for (s, t), b in pay.items() if s == r}
                    ck.eq(sum(mine.values()), round(f * OPEN_SIZE * total),
                          "%s: rank %d payload = schedule" % (what, r))
                    ck.eq(set(mine), expected_peers(coll, r, RANKS),
                          "%s: rank %d's peers" % (what, r))
                g = rep["generator"]
                frames = [fr for p in outs for q in p for fr in q]
                ck.eq(g.get("tx_packets"), len(frames),
                      what + ": tx_packets = pcap frames")
                ck.eq(g.get("tx_bytes"), sum(len(x) for x in frames),
                      what + ": tx_bytes = pcap bytes")
                ck.eq(g.get("tx_dropped"), 0, what + ": tx_dropped")
                for i in range(N_PORTS):
                    pf = [fr for q in outs[i] for fr in q]
                    pr = rep["ports"]["p%d" % i]
                    ck.eq((pr["tx_packets"], pr["tx_bytes"]),
                          (len(pf), sum(len(x) for x in pf)),
                          what + ": p%d tx counters = its pcaps" % i)
                m = per_qp(outs)
                if n == 1:
                    base = m
                elif base is not None:
                    diff = [q for q in set(base) | set(m)
                            if base.get(q) != m.get(q)]
                    ck.check(not diff, "%s: per QP the frames are the one-"
                             "lcore run's (multiset, %d QPs, tag time "
                             "masked)" % (what, len(base)),
                             "differ on dest QPs %r" % sorted(diff)[:5])


# ---- the whole-process virtual clock: clean, loss, icrc ---------------------

def vc_run(exe, d, scen, n, tag, sets=(), extra=()):
    cap = os.path.join(d, "cap")
    rj = os.path.join(d, "r.json")
    args = ["--profile", os.path.join(source_root(), "profiles", "scenarios",
                                      scen + ".ini"),
            "--quiet", "--report-json", rj, "--capture", cap] + list(extra)
    for s in list(sets) + [lcores_set(n)]:
        args += ["--set", s]
    rc, out, cmd = run_app(exe, tag, [], args)
    return rc, out, cmd, report(rj), cap


def cap_files(cap):
    return sorted(os.listdir(cap)) if os.path.isdir(cap) else []


def port_frames(cap, port):
    """(t_ns, frame) of every TX queue file of @port, merged."""
    out = []
    for fn in cap_files(cap):
        if fn == "tx_%s.pcap" % port or fn.startswith("tx_%s_q" % port):
            out += read_pcap_ns(os.path.join(cap, fn)) or []
    return out


def gen_ports(rep):
    return sorted(p for p in rep["ports"] if p.startswith("g"))


def sw_ports(rep):
    return sorted(p for p in rep["ports"] if p.startswith("s"))


def vc_summary(rep):
    g = rep["generator"]
    return (g["collective"]["time_us"], g["collective"].get("iterations"),
            g.get("rc", {}).get("delivered_bytes"),
            g.get("rc", {}).get("retx_packets"), g.get("tx_packets"))


def same_fabric(ck, what, rep, cap, rep1, cap1):
    """@cap equals the one-worker @cap1: switch files byte for byte,
    generator ports as (time, frame) multisets over their queues."""
    for p in sw_ports(rep1):
        a = os.path.join(cap1, "tx_%s.pcap" % p)
        b = os.path.join(cap, "tx_%s.pcap" % p)
        ck.check(os.path.exists(b) and read_pcap_ns(a) == read_pcap_ns(b),
                 "%s: switch port %s's capture = the one-worker run's" %
                 (what, p))
    for p in gen_ports(rep1):
        ck.check(Counter(port_frames(cap, p)) ==
                 Counter(port_frames(cap1, p)),
                 "%s: generator port %s sent the one-worker run's frames "
                 "at the same instants (its queues merged)" % (what, p))
    ck.eq(vc_summary(rep), vc_summary(rep1),
          "%s: iteration times, delivered and resent = the one-worker "
          "run's" % what)


# The scenarios are sized for the fabric (16 MiB at 400G); these runs
# judge every frame in Python: 128 KiB per rank is enough.
ITERS_VC = ["generator.iterations=6", "generator.size_bytes=131072"]
# loss.ini drops every 1000th data frame per leaf port, fewer than 128 KiB
# makes: here every 50th (2%), so every run loses and resends some.
LOSS_VC = ["port.s%d.fault_tx_drop_every=50" % i for i in range(8)]


def case_vclock(ck, exe):
    with tempfile.TemporaryDirectory(prefix="aifab-it-lcv-") as d:
        runs = {}
        for n in (1, 2, 3, 2):
            what = "vclock clean, %d worker%s" % (n, "s" if n > 1 else "")
            sub = os.path.join(d, "%d_%d" % (n, len(runs)))
            os.makedirs(sub)
            rc, out, cmd, rep, cap = vc_run(exe, sub, "clean", n,
                                            "lcv%d%d" % (n, len(runs)),
                                            ITERS_VC)
            if not ok_run(ck, what, rc, out, cmd, rep):
                return
            if n == 1:
                runs[1] = (rep, cap)
                continue
            if n in runs:   # the second 2-worker run
                ok = cap_files(cap) == cap_files(runs[n][1]) and all(
                    open(os.path.join(cap, fn), "rb").read() ==
                    open(os.path.join(runs[n][1], fn), "rb").read()
                    for fn in cap_files(cap))
                ck.check(ok, "vclock: a second 2-worker run gives byte-"
                         "identical captures (%d files, queues apart)" %
                         len(cap_files(cap)))
                continue
            # rank r sends (data and ACKs) from port g<r> on its
            # worker's queue, r % n: that queue's file only has frames
            used = {fn for fn in cap_files(cap) if fn.startswith("tx_g")
                    and read_pcap_ns(os.path.join(cap, fn))}
            want = {"tx_g%d_q%d.pcap" % (r, r % n)
                    for r in range(len(gen_ports(rep)))}
            ck.eq(used, want, "%s: rank r's frames leave on TX queue "
                  "r %% %d of its port, the other queues are silent" %
                  (what, n))
            same_fabric(ck, what, rep, cap, *runs[1])
            runs[n] = (rep, cap)


def delivered_per_rank(frames_list):
    """Payload bytes per destination IP over distinct (dest QP, PSN) of the
    data frames with a right ICRC (zlib)."""
    seen, per = set(), defaultdict(int)
    for fr in frames_list:
        f = roce_fields(fr)
        if f is None or f[4] > 0x0B or icrc_zlib(fr, 14) != fr[-4:]:
            continue
        if (f[2], f[3]) not in seen:
            seen.add((f[2], f[3]))
            per[f[1]] += f[6]
    return dict(per)


def expected_delivery(rep, warmup=1):
    """Payload each rank receives (ring AllReduce: 2(N-1)/N x S per
    iteration, timed and @warmup ones) and N."""
    g = rep["generator"]["collective"]
    n = g["ranks"]
    iters = g.get("iterations", 0) + warmup
    return 2 * (n - 1) * g["size"] // n * iters, n


def case_loss(ck, exe):
    with tempfile.TemporaryDirectory(prefix="aifab-it-lcl-") as d:
        res = {}
        for n in (1, 2):
            what = "loss, %d worker%s" % (n, "s" if n > 1 else "")
            sub = os.path.join(d, str(n))
            os.makedirs(sub)
            rc, out, cmd, rep, cap = vc_run(exe, sub, "loss", n,
                                            "lcl%d" % n, ITERS_VC + LOSS_VC)
            if not ok_run(ck, what, rc, out, cmd, rep):
                return
            res[n] = (rep, cap)
        rep, cap = res[2]
        what = "loss, 2 workers"
        g = rep["generator"]
        dropped = sum(rep["ports"][p].get("drops", {}).get("fault_loss", 0)
                      for p in sw_ports(rep))
        ck.check(dropped > 0 and g["rc"]["retx_packets"] > 0,
                 "%s: frames lost at the switch (%d) and resent (%d)" %
                 (what, dropped, g["rc"]["retx_packets"]))
        per_rank, n_ranks = expected_delivery(rep)
        to_ranks = [fr for p in sw_ports(rep) for _t, fr in
                    read_pcap_ns(os.path.join(cap, "tx_%s.pcap" % p)) or []]
        per = delivered_per_rank(to_ranks)
        ck.eq(sorted(per.values()), [per_rank] * n_ranks,
              "%s: each rank received 2(N-1)/N x S x iterations bytes over "
              "distinct QP/PSN of the frames the switch delivered" % what)
        ck.eq(g["rc"]["delivered_bytes"], per_rank * n_ranks,
              "%s: rc.delivered_bytes: every byte exactly once" % what)
        same_fabric(ck, what, rep, cap, *res[1])


def exported_bad_icrc(d):
    """rx_bad_icrc summed over ports in the last --stats-jsonl line and in
    the --prometheus file (each sums the workers' lib/stats blocks)."""
    with open(os.path.join(d, "s.jsonl")) as f:
        last = [json.loads(x) for x in f if x.strip()][-1]
    jv = sum(last.get("generator", {}).get("counters", {}).get(
        "rx_bad_icrc", {}).values())
    pv = 0.0
    with open(os.path.join(d, "m.prom")) as f:
        for line in f:
            if line.startswith("aifab_generator_rx_bad_icrc_total{"):
                pv += float(line.split()[-1])
    return jv, pv


def case_icrc(ck, exe):
    with tempfile.TemporaryDirectory(prefix="aifab-it-lci-") as d:
        rc, out, cmd, rep, cap = vc_run(
            exe, d, "clean", 2, "lci",
            ITERS_VC + ["generator.fault_at=tx",
                        "generator.fault_corrupt_every=97"],
            extra=["--stats-jsonl", os.path.join(d, "s.jsonl"),
                   "--prometheus", os.path.join(d, "m.prom")])
        what = "icrc, 2 workers"
        if not ok_run(ck, what, rc, out, cmd, rep):
            return
        sent = sorted((t, fr) for p in gen_ports(rep)
                      for t, fr in port_frames(cap, p))
        roce = [(t, fr, roce_fields(fr)) for t, fr in sent
                if roce_fields(fr) is not None]
        bad = [(t, f) for t, fr, f in roce if icrc_zlib(fr, 14) != fr[-4:]]
        pc = rep["ports"]
        ctr = sum(pc[p].get("generator", {}).get("rx_bad_icrc", 0)
                  for p in gen_ports(rep))
        corrupted = sum(pc[p].get("fault", {}).get("fault_corrupted", 0)
                        for p in gen_ports(rep))
        ck.check(len(bad) > 1 and all(f[4] <= 0x0B for _t, f in bad),
                 "%s: the generator's captures hold corrupted data frames "
                 "(%d, zlib)" % (what, len(bad)))
        ck.eq(corrupted, len(bad), "%s: fault_corrupted = wrong ICRCs in "
              "the captures" % what)
        ck.eq(ctr, len(bad), "%s: rx_bad_icrc (all ports) = every "
              "corrupted frame" % what)
        ck.eq(exported_bad_icrc(d), (len(bad), float(len(bad))),
              "%s: the same in --stats-jsonl's last line and --prometheus "
              "(the workers' blocks summed)" % what)
        later = [any(t2 > t and icrc_zlib(fr2, 14) == fr2[-4:] and
                     (f2[2], f2[3]) == (f[2], f[3]) for t2, fr2, f2 in roce)
                 for t, f in bad]
        ck.check(bad and all(later), "%s: each corrupted PSN leaves again "
                 "later with a right ICRC" % what, repr(later))
        per_rank, n_ranks = expected_delivery(rep)
        ck.eq(rep["generator"]["rc"]["delivered_bytes"], per_rank * n_ranks,
              "%s: rc.delivered_bytes: every byte once, none corrupted" %
              what)
        ck.eq(sorted(delivered_per_rank([fr for _t, fr, _f in roce])
                     .values()), [per_rank] * n_ranks,
              "%s: each rank's bytes over distinct QP/PSN with a right "
              "ICRC = the schedule" % what)


# ---- rings: a multi-queue port on real threads -------------------------------

RING_PROFILE = """[general]
name = lcores-ring
seed = 1
[switch]
enabled = false
[port.p0]
device = net_ring0
speed_gbps = 100
mtu = 9000
[generator]
enabled = true
ports = p0
collective = allreduce_ring
ranks = 8
size_bytes = 262144
ib_mtu = 1024
iterations = 2
warmup = 1
rate_gbps = 2
closed_loop = true
window = 16
ack_every = 4
retx_timeout_us = 20000
dcqcn = false
lcores = 1-2
"""


def case_rings(ck, exe):
    with tempfile.TemporaryDirectory(prefix="aifab-it-lcr-") as d:
        prof = os.path.join(d, "p.ini")
        with open(prof, "w") as f:
            f.write(RING_PROFILE)
        rj = os.path.join(d, "r.json")
        rc, out, cmd = run_app(exe, "lcr", ["--vdev", "net_ring0"],
                               ["--profile", prof, "--quiet",
                                "--report-json", rj])
        rep = report(rj)
        what = "rings, 2 workers on the TSC"
        if not ok_run(ck, what, rc, out, cmd, rep):
            return
        g = rep["generator"]
        per_rank, n_ranks = expected_delivery(rep)
        ck.eq(g["collective"]["iterations"], 2, what + ": completes")
        ck.eq(g["rc"]["delivered_bytes"], per_rank * n_ranks,
              "%s: rc.delivered_bytes: every byte once" % what)
        gp = rep["ports"]["p0"].get("generator", {})
        ck.eq(gp.get("rx_handoff_dropped"), 0, what + ": no hand-off drop")
        # Ring AllReduce, ranks r and r + 1 on different workers: every
        # data frame (to r + 1) and every ACK (back to r) reaches the
        # queue of the worker that sent it, i.e. the other one's frames.
        ck.eq(rep["ports"]["p0"].get("rx_steering", {}).get("flow_rules"), 0, what + ": net_ring has no "
              "rte_flow: no steering rules")
        ck.check(gp.get("rx_handoff", -1) == rep["ports"]["p0"]["rx_packets"]
                 > 0, "%s: every frame received was handed to the other "
                 "worker (rx_handoff = rx_packets)" % what,
                 "%r vs %r" % (gp.get("rx_handoff"),
                               rep["ports"]["p0"]["rx_packets"]))


# ---- bad: what several lcores refuse, naming the key ---------------------------

def case_bad(ck, exe):
    ck.section("bad: refused with the key named")
    prof = os.path.join(source_root(), "profiles", "gen-open-loop.ini")
    cases = [
        ("virtual_tick_ns with 2 lcores",
         ["--vdev", "net_null0", "--vdev", "net_null1"],
         ["generator.lcores=1-2", "generator.virtual_tick_ns=1000"],
         ["virtual_tick_ns", "allowed"]),
        ("2 lcores on a one-queue net_pcap port",
         ["--vdev", "net_pcap0,tx_pcap=/dev/null",
          "--vdev", "net_pcap1,tx_pcap=/dev/null"],
         ["generator.lcores=1-2"], ["lcores", "TX queue", "allowed"]),
    ]
    for i, (what, vdevs, sets, words) in enumerate(cases):
        args = ["--profile", prof, "--quiet"]
        for x in sets:
            args += ["--set", x]
        rc, out, _cmd = run_app(exe, "lcb%d" % i, vdevs, args, timeout=60)
        ck.check(rc not in (0, "timeout") and
                 all(w in out for w in words),
                 "bad: %s is refused, the message names %s" %
                 (what, ", ".join(words)), out.strip()[-300:])


SERIAL_PROFILE = """
[general]
name = lcores-serial
seed = 1
clock = virtual
[switch]
enabled = false
[port.p0]
mac = 02:aa:00:00:01:00
wire = p1
speed_gbps = 100
mtu = 9000
[port.p1]
mac = 02:aa:00:00:01:01
speed_gbps = 100
mtu = 9000
[generator]
enabled = true
ports = p0 p1
collective = allreduce_ring
ranks = 4
size_bytes = 262144
ib_mtu = 1024
iterations = 2
warmup = 0
rx = false
"""


def case_serial(ck, exe):
    with tempfile.TemporaryDirectory(prefix="aifab-it-lcs-") as d:
        prof = os.path.join(d, "serial.ini")
        with open(prof, "w") as f:
            f.write(SERIAL_PROFILE)
        cap = os.path.join(d, "cap")
        rj = os.path.join(d, "r.json")
        rc, out, cmd = run_app(exe, "lcs", [], [
            "--profile", prof, "--quiet", "--report-json", rj,
            "--capture", cap, "--set", lcores_set(3)])
        rep = report(rj)
        if not ok_run(ck, "serial", rc, out, cmd, rep):
            return
        for p in ("p0", "p1"):
            queues = [fn for fn in cap_files(cap)
                      if fn.startswith("tx_%s_q" % p) and
                      read_pcap_ns(os.path.join(cap, fn))]
            fr = sorted(port_frames(cap, p), key=lambda x: x[0])
            # ranks r = port (mod 2) on workers r % 3: two queues each
            ck.eq(len(queues), 2, "serial: port %s sends on two TX "
                  "queues (two workers)" % p)
            ck.eq(len(fr), rep["ports"][p]["tx_packets"],
                  "serial: port %s's captures hold every frame it sent" % p)
            # 100 Gb/s: (len + 24) x 8 / 100 ns, the fraction carried
            over = [i for i in range(1, len(fr)) if fr[i][0] - fr[i - 1][0]
                    < (len(fr[i - 1][1]) + 24) * 8 // 100]
            ck.check(len(fr) > 0 and not over,
                     "serial: port %s's queues, merged, never overlap in "
                     "time at its speed (%d frames)" % (p, len(fr)),
                     "%d frames start before the one before ended, "
                     "first at %r" % (len(over), over[:3]))


def main():
    exe = sys.argv[1]
    which = sys.argv[2] if len(sys.argv) > 2 else "all"
    ck = Checks("test_generator_lcores")
    cases = {"open": case_open, "vclock": case_vclock, "loss": case_loss,
             "icrc": case_icrc, "rings": case_rings,
             "serial": case_serial, "bad": case_bad}
    for name, fn in cases.items():
        if which in ("all", name):
            fn(ck, exe)
    ck.finish()


if __name__ == "__main__":
    main()
