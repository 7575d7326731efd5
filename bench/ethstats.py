#!/usr/bin/python3
# SPDX-License-Identifier: BSD-3-Clause
"""bench/ethstats.py: wall forwarding rate of a running DPDK process.

Reads /ethdev/stats over the process's telemetry socket
(/var/run/dpdk/<prefix>/dpdk_telemetry.v2), the same for every tool: waits
until the output ports' opackets move, skips a warm-up, then takes ROUNDS
back-to-back windows of WINDOW seconds and prints

    best_mpps median_mpps rounds [oncpu_cycles_per_pkt]

(the sum of opackets over --ports per window), or "fail" when the socket
never answered or nothing was sent within --timeout seconds.

With --pid, --threads and --hz it also prints the median over the windows
of the on-CPU cycles per packet of the process's threads whose name
matches --threads (/proc/PID/task/*/schedstat: time actually run, so time
the scheduler gave to other processes on a shared machine is not counted,
unlike the wall rate): a busy-polling forwarder's cost per packet.

    ethstats.py --prefix P [--ports 1,2,3] [--window 2] [--rounds 5]
                [--pid PID --threads REGEX --hz TSC_HZ]
"""
import argparse
import json
import os
import re
import socket
import statistics
import sys
import time


def connect(path, deadline):
    while time.monotonic() < deadline:
        if os.path.exists(path):
            s = socket.socket(socket.AF_UNIX, socket.SOCK_SEQPACKET)
            try:
                s.connect(path)
                info = json.loads(s.recv(16384).decode())
                return s, info.get("max_output_len", 16384)
            except (OSError, ValueError):
                s.close()
        time.sleep(0.05)
    return None, 0


def sent(sock, maxlen, ports):
    total = 0
    for p in ports:
        sock.send(("/ethdev/stats,%d" % p).encode())
        r = json.loads(sock.recv(maxlen).decode())["/ethdev/stats"]
        if not isinstance(r, dict):
            raise OSError("no port %d" % p)
        total += r["opackets"]
    return time.monotonic(), total


def oncpu_ns(pid, pattern):
    """Nanoseconds run so far by the threads of @pid whose comm matches."""
    total = 0
    base = "/proc/%d/task" % pid
    for tid in os.listdir(base):
        try:
            with open(os.path.join(base, tid, "comm")) as f:
                if not re.fullmatch(pattern, f.read().strip()):
                    continue
            with open(os.path.join(base, tid, "schedstat")) as f:
                total += int(f.read().split()[0])
        except OSError:
            pass
    return total


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--prefix", required=True)
    ap.add_argument("--ports", default="1,2,3")
    ap.add_argument("--window", type=float, default=2.0)
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--warmup", type=float, default=0.5)
    ap.add_argument("--timeout", type=float, default=300.0)
    ap.add_argument("--pid", type=int, default=0)
    ap.add_argument("--threads", default="")
    ap.add_argument("--hz", type=float, default=0.0)
    a = ap.parse_args()
    ports = [int(p) for p in a.ports.split(",")]
    deadline = time.monotonic() + a.timeout
    sock, maxlen = connect("/var/run/dpdk/%s/dpdk_telemetry.v2" % a.prefix,
                           deadline)
    if sock is None:
        print("fail")
        return
    try:
        while sent(sock, maxlen, ports)[1] == 0:
            if time.monotonic() > deadline:
                print("fail")
                return
            time.sleep(0.05)
        time.sleep(a.warmup)
        rates, cpp = [], []
        busy = a.pid > 0 and a.threads and a.hz > 0
        c0 = oncpu_ns(a.pid, a.threads) if busy else 0
        t0, n0 = sent(sock, maxlen, ports)
        for _ in range(a.rounds):
            time.sleep(a.window)
            t1, n1 = sent(sock, maxlen, ports)
            rates.append((n1 - n0) / (t1 - t0) / 1e6)
            if busy:
                c1 = oncpu_ns(a.pid, a.threads)
                if n1 > n0:
                    cpp.append((c1 - c0) * a.hz / 1e9 / (n1 - n0))
                c0 = c1
            t0, n0 = t1, n1
    except (OSError, ValueError, KeyError):
        print("fail")
        return
    extra = " %.0f" % statistics.median(cpp) if cpp else ""
    print("%.2f %.2f %d%s" % (max(rates), statistics.median(rates),
                              len(rates), extra))


if __name__ == "__main__":
    sys.exit(main())
