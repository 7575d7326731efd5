#!/usr/bin/python3
# SPDX-License-Identifier: BSD-3-Clause
"""The generator's receive side on a real multi-queue PMD (issue 15):
`[generator] lcores = 1-2` on a net_tap port with 2 RX/TX queues, the
tap's kernel end in a network namespace of its own, where a tc reflector
(ingress qdisc, u32 match-all, mirred egress redirect to the same tap)
sends every frame the generator writes back to it. Closed loop, ring
AllReduce over 8 ranks: rank r's frames go to ranks r - 1 and r + 1,
which sit on the other worker (ranks are dealt round robin).

steer:   net_tap turns rte_flow rules into TC flower filters on a multiq
         root qdisc (QUEUE -> skbedit queue_mapping). The generator
         installs one rule per rank (IPv4 destination -> its worker's RX
         queue): the log says 8 rules were installed, the report's
         rx_steering.flow_rules is 8, rx_handoff is 0 (every RoCEv2 frame
         came in on the queue of the worker owning its QP end), and the
         kernel's own counters of each flower filter (tc -s, sampled
         while the run lasts) show the rule of the rank at IPv4 index i
         sending frames to queue i % 2. Exits 77 (SKIP) with the failing
         tc command and its error where the kernel lacks sch_multiq,
         cls_flower or act_skbedit (as this project's VM does).
handoff: the same run on a kernel without them: net_tap refuses the
         rules, the log names the PMD's reason, flow_rules is 0 and
         frames of the other worker's QPs are handed over (rx_handoff >
         0). The tap spreads frames over its queues by the kernel's own
         (symmetric) flow hash, so a QP's frames may reach either worker.

Both: the collective completes (2 iterations after 1 warm-up), every
rank gets every byte exactly once (rc.delivered_bytes, and the payload
over distinct dest QP/PSN of the data frames in the capture), each TX
queue's capture holds only its worker's ranks' frames (source IPv4 index
% 2 = queue), every RoCEv2 frame there has a right ICRC (zlib, per
PROTOCOLS.md), no ICRC is bad on receive, every data frame gives a
latency sample (rx_no_tag 0: a tag the other worker stamped after this
worker read its clock once counted there), no mbuf is left. Nothing timed
is asserted (real threads on a shared 2-core VM; the tap's flow-hash
spreading reorders some frames, which RC recovers).

Usage: test_generator_tap.py PATH/TO/dpdk-aifab [steer|handoff]
Needs root, /dev/net/tun, ip and tc (ingress qdisc, u32, mirred): exits
77 (SKIP) with the reason where the machine has no such thing.
"""
import json
import os
import re
import subprocess
import sys
import tempfile
import threading
import time

from lib_aifab import Checks, _remove_runtime_dir, file_prefix, icrc_zlib, \
    read_pcap_ns
from test_generator_lcores import RING_PROFILE, delivered_per_rank, \
    expected_delivery, roce_fields

SKIP = 77
TAG = "%d" % os.getpid()
NS = "aftap" + TAG
IF = "aftap0"                 # inside NS only
PROBE = "afprobe0"
RANKS = 8
# test_generator_lcores' ring case (8 ranks, ring AllReduce, closed loop,
# 2 workers) on the tap
PROFILE = RING_PROFILE
for _a, _b in (("lcores-ring", "generator-tap"), ("net_ring0", "net_tap0"),
               ("mtu = 9000", "mtu = 1500")):
    assert _a in PROFILE
    PROFILE = PROFILE.replace(_a, _b)
assert "\nranks = %d\n" % RANKS in PROFILE and "\nlcores = 1-2\n" in PROFILE
# main lcore and the two workers on this machine's two CPUs
EAL_LCORES = "0@0,1@0,2@1"


def run(*cmd):
    p = subprocess.run(cmd, capture_output=True, text=True)
    return p.returncode, (p.stdout + p.stderr).strip()


def in_ns(*cmd):
    return run("ip", "netns", "exec", NS, *cmd)


def skip(why):
    print("SKIP  %s" % why)
    sys.exit(SKIP)


def need(ok_out, what):
    """A set-up step the machine must allow, or SKIP naming it."""
    rc, out = ok_out
    if rc != 0:
        teardown()
        skip("%s failed: %s" % (what, out or "exit %d" % rc))


def setup():
    if os.geteuid() != 0:
        skip("not root: no network namespace or tap device")
    if not os.path.exists("/dev/net/tun"):
        skip("no /dev/net/tun")
    need(run("ip", "netns", "add", NS), "ip netns add %s" % NS)
    in_ns("sysctl", "-qw", "net.ipv6.conf.all.disable_ipv6=1")
    in_ns("sysctl", "-qw", "net.ipv6.conf.default.disable_ipv6=1")
    # A persistent multi-queue tap: net_tap attaches its queues to it,
    # and the reflector can be there before the first frame.
    need(in_ns("ip", "tuntap", "add", "dev", IF, "mode", "tap",
               "multi_queue"), "ip tuntap add dev %s mode tap multi_queue"
         % IF)
    need(in_ns("ip", "link", "set", IF, "up"), "ip link set %s up" % IF)


