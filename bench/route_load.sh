#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
#
# bench/route_load.sh: what loading a big route table costs at start-up.
# For each route count, bench/leaf-800g.ini plus a `[routes] file` of that
# many /24s (bench/gen_routes.py, as bench/run.sh's route-scale case) runs
# over four net_pcap ports whose inputs are empty, so the process parses
# the profile, builds the FIB, starts forwarding, sees its inputs end and
# exits: its wall time and on-CPU time (user + sys, /usr/bin/time) less
# those of the run without routes are the routes' load cost (profile
# parsing and FIB build together), its peak RSS what they hold.
#
#   bench/route_load.sh                      # 0, 100k and 1M routes
#   bench/route_load.sh -n 0,100000 -r 3 -m 1024
#
# Options: -n ROUTE COUNTS (comma-separated; the first is the baseline,
# keep it 0), -r REPS (best of; default 1), -m MB of EAL memory (--no-huge
# -m, default 2048). AIFAB: the binary (default build-rel/app/dpdk-aifab).
# A figure, not a test: it exits non-zero only when a run fails.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/.." && pwd)
source "$here/common.sh"

COUNTS=0,100000,1000000
REPS=1
MEM=2048
bench_options "n:COUNTS r:REPS m:MEM" 19 "$@"
AIFAB=${AIFAB:-$root/build-rel/app/dpdk-aifab}
PY=/usr/bin/python3
WORK=${WORK:-/tmp/aifab-bench}
mkdir -p "$WORK"
[ -x "$AIFAB" ] || { echo "no $AIFAB: tools/setup.sh build" >&2; exit 1; }

# an empty pcap (the global header only): the inputs end at once
empty=$WORK/route_load_empty.pcap
printf '\xd4\xc3\xb2\xa1\x02\x00\x04\x00\x00\x00\x00\x00\x00\x00\x00\x00\xff\xff\x00\x00\x01\x00\x00\x00' >"$empty"

echo "# $AIFAB; --no-huge -m $MEM; best of $REPS; load: less the first count's run"
printf '| %9s | %7s | %10s | %7s | %11s | %11s |\n' routes "wall s" "on-CPU s" \
	"load s" "load CPU s" "peak RSS MB"
base_w='' base_c=''
for n in ${COUNTS//,/ }; do
	prof=$WORK/route_load_$n.ini
	cp "$here/leaf-800g.ini" "$prof"
	if [ "$n" -gt 0 ]; then
		rt=$WORK/routes_$n.txt # shared with bench/run.sh
		if [ ! -s "$rt" ] || [ "$here/gen_routes.py" -nt "$rt" ]; then
			"$PY" "$here/gen_routes.py" --routes "$n" -o "$rt"
		fi
		sed -i "s|^\[routes\]\$|[routes]\nfile = $rt|" "$prof"
	fi
	best_w='' best_c='' best_m=''
	for ((i = 0; i < REPS; i++)); do
		vd=()
		for p in 0 1 2 3; do
			vd+=(--vdev "net_pcap$p,rx_pcap=$empty,tx_pcap=/dev/null")
		done
		/usr/bin/time -f "%e %U %S %M" -o "$WORK/route_load.time" \
			"$AIFAB" -l 0,1 --no-huge -m "$MEM" --no-pci \
			--file-prefix "aifab-rload-$$" "${vd[@]}" -- \
			--profile "$prof" --quiet >"$WORK/route_load_$n.log" 2>&1 || {
			echo "$n routes: failed, see $WORK/route_load_$n.log" >&2
			exit 1
		}
		read -r w u s m <"$WORK/route_load.time"
		c=$(awk -v u="$u" -v s="$s" 'BEGIN { printf "%.2f", u + s }')
		if [ -z "$best_w" ] || awk -v a="$c" -v b="$best_c" 'BEGIN { exit !(a < b) }'; then
			best_w=$w best_c=$c best_m=$m
		fi
	done
	[ -n "$base_w" ] || { base_w=$best_w; base_c=$best_c; }
	awk -v n="$n" -v w="$best_w" -v c="$best_c" -v bw="$base_w" \
		-v bc="$base_c" -v m="$best_m" 'BEGIN {
		printf "| %9d | %7.2f | %10.2f | %7.2f | %11.2f | %11.0f |\n",
			n, w, c, w - bw, c - bc, m / 1024 }'
done
