#!/usr/bin/python3
# SPDX-License-Identifier: BSD-3-Clause
"""dpdk-aifab's command line: --help, README, --version, errors, signals,
--duration.

Usage: test_app_cli.py PATH/TO/dpdk-aifab

* --help exits 0 and lists every option; README.md documents each option
  --help lists (this fails while README lacks them: intended);
* --version prints the project version from meson.build;
* a bad profile value, a bad --set value, an unknown --set key, a bad
  --duration and an unknown option each exit 1 with exactly one stderr line
  naming what is wrong (file / section / key / value for profile errors);
  so does an output file or --capture directory that cannot be made
  (missing directory, a directory for a file, a file for a directory),
  before the run rather than at its end;
* --clock KIND sets [general] clock as --set general.clock=KIND would
  (later wins), the banner and the report's clock field say which ran,
  and a clock it does not know, or a value longer than the option's
  buffer, is a one-line error (the allowed clocks; the limit);
* --list-profiles names every profile of the source tree's profiles/ with
  its first comment line; --profile NAME (scenarios/clean, with or without
  .ini, from a directory outside the tree) runs the source tree's file; a
  file of that name in the working directory wins; an unknown name exits 1
  with one line naming where it looked;
* SIGINT, SIGTERM and SIGHUP during an endless input (net_pcap
  infinite_rx=1) stop the run cleanly: exit 0, report written with end
  "signal", every received frame accounted for, no mbuf left in use;
  started with SIGHUP ignored (nohup), SIGHUP leaves it running;
* a signal while EAL init is blocked (port 0's rx_pcap a FIFO nobody has
  opened yet: net_pcap's probe waits in open()) is kept, not taken the
  default way: once the FIFO is written, the run ends at its first step
  with exit 0, report end "signal" and no mbuf in use; a second signal
  while EAL init is still blocked ends the process the default way (that
  init may never return);
* its standard output's reader gone (`| head`: EPIPE) during an endless
  input, the run stops as at a signal (exit 0, end "signal", no mbuf in
  use, one stderr line saying why), not killed by SIGPIPE without a
  report;
* --duration 1 on the same input ends with end "duration" after ~1 s;
* a report given a FIFO is written into it (the FIFO stays a FIFO: a rename
  over it would replace the node, as it would /dev/stdout), given
  /proc/self/fd/1 with stdout to a file it lands between the console's
  lines in order, and given a symbolic link to a file, the file is
  replaced and the link kept;
* outputs are judged before the run by the rule that writes them: in a
  read-only directory (a tmpfs the test mounts and remounts read-only) a
  FIFO and a link to a writable file take the report, a new file is
  refused at once, and so is /proc/self/fd/0 open only for reading;
* outputs on a full disk (a 64 KiB tmpfs the test mounts; skipped where it
  cannot): --capture, --stats-jsonl, --report-html and --prometheus each
  say on stderr which file could not be written and why (No space left on
  device), the exit status is 1, and the report written elsewhere is whole.
"""
import glob
import json
import os
import re
import signal
import subprocess
import tempfile
import time

from lib_aifab import (N_PORTS, NBR_IP4, PORT_NAMES, Checks, Run,
                       check_report_shape, exe_path, leaf_profile,
                       _remove_runtime_dir, file_prefix, read_report,
                       run_simple, source_root, wait_app_ready,
                       write_pcap)
from test_pcap_leaf import udp4

# the demo at 1 MiB, quiet: a short run that writes a whole report
SMALL_DEMO = ["--quiet", "--set", "generator.size_bytes=1048576"]

# What the options must include at least (the brief of the app).
REQUIRED_OPTS = ["--profile", "--set", "--duration", "--report-json",
                 "--quiet", "--profile-doc", "--help", "--version"]


def help_options(text):
    """Options listed in --help's 'Options:' block (lines '  --name ...')."""
    opts, in_block = [], False
    for line in text.splitlines():
        if re.match(r"^Options:\s*$", line):
            in_block = True
            continue
        if in_block:
            if line.strip() == "":
                if opts:
                    break
                continue
            m = re.match(r"^\s{1,8}(--[a-z][a-z0-9-]*)", line)
            if m:
                opts.append(m.group(1))
    return opts


