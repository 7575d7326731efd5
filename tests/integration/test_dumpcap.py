#!/usr/bin/python3
# SPDX-License-Identifier: BSD-3-Clause
"""dpdk-dumpcap against a running dpdk-aifab on hugepages.

DPDK 22.11 secondary processes (dpdk-dumpcap) cannot attach to a --no-huge
primary, so this test makes hugepages for itself and gives them back:

1. saves /sys/kernel/mm/hugepages/hugepages-2048kB/nr_hugepages, asks for
   PAGES more 2 MB pages and mounts a private hugetlbfs directory; if the
   kernel gives fewer pages than needed, or the mount fails, it exits 77
   (meson: SKIP) with the reason;
2. runs dpdk-aifab without any memory option while only PAGES x 2 MB
   (< 1024 MB) are free: it must fall back to --no-huge (app/args.c), so
   the free hugepage count does not move while it runs;
3. runs dpdk-aifab as a primary with --huge-dir DIR -m 256 --file-prefix X
   over net_pcap ports, p0 replaying 8 UDP frames (DSCP 26) to p1's
   neighbour forever (infinite_rx) so traffic keeps flowing; it must take
   hugepages (the free count drops);
4. runs `dpdk-dumpcap --file-prefix X -i net_pcap1 -c 10 -w out.pcapng`;
   tshark must read at least 10 frames (the last burst is written
   whole) on interface dpdk:1 (port 1: net_pcap1), each the routed form of
   one of the inputs: from p1's MAC to its neighbour's,
   10.0.0.2 -> 10.0.1.2, TTL 63, DSCP 26, UDP 1000..1007 -> 4791, length
   unchanged, IPv4 checksum good (tshark verifies it);
5. always (finally): stops the app (SIGINT, then SIGKILL), unmounts and
   removes the directory, restores nr_hugepages and checks it is back.

Registered with is_parallel: false: no other test runs while these
hugepages exist (tests/integration/test_stats_live.py would use them).

Usage: test_dumpcap.py PATH/TO/dpdk-aifab
"""
import os
import signal
import subprocess
import sys
import tempfile
import time

from lib_aifab import (NBR_IP4, NBR_MAC, PORT_MAC, Checks, _remove_runtime_dir,
                       exe_path, file_prefix, leaf_profile, wait_app_ready,
                       write_pcap)
from scapy.all import IP, UDP, Ether, Raw

SKIP = 77
PAGES = 300                     # 600 MB: enough for -m 256, below 1024 MB
NR = "/sys/kernel/mm/hugepages/hugepages-2048kB/nr_hugepages"
FREE = "/sys/kernel/mm/hugepages/hugepages-2048kB/free_hugepages"
N_CAP = 10
SPORTS = range(1000, 1008)


def read_int(path):
    with open(path) as f:
        return int(f.read().split()[0])


def write_int(path, v):
    with open(path, "w") as f:
        f.write("%d\n" % v)


def frames():
    return [bytes(Ether(src=NBR_MAC[0], dst=PORT_MAC[0]) /
                  IP(src=NBR_IP4[0], dst=NBR_IP4[1], tos=26 << 2 | 2) /
                  UDP(sport=s, dport=4791) / Raw(b"x" * 200))
            for s in SPORTS]


def app_cmd(exe, tmp, prefix, eal_mem, duration):
    in0, empty = os.path.join(tmp, "in0.pcap"), os.path.join(tmp, "e.pcap")
    cmd = [exe] + eal_mem + [
        "--no-pci", "-l", "0-1", "--file-prefix", prefix,
        "--vdev", "net_pcap0,rx_pcap=%s,tx_pcap=/dev/null,infinite_rx=1"
        % in0]
    for p in (1, 2, 3):
        cmd += ["--vdev", "net_pcap%d,rx_pcap=%s,tx_pcap=/dev/null" %
                (p, empty)]
    # Small pools: a 512 KB buffer needs few mbufs.
    return cmd + ["--", "--profile", leaf_profile(), "--duration",
                  str(duration), "--quiet", "--set",
                  "qos.buffer_bytes=524288", "--set", "general.mbufs=8192"]


def wait_ready(prefix, proc):
    """The primary runs (its /aifab/lcores answers: ports started, workers
    launching), then 1 s of traffic."""
    if not wait_app_ready(prefix, proc):
        return False
    time.sleep(1.0)
    return True


