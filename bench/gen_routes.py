#!/usr/bin/python3
# SPDX-License-Identifier: BSD-3-Clause
"""Write a route table of N IPv4 /24 routes: route i is 64.0.0.0/24 +
256 * i (64.0.0.0/24, 64.0.1.0/24, ...; up to 1M routes, to 79.255.255.0),
the route-scale case of bench/run.sh (gen_flows.py --routes N addresses
its flows to these /24s).

Two formats:
  * dpdk-aifab's routes file (`[routes] file = PATH`, docs/profiles.md):
    "<prefix>/24 <next hop> ...", every route over --nh (default
    "10.0.2.2 10.0.3.2": pcap-leaf's and bench/leaf-800g.ini's uplink
    neighbours, the ECMP group of their default route, so a route-scale
    run does the same work per frame as the default-route one but for the
    LPM);
  * --l3fwd PORT: DPDK l3fwd's rule file ("R<prefix>/24 PORT").

Usage: gen_routes.py --routes N -o FILE [--nh "A B"] [--l3fwd PORT]
Debian's python3, no third-party modules.
"""
import argparse
import sys

BASE = 64 << 24


def prefix24(i):
    """Network address (int) of route i."""
    return BASE + (i << 8)


def ip_str(a):
    return "%d.%d.%d.%d" % (a >> 24, (a >> 16) & 255, (a >> 8) & 255, a & 255)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--routes", type=int, required=True)
    ap.add_argument("--nh", default="10.0.2.2 10.0.3.2")
    ap.add_argument("--l3fwd", type=int, default=None, metavar="PORT")
    ap.add_argument("-o", "--out", required=True)
    a = ap.parse_args()
    if not 0 <= a.routes <= 1 << 20:
        sys.exit("gen_routes.py: --routes must be 0..%d" % (1 << 20))
    with open(a.out, "w") as f:
        if a.l3fwd is not None:
            f.writelines("R%s/24 %d\n" % (ip_str(prefix24(i)), a.l3fwd)
                         for i in range(a.routes))
            return
        f.write("# %d routes from bench/gen_routes.py\n" % a.routes)
        f.writelines("%s/24 %s\n" % (ip_str(prefix24(i)), a.nh)
                     for i in range(a.routes))


if __name__ == "__main__":
    main()