def check_help(ck, exe):
    ck.section("--help")
    rc, out, err = run_simple(exe, ["--help"])
    ck.eq(rc, 0, "--help exits 0")
    ck.check("Usage" in out, "--help prints a usage line", out[:200])
    opts = help_options(out)
    ck.check(len(opts) > 0, "--help has an 'Options:' block listing --options",
             out[:400])
    print("--help lists: %s" % " ".join(opts))
    for o in REQUIRED_OPTS:
        ck.check(o in opts, "--help lists %s" % o)
    readme = os.path.join(source_root(), "README.md")
    if not ck.check(os.path.exists(readme), "README.md exists", readme):
        return
    with open(readme) as f:
        text = f.read()
    for o in opts:
        ck.check(re.search(re.escape(o) + r"(?![a-z0-9-])", text) is not None,
                 "README.md documents %s" % o)


def check_version(ck, exe):
    ck.section("--version")
    with open(os.path.join(source_root(), "meson.build")) as f:
        m = re.search(r"version\s*:\s*'([^']+)'", f.read())
    want = m.group(1) if m else None
    rc, out, err = run_simple(exe, ["--version"])
    ck.eq(rc, 0, "--version exits 0")
    ck.eq(out.strip(), "dpdk-aifab %s" % want,
          "--version prints 'dpdk-aifab <meson project version>'")


def one_line_error(ck, exe, args, what, must_contain):
    rc, out, err = run_simple(exe, args)
    lines = [l for l in err.splitlines() if l.strip()]
    ck.eq(rc, 1, "%s: exit status 1" % what)
    ck.eq(len(lines), 1, "%s: exactly one stderr line" % what)
    line = lines[0] if lines else ""
    print("    stderr: %s" % line)
    for s in must_contain:
        ck.check(s in line, "%s: error names %r" % (what, s), repr(line))
    return line


def check_errors(ck, exe, tmp):
    ck.section("errors: exit 1, one line on stderr")
    with open(leaf_profile()) as f:
        text = f.read()
    ck.check("[port.p1]" in text, "pcap-leaf.ini has [port.p1]")
    bad = text.replace("[port.p1]\n", "[port.p1]\nmtu = 99999\n", 1)
    path = os.path.join(tmp, "bad-mtu.ini")
    with open(path, "w") as f:
        f.write(bad)
    one_line_error(ck, exe, ["--profile", path], "profile [port.p1] mtu = 99999",
                   [path, "[port.p1]", "mtu", "99999", "allowed"])
    bad = text.replace("[port.p2]\n", "[port.p2]\nmac = 02:zz:00:00:00:02\n", 1)
    bad = bad.replace("mac = 02:aa:00:00:00:02\n", "", 1)
    path2 = os.path.join(tmp, "bad-mac.ini")
    with open(path2, "w") as f:
        f.write(bad)
    one_line_error(ck, exe, ["--profile", path2],
                   "profile [port.p2] mac = 02:zz:00:00:00:02",
                   [path2, "[port.p2]", "mac", "02:zz:00:00:00:02"])
    one_line_error(ck, exe, ["--profile", leaf_profile(), "--set",
                             "port.p0.speed_gbps=fast"],
                   "--set port.p0.speed_gbps=fast",
                   ["--set", "port.p0", "speed_gbps", "fast", "allowed"])
    one_line_error(ck, exe, ["--profile", leaf_profile(), "--set",
                             "port.p1.mtu=67"],
                   "--set port.p1.mtu=67 (below the minimum)",
                   ["--set", "port.p1", "mtu", "67"])
    one_line_error(ck, exe, ["--profile", leaf_profile(), "--set",
                             "port.p0.colour=red"],
                   "--set port.p0.colour=red (unknown key)",
                   ["port.p0", "colour"])
    line = one_line_error(ck, exe,
                          ["--profile", os.path.join(tmp, "missing.ini")],
                          "--profile of a missing file",
                          [os.path.join(tmp, "missing.ini"), "cannot open"])
    # No section or key is involved: no placeholder ones either.
    ck.check("[-]" not in line and "- = ''" not in line,
             "--profile of a missing file: no placeholder section/key "
             "(\"[-] - = ''\") in the message", repr(line))
    one_line_error(ck, exe, ["--duration", "-3"], "--duration -3",
                   ["--duration", "-3"])
    one_line_error(ck, exe, ["--no-such-option"], "unknown option",
                   ["--no-such-option"])
    one_line_error(ck, exe, ["--clock", "sundial"], "--clock sundial",
                   ["clock", "sundial", "allowed", "realtime", "virtual"])
    # an option that stands for a --set keeps the whole value or says no
    long = "virtual" + "x" * 80
    one_line_error(ck, exe, ["--clock", long], "--clock of 87 characters",
                   ["general.clock", long, "longer than"])
    # a directory is not an empty profile
    one_line_error(ck, exe, ["--profile", tmp], "--profile of a directory",
                   [tmp, "Is a directory"])
    # an output's place is judged before the run, not at its end
    nodir = os.path.join(tmp, "no-such-dir")
    afile = os.path.join(tmp, "a-file")
    with open(afile, "w") as f:
        f.write("x")
    for opt, path, why in (
            ("--report-json", os.path.join(nodir, "r.json"),
             "No such file or directory"),
            ("--report-html", tmp, "Is a directory"),
            ("--stats-jsonl", os.path.join(afile, "s.jsonl"),
             "Not a directory"),
            ("--prometheus", os.path.join(nodir, "p.prom"),
             "No such file or directory"),
            ("--capture", afile, "Not a directory"),
            ("--capture", os.path.join(nodir, "cap"),
             "No such file or directory")):
        one_line_error(ck, exe, [opt, path], "%s %s (before the run)" %
                       (opt, os.path.basename(path)), [opt, path, why])


