#!/usr/bin/python3
# SPDX-License-Identifier: BSD-3-Clause
"""Issue 19: the Debian package, unpacked into a scratch root and run there.

Usage: test_package.py PATH/TO/dpdk-aifab   (the build tree's binary)

1. `tools/setup.sh deb` builds the package from a copy of the source tree
   into a scratch directory (AIFAB_DEB_DIR; one build job);
2. lintian (when installed) on the .changes, source and binary: no error
   tag (E:); the warnings are printed;
3. the control fields: Depends names the Debian package of every shared
   library the binary links (readelf NEEDED, resolved by ldd, owner by
   dpkg -S), the plugins the vdevs load (net_pcap, net_ring, net_null,
   net_af_packet, the ring mempool), each a real package; Recommends dpdk;
4. `dpkg -x` into a scratch root: dpdk-aifab and the two tools in usr/bin,
   every profile of profiles/ in usr/share/dpdk-aifab/profiles, README.md
   and docs/*.md in usr/share/doc/dpdk-aifab, the man pages;
5. dpdk-aifab.1 names every long option the installed binary's --help
   lists and every section of its --profile-doc, and `man --warnings`
   says nothing about any page;
6. from a directory outside the source tree, the installed binary:
   --list-profiles names every shipped profile from the scratch root;
   --profile scenarios/loss runs the scratch root's file (the report's
   profile path) with frames lost and re-sent; bare, it runs the demo;
   --profile pcap-leaf replays test_pcap_leaf's "main" pcaps, judged as
   test_pcap_leaf judges them; an unknown name fails naming where it looked;
7. the installed dpdk-aifab-scenarios (--only loss) and dpdk-aifab-sweep
   (--profile demo, one size) run the installed binary and profiles.
"""
import glob
import gzip
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time

from lib_aifab import Checks, Run, exe_path, source_root, verify_outputs, \
    verify_report
from test_app_cli import help_options
from test_pcap_leaf import SCENARIOS

PREFIX = "usr"
SHARE = os.path.join(PREFIX, "share", "dpdk-aifab", "profiles")
DOC = os.path.join(PREFIX, "share", "doc", "dpdk-aifab")
MAN1 = os.path.join(PREFIX, "share", "man", "man1")
TOOLS = ["dpdk-aifab-scenarios", "dpdk-aifab-sweep"]
# net_pcap, net_ring, net_null, net_af_packet (docs' vdevs) and the ring
# mempool driver every pool uses: plugins, so no NEEDED entry finds them.
PLUGINS = ["librte-net-pcap23", "librte-net-ring23", "librte-net-null23",
           "librte-net-af-packet23", "librte-mempool-ring23"]


def sh(cmd, timeout=120, **kw):
    p = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout,
                       **kw)
    return p.returncode, p.stdout, p.stderr


def shipped_profiles():
    """Profile names as the source tree has them (scenarios/loss ...)."""
    d = os.path.join(source_root(), "profiles")
    return sorted(os.path.relpath(p, d)[:-4] for p in
                  glob.glob(os.path.join(d, "**", "*.ini"), recursive=True))


def debian_files():
    d = os.path.join(source_root(), "debian")
    return sorted(os.path.relpath(os.path.join(a, f), d)
                  for a, _, fs in os.walk(d) for f in fs)


def build_package(ck, out):
    ck.section("tools/setup.sh deb")
    env = dict(os.environ, AIFAB_DEB_DIR=out, AIFAB_DEB_LINTIAN="0",
               DEB_BUILD_OPTIONS="parallel=1")
    before = debian_files()
    t0 = time.monotonic()
    rc, so, se = sh([os.path.join(source_root(), "tools", "setup.sh"), "deb"],
                    timeout=900, env=env)
    print("    package build took %.0f s" % (time.monotonic() - t0))
    ck.eq(rc, 0, "tools/setup.sh deb exits 0")
    if rc != 0:
        print(se[-3000:])
    debs = glob.glob(os.path.join(out, "dpdk-aifab_*.deb"))
    changes = glob.glob(os.path.join(out, "dpdk-aifab_*.changes"))
    ck.eq(len(debs), 1, "one dpdk-aifab_*.deb in AIFAB_DEB_DIR")
    ck.eq(len(changes), 1, "one dpdk-aifab_*.changes in AIFAB_DEB_DIR")
    ck.eq(debian_files(), before, "the source tree's debian/ is as it was "
          "(the package is built from a copy)")
    if not debs or not changes:
        ck.fatal("no package to test")
    return debs[0], changes[0]