def stop(proc):
    """SIGINT (then SIGKILL); returns its stderr ("" if already read)."""
    if proc is None or proc.returncode is not None:
        return ""
    if proc.poll() is None:
        proc.send_signal(signal.SIGINT)
    try:
        _out, err = proc.communicate(timeout=20)
    except subprocess.TimeoutExpired:
        proc.kill()
        _out, err = proc.communicate()
    return err or ""


def check_fallback(ck, exe, tmp, free0):
    """Fewer than 1024 MB of hugepages free: the app takes none."""
    ck.section("no memory option, %d MB of hugepages free" % (free0 * 2))
    prefix = file_prefix("dcap-nohuge")
    proc = subprocess.Popen(app_cmd(exe, tmp, prefix, [], 3),
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True)
    try:
        ready = wait_ready(prefix, proc)
        seen = set()
        while ready and proc.poll() is None:
            seen.add(read_int(FREE))
            time.sleep(0.2)
        out, err = proc.communicate(timeout=30)
    finally:
        stop(proc)
        _remove_runtime_dir(prefix)
    ck.check(ready, "the app started", err[-500:] if not ready else "")
    ck.eq(proc.returncode, 0, "exit status")
    ck.eq(seen, {free0}, "free hugepages while it ran (it fell back to "
          "--no-huge -m 1024: %d MB < 1024 MB free)" % (free0 * 2))


def check_dumpcap(ck, exe, tmp, hdir, free0):
    ck.section("primary on hugepages (--huge-dir, -m 256), dpdk-dumpcap")
    prefix = file_prefix("dcap")
    out = os.path.join(tmp, "out.pcapng")
    # A secondary maps the primary's memory at the primary's addresses.
    # Where EAL puts it by default (4 GB up) lies in AddressSanitizer's
    # shadow in the ASan build, so EAL took whatever mmap gave, which the
    # (uninstrumented) dpdk-dumpcap sometimes had in use: "Cannot
    # preallocate VA space for hugepage memory". A fixed base at 64 TB is
    # free in both kinds of process: above ASan's shadow (up to 16 TB),
    # below its allocator (96 TB) and below where PIE binaries, their heaps
    # and shared libraries go (85 TB and up).
    cmd = app_cmd(exe, tmp, prefix, ["--huge-dir", hdir, "-m", "256",
                                     "--base-virtaddr", "0x400000000000"],
                  60)
    print(" ".join(cmd))
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)
    try:
        if not ck.check(wait_ready(prefix, proc), "the primary started"):
            print(stop(proc)[-1500:])
            return
        used = free0 - read_int(FREE)
        ck.check(used >= 128, "the primary took hugepages (%d of 2 MB, "
                 "-m 256 needs 128)" % used)
        try:
            r = subprocess.run(["dpdk-dumpcap", "--file-prefix", prefix,
                                "-i", "net_pcap1", "-c", str(N_CAP), "-w",
                                out, "-q"], capture_output=True, text=True,
                               timeout=60)
        except subprocess.TimeoutExpired:
            ck.check(False, "dpdk-dumpcap finished within 60 s")
            return
        ck.eq(r.returncode, 0, "dpdk-dumpcap exit status (%s)" %
              (r.stdout + r.stderr).strip()[-300:])
        ck.check(proc.poll() is None, "the primary still runs after "
                 "dpdk-dumpcap detached")
    finally:
        err = stop(proc)
        _remove_runtime_dir(prefix)
    ck.eq(proc.returncode, 0, "primary exit status after SIGINT (%s)" %
          err.strip()[-300:])
    judge_capture(ck, out)