def check_clock(ck, exe, tmp):
    """--clock KIND is --set general.clock=KIND: the banner and the report
    say which clock ran, both ways, on the demo (virtual by default)."""
    ck.section("--clock")
    small = ["--set", "generator.size_bytes=1048576",
             "--set", "generator.iterations=1", "--set", "generator.warmup=0"]
    for args, want in ((["--clock", "realtime"], "realtime"),
                       (["--set", "general.clock=realtime"], "realtime"),
                       (["--clock", "realtime", "--clock", "virtual"],
                        "virtual"),
                       ([], "virtual")):
        rep = os.path.join(tmp, "clock.json")
        rc, out, err = run_simple(exe, args + small +
                                  ["--quiet", "--report-json", rep],
                                  timeout=120)
        what = " ".join(args) or "(no clock option)"
        ck.check(rc == 0, "demo %s: exit 0" % what, err[-400:])
        got = None
        if os.path.exists(rep):
            with open(rep) as f:
                got = json.load(f).get("clock")
            os.unlink(rep)
        ck.eq(got, want, "demo %s: report clock" % what)
        ck.check(re.search(r"^clock: %s\b" % want, out, re.M) is not None,
                 "demo %s: banner 'clock: %s'" % (what, want),
                 "\n".join(l for l in out.splitlines()
                           if l.startswith("clock")))
        if want == "virtual":  # no CPU sets the pace of the model
            ck.check(re.search(r"^  loss  .*the pace of the links$", out,
                               re.M) is not None,
                     "demo %s: the loss line blames nothing but the links"
                     % what, "\n".join(l for l in out.splitlines()
                                       if l.startswith("  loss")))


