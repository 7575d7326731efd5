#!/usr/bin/python3
"""Writes profiles/clos.ini, profiles/scenarios/ecmp-polarization.ini,
profiles/scenarios/ecmp-polarization-seeded.ini and profiles/clos-128.ini
(several switch instances in one process, cabled in memory).

Usage: tools/mk_clos_profiles.py profiles
       tools/mk_clos_profiles.py --ranks N [--collective C] [--size BYTES]
                                 [--iterations K] OUT.ini

The second form writes one 2-tier Clos of N ranks (N = 128: 8 leaves of 16
hosts and 4 spines; N = 1024: 32 leaves of 32 hosts and 8 spines; hosts at
100G, each leaf's uplinks at hosts x 100G / spines, so the fabric is
non-blocking), virtual clock, lossless as clos.ini. bench/clos.sh makes the
1024-rank one at bench time (about 17,000 lines) instead of shipping it."""
import sys
# ecmp-polarization*: hosts at 400G, fabric links at 100G (four uplinks per
# leaf, 2:1 oversubscribed for all-to-all): the fabric, not the hosts,
# limits the collective, so idle spine links cost time.
FAB = 100
POL_HOST = 400
def port(name, mac=None, ip=None, sw=None, wire=None, speed=100):
    L=["[port.%s]" % name]
    if sw: L.append("switch = %s" % sw)
    if wire: L.append("wire = %s" % wire)
    if mac: L.append("mac = %s" % mac)
    if ip: L.append("ipv4 = %s" % ip)
    L.append("speed_gbps = %s" % speed)
    L.append("mtu = 9000")
    return "\n".join(L)+"\n"

def build(kind):
    par = 2 if kind == "pol" else 1          # parallel links per leaf-spine pair
    secs=[]
    neigh={}; routes={}
    def mac(sw_id, i): return "02:aa:%02x:00:00:%02x" % (sw_id, i)
    # hosts
    for r in range(8):
        leaf = r // 4
        lp = "l%dh%d" % (leaf, r)
        secs.append(port(lp, mac(leaf+1, r), "10.100.%d.254/24" % r, "leaf%d" % leaf))
        hs = POL_HOST if kind == "pol" else 100
        secs[-1] = port(lp, mac(leaf+1, r), "10.100.%d.254/24" % r,
                        "leaf%d" % leaf, speed=hs)
        secs.append(port("g%d" % r, wire=lp, speed=hs))
        neigh.setdefault("leaf%d" % leaf, []).append(("10.100.%d.1" % r, "02:a1:fa:00:00:%02x" % r))
    fab_speed = FAB if kind == "pol" else 100
    # links: leaf L, spine S, k
    leaf_nh = {0: [], 1: []}; spine_nh = {}
    for L in range(2):
        for S in range(2):
            for k in range(par):
                x = (L*2+S)*par+k
                lname = "l%ds%d%s" % (L, S, "ab"[k] if par > 1 else "")
                sname = "s%dl%d%s" % (S, L, "ab"[k] if par > 1 else "")
                lmac = mac(L+1, 0x10+x); smac = mac(S+3, 0x10+x)
                secs.append(port(lname, lmac, "10.200.%d.1/30" % x, "leaf%d" % L, speed=fab_speed))
                secs.append(port(sname, smac, "10.200.%d.2/30" % x, "spine%d" % S, sname and lname, speed=fab_speed))
                neigh.setdefault("leaf%d" % L, []).append(("10.200.%d.2" % x, smac))
                neigh.setdefault("spine%d" % S, []).append(("10.200.%d.1" % x, lmac))
                leaf_nh[L].append((S, k, "10.200.%d.2" % x))
                spine_nh.setdefault((S, L), []).append("10.200.%d.1" % x)
    for L in range(2):
        other = "10.100.%d.0/22" % (4 * (1 - L))
        if kind == "pol":
            # all four uplinks, ordered spine-major within a link index:
            # member h mod 4 -> spine = h & 1, link = (h >> 1) & 1
            order = sorted(leaf_nh[L], key=lambda t: (t[1], t[0]))
        else:
            order = leaf_nh[L]
        routes.setdefault("leaf%d" % L, []).append((other, [t[2] for t in order]))
    for S in range(2):
        for L in range(2):
            routes.setdefault("spine%d" % S, []).append(("10.100.%d.0/22" % (4*L), spine_nh[(S, L)]))
    return secs, neigh, routes

