#!/usr/bin/python3
# SPDX-License-Identifier: BSD-3-Clause
"""Issue 18: one collective over several servers, here several dpdk-aifab
processes on this machine.

Wiring: every host is a network namespace with one veth into a switch
namespace, where a Linux bridge joins them (static FDB entries put each
rank's MAC behind its host's port, so nothing is flooded); each process
drives its veth end with net_af_packet (TX checksum offload off); the
bridge ports hairpin, as frames between two ranks of one host go through
the switch as well (as in a single process). Why not
our leaf on net_memif links: memif needs the switch in L2 and the start
frame (EtherType 0x88B5, not IP) would not cross our router; af_packet
on veth is what test_lab.py already runs here with --no-huge, and the
kernel bridge is an L2 switch that carries the start frame and the RoCEv2
frames alike.

An 8-rank ring AllReduce, closed loop, 64 KiB, rank r's MAC
02:a1:fa:00:00:0r, split over two hosts (0-3 on a, 4-7 on b) or three
(0-2 a, 3-5 b, 6-7 c). Checked:

* start by leader frame (two hosts) and by --start-at (three hosts), with
  the fault stage dropping one data frame at RX on host b: every rank's
  delivered bytes = its predecessor's sent bytes = the single-process run's
  (same profile, all ranks on a net_ring loop), so every byte arrived
  exactly once; tools/merge_reports.py's table: time per iteration =
  latest end - earliest start over hosts (recomputed here from the
  reports), algbw = S / t, busbw = algbw x 2(N-1)/N; the digest each host
  printed is SHA-256 of the profile text as aifab_profile_load() defines
  it (recomputed here with hashlib).
* a wrong profile on one host: it refuses the leader's start frame with a
  line naming both digests, exits 1 with a report; the leader stops at the
  start timeout naming host b and its ranks; merge_reports.py refuses the
  two reports (different digests).
* a host that never starts (no leader): the follower stops at the start
  timeout with a line saying no start frame came; a missing host with
  --start-at: the other stops at the start timeout naming it.

Nothing depends on speed: timeouts are generous (the start timeout of the
failure cases is 4 s, every run has a --duration far above its need), and
the checks are counts, not times. Namespaces and processes are removed even
when a check fails.
"""
import hashlib
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import lib_aifab as L  # noqa: E402

exe = sys.argv[1] if len(sys.argv) > 1 else os.environ["AIFAB_EXE"]
ck = L.Checks("multihost")
tag = "%d" % os.getpid()
SW = "mhs" + tag
HOSTS = ["a", "b", "c"]
N, SIZE = 8, 65536
ITERS, WARMUP = 4, 1
TOOL = os.path.join(L.source_root(), "tools", "merge_reports.py")
procs = []


def ns_name(h):
    return "mh%s%s" % (h, tag)


def sh(*cmd, check=True):
    p = subprocess.run(cmd, capture_output=True, text=True)
    if check and p.returncode != 0:
        raise RuntimeError("%s: %s" % (" ".join(cmd), p.stderr.strip()))
    return p.stdout


def setup():
    sh("ip", "netns", "add", SW)
    sh("ip", "netns", "exec", SW, "ip", "link", "add", "br0", "type",
       "bridge")
    sh("ip", "netns", "exec", SW, "ip", "link", "set", "br0", "up")
    for h in HOSTS:
        n = ns_name(h)
        sh("ip", "netns", "add", n)
        sh("ip", "link", "add", "e0", "netns", n, "type", "veth", "peer",
           "name", "s" + h, "netns", SW)
        sh("ip", "netns", "exec", n, "ip", "link", "set", "e0", "up")
        sh("ip", "netns", "exec", SW, "ip", "link", "set", "s" + h,
           "master", "br0", "up")
        # ranks of one host talk through the switch too: back out the
        # port they came in on
        sh("ip", "netns", "exec", SW, "bridge", "link", "set", "dev",
           "s" + h, "hairpin", "on")
        for dev, where in (("e0", n), ("s" + h, SW)):
            sh("ip", "netns", "exec", where, "ethtool", "-K", dev, "tx",
               "off")
            sh("ip", "netns", "exec", where, "sysctl", "-qw",
               "net.ipv6.conf.%s.disable_ipv6=1" % dev, check=False)


