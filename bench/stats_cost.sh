#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
#
# bench/stats_cost.sh: what the switch's per-packet counting costs. Builds a
# second binary with the counters compiled out (-Dswitch_stats=false) and
# runs bench/run.sh's cases with both binaries, interleaved, beside
# dpdk-testpmd macswap on the same vdevs. Prints one Markdown table: cycles
# per packet with and without counting, and the difference against the aim
# of issue 7 (counting costs at most 2 cycles/packet). A figure, not a test.
#
#   bench/stats_cost.sh [-d SECONDS] [-r REPEATS] [-c CASES]
#
#   -d  forwarding time of each run (default 3)
#   -r  rounds; each round runs both binaries once, the fewest cycles/packet
#       of each binary is kept (default 3)
#   -c  cases as SIZE:FLOWS, comma-separated (default 64:1,64:1000)
#
# Environment: AIFAB (default build/app/dpdk-aifab), AIFAB_NOSTATS (default
# build-nostats/app/dpdk-aifab; configured when missing); both are rebuilt
# from the current sources first.
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd)
AIFAB=${AIFAB:-$ROOT/build/app/dpdk-aifab}
NOSTATS=${AIFAB_NOSTATS:-$ROOT/build-nostats/app/dpdk-aifab}
DUR=3
REPS=3
CASES=64:1,64:1000

# shellcheck source=bench/common.sh
. "$ROOT/bench/common.sh"
bench_options "d:DUR r:REPS c:CASES" 20 "$@"

build() {	# dir meson-options...
	local dir=$1
	shift
	if [ ! -f "$dir/build.ninja" ]; then
		meson setup "$dir" "$ROOT" --buildtype=release "$@" \
			>/dev/null
	fi
	ninja -C "$dir" app/dpdk-aifab >/dev/null
}
# Both from the same sources: (re)built every time (ninja is quick when
# nothing changed), so neither binary is older than the other.
build "$(dirname "$(dirname "$AIFAB")")"
build "$(dirname "$(dirname "$NOSTATS")")" -Dswitch_stats=false -Dtests=false

# bench/run.sh's table row for one case: "aifab_cpp testpmd_cpp" (its
# column 7 is "aifab / l3fwd / macswap" on-CPU cycles/packet).
one() {	# binary case workdir
	AIFAB=$1 "$ROOT/bench/run.sh" -d "$DUR" -r 1 -c "$2" -w "$3" |
		awk -F'|' '/^\| [0-9]+ B x/ {
			gsub(/ /, "", $7); split($7, c, "/"); print c[1], c[3] }'
}

min() {	# a b (numbers or "failed")
	awk -v a="$1" -v b="$2" 'BEGIN {
		if (a !~ /^[0-9.]+$/) print b; else if (b !~ /^[0-9.]+$/) print a;
		else print (a + 0 <= b + 0) ? a : b }'
}

echo "# dpdk-aifab counting cost, $(date -u +%Y-%m-%dT%H:%MZ), $(nproc) cores;" \
     "${DUR}s per run, best of $REPS rounds (both binaries each round)"
echo
echo "| case | with counters cycles/pkt | counters compiled out cycles/pkt | counting cost | testpmd macswap cycles/pkt | aim (<= 2 cycles/pkt) |"
echo "|---|---:|---:|---:|---:|---|"
status=0
IFS=, read -ra case_list <<<"$CASES"
for c in "${case_list[@]}"; do
	w=x n=x t=x
	for _ in $(seq 1 "$REPS"); do
		read -r a ta <<<"$(one "$AIFAB" "$c" /tmp/aifab-bench-stats)" ||
			true
		read -r b tb <<<"$(one "$NOSTATS" "$c" /tmp/aifab-bench-stats)" ||
			true
		w=$(min "$w" "${a:-failed}")
		n=$(min "$n" "${b:-failed}")
		t=$(min "$(min "$t" "${ta:-failed}")" "${tb:-failed}")
	done
	if [[ $w =~ ^[0-9.]+$ && $n =~ ^[0-9.]+$ ]]; then
		d=$(awk -v a="$w" -v b="$n" 'BEGIN { printf "%.1f", a - b }')
		aim=$(awk -v d="$d" 'BEGIN { print (d <= 2) ? "met" : "missed" }')
	else
		d="-" aim="not measured"; status=1
	fi
	echo "| ${c%%:*} B x ${c##*:} flows | $w | $n | $d | $t | $aim |"
done
echo
echo "Counting cost = with - without, each the fewest cycles/packet of its runs;"
echo "differences within the run-to-run spread (see testpmd's column across"
echo "cases) are noise, not cost."
exit $status
