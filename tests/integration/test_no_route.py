#!/usr/bin/python3
# SPDX-License-Identifier: BSD-3-Clause
"""Routes: pcap-leaf without its [routes] section (off-leaf traffic dropped
as no_route, connected traffic still flows), and pcap-leaf with its default
routes replaced by --set (routes.0.0.0.0/0=10.0.3.2,
routes.::/0=fd00:0:0:3::2): off-leaf traffic all leaves on p3.

Usage: test_no_route.py PATH/TO/dpdk-aifab
"""
import os
import re

from lib_aifab import (NBR_IP4, NBR_IP6, CaseSet, Checks, Run, exe_path,
                       leaf_profile, verify_run)
from test_pcap_leaf import FAR4, FAR6, reth, roce4, roce6, udp4, udp6


def profile_without_routes(dst):
    """pcap-leaf.ini with the [routes] section (header and keys) removed."""
    with open(leaf_profile()) as f:
        text = f.read()
    out, skip = [], False
    for line in text.splitlines():
        m = re.match(r"\s*\[([^\]]+)\]", line)
        if m:
            skip = m.group(1).strip() == "routes"
        if not skip:
            out.append(line)
    body = "\n".join(out) + "\n"
    path = os.path.join(dst, "leaf-no-routes.ini")
    with open(path, "w") as f:
        f.write(body)
    return path, text


def build():
    cs = CaseSet(first_tag=700)
    H0, H1 = NBR_IP4[0], NBR_IP4[1]
    G0, G1 = NBR_IP6[0], NBR_IP6[1]
    for k, far in enumerate(FAR4):
        cs.add(0, lambda t, far=far: udp4(0, H0, far, t, sport=100 + k),
               "IPv4 UDP -> %s" % far, "drop", reason="no_route")
    cs.add(1, lambda t: roce4(1, H1, FAR4[0], t, 0x0A, 0x10, 1, 0xC010,
                              ext=reth(0, 1, 256)),
           "IPv4 RoCEv2 -> %s" % FAR4[0], "drop", reason="no_route",
           seen=("rx_roce",))
    for far in FAR6:
        cs.add(0, lambda t, far=far: udp6(0, G0, far, t),
               "IPv6 UDP -> %s" % far, "drop", reason="no_route",
               seen=("rx_ipv6",))
    cs.add(1, lambda t: roce6(1, G1, FAR6[1], t, 0x0A, 0x11, 2, 0xC011,
                              ext=reth(0, 1, 256)),
           "IPv6 RoCEv2 -> %s" % FAR6[1], "drop", reason="no_route",
           seen=("rx_roce", "rx_ipv6"))
    # Connected routes and neighbours stay.
    cs.add(0, lambda t: udp4(0, H0, H1, t, sport=200), "IPv4 UDP -> 10.0.1.2",
           "fwd", egress=(1,), flow=("v4", H0, H1, 200))
    cs.add(2, lambda t: udp4(2, NBR_IP4[2], NBR_IP4[3], t, sport=201),
           "IPv4 UDP 10.0.2.2 -> 10.0.3.2", "fwd", egress=(3,),
           flow=("v4", NBR_IP4[2], NBR_IP4[3], 201))
    cs.add(3, lambda t: udp6(3, NBR_IP6[3], G0, t, sport=202),
           "IPv6 UDP fd00:0:0:3::2 -> fd00:0:0:0::2", "fwd", egress=(0,),
           flow=("v6", NBR_IP6[3], G0, 202), seen=("rx_ipv6",))
    # A destination inside a port subnet is still no_neighbor, not no_route.
    cs.add(0, lambda t: udp4(0, H0, "10.0.3.99", t),
           "IPv4 -> 10.0.3.99 (p3 subnet, no neighbour)", "drop",
           reason="no_neighbor")
    return cs


def build_pinned():
    cs = CaseSet(first_tag=800)
    H0, G0 = NBR_IP4[0], NBR_IP6[0]
    for k, far in enumerate(FAR4):
        cs.add(0, lambda t, far=far: roce4(0, H0, far, t, 0x0A, 0x20 + k, k,
                                           0xC100 + k, ext=reth(0, 1, 256)),
               "IPv4 RoCEv2 -> %s" % far, "fwd", egress=(3,), roce=True,
               seen=("rx_roce",))
    for far in FAR6:
        cs.add(1, lambda t, far=far: udp6(1, NBR_IP6[1], far, t),
               "IPv6 UDP -> %s" % far, "fwd", egress=(3,), seen=("rx_ipv6",))
    cs.add(2, lambda t: udp6(2, FAR6[0], G0, t), "IPv6 UDP uplink -> p0",
           "fwd", egress=(0,), seen=("rx_ipv6",))
    return cs


def check_pinned(ck, exe):
    what = "--set routes to p3 only"
    cs = build_pinned()
    run = Run(exe, cs.inputs(), tag="pinned",
              app_args=["--set", "routes.0.0.0.0/0=10.0.3.2",
                        "--set", "routes.::/0=fd00:0:0:3::2"])
    ck.section(what)
    with run.kept_if_failed(ck):
        run.run()
        verify_run(ck, run, cs, what)


def main():
    exe = exe_path()
    ck = Checks("test_no_route")
    check_pinned(ck, exe)
    cs = build()
    run = Run(exe, cs.inputs(), tag="noroute")
    prof, orig = profile_without_routes(run.dir)
    ck.section("profile without [routes]: %s" % prof)
    ck.check("[routes]" in orig, "pcap-leaf.ini has a [routes] section to "
             "remove")
    with open(prof) as f:
        ck.check("[routes]" not in f.read(), "variant has no [routes]")
    run.profile = prof
    run.run()
    what = "no [routes]"
    try:
        verify_run(ck, run, cs, what)
        if run.report and "profile" in run.report:
            ck.eq(run.report["profile"].get("path"), prof,
                  "%s: report names the profile file" % what)
    finally:
        if ck.failures:
            run.keep = True
        run.cleanup()
    ck.finish()


if __name__ == "__main__":
    main()