def write(kind, path, head, gen, swsect):
    secs, neigh, routes = build(kind)
    f = open(path, "w")
    f.write(head)
    f.write("\n".join(secs))
    f.write("\n" + swsect)
    for sw in ["leaf0", "leaf1", "spine0", "spine1"]:
        f.write("\n[neighbors.%s]\n" % sw)
        for a, m in neigh[sw]:
            f.write("%s = %s\n" % (a, m))
    for sw in ["leaf0", "leaf1", "spine0", "spine1"]:
        f.write("\n[routes.%s]\n" % sw)
        for p, nh in routes[sw]:
            f.write("%s = %s\n" % (p, " ".join(nh)))
    f.write("\n" + gen)
    f.close()

clos_head = """; dpdk-aifab: a small Clos in memory. 8 GPU ranks, two leaves (ranks 0-3
; on leaf0, 4-7 on leaf1), two spines; every cable is an in-memory wire.
; Each switch is its own switch pipeline ([port.X] switch = NAME) with its
; own [neighbors.NAME] / [routes.NAME]; the leaves spread traffic to the
; other leaf over both spines (ECMP), each switch with its own hash seed.
; Rank r is 10.100.r.1 behind leaf port l<leaf>h<r> = 10.100.r.254/24;
; leaf L - spine S link: leaf side 10.200.x.1/30, spine side 10.200.x.2/30
; (x = 2L + S). All on 2 cores; runs to completion by itself.

[general]
name = clos
seed = 1

[switch]
enabled = true

"""
clos_sw = """[ecmp]
hash = crc32c
fields = sip,dip,proto,sport,dport

[switch.leaf0]
ecmp_seed = 101

[switch.leaf1]
ecmp_seed = 102

[switch.spine0]
ecmp_seed = 201

[switch.spine1]
ecmp_seed = 202
"""


def gen_section(collective, size_bytes, qps_per_conn):
    """[generator]: the 8 ranks behind g0..g7, closed loop, 3 iterations."""
    return """[generator]
enabled = true
ports = g0 g1 g2 g3 g4 g5 g6 g7
ranks = 8
base_ip = 10.100.0.1/16
ip_stride = 256
collective = %s
size_bytes = %d
qps_per_conn = %d
ib_mtu = 4096
iterations = 3
warmup = 1
closed_loop = true
""" % (collective, size_bytes, qps_per_conn)


clos_gen = gen_section("allreduce_ring", 4194304, 4)
pol_head = """; dpdk-aifab scenario: ECMP polarization across two tiers, in memory.
; 8 ranks, two leaves x two spines, TWO parallel links between each
; leaf and spine (l<L>s<S>a/b <-> s<S>l<L>a/b). The leaves spread traffic
; to the other leaf over all four uplinks (member = h mod 4: spine = bit 0
; of h, link = bit 1); each spine spreads traffic to a leaf over its two
; parallel links (member = h mod 2 = bit 0 of h).
;
; Every switch uses the same hash, fields and seed ([ecmp], no
; [switch.NAME] seeds): a flow reaching spine S has bit 0 of h = S, so
; the spine picks the same link for every flow -- half of the spine-to-leaf
; links carry everything, the other half nothing (report: switches.spine*
; .ecmp ... imbalance_packets = 2.0). Give the spines their own seed and
; the load spreads again:
;
;   dpdk-aifab --profile profiles/scenarios/ecmp-polarization.ini \\
;       --set switch.spine0.ecmp_seed=7 --set switch.spine1.ecmp_seed=8
;
; (profiles/scenarios/ecmp-polarization-seeded.ini is exactly that). Many flows
; cross the tiers: all-to-all with 8 QPs per connection, each with its own
; UDP source port. Hosts at 400G, fabric links at 100G: the fabric
; limits the collective, so with half the spine-to-leaf links idle it
; takes clearly longer. On the virtual clock (docs/virtual-time.md) the
; figures are the model's, the same on every run.

[general]
name = ecmp-polarization
seed = 1
clock = virtual

[switch]
enabled = true

"""
pol_sw = """[ecmp]
hash = crc32c
seed = 0
fields = sip,dip,proto,sport,dport
"""
pol_gen = gen_section("alltoall", 8388608, 8)
pol_seeded_head = pol_head.replace("name = ecmp-polarization",
                                   "name = ecmp-polarization-seeded")
