#!/usr/bin/python3
"""tools/sweep.py, the collective-time recipe (nccl-tests' -b -e -f), on the
embedded demo: one row per size (b, b x f, ... <= e), each row's algbw =
S / time and busbw = algbw x 2(N-1)/N (nccl-tests' AllReduce factor), the
nccl-tests header, a PASS verdict at a reachable --min-busbw and FAIL (exit
1) at an unreachable one; per-size checks from a --limits file, the --html
page, and bad limits refused naming the file, key and what is allowed."""
import json
import os
import subprocess
import sys
import tempfile

from lib_aifab import Checks, exe_path, source_root

exe = exe_path()
root = source_root()
tool = os.path.join(root, "tools", "sweep.py")
ck = Checks("test_sweep")
check = ck.got


with tempfile.TemporaryDirectory() as d:
    out = os.path.join(d, "s.json")
    page = os.path.join(d, "s.html")
    lim = os.path.join(d, "lim.ini")
    with open(lim, "w") as f:
        f.write("[sweep]\nmin_busbw = 0.001\nbusbw_from = 512K\n"
                "[max_time_us]\n256K = 100000000\n")
    p = subprocess.run([sys.executable, tool, "--exe", exe, "-b", "256K",
                        "-e", "1M", "-f", "2", "--limits", lim,
                        "--json", out, "--html", page,
                        "--", "--file-prefix", "sweep%d" % os.getpid()],
                       capture_output=True, text=True, timeout=600)
    print(p.stdout)
    check(p.returncode == 0, "exit 0", (p.returncode, p.stderr[-400:]))
    res = json.load(open(out))
    rows = res["rows"]
    check([r["size"] for r in rows] == [262144, 524288, 1048576],
          "sizes 256K, 512K, 1M (-b 256K -e 1M -f 2)",
          [r["size"] for r in rows])
    N = 8
    for r in rows:
        algbw = r["size"] / (r["time_us"] * 1e-6) / 1e9
        check(abs(r["algbw_gbps"] - algbw) <= 1e-3 * algbw + 1e-5,
              "%d B: algbw = S / time" % r["size"], (r["algbw_gbps"], algbw))
        check(abs(r["busbw_gbps"] - r["algbw_gbps"] * 2 * (N - 1) / N)
              <= 2e-5 + 1e-5 * r["busbw_gbps"],
              "%d B: busbw = algbw x 2(N-1)/N" % r["size"], r)
        check(r["finished"], "%d B: the collective completed" % r["size"], r)
        check(r["mempool_in_use_at_exit"] == 0,
              "%d B: every mbuf returned (mempool_in_use_at_exit)" % r["size"],
              r["mempool_in_use_at_exit"])
    check("#       size        count     type  redop       time    algbw"
          "    busbw #wrong" in p.stdout, "nccl-tests' header", p.stdout)
    check(res["verdict"] == "PASS", "verdict PASS at 0.001 GB/s",
          res["verdict"])
    check([[c["check"] for c in r["checks"]][2:] for r in rows] ==
          [["time (us)"], ["busbw (GB/s)"], ["busbw (GB/s)"]] and
          all(r["verdict"] == "PASS" for r in rows),
          "--limits: 256K judged on time, 512K and 1M on busbw",
          [r["checks"] for r in rows])
    check(abs(res["busbw_factor"] - 2 * (N - 1) / N) < 1e-12,
          "JSON: nccl-tests' AllReduce factor 2(N-1)/N", res["busbw_factor"])
    html = open(page).read() if os.path.exists(page) else ""
    check("<script" not in html and html.count("<svg ") == 2 and
          html.count("<polyline") == 3 and ">PASS</span>" in html,
          "--html: a page without scripts, 2 charts (time; algbw, busbw)",
          html[:200])
    bad = os.path.join(d, "bad.ini")
    with open(bad, "w") as f:
        f.write("[sweep]\nmin_bw = 3\n")
    p = subprocess.run([sys.executable, tool, "--exe", exe, "--limits", bad],
                       capture_output=True, text=True, timeout=60)
    check(p.returncode != 0 and bad in p.stderr and "min_bw" in p.stderr and
          "allowed" in p.stderr, "a bad --limits key is refused, naming "
          "the file, key and what is allowed", p.stderr)
    p = subprocess.run([sys.executable, tool, "--exe", exe, "-b", "256K",
                        "-e", "256K", "--min-busbw", "1000"],
                       capture_output=True, text=True, timeout=300)
    check(p.returncode == 1 and "FAIL" in p.stdout,
          "verdict FAIL (exit 1) at an unreachable 1000 GB/s",
          (p.returncode, p.stdout[-300:]))
ck.finish()
