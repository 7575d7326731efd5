#!/usr/bin/python3
"""Issue 10, ECMP spread recipe (dpdk-aifab --lab ecmp), proven against DUTs
whose configuration the test knows and the recipe does not:

* the Linux kernel in a network namespace, routing between veth ports with
  a two-nexthop multipath route: fib_multipath_hash_policy=1 (L4: source
  and destination address, protocol, ports) must come out as "hashed on
  sport, sip, dip" and not dqpn; policy 0 (L3) as "sip, dip" only; one
  next hop as a FAIL verdict (all flows on one port);
* our own switch in a second process (net_af_packet on the DUT namespace's
  veth ends), with [ecmp] fields the test chooses: the recipe must recover
  exactly those fields.

The recipe's frames are judged by scapy (ICRC, scapy.contrib.roce) and the
IPv4 checksum from --capture. Needs root (network namespaces); traffic
stays inside the namespaces the test creates.

test_lab.py EXE [lab|kernel_ecn|sweep|echo]: `lab` (the default, meson
test 'lab') runs the checks above, the collective time sweep
(tools/sweep.py) and the incast, ECN and PFC recipes against our switch and
the kernel; `sweep` only the sweep against our switch; `kernel_ecn` (meson
test 'lab_kernel_ecn') the ECN curve recipe against the kernel's RED, and
exits 77 (SKIP) where the kernel has no RED qdisc; `echo` (meson test
'lab_echo') the smallest recipe, --lab echo, against the kernel forwarding
(PASS, every frame back, as the DUT's own counters say) and not forwarding
(FAIL, nothing back)."""
import json
import math
import os
import signal
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import lib_aifab as L  # noqa: E402

exe = sys.argv[1] if len(sys.argv) > 1 else os.environ["AIFAB_EXE"]
ck = L.Checks("lab")
tag = "%d" % os.getpid()
G, D = "aflg" + tag, "afld" + tag        # our side, the DUT's
LINKS = [("t0", "d0"), ("r0", "d1"), ("r1", "d2")]


def sh(*cmd, check=True):
    p = subprocess.run(cmd, capture_output=True, text=True)
    if check and p.returncode != 0:
        ck.fatal("setup: %s" % " ".join(cmd), p.stderr.strip())
    return p.stdout


def ns(n, *cmd, check=True):
    return sh("ip", "netns", "exec", n, *cmd, check=check)


def mac(n, dev):
    return ns(n, "cat", "/sys/class/net/%s/address" % dev).strip()


def setup():
    if os.geteuid() != 0:
        print("not root: network namespaces unavailable; skipped")
        sys.exit(77)
    for n in (G, D):
        sh("ip", "netns", "add", n)
        ns(n, "sysctl", "-qw", "net.ipv6.conf.all.disable_ipv6=1")
    for a, b in LINKS:
        sh("ip", "link", "add", a, "netns", G, "type", "veth", "peer",
           "name", b, "netns", D)
        ns(G, "ip", "link", "set", a, "up")
        ns(D, "ip", "link", "set", b, "up")
        # kernel sockets (af_packet) would see bad UDP checksums otherwise
        ns(G, "ethtool", "-K", a, "tx", "off")
        ns(D, "ethtool", "-K", b, "tx", "off")


def teardown():
    for n in (G, D):
        sh("ip", "netns", "del", n, check=False)


def kernel_dut(policy, nexthops=2):
    """The kernel forwards d0 -> 10.200.0.0/16 over d1/d2 (ECMP)."""
    for dev in ("d0", "d1", "d2"):
        ns(D, "ip", "addr", "flush", "dev", dev)
    ns(D, "ip", "addr", "add", "10.1.0.1/24", "dev", "d0")
    ns(D, "ip", "addr", "add", "10.1.1.1/24", "dev", "d1")
    ns(D, "ip", "addr", "add", "10.1.2.1/24", "dev", "d2")
    ns(D, "sysctl", "-qw", "net.ipv4.ip_forward=1",
       "net.ipv4.conf.all.rp_filter=0", "net.ipv4.conf.default.rp_filter=0",
       "net.ipv4.conf.d0.rp_filter=0",
       "net.ipv4.fib_multipath_hash_policy=%d" % policy)
    ns(D, "ip", "neigh", "replace", "10.1.1.2", "lladdr", mac(G, "r0"),
       "dev", "d1", "nud", "permanent")
    ns(D, "ip", "neigh", "replace", "10.1.2.2", "lladdr", mac(G, "r1"),
       "dev", "d2", "nud", "permanent")
    hops = ["nexthop", "via", "10.1.1.2", "dev", "d1"]
    if nexthops == 2:
        hops += ["nexthop", "via", "10.1.2.2", "dev", "d2"]
    ns(D, "ip", "route", "replace", "10.200.0.0/16", *hops)


def kernel_off():
    """Our switch is the DUT: the kernel must neither forward nor answer."""
    ns(D, "sysctl", "-qw", "net.ipv4.ip_forward=0")
    ns(D, "ip", "route", "del", "10.200.0.0/16", check=False)
    for dev in ("d0", "d1", "d2"):
        ns(D, "ip", "addr", "flush", "dev", dev)


def lab_head(name, ports):
    """[general], no switch, and our ports as af_packet vdevs in order."""
    out = "[general]\nname = %s\n[switch]\nenabled = false\n" % name
    for i, prt in enumerate(ports):
        out += "[port.%s]\ndevice = net_af_packet%d\nspeed_gbps = 10\n" % (
            prt, i)
    return out