def check_lintian(ck, changes):
    ck.section("lintian")
    if shutil.which("lintian") is None:
        print("    lintian not installed: not run (tools/setup.sh test "
              "installs it)")
        return
    rc, so, se = sh(["lintian", "--tag-display-limit", "0", changes],
                    timeout=600)
    tags = [l for l in so.splitlines() if re.match(r"^[EWIPX]: ", l)]
    print("    %d tags" % len(tags))
    for t in tags:
        print("    " + t)
    errors = [t for t in tags if t.startswith("E: ")]
    ck.eq(errors, [], "lintian: no error tags")
    ck.check(rc in (0, 1, 2) and "internal error" not in se.lower(),
             "lintian ran", se[-500:])


def lib_packages(binary):
    """{NEEDED soname: owning Debian package}."""
    _, so, _ = sh(["readelf", "-d", binary])
    needed = re.findall(r"\(NEEDED\)\s+Shared library: \[([^\]]+)\]", so)
    _, so, _ = sh(["ldd", binary])
    where = dict(re.findall(r"^\s*(\S+) => (/\S+)", so, re.M))
    for path in re.findall(r"^\s*(/\S+) \(0x", so, re.M):  # the loader
        where.setdefault(os.path.basename(path), path)
    owners = {}
    for lib in needed:
        path = where.get(lib)
        owner = None
        for cand in filter(None, [path, path and os.path.realpath(path),
                                  path and path.replace("/usr/lib/", "/lib/"),
                                  path and path.replace("/lib/", "/usr/lib/",
                                                        1)]):
            rc, so, _ = sh(["dpkg", "-S", cand])
            if rc == 0:
                owner = so.split(":")[0].strip()
                break
        owners[lib] = owner
    return owners


def check_control(ck, deb, root):
    ck.section("control: Depends, Recommends")
    _, dep, _ = sh(["dpkg-deb", "-f", deb, "Depends"])
    _, rec, _ = sh(["dpkg-deb", "-f", deb, "Recommends"])
    deps = {d.strip().split()[0] for d in dep.split(",") if d.strip()}
    print("    Depends: %s" % dep.strip())
    print("    Recommends: %s" % rec.strip())
    for lib, owner in lib_packages(os.path.join(root, PREFIX, "bin",
                                                "dpdk-aifab")).items():
        ck.check(owner is not None and owner.split(":")[0] in deps,
                 "Depends has the package of %s" % lib, "owner %r" % owner)
    for p in PLUGINS:
        ck.check(p in deps, "Depends has %s (a plugin the vdevs load)" % p)
    for p in sorted(deps):
        rc, _, _ = sh(["apt-cache", "show", p])
        ck.eq(rc, 0, "Depends: %s is a Debian package" % p)
    ck.check("dpdk" in [r.strip().split()[0] for r in rec.split(",")
                        if r.strip()], "Recommends dpdk")


