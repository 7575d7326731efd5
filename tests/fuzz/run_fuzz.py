#!/usr/bin/python3
# SPDX-License-Identifier: BSD-3-Clause
"""Run one fuzz target as a meson test (suite 'fuzz').

  run_fuzz.py --target T --exe BIN --mode fuzz|replay [--seconds S]
              [--max-len N] [--work DIR]

1. Every file in tests/fuzz/regressions/T/ is run once (crashes found
   earlier, kept as regression tests).
2. The seed corpus is generated (gen_corpus.py) into DIR/seeds-T.
3. replay: every seed is run once. fuzz: libFuzzer runs for S seconds from
   DIR/corpus-T (kept between runs: the corpus grows) and the seeds; a
   crash leaves DIR/crash-T-<sha1>, and the test fails naming it: copy that
   file into tests/fuzz/regressions/T/ once the bug is fixed.
"""
import argparse
import glob
import os
import shutil
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)


def eal_dirs_of(pid):
    """EAL runtime dirs our fuzzers' file prefixes leave (aifab-fz_*-PID)."""
    bases = ["/var/run/dpdk", "/tmp/dpdk"]
    if os.environ.get("XDG_RUNTIME_DIR"):
        bases.append(os.path.join(os.environ["XDG_RUNTIME_DIR"], "dpdk"))
    out = []
    for b in bases:
        out += glob.glob(os.path.join(b, "aifab-fz_*-%d" % pid))
    return out


def run(cmd, timeout):
    print("+ " + " ".join(cmd), flush=True)
    t0 = time.monotonic()
    p = subprocess.Popen(cmd)
    try:
        rc = p.wait(timeout=timeout)
    except subprocess.TimeoutExpired:
        p.kill()
        rc = p.wait()
        print("timed out after %d s" % timeout)
        rc = rc or 1
    for d in eal_dirs_of(p.pid):
        shutil.rmtree(d, ignore_errors=True)
    print("(exit %d after %.1f s)" % (rc, time.monotonic() - t0), flush=True)
    return rc


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--target", required=True)
    ap.add_argument("--exe", required=True)
    ap.add_argument("--mode", choices=("fuzz", "replay"), required=True)
    ap.add_argument("--seconds", type=int, default=10)
    ap.add_argument("--max-len", type=int, default=4096)
    ap.add_argument("--work", default=".")
    a = ap.parse_args()
    t = a.target

    regs = sorted(f for f in glob.glob(os.path.join(HERE, "regressions", t,
                                                    "*"))
                  if os.path.isfile(f) and not f.endswith(".md"))
    ok = True
    if regs:
        print("== %d regression inputs" % len(regs))
        ok = run([a.exe] + regs, 300) == 0

    import gen_corpus
    seeds = os.path.join(a.work, "seeds-" + t)
    shutil.rmtree(seeds, ignore_errors=True)
    n = gen_corpus.generate(t, seeds)
    print("== %d seeds in %s" % (n, seeds))

    if a.mode == "replay":
        ok = run([a.exe, seeds], 300) == 0 and ok
    else:
        corpus = os.path.join(a.work, "corpus-" + t)
        os.makedirs(corpus, exist_ok=True)
        prefix = os.path.join(a.work, "crash-%s-" % t)
        rc = run([a.exe, "-max_total_time=%d" % a.seconds,
                  "-max_len=%d" % a.max_len, "-timeout=20",
                  "-rss_limit_mb=3072", "-print_final_stats=1",
                  "-artifact_prefix=" + prefix, corpus, seeds],
                 a.seconds * 2 + 120)
        if rc != 0:
            crashes = glob.glob(prefix + "*")
            print("FAIL: fuzz_%s found a problem; input(s): %s\n"
                  "Reproduce: %s <input>; once fixed, copy the input into "
                  "tests/fuzz/regressions/%s/" %
                  (t, " ".join(crashes) or "(none written)", a.exe, t))
            ok = False
    print("fuzz_%s: %s" % (t, "ok" if ok else "FAILED"))
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