def add_reflector():
    """Every frame the tap's kernel end receives (what DPDK wrote) goes
    out of it again (to DPDK's RX queues), unchanged."""
    rc, out = in_ns("tc", "qdisc", "show", "dev", IF)
    if "ingress" not in out:
        need(in_ns("tc", "qdisc", "add", "dev", IF, "ingress"),
             "tc qdisc add dev %s ingress" % IF)
    need(in_ns("tc", "filter", "add", "dev", IF, "parent", "ffff:",
               "protocol", "all", "u32", "match", "u32", "0", "0",
               "action", "mirred", "egress", "redirect", "dev", IF),
         "tc filter add dev %s parent ffff: u32 match-all action mirred "
         "egress redirect dev %s" % (IF, IF))


def probe_flower():
    """What net_tap's rte_flow needs of the kernel, tried on a scratch
    tap: the first failing command and its error, or None."""
    rc, out = in_ns("ip", "tuntap", "add", "dev", PROBE, "mode", "tap",
                    "multi_queue")
    if rc != 0:
        return "ip tuntap add dev %s: %s" % (PROBE, out)
    steps = [
        ["tc", "qdisc", "add", "dev", PROBE, "root", "handle", "1:",
         "multiq"],
        ["tc", "filter", "add", "dev", PROBE, "parent", "1:", "protocol",
         "ip", "flower", "dst_ip", "192.0.2.1", "action", "skbedit",
         "queue_mapping", "1"],
    ]
    why = None
    for cmd in steps:
        rc, out = in_ns(*cmd)
        if rc != 0:
            why = "`%s` -> %s" % (" ".join(cmd), out)
            break
    in_ns("ip", "link", "del", PROBE)
    return why


def teardown():
    run("ip", "netns", "del", NS)


def flower_snapshot():
    """(dst_ip, queue, packets) of every flower filter on the tap's multiq
    root, from the kernel's own counters."""
    rc, out = in_ns("tc", "-s", "filter", "show", "dev", IF, "parent", "1:")
    rules = []
    for blk in re.split(r"\n(?=filter )", out) if rc == 0 else []:
        ip = re.search(r"dst_ip (\d+\.\d+\.\d+\.\d+)", blk)
        q = re.search(r"queue_mapping (\d+)", blk)
        n = re.search(r"Sent \d+ bytes (\d+) pkt", blk)
        if ip and q:
            rules.append((ip.group(1), int(q.group(1)),
                          int(n.group(1)) if n else 0))
    return rules


def run_app(exe, d, steer):
    prof = os.path.join(d, "p.ini")
    with open(prof, "w") as f:
        f.write(PROFILE)
    rj = os.path.join(d, "r.json")
    cap = os.path.join(d, "cap")
    prefix = file_prefix("tap")
    cmd = ["ip", "netns", "exec", NS, exe, "--no-huge", "-m", "1024",
           "--no-pci", "--file-prefix", prefix, "--lcores", EAL_LCORES,
           "--vdev", "net_tap0,iface=%s" % IF, "--",
           "--profile", prof, "--quiet", "--report-json", rj,
           "--capture", cap]
    if not steer:
        add_reflector()
    p = subprocess.Popen(cmd, stdout=subprocess.PIPE,
                         stderr=subprocess.STDOUT, text=True)
    outbuf = []
    reader = threading.Thread(target=lambda: outbuf.append(p.stdout.read()))
    reader.start()
    snaps = []
    if steer:
        # net_tap makes its multiq root and ingress qdiscs when it starts
        # (an ingress qdisc made before would make it give up rte_flow):
        # the reflector goes onto its ingress qdisc then. Frames sent
        # before are lost and resent (closed loop).
        t_end = time.monotonic() + 30
        while p.poll() is None and time.monotonic() < t_end:
            rc, out = in_ns("tc", "qdisc", "show", "dev", IF)
            if "multiq" in out and "ingress" in out:
                break
            time.sleep(0.05)
        add_reflector()
    t_end = time.monotonic() + 240
    while p.poll() is None and time.monotonic() < t_end:
        if steer:
            s = flower_snapshot()
            if s:
                snaps.append(s)
        time.sleep(0.1)
    if p.poll() is None:
        p.kill()
    p.wait()
    reader.join()
    _remove_runtime_dir(prefix)
    try:
        with open(rj) as f:
            rep = json.load(f)
    except (OSError, ValueError):
        rep = None
    return p.returncode, "".join(outbuf), " ".join(cmd), rep, cap, \
        (snaps[-1] if snaps else [])


def ip_str(a):
    return "%d.%d.%d.%d" % (a >> 24, a >> 16 & 255, a >> 8 & 255, a & 255)


