#!/usr/bin/python3
# SPDX-License-Identifier: BSD-3-Clause
"""Reference frames of the generator's send path, to keep it byte-exact
while it is made faster.

  bench/gen_frames.py write DIR [EXE]   run the cases below, keep their pcaps
  bench/gen_frames.py cmp DIR_A DIR_B   compare two such directories

Every case is deterministic: the generator on its virtual clock
(virtual_tick_ns), so the payload tags' TX stamps and the --capture
departure stamps repeat. `cmp` compares the --capture files byte for byte
and the net_pcap tx_pcap files frame by frame (net_pcap stamps records
with the wall clock). Trace replay has no virtual clock: its frames are
compared, not their stamps.

Cases: open loop over two net_pcap ports (ring / halving-doubling
AllReduce, all-to-all, AllGather) at IB MTU 256, 1024 and 4096 with sizes
that leave short last packets, packets under the 24-byte tag and empty
WRITEs; closed loop on a net_ring loop (clean, a drop with its go-back-N
resends, CE marks with DCQCN and CNPs); trace replay of the shipped sample,
two passes (the second re-stamps PSNs and ICRCs).
"""
import os
import shutil
import struct
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
EAL = ["--no-huge", "-m", "512", "--no-pci"]

OPEN = """[general]
name = gen-frames
seed = 3
[switch]
enabled = false
[port.p0]
mac = 02:aa:00:00:01:00
speed_gbps = 100
mtu = 9000
[port.p1]
mac = 02:aa:00:00:01:01
speed_gbps = 100
mtu = 9000
[generator]
enabled = true
ports = p0 p1
iterations = 2
warmup = 1
virtual_tick_ns = 1000
"""

# The closed-loop cases run test_closed_loop.py's profile.
sys.path.insert(0, os.path.join(ROOT, "tests", "integration"))
from test_closed_loop import PROFILE as LOOP_PROFILE  # noqa: E402
LOOP = LOOP_PROFILE % dict(device="net_ring0", speed=100, ranks=4,
                           size=262144, mtu=1024, rate=10, qpn=256,
                           tick=1000)

# name -> [generator] keys of an open-loop run
OPEN_CASES = {
    "ring256": dict(collective="allreduce_ring", ranks=4, size_bytes=100003,
                    ib_mtu=256),
    "ring1024": dict(collective="allreduce_ring", ranks=4,
                     size_bytes=1048576, ib_mtu=1024),
    "hd4096": dict(collective="allreduce_hd", ranks=8, size_bytes=1000000,
                   ib_mtu=4096),
    "a2a4096": dict(collective="alltoall", ranks=4, size_bytes=262147,
                    ib_mtu=4096, qps_per_conn=2),
    "ag512": dict(collective="allgather_ring", ranks=3, size_bytes=70001,
                  ib_mtu=512, channels=2),
    "tiny": dict(collective="allreduce_ring", ranks=4, size_bytes=64,
                 ib_mtu=256),
    "tiny2": dict(collective="alltoall", ranks=5, size_bytes=100,
                  ib_mtu=256),
    "tiny3": dict(collective="alltoall", ranks=5, size_bytes=110,
                  ib_mtu=256),
}
# name -> --set options of a closed-loop run
LOOP_CASES = {
    "cl_base": [],
    "cl_drop": ["generator.fault_at=rx", "generator.fault_drop_index=300"],
    "cl_ce": ["generator.dcqcn=true", "generator.fault_at=rx",
              "generator.fault_ce_every=10"],
}


def run(cmd, what):
    p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                       text=True, timeout=600)
    if p.returncode != 0:
        sys.exit("%s failed (%d): %s\n%s" % (what, p.returncode,
                                            " ".join(cmd), p.stdout[-2000:]))


def write(d, exe):
    os.makedirs(d, exist_ok=True)
    pid = os.getpid()
    for name, keys in OPEN_CASES.items():
        prof = os.path.join(d, name + ".ini")
        with open(prof, "w") as f:
            f.write(OPEN + "".join("%s = %s\n" % kv for kv in keys.items()))
        cap = os.path.join(d, name + ".cap")
        shutil.rmtree(cap, ignore_errors=True)
        cmd = [exe] + EAL + ["--file-prefix", "gfr%d" % pid]
        for i in range(2):
            cmd += ["--vdev", "net_pcap%d,tx_pcap=%s" % (
                i, os.path.join(d, "%s.tx%d.pcap" % (name, i)))]
        run(cmd + ["--", "--profile", prof, "--quiet", "--capture", cap],
            name)
    for name, sets in LOOP_CASES.items():
        prof = os.path.join(d, name + ".ini")
        with open(prof, "w") as f:
            f.write(LOOP)
        cap = os.path.join(d, name + ".cap")
        shutil.rmtree(cap, ignore_errors=True)
        cmd = [exe] + EAL + ["--file-prefix", "gfr%d" % pid, "--vdev",
                             "net_ring0", "--", "--profile", prof, "--quiet",
                             "--capture", cap]
        for s in sets:
            cmd += ["--set", s]
        run(cmd, name)
    cmd = [exe] + EAL + ["--file-prefix", "gfr%d" % pid]
    for i in range(2):
        cmd += ["--vdev", "net_pcap%d,tx_pcap=%s" % (
            i, os.path.join(d, "trace.tx%d.pcap" % i))]
    run(cmd + ["--", "--profile",
               os.path.join(ROOT, "profiles", "gen-trace.ini"), "--quiet",
               "--set", "generator.trace=" +
               os.path.join(ROOT, "tests", "data", "replay-sample.pcap"),
               "--set", "generator.trace_loops=2",
               "--set", "generator.trace_speed=0"], "trace")


def frames(path):
    """Frame bytes of a pcap (microsecond or nanosecond, either order)."""
    with open(path, "rb") as f:
        b = f.read()
    end = "<" if b[:4] in (b"\xd4\xc3\xb2\xa1", b"\x4d\x3c\xb2\xa1") else ">"
    out, o = [], 24
    while o + 16 <= len(b):
        incl = struct.unpack_from(end + "I", b, o + 8)[0]
        out.append(b[o + 16:o + 16 + incl])
        o += 16 + incl
    return out


def compare(a, b):
    bad = n = nfr = 0
    for root, _dirs, files in os.walk(a):
        for fn in sorted(files):
            if not fn.endswith(".pcap"):
                continue
            pa = os.path.join(root, fn)
            pb = os.path.join(b, os.path.relpath(pa, a))
            n += 1
            if not os.path.exists(pb):
                print("missing: %s" % pb)
                bad += 1
                continue
            if root != a:           # --capture: virtual stamps, whole file
                with open(pa, "rb") as f, open(pb, "rb") as g:
                    same = f.read() == g.read()
            else:                   # net_pcap: wall-clock stamps
                same = frames(pa) == frames(pb)
            nfr += len(frames(pa))
            if not same:
                print("DIFFERS: %s" % os.path.relpath(pa, a))
                bad += 1
    print("%d pcaps (%d frames) compared, %d differ" % (n, nfr, bad))
    return 1 if bad or n == 0 else 0


def main():
    if len(sys.argv) >= 3 and sys.argv[1] == "write":
        write(sys.argv[2], sys.argv[3] if len(sys.argv) > 3 else
              os.path.join(ROOT, "build", "app", "dpdk-aifab"))
        return 0
    if len(sys.argv) == 4 and sys.argv[1] == "cmp":
        return compare(sys.argv[2], sys.argv[3])
    sys.exit(__doc__)


if __name__ == "__main__":
    sys.exit(main())
