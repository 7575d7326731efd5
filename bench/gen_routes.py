#!/usr/bin/python3
# SPDX-License-Identifier: BSD-3-Clause
"""Write a routes file (`[routes] file = PATH`, docs/profiles.md) of N
IPv4 /24 routes, and optionally the destinations that hit them.

Route i is the /24 number (i * 2654435761) mod 2^22 counted from
11.0.0.0: an odd multiplier permutes 0..2^22-1, so the N prefixes are
distinct and spread over 11.0.0.0 - 74.255.255.0 (as a real table is
spread over the LPM's 16M-entry tbl24, not packed in one corner). Every
route goes over --nh (default: pcap-leaf's and bench/leaf-800g.ini's
uplink neighbours, "10.0.2.2 10.0.3.2": the same ECMP group as their
default route, so a route-scale run does the same work per frame as the
default-route one, apart from the LPM).

Usage: gen_routes.py --routes N -o FILE [--nh "A B"]
       gen_routes.py --routes N --dst K   (print the destination of flow
                                           k < K: host .7 of route
                                           k * N // K, one per line)
Debian's python3, no third-party modules.
"""
import argparse
import sys

BASE = 11 << 24
MULT = 2654435761


def prefix24(i):
    """Network address (int) of route i."""
    return BASE + (((i * MULT) % (1 << 22)) << 8)


def ip_str(a):
    return "%d.%d.%d.%d" % (a >> 24, (a >> 16) & 255, (a >> 8) & 255, a & 255)


def dst_of_flow(k, n_routes, n_flows):
    """Flow k's destination: host .7 of route k * n_routes // n_flows."""
    return prefix24(k * n_routes // n_flows) + 7


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--routes", type=int, required=True)
    ap.add_argument("--nh", default="10.0.2.2 10.0.3.2")
    ap.add_argument("-o", "--out")
    ap.add_argument("--dst", type=int, default=0,
                    help="print K flow destinations instead")
    a = ap.parse_args()
    if not 1 <= a.routes <= 1 << 22:
        sys.exit("gen_routes.py: --routes must be 1..%d" % (1 << 22))
    if a.dst:
        for k in range(a.dst):
            print(ip_str(dst_of_flow(k, a.routes, a.dst)))
        return
    if not a.out:
        sys.exit("gen_routes.py: -o FILE is required")
    with open(a.out, "w") as f:
        f.write("# %d routes from bench/gen_routes.py\n" % a.routes)
        for i in range(a.routes):
            f.write("%s/24 %s\n" % (ip_str(prefix24(i)), a.nh))


if __name__ == "__main__":
    main()
