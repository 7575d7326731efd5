#!/usr/bin/python3
# SPDX-License-Identifier: BSD-3-Clause
"""A 128-rank 2-tier Clos in one process, on the virtual clock (issue 16,
scale): profiles/clos-128.ini (tools/mk_clos_profiles.py --ranks 128: 8
leaves of 16 hosts at 100G, 4 spines, every leaf one 400G cable to every
spine, ECMP over the spines) runs ring and halving-doubling AllReduce of
4 MiB in closed loop. 320 in-memory ports: more than DPDK's
RTE_MAX_ETHPORTS (32), so this is the port I/O layer's ring ports and the
switches' own-port views at work.

Judged, independently of the generator's own figures:
* the shipped profile is what the script writes;
* every rank's bytes are delivered exactly once: each generator port
  received exactly the RDMA WRITE frames the schedule implies (ring:
  2(N-1) chunks of S/N; halving-doubling: S/2, S/4, ..., S/N twice, in
  ib_mtu frames; PROTOCOLS.md / nccl-tests), sent as many, no PSN lost,
  duplicated or re-sent, no frame dropped on any port; every cable
  carries what each side sent;
* time, from the frame sizes (Ethernet 14 + IPv4 20 + UDP 8 + BTH 12 +
  ICRC 4, RETH 16 on a message's first frame, + 24 on the wire: FCS,
  preamble, inter-frame gap) and the link rates, the alpha-beta model of
  a non-blocking fabric (the same as one switch): a step cannot be
  faster than its source's serialization, T_lo = sum over steps of
  (frames x wire bytes x 8 / B); the ring's steps are gated by the
  slowest (cross-leaf) pair, T_hi = T_lo + 2(N-1) x alpha, alpha = the
  last frame's store-and-forward over leaf -> spine (400G), spine ->
  leaf (400G), leaf -> host (100G), 4 cables of cable_m (3 m x 5 ns/m)
  and the ACK frames that share the sender's link in a step. The ring
  (one cross-leaf flow per leaf: no ECMP collision) lies in [T_lo,
  T_hi]; halving-doubling (16 flows per leaf over 4 uplinks, hashed:
  collisions oversubscribe some uplinks, PFC and ECN act) is never
  faster than T_lo;
* limits: 33 ethdev ports or 65 ports on one switch fail with one line
  naming what is allowed;
* deterministic: a second run gives the same report but elapsed_s,
  lcores and the multihost object's wall-clock instants.

Usage: test_clos_scale.py PATH/TO/dpdk-aifab
"""
import json
import os
import subprocess
import sys
import tempfile
import time

from lib_aifab import file_prefix

exe = sys.argv[1] if len(sys.argv) > 1 else os.environ["AIFAB_EXE"]
root = os.environ.get("AIFAB_SOURCE_ROOT",
                      os.path.join(os.path.dirname(__file__), "..", ".."))
fails = []

N, HOSTS, SPINES = 128, 16, 4
S = 4 << 20                       # bytes per AllReduce
MTU = 4096                        # ib_mtu
HOST_BPS, UP_BPS = 100e9, 400e9
CABLE_NS = 3 * 5                  # cable_m default 3 m, 5 ns per metre
ACK_EVERY = 8                     # [generator] ack_every default
HDR = 14 + 20 + 8 + 12 + 4        # Eth, IPv4, UDP, BTH, ICRC
RETH, AETH, WIRE = 16, 4, 24      # WIRE: FCS 4 + preamble 8 + IFG 12
CNP = HDR + 16                    # BTH opcode 0x81, 16 reserved bytes
PFC = 60                          # MAC control frame, padded (no FCS)
EAL_MB = 2048                     # 12 switches x one rte_fib table (16 MiB at 1-byte next hops) and queues


def check(ok, what, got=""):
    print("%s  %s%s" % ("ok  " if ok else "FAIL", what,
                        "" if ok else ": got %s" % (got,)))
    if not ok:
        fails.append(what)
    return ok


def frames(msg):
    return (msg + MTU - 1) // MTU


