#!/usr/bin/python3
# SPDX-License-Identifier: BSD-3-Clause
"""The generator's receive-side ICRC check ([generator] rx_check_icrc) in
the closed loop of test_closed_loop.py (4 ranks on one net_ring port looped
onto itself, ring AllReduce of 256 KiB, IB MTU 1024, 2 iterations, the
generator's virtual clock: every run is repeatable bit for bit, whatever
the machine's speed).

The fault stage sits at TX (fault_at = tx) and flips one payload bit of
every K-th data frame (fault_corrupt_every), so the capture (--capture,
the frames as they left) holds the corrupted frames and every frame is
judged independently of the generator: by a zlib.crc32 recomputation of
the ICRC from PROTOCOLS.md and by scapy's BTH.compute_icrc, which must
agree on every frame.

clean:   no impairment, rx_check_icrc = full (the default): every RoCEv2
         frame received is checked (rx_icrc_checked = rx_roce = RoCEv2
         frames in the capture), none is bad, every captured ICRC is
         right; each receiving rank got 2 (N-1)/N x S x iterations payload
         bytes (distinct QP/PSN in the capture) and rc.delivered_bytes is
         the sum.
full:    corrupted in flight, checked: the C frames the capture shows with
         a wrong ICRC (C = the fault stage's fault_corrupted, none
         skipped) are exactly rx_bad_icrc; none is delivered (each
         receiving rank's payload bytes over distinct QP/PSN with a right
         ICRC, and rc.delivered_bytes, equal the clean run's: every byte
         delivered once), each is sent again later with a right ICRC, and
         go-back-N moved (rc.retx_packets >= C; NAKs or a timeout, the
         NAKs those in the capture). rx_bad_icrc is the same in the JSON
         report, the last --stats-jsonl line, the --prometheus file and
         the --report-html page.
off:     the same corruption, rx_check_icrc = off: nothing checked or
         dropped, nothing resent, no NAK or timeout; the corrupted frames
         were accepted (delivered bytes as clean, though C frames were
         wrong) - what a switch that corrupts does to a receiver that does
         not check.
every=N: one RoCEv2 frame in N per port checked, the 1st, N+1st, ...: in
         capture order (the loop delivers in that order) exactly the
         corrupted frames at those positions are rx_bad_icrc, and
         rx_icrc_checked = ceil(RoCEv2 frames / N).

Usage: test_icrc.py PATH/TO/dpdk-aifab
"""
import json
import re
from collections import defaultdict

from lib_aifab import Checks, exe_path, icrc_scapy, icrc_zlib
from test_closed_loop import RANKS, SIZE, LoopRun, frames, rank_of, run_ok

ITERATIONS = 2
CORRUPT_EVERY = 97     # odd: the corrupted frames fall on both parities
PER_RANK = 2 * (RANKS - 1) * SIZE // RANKS * ITERATIONS
CORRUPT = ["generator.fault_at=tx",
           "generator.fault_corrupt_every=%d" % CORRUPT_EVERY]


def judged(r, ck, what):
    """The capture's RoCEv2 frames, each with .good: the ICRC on the wire
    is zlib's recomputation; scapy must say the same of every frame."""
    fs = [f for f in frames(r.cap()) if f.roce]
    differ = []
    for f in fs:
        f.good = icrc_zlib(f.b, 14) == f.b[-4:]
        if (icrc_scapy(f.b) == f.b[-4:]) != f.good:
            differ.append(f.idx)
    ck.check(fs and not differ, "%s: scapy's BTH.compute_icrc and zlib "
             "agree on all %d RoCEv2 frames" % (what, len(fs)), str(differ))
    return fs


def delivered_per_rank(fs, good_only=True):
    """Payload bytes per receiving rank over distinct (dest QP, PSN) of
    data frames (with a right ICRC unless not @good_only)."""
    seen, per = set(), defaultdict(int)
    for f in fs:
        if f.data and (f.good or not good_only) and \
                (f.dqpn, f.psn) not in seen:
            seen.add((f.dqpn, f.psn))
            per[rank_of(f.dst)] += f.payload
    return dict(per)


def port_ctr(r, group, name):
    return r.report["ports"]["p0"].get(group, {}).get(name)


