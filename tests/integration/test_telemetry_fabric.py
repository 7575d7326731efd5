#!/usr/bin/python3
# SPDX-License-Identifier: BSD-3-Clause
"""Telemetry of an in-memory fabric with many switch instances (issue 16).

A star written here: LEAVES leaves (one host port each, one uplink) and a
spine, so LEAVES + 1 switch instances, more than DPDK 22.11's command
table and lib/stats' registry took when every instance had its own
/aifab/sw_<NAME> command ("telemetry commands not registered: No space
left on device" at 40 instances). Every port is an in-memory `wire`, so
DPDK's /ethdev/ commands see none of them. The generator runs an
all-to-all on the TSC (`clock = realtime`) long enough to be asked, with
Debian's `dpdk-telemetry.py -f <file-prefix>` (the socket's own client):

* the app says nothing about unregistered commands;
* /aifab/sw lists every instance; /aifab/sw,<instance> answers that
  instance's whole set, /aifab/sw,<instance>,rx_pkts one counter;
* /aifab/port_list pages through every port (names, kinds: all `wire`),
  /ethdev/list is empty;
* /aifab/port_stats,<id|name> answers a wire port's ipackets/opackets
  (both ends of a cable: what one sent the other received, read after
  the run's traffic stopped), its peer and owner;
* unknown instances and ports are refused (null answer).

The single-switch names (/aifab/sw[,<counter>]) are test_stats_live's.

Usage: test_telemetry_fabric.py PATH/TO/dpdk-aifab
"""
import json
import os
import shutil
import subprocess
import tempfile
import time

from lib_aifab import Checks, exe_path, file_prefix, _remove_runtime_dir

LEAVES = 16                 # 17 switch instances: over lib/stats' 16
RUN_S = 12                  # seconds of traffic (real time): asked within

ck = Checks("test_telemetry_fabric")


def profile():
    """The star's profile text: rank r on leaf r (port h<r>, 10.100.r.0/24,
    uplink u<r> 10.200.r.1/30) to the spine's d<r> (10.200.r.2/30)."""
    out = ["[general]\nname = tel-star\nclock = realtime\n\n"
           "[switch]\nenabled = true\n\n[qos]\nbuffer_bytes = 1048576\n"]
    for r in range(LEAVES):
        out.append("""
[port.h{r}]
switch = leaf{r}
mac = 02:aa:01:00:00:{r:02x}
ipv4 = 10.100.{r}.254/24
speed_gbps = 100
mtu = 9000

[port.g{r}]
wire = h{r}
speed_gbps = 100
mtu = 9000

[port.u{r}]
switch = leaf{r}
mac = 02:aa:02:00:00:{r:02x}
ipv4 = 10.200.{r}.1/30
speed_gbps = 100
mtu = 9000

[port.d{r}]
switch = spine
wire = u{r}
mac = 02:aa:03:00:00:{r:02x}
ipv4 = 10.200.{r}.2/30
speed_gbps = 100
mtu = 9000
""".format(r=r))
    for r in range(LEAVES):
        out.append("\n[neighbors.leaf%d]\n10.100.%d.1 = 02:a1:fa:00:00:%02x\n"
                   "10.200.%d.2 = 02:aa:03:00:00:%02x\n" % (r, r, r, r, r))
        out.append("\n[routes.leaf%d]\n10.100.0.0/16 = 10.200.%d.2\n" %
                   (r, r))
    out.append("\n[neighbors.spine]\n")
    out += ["10.200.%d.1 = 02:aa:02:00:00:%02x\n" % (r, r)
            for r in range(LEAVES)]
    out.append("\n[routes.spine]\n")
    out += ["10.100.%d.0/24 = 10.200.%d.1\n" % (r, r) for r in range(LEAVES)]
    out.append("""
[generator]
enabled = true
ports = g*
ranks = %d
base_ip = 10.100.0.1/16
ip_stride = 256
collective = alltoall
size_bytes = 1310720
ib_mtu = 4096
iterations = 1000000
warmup = 0
closed_loop = true
""" % LEAVES)
    return "".join(out)