def steps(coll):
    """Bytes each rank sends (and receives) per step, in order."""
    if coll == "allreduce_ring":
        return [S // N] * (2 * (N - 1))
    half = [S >> (k + 1) for k in range(N.bit_length() - 1)]
    return half + half[::-1]


def t_lo_us(coll):
    """The source's serialization of every step's frames, in us."""
    t = 0.0
    for msg in steps(coll):
        wire = frames(msg) * (HDR + WIRE) + msg + RETH
        t += wire * 8 / HOST_BPS
    return t * 1e6


def alpha_us():
    """A ring step's latency beyond serialization: the last frame through
    two 400G hops and the 100G host hop, four cables, and the ACKs the
    sender's link carries in one step (every ACK_EVERY frames and the
    last)."""
    last = MTU + HDR + WIRE
    acks = frames(S // N) // ACK_EVERY + 1
    ns = (last * 8 * (2 / UP_BPS + 1 / HOST_BPS) * 1e9 + 4 * CABLE_NS +
          acks * (HDR + AETH + WIRE) * 8 / HOST_BPS * 1e9)
    return ns / 1000


def run(coll, tag):
    prof = os.path.join(root, "profiles", "clos-128.ini")
    with tempfile.TemporaryDirectory() as d:
        rep = os.path.join(d, "r.json")
        cmd = [exe, "--no-huge", "-m", str(EAL_MB), "--no-pci", "-l", "0",
               "--file-prefix", file_prefix("clos128"), "--",
               "--profile", prof, "--report-json", rep, "--quiet",
               "--set", "generator.collective=" + coll,
               "--set", "generator.size_bytes=%d" % S]
        t0 = time.monotonic()
        p = subprocess.run(cmd, capture_output=True, text=True, timeout=600)
        took = time.monotonic() - t0
        check(p.returncode == 0, "%s %s: exit 0" % (coll, tag),
              (p.returncode, p.stderr[-800:]))
        if p.returncode != 0 or not os.path.exists(rep):
            print(p.stdout[-3000:])
            sys.exit(1)
        r = json.load(open(rep))
    print("%s %s: %.1f s wall, %d frame-hops" %
          (coll, tag, took, r["virtual_clock"]["frame_hops"]))
    return r


def wires(prof):
    out, cur = [], None
    for line in open(prof):
        line = line.strip()
        if line.startswith("[port."):
            cur = line[6:-1]
        elif line.startswith("wire") and cur:
            out.append((cur, line.split("=")[1].strip()))
    return out


def judge(coll, r):
    g = r["generator"]
    c = g["collective"]
    check(r["end"] == "input_consumed" and r["clock"] == "virtual",
          "%s: the collective completed, on the virtual clock" % coll,
          (r["end"], r["clock"]))
    check(c["ranks"] == N and c["size"] == S and c["iterations"] == 1,
          "%s: %d ranks, %d bytes, one iteration" % (coll, N, S), c)
    check(r["mempool_in_use_at_exit"] == 0, "%s: every mbuf returned" % coll,
          r["mempool_in_use_at_exit"])
    check(g["qps"]["lost"] == 0 and g["qps"]["duplicates"] == 0 and
          g["rc"]["retx_packets"] == 0,
          "%s: no PSN lost, duplicated or re-sent" % coll,
          (g["qps"], g["rc"]))
    drops = {p: sum(q.get("drops", {}).values()) for p, q in
             r["ports"].items()}
    check(not any(drops.values()), "%s: no frame dropped on any port" % coll,
          {p: v for p, v in drops.items() if v})
    prof = os.path.join(root, "profiles", "clos-128.ini")
    bad = [(a, b) for a, b in wires(prof)
           if r["ports"][a]["tx_packets"] != r["ports"][b]["rx_packets"] or
           r["ports"][b]["tx_packets"] != r["ports"][a]["rx_packets"] or
           r["ports"][a]["tx_bytes"] != r["ports"][b]["rx_bytes"]]
    check(not bad, "%s: each of the %d cables carries what each side sent"
          % (coll, len(wires(prof))), bad[:4])
    # Exactly once: each rank receives (and sends) the schedule's frames.
    data = sum(frames(m) for m in steps(coll))
    data_bytes = sum(frames(m) * HDR + m + RETH for m in steps(coll))
    wrong = []
    for i in range(N):
        gp = r["ports"]["g%d" % i]
        gen = gp["generator"]
        # what is not data: ACKs, CNPs (DCQCN) and PFC frames
        rx_data = (gp["rx_packets"] - gen["rx_ack"] - gen["rx_cnp"] -
                   gen["rx_pfc"])
        rx_bytes = (gp["rx_bytes"] - gen["rx_ack"] * (HDR + AETH) -
                    gen["rx_cnp"] * CNP - gen["rx_pfc"] * PFC)
        tx_data = gp["tx_packets"] - gen["tx_ack"] - gen["tx_cnp"]
        if (rx_data, rx_bytes, tx_data) != (data, data_bytes, data):
            wrong.append((i, rx_data, rx_bytes, tx_data))
    check(not wrong, "%s: every rank received %d data frames (%d bytes) "
          "and sent as many, exactly once" % (coll, data, data_bytes),
          wrong[:4])
    t = c["time_us"]["avg"]
    lo = t_lo_us(coll)
    check(t >= lo - 0.01, "%s: %.1f us is no faster than the wire allows "
          "(T_lo %.1f us)" % (coll, t, lo), t)
    if coll == "allreduce_ring":
        hi = lo + 2 * (N - 1) * alpha_us()
        check(t <= hi, "%s: %.1f us within the alpha-beta bound of a "
              "non-blocking fabric (T_hi %.1f us)" % (coll, t, hi), t)
    ideal = 2 * (N - 1) / N * S / (HOST_BPS / 8) * 1e6
    print("%s: %.1f us, busbw %.2f GB/s = %.3f of the line rate's ideal "
          "(%.1f us); T_lo %.1f us" % (coll, t, c["busbw_gbps"],
                                       ideal / t, ideal, lo))


def strip(r):
    """The report but what is the machine's, not the model's: elapsed_s,
    the lcores' cycles, the wall-clock instants of "multihost"."""
    r = json.loads(json.dumps(r))
    for k in ("elapsed_s", "lcores"):
        r.pop(k, None)
    mh = r.get("multihost") or {}
    for k in ("start_ns", "end_ns"):
        mh.pop(k, None)
    mh.get("start", {}).pop("at_ns", None)
    for it in mh.get("iterations", []):
        it.pop("start_ns", None)
        it.pop("end_ns", None)
    return r


def same_but(a, b):
    return strip(a) == strip(b)


def limits():
    """The limits fail with one line naming file, section, key, value and
    what is allowed: 33 ethdev ports (RTE_MAX_ETHPORTS is 32; wires have
    no such limit), 65 ports on one switch instance."""
    with tempfile.TemporaryDirectory() as d:
        cases = []
        eth = os.path.join(d, "eth33.ini")
        with open(eth, "w") as f:
            for i in range(33):
                f.write("[port.p%d]\nipv4 = 10.1.%d.1/24\n\n" % (i, i))
        cases.append(("33 ethdev ports", eth,
                      ["eth33.ini", "33 [port.*] sections are ethdevs",
                       "allowed: at most 32", "RTE_MAX_ETHPORTS"]))
        big = os.path.join(d, "sw65.ini")
        with open(big, "w") as f:
            for i in range(65):
                f.write("[port.a%d]\nswitch = big\nwire = b%d\n"
                        "ipv4 = 10.1.%d.1/24\n\n[port.b%d]\n\n" %
                        (i, i, i, i))
        cases.append(("65 ports on one switch", big,
                      ["sw65.ini", "[port.a64]", "switch", "big",
                       "allowed: at most 64 ports per switch instance"]))
        for what, prof, want in cases:
            p = subprocess.run([exe, "--no-huge", "-m", "512", "--no-pci",
                                "-l", "0", "--file-prefix",
                                file_prefix("clos128"), "--", "--profile",
                                prof], capture_output=True, text=True,
                               timeout=120)
            lines = [ln for ln in p.stderr.splitlines() if ln.strip() and
                     not ln.startswith(("EAL", "TELEMETRY"))]
            check(p.returncode == 1 and len(lines) == 1 and
                  all(w in lines[0] for w in want),
                  "%s: one error line naming %s" % (what, ", ".join(want)),
                  (p.returncode, p.stderr[-600:]))


def main():
    prof = os.path.join(root, "profiles", "clos-128.ini")
    with tempfile.TemporaryDirectory() as d:
        out = os.path.join(d, "c.ini")
        subprocess.run(["/usr/bin/python3",
                        os.path.join(root, "tools", "mk_clos_profiles.py"),
                        "--ranks", "128", out], check=True)
        check(open(out).read() == open(prof).read(),
              "profiles/clos-128.ini is what tools/mk_clos_profiles.py "
              "--ranks 128 writes")
    n_ports = sum(1 for line in open(prof) if line.startswith("[port."))
    check(n_ports == 2 * N + 2 * (N // HOSTS) * SPINES,
          "%d ports in one process (DPDK's RTE_MAX_ETHPORTS is 32)" % n_ports,
          n_ports)
    limits()
    for coll in ("allreduce_ring", "allreduce_hd"):
        a = run(coll, "run 1")
        judge(coll, a)
        b = run(coll, "run 2")
        check(same_but(a, b), "%s: a second run gives the same report "
              "(but elapsed_s and lcores)" % coll)
    print("test_clos_scale: %d failed" % len(fails))
    sys.exit(1 if fails else 0)


main()
