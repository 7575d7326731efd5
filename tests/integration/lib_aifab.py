# SPDX-License-Identifier: BSD-3-Clause
"""Shared helpers of the dpdk-aifab integration tests.

* locate the binary (argv[1] or $AIFAB_EXE) and the source tree
  ($AIFAB_SOURCE_ROOT, else two levels up from this file);
* run it over four net_pcap vdevs with a unique --file-prefix in a
  temporary directory, read back the report and the tx pcaps;
* pcap read/write of raw frames (linktype Ethernet) and tshark field
  extraction;
* independent judges: IPv4 header checksum (scapy), RoCEv2 ICRC (scapy's
  BTH.compute_icrc for IPv4 and a zlib.crc32 recomputation from
  PROTOCOLS.md's masking rules for both families);
* a small check collector that prints every check and fails precisely.

Run the tests with Debian's /usr/bin/python3 (python3-scapy). Nothing here
uses the project's own encoder.
"""
import contextlib
import itertools
import json
import os
import shutil
import socket
import struct
import subprocess
import sys
import tempfile
import time
import zlib

# Fail loudly (not with a traceback) when scapy is missing.
try:
    from scapy.all import IP, Ether
    from scapy.contrib.roce import BTH
    from scapy.utils import checksum as inet_checksum
except ImportError as e:  # pragma: no cover
    sys.stderr.write("FAIL: scapy not importable (%s); run with Debian's "
                     "/usr/bin/python3 and python3-scapy\n" % e)
    sys.exit(1)

N_PORTS = 4
PORT_NAMES = ["p0", "p1", "p2", "p3"]
ROCE_PORT = 4791

# pcap-leaf.ini, written out here (not read from the profile: the test
# states what the profile must mean).
PORT_MAC = ["02:aa:00:00:00:0%d" % i for i in range(N_PORTS)]
NBR_MAC = ["02:bb:00:00:00:0%d" % i for i in range(N_PORTS)]
PORT_IP4 = ["10.0.%d.1" % i for i in range(N_PORTS)]
NBR_IP4 = ["10.0.%d.2" % i for i in range(N_PORTS)]
PORT_IP6 = ["fd00:0:0:%d::1" % i for i in range(N_PORTS)]
NBR_IP6 = ["fd00:0:0:%d::2" % i for i in range(N_PORTS)]
UPLINKS = (2, 3)

PARSER_DROPS = [
    "truncated_l2", "truncated_l3", "truncated_l4", "truncated_bth",
    "vlan_too_deep", "ipv4_bad_version", "ipv4_bad_ihl", "ipv4_bad_length",
    "ipv4_bad_checksum", "ipv6_bad_version", "ipv6_bad_length",
    "ipv6_bad_ext_header", "udp_bad_length", "bth_bad_padcnt",
    "mac_ctrl_malformed",
]
SWITCH_DROPS = [
    "no_route", "no_neighbor", "ttl_expired", "own_address", "non_ip", "arp",
    "lldp", "mac_control", "dst_mac_mismatch", "headers_segmented",
    "mtu_exceeded", "tx_full",
]
ALL_DROPS = PARSER_DROPS + SWITCH_DROPS
SEEN_KEYS = ["rx_vlan_tagged", "rx_qinq", "rx_ipv4_options", "rx_fragments",
             "rx_roce", "rx_ipv6"]

RUN_TIMEOUT_S = 60

_run_counter = itertools.count()


# ---- locations -------------------------------------------------------------

def source_root():
    root = os.environ.get("AIFAB_SOURCE_ROOT")
    if root:
        return root
    return os.path.dirname(os.path.dirname(os.path.dirname(
        os.path.abspath(__file__))))


def exe_path():
    """The dpdk-aifab binary: argv[1], else $AIFAB_EXE."""
    path = sys.argv[1] if len(sys.argv) > 1 else os.environ.get("AIFAB_EXE")
    if not path or not os.access(path, os.X_OK):
        sys.stderr.write("FAIL: dpdk-aifab binary not given or not "
                         "executable: %r (pass it as argv[1] or set "
                         "AIFAB_EXE)\n" % path)
        sys.exit(1)
    return path


def leaf_profile():
    return os.path.join(source_root(), "profiles", "pcap-leaf.ini")


def file_prefix(tag="run"):
    return "aifab-it-%s-%d-%d" % (tag, os.getpid(), next(_run_counter))


def runtime_dirs(prefix):
    """Where EAL may keep the runtime directory of a --file-prefix."""
    bases = ["/var/run/dpdk"]
    if os.environ.get("XDG_RUNTIME_DIR"):
        bases.append(os.path.join(os.environ["XDG_RUNTIME_DIR"], "dpdk"))
    bases.append("/tmp/dpdk")
    return [os.path.join(b, prefix) for b in bases]


def telemetry_path(prefix):
    """The telemetry socket (dpdk_telemetry.v2) of the process of
    --file-prefix @p prefix, or None while there is none."""
    for d in runtime_dirs(prefix):
        p = os.path.join(d, "dpdk_telemetry.v2")
        if os.path.exists(p):
            return p
    return None


APP_READY_S = 120