def tel(prefix, cmds):
    """Answers of dpdk-telemetry.py -f PREFIX to CMDS (one JSON object
    per command, in order; None: no answer)."""
    p = subprocess.run(["dpdk-telemetry.py", "-f", prefix],
                       input="\n".join(cmds) + "\n", capture_output=True,
                       text=True, timeout=60)
    got = []
    dec = json.JSONDecoder()
    text = p.stdout
    i = 0
    while True:
        j = text.find("{", i)
        if j < 0:
            break
        try:
            obj, i = dec.raw_decode(text, j)
        except ValueError:
            i = j + 1
            continue
        if "version" in obj and "pid" in obj:
            continue            # the greeting
        got.append(obj)
    return [list(o.values())[0] if len(o) == 1 else o for o in got], p


exe = exe_path()
if shutil.which("dpdk-telemetry.py") is None:
    ck.got(False, "dpdk-telemetry.py (Debian's dpdk package) installed")
    ck.finish()
with tempfile.TemporaryDirectory() as d:
    prof = os.path.join(d, "star.ini")
    with open(prof, "w") as f:
        f.write(profile())
    prefix = file_prefix("telstar")
    cmd = [exe, "--no-huge", "-m", "3072", "--no-pci", "--file-prefix",
           prefix, "--", "--profile", prof, "--quiet", "--duration",
           str(RUN_S)]
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)
    try:
        # the socket comes once EAL is up; the commands once the app
        # started its pipelines
        end = time.monotonic() + 60
        names = None
        while time.monotonic() < end and proc.poll() is None:
            ans, _ = tel(prefix, ["/aifab/sw"])
            if ans and isinstance(ans[0], dict) and "instances" in ans[0]:
                names = ans[0]["instances"]
                break
            time.sleep(0.5)
        want = ["sw_leaf%d" % r for r in range(LEAVES)] + ["sw_spine"]
        ck.got(names is not None and sorted(names) == sorted(want),
                 "/aifab/sw lists the %d instances" % len(want), names)
        time.sleep(1.0)          # traffic flowing
        cmds = ["/aifab/sw,spine", "/aifab/sw,leaf7,rx_pkts",
                "/aifab/sw,sw_leaf3", "/aifab/sw,nosuch",
                "/aifab/sw,nosuch,rx_pkts", "/ethdev/list",
                "/aifab/port_list", "/aifab/port_list,40",
                "/aifab/port_list,999", "/aifab/port_stats,g7",
                "/aifab/port_stats,h7", "/aifab/port_stats,1",
                "/aifab/port_stats,nosuch", "/aifab/port_stats,80"]
        ans, p = tel(prefix, cmds)
        a = dict(zip(cmds, ans)) if len(ans) == len(cmds) else {}
        ck.got(len(ans) == len(cmds), "dpdk-telemetry.py answered every "
                 "command", (len(ans), p.stdout[-500:], p.stderr[-300:]))
        # (a fabric of at most 64 ports gives each instance every port,
        # counted only where it owns them: docs/architecture.md)
        sp = a.get("/aifab/sw,spine") or {}
        rx = dict(zip(sp.get("ports", []), sp.get("rx_pkts", []))) if \
            isinstance(sp, dict) else {}
        ck.got(set("d%d" % r for r in range(LEAVES)) <= set(rx) and
               all(v == 0 for k, v in rx.items() if k[0] != "d") and
               sum(rx.values()) > 0, "/aifab/sw,spine: the spine's whole "
               "set, receiving on its own ports only", str(sp)[:300])
        l7 = a.get("/aifab/sw,leaf7,rx_pkts") or {}
        ck.got(isinstance(l7, dict) and l7.get("h7", 0) > 0 and
               l7.get("u7", 0) > 0 and
               all(v == 0 for k, v in l7.items() if k not in ("h7", "u7")),
               "/aifab/sw,leaf7,rx_pkts: one counter, leaf7 receives on "
               "h7 and u7 only", l7)
        ck.got(isinstance(a.get("/aifab/sw,sw_leaf3"), dict) and
                 "rx_pkts" in a["/aifab/sw,sw_leaf3"],
                 "/aifab/sw,sw_leaf3: the set's name works too",
                 str(a.get("/aifab/sw,sw_leaf3"))[:200])
        ck.got(a.get("/aifab/sw,nosuch") is None and
                 a.get("/aifab/sw,nosuch,rx_pkts") is None,
                 "/aifab/sw: an unknown instance or counter is refused",
                 (a.get("/aifab/sw,nosuch"), a.get("/aifab/sw,nosuch,rx_pkts")))
        ck.got(a.get("/ethdev/list") == [],
                 "/ethdev/list: the wire ports are no ethdevs",
                 a.get("/ethdev/list"))
        n = 4 * LEAVES
        pl, pl2, pl3 = (a.get(c) or {} for c in (
            "/aifab/port_list", "/aifab/port_list,40",
            "/aifab/port_list,999"))
        allp = sorted("%s%d" % (k, r) for k in "hgud" for r in range(LEAVES))
        ck.got(pl.get("n_ports") == n and pl.get("from") == 0 and
                 pl.get("next") == n and sorted(pl.get("ports", [])) ==
                 allp and set(pl.get("kinds", [])) == {"wire"},
                 "/aifab/port_list: the %d ports, every one a wire" % n,
                 str(pl)[:300])
        ck.got(pl2.get("from") == 40 and pl2.get("ports") ==
                 pl.get("ports", [])[40:], "/aifab/port_list,40: the "
                 "ports from id 40", str(pl2)[:200])
        ck.got(pl3 is None or pl3 == {}, "/aifab/port_list,999 "
                 "refused", pl3)
        g7, h7 = a.get("/aifab/port_stats,g7"), a.get(
            "/aifab/port_stats,h7")
        ck.got(isinstance(g7, dict) and g7.get("kind") == "wire" and
                 g7.get("peer") == "h7" and g7.get("owner") ==
                 "generator" and g7.get("ethdev_port_id") == -1 and
                 g7.get("opackets", 0) > 0 and g7.get("speed_mbps") ==
                 100000, "/aifab/port_stats,g7: a generator wire port, "
                 "its peer h7, sending", g7)
        ck.got(isinstance(h7, dict) and h7.get("peer") == "g7" and
                 h7.get("owner") == "sw_leaf7" and h7.get("ipackets", 0) >
                 0 and "drops" in h7, "/aifab/port_stats,h7: leaf7's "
                 "port, its peer g7, receiving", h7)
        p1 = a.get("/aifab/port_stats,1")
        ck.got(isinstance(p1, dict) and p1.get("id") == 1 and
                 p1.get("port") == pl.get("ports", [None, None])[1],
                 "/aifab/port_stats,1: by id", p1)
        ck.got(a.get("/aifab/port_stats,nosuch") is None and
                 a.get("/aifab/port_stats,80") is None,
                 "/aifab/port_stats: unknown name or id refused",
                 (a.get("/aifab/port_stats,nosuch"),
                  a.get("/aifab/port_stats,80")))
        out, err = proc.communicate(timeout=120)
    except Exception:
        proc.kill()
        proc.communicate()
        raise
    finally:
        _remove_runtime_dir(prefix)
    ck.got(proc.returncode == 0, "the run ends cleanly",
             (proc.returncode, err[-500:]))
    ck.got("not registered" not in out + err,
             "no 'telemetry commands not registered' warning",
             [l for l in (out + err).splitlines() if "telemetry" in l])
ck.finish()