def check_profile_names(ck, exe, tmp):
    ck.section("--list-profiles, --profile NAME")
    exe = os.path.abspath(exe)     # runs elsewhere (cwd=tmp)
    pdir = os.path.join(source_root(), "profiles")
    names = sorted(os.path.relpath(p, pdir)[:-4] for p in glob.glob(
        os.path.join(pdir, "**", "*.ini"), recursive=True))
    rc, out, err = run_simple(exe, ["--list-profiles"])
    ck.eq(rc, 0, "--list-profiles exits 0")
    listed = dict(re.findall(r"^  (\S+) +(.*)$", out, re.M))
    ck.eq(sorted(listed), names, "--list-profiles names every profile of "
          "profiles/ (the build tree's binary: the source tree's)")
    with open(os.path.join(pdir, "demo.ini")) as f:
        first = next(l for l in f if l.startswith(";")).lstrip("; ").strip()
    ck.eq(listed.get("demo"), first, "--list-profiles: demo's first "
          "comment line")
    want = os.path.join(pdir, "scenarios", "clean.ini")
    for name in ("scenarios/clean", "scenarios/clean.ini"):
        rep = os.path.join(tmp, "clean.json")
        p = subprocess.run([exe, "--", "--profile", name, "--quiet",
                            "--report-json", rep, "--set",
                            "generator.iterations=1"], cwd=tmp,
                           capture_output=True, text=True, timeout=120)
        ck.eq(p.returncode, 0, "--profile %s exits 0" % name)
        got = None
        if os.path.exists(rep):
            with open(rep) as f:
                got = json.load(f).get("profile", {}).get("path")
            os.unlink(rep)
        ck.eq(got, want, "--profile %s runs %s" % (name, want))
    # A file named like a shipped profile, where the binary runs, wins.
    with open(leaf_profile()) as f:
        bad = f.read().replace("[port.p1]\n", "[port.p1]\nmtu = 99999\n", 1)
    with open(os.path.join(tmp, "demo"), "w") as f:
        f.write(bad)
    p = subprocess.run([exe, "--profile", "demo"], cwd=tmp,
                       capture_output=True, text=True, timeout=30)
    ck.eq(p.returncode, 1, "--profile demo with ./demo there: exit 1 "
          "(./demo has mtu = 99999)")
    ck.check(p.stderr.startswith("dpdk-aifab: demo: [port.p1] mtu"),
             "--profile demo with ./demo there: ./demo was read",
             p.stderr.strip())
    one_line_error(ck, exe, ["--profile", "scenarios/nope"],
                   "--profile scenarios/nope (no such profile)",
                   ["scenarios/nope", pdir, "--list-profiles"])


def endless_inputs():
    """Port 0 loops over a tiny pcap: 3 frames to forward, 1 to drop."""
    frames = [udp4(0, NBR_IP4[0], NBR_IP4[1], b"<S%06d>" % i, size=100,
                   sport=4000 + i) for i in range(3)]
    frames.append(udp4(0, NBR_IP4[0], NBR_IP4[1], b"<S000009>", ttl=1))
    return [frames] + [[] for _ in range(N_PORTS - 1)]


def endless_run(exe, tag, app_args=()):
    """infinite_rx replays in0.pcap forever; the outputs go to /dev/null so
    a few seconds at full rate cost no disk."""
    return Run(exe, endless_inputs(), app_args=app_args, tag=tag,
               vdev_extra={0: "infinite_rx=1"}, tx_null=True)


def check_endless_report(ck, run, what, end):
    if not ck.eq(run.rc, 0, "%s: exit status 0" % what):
        print(run.describe())
    rep = run.report
    if not check_report_shape(ck, rep, what):
        return
    ck.eq(rep.get("end"), end, "%s: report end" % what)
    ck.eq(rep.get("mempool_in_use_at_exit"), 0,
          "%s: mempool_in_use_at_exit" % what)
    p = rep["ports"]
    rx0 = p["p0"].get("rx_packets", 0)
    ck.check(rx0 > 100, "%s: p0 kept receiving (infinite_rx)" % what,
             "rx_packets %r" % rx0)
    drops0 = sum(p["p0"].get("drops", {}).values())
    ck.eq(rx0, p["p1"].get("tx_packets", 0) + drops0,
          "%s: every frame p0 received was sent on p1 or dropped" % what)
    ck.eq(p["p0"]["drops"].get("ttl_expired"), drops0,
          "%s: only ttl_expired drops" % what)
    ck.check(abs(drops0 * 3 - p["p1"].get("tx_packets", 0)) <= 3 * 64,
             "%s: forwarded:dropped about 3:1 (3 of 4 frames forwarded)" %
             what, "tx %r, dropped %r" % (p["p1"].get("tx_packets"), drops0))
    for pn in PORT_NAMES[1:]:
        ck.eq(p[pn].get("rx_packets"), 0, "%s: %s received nothing" % (what, pn))
    return rep