def judge_common(ck, what, rep, cap):
    g = rep["generator"]
    per_rank, n_ranks = expected_delivery(rep)
    ck.eq(g["collective"]["iterations"], 2, what + ": completes")
    ck.eq(g["rc"]["delivered_bytes"], per_rank * n_ranks,
          "%s: rc.delivered_bytes: every byte exactly once" % what)
    gp = rep["ports"]["p0"]["generator"]
    ck.eq(gp.get("rx_bad_icrc"), 0, what + ": no bad ICRC received")
    # Each data frame's payload tag gives a latency sample: a tag stamped
    # by the other worker after this one read its clock is not "no tag"
    # (the TSC is read again; it is one clock on every CPU here).
    ck.eq(gp.get("rx_no_tag"), 0, what + ": rx_no_tag: every data frame's "
          "tag read, none stamped past the receiver's clock")
    ck.check(gp.get("rx_roce", 0) > 0, what + ": RoCEv2 frames received")
    files = {w: os.path.join(cap, "tx_p0_q%d.pcap" % w) for w in (0, 1)}
    frames = {w: [fr for _t, fr in read_pcap_ns(f) or []]
              for w, f in files.items()}
    ck.check(all(frames[w] for w in frames),
             "%s: each worker's TX queue has a capture with frames" % what,
             "%r" % {w: len(v) for w, v in frames.items()})
    fields = {w: [(fr, roce_fields(fr)) for fr in v]
              for w, v in frames.items()}
    ips = sorted({f[0] for v in fields.values() for _fr, f in v if f})
    ck.eq(len(ips), n_ranks, what + ": one source IPv4 per rank")
    idx = {a: i for i, a in enumerate(ips)}
    wrong = [(w, ip_str(f[0])) for w, v in fields.items() for _fr, f in v
             if f and idx.get(f[0], -1) % 2 != w]
    ck.check(not wrong, "%s: each TX queue sent only its worker's ranks' "
             "frames (source IPv4 index %% 2 = queue)" % what,
             "%d others, first %r" % (len(wrong), wrong[:3]))
    bad = sum(1 for v in fields.values() for fr, f in v
              if f and icrc_zlib(fr, 14) != fr[-4:])
    ck.eq(bad, 0, what + ": every RoCEv2 frame sent has a right ICRC (zlib)")
    per = delivered_per_rank([fr for v in frames.values() for fr in v])
    ck.eq(sorted(per.values()), [per_rank] * n_ranks,
          "%s: each rank was sent 2(N-1)/N x S x iterations bytes over "
          "distinct QP/PSN" % what)
    return ips


def case(ck, exe, steer):
    mode = "steer" if steer else "handoff"
    what = "net_tap, 2 queues, 2 workers, %s" % mode
    ck.section(what)
    if steer:
        why = probe_flower()
        if why is not None:
            teardown()
            skip("net_tap's rte_flow needs the kernel's multiq qdisc, "
                 "flower classifier and skbedit action: %s" % why)
    with tempfile.TemporaryDirectory(prefix="aifab-it-tap-") as d:
        rc, out, cmd, rep, cap, rules = run_app(exe, d, steer)
        good = ck.eq(rc, 0, "%s: exit status" % what)
        good = ck.check(isinstance(rep, dict) and "generator" in rep,
                        "%s: report with a generator block" % what) and good
        if not good:
            print("command: %s\n%s" % (cmd, "\n".join(out.splitlines()[-25:])))
            return
        ck.eq(rep.get("end"), "input_consumed", what + ": end")
        ck.eq(rep.get("mempool_in_use_at_exit"), 0,
              what + ": mempool_in_use_at_exit")
        ck.eq(rep["ports"]["p0"].get("device"), "net_tap0", what + ": device")
        ips = judge_common(ck, what, rep, cap)
        gp = rep["ports"]["p0"]["generator"]
        flow = rep["ports"]["p0"].get("rx_steering", {}).get("flow_rules")
        if steer:
            ck.eq(flow, RANKS, what + ": rx_steering.flow_rules: a rule per "
                  "rank")
            ck.check("%d rte_flow rules steer" % RANKS in out,
                     what + ": the log says the rules were installed",
                     "\n".join(l for l in out.splitlines()
                               if "rte_flow" in l or "tap" in l)[-800:])
            ck.eq(gp.get("rx_handoff"), 0, what + ": rx_handoff: every "
                  "frame came in on its owner's queue")
            want = sorted((ip_str(a), i % 2) for i, a in enumerate(ips))
            got = sorted((a, q) for a, q, _n in rules)
            ck.eq(got, want, what + ": the kernel's flower filters: rank "
                  "IPv4 index i -> queue i % 2")
            ck.check(rules and all(n > 0 for _a, _q, n in rules),
                     what + ": every rank's filter matched frames (tc -s)",
                     "%r" % rules)
        else:
            ck.eq(flow, 0, what + ": rx_steering.flow_rules: none")
            ck.check("rte_flow refused rule 1" in out,
                     what + ": the log says the PMD refused the rules",
                     out[-800:])
            ck.check(gp.get("rx_handoff", 0) > 0,
                     what + ": frames of the other worker's QPs handed over",
                     "rx_handoff %r" % gp.get("rx_handoff"))


def main():
    exe = sys.argv[1]
    mode = sys.argv[2] if len(sys.argv) > 2 else "handoff"
    ck = Checks("test_generator_tap " + mode)
    setup()
    try:
        case(ck, exe, mode == "steer")
    finally:
        teardown()
    ck.finish()


if __name__ == "__main__":
    main()