class Telemetry:
    """DPDK telemetry v2 client (the app's dpdk_telemetry.v2, JSON over
    SOCK_SEQPACKET): one JSON reply per command. query() gives the whole
    reply, ask() the command's value; cmds lists the commands the process
    registered. Raises OSError if the socket does not answer in @p
    timeout s."""

    def __init__(self, path, timeout=30):
        self.s = socket.socket(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        try:
            self.s.settimeout(timeout)
            self.s.connect(path)
            self.info = json.loads(self.s.recv(16384).decode())
        except (OSError, ValueError):
            self.s.close()
            raise
        self._cmds = None

    def query(self, cmd):
        self.s.send(cmd.encode())
        return json.loads(self.s.recv(1 << 20).decode())

    def ask(self, cmd):
        return self.query(cmd).get(cmd.split(",")[0])

    @property
    def cmds(self):
        if self._cmds is None:
            self._cmds = self.ask("/") or []
        return self._cmds

    def close(self):
        self.s.close()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()


def wait_app_ready(prefix, proc, timeout=APP_READY_S):
    """True once the dpdk-aifab of --file-prefix @p prefix (process @p
    proc) runs: its own telemetry command /aifab/lcores answers. The app
    registers it after its ports started, just before it launches its
    workers (app/main.c, app_start()). For a second process a test
    starts beside another: a fixed sleep bets on the machine's speed.
    False if @p proc ended or @p timeout s passed first."""
    end = time.time() + timeout
    while time.time() < end and proc.poll() is None:
        path = telemetry_path(prefix)
        if path is not None:
            try:
                with Telemetry(path, timeout=5) as tel:
                    if "/aifab/lcores" in tel.query("/aifab/lcores"):
                        time.sleep(0.2)         # the workers' first polls
                        return True
            except (OSError, ValueError):
                pass
        time.sleep(0.1)
    return False


def _remove_runtime_dir(prefix):
    """EAL leaves its runtime directory behind; remove ours (only ours)."""
    for d in runtime_dirs(prefix):
        if prefix.startswith("aifab-it-") and os.path.isdir(d):
            shutil.rmtree(d, ignore_errors=True)


# ---- pcap files ------------------------------------------------------------

def write_pcap(path, frames, snaplen=65535):
    """Classic pcap, linktype Ethernet, one record per raw frame."""
    with open(path, "wb") as f:
        f.write(struct.pack("<IHHiIII", 0xa1b2c3d4, 2, 4, 0, 0, snaplen, 1))
        for i, fr in enumerate(frames):
            fr = bytes(fr)
            f.write(struct.pack("<IIII", 1700000000, i, len(fr), len(fr)))
            f.write(fr)


def read_pcap(path):
    """Raw frames of a pcap file (captured bytes), with scapy's reader."""
    from scapy.utils import RawPcapReader
    if not os.path.exists(path) or os.path.getsize(path) < 24:
        return None     # not written (a pcap has a 24-byte header)
    out = []
    r = RawPcapReader(path)
    try:
        for data, _meta in r:
            out.append(bytes(data))
    finally:
        r.close()
    return out


def tshark_fields(pcap, fields, extra=()):
    """One dict per frame with the given tshark -T fields columns."""
    cmd = ["tshark", "-n", "-r", pcap, "-o", "ip.check_checksum:TRUE",
           "-o", "ip.defragment:FALSE", "-o", "ipv6.defragment:FALSE",
           "-T", "fields", "-E", "separator=/t", "-E", "occurrence=a",
           "-E", "aggregator=,"]
    cmd += list(extra)
    for fl in fields:
        cmd += ["-e", fl]
    p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                       timeout=60, text=True)
    if p.returncode != 0:
        raise RuntimeError("tshark failed (%d): %s" % (p.returncode,
                                                      p.stderr.strip()))
    rows = []
    for line in p.stdout.splitlines():
        cols = line.split("\t")
        cols += [""] * (len(fields) - len(cols))
        rows.append(dict(zip(fields, cols)))
    return rows


# ---- independent judges ----------------------------------------------------

def ipv4_header_ok(hdr):
    """One's complement sum of the header (with its checksum) is 0xffff."""
    return inet_checksum(bytes(hdr)) == 0


def icrc_zlib(frame, l3_off, udp=None):
    """RoCEv2 ICRC recomputed from PROTOCOLS.md: CRC-32 over 8 x 0xff, IP,
    UDP, BTH, payload with the variant fields set to ones; returned as the
    4 bytes as they are stored on the wire (little-endian). The frame ends
    with the ICRC; the UDP header is @udp bytes after the IP header's start
    (default: after IPv4's IHL or IPv6's fixed 40 bytes; IPv6 extension
    headers in between are covered as they are)."""
    b = bytearray(frame[l3_off:-4])
    ver = b[0] >> 4
    if ver == 4:
        ihl = (b[0] & 0xf) * 4
        b[1] = 0xff                      # TOS
        b[8] = 0xff                      # TTL
        b[10:12] = b"\xff\xff"           # header checksum
        udp = ihl if udp is None else udp
    elif ver == 6:
        b[0] |= 0x0f                     # traffic class (low nibble of b0)
        b[1:4] = b"\xff\xff\xff"         # traffic class, flow label
        b[7] = 0xff                      # hop limit
        udp = 40 if udp is None else udp
    else:
        raise ValueError("not IP at offset %d" % l3_off)
    b[udp + 6:udp + 8] = b"\xff\xff"     # UDP checksum
    b[udp + 8 + 4] = 0xff                # BTH byte 4 (FECN/BECN/resv)
    crc = zlib.crc32(b"\xff" * 8 + bytes(b)) & 0xffffffff
    return struct.pack("<I", crc)


def linux_sport(lqpn, rqpn):
    """RoCEv2 UDP source port from the QP numbers (PROTOCOLS.md)."""
    fl = lqpn * rqpn
    fl ^= fl >> 20
    fl ^= fl >> 40
    fl &= 0xFFFFF
    return ((fl & 0x3FFF) ^ ((fl & 0xFC000) >> 14)) | 0xC000


def icrc_scapy(frame):
    """scapy's own ICRC of an (IPv4) RoCEv2 frame, or None if scapy cannot."""
    p = Ether(bytes(frame))
    if BTH not in p or IP not in p:
        return None
    return bytes(p[BTH].compute_icrc(None))


# ---- running the binary ----------------------------------------------------

def read_report(path):
    """The --report-json file as a dict; None if it is missing,
    {"_invalid_json": error} if it is not JSON."""
    if not os.path.exists(path):
        return None
    with open(path) as f:
        try:
            return json.load(f)
        except ValueError as e:
            return {"_invalid_json": str(e)}


