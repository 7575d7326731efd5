#!/usr/bin/python3
# SPDX-License-Identifier: BSD-3-Clause
"""Bad profiles and --set values: a table of cases, each run as a real
start over four net_pcap ports (as CI replays).

Usage: test_bad_config.py PATH/TO/dpdk-aifab

Every case must exit 1 with ONE error line on stderr (lines DPDK's own
logger prints, "EAL: ..." / "TELEMETRY: ...", are not ours and are listed
but not counted) that names the file (or --set), the section, the key, the
bad value and what is allowed; and none may start traffic: no frame in any
tx pcap (absent, or a bare pcap header) and no report written.
"""
import os
import re
import shutil
import subprocess
import sys
import tempfile

from lib_aifab import (N_PORTS, Checks, _remove_runtime_dir, exe_path,
                       file_prefix, leaf_profile, read_pcap, write_pcap)
from test_malformed import udp4

DPDK_LOG = re.compile(r"^(EAL|TELEMETRY|PMD|ETHDEV|MBUF|USER\d|LPM|RING|"
                      r"MEMPOOL|MALLOC|eth_pcap)[:\s]")


def leaf_text():
    with open(leaf_profile()) as f:
        return f.read()


def edit(after, add, text=None):
    """Insert `add` lines after the line `after` of pcap-leaf.ini."""
    text = text if text is not None else leaf_text()
    assert after in text, after
    return text.replace(after + "\n", after + "\n" + add + "\n", 1)


def append(sections):
    """pcap-leaf.ini with more sections at its end."""
    return leaf_text() + "\n" + sections + "\n"


def replace(old, new):
    text = leaf_text()
    assert old in text, old
    return text.replace(old, new, 1)


# (name, profile text or None for pcap-leaf.ini, --set list, EAL lcores,
#  strings the error line must contain; FILE stands for the profile path)
CASES = [
    ("unknown key", edit("[port.p0]", "colour = red"), [], None,
     ["FILE", "[port.p0]", "colour", "red", "allowed"]),
    ("unknown section", edit("[switch]", "[turbo]\nboost = on"), [], None,
     ["FILE", "[turbo]", "allowed"]),
    ("bad unit", replace("speed_gbps = 100\n\n[port.p1]",
                         "speed_gbps = 100G\n\n[port.p1]"), [], None,
     ["FILE", "[port.p0]", "speed_gbps", "100G", "allowed"]),
    ("out of range (mtu)", edit("[port.p2]", "mtu = 99999"), [], None,
     ["FILE", "[port.p2]", "mtu", "99999", "allowed", "9000"]),
    ("out of range (buffer)", append("[qos]\nbuffer_bytes = 1024"),
     [], None, ["FILE", "[qos]", "buffer_bytes", "1024", "allowed"]),
    ("duplicate port section", leaf_text() + "\n[port.p0]\nmtu = 1500\n",
     [], None, ["FILE", "[port.p0]", "allowed"]),
    ("duplicate port MAC", replace("mac = 02:aa:00:00:00:01",
                                   "mac = 02:aa:00:00:00:00"), [], None,
     ["FILE", "[port.p1]", "mac", "02:aa:00:00:00:00", "allowed"]),
    ("route via a missing neighbour / port",
     replace("0.0.0.0/0 = 10.0.2.2 10.0.3.2", "0.0.0.0/0 = 10.0.2.2 10.0.9.2"),
     [], None, ["FILE", "[routes]", "0.0.0.0/0", "10.0.9.2", "allowed"]),
    ("neighbour on no port's subnet", edit("[neighbors]",
                                           "10.0.9.2 = 02:bb:00:00:00:09"),
     [], None, ["FILE", "[neighbors]", "10.0.9.2", "allowed"]),
    ("XON offset >= XOFF", append("[tc.3]\npfc_xoff_bytes = 20000\n"
                                  "pfc_xon_offset_bytes = 20000"), [], None,
     ["FILE", "[tc.3]", "pfc_xon_offset_bytes", "20000", "allowed"]),
    ("Kmin above Kmax", append("[tc.3]\necn_kmin_bytes = 2000000\n"
                               "ecn_kmax_bytes = 1600000"), [], None,
     ["FILE", "[tc.3]", "ecn_kmin_bytes", "2000000", "allowed"]),
    ("queue limit above the buffer",
     append("[qos]\nlimit_mode = static\n[tc.0]\n"
            "queue_limit_bytes = 8000000"), [], None,
     ["FILE", "[tc.0]", "queue_limit_bytes", "8000000", "allowed"]),
    ("more switch lcores than EAL has", edit("[switch]", "lcores = 5"), [],
     "0-1", ["FILE", "[switch]", "lcores", "5", "allowed"]),
    ("unknown [generator] port", append("[generator]\n"
                                        "enabled = true\nports = p0 p9"),
     [], None, ["FILE", "[generator]", "ports", "p9", "allowed"]),
    ("fault on a generator port", append("[generator]\n"
                                         "enabled = true\nports = p0"),
     ["port.p0.fault_tx_drop_ppm=10"], None,
     ["FILE", "[port.p0]", "fault_tx", "generator", "allowed"]),
    ("fault ppm out of range", edit("[port.p1]",
                                    "fault_rx_drop_ppm = 2000000"),
     [], None, ["FILE", "[port.p1]", "fault_rx_drop_ppm", "2000000",
                "allowed"]),
    ("--set bad PFC storm priority", None, ["port.p1.fault_tx_pfc_storm=9"],
     None, ["[port.p1]", "fault_tx_pfc_storm", "9", "allowed"]),
    ("--set bad unit", None, ["port.p0.speed_gbps=fast"], None,
     ["--set", "[port.p0]", "speed_gbps", "fast", "allowed"]),
    ("--set unknown key", None, ["general.colour=red"], None,
     ["--set", "[general]", "colour", "red", "allowed"]),
    ("--set unknown section", None, ["turbo.boost=on"], None,
     ["--set", "turbo", "allowed"]),
    ("--set out of range", None, ["general.burst=0"], None,
     ["--set", "[general]", "burst", "0", "allowed", "512"]),
    ("--set Kmin above Kmax", None, ["tc.3.ecn_kmin_bytes=5000000"], None,
     ["[tc.3]", "ecn_kmin_bytes", "5000000", "allowed"]),
    ("--set XON offset >= XOFF", None, ["tc.3.pfc_xoff_bytes=10000",
                                        "tc.3.pfc_xon_offset_bytes=10000"],
     None, ["[tc.3]", "pfc_xon_offset_bytes", "10000", "allowed"]),
    ("--set lcores beyond EAL's", None, ["switch.lcores=1,5"], "0-1",
     ["[switch]", "lcores", "5", "allowed"]),
    ("--set unknown generator port", None, ["generator.enabled=true",
                                            "generator.ports=nope"], None,
     ["[generator]", "ports", "nope", "allowed"]),
    ("--set route via a missing neighbour", None,
     ["routes.10.50.0.0/16=10.0.1.99"], None,
     ["[routes]", "10.50.0.0/16", "10.0.1.99", "allowed"]),
    ("ICRC check: unknown word", append("[generator]\nenabled = true\n"
                                        "ports = p0\nrx_check_icrc = some"),
     [], None, ["FILE", "[generator]", "rx_check_icrc", "some", "allowed",
                "full, off, or every=N"]),
    ("--set ICRC check every=0", None, ["generator.rx_check_icrc=every=0"],
     None, ["--set", "[generator]", "rx_check_icrc", "every=0", "allowed",
            "N 1..4294967295"]),
]


