"""What tools/scenarios.py and tools/sweep.py share: the dpdk-aifab they
run (--exe) and one run of it for its JSON report."""
import json
import os
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DEFAULT_EXE = os.path.join(ROOT, "build", "app", "dpdk-aifab")


def need_exe(tool, exe):
    """Exit naming `tool` when `exe` is not an executable."""
    if not os.access(exe, os.X_OK):
        sys.exit("%s: %s is not an executable; build first "
                 "(tools/setup.sh build) or pass --exe" % (tool, exe))


def run_for_report(cmd, rep_path, timeout, label, tail):
    """Run `cmd` (dpdk-aifab ... --report-json rep_path). Returns (its
    CompletedProcess, the report); the report is None when the run failed
    or wrote none, and then "<label>: exit N: <the last `tail` characters
    of its stderr>" went to stderr."""
    p = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout)
    if p.returncode != 0 or not os.path.exists(rep_path):
        print("%s: exit %d: %s" % (label, p.returncode,
                                   p.stderr.strip()[-tail:]),
              file=sys.stderr)
        return p, None
    with open(rep_path) as f:
        return p, json.load(f)
