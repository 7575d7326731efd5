# SPDX-License-Identifier: BSD-3-Clause
"""bench/cgfile.py: the events of a cachegrind output file, in total and
per function (bench/vclock_cg.sh and bench/switch_cg.sh import it)."""
import collections


def load(path, events):
    """(total, per function): the counts of @events (names such as "Ir",
    "D1mr") in cachegrind file @path, in that order."""
    ev, fn, idx, tot = None, None, None, None
    per = collections.defaultdict(lambda: [0] * len(events))
    with open(path) as f:
        for line in f:
            if line.startswith("events:"):
                ev = line.split()[1:]
                idx = [ev.index(e) for e in events]
            elif line.startswith("fn="):
                fn = line[3:].strip()
            elif line.startswith("summary:"):
                v = list(map(int, line.split()[1:]))
                tot = [v[i] for i in idx]
            elif line[:1].isdigit() and fn is not None:
                v = list(map(int, line.split()[1:]))
                v += [0] * (len(ev) - len(v))
                a = per[fn]
                for k, i in enumerate(idx):
                    a[k] += v[i]
    return tot, per