class Run:
    """One run of dpdk-aifab over four net_pcap ports in a temp dir."""

    def __init__(self, exe, inputs, app_args=(), profile=None, tag="run",
                 keep=False, vdev_extra=None, tx_null=False):
        self.exe = exe
        self.inputs = [list(x) for x in inputs]
        self.app_args = list(app_args)
        self.profile = profile if profile is not None else leaf_profile()
        self.dir = tempfile.mkdtemp(prefix="aifab-it-%s-" % tag)
        self.prefix = file_prefix(tag)
        self.keep = keep or bool(os.environ.get("AIFAB_IT_KEEP"))
        self.rc = None
        self.stdout = self.stderr = ""
        self.report = None
        self.outputs = None
        self.vdev_extra = vdev_extra or {}   # port -> extra devargs
        self.tx_null = tx_null               # tx_pcap=/dev/null
        self.cmd = []

    def path(self, name):
        return os.path.join(self.dir, name)

    def command(self, mem_mb=512, eal_extra=()):
        """EAL options, a --vdev per port (vdev()), then the app's own."""
        cmd = [self.exe, "--no-huge", "-m", str(mem_mb), "--no-pci",
               "--file-prefix", self.prefix] + list(eal_extra)
        for i in range(N_PORTS):
            cmd += ["--vdev", self.vdev(i)]
        cmd += ["--", "--profile", self.profile, "--report-json",
                self.path("report.json"), "--quiet"] + self.app_args
        return cmd

    def vdev(self, i):
        spec = "net_pcap%d,rx_pcap=%s,tx_pcap=%s" % (
            i, self.path("in%d.pcap" % i),
            "/dev/null" if self.tx_null else self.path("out%d.pcap" % i))
        if self.vdev_extra.get(i):
            spec += "," + self.vdev_extra[i]
        return spec

    def prepare(self):
        for i in range(N_PORTS):
            write_pcap(self.path("in%d.pcap" % i), self.inputs[i])

    def start(self):
        """Start in the background (for signal tests)."""
        self.prepare()
        self.cmd = self.command()
        return subprocess.Popen(self.cmd, stdout=subprocess.PIPE,
                                stderr=subprocess.PIPE, text=True)

    def finish(self, proc, timeout=RUN_TIMEOUT_S):
        try:
            self.stdout, self.stderr = proc.communicate(timeout=timeout)
        except subprocess.TimeoutExpired:
            proc.kill()
            self.stdout, self.stderr = proc.communicate()
            self.rc = "timeout"
        else:
            self.rc = proc.returncode
        self._collect()
        return self

    def run(self, timeout=RUN_TIMEOUT_S):
        proc = self.start()
        return self.finish(proc, timeout)

    def _collect(self):
        _remove_runtime_dir(self.prefix)
        self.report = read_report(self.path("report.json"))
        self.outputs = [read_pcap(self.path("out%d.pcap" % i))
                        for i in range(N_PORTS)]

    def describe(self):
        return ("command: %s\nexit: %s\nstderr (last lines):\n%s" %
                (" ".join(self.cmd), self.rc,
                 "\n".join(self.stderr.splitlines()[-15:])))

    @contextlib.contextmanager
    def kept_if_failed(self, ck):
        """with run.kept_if_failed(ck): ... -- cleans up at the end, but
        keeps the run's files when a check in the block failed."""
        n_failed = len(ck.failures)
        try:
            yield self
        finally:
            if len(ck.failures) > n_failed:
                self.keep = True
            self.cleanup()

    def cleanup(self):
        if not self.keep:
            shutil.rmtree(self.dir, ignore_errors=True)
        else:
            print("kept run directory %s" % self.dir)


def run_simple(exe, args, timeout=30):
    """Run the binary with only app options (no EAL start expected)."""
    p = subprocess.run([exe] + list(args), stdout=subprocess.PIPE,
                       stderr=subprocess.PIPE, text=True, timeout=timeout)
    return p.returncode, p.stdout, p.stderr


# ---- checks ----------------------------------------------------------------

class Checks:
    """Collects checks; prints each; exit status 1 if any failed."""

    def __init__(self, name):
        self.name = name
        self.n = 0
        self.failures = []

    def section(self, title):
        print("\n== %s" % title, flush=True)

    def check(self, cond, what, detail=""):
        self.n += 1
        if cond:
            print("ok    %s" % what)
        else:
            msg = what + (": " + detail if detail else "")
            print("FAIL  %s" % msg)
            self.failures.append(msg)
        sys.stdout.flush()
        return bool(cond)

    def eq(self, got, want, what):
        return self.check(got == want, what,
                          "got %r, want %r" % (got, want))

    def got(self, cond, what, got=""):
        """check() that shows `got` when it fails."""
        return self.check(cond, what, "got %s" % (got,))

    def fatal(self, what, detail=""):
        self.check(False, what, detail)
        self.finish()

    def finish(self):
        print("\n%s: %d checks, %d failed" % (self.name, self.n,
                                              len(self.failures)))
        if self.failures:
            print("failures:")
            for f in self.failures:
                print("  - " + f)
            sys.exit(1)
        sys.exit(0)


def run_scenarios(name, scenarios, run=None):
    """main() of a test made of named scenarios: argv[1] is the binary,
    argv[2] a scenario name or "all" (the default). run(ck, exe, name) runs
    one; without it, scenarios[name](ck, exe) does. Exits with the verdict."""
    exe = exe_path()
    which = sys.argv[2] if len(sys.argv) > 2 else "all"
    names = list(scenarios) if which == "all" else [which]
    ck = Checks("%s %s" % (name, which))
    for n in names:
        if n not in scenarios:
            ck.fatal("scenario %r" % n, "known: %s" % list(scenarios))
        if run is None:
            scenarios[n](ck, exe)
        else:
            run(ck, exe, n)
    ck.finish()


def check_report_shape(ck, rep, what):
    """Keys every report must have; returns False if it cannot be read."""
    if not ck.check(isinstance(rep, dict) and "_invalid_json" not in rep,
                    "%s: report JSON written and parseable" % what,
                    repr(rep)[:300]):
        return False
    for k in ("tool", "version", "profile", "elapsed_s", "end", "ports",
              "mempool_in_use_at_exit"):
        ck.check(k in rep, "%s: report has key %r" % (what, k))
    ports = rep.get("ports", {})
    ck.eq(sorted(ports), PORT_NAMES, "%s: report ports" % what)
    for pn in PORT_NAMES:
        p = ports.get(pn, {})
        for k in ("device", "speed_mbps", "rx_packets", "tx_packets",
                  "rx_bytes", "tx_bytes", "drops", "seen"):
            ck.check(k in p, "%s: ports.%s has %r" % (what, pn, k))
        missing = [r for r in ALL_DROPS if r not in p.get("drops", {})]
        ck.check(not missing, "%s: ports.%s.drops lists every reason" %
                 (what, pn), "missing %s" % missing)
        missing = [r for r in SEEN_KEYS if r not in p.get("seen", {})]
        ck.check(not missing, "%s: ports.%s.seen lists every counter" %
                 (what, pn), "missing %s" % missing)
    return True


# ---- test cases: one input frame and what must become of it ----------------

TAG_FMT = b"<T%06d>"
TAG_RE = None  # compiled lazily


def tag_bytes(n):
    return TAG_FMT % n


def find_tag(frame):
    import re
    global TAG_RE
    if TAG_RE is None:
        TAG_RE = re.compile(rb"<T(\d{6})>")
    m = TAG_RE.search(bytes(frame))
    return int(m.group(1)) if m else None