def check_layout(ck, root):
    ck.section("dpkg -x: the installed layout")
    for f in ["dpdk-aifab"] + TOOLS:
        p = os.path.join(root, PREFIX, "bin", f)
        ck.check(os.access(p, os.X_OK), "usr/bin/%s is executable" % f)
    names = shipped_profiles()
    for n in names:
        ck.check(os.path.isfile(os.path.join(root, SHARE, n + ".ini")),
                 "%s/%s.ini installed" % (SHARE, n))
    docs = ["README.md"] + sorted(os.path.basename(p) for p in glob.glob(
        os.path.join(source_root(), "docs", "*.md")))
    for d in docs:
        ck.check(any(os.path.isfile(os.path.join(root, DOC, d + z))
                     for z in ("", ".gz")), "%s/%s installed" % (DOC, d))
    for m in ["dpdk-aifab"] + TOOLS:
        ck.check(os.path.isfile(os.path.join(root, MAN1, m + ".1.gz")),
                 "%s/%s.1.gz installed" % (MAN1, m))
    return names


def roff_text(path):
    """A man page's roff source as plain words ('\\-' -> '-', no fonts)."""
    with gzip.open(path, "rt") as f:
        t = f.read()
    t = re.sub(r"\\f[BIRP]", "", t)
    return t.replace("\\-", "-").replace("\\&", "").replace("\\e", "\\")


def check_man(ck, root, exe):
    ck.section("man pages")
    page = os.path.join(root, MAN1, "dpdk-aifab.1.gz")
    if not os.path.isfile(page):
        return
    text = roff_text(page)
    _, out, _ = sh([exe, "--help"])
    opts = help_options(out)
    ck.check(len(opts) >= 10, "--help lists options", " ".join(opts))
    for o in opts + ["--list-profiles"]:
        ck.check(re.search(re.escape(o) + r"(?![a-z0-9-])", text)
                 is not None, "dpdk-aifab.1 names %s" % o)
    _, doc, _ = sh([exe, "--profile-doc"])
    for h in re.findall(r"^##+ (.+)$", doc, re.M):
        h = h.replace("`", "")
        ck.check(h in text, "dpdk-aifab.1 has the profile reference's "
                 "section %s" % h)
    if shutil.which("man") is None:
        return
    for m in ["dpdk-aifab"] + TOOLS:
        p = os.path.join(root, MAN1, m + ".1.gz")
        rc, so, se = sh(["man", "--warnings", "-E", "UTF-8", "-l", "-Tutf8",
                         "-Z", p], env=dict(os.environ, LC_ALL="C.UTF-8",
                                            MANWIDTH="80"))
        ck.check(rc == 0 and se.strip() == "",
                 "man --warnings: %s.1 renders without a warning" % m,
                 se[-500:])


def report_profile(rep):
    return (rep or {}).get("profile", {}).get("path", "")


def check_profiles(ck, root, exe, names):
    ck.section("installed binary: --list-profiles, --profile NAME, demo")
    share = os.path.realpath(os.path.join(root, SHARE))
    rc, out, err = sh([exe, "--list-profiles"])
    ck.eq(rc, 0, "--list-profiles exits 0")
    ck.check(share in out, "--list-profiles lists %s" % share, out[:300])
    listed = re.findall(r"^  (\S+)\s", out, re.M)
    ck.eq(sorted(listed), names, "--list-profiles names every shipped "
          "profile")
    rc, out, err = sh([exe, "--profile", "scenarios/nope"])
    ck.eq(rc, 1, "--profile scenarios/nope: exit 1")
    ck.check("scenarios/nope" in err and share in err,
             "--profile scenarios/nope: the error names the name and %s"
             % share, err.strip())
    rc, out, err = sh([exe, "--", "--profile", "scenarios/loss", "--quiet",
                       "--report-json", "loss.json"], timeout=120)
    ck.eq(rc, 0, "--profile scenarios/loss exits 0")
    rep = json.load(open("loss.json")) if os.path.exists("loss.json") \
        else None
    ck.eq(report_profile(rep), os.path.join(share, "scenarios", "loss.ini"),
          "--profile scenarios/loss ran the scratch root's file")
    if rep:
        ck.eq(rep.get("end"), "input_consumed", "loss: the collective ended")
        ck.check(rep["generator"]["rc"]["retx_packets"] > 0,
                 "loss: frames were lost and re-sent",
                 rep["generator"]["rc"])
        ck.eq(rep.get("mempool_in_use_at_exit"), 0, "loss: no mbuf left")
    rc, out, err = sh([exe], timeout=120)
    ck.eq(rc, 0, "bare (the embedded demo) exits 0")
    ck.check("busbw" in out, "the demo prints the nccl-tests table",
             out[-500:])
    ck.check(os.path.exists("dpdk-aifab-report.json"),
             "the demo writes dpdk-aifab-report.json where it runs")