def check_signal(ck, exe, sig, name, wait_s):
    what = "%s after %.0f s" % (name, wait_s)
    ck.section(what)
    run = endless_run(exe, name.lower())
    with run.kept_if_failed(ck):
        proc = run.start()
        # wait_s of running, from when it runs (not from its launch: EAL
        # may start slowly on a loaded machine, and a signal before the
        # app's handlers are set would end it the default way)
        ck.check(wait_app_ready(run.prefix, proc), "%s: the app runs "
                 "(its telemetry answers)" % what, "exit %r" % proc.poll())
        time.sleep(wait_s)
        early = proc.poll()
        ck.check(early is None, "%s: still running before the signal" %
                 what, "exited with %r" % early)
        if early is None:
            proc.send_signal(sig)
        t0 = time.monotonic()
        run.finish(proc, timeout=20)
        print("    exited %.2f s after the signal" % (time.monotonic() - t0))
        ck.check(run.rc != "timeout", "%s: exits within 20 s" % what)
        check_endless_report(ck, run, what, "signal")


def blocked_in_open(pid):
    """True while process @p pid waits in a FIFO's open() for a writer
    (its wchan; where the kernel hides it, its current syscall: open or
    openat on x86-64)."""
    try:
        with open("/proc/%d/wchan" % pid) as f:
            wchan = f.read().strip()
        with open("/proc/%d/syscall" % pid) as f:
            nr = f.read().split()[0]
    except (OSError, IndexError):
        return False
    if wchan not in ("", "0"):
        return wchan == "wait_for_partner"
    return nr in ("2", "257")


def fifo_run(exe, tag):
    """A run whose port 0 reads a FIFO: EAL init blocks in net_pcap's
    probe until the test opens it for writing."""
    run = Run(exe, endless_inputs(), tag=tag, tx_null=True)
    run.prepare()
    os.remove(run.path("in0.pcap"))
    os.mkfifo(run.path("in0.pcap"))
    run.cmd = run.command()
    proc = subprocess.Popen(run.cmd, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)
    end = time.monotonic() + 30
    while time.monotonic() < end and proc.poll() is None and \
            not blocked_in_open(proc.pid):
        time.sleep(0.05)
    return run, proc


def check_signal_in_eal_init(ck, exe):
    what = "SIGINT during EAL init"
    ck.section(what)
    run, proc = fifo_run(exe, "sigeal")
    with run.kept_if_failed(ck):
        if not ck.check(blocked_in_open(proc.pid), "%s: EAL init waits "
                        "in net_pcap's open() of the FIFO" % what,
                        "exit %r" % proc.poll()):
            proc.kill()
            run.finish(proc)
            return
        proc.send_signal(signal.SIGINT)
        time.sleep(0.5)
        alive = proc.poll() is None
        ck.check(alive, "%s: the signal is kept, not taken the default "
                 "way" % what, "exit %r" % proc.poll())
        if alive:
            # the probe goes on: the frames, then EOF
            write_pcap(run.path("in0.pcap"), endless_inputs()[0])
        run.finish(proc, timeout=60)
        if not ck.eq(run.rc, 0, "%s: exit status 0" % what):
            print(run.describe())
        if check_report_shape(ck, run.report, what):
            ck.eq(run.report.get("end"), "signal", "%s: report end" % what)
            ck.eq(run.report.get("mempool_in_use_at_exit"), 0,
                  "%s: mempool_in_use_at_exit" % what)
    what = "two SIGINTs during EAL init"
    ck.section(what)
    run, proc = fifo_run(exe, "sigeal2")
    with run.kept_if_failed(ck):
        ck.check(blocked_in_open(proc.pid), "%s: EAL init waits in "
                 "net_pcap's open() of the FIFO" % what,
                 "exit %r" % proc.poll())
        proc.send_signal(signal.SIGINT)
        time.sleep(0.3)
        proc.send_signal(signal.SIGINT)
        run.finish(proc, timeout=20)
        ck.eq(run.rc, -signal.SIGINT, "%s: the second ends it the default "
              "way (killed by SIGINT)" % what)