def check_ctrs(ck, r, what, rows):
    """p0's counters: rows of (group, name, wanted value, why)."""
    for group, name, want, why in rows:
        ck.eq(port_ctr(r, group, name), want, "%s: %s %s" % (what, name, why))


def case_clean(ck, exe):
    ck.section("clean: every frame checked, none bad")
    r = LoopRun(exe, "icrc-clean")
    try:
        if not run_ok(ck, r, "clean"):
            return None
        g = r.gen()
        fs = judged(r, ck, "clean")
        ck.check(all(f.good for f in fs), "clean: every captured ICRC right")
        check_ctrs(ck, r, "clean", [
            ("generator", "rx_bad_icrc", 0, "none"),
            ("generator", "rx_icrc_checked", len(fs),
             "= RoCEv2 frames in the capture"),
            ("generator", "rx_roce", len(fs),
             "= RoCEv2 frames in the capture")])
        per = delivered_per_rank(fs)
        ck.eq(per, {k: PER_RANK for k in range(RANKS)},
              "clean: each rank received 2(N-1)/N x S x %d bytes" %
              ITERATIONS)
        ck.eq(g["rc"]["delivered_bytes"], RANKS * PER_RANK,
              "clean: rc.delivered_bytes")
        return per
    finally:
        r.cleanup()


def check_exporters(ck, r, bad):
    """rx_bad_icrc of p0 in the last JSON line, Prometheus, the HTML."""
    with open(r.path("s.jsonl")) as f:
        last = [json.loads(x) for x in f if x.strip()][-1]
    jv = last.get("generator", {}).get("counters", {}).get(
        "rx_bad_icrc", {}).get("p0")
    ck.eq(jv, bad, "full: --stats-jsonl: last line's rx_bad_icrc of p0")
    with open(r.path("m.prom")) as f:
        m = re.search(r'^aifab_generator_rx_bad_icrc_total\{port="p0"\} '
                      r'(\S+)$', f.read(), re.M)
    ck.eq(m and float(m.group(1)), float(bad), "full: --prometheus: "
          "aifab_generator_rx_bad_icrc_total{port=\"p0\"}")
    with open(r.path("r.html")) as f:
        m = re.search(r'<span class="rx_bad_icrc">(\d+)</span>', f.read())
    ck.eq(m and int(m.group(1)), bad, "full: --report-html: frames dropped "
          "for a wrong ICRC")


def case_full(ck, exe, clean):
    ck.section("full: every %dth data frame corrupted at TX, every frame "
               "checked" % CORRUPT_EVERY)
    r = LoopRun(exe, "icrc-full", sets=CORRUPT, extra=[
        "--stats-jsonl", "DIR/s.jsonl", "--prometheus", "DIR/m.prom",
        "--report-html", "DIR/r.html"])
    try:
        if not run_ok(ck, r, "full"):
            return
        g = r.gen()
        ck.eq(g["collective"]["iterations"], ITERATIONS,
              "full: the collective completes")
        fs = judged(r, ck, "full")
        bad = [f for f in fs if not f.good]
        ck.check(len(bad) > 1 and all(f.data for f in bad),
                 "full: the capture holds corrupted data frames (%d)" %
                 len(bad))
        check_ctrs(ck, r, "full", [
            ("fault", "fault_corrupted", len(bad),
             "= wrong ICRCs in the capture"),
            ("fault", "fault_corrupt_skipped", 0, "none"),
            ("generator", "rx_bad_icrc", len(bad),
             "= every corrupted frame"),
            ("generator", "rx_icrc_checked", len(fs),
             "= every RoCEv2 frame"),
            ("generator", "rx_roce", len(fs) - len(bad),
             "= the frames with a right ICRC")])
        if clean is not None:
            ck.eq(delivered_per_rank(fs), clean, "full: each rank received "
                  "the clean run's bytes (right ICRC, distinct PSNs)")
        ck.eq(g["rc"]["delivered_bytes"], RANKS * PER_RANK,
              "full: rc.delivered_bytes as clean: every byte once")
        later = [any(h.idx > f.idx and h.good and
                     (h.dqpn, h.psn) == (f.dqpn, f.psn) for h in fs)
                 for f in bad]
        ck.check(all(later), "full: each corrupted PSN is sent again with a "
                 "right ICRC", str(later))
        naks = sum(1 for f in fs if f.op == 0x11 and f.syndrome == 0x60)
        rc = g["rc"]
        ck.check(rc["retx_packets"] >= len(bad) and
                 rc["naks_rx"] + rc["timeouts"] >= 1,
                 "full: go-back-N recovered: resent >= %d, NAKs + timeouts "
                 ">= 1" % len(bad), str(rc))
        ck.eq(rc["naks_rx"], naks, "full: rc.naks_rx = NAKs in the capture")
        print("full: %d corrupted, %d resent, %d NAKs, %d timeouts" %
              (len(bad), rc["retx_packets"], rc["naks_rx"], rc["timeouts"]))
        check_exporters(ck, r, len(bad))
    finally:
        r.cleanup()


