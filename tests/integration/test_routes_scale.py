#!/usr/bin/python3
# SPDX-License-Identifier: BSD-3-Clause
"""Route scale: pcap-leaf with a 100,000-route table loaded from a routes
file (`--set routes.file=PATH`), and bad routes files.

The table is random (seeded) and nested: prefixes /8../32 in 11.0.0.0 -
223.255.255.255, many inside others with a different next hop (p1, p2 or
p3's neighbour), so the longest match matters. Destinations are sampled
inside random routes (random host bits) and the egress port each must
leave on is computed here by an independent longest-prefix-match model
(a dict per prefix length, longest first), not by our code; every frame
must leave exactly once on that port, rewritten (verify_run: scapy and
tshark).

Bad files (each must exit 1 with one error line naming the file and the
line, the section, the prefix, the next hops and what is allowed; nothing
sent, no report): a bad prefix, host bits, a next hop that is not a
neighbour, a duplicate of an earlier line, a missing next hop, a file
that does not exist.

Usage: test_routes_scale.py PATH/TO/dpdk-aifab [N_ROUTES]
"""
import ipaddress
import os
import random
import sys
import tempfile
import shutil

from lib_aifab import (NBR_IP4, Checks, CaseSet, Run, exe_path,
                       verify_outputs)
from test_bad_config import run_case
from test_pcap_leaf import udp4

N_ROUTES = 100000
N_SAMPLES = 400
NH = {1: NBR_IP4[1], 2: NBR_IP4[2], 3: NBR_IP4[3]}   # egress port -> nh


def make_table(n, rnd):
    """n distinct random routes {(net, depth): port}, a third nested
    inside earlier ones."""
    routes = {}
    keys = []
    while len(routes) < n:
        if keys and rnd.random() < 0.35:
            pnet, pdep = keys[rnd.randrange(len(keys))]
            if pdep >= 32:
                continue
            depth = rnd.randint(pdep + 1, min(32, pdep + 12))
            net = pnet | (rnd.getrandbits(32 - pdep) & ~((1 << (32 - depth)) - 1)
                          & ((1 << (32 - pdep)) - 1))
        else:
            depth = rnd.randint(8, 32)
            first = rnd.choice([o for o in range(11, 224) if o != 127])
            a = (first << 24) | rnd.getrandbits(24)
            net = a & (0xFFFFFFFF << (32 - depth)) & 0xFFFFFFFF
        if (net, depth) in routes:
            continue
        routes[(net, depth)] = rnd.choice((1, 2, 3))
        keys.append((net, depth))
    return routes, keys


def lpm(by_depth, addr):
    """Independent model: the longest prefix holding addr, its port."""
    for depth in range(32, -1, -1):
        mask = (0xFFFFFFFF << (32 - depth)) & 0xFFFFFFFF
        port = by_depth[depth].get(addr & mask)
        if port is not None:
            return port, depth
    return None, None


def ip(a):
    return str(ipaddress.IPv4Address(a))


def write_table(path, routes):
    with open(path, "w") as f:
        f.write("# test_routes_scale: %d routes\n" % len(routes))
        for (net, depth), port in routes.items():
            f.write("%s/%d %s\n" % (ip(net), depth, NH[port]))


def check_scale(ck, exe, n):
    rnd = random.Random(14)
    routes, keys = make_table(n, rnd)
    by_depth = [dict() for _ in range(33)]
    for (net, depth), port in routes.items():
        by_depth[depth][net] = port
    cs = CaseSet(first_tag=900)
    deep = 0
    hit = set()
    for s in range(N_SAMPLES):
        net, depth = keys[rnd.randrange(len(keys))]
        addr = net | (rnd.getrandbits(32 - depth) if depth < 32 else 0)
        port, got_depth = lpm(by_depth, addr)
        deep += got_depth > depth
        mask = (0xFFFFFFFF << (32 - got_depth)) & 0xFFFFFFFF
        hit.add("%s/%d" % (ip(addr & mask), got_depth))
        cs.add(0, lambda t, a=addr, k=s: udp4(0, NBR_IP4[0], ip(a), t,
                                               sport=40000 + k),
               "IPv4 UDP -> %s (/%d)" % (ip(addr), got_depth), "fwd",
               egress=(port,))
    ck.section("%d routes, %d sampled destinations (%d matched a longer "
               "prefix than the route sampled)" % (len(routes), N_SAMPLES,
                                                    deep))
    ck.check(deep > 0, "the samples exercise nested prefixes")
    run = Run(exe, cs.inputs(), tag="routes")
    table = run.path("routes.txt")
    write_table(table, routes)
    run.app_args = ["--set", "routes.file=%s" % table]
    with run.kept_if_failed(ck):
        run.run(timeout=240)
        ck.eq(run.rc, 0, "exit status (stderr: %s)" % run.stderr[-300:])
        verify_outputs(ck, run, cs, "%d routes" % len(routes))
        # Past 1024 routes the report lists the routes that carried a
        # frame: exactly the ones the model says the samples hit.
        listed = set((run.report or {}).get("ecmp", {}))
        ck.eq(len(listed), len(hit), "report: one ECMP entry per route hit")
        ck.check(listed == hit, "report: the routes hit, by the model",
                 "%s" % sorted(listed ^ hit)[:5])


BAD = [
    # (name, file lines, bad line number, strings the error must name)
    ("bad prefix", ["11.0.0.0/8 10.0.2.2", "11.0.0/16 10.0.2.2"], 2,
     ["[routes]", "11.0.0/16", "10.0.2.2", "not an IP", "allowed"]),
    ("host bits", ["# comment", "", "11.1.0.0/8 10.0.2.2"], 3,
     ["11.1.0.0/8", "host bits", "11.0.0.0/8", "allowed"]),
    ("route to nowhere", ["11.0.0.0/8 10.0.2.2", "12.0.0.0/8 10.0.9.2"], 2,
     ["12.0.0.0/8", "10.0.9.2", "route to nowhere", "[neighbors]",
      "allowed"]),
    ("duplicate", ["11.0.0.0/8 10.0.2.2", "12.0.0.0/8 10.0.3.2",
                   "11.0.0.0/8 = 10.0.3.2"], 3,
     ["11.0.0.0/8", "duplicate route", ":1 ", "allowed"]),
    ("no next hop", ["11.0.0.0/8"], 1,
     ["11.0.0.0/8", "no next hop", "allowed"]),
]


def check_bad(ck, exe):
    tmp = tempfile.mkdtemp(prefix="aifab-it-badroutes-")
    try:
        for k, (name, lines, bad, must) in enumerate(BAD):
            path = os.path.join(tmp, "routes%d.txt" % k)
            with open(path, "w") as f:
                f.write("\n".join(lines) + "\n")
            ck.section("routes file: " + name)
            run_case(ck, exe, tmp, k, (name, None,
                                       ["routes.file=%s" % path], None,
                                       ["%s:%d:" % (path, bad)] + must))
        ck.section("routes file: missing")
        path = os.path.join(tmp, "nosuch.txt")
        run_case(ck, exe, tmp, len(BAD), (
            "missing file", None, ["routes.file=%s" % path], None,
            ["--set", "[routes]", "file", path, "cannot open", "allowed"]))
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def main():
    exe = exe_path()
    n = int(sys.argv[2]) if len(sys.argv) > 2 else N_ROUTES
    ck = Checks("test_routes_scale")
    check_bad(ck, exe)
    check_scale(ck, exe, n)
    ck.finish()


if __name__ == "__main__":
    main()