def report_through_fifo(ck, exe, fifo, what):
    """The small demo with --report-json FIFO, a thread reading the FIFO:
    exit 0, the FIFO still a FIFO (not renamed over), the report read
    from it whole."""
    import stat
    import threading
    got = []

    def reader():
        with open(fifo) as f:
            got.append(f.read())
    t = threading.Thread(target=reader, daemon=True)
    t.start()
    rc, out, err = run_simple(exe, SMALL_DEMO + ["--report-json", fifo],
                              timeout=120)
    if rc != 0:  # a run refused before writing: unblock the reader
        with open(fifo, "w"):
            pass
    t.join(timeout=30)
    ck.check(rc == 0, "%s: exit 0" % what, err.strip()[-300:])
    ck.check(stat.S_ISFIFO(os.lstat(fifo).st_mode),
             "%s: the FIFO is still a FIFO (not renamed over)" % what)
    rep = None
    try:
        rep = json.loads(got[0]) if got else None
    except ValueError:
        pass
    ck.check(rep is not None and rep.get("end") == "input_consumed",
             "%s: the report came through it, whole" % what,
             (got[0][:200] if got else "nothing read"))


def check_special_outputs(ck, exe, tmp):
    """--report-json into a FIFO (as into /dev/stdout: not tried here, a
    binary that renames over it would replace the machine's node) and
    through a symbolic link."""
    what = "--report-json into a FIFO"
    ck.section(what)
    fifo = os.path.join(tmp, "report.fifo")
    os.mkfifo(fifo)
    report_through_fifo(ck, exe, fifo, what)
    # /dev/stdout itself is not tried: a binary that renames over it
    # replaces the machine's node; /proc/self/fd/1 is the same file, and
    # such a binary only fails to create /proc/self/fd/1.tmp
    what = "--report-json /proc/self/fd/1, stdout to a file"
    ck.section(what)
    outp = os.path.join(tmp, "console.txt")
    with open(outp, "w") as o:
        p = subprocess.run([exe] + SMALL_DEMO + ["--report-json",
                                            "/proc/self/fd/1"],
                           stdout=o, stderr=subprocess.PIPE, text=True,
                           timeout=120)
    ck.eq(p.returncode, 0, "%s: exit 0" % what)
    with open(outp) as f:
        text = f.read()
    a, b = text.find("\nclock: "), text.find('\n{\n  "tool"')
    c = text.find("\nreport: /proc/self/fd/1")
    ck.check(0 <= a < b < c, "%s: the console's lines, then the report, "
             "then the console's last line, in order" % what,
             "at %d, %d, %d" % (a, b, c))
    rep = None
    if 0 <= b < c:
        try:
            rep = json.loads(text[b:c])
        except ValueError:
            pass
    ck.check(rep is not None and rep.get("end") == "input_consumed",
             "%s: the report is whole JSON" % what)
    what = "--report-json through a symbolic link"
    ck.section(what)
    target = os.path.join(tmp, "run-1.json")
    link = os.path.join(tmp, "latest.json")
    with open(target, "w") as f:
        f.write("{}\n")
    os.symlink(target, link)
    rc, out, err = run_simple(exe, SMALL_DEMO + ["--report-json", link],
                              timeout=120)
    ck.eq(rc, 0, "%s: exit 0" % what)
    ck.check(os.path.islink(link), "%s: the link is kept" % what)
    with open(target) as f:
        rep = json.load(f)
    ck.eq(rep.get("end"), "input_consumed",
          "%s: the file it points to holds the report" % what)


def mount_tmpfs(path):
    """A 64 KiB tmpfs made at @path (the caller unmounts it); False, said
    as a skip, where mounting is not allowed."""
    os.makedirs(path)
    m = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=64k", "tmpfs",
                        path], capture_output=True, text=True)
    if m.returncode != 0:
        print("    skipped: cannot mount a tmpfs (%s)" % m.stderr.strip())
    return m.returncode == 0


