#!/usr/bin/python3
# SPDX-License-Identifier: BSD-3-Clause
"""The live console (issue 7): a table redrawn every interval on a
terminal, one line per interval when stdout is not a terminal, nothing with
--quiet.

The demo fabric (8 ranks in memory, one leaf) runs for 2.5 s with an
interval of 0.5 s, three times: on a pseudo-terminal (Python's pty), into
a pipe, and into a pipe with --quiet. Judged from the text:

* terminal: the screen is cleared and redrawn (ESC[H ESC[2J) at least
  twice; each screen has the switch's port table (rx/tx Mpps and Gb/s,
  drops, ECN marks, PFC tx/rx, paused ms) for the leaf's ports s0..s7 only,
  the generator's table for the ranks' ports g0..g7 only (rx/tx, CE, CNPs,
  bad ICRC, PFC, paused ms), lcore rows, and the generator line; the last
  screen's per-port rates are the leaf's and the ranks': s<r> tx Mpps
  equals g<r> rx Mpps within rounding (the cable carries what one side
  sends), and the generator line's busbw is within the report's range;
* pipe: no escape sequence, one "t=... rx ... Mpps" line per interval,
  with the generator's iterations, busbw and bad ICRC frames (0 here);
* --quiet: none of those lines; the final report still printed.

Every run must also exit 0 with mempool_in_use_at_exit = 0.

Usage: test_console.py PATH/TO/dpdk-aifab
"""
import json
import os
import pty
import re
import select
import subprocess
import tempfile
import time

from lib_aifab import Checks, exe_path, file_prefix, source_root

RANKS = 8
CLEAR = "\x1b[H\x1b[2J"
HEADER = ["rx Mpps", "rx Gb/s", "tx Mpps", "tx Gb/s", "drops", "ECN marks",
          "PFC tx", "PFC rx", "paused ms"]
GEN_HEADER = ["rx Mpps", "rx Gb/s", "tx Mpps", "tx Gb/s", "CE rx", "CNP tx",
              "bad ICRC", "PFC rx", "paused ms"]


# The demo runs on the virtual clock at 400G with 64 MiB; this test needs
# seconds of wall-clock traffic: the TSC clock and the demo's former
# 4 MiB message.
REALTIME = ["--set", "general.clock=realtime",
            "--set", "generator.size_bytes=4194304"]


def cmd(exe, report, extra=()):
    return [exe, "--no-huge", "-m", "1024", "--no-pci", "--file-prefix",
            file_prefix("console"), "--",
            "--profile", os.path.join(source_root(), "profiles", "demo.ini"),
            "--set", "generator.iterations=1000000", "--duration", "2.5",
            "--stats-interval", "0.5", "--report-json", report] + REALTIME + \
        list(extra)


def run_pty(argv, timeout=60):
    """Run @argv with stdout and stderr on a pseudo-terminal; (rc, text)."""
    master, slave = pty.openpty()
    p = subprocess.Popen(argv, stdin=subprocess.DEVNULL, stdout=slave,
                         stderr=slave, close_fds=True)
    os.close(slave)
    out, end = b"", time.time() + timeout
    while time.time() < end:
        r, _, _ = select.select([master], [], [], 0.5)
        if r:
            try:
                chunk = os.read(master, 65536)
            except OSError:  # EIO: the child closed the terminal
                break
            if not chunk:
                break
            out += chunk
        elif p.poll() is not None:
            break
    os.close(master)
    try:
        rc = p.wait(timeout=10)
    except subprocess.TimeoutExpired:
        p.kill()
        rc = p.wait()
    return rc, out.decode(errors="replace").replace("\r\n", "\n")


def table(lines, header):
    """{port: [floats]} of the table whose header row is @header."""
    rows, on = {}, False
    for ln in lines:
        cols = re.split(r"\s{2,}", ln.strip())
        if cols[:1] == ["port"]:
            on = cols[1:] == header
            continue
        if not on:
            continue
        if not ln.strip() or cols[0] == "lcore":
            break
        try:
            rows[cols[0]] = [float(x) for x in ln.split()[1:]]
        except ValueError:
            break
    return rows


def report_ok(ck, path, what):
    try:
        rep = json.load(open(path))
    except (OSError, ValueError) as e:
        ck.check(False, "%s: report written" % what, str(e))
        return None
    ck.eq(rep.get("mempool_in_use_at_exit"), 0,
          "%s: mempool_in_use_at_exit" % what)
    return rep