def place(split):
    """Static FDB: each rank's MAC behind its host's bridge port."""
    sh("ip", "netns", "exec", SW, "bridge", "fdb", "flush", "dev", "br0",
       check=False)
    for r in range(N):
        for h in HOSTS:
            sh("ip", "netns", "exec", SW, "bridge", "fdb", "del",
               "02:a1:fa:00:00:%02x" % r, "dev", "s" + h, "master",
               check=False)
        sh("ip", "netns", "exec", SW, "bridge", "fdb", "add",
           "02:a1:fa:00:00:%02x" % r, "dev", "s" + split[r], "master",
           "static")


def teardown():
    for p in procs:
        if p.poll() is None:
            p.kill()
            p.wait()
    for h in HOSTS:
        sh("ip", "netns", "del", ns_name(h), check=False)
    sh("ip", "netns", "del", SW, check=False)


PROFILE = """[general]
name = multihost-ring
seed = 7
[switch]
enabled = false
[port.p0]
device = %(dev)s
speed_gbps = 10
[generator]
enabled = true
ports = p0
ranks = 8
rank_table = %(tab)s
collective = allreduce_ring
size_bytes = 65536
ib_mtu = 1024
iterations = 4
warmup = 1
closed_loop = true
rate_gbps = 0.2
window = 16
retx_timeout_us = 100000
"""


def write_table(d, split, name="ranks.txt"):
    path = os.path.join(d, name)
    with open(path, "w") as f:
        f.write("# rank mac ipv4 [port] [host=name]\n")
        for r in range(N):
            f.write("%d 02:a1:fa:00:00:%02x 10.100.0.%d%s\n" % (
                r, r, r + 1, "" if split is None else
                " p0 host=%s" % split[r]))
    return path


def digest_of(ini, sets=()):
    """SHA-256 as aifab_profile_load() defines it, from the text."""
    sect, ent = None, {}
    for line in open(ini):
        line = line.split(";")[0].strip()
        if not line or line.startswith("#"):
            continue
        if line.startswith("["):
            sect = line[1:line.index("]")]
            continue
        k, v = line.split("=", 1)
        ent[(sect, k.strip())] = v.strip()
    for s in sets:
        k, v = s.split("=", 1)
        a, b = k.split(".", 1)
        ent[(a, b)] = v
    lines = []
    for (s, k), v in ent.items():
        if (s, k) == ("general", "host") or k in ("device", "lcores") or \
                (s == "generator" and k.startswith("fault_")):
            continue
        if (s, k) == ("generator", "rank_table") and v:
            v = "sha256:" + hashlib.sha256(open(v, "rb").read()).hexdigest()
        lines.append("[%s] %s = %s\n" % (s, k, v))
    return hashlib.sha256("".join(sorted(lines)).encode()).hexdigest()


def start_host(d, h, ini, args, sets=()):
    rep = os.path.join(d, "rep_%s.json" % h)
    cmd = ["ip", "netns", "exec", ns_name(h), exe, "--no-huge", "-m", "256",
           "--no-pci", "--file-prefix", "mh%s%s" % (h, tag), "--vdev",
           "net_af_packet0,iface=e0", "--", "--profile", ini, "--host", h,
           "--report-json", rep, "--quiet"] + list(args)
    for s in sets:
        cmd += ["--set", s]
    p = subprocess.Popen(cmd, stdout=subprocess.PIPE,
                         stderr=subprocess.PIPE, text=True)
    p.host, p.rep = h, rep
    procs.append(p)
    return p


def follower_ready(p):
    """Before the leader starts: the leader sends its start frame once, so
    the follower's port must be up to take it (not a fixed sleep: a loaded
    machine starts EAL late)."""
    ok = L.wait_app_ready("mh%s%s" % (p.host, tag), p)
    ck.check(ok, "host %s is up before the leader starts (its telemetry "
             "answers)" % p.host, "exit %s" % p.poll())


def finish(p, timeout=180):
    try:
        out, err = p.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        p.kill()
        out, err = p.communicate()
        ck.check(False, "host %s: ended within %d s" % (p.host, timeout))
    p.out, p.err = out, err
    L._remove_runtime_dir("mh%s%s" % (p.host, tag))
    try:
        p.report = json.load(open(p.rep))
    except (OSError, ValueError) as e:
        p.report = None
        ck.check(False, "host %s: report written" % p.host,
                 "%s (exit %s; stderr: %s)" % (e, p.returncode, err[-1500:]))
    return p