LAB_INI = lab_head("lab-ecmp", ["t0", "r0", "r1"]) + """[lab]
tx_port = t0
rx_ports = r0 r1
gateway_mac = {gw}
src_ip = 10.1.0.2/24
dst_ip = 10.200.0.1/16
flows = 64
frames_per_flow = 4
rate_gbps = 0.05
settle_ms = 300
"""

DUT_INI = """[general]
name = lab-dut
seed = 3
[port.d0]
device = net_af_packet0
ipv4 = 10.1.0.1/24
speed_gbps = 10
[port.d1]
device = net_af_packet1
ipv4 = 10.1.1.1/24
speed_gbps = 10
role = uplink
[port.d2]
device = net_af_packet2
ipv4 = 10.1.2.1/24
speed_gbps = 10
role = uplink
[ecmp]
fields = {fields}
[neighbors]
10.1.1.2 = {r0}
10.1.2.2 = {r1}
[routes]
10.200.0.0/16 = 10.1.1.2 10.1.2.2
"""


def vdevs(devs):
    out = []
    for i, d in enumerate(devs):
        out += ["--vdev", "net_af_packet%d,iface=%s" % (i, d)]
    return out


ECN_LAB_INI = lab_head("lab-ecn", ["t0", "r0"]) + """[lab]
tx_port = t0
rx_ports = r0
gateway_mac = {gw}
src_ip = 10.1.0.2/24
dst_ip = 10.200.0.1/16
dscp = 0
dut_rate_gbps = 0.02
loads = 50 150 200 250
step_ms = 200
gap_ms = 300
bin_bytes = 16384
"""

ECN_DUT_INI = """[general]
name = lab-dut-ecn
[port.d0]
device = net_af_packet0
ipv4 = 10.1.0.1/24
speed_gbps = 10
[port.d1]
device = net_af_packet1
ipv4 = 10.1.1.1/24
speed_gbps = 0.02
[tc.0]
ecn = true
ecn_kmin_bytes = {kmin}
ecn_kmax_bytes = {kmax}
ecn_pmax_percent = {pmax}
[neighbors]
10.1.1.2 = {r0}
[routes]
10.200.0.0/16 = 10.1.1.2
"""


INC_LAB_INI = lab_head("lab-incast", ["t0", "r0", "r1"]) + """[lab]
tx_port = t0
tx_ports = r1
rx_ports = r0
gateway_mac = {gw}
src_ip = 10.1.0.2/24
dst_ip = 10.200.0.1/16
dscp = 26
rate_gbps = 0.02
dut_rate_gbps = 0.02
step_ms = 100
settle_ms = 500
"""

ECHO_LAB_INI = LAB_INI.replace("name = lab-ecmp", "name = lab-echo")

PFC_LAB_INI = ECN_LAB_INI.replace("name = lab-ecn", "name = lab-pfc") \
    .replace("dscp = 0", "dscp = 26").replace("loads = 50 150 200 250\n", "") \
    .replace("step_ms = 200", "step_ms = 100") + "hold_ms = 50\n"


def run_lab(d, name, gw, sets=(), capture=False, recipe="ecmp", html=None):
    ini = os.path.join(d, name + ".ini")
    rep = os.path.join(d, name + ".json")
    text = {"ecmp": LAB_INI, "ecn": ECN_LAB_INI, "pfc": PFC_LAB_INI,
            "incast": INC_LAB_INI, "echo": ECHO_LAB_INI}[recipe]
    with open(ini, "w") as f:
        f.write(text.format(gw=gw))
    # the recipe's poller on CPU 0, a DUT switch's on CPU 1
    cmd = ["ip", "netns", "exec", G, exe, "--no-huge", "-m", "512",
           "--no-pci", "--lcores", "0@1,1@0",
           "--file-prefix", "lab%s%s" % (tag, name)] + \
        vdevs(["t0", "r0", "r1"] if recipe in ("ecmp", "incast", "echo")
              else ["t0", "r0"]) + \
        ["--", "--profile", ini, "--lab", recipe, "--report-json", rep,
         "--duration", "30", "--quiet"]
    for s in sets:
        cmd += ["--set", s]
    if html:
        cmd += ["--report-html", html]
    if capture:
        cmd += ["--capture", os.path.join(d, "cap")]
        os.makedirs(os.path.join(d, "cap"), exist_ok=True)
    p = subprocess.run(cmd, capture_output=True, text=True, timeout=120)
    ck.check(p.returncode == 0, "%s: exit 0" % name,
             "%d: %s" % (p.returncode, p.stderr[-600:]))
    print(p.stdout[p.stdout.find("# lab "):], flush=True)
    try:
        r = json.load(open(rep))
    except (OSError, ValueError) as e:
        ck.fatal("%s: report readable" % name, str(e))
    ck.eq(r.get("mempool_in_use_at_exit"), 0,
          "%s: every mbuf returned (mempool_in_use_at_exit)" % name)
    return r


def judge(name, rep, hashed, verdict="PASS"):
    lab = rep["lab"]
    ck.eq(sorted(lab["hashed_fields"]), sorted(hashed),
          "%s: the recipe finds the fields the DUT hashes on" % name)
    allp = lab["phases"][-1]
    ck.eq(allp["vary"], "all", "%s: the last phase varies every field" % name)
    for ph in lab["phases"]:
        ck.check(ph["flows_seen"] == 64 and ph["flows_split"] == 0,
                 "%s: %s: every flow back, on one port" % (name, ph["vary"]),
                 str(ph))
        # chi-square from its definition, on the reported counts
        k = list(ph["flows_per_port"].values())
        e = sum(k) / len(k)
        # nothing back (the check above fails): the recipe reports chi2
        # and imbalance 0, p 1; judged the same, not a division by zero
        # that would end the test before its other checks
        chi2 = sum((o - e) ** 2 / e for o in k) if e > 0 else 0.0
        imb = max(k) / e if e > 0 else 0.0
        ck.check(abs(chi2 - ph["chi2"]) < 1e-4 and
                 abs(imb - ph["imbalance"]) < 1e-4,
                 "%s: %s: chi2 and imbalance match their formulas"
                 % (name, ph["vary"]), "%s vs %s" % ((chi2, imb), ph))
        if len(k) == 2:
            # one degree of freedom: the upper tail is erfc(sqrt(x/2))
            exact = math.erfc(math.sqrt(ph["chi2"] / 2))
            ck.check(abs(exact - ph["p"]) < 1e-5,
                     "%s: %s: p-value = erfc(sqrt(chi2 / 2))"
                     % (name, ph["vary"]), "%s vs %s" % (exact, ph["p"]))
    ck.eq(lab["verdict"], verdict, "%s: verdict" % name)
    ck.eq(rep["end"], "input_consumed", "%s: ends by itself" % name)