def case_off(ck, exe, clean):
    ck.section("off: the same corruption, not checked: accepted")
    r = LoopRun(exe, "icrc-off", sets=CORRUPT +
                ["generator.rx_check_icrc=off"])
    try:
        if not run_ok(ck, r, "off"):
            return
        g = r.gen()
        fs = judged(r, ck, "off")
        bad = [f for f in fs if not f.good]
        ck.check(len(bad) > 1, "off: the capture holds corrupted frames "
                 "(%d)" % len(bad))
        check_ctrs(ck, r, "off", [
            ("fault", "fault_corrupted", len(bad),
             "= wrong ICRCs in the capture"),
            ("generator", "rx_icrc_checked", 0, "none"),
            ("generator", "rx_bad_icrc", 0, "none"),
            ("generator", "rx_roce", len(fs),
             "= every RoCEv2 frame, the corrupted ones too")])
        rc = g["rc"]
        ck.eq((rc["retx_packets"], rc["naks_rx"], rc["timeouts"]),
              (0, 0, 0), "off: nothing resent, no NAK, no timeout")
        ck.eq(rc["delivered_bytes"], RANKS * PER_RANK,
              "off: rc.delivered_bytes as clean, %d frames of it wrong" %
              len(bad))
        if clean is not None:
            ck.eq(delivered_per_rank(fs, good_only=False), clean,
                  "off: each rank took the clean run's bytes, the "
                  "corrupted frames' among them")
    finally:
        r.cleanup()


def case_every(ck, exe, n):
    ck.section("every=%d: one RoCEv2 frame in %d checked" % (n, n))
    r = LoopRun(exe, "icrc-every%d" % n, sets=CORRUPT +
                ["generator.rx_check_icrc=every=%d" % n])
    try:
        if not run_ok(ck, r, "every=%d" % n):
            return
        g = r.gen()
        ck.eq(g["collective"]["iterations"], ITERATIONS,
              "every=%d: the collective completes" % n)
        fs = judged(r, ck, "every=%d" % n)
        bad = [i for i, f in enumerate(fs) if not f.good]
        caught = [i for i in bad if i % n == 0]
        print("every=%d: %d corrupted, %d at checked positions" %
              (n, len(bad), len(caught)))
        ck.check(0 < len(caught) < len(bad), "every=%d: some corrupted "
                 "frames fall on checked positions, some not" % n)
        ck.eq(port_ctr(r, "generator", "rx_roce") +
              port_ctr(r, "generator", "rx_bad_icrc"), len(fs),
              "every=%d: rx_roce + rx_bad_icrc = RoCEv2 frames" % n)
        check_ctrs(ck, r, "every=%d" % n, [
            ("generator", "rx_icrc_checked", (len(fs) + n - 1) // n,
             "= ceil(RoCEv2 frames / %d)" % n),
            ("generator", "rx_bad_icrc", len(caught),
             "= the corrupted frames at positions 1, %d+1, ... in "
             "arrival order" % n)])
    finally:
        r.cleanup()


def main():
    exe = exe_path()
    ck = Checks("icrc")
    clean = case_clean(ck, exe)
    case_full(ck, exe, clean)
    case_off(ck, exe, clean)
    case_every(ck, exe, 2)
    case_every(ck, exe, 3)
    ck.finish()


if __name__ == "__main__":
    main()