def check_outputs_as_written(ck, exe, tmp):
    """An output is judged before the run by the rule that writes it: a
    FIFO or a link to a file in a read-only directory takes the report
    (nothing is made there), a new file there is refused up front, and so
    is a descriptor open only for reading."""
    what = "outputs in a read-only directory"
    ck.section(what)
    ro = os.path.join(tmp, "ro")
    if not mount_tmpfs(ro):
        return
    try:
        fifo = os.path.join(ro, "report.fifo")
        os.mkfifo(fifo)
        target = os.path.join(tmp, "ro-run.json")
        with open(target, "w") as f:
            f.write("{}\n")
        link = os.path.join(ro, "latest.json")
        os.symlink(target, link)
        m = subprocess.run(["mount", "-o", "remount,ro", ro],
                           capture_output=True, text=True)
        ck.check(m.returncode == 0, "%s: remounted read-only" % what,
                 m.stderr.strip())
        report_through_fifo(ck, exe, fifo, "--report-json into a FIFO there")
        w = "--report-json through a link there to a writable directory"
        rc, out, err = run_simple(exe, SMALL_DEMO + ["--report-json", link],
                                  timeout=120)
        ck.check(rc == 0, "%s: exit 0" % w, err.strip()[-300:])
        ck.check(os.path.islink(link), "%s: the link is kept" % w)
        with open(target) as f:
            ck.eq(json.load(f).get("end"), "input_consumed",
                  "%s: its file holds the report" % w)
        new = os.path.join(ro, "new.json")
        one_line_error(ck, exe, ["--report-json", new],
                       "--report-json a new file there (before the run)",
                       ["--report-json", new, "its directory " + ro,
                        "Read-only file system"])
    finally:
        subprocess.run(["umount", ro], capture_output=True)
    what = "--report-json /proc/self/fd/0, stdin read-only"
    ck.section(what)
    src = os.path.join(tmp, "stdin.txt")
    with open(src, "w") as f:
        f.write("")
    with open(src) as stdin:
        p = subprocess.run([exe, "--report-json", "/proc/self/fd/0"],
                           stdin=stdin, capture_output=True, text=True,
                           timeout=120)
    lines = [l for l in p.stderr.splitlines() if l.strip()]
    ck.eq(p.returncode, 1, "%s: exit status 1" % what)
    ck.eq(len(lines), 1, "%s: exactly one stderr line" % what)
    ck.check(bool(lines) and "/proc/self/fd/0" in lines[0] and
             "Bad file descriptor" in lines[0],
             "%s: the line names the path and why" % what,
             repr(lines[:1]))
    ck.check("clock:" not in p.stdout, "%s: refused before the run" % what)


def check_full_disk(ck, exe, tmp):
    """Every output a run writes, on a disk too small for them: none lost
    silently (a truncated capture or JSON-lines file with exit 0)."""
    what = "outputs on a full disk"
    ck.section(what)
    full = os.path.join(tmp, "full")
    if not mount_tmpfs(full):
        return
    try:
        rep = os.path.join(tmp, "full-report.json")
        pre = file_prefix("full")
        outs = {"--capture": os.path.join(full, "cap"),
                "--stats-jsonl": os.path.join(full, "s.jsonl"),
                "--report-html": os.path.join(full, "r.html"),
                "--prometheus": os.path.join(full, "p.prom")}
        cmd = [exe, "--no-huge", "-m", "1024", "--no-pci", "--file-prefix",
               pre, "--", "--quiet", "--set", "generator.size_bytes=1048576",
               "--report-json", rep]
        for k, v in outs.items():
            cmd += [k, v]
        p = subprocess.run(cmd, capture_output=True, text=True, timeout=120)
        _remove_runtime_dir(pre)
        ck.eq(p.returncode, 1, "%s: exit status 1" % what)
        err = p.stderr.splitlines()
        for k, v in outs.items():
            said = [ln for ln in err if k in ln and v in ln and
                    "No space left on device" in ln]
            ck.check(len(said) > 0, "%s: %s says which file and why" %
                     (what, k), "\n".join(err[-8:]))
        r = read_report(rep)
        if ck.check(r is not None and "_invalid_json" not in r,
                    "%s: the report elsewhere is written whole" % what,
                    str(r)[:200]):
            ck.eq(r.get("end"), "input_consumed", "%s: the run itself "
                  "completed (report end)" % what)
            ck.eq(r.get("mempool_in_use_at_exit"), 0,
                  "%s: mempool_in_use_at_exit" % what)
    finally:
        subprocess.run(["umount", full], capture_output=True)