def start_dut(d, name, text, devs, gw, report):
    """Our switch as the DUT: a second dpdk-aifab in the DUT namespace, its
    poller on CPU 1 (the recipe's is on CPU 0); back once its ports run."""
    ini = os.path.join(d, name + ".ini")
    with open(ini, "w") as f:
        f.write(text)
    cmd = ["ip", "netns", "exec", D, exe, "--no-huge", "-m", "512",
           "--no-pci", "--lcores", "0@0,1@1", "--file-prefix",
           name + tag] + vdevs(devs) + \
        ["--", "--profile", ini, "--duration", "60", "--quiet",
         "--set", "port.d0.mac=" + gw, "--report-json", report]
    dut = subprocess.Popen(cmd, stdout=subprocess.PIPE,
                           stderr=subprocess.PIPE, text=True)
    dut.report = report
    # up once its ports run and its worker starts (not a fixed sleep: a
    # loaded machine starts EAL late, and the recipe's first frames would
    # find nobody)
    if not L.wait_app_ready(name + tag, dut):
        ck.fatal("%s: the DUT is up (its telemetry answers /aifab/lcores "
                 "within %d s)" % (name, L.APP_READY_S),
                 "exit %s" % dut.poll())
    return dut


def stop_dut(dut, what):
    """SIGTERM; the DUT exits 0 and its report says every mbuf came back."""
    dut.send_signal(signal.SIGTERM)
    dut.communicate(timeout=60)
    ck.eq(dut.returncode, 0, "%s: the DUT exits 0 on SIGTERM" % what)
    try:
        r = json.load(open(dut.report))
    except (OSError, ValueError) as e:
        ck.fatal("%s: the DUT's report readable" % what, str(e))
    ck.eq(r.get("mempool_in_use_at_exit"), 0,
          "%s: the DUT returned every mbuf (mempool_in_use_at_exit)" % what)


KMIN, KMAX = 100000, 300000


def judge_ecn(name, rep, tol, pmax=None):
    lab = rep["lab"]
    inf = lab["inferred"]
    steps = lab["steps"]
    print("     inferred %s" % inf)
    ck.check(inf["kmin_bytes"] is not None and
             abs(inf["kmin_bytes"] - KMIN) <= tol * KMIN + 16384,
             "%s: Kmin inferred within %d%% + 1 bin of %d"
             % (name, tol * 100, KMIN), str(inf))
    ck.check(inf["kmax_bytes"] is not None and
             abs(inf["kmax_bytes"] - KMAX) <= tol * KMAX + 16384,
             "%s: Kmax inferred within %d%% + 1 bin of %d"
             % (name, tol * 100, KMAX), str(inf))
    if pmax is not None:
        ck.check(abs(inf["pmax"] - pmax) <= 0.15,
                 "%s: Pmax inferred within 0.15 of %.2f"
                 % (name, pmax), str(inf))
    ck.eq(steps[0]["ce"], 0, "%s: no CE at 50%% load (no queue)"
          % name)
    frac = [s["ce"] / max(s["received"], 1) for s in steps]
    # (middle steps may swap on a loaded machine: a starved DUT
    # drains slower and queues deeper than its load says)
    ck.check(frac[-1] == max(frac) and frac[-1] > 0.2,
             "%s: the heaviest load is marked most" % name,
             str(frac))
    ck.check(all(s["ect"] == s["received"] for s in steps),
             "%s: every frame came back ECT (ECT(0) or CE)" % name,
             str(steps))


def kernel_fwd_htb():
    """The kernel forwards d0 -> 10.200.0.0/16 over d1, shaped by htb to
    20 Mbit (the PFC recipe's and the kernel RED ECN check's DUT)."""
    ns(D, "ip", "addr", "add", "10.1.0.1/24", "dev", "d0")
    ns(D, "ip", "addr", "add", "10.1.1.1/24", "dev", "d1")
    ns(D, "sysctl", "-qw", "net.ipv4.ip_forward=1")
    ns(D, "ip", "neigh", "replace", "10.1.1.2", "lladdr", mac(G, "r0"),
       "dev", "d1", "nud", "permanent")
    ns(D, "ip", "route", "replace", "10.200.0.0/16", "via", "10.1.1.2",
       "dev", "d1")
    ns(D, "tc", "qdisc", "add", "dev", "d1", "root", "handle", "1:",
       "htb", "default", "1")
    ns(D, "tc", "class", "add", "dev", "d1", "parent", "1:", "classid",
       "1:1", "htb", "rate", "20mbit", "ceil", "20mbit")