def single_run(d):
    """The same collective in one process: every rank on a net_ring loop."""
    ini = os.path.join(d, "single.ini")
    with open(ini, "w") as f:
        f.write(PROFILE % {"dev": "net_ring0",
                           "tab": write_table(d, None, "single.txt")})
    rep = os.path.join(d, "single.json")
    pre = "mhone" + tag
    p = subprocess.run([exe, "--no-huge", "-m", "256", "--no-pci",
                        "--file-prefix", pre, "--vdev", "net_ring0", "--",
                        "--profile", ini, "--report-json", rep,
                        "--duration", "120", "--quiet"],
                       capture_output=True, text=True, timeout=200)
    L._remove_runtime_dir(pre)
    ck.eq(p.returncode, 0, "single process: exit 0")
    r = json.load(open(rep))
    ck.eq(r["end"], "input_consumed", "single process: completes")
    return r


def per_rank(reports):
    out = {}
    for r in reports:
        for e in r["multihost"]["per_rank"]:
            out[e["rank"]] = e
    return out


def judge_good(name, hosts, single, split, drop_host):
    reps = [p.report for p in hosts]
    for p in hosts:
        ck.eq(p.returncode, 0, "%s: host %s exits 0" % (name, p.host),)
        if p.returncode != 0:
            print(p.out[-1500:], p.err[-1500:])
        ck.eq(p.report["end"], "input_consumed",
              "%s: host %s completes its ranks' iterations" % (name, p.host))
        mh = p.report["multihost"]
        ck.eq(mh["owned_ranks"], [r for r in range(N) if split[r] == p.host],
              "%s: host %s emulates exactly its ranks" % (name, p.host))
        ck.eq(mh["start"]["state"], "started",
              "%s: host %s started" % (name, p.host))
        m = re.search(r"profile digest \(SHA-256\): ([0-9a-f]{64})", p.out)
        ck.check(m is not None and m.group(1) == p.report["profile"]
                 ["digest"] == mh["digest"] == hosts[0].digest_want,
                 "%s: host %s prints and stores the profile's SHA-256" %
                 (name, p.host), "%s vs %s" % (m and m.group(1),
                                               hosts[0].digest_want))
        ck.eq(len(mh["iterations"]), ITERS,
              "%s: host %s lists every timed iteration" % (name, p.host))
    pr, one = per_rank(reps), per_rank([single])
    ck.eq(sorted(pr), list(range(N)), "%s: every rank reported once" % name)
    for r in range(N):
        a, b = pr.get(r, {}), one.get(r, {})
        ck.check(a.get("delivered_bytes") == b.get("delivered_bytes") and
                 a.get("sent_bytes") == b.get("sent_bytes"),
                 "%s: rank %d sent / was delivered the single-process "
                 "run's bytes" % (name, r), "%s vs %s" % (a, b))
        pred = pr.get((r - 1) % N, {})
        ck.check(a.get("delivered_bytes") == pred.get("sent_bytes") ==
                 (WARMUP + ITERS) * 2 * (N - 1) * SIZE // N,
                 "%s: rank %d received each byte its predecessor sent, "
                 "exactly once" % (name, r), "%s / %s" % (a, pred))
    resent = sum(e["retx_bytes"] for e in pr.values())
    fault = drop_host.report["generator"]["fault"]["dropped"]
    ck.check(fault == 1 and resent > 0, "%s: the fault stage on host %s "
             "dropped one frame and it was resent" % (name, drop_host.host),
             "%s / %s" % (fault, resent))
    return reps


def judge_merge(name, d, hosts):
    out_json = os.path.join(d, name + "_merged.json")
    html = os.path.join(d, name + "_merged.html")
    p = subprocess.run([sys.executable, TOOL] + [h.rep for h in hosts] +
                       ["--json", out_json, "--html", html],
                       capture_output=True, text=True, timeout=60)
    print(p.stdout, p.stderr[-500:])
    if not ck.eq(p.returncode, 0, "%s: merge_reports.py exits 0" % name):
        return
    m = json.load(open(out_json))
    its = [h.report["multihost"]["iterations"] for h in hosts]
    times = [(max(i[k]["end_ns"] for i in its) -
              min(i[k]["start_ns"] for i in its)) / 1e3
             for k in range(ITERS)]
    avg = sum(times) / len(times)
    ck.check(all(abs(a - b) < 0.01 for a, b in
                 zip([x["time_us"] for x in m["iterations"]], times)),
             "%s: merged time per iteration = latest end - earliest start"
             % name, "%s vs %s" % (m["iterations"], times))
    algbw = SIZE / (avg * 1e-6) / 1e9
    ck.check(abs(m["collective"]["time_us"]["avg"] - avg) < 0.01 and
             abs(m["collective"]["algbw_gbps"] - algbw) <= 1e-6 * algbw and
             abs(m["collective"]["busbw_gbps"] - algbw * 2 * (N - 1) / N)
             <= 1e-6 * algbw,
             "%s: merged algbw = S / t, busbw = algbw x 2(N-1)/N" % name,
             str(m["collective"]))
    ck.eq(sorted(int(r) for r in m["per_rank"]), list(range(N)),
          "%s: merged per-rank breakdown covers every rank" % name)
    ck.check(re.search(r"^\s+65536\s+16384\s+float\s+sum\s+[0-9.]+",
                       p.stdout, re.M) is not None and
             "start skew" in p.stdout,
             "%s: nccl-tests row and the error from start skew printed"
             % name, p.stdout[-800:])
    page = open(html).read()
    ck.check("</html>" in page and "<script" not in page and
             "65536" in page, "%s: self-contained HTML report" % name)