def check_replay(ck, exe, share):
    build, args, _ = SCENARIOS["main"]
    cs = build()
    ck.section("installed binary: pcap replay of test_pcap_leaf main "
               "(%d frames), --profile pcap-leaf" % len(cs.cases))
    run = Run(exe, cs.inputs(), app_args=args, profile="pcap-leaf",
              tag="pkg")
    with run.kept_if_failed(ck):
        run.run()
        if not ck.eq(run.rc, 0, "replay: exit status"):
            print(run.describe())
        ck.eq(report_profile(run.report), os.path.join(share,
                                                       "pcap-leaf.ini"),
              "replay: the scratch root's pcap-leaf.ini")
        egress_of = verify_outputs(ck, run, cs, "replay")
        verify_report(ck, run, cs, egress_of, "replay")


def check_tools(ck, root, share):
    ck.section("installed tools")
    bindir = os.path.join(root, PREFIX, "bin")
    rc, out, err = sh([os.path.join(bindir, "dpdk-aifab-scenarios"),
                       "--only", "loss", "--json", "scen.json"], timeout=300)
    ck.eq(rc, 0, "dpdk-aifab-scenarios --only loss exits 0")
    if rc != 0:
        print(err[-1000:])
    if os.path.exists("scen.json"):
        with open("scen.json") as f:
            s = json.load(f)
        ck.eq([r["scenario"] for r in s["rows"]], ["loss"],
              "dpdk-aifab-scenarios: one row, loss")
        ck.eq(report_profile(s["reports"].get("loss")),
              os.path.join(share, "scenarios", "loss.ini"),
              "dpdk-aifab-scenarios ran the installed scenario")
    rc, out, err = sh([os.path.join(bindir, "dpdk-aifab-sweep"),
                       "--profile", "demo", "-b", "64K", "-e", "64K",
                       "--json", "sweep.json"], timeout=300)
    ck.eq(rc, 0, "dpdk-aifab-sweep --profile demo -b 64K -e 64K exits 0")
    if rc != 0:
        print(err[-1000:])
    ck.check(re.search(r"^\s+65536\s", out, re.M) is not None,
             "dpdk-aifab-sweep prints the 64K row", out[-600:])


def main():
    exe_path()          # the build tree's binary: built, as meson says
    ck = Checks("test_package")
    keep = bool(os.environ.get("AIFAB_IT_KEEP"))
    tmp = tempfile.mkdtemp(prefix="aifab-it-pkg-")
    try:
        deb, changes = build_package(ck, os.path.join(tmp, "out"))
        check_lintian(ck, changes)
        root = os.path.join(tmp, "root")
        rc, _, err = sh(["dpkg", "-x", deb, root])
        if not ck.eq(rc, 0, "dpkg -x exits 0"):
            ck.fatal("dpkg -x", err)
        check_control(ck, deb, root)
        names = check_layout(ck, root)
        exe = os.path.join(root, PREFIX, "bin", "dpdk-aifab")
        check_man(ck, root, exe)
        share = os.path.realpath(os.path.join(root, SHARE))
        work = os.path.join(tmp, "work")   # outside the source tree
        os.makedirs(work)
        os.chdir(work)
        check_profiles(ck, root, exe, names)
        check_replay(ck, exe, share)
        check_tools(ck, root, share)
    finally:
        os.chdir("/")
        if ck.failures or keep:
            print("kept %s" % tmp)
        else:
            shutil.rmtree(tmp, ignore_errors=True)
    ck.finish()


if __name__ == "__main__":
    sys.exit(main())