pol_seeded_head = """; The ecmp-polarization scenario with its own ECMP seed on each spine
; (the other half of the pair; see ecmp-polarization.ini): the spines'
; choice no longer repeats the leaves', and every spine-to-leaf link
; carries traffic.
""" + pol_seeded_head[pol_seeded_head.index("\n[general]"):]
pol_seeded_sw = pol_sw + """
[switch.spine0]
ecmp_seed = 7

[switch.spine1]
ecmp_seed = 8
"""

# ---- big 2-tier Clos (N ranks; tools/mk_clos_profiles.py --ranks N) ------

CLOS_SHAPES = {128: (16, 4), 1024: (32, 8)}   # ranks: (hosts/leaf, spines)


def clos_big(n, collective="allreduce_ring", size_bytes=1048576,
             iterations=1, host_gbps=100):
    """The profile text of an N-rank 2-tier Clos: leaves of H hosts, U
    spines, every leaf cabled once to every spine at H x host_gbps / U.
    Rank r is 10.(r >> 8).(r & 255).1 behind leaf port l<L>h<r>
    (.254/24); leaf L covers 10.0.0.0/8's block of its H /24s, the spines
    route each leaf's block to it, each leaf routes 10.0.0.0/8 over all U
    spines (ECMP, its own seed). Generator ports g0..g<N-1> come first
    (the generator's ports must be among the first 1024)."""
    hosts, spines = CLOS_SHAPES[n]
    leaves = n // hosts
    up_gbps = hosts * host_gbps // spines
    bits = hosts.bit_length() - 1
    secs, neigh, routes = [], {}, {}

    def mac(kind, sw, i):
        return "02:%02x:%02x:%02x:%02x:%02x" % (kind, sw >> 8, sw & 255,
                                                 i >> 8, i & 255)

    def leaf(L):
        return "leaf%d" % L

    def spine(S):
        return "spine%d" % S

    for r in range(n):
        secs.append(port("g%d" % r, wire="l%dh%d" % (r // hosts, r),
                         speed=host_gbps))
    for r in range(n):
        L = r // hosts
        secs.append(port("l%dh%d" % (L, r), mac(0xaa, L, r),
                         "10.%d.%d.254/24" % (r >> 8, r & 255), leaf(L),
                         speed=host_gbps))
        neigh.setdefault(leaf(L), []).append(
            ("10.%d.%d.1" % (r >> 8, r & 255),
             "02:a1:fa:%02x:%02x:%02x" % (r >> 16, (r >> 8) & 255, r & 255)))
    leaf_nh = {}
    for L in range(leaves):
        for S in range(spines):
            x = L * spines + S
            a = "10.200.%d.%d" % (x >> 6, (x & 63) * 4)
            pre = a.rsplit(".", 1)[0] + "."
            base = (x & 63) * 4
            lname, sname = "l%ds%d" % (L, S), "s%dl%d" % (S, L)
            lmac, smac = mac(0xab, L, 0x100 + S), mac(0xac, S, 0x100 + L)
            secs.append(port(lname, lmac, "%s%d/30" % (pre, base + 1),
                             leaf(L), speed=up_gbps))
            secs.append(port(sname, smac, "%s%d/30" % (pre, base + 2),
                             spine(S), lname, speed=up_gbps))
            neigh.setdefault(leaf(L), []).append(("%s%d" % (pre, base + 2),
                                                  smac))
            neigh.setdefault(spine(S), []).append(("%s%d" % (pre, base + 1),
                                                   lmac))
            leaf_nh.setdefault(L, []).append("%s%d" % (pre, base + 2))
            first = L * hosts
            routes.setdefault(spine(S), []).append(
                ("10.%d.%d.0/%d" % (first >> 8, first & 255, 24 - bits),
                 ["%s%d" % (pre, base + 1)]))
    for L in range(leaves):
        routes.setdefault(leaf(L), []).append(("10.0.0.0/8", leaf_nh[L]))
    sws = [leaf(L) for L in range(leaves)] + [spine(S) for S in range(spines)]
    out = ["""; dpdk-aifab: a 2-tier Clos of %(n)d GPU ranks in memory, on the virtual
; clock (written by tools/mk_clos_profiles.py --ranks %(n)d). %(leaves)d leaves
; of %(hosts)d hosts at %(hg)dG, %(spines)d spines; every leaf has one %(ug)dG
; cable to every spine, so the fabric is non-blocking (%(hosts)d x %(hg)dG down =
; %(spines)d x %(ug)dG up). Rank r is 10.(r >> 8).(r & 255).1 behind leaf port
; l<leaf>h<r> (.254/24); the leaves spread 10.0.0.0/8 over every spine (ECMP,
; a seed per leaf), the spines route each leaf's block to it.

[general]
name = clos-%(n)d
seed = 1
clock = virtual

[switch]
enabled = true
""" % dict(n=n, leaves=leaves, hosts=hosts, hg=host_gbps, spines=spines,
           ug=up_gbps)]
    out.append("\n".join(secs))
    out.append("\n[ecmp]\nhash = crc32c\nfields = sip,dip,proto,sport,dport\n")
    for L in range(leaves):
        out.append("\n[switch.%s]\necmp_seed = %d\n" % (leaf(L), 101 + L))
    for sw in sws:
        out.append("\n[neighbors.%s]\n" % sw)
        out.append("".join("%s = %s\n" % am for am in neigh[sw]))
    for sw in sws:
        out.append("\n[routes.%s]\n" % sw)
        out.append("".join("%s = %s\n" % (p, " ".join(nh))
                           for p, nh in routes[sw]))
    out.append("""
[generator]
enabled = true
ports = g*
ranks = %d
base_ip = 10.0.0.1/8
ip_stride = 256
collective = %s
size_bytes = %d
qps_per_conn = 1
ib_mtu = 4096
iterations = %d
warmup = 0
closed_loop = true
""" % (n, collective, size_bytes, iterations))
    return "".join(out)


def main(argv):
    if len(argv) > 1 and argv[1] == "--ranks":
        import argparse
        ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
        ap.add_argument("--ranks", type=int, choices=sorted(CLOS_SHAPES),
                        required=True)
        ap.add_argument("--collective", default="allreduce_ring")
        ap.add_argument("--size", type=int, default=1048576)
        ap.add_argument("--iterations", type=int, default=1)
        ap.add_argument("out")
        a = ap.parse_args(argv[1:])
        with open(a.out, "w") as f:
            f.write(clos_big(a.ranks, a.collective, a.size, a.iterations))
        return
    d = argv[1]
    write("clos", d + "/clos.ini", clos_head, clos_gen, clos_sw)
    write("pol", d + "/scenarios/ecmp-polarization.ini", pol_head, pol_gen,
          pol_sw)
    write("pol", d + "/scenarios/ecmp-polarization-seeded.ini",
          pol_seeded_head, pol_gen, pol_seeded_sw)
    with open(d + "/clos-128.ini", "w") as f:
        f.write(clos_big(128))


if __name__ == "__main__":
    main(sys.argv)