class Case:
    """One input frame.

    kind 'fwd': must leave exactly once on one of `egress` (a tuple of
    ports; several = an ECMP group), with the L2 rewrite and TTL/hop limit
    decrement. kind 'drop': must not leave and must count `reason` on the
    ingress port. `seen` lists the info counters the frame bumps when it
    parses. `l3_off` is where IP starts (after any VLAN tags).
    """

    def __init__(self, tag, port, frame, desc, kind, reason=None,
                 egress=(), l3_off=14, roce=False, flow=None, seen=()):
        self.tag, self.port, self.frame, self.desc = tag, port, bytes(frame), desc
        self.kind, self.reason, self.egress = kind, reason, tuple(egress)
        self.l3_off, self.roce, self.flow = l3_off, roce, flow
        self.seen = set(seen)
        if kind == "drop":
            assert reason in ALL_DROPS, reason
        if reason in PARSER_DROPS:
            self.seen = set()    # info is counted for frames that parse

    def __repr__(self):
        return "#%d %s (in %s)" % (self.tag, self.desc, PORT_NAMES[self.port])

    def ip_version(self):
        return self.frame[self.l3_off] >> 4

    def expected_out(self, egress):
        """The input with the rewrite a router does; IPv4 checksum
        recomputed from scratch with scapy's checksum()."""
        b = bytearray(self.frame)
        b[0:6] = bytes.fromhex(NBR_MAC[egress].replace(":", ""))
        b[6:12] = bytes.fromhex(PORT_MAC[egress].replace(":", ""))
        o = self.l3_off
        if self.ip_version() == 4:
            ihl = (b[o] & 0xf) * 4
            b[o + 8] -= 1
            b[o + 10:o + 12] = b"\x00\x00"
            b[o + 10:o + 12] = struct.pack("!H", inet_checksum(bytes(b[o:o + ihl])))
        else:
            b[o + 7] -= 1
        return bytes(b)


class CaseSet:
    """Numbered cases per ingress port."""

    def __init__(self, first_tag=1):
        self.cases = []
        self.next_tag = first_tag

    def new_tag(self):
        t = self.next_tag
        self.next_tag += 1
        return t

    def add(self, port, frame, desc, kind, **kw):
        """`frame` is a function of the tag (bytes) -> frame bytes/packet."""
        tag = self.new_tag()
        fr = frame(tag_bytes(tag)) if callable(frame) else frame
        c = Case(tag, port, bytes(fr), desc, kind, **kw)
        self.cases.append(c)
        return c

    def inputs(self):
        per = [[] for _ in range(N_PORTS)]
        for c in self.cases:
            per[c.port].append(c.frame)
        return per

    def by_tag(self):
        return {c.tag: c for c in self.cases}

    def by_signature(self):
        """(l3_off, signature) -> tag for frames that carry no tag bytes."""
        return {(c.l3_off, l3_signature(c.frame, c.l3_off)): c.tag
                for c in self.cases if find_tag(c.frame) is None}


def l3_signature(frame, l3_off):
    """The frame from the IP header on, TTL / hop limit and IPv4 checksum
    zeroed: what a router must not change."""
    b = bytearray(frame[l3_off:])
    if len(b) >= 20 and b[0] >> 4 == 4:
        b[8] = 0
        b[10:12] = b"\0\0"
    elif len(b) >= 40 and b[0] >> 4 == 6:
        b[7] = 0
    return bytes(b)


def _first_diff(a, b):
    for i, (x, y) in enumerate(zip(a, b)):
        if x != y:
            return "first difference at byte %d: got %02x want %02x" % (i, x, y)
    return "lengths differ: got %d want %d" % (len(a), len(b))


TSHARK_OUT_FIELDS = ["frame.number", "frame.len", "eth.src", "eth.dst",
                     "ip.ttl", "ip.checksum.status", "ipv6.hlim",
                     "infiniband.invariant.crc"]


def verify_outputs(ck, run, cs, what):
    """Every forward case exactly once on an allowed port, rewritten right,
    judged with scapy/zlib and tshark; nothing else on any output.
    Returns the egress port chosen for each forwarded tag."""
    cases = cs.by_tag()
    sigs = cs.by_signature()
    seen_at = {}        # tag -> list of egress ports
    unexpected = []
    ck.section("%s: output frames" % what)
    for e in range(N_PORTS):
        frames = run.outputs[e]
        if not ck.check(frames is not None, "%s: out%d.pcap written" % (what, e)):
            continue
        rows = tshark_fields(run.path("out%d.pcap" % e), TSHARK_OUT_FIELDS)
        ck.eq(len(rows), len(frames),
              "%s: tshark and scapy read the same number of frames on %s" %
              (what, PORT_NAMES[e]))
        for i, fr in enumerate(frames):
            tag = find_tag(fr)
            if tag is None:
                for off in (14, 18, 22):
                    tag = sigs.get((off, l3_signature(fr, off)))
                    if tag is not None:
                        break
            c = cases.get(tag)
            if c is None:
                unexpected.append("%s frame %d (%d bytes, no known tag): %s" %
                                  (PORT_NAMES[e], i + 1, len(fr), fr[:48].hex()))
                continue
            seen_at.setdefault(tag, []).append(e)
            if c.kind != "fwd":
                unexpected.append("%r should be dropped (%s) but left on %s" %
                                  (c, c.reason, PORT_NAMES[e]))
                continue
            if len(seen_at[tag]) > 1:
                continue        # reported below as a duplicate
            ok = ck.check(e in c.egress, "%r leaves on an allowed port" % c,
                          "left on %s, allowed %s" %
                          (PORT_NAMES[e], [PORT_NAMES[x] for x in c.egress]))
            if not ok:
                continue
            want = c.expected_out(e)
            ck.check(fr == want,
                     "%r on %s: bytes = input with dst %s, src %s, %s-1%s" %
                     (c, PORT_NAMES[e], NBR_MAC[e], PORT_MAC[e],
                      "TTL" if c.ip_version() == 4 else "hop limit",
                      ", checksum recomputed" if c.ip_version() == 4 else ""),
                     _first_diff(fr, want))
            row = rows[i] if i < len(rows) else {}
            ck.eq((row.get("eth.dst"), row.get("eth.src")),
                  (NBR_MAC[e], PORT_MAC[e]), "%r: tshark eth.dst/src" % c)
            in_ttl = c.frame[c.l3_off + (8 if c.ip_version() == 4 else 7)]
            if c.ip_version() == 4:
                ck.eq(row.get("ip.ttl", "").split(",")[0], str(in_ttl - 1),
                      "%r: tshark ip.ttl = input - 1" % c)
                ck.eq(row.get("ip.checksum.status", "").split(",")[0], "1",
                      "%r: tshark ip.checksum.status good (1)" % c)
                o = c.l3_off
                ihl = (fr[o] & 0xf) * 4
                ck.check(ipv4_header_ok(fr[o:o + ihl]),
                         "%r: scapy checksum() over the header is valid" % c)
            else:
                ck.eq(row.get("ipv6.hlim", "").split(",")[0], str(in_ttl - 1),
                      "%r: tshark ipv6.hlim = input - 1" % c)
            if c.roce:
                icrc = fr[-4:]
                ck.eq(icrc.hex(), c.frame[-4:].hex(),
                      "%r: ICRC unchanged from the input" % c)
                ck.eq(icrc_zlib(fr, c.l3_off).hex(), icrc.hex(),
                      "%r: ICRC valid (zlib.crc32 per PROTOCOLS.md)" % c)
                if c.ip_version() == 4:
                    ck.eq((icrc_scapy(fr) or b"").hex(), icrc.hex(),
                          "%r: ICRC valid (scapy BTH.compute_icrc)" % c)
                tv = row.get("infiniband.invariant.crc", "")
                # tshark shows the wire bytes as a big-endian number.
                ck.check(tv != "" and int(tv, 16) ==
                         struct.unpack(">I", icrc)[0],
                         "%r: tshark dissects RoCEv2 and its invariant CRC "
                         "matches" % c, "tshark says %r, frame has %s" %
                         (tv, icrc.hex()))
    ck.section("%s: every frame accounted for" % what)
    for c in cs.cases:
        n = len(seen_at.get(c.tag, []))
        if c.kind == "fwd":
            ck.eq(n, 1, "%r forwarded exactly once" % c)
        elif n:
            pass  # already in unexpected
    ck.check(not unexpected, "%s: nothing else on the outputs" % what,
             "; ".join(unexpected[:20]) +
             (" (+%d more)" % (len(unexpected) - 20) if len(unexpected) > 20 else ""))
    # One flow, one path (ECMP must never split a flow).
    paths = {}
    for c in cs.cases:
        if c.kind == "fwd" and c.flow is not None and seen_at.get(c.tag):
            paths.setdefault(c.flow, set()).add(seen_at[c.tag][0])
    split = {f: sorted(p) for f, p in paths.items() if len(p) > 1}
    ck.check(not split, "%s: no flow is split over several egress ports (%d "
             "flows)" % (what, len(paths)), repr(split))
    return {t: v[0] for t, v in seen_at.items()}