def check_stdout_closed(ck, exe):
    what = "standard output closed"
    ck.section(what)
    run = endless_run(exe, "epipe", app_args=["--stats-interval", "0.1"])
    with run.kept_if_failed(ck):
        run.prepare()
        run.cmd = [a for a in run.command() if a != "--quiet"]
        proc = subprocess.Popen(run.cmd, stdout=subprocess.PIPE,
                                stderr=subprocess.PIPE, text=True)
        first = proc.stdout.readline()
        ck.check(first != "", "%s: the run writes its console" % what)
        proc.stdout.close()     # the reader goes (`| head -1`)
        try:
            proc.wait(timeout=30)
            run.rc = proc.returncode
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
            run.rc = "timeout"
        run.stderr = proc.stderr.read()
        proc.stderr.close()
        run._collect()
        ck.eq(run.rc, 0, "%s: exit 0 (not killed by SIGPIPE: -13)" % what)
        ck.check("standard output closed" in run.stderr,
                 "%s: one stderr line says why it stopped" % what,
                 run.stderr[-300:])
        if check_report_shape(ck, run.report, what):
            ck.eq(run.report.get("end"), "signal", "%s: report end" % what)
            ck.eq(run.report.get("mempool_in_use_at_exit"), 0,
                  "%s: mempool_in_use_at_exit" % what)


def check_nohup(ck, exe):
    """Under nohup (SIGHUP ignored when it starts) a hang-up is not a stop."""
    what = "SIGHUP under nohup"
    ck.section(what)
    run = endless_run(exe, "nohup")
    with run.kept_if_failed(ck):
        run.prepare()
        run.cmd = run.command()
        proc = subprocess.Popen(
            run.cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
            text=True,
            preexec_fn=lambda: signal.signal(signal.SIGHUP, signal.SIG_IGN))
        ck.check(wait_app_ready(run.prefix, proc), "%s: the app runs" % what,
                 "exit %r" % proc.poll())
        proc.send_signal(signal.SIGHUP)
        time.sleep(1.0)
        ck.check(proc.poll() is None, "%s: still running a second after "
                 "the hang-up" % what, "exited with %r" % proc.poll())
        if proc.poll() is None:
            proc.send_signal(signal.SIGINT)
        run.finish(proc, timeout=20)
        check_endless_report(ck, run, what, "signal")


def check_duration(ck, exe):
    what = "--duration 1"
    ck.section(what)
    run = endless_run(exe, "duration", app_args=["--duration", "1"])
    with run.kept_if_failed(ck):
        t0 = time.monotonic()
        run.run(timeout=30)
        took = time.monotonic() - t0
        print("    run took %.2f s" % took)
        rep = check_endless_report(ck, run, what, "duration")
        if rep:
            el = rep.get("elapsed_s", 0)
            ck.check(1.0 <= el < 3.0, "%s: elapsed_s in [1, 3)" % what,
                     "elapsed_s %r" % el)


def main():
    exe = exe_path()
    ck = Checks("test_app_cli")
    check_help(ck, exe)
    check_version(ck, exe)
    with tempfile.TemporaryDirectory(prefix="aifab-it-cli-") as tmp:
        check_errors(ck, exe, tmp)
        check_profile_names(ck, exe, tmp)
        check_clock(ck, exe, tmp)
        check_special_outputs(ck, exe, tmp)
        check_outputs_as_written(ck, exe, tmp)
        check_full_disk(ck, exe, tmp)
    check_signal(ck, exe, signal.SIGINT, "SIGINT", 2.0)
    check_signal(ck, exe, signal.SIGTERM, "SIGTERM", 1.0)
    check_signal(ck, exe, signal.SIGHUP, "SIGHUP", 1.0)
    check_nohup(ck, exe)
    check_signal_in_eal_init(ck, exe)
    check_stdout_closed(ck, exe)
    check_duration(ck, exe)
    ck.finish()


if __name__ == "__main__":
    main()
