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


def marginal(work, name, events, count):
    """(n, total, per function) of one more unit of work (a frame, a
    frame-hop): cachegrind files WORK/NAME.l.cg less WORK/NAME.s.cg, over
    count(NAME.l) - count(NAME.s) units (count: a tag's units)."""
    ts, ps = load("%s/%s.s.cg" % (work, name), events)
    tl, pl = load("%s/%s.l.cg" % (work, name), events)
    d = count(name + ".l") - count(name + ".s")
    if d <= 0:
        raise SystemExit("bench: %s: the longer run did no more work" % name)
    z = [0] * len(events)
    tot = [(tl[k] - ts[k]) / d for k in range(len(events))]
    fns = {f: [(pl[f][k] - ps.get(f, z)[k]) / d for k in range(len(events))]
           for f in pl}
    return d, tot, fns


def report(res, events, unit, runs, fn_events, top):
    """Print the per-unit totals of @res ({"A": marginal(), "B": ...}, one
    or two binaries; B against A) and the @top functions by |Ir|, with the
    @fn_events columns (and B - A for two)."""
    cols = sorted(res)
    z = [0.0] * len(events)
    print("| per %s | %s |%s" % (unit, " | ".join(cols),
                                 " B / A |" if len(cols) == 2 else ""))
    print("|---|%s" % ("---:|" * (len(cols) + (len(cols) == 2))))
    for k, e in enumerate(events):
        v = [res[c][1][k] for c in cols]
        row = "| %s | %s |" % (e, " | ".join("%.2f" % x for x in v))
        if len(cols) == 2:
            row += " %s |" % ("%.4f" % (v[1] / v[0]) if abs(v[0]) >= 0.01
                              else "-")
        print(row)
    print("| %s (%s) | %s |%s" % (unit + "s", runs,
                                  " | ".join("%d" % res[c][0] for c in cols),
                                  " |" if len(cols) == 2 else ""))
    print()
    fns = [res[c][2] for c in cols]
    idx = [events.index(e) for e in fn_events]
    names = sorted(set().union(*fns),
                   key=lambda f: -sum(abs(fc.get(f, z)[0]) for fc in fns))
    head = ["%s %s" % (c, e) if len(cols) == 2 else e
            for c in cols for e in fn_events]
    if len(cols) == 2:
        head += ["%s B - A" % e for e in fn_events]
    print("| function | %s |" % " | ".join(head))
    print("|---|%s" % ("---:|" * len(head)))
    for f in names[:top]:
        v = [fc.get(f, z) for fc in fns]
        cells = ["%.2f" % x[i] for x in v for i in idx]
        if len(cols) == 2:
            cells += ["%+.2f" % (v[1][i] - v[0][i]) for i in idx]
        print("| `%s` | %s |" % (f, " | ".join(cells)))