def host_profile(d, split, name):
    """The hosts' profile and rank table for @p split; FDB placed."""
    place(split)
    ini = os.path.join(d, name + ".ini")
    with open(ini, "w") as f:
        f.write(PROFILE % {"dev": "net_af_packet0",
                           "tab": write_table(d, split, name + ".txt")})
    return ini


def good_runs(d, single):
    # two hosts, leader frame; host b loses its 5th data frame
    ck.section("two hosts, started by the leader's frame; loss on b")
    split = ["a"] * 4 + ["b"] * 4
    ini = host_profile(d, split, "two")
    want = digest_of(ini)
    b = start_host(d, "b", ini, ["--duration", "150"],
                   ["generator.fault_drop_index=5"])
    follower_ready(b)   # b takes the start frame (it waits up to 30 s)
    a = start_host(d, "a", ini, ["--leader", "--duration", "150"])
    hosts = [finish(a), finish(b)]
    a.digest_want = want
    if None in (a.report, b.report):
        return
    ck.check(b.report["multihost"]["start"]["mode"] == "frame" and
             b.report["multihost"]["start"]["leader_host"] == "a" and
             a.report["multihost"]["start"]["frames_tx"] == 4,
             "two hosts: the leader sent one start frame per remote rank, "
             "b started by it", str(b.report["multihost"]["start"]))
    judge_good("two hosts", hosts, single, split, b)
    judge_merge("two", d, hosts)

    ck.section("three hosts, --start-at; loss on b")
    split = ["a"] * 3 + ["b"] * 3 + ["c"] * 2
    ini = host_profile(d, split, "three")
    want = digest_of(ini)
    # one instant for all, ISO 8601 in UTC with a fraction
    t = time.time() + 8
    at = ["--start-at", time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(t)) +
          ".%03dZ" % int((t % 1) * 1000), "--duration", "150"]
    hs = [start_host(d, h, ini, at, ["generator.fault_drop_index=5"]
                     if h == "b" else []) for h in HOSTS]
    hs = [finish(h) for h in hs]
    hs[0].digest_want = want
    if any(h.report is None for h in hs):
        return
    for h in hs:
        st = h.report["multihost"]["start"]
        ck.check(st["mode"] == "at" and st["skew_ns"] is not None and
                 st["skew_ns"] >= 0,
                 "three hosts: %s began at or after the --start-at instant "
                 "and reports its skew" % h.host, str(st))
    judge_good("three hosts", hs, single, split, hs[1])
    judge_merge("three", d, hs)


def failures(d):
    ck.section("a wrong profile on one host")
    split = ["a"] * 4 + ["b"] * 4
    place(split)
    ini = os.path.join(d, "two.ini")
    b = start_host(d, "b", ini, ["--duration", "120"],
                   ["generator.size_bytes=131072"])
    follower_ready(b)
    a = start_host(d, "a", ini, ["--leader", "--duration", "120",
                                 "--start-timeout", "4"])
    a, b = finish(a), finish(b)
    ck.check(b.returncode == 1 and "refused the start frame of host 'a'"
             in b.out and "differs from ours" in b.out,
             "wrong profile: b refuses the leader's frame, naming it, "
             "exit 1", b.out[-600:])
    ck.check(b.report is not None and b.report["end"] ==
             "profile_mismatch" and b.report["multihost"]["start"]
             ["state"] == "refused", "wrong profile: b's report says why",
             str(b.report and b.report.get("end")))
    ck.check(a.returncode == 1 and a.report is not None and
             a.report["end"] == "start_timeout" and
             "nothing received from host 'b' (ranks 4-7)" in a.out,
             "wrong profile: the leader stops at the start timeout naming "
             "host b's ranks", a.out[-600:])
    p = subprocess.run([sys.executable, TOOL, a.rep, b.rep],
                       capture_output=True, text=True, timeout=60)
    ck.check(p.returncode != 0 and "digest" in p.stderr,
             "wrong profile: merge_reports.py refuses the two reports",
             p.stderr[-300:])

    ck.section("a host that never starts (no leader)")
    b = finish(start_host(d, "b", ini, ["--duration", "120",
                                        "--start-timeout", "4"]))
    ck.check(b.returncode == 1 and "no start frame from the leader within 4"
             in b.out and b.report is not None and
             b.report["end"] == "start_timeout",
             "never started: the follower gives up at the start timeout, "
             "says why, writes its report", b.out[-400:])

    ck.section("a missing host with --start-at")
    a = finish(start_host(d, "a", ini, ["--start-at", "+1", "--duration",
                                        "120", "--start-timeout", "4"]))
    ck.check(a.returncode == 1 and a.report is not None and
             a.report["end"] == "start_timeout" and
             "nothing received from host 'b' (ranks 4-7)" in a.out,
             "missing host: a stops at the start timeout naming host b",
             a.out[-400:])


