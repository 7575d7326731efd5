#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
#
# bench/clos.sh: the in-memory fabric at scale on the virtual clock (issue
# 16). Writes an N-rank 2-tier Clos with tools/mk_clos_profiles.py --ranks N
# (1024: 32 leaves of 32 hosts at 100G, 8 spines, 400G uplinks, 2560 ports,
# 40 switch instances: generated here, not shipped), runs ring and
# halving-doubling AllReduce on one core and prints, per collective: the
# model time and busbw, the wall time, the frame-hops the wires delivered,
# frame-hops per wall second, the loop's CPU time (its console line) and
# frame-hops per CPU second, and the peak RSS (/usr/bin/time).
#
#   bench/clos.sh                  # 1024 ranks, 1 MiB, ring and hd
#   bench/clos.sh -n 128 -s 4194304
#   bench/clos.sh -c allreduce_ring -m 8192
#
# Options: -n RANKS (128 or 1024), -s SIZE bytes per AllReduce, -c
# COLLECTIVES (comma-separated), -m MB of EAL memory (--no-huge -m).
# A figure, not a test: it exits non-zero only when a run fails.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/.." && pwd)
source "$here/common.sh"

RANKS=1024
SIZE=1048576
COLLS=allreduce_ring,allreduce_hd
MEM=
bench_options "n:RANKS s:SIZE c:COLLS m:MEM" 21 "$@"
[ -n "$MEM" ] || MEM=$(( RANKS >= 1024 ? 2048 : 1024 ))
BUILD=${AIFAB_BUILD:-$root/build}
EXE=$BUILD/app/dpdk-aifab
PY=/usr/bin/python3
WORK=${WORK:-/tmp/aifab-bench}
mkdir -p "$WORK"
[ -x "$EXE" ] || { echo "no $EXE: tools/setup.sh build" >&2; exit 1; }

prof=$WORK/clos-$RANKS.ini
"$PY" "$root/tools/mk_clos_profiles.py" --ranks "$RANKS" --size "$SIZE" \
	"$prof"
echo "# $(wc -l < "$prof") lines, $(grep -c '^\[port\.' "$prof") ports;" \
	"$EXE; --no-huge -m $MEM"
printf '| %-15s | %6s | %9s | %10s | %7s | %11s | %17s | %10s | %16s | %11s |\n' \
	collective ranks "model us" "busbw GB/s" "wall s" "frame-hops" \
	"frame-hops/wall s" "loop CPU s" "frame-hops/CPU s" "peak RSS MB"
for coll in ${COLLS//,/ }; do
	tag=clos$RANKS-$coll
	rep=$WORK/$tag.json
	/usr/bin/time -f "%e %M" -o "$WORK/$tag.time" \
		"$EXE" --no-huge -m "$MEM" --no-pci -l 0 \
		--file-prefix "aifab-bench-$tag-$$" -- --profile "$prof" \
		--quiet --set "generator.collective=$coll" \
		--report-json "$rep" > "$WORK/$tag.log" 2>&1 || {
		echo "$coll: failed, see $WORK/$tag.log" >&2
		exit 1
	}
	read -r wall rss < "$WORK/$tag.time"
	"$PY" - "$rep" "$coll" "$RANKS" "$wall" "$rss" "$WORK/$tag.log" <<'EOF'
import json, re, sys
r = json.load(open(sys.argv[1]))
cpu = float(re.search(r"loop CPU ([0-9.]+) s", open(sys.argv[6]).read()).group(1))
c = r["generator"]["collective"]
hops = r["virtual_clock"]["frame_hops"]
wall, rss = float(sys.argv[4]), int(sys.argv[5])
print("| %-15s | %6s | %9.1f | %10.2f | %7.1f | %11d | %17.0f | %10.1f | %16.0f | %11.0f |" %
      (sys.argv[2], sys.argv[3], c["time_us"]["avg"], c["busbw_gbps"],
       wall, hops, hops / wall, cpu, hops / cpu, rss / 1024))
EOF
done