def main():
    exe = exe_path()
    ck = Checks("console")
    tmp = tempfile.mkdtemp(prefix="aifab-it-console-")
    leaf = ["s%d" % r for r in range(RANKS)]
    nics = ["g%d" % r for r in range(RANKS)]

    ck.section("on a terminal: a table redrawn every interval")
    rpt = os.path.join(tmp, "tty.json")
    rc, out = run_pty(cmd(exe, rpt))
    ck.eq(rc, 0, "exit status")
    screens = out.split(CLEAR)[1:]
    ck.check(len(screens) >= 2, "the screen is cleared and redrawn at "
             "least twice (%d screens)" % len(screens))
    report_ok(ck, rpt, "terminal")
    last = screens[-1].split("\n") if screens else []
    ck.check(any(re.match(r"dpdk-aifab  t=\s*[\d.]+ s  \(demo; Ctrl-C "
                          r"stops\)", ln) for ln in last),
             "title line with the time and the profile")
    sw, gen = table(last, HEADER), table(last, GEN_HEADER)
    ck.eq(sorted(sw), sorted(leaf), "switch table: the leaf's ports, "
          "only them")
    ck.eq(sorted(gen), sorted(nics), "generator table: the ranks' ports, "
          "only them")
    ck.check(any(ln.startswith("lcore") for ln in last), "lcore rows")
    gl = [ln for ln in last if ln.startswith("generator: allreduce")]
    ck.check(len(gl) == 1, "the generator line", "\n".join(last)[-600:])
    if sw and gen and len(sw) == RANKS and len(gen) == RANKS:
        # one interval's rates: what g<r> receives is what s<r> sent on
        # the same cable; frames in flight at the interval's edges differ
        for r in range(RANKS):
            s_tx, g_rx = sw["s%d" % r][2], gen["g%d" % r][0]
            ck.check(s_tx > 0 and abs(s_tx - g_rx) <= 0.1 * s_tx + 0.005,
                     "cable s%d -> g%d: leaf tx %.3f Mpps ~ NIC rx %.3f "
                     "Mpps" % (r, r, s_tx, g_rx))
    if gl:
        m = re.search(r"iterations (\d+), .* busbw ([\d.]+) GB/s", gl[0])
        ck.check(m is not None and int(m.group(1)) > 0 and
                 float(m.group(2)) > 0,
                 "generator line: iterations and busbw > 0", gl[0])

    ck.section("into a pipe: one line per interval")
    rpt = os.path.join(tmp, "pipe.json")
    p = subprocess.run(cmd(exe, rpt), stdout=subprocess.PIPE,
                       stderr=subprocess.PIPE, text=True, timeout=60)
    ck.eq(p.returncode, 0, "exit status")
    report_ok(ck, rpt, "pipe")
    ck.check("\x1b[" not in p.stdout, "no escape sequences")
    lines = [ln for ln in p.stdout.split("\n")
             if re.match(r"t=\s*[\d.]+s\s+rx\s+[\d.]+ Mpps", ln)]
    ck.check(3 <= len(lines) <= 7, "2.5 s at 0.5 s: 3..7 interval lines "
             "(%d)" % len(lines), p.stdout[:500])
    ck.check(all("| gen it" in ln for ln in lines),
             "each line carries the generator's iterations and busbw")
    ck.check(all(re.search(r"  bad icrc 0$", ln) for ln in lines),
             "each line carries the frames dropped for a bad ICRC (0)",
             "\n".join(lines[:2]))

    ck.section("--quiet: no live console")
    rpt = os.path.join(tmp, "quiet.json")
    p = subprocess.run(cmd(exe, rpt, ["--quiet"]), stdout=subprocess.PIPE,
                       stderr=subprocess.PIPE, text=True, timeout=60)
    ck.eq(p.returncode, 0, "exit status")
    report_ok(ck, rpt, "quiet")
    ck.check(not re.search(r"^t=\s*[\d.]+s", p.stdout, re.M) and
             CLEAR not in p.stdout, "no interval lines, no table")
    ck.check("run ended: duration" in p.stdout,
             "the final summary is still printed")
    ck.finish()


if __name__ == "__main__":
    main()