def expected_counters(cs, egress_of):
    """Per-port counters the inputs imply; ECMP members as observed."""
    exp = []
    for p in range(N_PORTS):
        exp.append({"rx_packets": 0, "rx_bytes": 0, "tx_packets": 0,
                    "tx_bytes": 0, "drops": {r: 0 for r in ALL_DROPS},
                    "seen": {s: 0 for s in SEEN_KEYS}})
    for c in cs.cases:
        exp[c.port]["rx_packets"] += 1
        exp[c.port]["rx_bytes"] += len(c.frame)
        for s in c.seen:
            exp[c.port]["seen"][s] += 1
        if c.kind == "drop":
            exp[c.port]["drops"][c.reason] += 1
        elif c.tag in egress_of and egress_of[c.tag] in c.egress:
            e = egress_of[c.tag]
            exp[e]["tx_packets"] += 1
            exp[e]["tx_bytes"] += len(c.frame)
        else:
            # not forwarded although it should be (already failed above):
            # fill in the first allowed port so the count check fails too.
            e = c.egress[0]
            exp[e]["tx_packets"] += 1
            exp[e]["tx_bytes"] += len(c.frame)
    return exp


def verify_run(ck, run, cs, what):
    """A finished Run over the CaseSet cs: exit status 0 (else its command
    and stderr are printed), then verify_outputs() and verify_report().
    Returns verify_outputs()'s egress_of."""
    if not ck.eq(run.rc, 0, "%s: exit status" % what):
        print(run.describe())
    egress_of = verify_outputs(ck, run, cs, what)
    verify_report(ck, run, cs, egress_of, what)
    return egress_of


def verify_report(ck, run, cs, egress_of, what, end="input_consumed"):
    rep = run.report
    ck.section("%s: report" % what)
    if not check_report_shape(ck, rep, what):
        return
    ck.eq(rep.get("end"), end, "%s: report end" % what)
    ck.eq(rep.get("mempool_in_use_at_exit"), 0,
          "%s: mempool_in_use_at_exit" % what)
    ck.eq(rep.get("tool"), "dpdk-aifab", "%s: report tool" % what)
    exp = expected_counters(cs, egress_of)
    for p, pn in enumerate(PORT_NAMES):
        got = rep["ports"].get(pn, {})
        ck.eq(got.get("device"), "net_pcap%d" % p,
              "%s: %s bound to net_pcap%d" % (what, pn, p))
        for k in ("rx_packets", "rx_bytes", "tx_packets", "tx_bytes"):
            ck.eq(got.get(k), exp[p][k], "%s: %s.%s" % (what, pn, k))
        gd = got.get("drops", {})
        for r in ALL_DROPS:
            if exp[p]["drops"][r] or gd.get(r):
                ck.eq(gd.get(r), exp[p]["drops"][r],
                      "%s: %s.drops.%s" % (what, pn, r))
        others = {r: v for r, v in gd.items() if r not in ALL_DROPS and v}
        ck.check(not others, "%s: %s: no other drop reason counts" %
                 (what, pn), repr(others))
        zero = [r for r in ALL_DROPS if not exp[p]["drops"][r] and not gd.get(r)]
        ck.check(True, "%s: %s.drops: %d reasons 0 as expected" %
                 (what, pn, len(zero)))
        gs = got.get("seen", {})
        for s in SEEN_KEYS:
            ck.eq(gs.get(s), exp[p]["seen"][s], "%s: %s.seen.%s" % (what, pn, s))
    # The outputs and the report tell the same story.
    for p, pn in enumerate(PORT_NAMES):
        outs = run.outputs[p] or []
        ck.eq((len(outs), sum(len(f) for f in outs)),
              (rep["ports"].get(pn, {}).get("tx_packets"),
               rep["ports"].get(pn, {}).get("tx_bytes")),
              "%s: %s tx_packets/tx_bytes match out%d.pcap" % (what, pn, p))


# ---- virtual time: timed pcaps, --capture, fast RoCEv2 frames ---------------
#
# With `--set general.virtual_time=true` the switch's clock is the pcap RX
# timestamp (net_pcap reads microseconds), arrivals are spaced at the ingress
# port's line rate, and `--capture DIR` writes DIR/tx_<port>.pcap stamped in
# nanoseconds with the virtual departure time. The helpers below write inputs
# with chosen timestamps (struct only: fast enough for 10^6 frames) and read
# captures back without scapy.

VT_EPOCH_S = 1700000000          # inputs start here (seconds since 1970)
VT_EPOCH_NS = VT_EPOCH_S * 10**9
WIRE_OVERHEAD = 24               # FCS 4 + preamble/SFD 8 + IFG 12
QUANTUM_BITS = 512               # one PFC quantum (802.1Qbb)
PFC_DMAC = bytes.fromhex("0180c2000001")
PCAP_MAGIC_US = 0xa1b2c3d4
PCAP_MAGIC_NS = 0xa1b23c4d