def run_case(ck, exe, tmp, k, case):
    name, text, sets, lcores, must = case
    d = os.path.join(tmp, "c%02d" % k)
    os.makedirs(d)
    if text is None:
        prof = leaf_profile()
    else:
        prof = os.path.join(d, "bad.ini")
        with open(prof, "w") as f:
            f.write(text)
    frame = udp4(b"<B000001>")
    cmd = [exe, "--no-huge", "-m", "512", "--no-pci"]
    if lcores:
        cmd += ["-l", lcores]
    prefix = file_prefix("badcfg")
    cmd += ["--file-prefix", prefix]
    for i in range(N_PORTS):
        write_pcap(os.path.join(d, "in%d.pcap" % i), [frame] * 5)
        cmd += ["--vdev", "net_pcap%d,rx_pcap=%s,tx_pcap=%s" % (
            i, os.path.join(d, "in%d.pcap" % i),
            os.path.join(d, "out%d.pcap" % i))]
    cmd += ["--", "--profile", prof, "--quiet", "--report-json",
            os.path.join(d, "report.json")]
    for s in sets:
        cmd += ["--set", s]
    p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                       text=True, timeout=60)
    _remove_runtime_dir(prefix)
    lines = [l for l in p.stderr.splitlines() if l.strip()]
    ours = [l for l in lines if not DPDK_LOG.match(l)]
    ck.eq(p.returncode, 1, "%s: exit status 1" % name)
    ck.eq(len(ours), 1, "%s: one error line on stderr" % name)
    line = ours[0] if ours else ""
    print("    stderr: %s" % line)
    for l in lines:
        if DPDK_LOG.match(l):
            print("    (DPDK's log: %s)" % l)
    for s in must:
        s = prof if s == "FILE" else s
        ck.check(s in line, "%s: the line names %r" % (name, s), repr(line))
    ck.check(len(line) < 400, "%s: the line is short enough to read (%d)" %
             (name, len(line)))
    for i in range(N_PORTS):
        out = read_pcap(os.path.join(d, "out%d.pcap" % i))
        ck.check(not out, "%s: nothing sent on port %d" % (name, i),
                 "%d frames in out%d.pcap" % (len(out or []), i))
    ck.check(not os.path.exists(os.path.join(d, "report.json")),
             "%s: no report written (nothing ran)" % name)


def main():
    exe = exe_path()
    ck = Checks("bad_config")
    tmp = tempfile.mkdtemp(prefix="aifab-it-badcfg-")
    try:
        for k, case in enumerate(CASES):
            ck.section(case[0])
            run_case(ck, exe, tmp, k, case)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    ck.finish()


if __name__ == "__main__":
    sys.exit(main())