def kernel_red_ecn(d, gw):
    """The ECN curve recipe against the kernel: htb 20 Mbit + RED (min
    100000, max 300000, probability 0.2, ecn) on d1. Exits 77 (meson's
    SKIP) when the kernel has no RED qdisc: the skip shows in the test
    summary instead of hiding inside a passing test."""
    ck.section("ECN curve, the kernel as the DUT (htb 20 Mbit + RED "
               "min 100000 max 300000 probability 0.2 ecn)")
    kernel_fwd_htb()
    # burst: the smallest tc allows (min / avpkt), so the average
    # follows the real queue as closely as RED lets it
    red = subprocess.run(
        ["ip", "netns", "exec", D, "tc", "qdisc", "add", "dev", "d1",
         "parent", "1:1", "handle", "10:", "red", "limit", "2000000",
         "min", str(KMIN), "max", str(KMAX), "avpkt", "256", "burst",
         "391", "probability", "0.2", "bandwidth", "20mbit", "ecn"],
        capture_output=True, text=True)
    if red.returncode != 0 and "unknown" in red.stderr:
        # Kernels built without sch_red (some have only htb and tbf, and
        # no modules to load) cannot mark: nothing to measure.
        print("SKIP  kernel RED: this kernel has no RED qdisc (%s)"
              % red.stderr.strip())
        sys.exit(77)            # (the namespaces go in main's finally)
    ck.check(red.returncode == 0, "setup: tc red on d1", red.stderr.strip())
    rep = run_lab(d, "ecnk", gw, recipe="ecn")
    # (Linux RED spaces its marks uniformly, so the fraction it marks is
    # not the configured probability: Pmax is shown, not judged; htb counts
    # frame bytes where the recipe assumes wire bytes)
    judge_ecn("kernel RED", rep, 0.3)


SWEEP_RANKS = [  # rank, IPv4, our port: ring neighbours on other ports
    (0, "10.100.0.1", "t0"), (1, "10.100.1.2", "r0"),
    (2, "10.100.0.3", "t0"), (3, "10.100.1.4", "r0")]
SWEEP_RATE_GBPS = 0.1           # per rank ([generator] rate_gbps)
SWEEP_ITERS = (3, 1)            # iterations, warmup

SWEEP_GEN_INI = lab_head("lab-sweep", ["t0", "r0"]) + """[generator]
enabled = true
ports = t0 r0
ranks = 4
rank_table = {tab}
gateway_macs = {gw0} {gw1}
collective = allreduce_ring
ib_mtu = 1024
iterations = %d
warmup = %d
closed_loop = true
rate_gbps = %s
""" % (SWEEP_ITERS + (SWEEP_RATE_GBPS,))

SWEEP_DUT_INI = """[general]
name = lab-dut-sweep
[port.d0]
device = net_af_packet0
ipv4 = 10.100.0.254/24
speed_gbps = 10
[port.d1]
device = net_af_packet1
ipv4 = 10.100.1.254/24
speed_gbps = 10
mac = {d1}
[neighbors]
""" + "".join("%s = 02:a1:fa:00:00:%02x\n" % (ip, r)
              for r, ip, _ in SWEEP_RANKS)


def svg_points(page, title):
    """The points of the first polyline of the chart titled @p title."""
    import xml.etree.ElementTree as ET
    for chunk in page.split("<svg ")[1:]:
        svg = ET.fromstring("<svg " + chunk[:chunk.index("</svg>") + 6])
        if svg.get("aria-label") == title:
            pl = svg.find("{http://www.w3.org/2000/svg}polyline")
            return [tuple(map(float, q.split(",")))
                    for q in pl.get("points").split()]
    return None


