#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
#
# bench/vclock_same.sh: digests of what the whole-process virtual clock
# produces, to show a change to app/vclock.c (or anything under it) keeps
# every result: the report (but elapsed_s, lcores and the multihost
# wall-clock instants, the machine's; the profile's path from profiles/
# on, so two checkouts compare), every --capture file and the
# --stats-jsonl lines (but their wall-clock "time" and the lcores' load)
# of the demo (as shipped and at 400G), every profiles/scenarios/*.ini and profiles/clos.ini.
#
#   bench/vclock_same.sh OUT [AIFAB]     # writes OUT/digests, OUT/*.json
#   diff OUT_BEFORE/digests OUT_AFTER/digests
#
# AIFAB defaults to build-rel/app/dpdk-aifab. Captures go to OUT/cap
# (removed after hashing: the demo's are ~0.8 GB). CASES=name,name picks
# cases by name (demo, demo400, scn-<scenario>, clos). Not a test.
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd)
OUT=${1:?usage: vclock_same.sh OUT [AIFAB]}
AIFAB=${2:-${AIFAB:-$ROOT/build-rel/app/dpdk-aifab}}
PY=/usr/bin/python3
mkdir -p "$OUT"
OUT=$(cd "$OUT" && pwd)
: >"$OUT/digests"

set400=()
for i in 0 1 2 3 4 5 6 7; do
	set400+=(--set "port.s$i.speed_gbps=400" --set "port.g$i.speed_gbps=400")
done

want() {	# name
	[ -z "${CASES:-}" ] && return 0
	case ",$CASES," in *",$1,"*) return 0 ;; esac
	return 1
}

one() {	# name capture(0/1) args...
	local name=$1 cap=$2 t0 t1
	shift 2
	want "$name" || return 0
	rm -rf "$OUT/cap"
	local capargs=()
	[ "$cap" = 1 ] && capargs=(--capture "$OUT/cap")
	t0=$(date +%s.%N)
	"$AIFAB" --file-prefix "vcsame-$$" -- --set general.clock=virtual \
		--report-json "$OUT/$name.json" --stats-jsonl "$OUT/$name.jsonl" \
		"${capargs[@]}" --quiet "$@" >"$OUT/$name.log" 2>&1 ||
		{ echo "vclock_same: $name failed (see $OUT/$name.log)" >&2; return 1; }
	t1=$(date +%s.%N)
	"$PY" - "$OUT/$name.json" "$OUT/$name.jsonl" "$name" >>"$OUT/digests" <<'PYEOF'
import hashlib, json, sys
rep, jl, name = sys.argv[1:4]
r = json.load(open(rep))
for k in ("elapsed_s", "lcores"):
    r.pop(k, None)
mh = r.get("multihost")
if mh is not None:
    for k in ("start_ns", "end_ns"):
        mh.pop(k, None)
    mh.get("start", {}).pop("at_ns", None)
    for it in mh.get("iterations", []):
        it.pop("start_ns", None)
        it.pop("end_ns", None)
# the profile's path names the checkout: keep it relative to the tree, so
# digests made in two clones or worktrees compare
pr = r.get("profile", {})
if isinstance(pr.get("path"), str) and "/profiles/" in pr["path"]:
    pr["path"] = "profiles/" + pr["path"].split("/profiles/", 1)[1]
h = hashlib.sha256(json.dumps(r, sort_keys=True).encode()).hexdigest()
print("%s report %s" % (name, h))
def strip(o):
    # "time": the wall clock; the lcores' load counts wall cycles: the
    # machine's, not the model's
    if isinstance(o, dict):
        return {k: strip(v) for k, v in o.items()
                if k != "time" and "lcore" not in k}
    return o
h, n = hashlib.sha256(), 0
for ln in open(jl):
    o = strip(json.loads(ln))
    h.update(("\n" if n else "").encode() + json.dumps(o, sort_keys=True).encode())
    n += 1
print("%s stats_jsonl %s (%d lines)" % (name, h.hexdigest(), n))
PYEOF
	if [ "$cap" = 1 ]; then
		(cd "$OUT/cap" && sha256sum -- *) | sed "s/^/$name capture /" >>"$OUT/digests"
		rm -rf "$OUT/cap"
	fi
	printf '%-28s %6.2f s wall\n' "$name" "$(echo "$t1 - $t0" | bc)" >&2
}

one demo 1
one demo400 0 "${set400[@]}" --set generator.size_bytes=67108864
for f in "$ROOT"/profiles/scenarios/*.ini; do
	n=$(basename "$f" .ini)
	one "scn-$n" 1 --profile "$f"
done
one clos 1 --profile "$ROOT/profiles/clos.ini"
echo "vclock_same: $(wc -l <"$OUT/digests") digests in $OUT/digests" >&2