def mac_bytes(mac):
    return bytes.fromhex(mac.replace(":", ""))


def ip4_bytes(a):
    return bytes(int(x) for x in a.split("."))


class PcapWriter:
    """Streaming classic pcap (microsecond stamps), linktype Ethernet."""

    def __init__(self, path):
        self.f = open(path, "wb")
        self.f.write(struct.pack("<IHHiIII", PCAP_MAGIC_US, 2, 4, 0, 0,
                                 65535, 1))
        self.n = 0
        self._pk = struct.Struct("<IIII").pack

    def add(self, frame, t_ns):
        """One frame stamped at t_ns (ns since 1970; the microsecond part
        is what net_pcap delivers: t_ns is truncated to whole us)."""
        us = t_ns // 1000
        self.f.write(self._pk(us // 1000000, us % 1000000, len(frame),
                              len(frame)))
        self.f.write(frame)
        self.n += 1

    def close(self):
        self.f.close()


def write_pcap_timed(path, frames_times):
    """frames_times: iterable of (frame bytes, t_ns)."""
    w = PcapWriter(path)
    for fr, t in frames_times:
        w.add(bytes(fr), t)
    w.close()


def read_pcap_ns(path):
    """[(t_ns, frame bytes)] of a classic pcap, us or ns magic, little- or
    big-endian (struct only; independent of libpcap and scapy)."""
    if not os.path.exists(path) or os.path.getsize(path) < 24:
        return None
    with open(path, "rb") as f:
        data = f.read()
    magic_le = struct.unpack_from("<I", data, 0)[0]
    if magic_le in (PCAP_MAGIC_US, PCAP_MAGIC_NS):
        e = "<"
        magic = magic_le
    else:
        e = ">"
        magic = struct.unpack_from(">I", data, 0)[0]
        if magic not in (PCAP_MAGIC_US, PCAP_MAGIC_NS):
            raise ValueError("%s: not a classic pcap" % path)
    mult = 1 if magic == PCAP_MAGIC_NS else 1000
    hdr = struct.Struct(e + "IIII")
    out, off, n = [], 24, len(data)
    while off + 16 <= n:
        sec, frac, incl, _orig = hdr.unpack_from(data, off)
        off += 16
        out.append((sec * 10**9 + frac * mult, data[off:off + incl]))
        off += incl
    return out


def iter_pcap_ns(path):
    """Like read_pcap_ns, one (t_ns, frame) at a time (large captures)."""
    with open(path, "rb") as f:
        data = f.read()
    if len(data) < 24:
        return
    magic = struct.unpack_from("<I", data, 0)[0]
    e = "<" if magic in (PCAP_MAGIC_US, PCAP_MAGIC_NS) else ">"
    magic = struct.unpack_from(e + "I", data, 0)[0]
    if magic not in (PCAP_MAGIC_US, PCAP_MAGIC_NS):
        raise ValueError("%s: not a classic pcap" % path)
    mult = 1 if magic == PCAP_MAGIC_NS else 1000
    unpack = struct.Struct(e + "IIII").unpack_from
    off, n = 24, len(data)
    while off + 16 <= n:
        sec, frac, incl, _orig = unpack(data, off)
        off += 16
        yield sec * 10**9 + frac * mult, data[off:off + incl]
        off += incl


def pcap_is_nanosecond(path):
    with open(path, "rb") as f:
        m = f.read(4)
    return m in (struct.pack("<I", PCAP_MAGIC_NS),
                 struct.pack(">I", PCAP_MAGIC_NS))


def wire_ns(frame_len, gbps):
    """Time a frame of frame_len bytes (no FCS) takes on the wire."""
    return (frame_len + WIRE_OVERHEAD) * 8 / gbps


def quanta_ns(quanta, gbps):
    """PFC pause time: quanta x 512 bit times at gbps."""
    return quanta * QUANTUM_BITS / gbps


def ipv4_header(src, dst, total_len, tos, ttl=64, ident=0, proto=17):
    """20-byte IPv4 header, checksum by scapy's checksum()."""
    h = bytearray(struct.pack("!BBHHHBBH4s4s", 0x45, tos, total_len, ident,
                              0, ttl, proto, 0, ip4_bytes(src),
                              ip4_bytes(dst)))
    h[10:12] = struct.pack("!H", inet_checksum(bytes(h)))
    return bytes(h)


class RoceFlow:
    """One IPv4 RoCEv2 flow (one QP) entering the switch on `port`, frames
    built with struct and zlib only: Ethernet / IPv4 / UDP (checksum 0) /
    BTH / payload / ICRC. The headers are fixed per flow; the PSN varies per
    frame, and the ICRC (which covers it) is computed per frame from a
    CRC-32 prefix over the invariant part (PROTOCOLS.md's masking: TOS, TTL,
    IP checksum, UDP checksum and BTH byte 4 set to ones)."""

    def __init__(self, port, dst, dqpn, sport, src=None, paylen=256,
                 opcode=0x07, dscp=26, ecn=2, ttl=64, fill=0x5a,
                 dst_mac=None, src_mac=None):
        assert paylen % 4 == 0
        self.port, self.dqpn, self.sport = port, dqpn, sport
        self.src = src or NBR_IP4[port]
        self.dst = dst
        self.tos = dscp << 2 | ecn
        l2 = (mac_bytes(dst_mac or PORT_MAC[port]) +
              mac_bytes(src_mac or NBR_MAC[port]) + b"\x08\x00")
        ip_len = 20 + 8 + 12 + paylen + 4
        ip = ipv4_header(self.src, dst, ip_len, self.tos, ttl=ttl)
        udp = struct.pack("!HHHH", sport, ROCE_PORT, ip_len - 20, 0)
        self.bth9 = struct.pack("!BBHB", opcode, 0, 0xffff, 0) + \
            struct.pack("!I", dqpn & 0xffffff)[1:] + b"\x00"
        self.ip, self.udp, self.ttl = ip, udp, ttl
        self.head = l2 + ip + udp + self.bth9      # then PSN (3 bytes)
        self._out = {}
        self.payload = bytes([fill]) * paylen
        mip = bytearray(ip)
        mip[1] = 0xff
        mip[8] = 0xff
        mip[10:12] = b"\xff\xff"
        mudp = udp[:6] + b"\xff\xff"
        mbth = bytearray(self.bth9)
        mbth[4] = 0xff
        self.crc0 = zlib.crc32(b"\xff" * 8 + bytes(mip) + mudp + bytes(mbth))
        self.len = len(self.head) + 3 + paylen + 4
        self.l3_off = 14

    def frame(self, psn):
        tail = struct.pack("!I", psn & 0xffffff)[1:] + self.payload
        return self.head + tail + struct.pack(
            "<I", zlib.crc32(tail, self.crc0) & 0xffffffff)

    def tail(self, psn):
        """The frame from the PSN on (PSN, payload, ICRC)."""
        return self.frame(psn)[len(self.head):]

    def out_head(self, egress, ce=False):
        """Ethernet..BTH byte 8 as a router must send it out of `egress`:
        MACs rewritten, TTL - 1, TOS | CE when `ce`, the IPv4 checksum
        recomputed from scratch (scapy's checksum())."""
        k = (egress, ce)
        if k not in self._out:
            ip = bytearray(self.ip)
            ip[8] = self.ttl - 1
            if ce:
                ip[1] |= 3
            ip[10:12] = b"\0\0"
            ip[10:12] = struct.pack("!H", inet_checksum(bytes(ip)))
            self._out[k] = (mac_bytes(NBR_MAC[egress]) +
                            mac_bytes(PORT_MAC[egress]) + b"\x08\x00" +
                            bytes(ip) + self.udp + self.bth9)
        return self._out[k]

    @staticmethod
    def key(frame):
        """(dqpn, psn) of a frame built here (offsets fixed: 14 + 20 + 8)."""
        return (int.from_bytes(frame[47:50], "big"),
                int.from_bytes(frame[51:54], "big"))