def sweep_dut(d, gw):
    """tools/sweep.py (nccl-tests' -b -e -f) against our switch as the DUT
    in a second process: 4 ranks of ring AllReduce, 2 behind each of two
    DUT ports (every ring hop crosses the DUT), closed loop, frames
    addressed to the DUT's MACs (gateway_macs); the DUT routes them on its
    connected subnets. Numbers judged with nccl-tests' formulas and the
    rate the ranks are paced at; the DUT's own counters must show the
    collective's bytes."""
    ck.section("collective time sweep (tools/sweep.py), our switch as the "
               "DUT: ring AllReduce, 4 ranks over 2 DUT ports")
    N = len(SWEEP_RANKS)
    tab = os.path.join(d, "ranks.txt")
    with open(tab, "w") as f:
        for r, ip, port in SWEEP_RANKS:
            f.write("%d 02:a1:fa:00:00:%02x %s %s\n" % (r, r, ip, port))
    gen = os.path.join(d, "sweep.ini")
    with open(gen, "w") as f:
        f.write(SWEEP_GEN_INI.format(tab=tab, gw0=gw, gw1=mac(D, "d1")))
    # (a limit load cannot fail: 1e-05 GB/s is 39 s for 256K; the FAIL
    # side is an impossible 1 us --max-time below)
    lim = os.path.join(d, "limits.ini")
    with open(lim, "w") as f:
        f.write("[sweep]\nmin_busbw = 0.00001\nbusbw_from = 64K\n")
    tool = os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(
        os.path.abspath(__file__)))), "tools", "sweep.py")

    def sweep(name, args):
        cmd = ["ip", "netns", "exec", G, sys.executable, tool, "--exe", exe,
               "--profile", gen, "--duration", "40"] + args + \
            ["--", "--no-huge", "-m", "512", "--no-pci", "--lcores",
             "0@1,1@0", "--file-prefix", "lab%s%s" % (tag, name)] + \
            vdevs(["t0", "r0"])
        p = subprocess.run(cmd, capture_output=True, text=True, timeout=240)
        print(p.stdout, p.stderr[-800:], flush=True)
        return p

    dut = start_dut(d, "labdutsweep", SWEEP_DUT_INI.format(d1=mac(D, "d1")),
                    ["d0", "d1"], gw, os.path.join(d, "dutsweep.json"))
    out, page = os.path.join(d, "sweep.json"), os.path.join(d, "sweep.html")
    p = sweep("sw", ["-b", "64K", "-e", "256K", "-f", "2", "--limits", lim,
                     "--json", out, "--html", page])
    # one size with an impossible time limit: that size FAILs, exit 1
    pf = sweep("swf", ["-b", "64K", "-e", "64K", "--max-time", "64K=1",
                       "--json", out + ".f"])
    stop_dut(dut, "sweep")
    ck.eq(p.returncode, 0, "sweep: exit 0 (every run completed, PASS)")
    try:
        res = json.load(open(out))
    except (OSError, ValueError) as e:
        ck.fatal("sweep: JSON report readable", str(e))
    rows = res["rows"]
    ck.eq([r["size"] for r in rows], [65536, 131072, 262144],
          "sweep: sizes 64K, 128K, 256K (-b 64K -e 256K -f 2)")
    ck.check(res["op"] == "allreduce" and res["ranks"] == N and
             res["closed_loop"], "sweep: ring AllReduce, 4 ranks, closed "
             "loop", str({k: res[k] for k in ("op", "ranks",
                                              "closed_loop")}))
    cap = SWEEP_RATE_GBPS / 8       # GB/s a rank may send
    for r in rows:
        S, t = r["size"], r["time_us"] * 1e-6
        algbw = S / t / 1e9
        busbw = algbw * 2 * (N - 1) / N
        ck.check(abs(r["algbw_gbps"] - algbw) <= 1e-3 * algbw + 1e-5 and
                 abs(r["busbw_gbps"] - busbw) <= 1e-3 * busbw + 1e-5,
                 "sweep %d B: algbw = S / t, busbw = algbw x 2(N-1)/N"
                 % S, "%s vs %.6f %.6f" % (r, algbw, busbw))
        # each rank sends 2(N-1)/N x S bytes at most at its paced rate:
        # t >= that / rate, i.e. busbw <= the rank's rate
        ck.check(0 < r["busbw_gbps"] <= cap,
                 "sweep %d B: busbw <= a rank's paced rate (%.4f GB/s)"
                 % (S, cap), str(r["busbw_gbps"]))
        ck.check(r["finished"] and r["verdict"] == "PASS" and
                 [c["check"] for c in r["checks"]] ==
                 ["the collective completed", "every mbuf returned",
                  "busbw (GB/s)"] and all(c["pass"] for c in r["checks"]),
                 "sweep %d B: completed, mbufs back, busbw >= 1e-05 "
                 "(--limits): PASS" % S, str(r["checks"]))
    ck.eq(res["verdict"], "PASS", "sweep: overall verdict")
    ck.check("# sweep: PASS" in p.stdout and "# verdict" in p.stdout,
             "sweep: the console verdict table", p.stdout[-400:])
    # the DUT carried the collective: every rank's 2(N-1) chunks of S/N
    # per iteration (warmup included) crossed it, plus headers and ACKs
    sw = json.load(open(os.path.join(d, "dutsweep.json")))
    fwd = sw["ports"]["d0"]["tx_bytes"] + sw["ports"]["d1"]["tx_bytes"]
    need = sum(sum(SWEEP_ITERS) * N * 2 * (N - 1) * (s // N)
               for s in (65536, 131072, 262144, 65536))
    ck.check(fwd >= need, "sweep: the DUT forwarded at least the "
             "collectives' payload (%d bytes)" % need, str(fwd))
    # the HTML page: self-contained, the verdict, and charts whose points
    # follow the numbers (y grows downwards in SVG)
    html = open(page).read() if os.path.exists(page) else ""
    ck.check("<script" not in html and "</html>" in html and
             'class="PASS">PASS</span>' in html and
             all("<td>%d</td>" % r["size"] in html for r in rows),
             "sweep: --html page with the verdict and every size",
             html[:300])
    pts = svg_points(html, "Collective time vs size") or []
    ts = [r["time_us"] for r in rows]
    # a longer time higher up (y grows downwards); times within 2% of
    # each other may also share a pixel row, or be a pixel out of order
    # (the chart rounds): in order, or that close
    def placed(i, j):
        if ts[i] == ts[j]:
            return abs(pts[i][1] - pts[j][1]) <= 1
        hi, lo = (i, j) if ts[i] > ts[j] else (j, i)
        return pts[hi][1] < pts[lo][1] or (
            ts[hi] <= 1.02 * ts[lo] and abs(pts[i][1] - pts[j][1]) <= 1)
    ck.check(len(pts) == 3 and all(
        placed(i, j) for i in range(3) for j in range(3) if i != j) and
        pts[0][0] < pts[1][0] < pts[2][0],
        "sweep: the time chart plots one point per size, in order",
        "%s vs %s" % (pts, ts))
    ck.check(pf.returncode == 1, "sweep: exit 1 on a FAIL verdict",
             pf.returncode)
    try:
        resf = json.load(open(out + ".f"))
    except (OSError, ValueError) as e:
        ck.fatal("sweep FAIL run: JSON report readable", str(e))
    ck.check(resf["verdict"] == "FAIL" and len(resf["rows"]) == 1 and
             [c["pass"] for c in resf["rows"][0]["checks"]] ==
             [True, True, False] and
             resf["rows"][0]["checks"][-1]["check"] == "time (us)",
             "sweep: 64K over its 1 us --max-time: that check FAILs, the "
             "rest PASS", str(resf["rows"]))


def dut_tx(devs):
    """Frames the DUT namespace's ports sent (the kernel's own count)."""
    return sum(int(ns(D, "cat", "/sys/class/net/%s/statistics/tx_packets"
                      % dev)) for dev in devs)


def echo(d, gw):
    """--lab echo: flows x frames_per_flow (64 x 4) frames out of t0, what
    comes back on r0 and r1 counted. Forwarded by the kernel (two next
    hops): every frame back, as many as the DUT says it sent towards us,
    PASS. Not forwarded: nothing back, FAIL."""
    n = 64 * 4
    ck.section("echo recipe, the kernel forwarding (two next hops)")
    kernel_dut(1)
    before = dut_tx(["d1", "d2"])
    rep = run_lab(d, "echo", gw, recipe="echo")
    fwd = dut_tx(["d1", "d2"]) - before
    lab = rep["lab"]
    ck.check(lab["recipe"] == "echo" and lab["frames"] == n and
             lab["sent"] == n, "echo: %d frames sent" % n, str(lab))
    ck.eq(rep["ports"]["t0"]["tx_packets"], n,
          "echo: the report's t0 counter says %d frames went out" % n)
    ck.check(lab["received"] == n == fwd,
             "echo: every frame back, as many as the DUT forwarded to us",
             "%s back, DUT sent %d" % (lab["received"], fwd))
    ck.eq(lab["verdict"], "PASS", "echo: verdict")
    ck.eq(rep["end"], "input_consumed", "echo: ends by itself")
    ck.section("echo recipe, the kernel not forwarding")
    kernel_off()
    rep = run_lab(d, "echonofwd", gw, recipe="echo")
    lab = rep["lab"]
    ck.check(lab["sent"] == n and lab["received"] == 0,
             "echo, no forwarding: %d sent, none back" % n, str(lab))
    ck.eq(lab["verdict"], "FAIL", "echo, no forwarding: verdict FAIL")


def judge_frames(capdir):
    """The recipe's frames, by scapy and the IPv4 checksum definition."""
    pcap = os.path.join(capdir, "tx_t0.pcap")
    frames = L.read_pcap(pcap) or []
    ck.check(len(frames) == 5 * 64 * 4, "capture: every frame sent is in "
             "tx_t0.pcap (5 phases x 64 flows x 4)", str(len(frames)))
    bad_icrc = bad_ip = 0
    for fr in frames[:200]:
        if L.icrc_scapy(fr) != bytes(fr[-4:]):
            bad_icrc += 1
        if not L.ipv4_header_ok(fr[14:34]):
            bad_ip += 1
    ck.eq(bad_icrc, 0, "capture: scapy's ICRC matches every frame's")
    ck.eq(bad_ip, 0, "capture: IPv4 header checksums valid")


MODE = sys.argv[2] if len(sys.argv) > 2 else "lab"
if MODE not in ("lab", "kernel_ecn", "sweep", "echo"):
    sys.exit("test_lab.py: mode %r; allowed: lab, kernel_ecn, sweep, echo"
             % MODE)
try:
    setup()
    with tempfile.TemporaryDirectory() as d:
        gw = mac(D, "d0")
        if MODE == "kernel_ecn":
            kernel_red_ecn(d, gw)
            ck.finish()
        if MODE == "sweep":
            sweep_dut(d, gw)
            ck.finish()
        if MODE == "echo":
            echo(d, gw)
            ck.finish()
        ck.section("kernel DUT, fib_multipath_hash_policy=1 (L4)")
        kernel_dut(1)
        judge("kernel L4", run_lab(d, "kl4", gw, capture=True),
              ["sport", "sip", "dip"])
        judge_frames(os.path.join(d, "cap"))
        ck.section("kernel DUT, fib_multipath_hash_policy=0 (L3)")
        kernel_dut(0)
        judge("kernel L3", run_lab(d, "kl3", gw), ["sip", "dip"])
        ck.section("kernel DUT, one next hop: all flows on r0")
        kernel_dut(1, nexthops=1)
        page = os.path.join(d, "k1.html")
        rep = run_lab(d, "k1", gw, html=page)
        html = open(page).read() if os.path.exists(page) else ""
        ck.check("<h2>Lab recipe</h2>" in html and
                 "# lab ecmp: FAIL" in html and "</html>" in html,
                 "--report-html: the page carries the recipe's verdict",
                 html[-400:])
        allp = rep["lab"]["phases"][-1]
        ck.check(allp["flows_per_port"] == {"r0": 64, "r1": 0} and
                 abs(allp["imbalance"] - 2.0) < 1e-9,
                 "one next hop: imbalance 2 (every flow on r0)", str(allp))
        ck.eq(rep["lab"]["verdict"], "FAIL", "one next hop: verdict FAIL")

        kernel_off()
        for fields, want in (("sport,dqpn", ["sport", "dqpn"]),
                             ("sip,dip", ["sip", "dip"])):
            ck.section("our switch as the DUT, [ecmp] fields = " + fields)
            name = "switch " + fields
            dut = start_dut(d, "labdut", DUT_INI.format(
                fields=fields, r0=mac(G, "r0"), r1=mac(G, "r1")),
                ["d0", "d1", "d2"], gw, os.path.join(d, "dut.json"))
            rep = run_lab(d, "sw" + fields.replace(",", ""), gw)
            stop_dut(dut, name)
            judge(name, rep, want)
            sw = json.load(open(os.path.join(d, "dut.json")))
            fwd = sw["ports"]["d1"]["tx_packets"] + \
                sw["ports"]["d2"]["tx_packets"]
            back = sum(ph["received"] for ph in rep["lab"]["phases"])
            # (a loaded machine may lose frames in af_packet rings: compare
            # what the DUT says it forwarded with what came back)
            ck.check(fwd == back and back >= 0.9 * 5 * 64 * 4,
                     "%s: what the DUT forwarded over its uplinks is what "
                     "came back" % name, "%d vs %d" % (fwd, back))

        sweep_dut(d, gw)

        # ---- lossless incast -----------------------------------------------
        # t0 (-> d0) and r1 (-> d2) each send 20 Mb/s to r0 behind d1 at
        # 20 Mb/s: 2:1 on the lossless priority. Our switch pauses both
        # senders; the recipe honours the pauses like a lossless NIC.
        ck.section("lossless incast 2:1, our switch as the DUT")
        dut = start_dut(d, "labdutinc", DUT_INI.format(
            fields="sip,dip", r0=mac(G, "r0"), r1=mac(G, "r1"))
            .replace("10.200.0.0/16 = 10.1.1.2 10.1.2.2",
                     "10.200.0.0/16 = 10.1.1.2")
            .replace("[port.d1]\ndevice = net_af_packet1\n"
                     "ipv4 = 10.1.1.1/24\nspeed_gbps = 10",
                     "[port.d1]\ndevice = net_af_packet1\n"
                     "ipv4 = 10.1.1.1/24\nspeed_gbps = 0.02") +
            # headroom for what our software NIC (af_packet, a shared
            # CPU) still sends after an XOFF: milliseconds, not 3 m
            "[tc.3]\nlossless = true\necn = false\n"
            "pfc_xoff_bytes = 32768\npfc_headroom_bytes = 131072\n",
            ["d0", "d1", "d2"], gw, os.path.join(d, "dutinc.json"))
        rep = run_lab(d, "incsw", gw, recipe="incast",
                      sets=["lab.gateway_macs=" + mac(D, "d2")])
        stop_dut(dut, "incast")
        sw = json.load(open(os.path.join(d, "dutinc.json")))
        lab = rep["lab"]
        print("     incast %s" % {k: lab[k] for k in
                                  ("lost", "reordered", "completion_ms",
                                   "ideal_ms", "goodput_mbps",
                                   "latency_us", "pauses")})
        ck.check(len(lab["senders"]) == 2 and
                 all(s["sent"] > 0 for s in lab["senders"].values()),
                 "incast: both senders sent", str(lab["senders"]))
        ck.eq(lab["lost"], 0, "incast: nothing lost (lossless)")
        ck.eq(lab["reordered"], 0, "incast: no sequence break per sender")
        tc3 = [sw["ports"][p]["tc"]["3"] for p in ("d0", "d2")]
        ck.check(all(t["pfc_xoff_sent"] > 0 for t in tc3) and
                 [s["pfc_rx"] for s in lab["senders"].values()] ==
                 [t["pfc_xoff_sent"] + t["pfc_xon_sent"] for t in tc3],
                 "incast: each sender got the PFC the DUT says it sent it",
                 "%s vs %s" % (lab["senders"], tc3))
        ck.check(all(s["paused_ms"] > 0 for s in lab["senders"].values()),
                 "incast: both senders were held back", str(lab["senders"]))
        drops = {p: {k: v for k, v in q["drops"].items() if v}
                 for p, q in sw["ports"].items()}
        ck.check(not any(drops.values()), "incast: the DUT dropped nothing",
                 str(drops))
        # 2 x the egress rate offered: the egress is the bottleneck
        ck.check(15 <= lab["goodput_mbps"] <= 20.5,
                 "incast: goodput is the 20 Mb/s egress (wire bytes aside)",
                 str(lab["goodput_mbps"]))
        # the N:1 collective (a gather): complete when every sender's
        # message is delivered whole, no sooner than the egress could carry
        # every frame (wire bytes = frame + FCS, preamble, IFG: 24)
        snd = lab["senders"].values()
        each = lab["frames_each"]
        ck.check(lab["completed"] and
                 all(s["received"] == each for s in snd),
                 "incast: every sender's message (%d frames) delivered"
                 % each, str(lab["senders"]))
        ideal = 2 * each * (lab["frame_bytes"] + 24) * 8 / 20e6 * 1e3
        ck.check(lab["ideal_ms"] is not None and
                 abs(lab["ideal_ms"] - ideal) < 1e-3,
                 "incast: ideal = all wire bytes / 20 Mb/s (%.3f ms)" % ideal,
                 str(lab["ideal_ms"]))
        done = [s["delivered_ms"] for s in snd]
        # (lower bound only; 10% for the DUT shaper's token bucket)
        ck.check(lab["completion_ms"] is not None and
                 lab["completion_ms"] >= 0.9 * ideal and
                 abs(lab["completion_ms"] - max(done)) < 1e-3 and
                 min(done) > 0,
                 "incast: completion = the last message delivered, "
                 ">= 0.9 x ideal", "%s vs %s, ideal %.3f"
                 % (lab["completion_ms"], done, ideal))
        lat = lab["latency_us"]
        ck.check(0 < lat["p50"] <= lat["p99"] <= lat["p999"] <= lat["max"],
                 "incast: latency p50 <= p99 <= p999 <= max", str(lat))
        ck.check(lab["pauses"]["pfc_rx"] ==
                 sum(s["pfc_rx"] for s in snd) and
                 abs(lab["pauses"]["paused_ms"] -
                     sum(s["paused_ms"] for s in snd)) < 1e-3,
                 "incast: pauses = the senders' sums", str(lab["pauses"]))
        ck.eq(lab["verdict"], "PASS", "incast: verdict")

        # ---- ECN marking curve --------------------------------------------
        # One path d0 -> d1 at 20 Mb/s: t0 offers 50..250% of it in steps;
        # the queue on d1 grows, the DUT marks from Kmin to Kmax.
        ns(D, "ip", "link", "del", "d2", check=False)

        ck.section("ECN curve, our switch as the DUT (Kmin 100 KB, Kmax "
                   "300 KB, Pmax 20%)")
        dut = start_dut(d, "labdutecn", ECN_DUT_INI.format(
            kmin=KMIN, kmax=KMAX, pmax=20, r0=mac(G, "r0")), ["d0", "d1"],
            gw, os.path.join(d, "dutecn.json"))
        # (the verdict judges the thresholds; Pmax, a fraction read off a
        # curve that delay noise smears, is checked more loosely below)
        rep = run_lab(d, "ecnsw", gw, recipe="ecn",
                      sets=["lab.expect_kmin_bytes=%d" % KMIN,
                            "lab.expect_kmax_bytes=%d" % KMAX])
        stop_dut(dut, "switch ECN")
        judge_ecn("switch ECN", rep, 0.25, pmax=0.2)
        ck.eq(rep["lab"]["verdict"], "PASS", "switch ECN: verdict")

        # ---- PFC response ------------------------------------------------
        # The t0-d0 link at 1 Gb/s (40000 quanta = 20.5 ms: refreshes due
        # every few ms survive a loaded CI box), d1-r0 at 20 Mb/s; both
        # ends agree on each speed: PFC quanta are bit times of the link.
        ck.section("PFC response, our switch as the DUT (XOFF at 64 KB, "
                   "pause quanta 40000)")
        dut = start_dut(d, "labdutpfc", ECN_DUT_INI.format(
            kmin=KMIN, kmax=KMAX, pmax=20, r0=mac(G, "r0")).replace(
                "ipv4 = 10.1.0.1/24\nspeed_gbps = 10",
                "ipv4 = 10.1.0.1/24\nspeed_gbps = 1") +
            "[tc.3]\nlossless = true\necn = false\n"
            "pfc_xoff_bytes = 65536\npfc_pause_quanta = 40000\n",
            ["d0", "d1"], gw, os.path.join(d, "dutpfc.json"))
        # Resumption is what is judged here, not how fast a descheduled
        # DUT process on a loaded 2-core box acts on our XON (10.2 ms seen
        # against the 10 ms default): the limit is the 50 ms hold.
        rep = run_lab(d, "pfcsw", gw, recipe="pfc",
                      sets=["port.r0.speed_gbps=0.02",
                            "port.t0.speed_gbps=1", "lab.resume_ms=50"])
        stop_dut(dut, "pfc")
        sw = json.load(open(os.path.join(d, "dutpfc.json")))
        lab = rep["lab"]
        a, b = lab["dut_pauses"], lab["we_pause_dut"]
        d0, d1 = sw["ports"]["d0"]["tc"]["3"], sw["ports"]["d1"]["tc"]["3"]
        ck.check(a["xoff"] > 0 and a["xoff"] == d0["pfc_xoff_sent"] and
                 a["xon"] == d0["pfc_xon_sent"],
                 "pfc: the XOFF/XON the recipe saw are what the DUT says it "
                 "sent", "%s vs %s" % (a, d0))
        ck.check(a["quanta_min"] == a["quanta_max"] == 40000,
                 "pfc: the pause time asked for is the DUT's configured "
                 "40000 quanta", str(a))
        pause_us = 40000 * 512 / 1000.0     # quanta x 512 bits at 1 Gb/s
        ck.check(abs(a["pause_us"] - pause_us) < 1e-3 and
                 0 < a["refresh_us"] < pause_us,
                 "pfc: the DUT refreshes before its %.1f us pause runs out"
                 % pause_us, str(a))
        ck.check(a["bytes_to_first_xoff"] >= 65536,
                 "pfc: no XOFF before the 64 KB threshold could be reached",
                 str(a))
        # Paused from the XOFF it acted on to the XON it acted on. Both
        # move with a descheduled process on a loaded 2-core box (34 ms
        # and 147 ms were seen against the 50 ms hold), so the count is
        # judged against what load cannot reach: our XOFF asked for 65535
        # quanta, 1677.7 ms at 20 Mb/s; a pause shorter than that was
        # ended by our XON (and "resumed" below sees the frames after it).
        # What came after the XOFF is judged by the 802.3 bound below.
        asked_ms = 65535 * 512 / 0.02e9 * 1e3
        ck.check(0 < d1["paused_ns"] / 1e6 < asked_ms,
                 "pfc: the DUT's egress was paused and our XON ended it "
                 "before the %.1f ms our XOFF asked for" % asked_ms, str(d1))
        ck.check(b["frames_before"] > 0 and
                 b["bytes_after_xoff"] <= b["bound_bytes"] and
                 b["bound_quanta"] == 67,
                 "pfc: what still came after our XOFF is within the 802.3 "
                 "bound (67 quanta at <= 10G + 2 frames + cable)", str(b))
        ck.check(b["resumed"] and b["resume_ms"] <= 50,
                 "pfc: traffic resumed after our XON", str(b))
        ck.eq(lab["verdict"], "PASS", "pfc: verdict (switch)")

        ck.section("PFC response, the kernel as the DUT (it knows no PFC)")
        kernel_fwd_htb()
        rep = run_lab(d, "pfck", gw, recipe="pfc",
                      sets=["port.r0.speed_gbps=0.02"])
        lab = rep["lab"]
        ck.eq(lab["dut_pauses"]["xoff"], 0,
              "pfc kernel: no XOFF from a DUT without PFC")
        ck.check(lab["we_pause_dut"]["bytes_after_xoff"] >
                 lab["we_pause_dut"]["bound_bytes"],
                 "pfc kernel: it kept sending through our XOFF",
                 str(lab["we_pause_dut"]))
        ck.eq(lab["verdict"], "FAIL", "pfc kernel: verdict FAIL")
finally:
    teardown()
ck.finish()