def judge_capture(ck, out):
    ck.section("the capture, by tshark")
    fields = ["frame.interface_name", "frame.len", "eth.src", "eth.dst",
              "ip.src", "ip.dst", "ip.ttl", "ip.dsfield.dscp",
              "ip.checksum.status", "udp.srcport", "udp.dstport"]
    if not ck.check(os.path.exists(out), "dpdk-dumpcap wrote " + out):
        return
    cmd = ["tshark", "-r", out, "-o", "ip.check_checksum:TRUE", "-T",
           "fields", "-E", "separator=|"]
    for f in fields:
        cmd += ["-e", f]
    t = subprocess.run(cmd, capture_output=True, text=True)
    rows = [dict(zip(fields, ln.split("|")))
            for ln in t.stdout.splitlines() if ln.strip()]
    ck.eq(t.returncode, 0, "tshark reads the pcapng (%s)" % t.stderr[-200:])
    print("tshark: %d frames; first: %r" % (len(rows), rows[:1]))
    # -c stops after that many; the last burst is written whole.
    ck.check(len(rows) >= N_CAP, "tshark: at least %d frames (-c %d): %d" %
             (N_CAP, N_CAP, len(rows)))
    want_len = str(len(frames()[0]))
    bad = [r for r in rows if not (
        r["frame.interface_name"] == "dpdk:1" and
        r["frame.len"] == want_len and
        r["eth.src"] == PORT_MAC[1] and r["eth.dst"] == NBR_MAC[1] and
        r["ip.src"] == NBR_IP4[0] and r["ip.dst"] == NBR_IP4[1] and
        r["ip.ttl"] == "63" and r["ip.dsfield.dscp"] == "26" and
        r["ip.checksum.status"] == "1" and
        r["udp.dstport"] == "4791" and
        r["udp.srcport"].isdigit() and int(r["udp.srcport"]) in SPORTS)]
    ck.check(rows and not bad, "every frame is an input routed out of p1: "
             "interface dpdk:1 (dpdk-dumpcap's name for port 1, net_pcap1), "
             "%s bytes, %s -> %s, %s -> %s, TTL 63, DSCP 26, "
             "IPv4 checksum good, UDP 1000..1007 -> 4791" %
             (want_len, PORT_MAC[1], NBR_MAC[1], NBR_IP4[0], NBR_IP4[1]),
             repr(bad[:2]))


def unmount(hdir):
    """Remove the primary's page files, then unmount (retrying while a
    process that just exited still holds the mount; lazily at last)."""
    for name in os.listdir(hdir):
        try:
            os.unlink(os.path.join(hdir, name))
        except OSError as e:
            print("unlink %s: %s" % (name, e))
    for _ in range(50):
        r = subprocess.run(["umount", hdir], capture_output=True, text=True)
        if r.returncode == 0:
            return
        time.sleep(0.2)
    print("umount %s: %s" % (hdir, r.stderr.strip()))
    subprocess.run(["fuser", "-vm", hdir])
    subprocess.run(["umount", "-l", hdir])


def restore_nr(nr0):
    """Back to nr0 pages (pages still in use are freed as they go)."""
    for _ in range(50):
        write_int(NR, nr0)
        if read_int(NR) == nr0:
            break
        time.sleep(0.2)
    return read_int(NR)


def main():
    exe = exe_path()
    if os.geteuid() != 0 or not os.path.exists(NR):
        print("SKIP: needs root and 2 MB hugepages (%s)" % NR)
        sys.exit(SKIP)
    ck = Checks("dumpcap")
    tmp = tempfile.mkdtemp(prefix="aifab-it-dumpcap-")
    write_pcap(os.path.join(tmp, "in0.pcap"), frames())
    write_pcap(os.path.join(tmp, "e.pcap"), [])
    hdir = os.path.join(tmp, "huge")
    os.mkdir(hdir)
    nr0 = read_int(NR)
    free_before = read_int(FREE)
    mounted = False
    skip = None
    try:
        write_int(NR, nr0 + PAGES)
        got = read_int(FREE) - free_before
        print("nr_hugepages %d -> %d: %d more free 2 MB pages" %
              (nr0, read_int(NR), got))
        if got < PAGES:
            skip = ("the kernel gave %d of %d 2 MB hugepages (memory too "
                    "fragmented or too small)" % (got, PAGES))
        else:
            r = subprocess.run(["mount", "-t", "hugetlbfs", "-o",
                                "pagesize=2M", "nodev", hdir],
                               capture_output=True, text=True)
            if r.returncode != 0:
                skip = "mount -t hugetlbfs failed: %s" % r.stderr.strip()
            else:
                mounted = True
        if skip is None:
            free0 = read_int(FREE)
            check_fallback(ck, exe, tmp, free0)
            check_dumpcap(ck, exe, tmp, hdir, free0)
    finally:
        if mounted:
            unmount(hdir)
        back = restore_nr(nr0)
        print("nr_hugepages restored to %d" % back)
        subprocess.run(["rm", "-rf", tmp])
    if skip is not None:
        print("SKIP: " + skip)
        sys.exit(SKIP)
    ck.eq(back, nr0, "nr_hugepages restored")
    ck.finish()


if __name__ == "__main__":
    main()