def pfc_frame(src_mac, enable, quanta):
    """802.1Qbb PFC frame per PROTOCOLS.md (60 bytes, no FCS): quanta is a
    list of 8 timers, priority 0 first."""
    body = struct.pack("!HH8H", 0x0101, enable, *quanta)
    fr = PFC_DMAC + mac_bytes(src_mac) + b"\x88\x08" + body
    return fr + bytes(60 - len(fr))


def vt_args(capture_dir, *sets):
    """App options for a virtual-time run with a capture."""
    a = ["--set", "general.virtual_time=true", "--capture", capture_dir]
    for s in sets:
        a += ["--set", s]
    return a


class VRun(Run):
    """A Run whose inputs are pcap files written by the caller (with their
    own timestamps) in self.dir/in<i>.pcap, in virtual time with a capture
    in self.dir/cap; tx_pcap goes to /dev/null (its stamps are wall clock).
    `inputs` maps port -> list of (frame, t_ns); missing ports get an empty
    pcap. `writer(run)` may write the files itself instead."""

    def __init__(self, exe, inputs=None, sets=(), tag="vt", writer=None,
                 extra_args=(), load=True, **kw):
        super().__init__(exe, [[] for _ in range(N_PORTS)], tag=tag,
                         tx_null=True, **kw)
        self.timed = inputs or {}
        self.writer = writer
        self.cap_dir = self.path("cap")
        self.app_args = vt_args(self.cap_dir, *sets) + list(extra_args)
        self.captures = None
        self.load = load        # False: read captures with iter_pcap_ns

    def prepare(self):
        if self.writer is not None:
            self.writer(self)
        for i in range(N_PORTS):
            p = self.path("in%d.pcap" % i)
            if not os.path.exists(p):
                write_pcap_timed(p, self.timed.get(i, []))

    def cap_path(self, port):
        return os.path.join(self.cap_dir, "tx_%s.pcap" % PORT_NAMES[port])

    def _collect(self):
        _remove_runtime_dir(self.prefix)
        self.report = read_report(self.path("report.json"))
        self.outputs = None
        if self.load:
            self.captures = [read_pcap_ns(self.cap_path(i))
                             for i in range(N_PORTS)]

    def tc(self, port, tc):
        """report ports.<p>.tc.<n> as a dict ({} if missing)."""
        try:
            return self.report["ports"][PORT_NAMES[port]]["tc"][str(tc)]
        except (KeyError, TypeError):
            return {}

    def port_rep(self, port):
        try:
            return self.report["ports"][PORT_NAMES[port]]
        except (KeyError, TypeError):
            return {}


def run_ok(ck, run, what, timeout=RUN_TIMEOUT_S):
    """Run, check exit 0 and a readable report; returns True if usable."""
    import time
    t0 = time.monotonic()
    run.run(timeout=timeout)
    dt = time.monotonic() - t0
    print("%s: run took %.1f s" % (what, dt))
    ok = ck.eq(run.rc, 0, "%s: exit status" % what)
    if not ok:
        print(run.describe())
    ok = ck.check(isinstance(run.report, dict) and "ports" in run.report,
                  "%s: report written" % what) and ok
    if ok:
        ck.eq(run.report.get("mempool_in_use_at_exit"), 0,
              "%s: mempool_in_use_at_exit" % what)
        ck.eq(run.report.get("end"), "input_consumed", "%s: report end" % what)
    return ok


class RoceMatch:
    """Output frames of RoceFlow inputs, matched by (dest QP, PSN) and judged
    byte for byte: each must be its input with the router rewrite for the
    port it left on, the ECN field either unchanged or, only for an ECT(0)/
    ECT(1) input, set to CE (checksum recomputed either way), PSN, payload
    and ICRC unchanged (the ICRC masks TOS/TTL/checksum, so it stays valid).
    """

    def __init__(self, flows):
        self.flows = {f.dqpn: f for f in flows}
        assert len(self.flows) == len(flows), "dest QPs must be unique"
        self.count = {q: 0 for q in self.flows}      # frames out
        self.marked = {q: 0 for q in self.flows}     # ECT in -> CE out
        self.ce_out = {q: 0 for q in self.flows}     # CE out (any input)
        self.seen = {q: set() for q in self.flows}
        self.port_of = {q: set() for q in self.flows}
        self.problems = []
        self.dups = 0

    def add_port(self, egress, frames, n_of=None):
        """frames: raw bytes; n_of: dqpn -> frames sent of that flow."""
        for i, fr in enumerate(frames):
            if len(fr) < 54 or fr[12:14] != b"\x08\x00":
                self.problems.append("%s frame %d is not IPv4 RoCE: %s" %
                                     (PORT_NAMES[egress], i, fr[:40].hex()))
                continue
            q, psn = RoceFlow.key(fr)
            f = self.flows.get(q)
            if f is None or (n_of is not None and psn >= n_of[q]):
                self.problems.append("%s frame %d: unknown (QP %#x, PSN %d)"
                                     % (PORT_NAMES[egress], i, q, psn))
                continue
            if psn in self.seen[q]:
                self.dups += 1
                self.problems.append("%s frame %d: QP %#x PSN %d seen twice"
                                     % (PORT_NAMES[egress], i, q, psn))
                continue
            self.seen[q].add(psn)
            self.count[q] += 1
            self.port_of[q].add(egress)
            hl = len(f.head)
            head, tail = fr[:hl], fr[hl:]
            in_ecn = f.tos & 3
            if head == f.out_head(egress, False):
                if in_ecn == 3:
                    self.ce_out[q] += 1
            elif in_ecn in (1, 2) and head == f.out_head(egress, True):
                self.marked[q] += 1
                self.ce_out[q] += 1
            else:
                want = f.out_head(egress, False)
                self.problems.append(
                    "%s frame %d (QP %#x PSN %d, input ECN %d): headers "
                    "differ from the input's routed form: %s" %
                    (PORT_NAMES[egress], i, q, psn, in_ecn,
                     _first_diff(head, want)))
            if tail != f.tail(psn):
                self.problems.append(
                    "%s frame %d (QP %#x PSN %d): PSN/payload/ICRC changed" %
                    (PORT_NAMES[egress], i, q, psn))

    def report_problems(self, ck, what, limit=10):
        ck.check(not self.problems, "%s: every output frame is a routed "
                 "input (byte compare; ECN only ECT -> CE)" % what,
                 "%d problems: %s" % (len(self.problems),
                                      "; ".join(self.problems[:limit])))

    def missing(self, q, n):
        return n - len(self.seen[q])



