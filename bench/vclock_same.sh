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
# AIFAB defaults to build-rel/app/dpdk-aifab. CASES=name,name picks cases
# by name (demo, demo400, scn-<scenario>, clos). Not a test.
#
# Nothing big touches the disk: the captures (~12 GB over all cases) and
# the stats lines (1-2 GB per ECMP polarization case) are written into
# named pipes that sha256sum and the line hasher read as the run goes
# (OUT/cap/tx_<port>.pcap for every [port.NAME] of the profile; a capture
# file under a name the profile did not predict is still hashed, as a
# file, after the run). OUT keeps the reports and the logs.
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd)
OUT=${1:?usage: vclock_same.sh OUT [AIFAB]}
AIFAB=${2:-${AIFAB:-$ROOT/build-rel/app/dpdk-aifab}}
PY=/usr/bin/python3
mkdir -p "$OUT"
OUT=$(cd "$OUT" && pwd)
: >"$OUT/digests"

# shellcheck source=bench/common.sh
. "$ROOT/bench/common.sh"
read -ra set400 <<<"$(demo_speed 400)"

want() {	# name
	[ -z "${CASES:-}" ] && return 0
	case ",$CASES," in *",$1,"*) return 0 ;; esac
	return 1
}

# A named pipe at @p path, held open for writing by this shell (in holds)
# until the run is over: its reader's open does not wait for the run's,
# and it sees no end of file before the run has closed it.
holds=()
pipe() {	# path
	local fd
	mkfifo "$1"
	exec {fd}<>"$1"
	holds+=("$fd")
}

# Close the holds (in a reader or the run: they must not hold their own
# pipes open).
unhold() {
	local fd
	for fd in "${holds[@]}"; do
		exec {fd}>&-
	done
}

# Wait until process @p pid has @p path open (a reader started in the
# background), so that closing the holds cannot come before its open.
wait_open() {	# pid path
	local f i
	for ((i = 0; i < 1000; i++)); do
		for f in /proc/"$1"/fd/*; do
			[ "$(readlink "$f" 2>/dev/null)" = "$2" ] && return 0
		done
		sleep 0.01
	done
	echo "vclock_same: reader $1 of $2 did not start" >&2
	return 1
}

# The port names of a profile (the demo's: profiles/demo.ini, embedded).
ports_of() {	# profile
	sed -n 's/^[[:space:]]*\[port\.\([^]]*\)\][[:space:]]*$/\1/p' "$1"
}

one() {	# name capture(0/1) args...
	local name=$1 cap=$2 t0 t1 prof=$ROOT/profiles/demo.ini a p f h
	local pids=() readers=() prev='' failed=0
	shift 2
	want "$name" || return 0
	for a in "$@"; do
		[ "$prev" = --profile ] && prof=$a
		prev=$a
	done
	rm -rf "$OUT/cap" "$OUT/$name.jsonl" "$OUT/.h"
	mkdir -p "$OUT/.h"
	local capargs=()
	if [ "$cap" = 1 ]; then
		capargs=(--capture "$OUT/cap")
		mkdir -p "$OUT/cap"
		# one pipe and one reader per port the profile names
		for p in $(ports_of "$prof"); do
			pipe "$OUT/cap/tx_$p.pcap"
			(unhold; exec sha256sum <"$OUT/cap/tx_$p.pcap" \
				>"$OUT/.h/tx_$p.pcap") &
			pids+=($!)
			readers+=("$! $OUT/cap/tx_$p.pcap")
		done
	fi
	pipe "$OUT/$name.jsonl"
	(unhold; exec "$PY" - "$OUT/$name.jsonl" "$name" >"$OUT/.h/jsonl" <<'PYEOF'
import hashlib, json, sys
jl, name = sys.argv[1:3]
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
	) &
	pids+=($!)
	readers+=("$! $OUT/$name.jsonl")
	for a in "${readers[@]}"; do
		wait_open ${a%% *} "${a#* }"
	done
	t0=$(date +%s.%N)
	(unhold; exec "$AIFAB" --file-prefix "vcsame-$$" -- \
		--set general.clock=virtual --report-json "$OUT/$name.json" \
		--stats-jsonl "$OUT/$name.jsonl" "${capargs[@]}" --quiet "$@" \
		>"$OUT/$name.log" 2>&1) || {
		echo "vclock_same: $name failed (see $OUT/$name.log)" >&2
		failed=1
	}
	t1=$(date +%s.%N)
	# The readers see the end of their pipe once the run's writer and
	# ours have closed it; a pipe the run never opened reads empty (the
	# empty digest says "not written", below).
	unhold
	holds=()
	wait "${pids[@]}"
	[ "$failed" = 1 ] && return 1
	"$PY" - "$OUT/$name.json" "$name" >>"$OUT/digests" <<'PYEOF'
import hashlib, json, sys
rep, name = sys.argv[1:3]
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
PYEOF
	cat "$OUT/.h/jsonl" >>"$OUT/digests"
	if [ "$cap" = 1 ]; then
		# in the order `sha256sum -- *` gave when these were files
		local empty
		empty=$(sha256sum </dev/null | cut -d' ' -f1)
		for f in "$OUT"/cap/*; do
			p=$(basename "$f")
			if [ -p "$f" ]; then
				h=$(cut -d' ' -f1 "$OUT/.h/$p")
				[ "$h" = "$empty" ] && continue
			else
				h=$(sha256sum <"$f" | cut -d' ' -f1)
			fi
			printf '%s capture %s  %s\n' "$name" "$h" "$p" >>"$OUT/digests"
		done
	fi
	rm -rf "$OUT/cap" "$OUT/.h" "$OUT/$name.jsonl"
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