def memory(d):
    """16384 ranks of ring AllReduce over 64 hosts (a rank table of 64
    host= names): this host keeps the schedule and QPs of its own 256 ranks
    (and of the ranks they exchange with) only. The whole plan would be
    16384 x 32766 entries x 40 B = 21 GB; peak RSS stays under 1 GB, and
    the per-QP list holds the 257 QPs with an end here (256 sent from its
    ranks, 1 from rank 16383 to rank 0)."""
    ck.section("16384 ranks, 1/64 of them here: memory of its own ranks")
    n, own = 16384, 256
    table = os.path.join(d, "ranks16k.txt")
    with open(table, "w") as f:
        for r in range(n):
            f.write("%d 02:a1:fb:00:%02x:%02x 10.100.%d.%d host=h%d\n"
                    % (r, r >> 8, r & 255, r >> 8, r & 255, r // own))
    rj = os.path.join(d, "mem16k.json")
    prefix = L.file_prefix("mh-mem")
    p = subprocess.Popen(
        [exe, "--no-huge", "-m", "1024", "--no-pci", "--file-prefix", prefix,
         "--vdev", "net_null0,no-rx=1", "--vdev", "net_null1,no-rx=1", "--",
         "--profile", os.path.join(L.source_root(), "profiles",
                                   "gen-open-loop.ini"),
         "--set", "generator.ranks=%d" % n,
         "--set", "generator.rank_table=" + table, "--set", "generator.rx=false",
         "--host", "h0", "--start-at", "+0", "--duration", "1", "--quiet",
         "--report-json", rj],
        stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    out = p.stdout.read().decode(errors="replace")
    _, status, ru = os.wait4(p.pid, 0)
    p.returncode = os.waitstatus_to_exitcode(status)
    L._remove_runtime_dir(prefix)
    ck.check(p.returncode == 0 and os.path.exists(rj), "16384 ranks, host "
             "h0 of 64: runs", out[-400:])
    if p.returncode != 0 or not os.path.exists(rj):
        return
    g = L.read_report(rj)["generator"]
    ck.eq(g["collective"]["ranks"], n, "16384 ranks: collective.ranks")
    ck.eq(g["per_qp"]["qps"], own + 1, "16384 ranks: QPs with an end here")
    ck.check(g["tx_packets"] > 0, "16384 ranks: its ranks send",
             g["tx_packets"])
    ck.check(ru.ru_maxrss < 1024 * 1024, "16384 ranks, 256 here: peak RSS "
             "%d MB < 1 GB (the whole plan: 21 GB)" % (ru.ru_maxrss // 1024),
             ru.ru_maxrss)


def main():
    if os.geteuid() != 0:
        print("not root: network namespaces unavailable; skipped")
        sys.exit(77)
    d = tempfile.mkdtemp(prefix="aifab-mh-")
    try:
        setup()
        single = single_run(d)
        good_runs(d, single)
        failures(d)
        memory(d)
    except (RuntimeError, subprocess.TimeoutExpired, OSError,
            ValueError, KeyError) as e:
        ck.check(False, "test ran to the end", repr(e))
    finally:
        teardown()
        if not ck.failures:
            shutil.rmtree(d, ignore_errors=True)
        else:
            print("kept %s" % d)
    ck.finish()


if __name__ == "__main__":
    signal.signal(signal.SIGTERM, lambda *a: sys.exit(1))
    main()