def roce_match(ck, what, flows, egress, captured, n_of=None):
    """A RoceMatch of `flows` fed the (t, frame) pairs `captured` out of
    `egress` (n_of as add_port's), its problems reported on ck."""
    m = RoceMatch(flows)
    m.add_port(egress, [fr for _t, fr in captured], n_of)
    m.report_problems(ck, what)
    return m

# ---- PFC hysteresis (XOFF ... XON) from captures ---------------------------

def pfc_episodes(pfc_frames, prio=3):
    """[(t of the XOFF that started a pause, t of the XON that ended it)]
    from (t_ns, frame) PFC frames one port sent (opcode 0x0101). Refresh
    XOFFs inside an episode are skipped; an episode still open at the end
    of the capture is left out."""
    out, start = [], None
    for t, fr in pfc_frames:
        if fr[12:14] != b"\x88\x08" or fr[14:16] != b"\x01\x01":
            continue
        enable = int.from_bytes(fr[16:18], "big")
        if not enable & (1 << prio):
            continue
        q = int.from_bytes(fr[18 + 2 * prio:20 + 2 * prio], "big")
        if q and start is None:
            start = t
        elif not q and start is not None:
            out.append((start, t))
            start = None
    return out


CELL = 256  # the switch's buffer unit: a frame takes ceil(len / 256) cells


def cell_bytes(length):
    """Bytes of buffer a frame of @length takes (whole 256-byte cells)."""
    return -(-length // CELL) * CELL


class Departures:
    """Data frames that left the switch (all ports), time-ordered, with a
    running byte count: bytes(a, b) = bytes of frames stamped a <= t <= b,
    cells(a, b) = the buffer they took (whole cells, in bytes)."""

    def __init__(self):
        from array import array
        self.t = array("q")
        self.cum = array("q", [0])
        self.ccum = array("q", [0])

    def add(self, t, length):
        self.t.append(t)
        self.cum.append(self.cum[-1] + length)
        self.ccum.append(self.ccum[-1] + cell_bytes(length))

    def extend(self, frames):
        for t, fr in frames:
            if fr[12:14] != b"\x88\x08":
                self.add(t, len(fr))

    def finish(self):
        """Sort by time (merging several ports' captures)."""
        from array import array
        pairs = sorted(zip(self.t, (self.cum[i + 1] - self.cum[i]
                                    for i in range(len(self.t)))))
        self.t, self.cum = array("q"), array("q", [0])
        self.ccum = array("q", [0])
        for t, n in pairs:
            self.add(t, n)
        return self

    def bytes(self, a, b):
        import bisect
        i = bisect.bisect_left(self.t, a)
        j = bisect.bisect_right(self.t, b)
        return self.cum[j] - self.cum[i]

    def cells(self, a, b):
        import bisect
        i = bisect.bisect_left(self.t, a)
        j = bisect.bisect_right(self.t, b)
        return self.ccum[j] - self.ccum[i]


def check_xon_hysteresis(ck, what, port, episodes, deps, offset=20000,
                         alpha=1.0):
    """docs/profiles.md: with a dynamic XOFF (alpha x free buffer), XON is
    sent when the port's ingress use falls to XOFF - pfc_xon_offset_bytes.
    XOFF at use >= alpha x free, XON at use' <= alpha x free' - offset, and
    use and free only move by bytes entering (E) and leaving (D) the buffer:
    use - use' <= D_port - E_port (PFC counts frame bytes), free' - free =
    C(D) - C(E) (the buffer counts whole 256-byte cells, C), so between the
    XOFF that starts a pause and the XON that ends it (its stamp included:
    the departure that brings the XON leaves at that instant) the frames
    leaving the switch must have D + alpha C(D) >= offset (no buffer-level
    headroom in use; D counts every port, an upper bound of D_port)."""
    bad = [(a, b, deps.bytes(a, b)) for a, b in episodes
           if deps.bytes(a, b) + alpha * deps.cells(a, b) < offset]
    ck.check(not bad, "%s: %s: each of %d XOFF..XON pauses spans D + %g C(D)"
             " >= %d bytes leaving the switch (XON offset %d below a dynamic"
             " XOFF)" % (what, PORT_NAMES[port], len(episodes), alpha,
                         offset, offset),
             "%d pauses too short, e.g. (XOFF ns, XON ns, bytes out) %s" %
             (len(bad), [(a - VT_EPOCH_NS, b - VT_EPOCH_NS, n)
                         for a, b, n in bad[:4]]))


def chromium_dom(exe, prof, page, timeout=120):
    """Chromium's own DOM of @p page after its scripts ran (headless
    --dump-dom, profile dir @p prof), or None (no SVG: not rendered)."""
    cmd = [exe, "--headless", "--no-sandbox", "--disable-gpu",
           "--disable-quic", "--no-first-run",
           "--disable-background-networking", "--disable-component-update",
           "--disable-sync", "--user-data-dir=" + prof, "--dump-dom",
           "file://" + page]
    try:
        r = subprocess.run(cmd, capture_output=True, text=True,
                           timeout=timeout)
    except subprocess.TimeoutExpired:
        return None
    return r.stdout if "<svg" in r.stdout else None
